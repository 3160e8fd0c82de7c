// The test fabric: four Soft-RoCE nodes as the lab's agents report them, with
// known faults the dashboard must show.
//
//  node-a, node-b (group rack1), node-c (rack2): rxe0 port 1 ACTIVE, 12 reports
//    60 s apart ending now, RC and UD probes to every other node each interval.
//  node-b: MTU 4096 (jumbo frames); link_downed rises by 12 in one interval
//    (a counter threshold crossing, closed by the next report).
//  node-c: a second device rxe1 whose port is DOWN / Disabled (open port_state event).
//  node-a -> node-c: injected fault in the last 4 intervals: 30 % loss,
//    p99 4.8 ms, 3 RETRY_EXC_ERR completions per RC interval (open wc_error event).
//  node-d (rack2): reports every 1 s; sent only two reports, so it goes stale
//    3 s after the test posts them (stalePosts() first, then wait, then posts()).
import { report, rxeDevice, rxePort, probe, rng } from './reports.mjs';

export const NODES = {
  'node-a': { ip: '192.168.77.1', mac: [0x5054, 0x00ff, 0xfe12, 0x3401], group: 'rack1', mtu: 1024 },
  'node-b': { ip: '192.168.77.2', mac: [0x5054, 0x00ff, 0xfe12, 0x3402], group: 'rack1', mtu: 4096 },
  'node-c': { ip: '192.168.77.3', mac: [0x5054, 0x00ff, 0xfe12, 0x3403], group: 'rack2', mtu: 1024 },
  'node-d': { ip: '192.168.77.4', mac: [0x5054, 0x00ff, 0xfe12, 0x3404], group: 'rack2', mtu: 1024 },
};
export const FAULT = { src: 'node-a', dst: 'node-c', status: 'RETRY_EXC_ERR', loss: 0.3, p99: 4800 };
export const INTERVALS = 12;
const STEP_MS = 60000;

function guid(n) {
  return NODES[n].mac.map((x) => x.toString(16).padStart(4, '0')).join(':');
}

function hw(i, node) {
  const linkDowned = node === 'node-b' && i >= 8 ? 12 : 0;
  return {
    ack_deferred: 3 * i, completer_retry_err: node === 'node-a' && i >= INTERVALS - 4 ? 3 * (i - INTERVALS + 5) : 0,
    duplicate_request: 0, link_downed: linkDowned, out_of_seq_request: 0,
    rcvd_pkts: 20311 + 1800 * i, rcvd_rnr_err: 0, rcvd_seq_err: 0, rdma_recvs: 10155 + 900 * i,
    rdma_sends: 10240 + 900 * i, retry_exceeded_err: 0, retry_rnr_exceeded_err: 0, send_err: 0,
    send_rnr_err: 0, sent_pkts: 20480 + 1800 * i,
  };
}

function devices(node, i) {
  const n = NODES[node];
  const list = [rxeDevice({ name: 'rxe0', guid: guid(node), port: rxePort({ ip: n.ip, mac: n.mac, mtu: n.mtu }), hw_counters: hw(i, node) })];
  if (node === 'node-c') {
    list.push(rxeDevice({ name: 'rxe1', guid: '5054:00ff:fe12:3503',
      port: rxePort({ ip: '192.168.78.3', mac: [0x5054, 0x00ff, 0xfe12, 0x3503], ndev: 'eth1', active: false }),
      hw_counters: { rcvd_pkts: 0, sent_pkts: 0, link_downed: 1 } }));
  }
  return list;
}

function probesFor(src, i, startMs, endMs, r) {
  const out = [];
  for (const dst of Object.keys(NODES)) {
    if (dst === src) continue;
    for (const transport of ['rc', 'ud']) {
      const base = transport === 'rc' ? 118 : 96;
      const p50 = base * (0.9 + 0.2 * r());
      let p99 = p50 * (1.9 + 0.4 * r());
      let lost = r() < 0.1 ? 1 : 0;
      let errors = [];
      if (src === FAULT.src && dst === FAULT.dst && i >= INTERVALS - 4) {
        lost = FAULT.loss * 100;
        p99 = FAULT.p99;
        if (transport === 'rc') errors = [{ name: FAULT.status, n: 3 }];
      }
      out.push(probe({ target: dst, transport, startMs, endMs, sent: 100, lost, p50, p99, errors, remoteIp: NODES[dst].ip, r }));
    }
  }
  return out;
}

// Reports of the healthy-reporting nodes, oldest first per node.
export function posts(now = Date.now()) {
  const r = rng(7);
  const out = [];
  for (let i = 0; i < INTERVALS; i++) {
    const endMs = now - (INTERVALS - 1 - i) * STEP_MS - 1000;
    for (const node of ['node-a', 'node-b', 'node-c']) {
      out.push(report({ node, genMs: endMs, intervalS: STEP_MS / 1000, labels: { group: NODES[node].group, control_host: NODES[node].ip },
        devices: devices(node, i), probes: probesFor(node, i, endMs - STEP_MS, endMs, r) }));
    }
  }
  return out;
}

// node-d's two 1-second reports.
export function stalePosts(now = Date.now()) {
  const r = rng(11);
  return [0, 1].map((i) => {
    const endMs = now - (1 - i) * 1000;
    return report({ node: 'node-d', genMs: endMs, intervalS: 1, labels: { group: 'rack2', control_host: NODES['node-d'].ip },
      devices: devices('node-d', i), probes: probesFor('node-d', i, endMs - 1000, endMs, r) });
  });
}
