// Nodes & ports: one row per port with state, physical state, LID, SM LID,
// GIDs with their types, MTU, link layer, rate and firmware. Filter and sort
// live in the URL (#/nodes?filter=node-a&sort=state&dir=desc).
import * as api from '../api.js';
import { h, fill } from '../dom.js';
import * as fmt from '../format.js';
import { table } from '../table.js';
import { isStale, portActive } from '../model.js';

function gidList(p) {
  const gids = Array.isArray(p.gids) ? p.gids : [];
  if (!gids.length) return fmt.NONE;
  return h('ul', { class: 'gids' }, gids.map((g) => h('li', {},
    `#${g.index} `, h('code', {}, g.gid), ` ${g.type || '?'}`, g.ndev ? ` (${g.ndev})` : '')));
}

const gidText = (p) => (Array.isArray(p.gids) ? p.gids.map((g) => `${g.gid} ${g.type || ''} ${g.ndev || ''}`).join(' ') : '');

// The switch port at the other end of an IB port's cable, with its error counters.
function neighbourText(n) {
  if (!n) return null;
  return `${n.switch_description || n.switch_guid}[${n.switch_port}] ${n.state || ''} ${n.width || ''} ${n.speed || ''}`.trim();
}

function neighbourCell(n) {
  if (!n) return fmt.NONE;
  const errs = Object.entries(n.counters || {}).filter(([k, v]) => ERRORS.has(k) && v > 0);
  return h('span', { 'data-testid': 'neighbour' }, neighbourText(n), ' ', h('code', {}, n.switch_guid),
    errs.length ? h('span', { class: 'badge bad' }, errs.map(([k, v]) => `${k}=${v}`).join(' ')) : null);
}

const ERRORS = new Set(['symbol_error', 'link_error_recovery', 'link_downed', 'port_rcv_errors', 'port_rcv_remote_physical_errors',
  'port_rcv_switch_relay_errors', 'port_xmit_discards', 'port_xmit_constraint_errors', 'port_rcv_constraint_errors',
  'local_link_integrity_errors', 'excessive_buffer_overrun_errors', 'VL15_dropped']);

export function mount(root, ctx) {
  const filter = h('input', { type: 'search', placeholder: 'filter (node, state, GID, ...)', value: ctx.params.filter || '', 'data-testid': 'filter' });
  const body = h('div', {});
  fill(root, h('h1', {}, 'Nodes & ports'), h('div', { class: 'controls' }, filter), body);
  let data = null;

  const columns = [
    { key: 'node', label: 'node', value: (p) => p.node, cell: (p) => h('span', {}, p.node, data.stale.has(p.node) ? h('span', { class: 'badge warn' }, 'stale') : null) },
    { key: 'device', label: 'device', value: (p) => `${p.device}/${p.port}` },
    { key: 'state', label: 'state', value: (p) => p.state_name ?? p.state, cell: (p) => h('span', { class: portActive(p) ? 'oktext' : 'badtext' }, fmt.val(p.state_name ?? p.state)) },
    { key: 'phys', label: 'phys state', value: (p) => p.phys_state_name ?? p.phys_state },
    { key: 'lid', label: 'LID', num: true, value: (p) => p.lid },
    { key: 'sm_lid', label: 'SM LID', num: true, value: (p) => p.sm_lid },
    { key: 'gids', label: 'GIDs (index, GID, type, netdev)', value: gidText, text: gidText, cell: gidList },
    { key: 'mtu', label: 'MTU', num: true, value: (p) => p.active_mtu },
    { key: 'link_layer', label: 'link layer', value: (p) => p.link_layer },
    { key: 'rate', label: 'rate', value: (p) => p.rate_gbps, text: (p) => p.rate_text ?? (p.rate_gbps != null ? `${p.rate_gbps} Gb/sec` : null) },
    { key: 'fw', label: 'firmware', value: (p) => p.fw },
    { key: 'neighbour', label: 'neighbour (switch port)', value: (p) => neighbourText(data.neighbours.get(`${p.node}|${p.device}|${p.port}`)),
      cell: (p) => neighbourCell(data.neighbours.get(`${p.node}|${p.device}|${p.port}`)) },
    { key: 'age', label: 'node last report', value: (p) => data.age.get(p.node), text: (p) => fmt.age(data.age.get(p.node)) },
  ];

  function draw() {
    if (!data) return;
    fill(body, table({
      columns, rows: data.ports, testid: 'ports',
      state: { sort: ctx.params.sort || 'node', dir: ctx.params.dir || 'asc', filter: ctx.params.filter || '' },
      onState: (patch) => { ctx.set(patch); draw(); },
      rowClass: (p) => (portActive(p) ? null : 'bad'),
    }));
  }
  filter.addEventListener('input', () => { ctx.set({ filter: filter.value }); draw(); });

  return {
    async refresh() {
      const [ns, ports, neighbours] = await Promise.all([api.nodes(), api.ports(), api.fabricNeighbours()]);
      data = { ports, stale: new Set(ns.filter(isStale).map((n) => n.name)), age: new Map(ns.map((n) => [n.name, n.age_s])),
        neighbours: new Map(neighbours.map((n) => [`${n.node}|${n.device}|${n.port}`, n])) };
      draw();
    },
  };
}
