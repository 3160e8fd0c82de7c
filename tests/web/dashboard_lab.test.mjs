// Browser test of the dashboard against a collector holding data from a lab
// run: the Soft-RoCE VM runs the collector and three agents (node-0..2 on
// rxe0..2), node-2 with the self-test fault `--inject rnr`, so its RC peers
// see RNR_RETRY_EXC_ERR. Started by dashboard_lab.sh, which passes
//   RDMASCOPE_DASHBOARD_URL  the collector's port forwarded to the host
//   RDMASCOPE_LAB_PID        the lab's serve process (the wait gives up if it dies)
// Each test asserts that its page loaded with no console errors, failed
// requests or HTTP errors and shows the lab's nodes and values. Screenshots:
// lib/browser.mjs ARTIFACTS, named lab-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from './lib/collector.mjs';
import { launchBrowser, openPage, gotoView, screenshot, assertClean as clean, innerText as text, heatmapPixel } from './lib/browser.mjs';

const BASE = process.env.RDMASCOPE_DASHBOARD_URL;
const LAB_PID = Number(process.env.RDMASCOPE_LAB_PID || 0);
const NODES = ['node-0', 'node-1', 'node-2'];
const FAULTY = 'node-2';
const FAULT = { src: 'node-0', dst: FAULTY };
const HEALTHY = { src: 'node-0', dst: 'node-1' };

let browser;
const pages = [];

async function get(path) {
  const r = await fetch(`${BASE}${path}`);
  if (!r.ok) throw new Error(`GET ${path}: HTTP ${r.status}`);
  return r.json();
}

function labAlive() {
  if (!LAB_PID) return;
  try {
    process.kill(LAB_PID, 0);
  } catch {
    throw new Error('the lab stopped before its data was ready (see the lab log above)');
  }
}

// The newest RC rows of the fault pair and the healthy pair from the API, or
// null until every ordered pair has both transports.
async function labRows() {
  const m = await get('/api/v1/matrix');
  if (m.nodes.length !== NODES.length) return null;
  const c = Object.fromEntries(m.columns.map((x, i) => [x, i]));
  const idx = Object.fromEntries(m.nodes.map((n, i) => [n.name, i]));
  const row = (s, d, t) => m.rows.find((r) => r[c.src] === idx[s] && r[c.dst] === idx[d] && r[c.transport] === t);
  for (const s of NODES) for (const d of NODES) if (s !== d && (!row(s, d, 'rc') || !row(s, d, 'ud'))) return null;
  const pick = (r) => ({ error_count: r[c.error_count], loss_ratio: r[c.loss_ratio] });
  return { bad: pick(row(FAULT.src, FAULT.dst, 'rc')), good: pick(row(HEALTHY.src, HEALTHY.dst, 'rc')) };
}

// The lab shows what the tests look for: node-0 -> node-2 RC failing and
// node-0 -> node-1 RC clean in its newest summary.
async function labShowsTheFault() {
  labAlive();
  const r = await labRows();
  return !!r && r.bad.error_count > 0 && r.good.error_count === 0 && r.good.loss_ratio === 0;
}

before(async () => {
  assert.ok(BASE, 'RDMASCOPE_DASHBOARD_URL is set (run dashboard_lab.sh)');
  // The VM boots (TCG), the fleet comes up, node-2's fault is seen by its RC peers.
  await waitFor('the lab fleet: every pair probed, node-0 -> node-2 RC failing, node-0 -> node-1 clean',
    labShowsTheFault, 420000, 1000);
  browser = await launchBrowser();
});

after(async () => {
  for (const p of pages) await p.context().close().catch(() => {});
  if (browser) await browser.close();
});

async function page() {
  const p = await openPage(browser);
  pages.push(p);
  return p;
}


test('lab overview: three fresh nodes, the open WC error event, the faulty path worst', async () => {
  const p = await page();
  await gotoView(p, BASE, '#/overview');
  await screenshot(p, 'lab-overview');
  assert.match(await text(p, '[data-testid=card-nodes]'), /^3\b/);
  assert.doesNotMatch(await text(p, '[data-testid=card-nodes]'), /stale/);
  assert.match(await text(p, '[data-testid=card-events]'), /wc_error [1-9]/);
  const firstWorst = await text(p, '[data-testid=worst-paths] tbody tr:first-child');
  assert.match(firstWorst, new RegExp(`node-[01] → ${FAULTY}`));
  assert.match(firstWorst, /RNR_RETRY_EXC_ERR/);
  for (const n of NODES) assert.equal(await p.locator(`[data-testid=overview-nodes] tr[data-node="${n}"]`).count(), 1, n);
  clean(p);
});

test('lab nodes & ports: each agent\'s own rxe port ACTIVE with its RoCE v2 GIDs', async () => {
  const p = await page();
  await gotoView(p, BASE, '#/nodes');
  await screenshot(p, 'lab-nodes');
  const all = await text(p, '[data-testid=ports] tbody');
  // Each agent runs with --device rxeI: one node, one port.
  assert.equal(await p.locator('[data-testid=ports] tbody tr').count(), NODES.length);
  for (const [i, n] of NODES.entries()) assert.match(all, new RegExp(`${n}\\s+rxe${i}/1`), n);
  assert.match(all, /ACTIVE/);
  assert.match(all, /LinkUp/);
  assert.match(all, /Ethernet/);
  assert.match(all, /ffff:c0a8:4d0[1-3] RoCE v2/);
  assert.equal(await p.locator('[data-testid=ports] tbody tr.bad').count(), 0, 'no port flagged bad');
  clean(p);
});

