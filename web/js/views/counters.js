// Counters (#/counters?node=A&range=1h&names=a,b): per-second rates of a node's
// port counters, one small chart per port and counter. The rates are the
// collector's (GET /api/v1/counters?rates=1: its counter rules for wraps and
// resets, data words as bytes); a sample without a rate gives no point.
// Default selection: counters that moved in the range (errors first), at most 8.
import * as api from '../api.js';
import { h, fill } from '../dom.js';
import * as fmt from '../format.js';
import { lineChart } from '../chart.js';

const RANGES = [['15m', '15 min'], ['1h', '1 h'], ['6h', '6 h'], ['24h', '24 h']];
const ERRORISH = /(^|_)errs?(_|$)|error|discard|downed|drop|retry|timeout|rnr|integrity|overrun|symbol/i;

// samples (time order, with rate and rate_unit) -> Map "device/port" -> Map
// name -> {unit, points: [[t, rate|null]]}
export function rates(samples) {
  const out = new Map();
  for (const s of samples) {
    const port = `${s.device}/${s.port}`;
    if (!out.has(port)) out.set(port, new Map());
    const byName = out.get(port);
    if (!byName.has(s.name)) byName.set(s.name, { unit: s.rate_unit, points: [] });
    byName.get(s.name).points.push([s.sampled_at_ms, s.rate]);
  }
  return out;
}

export function mount(root, ctx) {
  const controls = h('div', { class: 'controls' });
  const body = h('div', {});
  fill(root, h('h1', {}, 'Counters'), controls, body);
  let names = null;

  function drawControls() {
    const node = h('select', { 'data-testid': 'node', onchange: () => ctx.go('counters', { ...ctx.params, node: node.value, names: '' }) },
      names.map((n) => h('option', { value: n, selected: n === ctx.params.node }, n)));
    const range = h('select', { 'data-testid': 'range', onchange: () => { ctx.set({ range: range.value }); view.refresh(); } },
      RANGES.map(([v, t]) => h('option', { value: v, selected: v === (ctx.params.range || '1h') }, t)));
    fill(controls, h('label', {}, 'node ', node), h('label', {}, 'range ', range));
  }

  const view = {
    async refresh() {
      if (!names) {
        names = (await api.nodes()).map((n) => n.name);
        if (!ctx.params.node && names.length) ctx.set({ node: names[0] });
        drawControls();
      }
      if (!ctx.params.node) { fill(body, h('p', { class: 'muted' }, 'No nodes yet.')); return; }
      const until = Date.now();
      const since = until - (fmt.parseDuration(ctx.params.range || '1h') ?? 3600e3);
      const samples = await api.counters({ node: ctx.params.node, since, limit: 100000, rates: 1 });
      const byPort = rates(samples);
      const chosen = ctx.params.names ? new Set(ctx.params.names.split(',')) : null;
      const sections = [];
      for (const [port, m] of [...byPort].sort()) {
        let list = [...m.keys()].sort();
        if (chosen) list = list.filter((n) => chosen.has(n));
        else {
          const moved = list.filter((n) => m.get(n).points.some(([, v]) => v));
          list = [...moved.filter((n) => ERRORISH.test(n)), ...moved.filter((n) => !ERRORISH.test(n))].slice(0, 8);
        }
        const picker = h('div', { class: 'picker' }, [...m.keys()].sort().map((n) => h('label', {},
          h('input', { type: 'checkbox', checked: list.includes(n), onchange: (ev) => {
            const next = new Set(list);
            if (ev.target.checked) next.add(n); else next.delete(n);
            ctx.set({ names: [...next].join(',') });
            view.refresh();
          } }), n)));
        sections.push(h('section', { class: 'port', 'data-port': port },
          h('h2', {}, `${ctx.params.node} ${port}`),
          h('details', {}, h('summary', {}, 'choose counters'), picker),
          list.length === 0 ? h('p', { class: 'muted' }, 'No counter moved in this range.') :
            h('div', { class: 'smalls' }, list.map((n) => h('div', { class: 'small-chart' },
              h('div', { class: ERRORISH.test(n) && m.get(n).points.some(([, v]) => v) ? 'badtext' : null }, `${n} (${m.get(n).unit})`),
              lineChart({ t0: since, t1: until, series: [{ name: n, colour: '#1f6feb', points: m.get(n).points }], yFormat: fmt.rate, width: 460, height: 170, testid: `counter-${n}` }))))));
      }
      fill(body, sections.length ? sections : h('p', { class: 'muted' }, 'No counter samples in this range.'));
    },
  };
  return view;
}
