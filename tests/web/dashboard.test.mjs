// Browser test of the dashboard: a private collector holding the test fabric
// (lib/dataset.mjs), headless chromium, every view. Each test asserts that its
// page loaded with no console errors, failed requests or HTTP errors, and shows
// the fabric's known nodes and values. Screenshots: lib/browser.mjs ARTIFACTS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCollector, waitFor } from './lib/collector.mjs';
import { launchBrowser, openPage, gotoView, screenshot, assertClean as clean, innerText as text, heatmapPixel } from './lib/browser.mjs';
import { posts, stalePosts, FAULT } from './lib/dataset.mjs';

let collector;
let browser;
const pages = [];

before(async () => {
  collector = await startCollector(['--stale-after-s', '600']);
  for (const r of stalePosts()) await collector.post(r);
  // node-d reports every second: it is stale once 3 of its intervals pass.
  await waitFor('node-d to go stale', async () => {
    const { nodes } = await collector.get('/api/v1/nodes');
    return nodes.find((n) => n.name === 'node-d').age_s > 3.2;
  }, 15000, 100);
  for (const r of posts()) await collector.post(r);
  browser = await launchBrowser();
});

after(async () => {
  for (const p of pages) await p.context().close().catch(() => {});
  if (browser) await browser.close();
  if (collector) await collector.stop();
});

async function page() {
  const p = await openPage(browser);
  pages.push(p);
  return p;
}


test('matrix API: nodes and the newest summary of every pair, compact', async () => {
  const m = await collector.get('/api/v1/matrix');
  assert.deepEqual(m.nodes.map((n) => n.name), ['node-a', 'node-b', 'node-c', 'node-d']);
  assert.deepEqual(m.nodes[0].labels, { group: 'rack1', control_host: '192.168.77.1' });
  assert.equal(m.nodes[3].interval_s, 1);
  assert.equal(m.rows.length, 24);  // 4 x 3 pairs, RC and UD
  assert.equal(m.truncated, false);
  const c = Object.fromEntries(m.columns.map((x, i) => [x, i]));
  const fault = m.rows.find((r) => r[c.src] === 0 && r[c.dst] === 2 && r[c.transport] === 'rc');
  assert.equal(fault[c.loss_ratio], 0.3);
  assert.equal(fault[c.rtt_p99_us], 4800);
  assert.equal(fault[c.error_count], 3);
  assert.deepEqual(fault[c.errors_by_status], { RETRY_EXC_ERR: 3 });
  // since: only pairs whose newest interval ended at or after it.
  const none = await collector.get(`/api/v1/matrix?since=${Date.now() + 3600e3}`);
  assert.equal(none.rows.length, 0);
  assert.equal(none.nodes.length, 4);
  const bad = await fetch(`${collector.url}/api/v1/matrix?since=yesterday`);
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).detail.param, 'since');
});

test('overview: counts, worst path, stale node flagged', async () => {
  const p = await page();
  await gotoView(p, collector.url, '#/overview');
  await screenshot(p, 'overview');
  assert.match(await text(p, '[data-testid=card-nodes]'), /^4\b[\s\S]*1 stale/);
  assert.match(await text(p, '[data-testid=card-ports]'), /4 \/ 5[\s\S]*1 not active/);
  const events = await text(p, '[data-testid=card-events]');
  assert.match(events, /^2\b/);
  assert.match(events, /wc_error 1/);
  assert.match(events, /port_state 1/);
  const firstWorst = await text(p, '[data-testid=worst-paths] tbody tr:first-child');
  assert.match(firstWorst, /node-a → node-c/);
  assert.match(firstWorst, /RETRY_EXC_ERR: 3/);
  assert.match(firstWorst, /30 %/);
  const rowD = p.locator('[data-testid=overview-nodes] tr[data-node="node-d"]');
  assert.match(await rowD.innerText(), /stale/);
  assert.equal(await rowD.getAttribute('class'), 'stale');
  assert.doesNotMatch(await p.locator('[data-testid=overview-nodes] tr[data-node="node-a"]').innerText(), /stale/);
  clean(p);
});

