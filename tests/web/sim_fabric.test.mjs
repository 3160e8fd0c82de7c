// Browser test of the main job's fabric, without the VM: a private collector
// (report interval 2 s, a diagnosis every second) and the simulated subnet
// the main job runs on the host — ibsim + opensm with a fat tree of 4 leaves
// x 4 hosts and 2 spines, swept every 2 s by one agent under the umad shim
// (tests/fabric/sim_sweeper.py) posting to that collector. The Fabric page
// shows the simulated tree; the main job's cable fault (SymbolErrorCounter
// rising on both ends of leaf01's uplink to spine00) opens one warning
// link_errors verdict on that cable on the overview, and once the fault is
// cleared the verdict closes.
//
// Run as `node sim_fabric.test.mjs` (not under --test): without ibsim,
// opensm or the shim it exits 77, the skip code (under CI=true it fails).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCollector, waitFor, REPO, BUILD } from './lib/collector.mjs';
import { launchBrowser, openPage, gotoView, screenshot, assertClean as clean, innerText as text } from './lib/browser.mjs';

const SIM = join(REPO, 'tests/fabric/sim_sweeper.py');
const INTERVAL_S = 2;

const check = spawnSync('python3', [SIM, '--check'], { encoding: 'utf8' });
if (check.status !== 0) {
  process.stderr.write(check.stderr || `${SIM} --check: ${check.error || check.status}\n`);
  process.exit(check.status === 77 ? 77 : 1);
}

let collector;
let browser;
let sim;       // the sim_sweeper.py child
let simOut = '';
let simExit;   // resolves with its exit status
let info;      // what sim_sweeper.py wrote: the fault cable and the subnet's counts
let dir;

const diagnoses = async (all) => (await collector.get(`/api/v1/diagnoses${all ? '?all=1' : ''}`)).diagnoses;
const isFault = (d) => d.scope === 'link' && d.subject === info.subject && d.kind === 'link_errors';

async function command(line, answer) {
  const seen = simOut.length;
  sim.stdin.write(`${line}\n`);
  await waitFor(`sim_sweeper.py to answer "${line}"`, () => simOut.slice(seen).match(answer), 10000);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rdmascope-sim-fabric-'));
  collector = await startCollector(['--report-interval-s', String(INTERVAL_S), '--diagnosis-interval-s', '1']);
  const infoPath = join(dir, 'info.json');
  // stdin stays a pipe: its end (this process gone) stops the subnet and the agent.
  sim = spawn('python3', [SIM, '--build-dir', BUILD, '--collector', collector.url, '--interval', String(INTERVAL_S),
    '--info', infoPath], { stdio: ['pipe', 'pipe', 'pipe'] });
  sim.stdout.on('data', (d) => { simOut += d; });
  sim.stderr.on('data', (d) => { simOut += d; });
  simExit = new Promise((r) => sim.on('exit', (code, sig) => r(sig || code)));
  let gone = null;
  simExit.then((s) => { gone = s; });
  await waitFor('the simulated subnet (sim_sweeper.py --info)', () => {
    if (gone !== null) throw new Error(`sim_sweeper.py exited ${gone}: ${simOut}`);
    return existsSync(infoPath);
  }, 60000, 100);
  info = JSON.parse(readFileSync(infoPath, 'utf8'));
  await waitFor('the sweep of every simulated node in the collector', async () => {
    if (gone !== null) throw new Error(`sim_sweeper.py exited ${gone}: ${simOut}`);
    const { nodes } = await collector.get('/api/v1/fabric/nodes');
    return nodes.length === info.switches + info.cas;
  }, 60000, 200);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (sim) {
    sim.stdin.end();
    const t = setTimeout(() => sim.kill('SIGKILL'), 30000);
    await simExit;
    clearTimeout(t);
  }
  if (collector) await collector.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('fabric page: the simulated tree, every switch, its links up', async () => {
  assert.deepEqual([info.switches, info.cas, info.links], [6, 16, 24], JSON.stringify(info));
  const p = await openPage(browser);
  try {
    await gotoView(p, collector.url, '#/fabric');
    await screenshot(p, 'sim-fabric');
    assert.match(await text(p, '[data-testid=fabric-summary]'), /^6 switches, 16 other nodes, 24 links \(0 down\)/);
    const rows = await p.locator('[data-testid=switches] tbody tr').allInnerTexts();
    const names = rows.map((r) => r.split(/\s/)[0]).sort();
    assert.deepEqual(names, ['leaf00', 'leaf01', 'leaf02', 'leaf03', 'spine00', 'spine01']);
    const { nodes } = await collector.get('/api/v1/nodes');
    assert.deepEqual(nodes.map((n) => [n.name, n.labels.rails]), [['fabric-sweep', 'ib']]);
    assert.deepEqual(await diagnoses(), [], 'a healthy subnet: no diagnosis');
    clean(p);
  } finally {
    await p.context().close();
  }
});

test('a cable fault opens one link_errors verdict on the overview; cleared, it closes', async () => {
  const p = await openPage(browser);
  try {
    await gotoView(p, collector.url, '#/overview');
    await p.locator('[data-testid=no-diagnoses]').waitFor();
    await command('fabric-fault: inject', /host: SymbolErrorCounter on leaf01\[5\] and spine00\[2\] \(ibsim\) now rises/);
    const opened = await waitFor('the link_errors diagnosis of the cable', async () => (await diagnoses()).find(isFault),
      60000, 250);
    assert.deepEqual(await diagnoses(), [opened], 'one verdict for the fault, nothing else');
    assert.equal(opened.severity, 'warning');
    // The overview shows it at its own next refresh.
    const block = p.locator(`[data-testid=diagnosis][data-key="link|${info.subject}|link_errors"]`);
    await block.waitFor({ timeout: 60000 });
    await screenshot(p, 'sim-fabric-link-verdict');
    const body = await block.innerText();
    assert.match(body, /warning/);
    assert.ok(body.includes(`link ${info.subject}: link_errors`), body);
    assert.ok(body.includes(info.description), body);
    assert.match(body, /symbol_error/);

    await command('fabric-fault: clear', /host: SymbolErrorCounter on leaf01\[5\] and spine00\[2\] \(ibsim\) stopped rising/);
    await waitFor('the diagnosis to close', async () => (await diagnoses()).length === 0, 60000, 250);
    const closed = (await diagnoses(true)).filter(isFault);
    assert.equal(closed.length, 1, JSON.stringify(closed));
    assert.equal(closed[0].open, false);
    assert.ok(closed[0].closed_at_ms >= opened.since_ms, JSON.stringify(closed[0]));
    await p.locator('[data-testid=no-diagnoses]').waitFor({ timeout: 60000 });
    clean(p);
  } finally {
    await p.context().close();
  }
});
