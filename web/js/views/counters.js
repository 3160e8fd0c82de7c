// Counters (#/counters?node=A&range=1h&names=a,b): per-second rates of a node's
// port counters, one small chart per port and counter. Rates are taken between
// consecutive samples; a counter that went backwards was reset and gives no
// point (never a negative rate). port_xmit_data/port_rcv_data count 4-byte
// words and are shown as bytes/s. Default selection: counters that moved in the
// range (errors first), at most 8.
import * as api from '../api.js';
import { h, fill } from '../dom.js';
import * as fmt from '../format.js';
import { lineChart } from '../chart.js';

const RANGES = [['15m', '15 min'], ['1h', '1 h'], ['6h', '6 h'], ['24h', '24 h']];
const WORDS = new Set(['port_xmit_data', 'port_rcv_data']);
const ERRORISH = /(^|_)errs?(_|$)|error|discard|downed|drop|retry|timeout|rnr|integrity|overrun|symbol/i;

// samples -> Map "device/port" -> Map name -> [[t, rate|null]]
export function rates(samples) {
  const series = new Map();
  for (const s of samples) {
    const port = `${s.device}/${s.port}`;
    if (!series.has(port)) series.set(port, new Map());
    const byName = series.get(port);
    if (!byName.has(s.name)) byName.set(s.name, []);
    byName.get(s.name).push(s);
  }
  const out = new Map();
  for (const [port, byName] of series) {
    const m = new Map();
    for (const [name, ss] of byName) {
      ss.sort((a, b) => a.sampled_at_ms - b.sampled_at_ms);
      const pts = [];
      for (let i = 1; i < ss.length; i++) {
        const a = ss[i - 1], b = ss[i];
        const dt = (b.sampled_at_ms - a.sampled_at_ms) / 1000;
        if (dt <= 0 || a.value === null || b.value === null || b.value < a.value) { pts.push([b.sampled_at_ms, null]); continue; }
        pts.push([b.sampled_at_ms, ((b.value - a.value) * (WORDS.has(name) ? 4 : 1)) / dt]);
      }
      m.set(name, pts);
    }
    out.set(port, m);
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
      const samples = await api.counters({ node: ctx.params.node, since, limit: 100000 });
      const byPort = rates(samples);
      const chosen = ctx.params.names ? new Set(ctx.params.names.split(',')) : null;
      const sections = [];
      for (const [port, m] of [...byPort].sort()) {
        let list = [...m.keys()].sort();
        if (chosen) list = list.filter((n) => chosen.has(n));
        else {
          const moved = list.filter((n) => m.get(n).some(([, v]) => v));
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
              h('div', { class: ERRORISH.test(n) && m.get(n).some(([, v]) => v) ? 'badtext' : null }, WORDS.has(n) ? `${n} (bytes/s)` : `${n} (/s)`),
              lineChart({ t0: since, t1: until, series: [{ name: n, colour: '#1f6feb', points: m.get(n) }], yFormat: fmt.rate, width: 460, height: 170, testid: `counter-${n}` }))))));
      }
      fill(body, sections.length ? sections : h('p', { class: 'muted' }, 'No counter samples in this range.'));
    },
  };
  return view;
}