test('nodes & ports: inventory values, filter and sort kept in the URL', async () => {
  const p = await page();
  await gotoView(p, collector.url, '#/nodes');
  await screenshot(p, 'nodes');
  const rows = p.locator('[data-testid=ports] tbody tr');
  assert.equal(await rows.count(), 5);
  const all = await text(p, '[data-testid=ports] tbody');
  assert.match(all, /0000:0000:0000:0000:0000:ffff:c0a8:4d01 RoCE v2 \(eth0\)/);
  assert.match(all, /fe80:0000:0000:0000:5054:00ff:fe12:3402 RoCE v2/);
  assert.match(all, /Ethernet/);
  assert.match(all, /10 Gb\/sec \(1X FDR10\)/);
  const down = await p.locator('[data-testid=ports] tbody tr.bad').innerText();
  assert.match(down, /node-c[\s\S]*rxe1\/1[\s\S]*DOWN[\s\S]*Disabled/);

  // The collector filters and sorts: wait for the page fetched with the query.
  const shown = (part) => p.locator(`[data-testid=ports-total][data-query*="${part}"]`).waitFor({ timeout: 10000 });
  await p.fill('[data-testid=filter]', 'node-b');
  await shown('q=node-b');
  assert.equal(await rows.count(), 1);
  assert.match(await rows.first().innerText(), /ACTIVE[\s\S]*LinkUp[\s\S]*4096/);
  assert.match(p.url(), /#\/nodes\?filter=node-b/);

  await p.fill('[data-testid=filter]', '');
  await p.click('[data-testid=ports] th[data-key=state]');
  await shown('sort=state&order=asc');
  await p.click('[data-testid=ports] th[data-key=state]');
  assert.match(p.url(), /sort=state&dir=desc/);
  await shown('sort=state&order=desc');
  assert.match(await rows.first().innerText(), /ACTIVE/);  // by state number: ACTIVE (4) first
  await p.click('[data-testid=ports] th[data-key=state]');
  assert.match(p.url(), /sort=state&dir=asc/);
  await shown('sort=state&order=asc');
  assert.match(await rows.first().innerText(), /DOWN/);

  // A shared link opens the same view state.
  const q = await page();
  await gotoView(q, collector.url, '#/nodes?filter=rxe1&sort=node&dir=asc');
  assert.equal(await q.inputValue('[data-testid=filter]'), 'rxe1');
  assert.equal(await q.locator('[data-testid=ports] tbody tr').count(), 1);
  clean(p);
  clean(q);
});

test('latency matrix: the faulty pair is bad, hover shows values, click opens the pair page', async () => {
  const p = await page();
  await gotoView(p, collector.url, '#/matrix?metric=p99');
  await screenshot(p, 'matrix-p99');
  const canvas = p.locator('[data-testid=heatmap]');
  assert.equal(await canvas.getAttribute('data-nodes'), '4');
  assert.equal(await canvas.getAttribute('data-pairs'), '12');
  const cell = (s, d) => p.evaluate(([a, b]) => window.rdmascopeMatrix.cell(a, b), [s, d]);
  // Colour as drawn on the canvas (not the page's bookkeeping).
  const pixel = (c) => heatmapPixel(p, c);
  const bad = await cell(FAULT.src, FAULT.dst);
  assert.equal(bad.bad, true);
  const [r, g] = await pixel(bad);
  assert.ok(r > 150 && g < 80, `fault cell drawn red, got rgb ${r},${g}`);
  const good = await cell('node-a', 'node-b');
  assert.equal(good.bad, false);
  const [r2, g2] = await pixel(good);
  assert.ok(g2 > 120 && r2 < 120, `healthy cell drawn green, got rgb ${r2},${g2}`);
  assert.match(await text(p, '[data-testid=legend]'), /p99 RTT[\s\S]*failed completions[\s\S]*no data/);

  await p.mouse.move(bad.x, bad.y);
  await p.waitForSelector('#tooltip:not([hidden])');
  const tip = await text(p, '#tooltip');
  assert.match(tip, /node-a → node-c/);
  assert.match(tip, /loss 30 %/);
  assert.match(tip, /RETRY_EXC_ERR/);
  // A refresh redraws the heatmap and keeps the hovered cell's values shown.
  const drawnBefore = await canvas.getAttribute('data-rendered-ms');
  await p.evaluate(() => window.rdmascopeRefresh());
  assert.notEqual(await canvas.getAttribute('data-rendered-ms'), drawnBefore);
  assert.equal(await p.locator('#tooltip').isVisible(), true);
  assert.equal(await text(p, '#tooltip'), tip);

  await p.selectOption('[data-testid=metric]', 'loss');
  assert.match(p.url(), /metric=loss/);
  assert.equal((await cell(FAULT.src, FAULT.dst)).bad, true);
  assert.equal((await cell('node-b', 'node-a')).bad, false);
  await p.selectOption('[data-testid=transport]', 'ud');  // UD has the loss but no WC errors
  const ud = await cell(FAULT.src, FAULT.dst);
  assert.equal(ud.bad, true);
  const [r3, g3] = await pixel(ud);
  assert.ok(r3 > 150 && g3 < 80, `fault cell red by loss alone, got rgb ${r3},${g3}`);
  await screenshot(p, 'matrix-loss-ud');

  await p.mouse.click(ud.x, ud.y);
  await p.waitForSelector('[data-testid=chart-rtt]', { timeout: 15000 });
  await p.waitForSelector('main[data-ready="1"]');
  assert.match(p.url(), /#\/pair\?src=node-a&dst=node-c/);
  clean(p);
});

test('pair page: RTT and loss over time with WC errors marked and explained', async () => {
  const p = await page();
  await gotoView(p, collector.url, `#/pair?src=${FAULT.src}&dst=${FAULT.dst}&range=1h`);
  await screenshot(p, 'pair');
  assert.equal(await text(p, '[data-testid=pair-title]'), 'node-a → node-c');
  assert.match(await text(p, '[data-testid=pair-summary]'), /24 intervals/);
  assert.equal(await p.locator('[data-testid=chart-rtt] path.series').count(), 4);  // rc/ud x p50/p99
  assert.equal(await p.locator('[data-testid=chart-rtt] .marker').count(), 4);
  assert.match(await p.locator('[data-testid=chart-rtt] .marker title').first().textContent(), /RETRY_EXC_ERR: 3 — RETRY_EXC_ERR: The sender retransmitted/);
  const errors = await text(p, '[data-testid=pair-errors]');
  assert.match(errors, /IBV_WC_RETRY_EXC_ERR/);
  assert.match(errors, /Likely causes[\s\S]*peer QP gone/);
  assert.match(errors, /Check/);
  await p.selectOption('[data-testid=range]', '15m');
  await p.waitForFunction(() => /range=15m/.test(location.hash));
  await p.waitForFunction(() => {
    const c = document.querySelector('[data-testid=chart-rtt]');
    return c && Number(c.dataset.t1) - Number(c.dataset.t0) === 15 * 60 * 1000;
  });
  assert.equal(await p.locator('[data-testid=chart-rtt] .marker').count(), 4);
  clean(p);
});

test('events: decoded WC errors, port state and counter thresholds, open and closed', async () => {
  const p = await page();
  await gotoView(p, collector.url, '#/events?open=1');
  const open = p.locator('[data-testid=events] tbody tr');
  assert.equal(await open.count(), 2);
  const wcRow = p.locator('[data-testid=events] tr[data-kind=wc_error]');
  assert.match(await wcRow.innerText(), /RETRY_EXC_ERR[\s\S]*node-a → node-c \(rc\)/);
  await wcRow.locator('summary').click();
  assert.match(await wcRow.locator('.wc-explain').innerText(), /IBV_WC_RETRY_EXC_ERR[\s\S]*Check[\s\S]*ibv_devinfo|IBV_WC_RETRY_EXC_ERR[\s\S]*Check/);
  assert.match(await text(p, '[data-testid=events] tr[data-kind=port_state]'), /DOWN[\s\S]*node-c rxe1\/1[\s\S]*Disabled/);
  await screenshot(p, 'events-open');

  // A refresh keeps the expanded explanation and the place on the page.
  const before = Number(await p.getAttribute('body', 'data-refreshed'));
  await p.evaluate(() => window.rdmascopeRefresh());
  assert.ok(Number(await p.getAttribute('body', 'data-refreshed')) > before);
  assert.equal(await wcRow.locator('details').getAttribute('open'), '');

  await p.selectOption('[data-testid=open]', 'closed');
  await p.waitForSelector('[data-testid=events] tr[data-kind=counter_threshold]');
  assert.match(p.url(), /open=closed/);
  assert.match(await text(p, '[data-testid=events] tr[data-kind=counter_threshold]'), /closed[\s\S]*link_downed[\s\S]*node-b rxe0\/1[\s\S]*rose by 12/);
  clean(p);
});

test('counters: per-port rate plots, errors first', async () => {
  const p = await page();
  await gotoView(p, collector.url, '#/counters?node=node-b&range=1h');
  await screenshot(p, 'counters');
  const port = p.locator('section.port[data-port="rxe0/1"]');
  assert.equal(await port.count(), 1);
  assert.ok(await port.locator('[data-testid=counter-link_downed]').count() === 1, 'link_downed plotted');
  assert.ok(await port.locator('[data-testid=counter-rcvd_pkts]').count() === 1, 'rcvd_pkts plotted');
  // rcvd_pkts rises 1800 per 60 s interval: 30 /s.
  assert.match(await port.locator('[data-testid=counter-rcvd_pkts] circle title').first().textContent(), /: 30\.0 \/s|: 30 \/s/);
  clean(p);
});

test('auto-refresh keeps filters and scroll position', async () => {
  const p = await openPage(browser, { width: 1400, height: 300 });
  pages.push(p);
  await gotoView(p, collector.url, '#/nodes?filter=node&refresh=0');
  await p.evaluate(() => window.scrollTo(0, 200));
  const y = await p.evaluate(() => window.scrollY);
  assert.ok(y > 0);
  await p.evaluate(() => window.rdmascopeRefresh());
  assert.equal(await p.inputValue('[data-testid=filter]'), 'node');
  assert.equal(await p.evaluate(() => window.scrollY), y);
  assert.match(p.url(), /filter=node/);
  clean(p);
});

test('a fresh collector with no reports: every view loads and says so', async () => {
  const empty = await startCollector();
  try {
    const p = await page();
    for (const hash of ['#/overview', '#/nodes', '#/matrix', '#/pair', '#/events', '#/counters']) {
      await gotoView(p, empty.url, hash);
      assert.doesNotMatch(await text(p, '#status'), /failed/, hash);
    }
    await gotoView(p, empty.url, '#/overview');
    assert.match(await text(p, 'main'), /No probe results yet/);
    await gotoView(p, empty.url, '#/matrix');
    assert.equal(await p.locator('[data-testid=heatmap]').getAttribute('data-nodes'), '0');
    await gotoView(p, empty.url, '#/events');
    assert.match(await text(p, '[data-testid=no-events]'), /No events/);
    await gotoView(p, empty.url, '#/nosuchview');
    assert.match(await text(p, 'main'), /No view "nosuchview"/);
    clean(p);
  } finally {
    await empty.stop();
  }
});
