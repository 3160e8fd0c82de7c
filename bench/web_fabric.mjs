// A synthetic large fabric for the dashboard benchmarks: NODES Soft-RoCE-like
// nodes in groups of GROUP with sampled pinglists (full mesh inside the
// group plus CROSS sampled targets in other groups), RC and UD summaries of one
// 10 s interval ending now; about 0.2 % of pairs are bad (20 % loss, 30x p99,
// RETRY_EXC_ERR on RC). Deterministic for a given seed.
import { report, rxeDevice, rxePort, probe, rng } from '../tests/web/lib/reports.mjs';

export const GROUP = 20;
export const CROSS = 11;

export const name = (i) => `node-${String(i).padStart(4, '0')}`;

function nodeReport(nodes, i, now, r) {
  const g = Math.floor(i / GROUP);
  const targets = new Set();
  for (let j = g * GROUP; j < Math.min(nodes, (g + 1) * GROUP); j++) if (j !== i) targets.add(j);
  while (targets.size < Math.min(nodes - 1, GROUP - 1 + CROSS)) {
    const j = Math.floor(r() * nodes);
    if (j !== i && Math.floor(j / GROUP) !== g) targets.add(j);
  }
  const ip = `10.${Math.floor(i / 250)}.${i % 250}.1`;
  const mac = [0x5054, 0x00ff, 0xfe00 + (i >> 8), i & 0xff];
  const hw = { rcvd_pkts: 1000 * i, sent_pkts: 1000 * i, link_downed: 0, retry_exceeded_err: 0 };
  const probes = [];
  const end = now - 1000;
  for (const j of targets) {
    for (const transport of ['rc', 'ud']) {
      const p50 = (transport === 'rc' ? 118 : 96) * (0.9 + 0.2 * r());
      const slow = r() < 0.002;
      probes.push(probe({ target: name(j), transport, startMs: end - 10000, endMs: end, sent: 100,
        lost: slow ? 20 : r() < 0.05 ? 1 : 0, p50, p99: slow ? p50 * 30 : p50 * (1.9 + 0.4 * r()),
        errors: slow && transport === 'rc' ? [{ name: 'RETRY_EXC_ERR', n: 2 }] : [],
        remoteIp: `10.${Math.floor(j / 250)}.${j % 250}.1`, r }));
    }
  }
  return report({ node: name(i), genMs: end, intervalS: 10, labels: { group: `rack${String(g).padStart(2, '0')}` },
    devices: [rxeDevice({ name: 'rxe0', guid: mac.map((x) => x.toString(16).padStart(4, '0')).join(':'),
      port: rxePort({ ip, mac }), hw_counters: hw })], probes });
}

// Posts the fabric to a collector (4 requests in flight); returns the number of pair summaries.
export async function loadFabric(collector, nodes, seed = 42) {
  const r = rng(seed);
  const now = Date.now();
  const reports = Array.from({ length: nodes }, (_, i) => nodeReport(nodes, i, now, r));
  let next = 0;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next < reports.length) await collector.post(reports[next++]);
  }));
  return reports.reduce((n, x) => n + x.probes.length, 0);
}
