// Browser test of Nodes & ports paged on the server: a private collector
// holds 60 nodes x 4 ports (two firmware versions, some ports DOWN);
// headless chromium shows one page of 100 rows at a time, and filtering by
// firmware or by state shows the totals GET /api/v1/ports answers for the
// same filter, with every shown row matching it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCollector } from './lib/collector.mjs';
import { launchBrowser, openPage, gotoView, screenshot, assertClean as clean } from './lib/browser.mjs';

const NODES = 60;
const FW = (n) => (n % 3 === 0 ? '20.39.1002' : '16.35.2000');
const DOWN = (n, d, p) => (n + d + p) % 7 === 0;

function report(n) {
  const node = `host-${String(n).padStart(3, '0')}`;
  const devices = [0, 1].map((d) => ({
    name: `mlx5_${d}`, fw_ver: FW(n), node_guid: '0000:0000:0000:0100',
    ports: [1, 2].map((p) => ({
      port: p,
      state: DOWN(n, d, p) ? { number: 1, name: 'DOWN' } : { number: 4, name: 'ACTIVE' },
      phys_state: DOWN(n, d, p) ? { number: 3, name: 'Disabled' } : { number: 5, name: 'LinkUp' },
      lid: 3, sm_lid: 1, link_layer: 'InfiniBand', active_mtu: 4096,
      rate: { gbps: 100, width: '4X', speed: 'EDR', text: '100 Gb/sec (4X EDR)' },
      gids: [{ index: 0, gid: `fe80:0000:0000:0000:0000:0000:${String(n).padStart(4, '0')}:000${2 * d + p}`, type: null, ndev: null }],
      counters: { symbol_error: 0 }, hw_counters: {},
    })),
  }));
  return {
    schema_version: 1, report_id: `${node}-1`, node, agent_version: '0.1.0', generated_at_ms: Date.now(), interval_s: 10,
    labels: { group: n % 2 ? 'rack-odd' : 'rack-even' }, inventory: { devices, warnings: [] }, probes: [],
  };
}

let collector;
let browser;

before(async () => {
  collector = await startCollector();
  for (let n = 0; n < NODES; n += 1) await collector.post(report(n));
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (collector) await collector.stop();
});

// The API's total for a filter, as the page asks it.
async function apiTotal(filter) {
  const qs = new URLSearchParams({ sort: 'node', order: 'asc', limit: '1', ...filter });
  return (await collector.get(`/api/v1/ports?${qs}`)).total;
}

// Waits until the page shows the answer to a query containing `part`; returns its total.
async function shownTotal(p, part) {
  const el = p.locator(`[data-testid=ports-total][data-query*="${part}"]`);
  await el.waitFor({ timeout: 10000 });
  return Number(await el.getAttribute('data-total'));
}

test('nodes & ports: one page of rows, the total of the whole fleet, next and previous', async () => {
  const p = await openPage(browser);
  await gotoView(p, collector.url, '#/nodes');
  const all = await apiTotal({});
  assert.equal(all, NODES * 4);
  assert.equal(await shownTotal(p, 'sort=node'), all);
  const rows = p.locator('[data-testid=ports] tbody tr');
  assert.equal(await rows.count(), 100);  // one page, not 240 rows
  const first = await rows.first().innerText();
  assert.match(first, /^host-000/);
  await p.click('[data-testid=page-next]');
  await p.waitForFunction(() => !document.querySelector('[data-testid=ports] tbody tr').innerText.startsWith('host-000'));
  assert.match(await rows.first().innerText(), /^host-025[\s\S]*mlx5_0\/1/);  // rows 101.. in node order
  assert.match(await p.locator('[data-testid=ports-total]').innerText(), /240 ports match; page 2: 101–200/);
  await p.click('[data-testid=page-prev]');
  await p.waitForFunction(() => document.querySelector('[data-testid=ports] tbody tr').innerText.startsWith('host-000'));
  clean(p);
  await p.context().close();
});

test('nodes & ports: filtering by firmware or by state shows the totals the API returns', async () => {
  const p = await openPage(browser);
  await gotoView(p, collector.url, '#/nodes');
  const rows = p.locator('[data-testid=ports] tbody tr');

  await p.fill('[data-testid=filter-fw]', '20.39');
  const fwTotal = await apiTotal({ firmware: '20.39' });
  assert.equal(fwTotal, 20 * 4);  // every third node
  assert.equal(await shownTotal(p, 'firmware=20.39'), fwTotal);
  assert.equal(await rows.count(), fwTotal);
  for (const t of await rows.allInnerTexts()) assert.match(t, /20\.39\.1002/);
  assert.match(p.url(), /fw=20\.39/);
  await screenshot(p, 'ports-firmware');

  await p.fill('[data-testid=filter-fw]', '');
  await p.selectOption('[data-testid=filter-state]', '!ACTIVE');
  const notActive = await apiTotal({ state: '!ACTIVE' });
  assert.ok(notActive > 0 && notActive < NODES * 4);
  assert.equal(await shownTotal(p, 'state=%21ACTIVE'), notActive);
  assert.equal(await rows.count(), notActive);
  for (const t of await rows.allInnerTexts()) assert.match(t, /DOWN/);
  assert.match(p.url(), /state=!ACTIVE|state=%21ACTIVE/);

  // Both at once, and a shared link opens the same filter.
  await p.fill('[data-testid=filter-fw]', '16.35');
  const both = await apiTotal({ state: '!ACTIVE', firmware: '16.35' });
  assert.equal(await shownTotal(p, 'firmware=16.35'), both);
  const q = await openPage(browser);
  await gotoView(q, collector.url, '#/nodes?state=DOWN&fw=20.39');
  assert.equal(await q.inputValue('[data-testid=filter-fw]'), '20.39');
  assert.equal(await shownTotal(q, 'firmware=20.39'), await apiTotal({ state: 'DOWN', firmware: '20.39' }));
  clean(p);
  clean(q);
  await p.context().close();
  await q.context().close();
});
