// Headless Debian chromium driven by playwright-core.
//
// Contract: launchBrowser() starts /usr/bin/chromium (or $CHROMIUM) headless
// with a fresh temporary profile and the flags that keep it off the network
// (no background networking, component updates, sync or QUIC). openPage()
// returns a page that records console errors, uncaught exceptions and failed
// requests in page.problems. Screenshots go to $RDMASCOPE_WEB_ARTIFACTS
// (default build/web-artifacts).
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD } from './collector.mjs';

export const ARTIFACTS = process.env.RDMASCOPE_WEB_ARTIFACTS || join(BUILD, 'web-artifacts');

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-default-apps', '--disable-extensions', '--disable-dev-shm-usage'];

export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: 30000,
  });
}

export async function openPage(browser, { width = 1400, height = 900 } = {}) {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  page.problems = [];
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => page.problems.push(`exception: ${e.message}`));
  page.on('requestfailed', (r) => page.problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) page.problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  return page;
}

// Navigates to a dashboard hash and waits until the view's first refresh is done.
export async function gotoView(page, base, hash) {
  if (page.url().startsWith(base)) await page.evaluate(() => { delete document.getElementById('view').dataset.ready; });
  await page.goto(`${base}/${hash}`);
  await page.waitForSelector('main[data-ready="1"]', { timeout: 15000 });
}

export async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
