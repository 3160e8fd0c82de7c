// Nodes & ports: one row per port with state, physical state, LID, SM LID,
// GIDs with their types, MTU, link layer, rate and firmware, one page at a
// time: the collector filters, sorts and pages (GET /api/v1/ports, paged), so
// a fleet's 16,000 ports never reach the page at once. Filters and sort live
// in the URL (#/nodes?filter=node-a&state=!ACTIVE&sort=state&dir=desc); the
// page position does not (a shared link opens the first page).
// <div data-testid=ports-total data-query=Q> says how many ports match the
// query Q the shown page was fetched with (tests wait on it).
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

const PAGE = 100;
// Column key -> the collector's sort.
const SORTS = { node: 'node', device: 'device', state: 'state', fw: 'firmware' };
// URL key -> query parameter, input label. filter: any shown field.
const FILTERS = [['filter', 'q', 'filter (any field)'], ['node', 'node', 'node'], ['device', 'device', 'device'],
  ['gid', 'gid', 'GID'], ['fw', 'firmware', 'firmware'], ['group', 'group', 'group (exact)']];
const STATES = [['', 'any state'], ['ACTIVE', 'ACTIVE'], ['!ACTIVE', 'not ACTIVE'], ['DOWN', 'DOWN'], ['INIT', 'INIT'],
  ['ARMED', 'ARMED']];

const stale = (p) => isStale({ stale: p.node_stale, age_s: p.node_age_s, interval_s: p.node_interval_s });

export function mount(root, ctx) {
  const inputs = FILTERS.map(([key, , label]) => h('input', {
    type: 'search', placeholder: label, value: ctx.params[key] || '', maxlength: 128, 'data-testid': `filter-${key}`,
  }));
  inputs[0].dataset.testid = 'filter';
  const state = h('select', { 'data-testid': 'filter-state' }, STATES.map(([v, label]) => h('option', { value: v }, label)));
  state.value = ctx.params.state || '';
  const total = h('div', { class: 'muted', 'data-testid': 'ports-total' });
  const prev = h('button', { type: 'button', 'data-testid': 'page-prev' }, '\u2190 previous');
  const next = h('button', { type: 'button', 'data-testid': 'page-next' }, 'next \u2192');
  const body = h('div', {});
  fill(root, h('h1', {}, 'Nodes & ports'), h('div', { class: 'controls' }, inputs, state),
    h('div', { class: 'controls' }, total, prev, next), body);
  let data = null;
  let cursors = [undefined];  // the cursor of each page up to the shown one (the first has none)
  let seq = 0;                // the newest fetch; older answers are dropped
  let typing = null;

  const neighbour = (p) => data.neighbours.get(`${p.node}|${p.device}|${p.port}`);
  const columns = [
    { key: 'node', label: 'node', sortable: true, value: (p) => p.node, cell: (p) => h('span', {}, p.node, stale(p) ? h('span', { class: 'badge warn' }, 'stale') : null) },
    { key: 'device', label: 'device', sortable: true, value: (p) => `${p.device}/${p.port}` },
    { key: 'state', label: 'state', sortable: true, value: (p) => p.state_name ?? p.state, cell: (p) => h('span', { class: portActive(p) ? 'oktext' : 'badtext' }, fmt.val(p.state_name ?? p.state)) },
    { key: 'phys', label: 'phys state', value: (p) => p.phys_state_name ?? p.phys_state },
    { key: 'lid', label: 'LID', num: true, value: (p) => p.lid },
    { key: 'sm_lid', label: 'SM LID', num: true, value: (p) => p.sm_lid },
    { key: 'gids', label: 'GIDs (index, GID, type, netdev)', value: gidText, text: gidText, cell: gidList },
    { key: 'mtu', label: 'MTU', num: true, value: (p) => p.active_mtu },
    { key: 'link_layer', label: 'link layer', value: (p) => p.link_layer },
    { key: 'rate', label: 'rate', value: (p) => p.rate_gbps, text: (p) => p.rate_text ?? (p.rate_gbps != null ? `${p.rate_gbps} Gb/sec` : null) },
    { key: 'fw', label: 'firmware', sortable: true, value: (p) => p.fw },
    { key: 'group', label: 'group', value: (p) => p.group || null },
    { key: 'neighbour', label: 'neighbour (switch port)', value: (p) => neighbourText(neighbour(p)), cell: (p) => neighbourCell(neighbour(p)) },
    { key: 'age', label: 'node last report', value: (p) => p.node_age_s, text: (p) => fmt.age(p.node_age_s) },
  ];

  // The query of the shown page, without its cursor.
  function query() {
    const q = { sort: SORTS[ctx.params.sort] || 'node', order: ctx.params.dir === 'desc' ? 'desc' : 'asc', limit: PAGE };
    for (const [key, param] of FILTERS) if (ctx.params[key]) q[param] = ctx.params[key];
    if (ctx.params.state) q.state = ctx.params.state;
    return q;
  }

  function draw() {
    if (!data) return;
    const page = cursors.length;
    const first = (page - 1) * PAGE + (data.ports.length ? 1 : 0);
    total.textContent = `${data.total} ports match; page ${page}: ${first}\u2013${(page - 1) * PAGE + data.ports.length}`;
    total.dataset.query = data.query;
    total.dataset.total = String(data.total);
    prev.disabled = page <= 1;
    next.disabled = !data.next_cursor;
    fill(body, table({
      columns, rows: data.ports, testid: 'ports',
      state: { sort: ctx.params.sort || 'node', dir: ctx.params.dir || 'asc', filter: ctx.params.filter || '' },
      onState: (patch) => { ctx.set(patch); restart(); },
      rowClass: (p) => (portActive(p) ? null : 'bad'),
      server: { footer: `${data.ports.length} of ${data.total} matching ports shown` },
    }));
  }

  async function load() {
    const mine = ++seq;
    const q = query();
    const key = new URLSearchParams(Object.entries(q)).toString();
    const cursor = cursors[cursors.length - 1];
    const page = await api.portsPage(cursor ? { ...q, cursor } : q);
    // The switch port at the other end of each port's cable: the page's nodes only.
    const nodes = [...new Set(page.ports.map((p) => p.node))];
    const lists = await Promise.all(nodes.map((n) => api.fabricNeighbours(n)));
    if (mine !== seq) return;
    data = { ...page, query: key, neighbours: new Map(lists.flat().map((n) => [`${n.node}|${n.device}|${n.port}`, n])) };
    draw();
  }

  const failed = (e) => { total.textContent = `loading ports failed: ${e.message}`; };
  // A new filter or sort starts again at the first page.
  function restart() {
    cursors = [undefined];
    load().catch(failed);
  }
  const onFilter = () => {
    const patch = Object.fromEntries(FILTERS.map(([key], i) => [key, inputs[i].value.trim()]));
    ctx.set({ ...patch, state: state.value });
    clearTimeout(typing);
    typing = setTimeout(restart, 150);
  };
  for (const i of inputs) i.addEventListener('input', onFilter);
  state.addEventListener('change', onFilter);
  prev.addEventListener('click', () => { if (cursors.length > 1) { cursors.pop(); load().catch(failed); } });
  next.addEventListener('click', () => { if (data && data.next_cursor) { cursors.push(data.next_cursor); load().catch(failed); } });

  return {
    refresh: () => load(),
    unmount() { clearTimeout(typing); seq += 1; },
  };
}
