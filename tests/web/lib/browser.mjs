// Headless Debian chromium driven by playwright-core.
//
// Contract: launchBrowser() starts /usr/bin/chromium (or $CHROMIUM) headless
// with a fresh temporary profile and the flags that keep it off the network
// (no background networking, component updates, sync or QUIC). openPage()
// returns a page that records console errors, uncaught exceptions and failed
// requests in page.problems; assertClean() fails a test on any of them.
// Screenshots go to $RDMASCOPE_WEB_ARTIFACTS
// (default build/web-artifacts).
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
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

// Fails unless the page recorded no console error, exception, failed request or HTTP error.
export function assertClean(page) {
  assert.deepEqual(page.problems, [], 'no console errors, exceptions or failed requests');
}

export const innerText = (page, selector) => page.locator(selector).innerText();

// [r, g, b, a] of the heatmap canvas as drawn, at a cell's page coordinates
// ({x, y} from window.rdmascopeMatrix.cell), in device pixels.
export function heatmapPixel(page, cell) {
  return page.evaluate(([x, y]) => {
    const cv = document.querySelector('[data-testid=heatmap]');
    const r = cv.getBoundingClientRect();
    const k = cv.width / r.width;
    return Array.from(cv.getContext('2d').getImageData(Math.round((x - r.left) * k), Math.round((y - r.top) * k), 1, 1).data);
  }, [cell.x, cell.y]);
}
