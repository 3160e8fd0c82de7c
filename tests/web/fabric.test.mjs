// Browser test of the dashboard's Fabric page and the neighbour column: a
// private collector receives two subnet sweeps (the second with one cable
// gone, an error counter risen and a link below its supported width) and a
// host's neighbour report; headless chromium shows switches with error badges,
// links with their state, the link history, and the host's switch port.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCollector } from './lib/collector.mjs';
import { launchBrowser, openPage, gotoView, screenshot, assertClean as clean, innerText as text } from './lib/browser.mjs';

const G = { hostA: '0x0000000000000100', hostB: '0x0000000000000102', leaf: '0x0000000000000200', spine: '0x0000000000000201' };
const NAME = { [G.hostA]: 'host-a', [G.hostB]: 'host-b', [G.leaf]: 'leaf-1', [G.spine]: 'spine-1' };

function port(n, remote, { width = '4X', counters = {} } = {}) {
  return {
    port: n, lid: 0, state: remote ? 'ACTIVE' : 'DOWN', phys_state: remote ? 'LinkUp' : 'Polling', width, speed: 'EDR',
    width_supported: '4X', speed_supported: 'EDR', remote: remote ? { guid: remote[0], port: remote[1] } : null,
    counters: { symbol_error: 0, link_downed: 0, port_rcv_errors: 0, port_xmit_data_bytes: 4000, ...counters },
  };
}

// A two-switch subnet. broken: leaf-1[2]-spine-1[2] unplugged, leaf-1[4] symbol errors, leaf-1[1] at 1X.
function sweep(broken) {
  const link = (a, b) => (broken ? null : [a, b]);
  const nodes = [
    [G.leaf, 'Switch', [port(1, [G.spine, 1], { width: broken ? '1X' : '4X' }), port(2, link(G.spine, 2)), port(3, [G.hostA, 1]),
      port(4, [G.hostB, 1], { counters: { symbol_error: broken ? 50 : 0 } })]],
    [G.spine, 'Switch', [port(1, [G.leaf, 1], { width: broken ? '1X' : '4X' }), port(2, link(G.leaf, 2))]],
    [G.hostA, 'CA', [port(1, [G.leaf, 3])]],
    [G.hostB, 'CA', [port(1, [G.leaf, 4])]],
  ];
  return {
    nodes: nodes.map(([guid, type, ports]) => ({ guid, type, description: NAME[guid], lid: 1, num_ports: ports.length, ports })),
    unreachable: [], sweep_ms: 3,
  };
}

function report(node, id, extra) {
  return {
    schema_version: 1, report_id: id, node, agent_version: '0.1.0', generated_at_ms: Date.now(), interval_s: 10, labels: {},
    inventory: {
      devices: [{ name: 'mlx5_0', node_guid: '0000:0000:0000:0100', ports: [{
        port: 1, state: { number: 4, name: 'ACTIVE' }, phys_state: { number: 5, name: 'LinkUp' }, lid: 3, sm_lid: 1,
        link_layer: 'InfiniBand', active_mtu: 4096, rate: { gbps: 100, width: '4X', speed: 'EDR', text: '100 Gb/sec (4X EDR)' },
        gids: [], counters: { symbol_error: 0 }, hw_counters: {},
      }] }],
      warnings: [],
    },
    probes: [],
    ...extra,
  };
}

let collector;
let browser;

before(async () => {
  collector = await startCollector();
  const neighbour = { device: 'mlx5_0', local_port: 1, guid: G.leaf, type: 'Switch', description: 'leaf-1', lid: 1,
    port: { ...port(3, [G.hostA, 1], { counters: { symbol_error: 7 } }) } };
  delete neighbour.port.remote;
  await collector.post(report('host-a', 'host-a-1', { neighbours: [neighbour] }));
  await collector.post(report('host-b', 'host-b-1', { fabric: sweep(false) }));
  await new Promise((r) => setTimeout(r, 20));  // the second sweep is strictly newer
  await collector.post(report('host-b', 'host-b-2', { fabric: sweep(true) }));
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (collector) await collector.stop();
});

test('fabric API: links with the gone one, errors over threshold, open link events', async () => {
  const { links } = await collector.get('/api/v1/fabric/links');
  assert.equal(links.length, 4);
  const gone = links.filter((l) => l.gone_at_ms != null);
  assert.deepEqual(gone.map((l) => [l.a_description, l.a_port, l.b_description, l.b_port]), [['leaf-1', 2, 'spine-1', 2]]);
  const errors = await collector.get('/api/v1/fabric/errors');
  assert.deepEqual(errors.ports.map((p) => [p.description, p.port, p.counter, p.value]), [['leaf-1', 4, 'symbol_error', 50]]);
  assert.deepEqual(errors.events.map((e) => e.kind).sort(), ['link_degraded', 'link_down', 'link_errors']);
  const { nodes } = await collector.get('/api/v1/fabric/nodes');
  assert.equal(nodes.length, 4);
  const node = await collector.get('/api/v1/nodes/host-a');
  assert.equal(node.neighbours[0].switch_description, 'leaf-1');
});

test('fabric page: switches with error badges, links down first, link history', async () => {
  const p = await openPage(browser);
  await gotoView(p, collector.url, '#/fabric');
  await screenshot(p, 'fabric');
  assert.match(await text(p, '[data-testid=fabric-summary]'), /2 switches, 2 other nodes, 4 links \(1 down\), 1 port counters over threshold, 3 open link events/);
  const leaf = p.locator('[data-testid=switches] tbody tr', { hasText: 'leaf-1' });
  assert.match(await leaf.innerText(), /leaf-1[\s\S]*0x0000000000000200[\s\S]*1 port counter/);
  assert.equal(await leaf.getAttribute('class'), 'bad');
  const first = p.locator('[data-testid=links] tbody tr').first();
  assert.match(await first.innerText(), /down[\s\S]*leaf-1\[2\][\s\S]*spine-1\[2\]/);
  const errRow = p.locator('[data-testid=links] tbody tr', { hasText: 'host-b[1]' });
  assert.match(await errRow.innerText(), /open[\s\S]*symbol_error=50/);
  const history = await text(p, '[data-testid=link-history]');
  for (const kind of ['link_down', 'link_errors', 'link_degraded']) assert.match(history, new RegExp(kind));
  assert.match(history, /leaf-1 ↔ spine-1[\s\S]*gone/);
  await p.fill('[data-testid=filter]', 'host-a');
  assert.equal(await p.locator('[data-testid=links] tbody tr').count(), 1);
  assert.match(p.url(), /filter=host-a/);
  clean(p);
  await p.context().close();
});

test('nodes page: an IB port shows the switch port at the other end of its cable', async () => {
  const p = await openPage(browser);
  await gotoView(p, collector.url, '#/nodes?filter=host-a');
  const cell = p.locator('[data-testid=ports] [data-testid=neighbour]');
  assert.match(await cell.innerText(), /leaf-1\[3\] ACTIVE 4X EDR 0x0000000000000200[\s\S]*symbol_error=7/);
  await screenshot(p, 'nodes-neighbour');
  clean(p);
  await p.context().close();
});

test('a collector without fabric data: the Fabric page says how to get it', async () => {
  const empty = await startCollector();
  try {
    const p = await openPage(browser);
    await gotoView(p, empty.url, '#/fabric');
    assert.match(await text(p, '[data-testid=no-fabric]'), /fabric_sweep_interval/);
    assert.doesNotMatch(await text(p, '#status'), /failed/);
    clean(p);
    await p.context().close();
  } finally {
    await empty.stop();
  }
});
