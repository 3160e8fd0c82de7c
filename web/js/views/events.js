// Events (#/events?open=1|0|closed&kind=wc_error&filter=text): decoded WC
// errors with the WC table's meaning, causes and checks, port state changes and
// counter threshold crossings, newest first. Expanded explanations stay
// expanded across refreshes.
import * as api from '../api.js';
import * as wc from '../wc.js';
import { h, fill } from '../dom.js';
import * as fmt from '../format.js';
import { pairLink } from '../model.js';

const KINDS = [['', 'all kinds'], ['wc_error', 'WC errors'], ['port_state', 'port state'], ['counter_threshold', 'counter thresholds'], ['port_congested', 'congestion']];
const OPEN = [['1', 'open'], ['closed', 'closed'], ['0', 'open and closed']];

function subject(e) {
  if (e.kind === 'wc_error') return h('a', { href: pairLink(e.node, e.peer) }, `${e.node} \u2192 ${e.peer} (${e.transport})`);
  return `${e.node} ${e.device ?? ''}${e.port != null ? '/' + e.port : ''}`;
}

export function mount(root, ctx) {
  const sel = (key, options, def, testid) => {
    const el = h('select', { 'data-testid': testid, onchange: () => { ctx.set({ [key]: el.value }); view.refresh(); } },
      options.map(([v, t]) => h('option', { value: v, selected: v === (ctx.params[key] ?? def) }, t)));
    return el;
  };
  const filter = h('input', { type: 'search', placeholder: 'filter', value: ctx.params.filter || '', 'data-testid': 'filter' });
  const list = h('div', {});
  fill(root, h('h1', {}, 'Events'), h('div', { class: 'controls' }, sel('open', OPEN, '1', 'open'), sel('kind', KINDS, '', 'kind'), filter), list);
  const expanded = new Set();
  let rows = [];

  function draw() {
    const f = (ctx.params.filter || '').toLowerCase();
    const shown = rows.filter((e) => !f || [e.kind, e.node, e.peer, e.device, e.status, e.detail].join(' ').toLowerCase().includes(f));
    fill(list, shown.length === 0 ? h('p', { class: 'muted', 'data-testid': 'no-events' }, 'No events.') :
      h('table', { class: 'data events', 'data-testid': 'events' },
        h('thead', {}, h('tr', {}, ['', 'kind', 'status', 'where', 'count', 'started', 'last seen', 'ended', 'detail'].map((c) => h('th', {}, c)))),
        h('tbody', {}, shown.map((e) => {
          const details = e.kind === 'wc_error' ? h('details', { open: expanded.has(e.id), ontoggle: (ev) => {
            if (ev.target.open) expanded.add(e.id); else expanded.delete(e.id);
          } }, h('summary', {}, 'explanation'), wc.explain(e.status)) : null;
          return h('tr', { class: e.open ? 'bad' : null, 'data-kind': e.kind, 'data-id': e.id },
            h('td', {}, h('span', { class: `badge ${e.open ? 'bad' : 'ok'}` }, e.open ? 'open' : 'closed')),
            h('td', {}, e.kind), h('td', {}, h('b', {}, e.status)), h('td', {}, subject(e)), h('td', { class: 'num' }, e.count),
            h('td', {}, fmt.time(e.started_at_ms)), h('td', {}, fmt.time(e.last_seen_at_ms)), h('td', {}, fmt.time(e.ended_at_ms)),
            h('td', {}, e.detail, details));
        }))));
  }
  filter.addEventListener('input', () => { ctx.set({ filter: filter.value }); draw(); });

  const view = {
    async refresh() {
      const open = ctx.params.open ?? '1';
      const all = await api.events({ open: open === '1' ? 1 : 0, kind: ctx.params.kind, limit: 5000 });
      rows = open === 'closed' ? all.filter((e) => !e.open) : all;
      draw();
    },
  };
  return view;
}