// Coloured by loss: a clean RC pair has 0 % loss, the bottom of the ramp. (By
// p99 a clean pair's colour depends on its p99 against the fabric's median,
// which under TCG swings by 10x from one interval to the next.)
test('lab latency matrix: the faulty pair is red, a healthy pair green, click opens its pair page', async () => {
  const p = await page();
  await gotoView(p, BASE, '#/matrix?metric=p99&transport=rc');
  await screenshot(p, 'lab-matrix-rc-p99');
  const canvas = p.locator('[data-testid=heatmap]');
  const cell = (s, d) => p.evaluate(([a, b]) => window.rdmascopeMatrix.cell(a, b), [s, d]);
  const pixel = (c) => heatmapPixel(p, c);
  // Under TCG a healthy pair's newest summary can itself miss a probe now and
  // then (a deadline passed while the VM was starved), and the page draws what
  // the newest summary says. So the page is loaded once the API shows the
  // healthy pair clean, and loaded again (for up to 2 min) if a newer summary
  // the page fetched was not.
  let bad, good;
  const deadline = Date.now() + 120000;
  for (;;) {
    await waitFor('node-0 -> node-1 RC clean and node-0 -> node-2 failing', labShowsTheFault, 120000, 1000);
    await gotoView(p, BASE, '#/matrix?metric=loss&transport=rc');
    assert.equal(await canvas.getAttribute('data-nodes'), '3');
    bad = await cell(FAULT.src, FAULT.dst);
    good = await cell(HEALTHY.src, HEALTHY.dst);
    if (!good.bad || Date.now() > deadline) break;
    console.log(`# the healthy pair as drawn: errors ${good.error_count}, loss ${good.value}; loading again`);
  }
  await screenshot(p, 'lab-matrix-rc-loss');
  assert.equal(bad.bad, true);
  const [r, g] = await pixel(bad);
  assert.ok(r > 150 && g < 80, `fault cell drawn red, got rgb ${r},${g}`);
  assert.equal(good.bad, false, `healthy pair drawn bad: errors ${good.error_count}, loss ${good.value}`);
  const [r2, g2] = await pixel(good);
  assert.ok(g2 > 120 && r2 < 120, `healthy cell drawn green, got rgb ${r2},${g2}`);

  await p.mouse.move(bad.x, bad.y);
  await p.waitForSelector('#tooltip:not([hidden])');
  const tip = await text(p, '#tooltip');
  assert.match(tip, new RegExp(`${FAULT.src} → ${FAULT.dst}`));
  assert.match(tip, /RNR_RETRY_EXC_ERR/);

  await p.mouse.click(bad.x, bad.y);
  await p.waitForSelector('[data-testid=chart-rtt]', { timeout: 15000 });
  await p.waitForSelector('main[data-ready="1"]');
  assert.match(p.url(), new RegExp(`#/pair\\?src=${FAULT.src}&dst=${FAULT.dst}`));
  await screenshot(p, 'lab-pair-from-matrix');
  clean(p);
});

test('lab pair page: RTT over time, the RNR errors marked and explained', async () => {
  const p = await page();
  await gotoView(p, BASE, `#/pair?src=${FAULT.src}&dst=${FAULT.dst}&range=15m`);
  await screenshot(p, 'lab-pair');
  assert.equal(await text(p, '[data-testid=pair-title]'), `${FAULT.src} → ${FAULT.dst}`);
  assert.match(await text(p, '[data-testid=pair-summary]'), /[1-9]\d* intervals/);
  assert.ok(await p.locator('[data-testid=chart-rtt] path.series').count() >= 1, 'an RTT series is drawn');
  assert.ok(await p.locator('[data-testid=chart-rtt] .marker').count() >= 1, 'WC errors marked on the time axis');
  assert.match(await p.locator('[data-testid=chart-rtt] .marker title').first().textContent(), /RNR_RETRY_EXC_ERR/);
  const errors = await text(p, '[data-testid=pair-errors]');
  assert.match(errors, /IBV_WC_RNR_RETRY_EXC_ERR/);
  assert.match(errors, /Likely causes/);
  assert.match(errors, /Check/);
  clean(p);
});

test('lab events: the decoded RNR error of each RC peer of the faulty node, open', async () => {
  const p = await page();
  await gotoView(p, BASE, '#/events?open=1');
  await screenshot(p, 'lab-events');
  const rows = await p.locator('[data-testid=events] tr[data-kind=wc_error]').allInnerTexts();
  assert.ok(rows.some((t) => new RegExp(`RNR_RETRY_EXC_ERR[\\s\\S]*${FAULT.src} → ${FAULT.dst} \\(rc\\)`).test(t)), rows.join('\n'));
  // Other WC errors may be open too (e.g. a RETRY_EXC while a peer's responder was starting):
  // open the explanation of the RNR row itself.
  const wcRow = p.locator('[data-testid=events] tr[data-kind=wc_error]', { hasText: 'RNR_RETRY_EXC_ERR' }).first();
  await wcRow.locator('summary').click();
  assert.match(await wcRow.locator('.wc-explain').innerText(), /IBV_WC_RNR_RETRY_EXC_ERR[\s\S]*Check/);
  clean(p);
});

test('lab counters: rate plots of rxe0 on node-0, with the RNR NAKs node-2 sends it', async () => {
  const p = await page();
  await gotoView(p, BASE, '#/counters?node=node-0&range=15m');
  await screenshot(p, 'lab-counters');
  const port = p.locator('section.port[data-port="rxe0/1"]');
  assert.equal(await port.count(), 1);
  assert.equal(await port.locator('[data-testid=counter-rcvd_pkts]').count(), 1, 'rcvd_pkts plotted');
  assert.equal(await port.locator('[data-testid=counter-rcvd_rnr_err]').count(), 1, 'rcvd_rnr_err plotted');
  clean(p);
});
