// Builders of agent reports (schemas/REPORT_FORMAT.md, version 1) shaped like
// what rdmascope-agent sends from a Soft-RoCE node: rxe devices, RoCE v2 GIDs
// (link-local and IPv4-mapped), Ethernet link layer, MTU 1024 or 4096, rxe
// hw_counters, RC and UD probe summaries with decoded WC errors.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './collector.mjs';

const WC = JSON.parse(readFileSync(join(REPO, 'web', 'wc_status.json'), 'utf8'));

// The explanation text the prober attaches to an error (probes/wc_error.cpp).
export function explanation(name) {
  const e = WC.find((x) => x.name === name);
  let s = e.meaning;
  if (e.causes.length) s += ` Likely cause: ${e.causes[0]}.`;
  if (e.checks.length) s += ` Check: ${e.checks[0]}.`;
  return s;
}

export function wcNumber(name) {
  return WC.find((x) => x.name === name).number;
}

// Deterministic pseudo-random numbers in [0, 1) from a 32-bit seed.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex4 = (n) => n.toString(16).padStart(4, '0');

// IPv4 192.168.a.b -> RoCE v2 IPv4-mapped GID text.
export function ipv4Gid(ip) {
  const [a, b, c, d] = ip.split('.').map(Number);
  return `0000:0000:0000:0000:0000:ffff:${hex4((a << 8) | b)}:${hex4((c << 8) | d)}`;
}

export function rxePort({ ip, mac, ndev = 'eth0', active = true, mtu = 1024 }) {
  const eui = `${hex4(mac[0])}:${hex4(mac[1])}:${hex4(mac[2])}:${hex4(mac[3])}`;
  return {
    port: 1,
    state: active ? { number: 4, name: 'ACTIVE' } : { number: 1, name: 'DOWN' },
    phys_state: active ? { number: 5, name: 'LinkUp' } : { number: 3, name: 'Disabled' },
    lid: 0, sm_lid: 0, lid_mask_count: 0, sm_sl: 0,
    rate: { gbps: 10.0, width: '1X', speed: 'FDR10', text: '10 Gb/sec (1X FDR10)' },
    link_layer: 'Ethernet', cap_mask: 65536,
    active_mtu: mtu, max_mtu: 4096,
    gids: [
      { index: 0, gid: `fe80:0000:0000:0000:${eui}`, type: 'RoCE v2', ndev },
      { index: 1, gid: ipv4Gid(ip), type: 'RoCE v2', ndev },
    ],
    netdevs: [ndev],
  };
}

export function rxeDevice({ name = 'rxe0', guid, port, hw_counters }) {
  return {
    name, node_guid: guid, sys_image_guid: guid, fw_ver: null, board_id: null, hca_type: null,
    node_type: { number: 1, name: 'CA' }, pci_address: null, verbs: null,
    ports: [{ ...port, counters: {}, hw_counters }],
  };
}

function stats(count, p50, p99, r) {
  if (count === 0) return { count: 0, min: null, avg: null, p50: null, p90: null, p99: null, p999: null, max: null };
  const min = p50 * (0.7 + 0.1 * r());
  return { count, min: +min.toFixed(1), avg: +(p50 * 1.08).toFixed(1), p50: +p50.toFixed(1), p90: +(p50 + (p99 - p50) * 0.4).toFixed(1),
    p99: +p99.toFixed(1), p999: +(p99 * 1.1).toFixed(1), max: +(p99 * 1.2).toFixed(1) };
}

// One probe summary. errors: [{name, n}] adds n recorded failed completions.
export function probe({ target, transport, startMs, endMs, sent = 100, lost = 0, p50, p99, errors = [], remoteIp, r }) {
  const received = sent - lost;
  const errs = [];
  const byStatus = {};
  for (const { name, n } of errors) {
    byStatus[`${name} (${wcNumber(name)})`] = n;
    for (let i = 0; i < n; i++) {
      errs.push({ status: wcNumber(name), status_name: name, vendor_err: 129, opcode: 'SEND',
        wall_ms: startMs + ((i + 1) * (endMs - startMs)) / (n + 1), after_ms: 3021.4 + i, explanation: explanation(name), probe_index: 10 + i * 7 });
    }
  }
  return {
    target, transport,
    local: { device: 'rxe0', port: 1, gid_index: 1 },
    remote: { host: remoteIp, control_port: 18610, device: 'rxe0', port: 1 },
    interval_start_ms: startMs, interval_end_ms: endMs,
    summary: {
      sent, received, lost, loss_ratio: sent ? lost / sent : null,
      rtt_us: stats(received, p50, p99, r),
      network_us: null, responder_us: transport === 'ud' ? stats(received, 4.1, 9.8, r) : null,
      read_us: transport === 'rc' ? stats(received, p50 * 1.1, p99 * 1.1, r) : null,
      errors_by_status: byStatus,
    },
    errors: errs,
  };
}

let seq = 0;
export function report({ node, genMs, intervalS, labels, devices, probes }) {
  seq += 1;
  return {
    schema_version: 1,
    report_id: `${node}-${genMs}-${String(seq).padStart(6, '0')}`,
    node, agent_version: '0.1.0', generated_at_ms: genMs, interval_s: intervalS, labels,
    inventory: { devices, warnings: [] },
    probes,
  };
}
