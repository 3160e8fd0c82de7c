// Browser test of the overview's diagnoses: a private collector running its
// diagnosis every second holds six nodes in two groups (a: n0..n2, b: n3..n5);
// n1's every path loses 30 % in the newest interval. The overview must show
// the diagnosis first, with its evidence and links to the paths behind it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCollector, waitFor } from './lib/collector.mjs';
import { launchBrowser, openPage, gotoView, screenshot, assertClean as clean, innerText as text } from './lib/browser.mjs';
import { report, rxeDevice, rxePort, probe, rng } from './lib/reports.mjs';

const NODES = [0, 1, 2, 3, 4, 5].map((i) => ({
  name: `n${i}`, group: i < 3 ? 'a' : 'b', ip: `192.168.79.${i + 1}`, mac: [0x5054, 0x00ff, 0xfe13, 0x3400 + i],
}));
const BAD = 'n1';
const STEP_MS = 60000;  // nodes go silent after two intervals: the test has two minutes

function posts(now) {
  const r = rng(5);
  const out = [];
  for (const i of [0, 1]) {  // a clean interval, then the fault
    const endMs = now - (1 - i) * STEP_MS - 500;
    for (const n of NODES) {
      const guid = n.mac.map((x) => x.toString(16).padStart(4, '0')).join(':');
      const probes = NODES.filter((d) => d.name !== n.name).map((d) => probe({
        target: d.name, transport: 'rc', startMs: endMs - STEP_MS, endMs, sent: 100,
        lost: i === 1 && (n.name === BAD || d.name === BAD) ? 30 : 0, p50: 110, p99: 200, remoteIp: d.ip, r,
      }));
      out.push(report({ node: n.name, genMs: endMs, intervalS: STEP_MS / 1000, labels: { group: n.group, control_host: n.ip },
        devices: [rxeDevice({ name: 'rxe0', guid, port: rxePort({ ip: n.ip, mac: n.mac }), hw_counters: { rcvd_pkts: 100 * i } })],
        probes }));
    }
  }
  return out;
}

let collector;
let browser;

before(async () => {
  // The fleet reports every STEP_MS: the collector counts its diagnosis in that interval.
  collector = await startCollector(['--diagnosis-interval-s', '1', '--report-interval-s', String(STEP_MS / 1000)]);
  for (const r of posts(Date.now())) await collector.post(r);
  await waitFor('the diagnosis of n1', async () => {
    const { diagnoses } = await collector.get('/api/v1/diagnoses');
    return diagnoses.some((d) => d.subject === BAD || d.subject.startsWith(`${BAD}/`));
  }, 15000, 200);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (collector) await collector.stop();
});

test('diagnoses API: the bad node is the verdict', async () => {
  const { diagnoses } = await collector.get('/api/v1/diagnoses');
  assert.equal(diagnoses.length, 1, JSON.stringify(diagnoses));
  const d = diagnoses[0];
  // A live host's only NIC is the exact element; a host probed on another device is the host.
  const element = d.scope === 'nic' ? ['nic', `${BAD}/rxe0`] : ['host', BAD];
  assert.deepEqual([d.scope, d.subject, d.kind, d.severity, d.open], [...element, 'loss', 'critical', true]);
  assert.equal(d.paths.length, 10);
  const metrics = await (await fetch(`${collector.url}/metrics`)).text();
  assert.match(metrics, new RegExp(`rdmascope_diagnoses_open\\{scope="${d.scope}",kind="loss"\\} 1`));
});

test('overview: the diagnosis comes first, with evidence and links to its paths', async () => {
  const p = await openPage(browser);
  try {
    await gotoView(p, collector.url, '#/overview');
    await p.locator('[data-testid=diagnosis]').first().waitFor();
    await screenshot(p, 'overview-diagnoses');
    const main = await text(p, 'main');
    assert.ok(main.indexOf('Diagnoses') < main.indexOf('Worst paths'), 'diagnoses are shown before the worst paths');
    const block = p.locator('[data-testid=diagnosis]');
    assert.equal(await block.count(), 1);
    assert.match(await block.getAttribute('data-key'), new RegExp(`^(host\\|${BAD}|nic\\|${BAD}/rxe0)\\|loss$`));
    const body = await block.innerText();
    assert.match(body, /critical/);
    assert.match(body, /(host n1|nic n1\/rxe0): loss/);
    assert.match(body, /as source 5\/5/);
    assert.match(body, /as destination 5\/5/);
    assert.match(body, /median loss 30\.0 %/);
    const links = block.locator('.diagnosis-paths a');
    assert.equal(await links.count(), 10);
    const href = await links.first().getAttribute('href');
    assert.match(href, /^#\/pair\?src=n\d&dst=n\d$/);
    assert.ok(href.includes(`=${BAD}`), href);
    await links.first().click();
    await p.waitForURL(/#\/pair\?/);
    clean(p);
  } finally {
    await p.context().close();
  }
});
