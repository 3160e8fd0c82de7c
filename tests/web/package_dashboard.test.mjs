// Browser check of the dashboard served by an installed collector (the
// Debian package test, tests/packaging/package_debian.sh): the collector runs
// from /usr/sbin without --web-dir, so the page is the copy built into the
// binary. Environment:
//   RDMASCOPE_DASHBOARD_URL  the collector's base URL
//   RDMASCOPE_EXPECT_NODE    a node that has reported to it
// Asserts that the overview loads with no console errors,
// failed requests or HTTP errors and show the node. Screenshots:
// lib/browser.mjs ARTIFACTS, named package-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, gotoView, screenshot, assertClean, innerText } from './lib/browser.mjs';

const BASE = process.env.RDMASCOPE_DASHBOARD_URL;
const NODE = process.env.RDMASCOPE_EXPECT_NODE;
let browser;

before(async () => {
  assert.ok(BASE && NODE, 'RDMASCOPE_DASHBOARD_URL and RDMASCOPE_EXPECT_NODE are set (run package_debian.sh)');
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
});

test('the installed collector serves its built-in dashboard with the reported node', async () => {
  const p = await openPage(browser);
  await gotoView(p, BASE, '#/overview');
  assert.match(await innerText(p, '[data-testid=card-nodes]'), /^1\b/);
  const row = await innerText(p, `[data-testid=overview-nodes] tbody tr[data-node="${NODE}"]`);
  assert.match(row, new RegExp(`^${NODE.replace(/[.]/g, '\\.')}\\s`), `the overview lists ${NODE}: ${row}`);
  assert.match(row, /\b0\.1\.0\b/, `the row shows the installed agent's version: ${row}`);
  await screenshot(p, 'package-overview');
  assertClean(p);
  await p.context().close();
});
