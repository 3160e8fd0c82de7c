// Pair page (#/pair?src=A&dst=B&range=1h): p50/p99 RTT and loss over time per
// transport, intervals with failed work completions marked on the time axis
// with their explanation, and the decoded statuses below. range is one of
// RANGES; the end is now.
import * as api from '../api.js';
import * as wc from '../wc.js';
import { h, fill } from '../dom.js';
import * as fmt from '../format.js';
import { lineChart, legend } from '../chart.js';
import { errorText } from '../model.js';

const RANGES = [['15m', '15 min'], ['1h', '1 h'], ['6h', '6 h'], ['24h', '24 h'], ['7d', '7 d']];
const COLOURS = { rc: ['#1f6feb', '#0a3069'], ud: ['#bf8700', '#7d4e00'] };

function nodeSelect(value, names, onchange, testid) {
  const el = h('select', { 'data-testid': testid, onchange: () => onchange(el.value) },
    h('option', { value: '' }, '\u2014'), names.map((n) => h('option', { value: n, selected: n === value }, n)));
  return el;
}

export function mount(root, ctx) {
  const p = ctx.params;
  const controls = h('div', { class: 'controls' });
  const body = h('div', {});
  fill(root, h('h1', {}, 'Pair ', h('span', { 'data-testid': 'pair-title' }, p.src && p.dst ? `${p.src} \u2192 ${p.dst}` : '')), controls, body);
  let names = null;

  function drawControls() {
    const range = h('select', { 'data-testid': 'range', onchange: () => { ctx.set({ range: range.value }); view.refresh(); } },
      RANGES.map(([v, t]) => h('option', { value: v, selected: v === (ctx.params.range || '1h') }, t)));
    const go = (k) => (v) => ctx.go('pair', { ...ctx.params, [k]: v });
    fill(controls,
      h('label', {}, 'source ', nodeSelect(ctx.params.src, names, go('src'), 'src')),
      h('label', {}, 'destination ', nodeSelect(ctx.params.dst, names, go('dst'), 'dst')),
      h('label', {}, 'range ', range),
      ctx.params.src && ctx.params.dst ? h('a', { href: `#/pair?src=${encodeURIComponent(ctx.params.dst)}&dst=${encodeURIComponent(ctx.params.src)}&range=${ctx.params.range || '1h'}` }, 'reverse direction') : null);
  }

  const view = {
    async refresh() {
      if (!names) {
        names = (await api.nodes()).map((n) => n.name);
        drawControls();
      }
      const { src, dst } = ctx.params;
      if (!src || !dst) {
        fill(body, h('p', { class: 'muted' }, 'Pick a source and a destination, or click a cell of the ', h('a', { href: '#/matrix' }, 'latency matrix'), '.'));
        return;
      }
      const until = Date.now();
      const since = until - (fmt.parseDuration(ctx.params.range || '1h') ?? 3600e3);
      const [rows, events] = await Promise.all([
        api.probes({ src, dst, since, until, limit: 100000 }),
        api.events({ node: src, kind: 'wc_error', limit: 1000 })]);
      // One series per rail and transport ("r0 rc"); rows of agents without rails: the transport alone.
      const key = (r) => (r.rail ? `${r.rail} ${r.transport}` : r.transport);
      const transports = [...new Set(rows.map(key))].sort();
      const lat = [], loss = [];
      for (const t of transports) {
        const rs = rows.filter((r) => key(r) === t && !r.not_run);
        const [c1, c2] = COLOURS[t.split(' ').pop()] || ['#555', '#222'];
        lat.push({ name: `${t} p50`, colour: c1, points: rs.map((r) => [r.interval_end_ms, r.rtt_p50_us]) });
        lat.push({ name: `${t} p99`, colour: c2, points: rs.map((r) => [r.interval_end_ms, r.rtt_p99_us]) });
        loss.push({ name: `${t} loss`, colour: c2, points: rs.map((r) => [r.interval_end_ms, r.loss_ratio === null ? null : r.loss_ratio * 100]) });
      }
      const errRows = rows.filter((r) => r.error_count > 0);
      const markers = errRows.map((r) => {
        const names = Object.keys(r.errors_by_status || {});
        const meaning = names.map((n) => { const e = wc.lookup(n); return e ? `${n}: ${e.meaning}` : n; }).join(' ');
        return { t: r.interval_end_ms, label: `${r.transport} ${errorText(r.errors_by_status)} \u2014 ${meaning}` };
      });
      const statuses = [...new Set(errRows.flatMap((r) => Object.keys(r.errors_by_status || {})))];
      const pairEvents = events.filter((e) => e.peer === dst);
      const last = rows[rows.length - 1];
      fill(body,
        rows.length === 0 ? h('p', { class: 'muted', 'data-testid': 'no-data' }, 'No probe summaries for this pair in the range.') : [
          h('p', { 'data-testid': 'pair-summary' }, `${rows.length} intervals; newest (${key(last)}, ${fmt.time(last.interval_end_ms)}): `,
            last.not_run ? `not run: ${last.not_run}` : `p50 ${fmt.us(last.rtt_p50_us)}, p99 ${fmt.us(last.rtt_p99_us)}, loss ${fmt.pct(last.loss_ratio)}`),
          h('p', { 'data-testid': 'pair-rails' }, 'Rails: ', [...new Map(rows.filter((r) => r.rail).map((r) => [r.rail,
            `${r.rail} (${r.local_device || '?'}/${r.local_port || '?'} → ${r.remote_device || '?'}/${r.remote_port || '?'})`])).values()].join(', ') || 'none named'),
          h('h2', {}, 'RTT'), legend(lat),
          lineChart({ t0: since, t1: until, series: lat, markers, yFormat: fmt.us, testid: 'chart-rtt' }),
          h('h2', {}, 'Loss'), legend(loss),
          lineChart({ t0: since, t1: until, series: loss, markers, yFormat: (v) => `${v.toFixed(v < 10 ? 1 : 0)} %`, height: 160, testid: 'chart-loss' })],
        h('h2', {}, 'Failed work completions'),
        statuses.length === 0 ? h('p', { class: 'muted' }, 'None in this range.') : h('div', { 'data-testid': 'pair-errors' },
          h('table', { class: 'data' },
            h('thead', {}, h('tr', {}, ['interval end', 'rail / transport', 'errors', 'sent', 'lost'].map((c) => h('th', {}, c)))),
            h('tbody', {}, errRows.map((r) => h('tr', { class: 'bad' }, h('td', {}, fmt.time(r.interval_end_ms)), h('td', {}, key(r)),
              h('td', {}, errorText(r.errors_by_status)), h('td', { class: 'num' }, r.sent), h('td', { class: 'num' }, r.lost))))),
          statuses.map((st) => wc.explain(st))),
        pairEvents.length ? [h('h2', {}, 'Events'), h('ul', {}, pairEvents.map((e) => h('li', {},
          `${e.open ? 'OPEN' : 'closed'} ${e.transport} ${e.status} \u00d7${e.count} since ${fmt.time(e.started_at_ms)}: ${e.detail}`)))] : null);
    },
  };
  return view;
}
