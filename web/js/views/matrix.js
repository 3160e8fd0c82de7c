// Latency matrix: src (rows) x dst (columns) heatmap on a canvas, coloured by
// p99 RTT or loss (?metric=p99|loss), over one transport or the worst of both
// (?transport=all|rc|ud), from each pair's newest summary in the window
// (?window=5m; default the last three report intervals, at least 1 min,
// counted back from the newest report so browser clock skew does not matter).
// Nodes are ordered by their "group" label, then name, so groups show as blocks.
//
// A pair with failed work completions is drawn red whatever the metric. Hover
// shows the cell's values; click opens #/pair. After each draw the canvas gets
// data-rendered-ms (ms since navigation start) and a performance mark
// "matrix-rendered"; window.rdmascopeMatrix.cell(src, dst) gives a cell's
// canvas position and colour (for tests).
import * as api from '../api.js';
import { h, fill } from '../dom.js';
import * as fmt from '../format.js';
import { p99Scale, lossScale, css, GREY } from '../scale.js';
import { errorText, pairLink } from '../model.js';

const ERROR_RED = [176, 0, 32];
const LABEL = 120;  // px at most for node names, drawn when cells are 10 px or more

function combine(a, b) {
  if (!a) return { ...b };
  const max = (x, y) => (x === null || x === undefined ? y : y === null || y === undefined ? x : Math.max(x, y));
  return {
    ...a,
    transport: `${a.transport}+${b.transport}`,
    rtt_p50_us: max(a.rtt_p50_us, b.rtt_p50_us),
    rtt_p99_us: max(a.rtt_p99_us, b.rtt_p99_us),
    loss_ratio: max(a.loss_ratio, b.loss_ratio),
    error_count: (a.error_count || 0) + (b.error_count || 0),
    errors_by_status: { ...(a.errors_by_status || {}), ...(b.errors_by_status || {}) },
    interval_end_ms: Math.max(a.interval_end_ms, b.interval_end_ms),
  };
}

function select(label, value, options, onchange, testid) {
  const el = h('select', { 'data-testid': testid, onchange: () => onchange(el.value) },
    options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)));
  return h('label', {}, label, ' ', el);
}

export function mount(root, ctx) {
  const p = ctx.params;
  const canvas = h('canvas', { class: 'heatmap', 'data-testid': 'heatmap' });
  const legend = h('div', { class: 'legend', 'data-testid': 'legend' });
  const info = h('p', { class: 'muted small' });
  const tip = document.getElementById('tooltip');
  // Rails come from the nodes' "rails" labels: the options are filled after each fetch.
  const railSel = h('select', { 'data-testid': 'rail', onchange: () => { ctx.set({ rail: railSel.value }); view.refresh(); } },
    h('option', { value: '' }, 'all rails'));
  fill(root, h('h1', {}, 'Latency matrix'),
    h('div', { class: 'controls' },
      select('colour by', p.metric || 'p99', [['p99', 'p99 RTT'], ['loss', 'loss']], (v) => { ctx.set({ metric: v }); draw(); }, 'metric'),
      select('transport', p.transport || 'all', [['all', 'worst of RC and UD'], ['rc', 'RC'], ['ud', 'UD']], (v) => { ctx.set({ transport: v }); draw(); }, 'transport'),
      select('window', p.window || 'auto', [['auto', 'last 3 intervals'], ['5m', '5 min'], ['15m', '15 min'], ['1h', '1 h']], (v) => { ctx.set({ window: v === 'auto' ? '' : v }); view.refresh(); }, 'window'),
      h('label', {}, 'rail ', railSel)),
    legend, h('div', { class: 'heatmap-wrap' }, canvas), info);

  let data = null;   // {names, index, rows}
  let geo = null;    // {names, index, cell, ox, oy, cells: Map}
  let hover = null;  // {si, di, x, y}

  function cellsFor(transport) {
    const cells = new Map();
    const n = data.names.length;
    for (const r of data.rows) {
      if (transport !== 'all' && r.transport !== transport) continue;
      const si = data.index.get(r.src), di = data.index.get(r.dst);
      if (si === undefined || di === undefined) continue;
      const k = si * n + di;
      cells.set(k, combine(cells.get(k), r));
    }
    return cells;
  }

  function drawLegend(scale) {
    const bar = h('canvas', { width: 240, height: 12, class: 'legend-bar' });
    const g = bar.getContext('2d');
    for (let x = 0; x < 240; x++) { g.fillStyle = css(scale.ramp(x / 239)); g.fillRect(x, 0, 1, 12); }
    const ticks = scale.stops.map((st) => h('span', { style: `left:${(st.t * 240).toFixed(0)}px` },
      scale.metric === 'loss' ? fmt.pct(st.value) : fmt.us(st.value)));
    fill(legend,
      h('span', { class: 'legend-title' }, scale.metric === 'loss' ? 'loss' : `p99 RTT (median ${fmt.us(scale.median)})`),
      h('span', { class: 'legend-scale' }, bar, h('span', { class: 'legend-ticks' }, ticks)),
      h('span', { class: 'swatch', style: `background:${css(ERROR_RED)}` }), ' failed completions',
      h('span', { class: 'swatch', style: `background:${css(GREY)}` }), ' no data');
  }

  function draw() {
    if (!data) return;
    const metric = ctx.params.metric === 'loss' ? 'loss' : 'p99';
    const cells = cellsFor(ctx.params.transport || 'all');
    const value = metric === 'loss' ? (c) => c.loss_ratio : (c) => c.rtt_p99_us;
    performance.mark('matrix-cells');
    const scale = metric === 'loss' ? lossScale() : p99Scale([...cells.values()].map(value));
    const n = data.names.length;
    const avail = Math.max(200, root.clientWidth - 20);
    const labelled = n > 0 && Math.floor((avail - LABEL) / n) >= 10;
    let margin = 0;
    if (labelled) {
      const m = canvas.getContext('2d');
      m.font = '12px sans-serif';
      margin = Math.min(LABEL, 12 + Math.ceil(Math.max(...data.names.map((x) => m.measureText(x).width))));
    }
    const cell = n ? Math.max(1, Math.min(28, Math.floor((avail - margin) / n))) : 1;
    const size = margin + cell * n;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(size * dpr));
    canvas.height = Math.max(1, Math.round(size * dpr));
    canvas.style.width = `${size}px`;
    canvas.style.height = `${size}px`;
    const g = canvas.getContext('2d');
    // Cells are written as pixels (fast for 1,000 x 1,000), in device pixels.
    const W = canvas.width;
    const img = g.createImageData(W, canvas.height);
    const px = img.data;
    const paint = (x0, y0, w, hgt, [r, gr, b]) => {
      const xa = Math.round(x0 * dpr), ya = Math.round(y0 * dpr);
      const xb = Math.round((x0 + w) * dpr), yb = Math.round((y0 + hgt) * dpr);
      for (let y = ya; y < yb; y++) {
        let o = (y * W + xa) * 4;
        for (let x = xa; x < xb; x++, o += 4) { px[o] = r; px[o + 1] = gr; px[o + 2] = b; px[o + 3] = 255; }
      }
    };
    paint(margin, margin, cell * n, cell * n, GREY);
    const gap = cell >= 6 ? 1 : 0;
    const colour = new Map();
    const bad = [];
    for (const [k, c] of cells) {
      const rgb = c.error_count > 0 ? ERROR_RED : scale.colour(value(c));
      colour.set(k, rgb);
      paint(margin + (k % n) * cell, margin + Math.floor(k / n) * cell, cell - gap, cell - gap, rgb);
      if (c.error_count > 0 || scale.isBad(value(c))) bad.push([k, rgb]);
    }
    // Cells under 4 px would hide a bad pair among thousands: draw bad ones as 4 px blocks on top.
    if (cell < 4) {
      for (const [k, rgb] of bad) {
        const cx = margin + (k % n) * cell + cell / 2, cy = margin + Math.floor(k / n) * cell + cell / 2;
        paint(Math.max(margin, cx - 2), Math.max(margin, cy - 2), 4, 4, rgb);
      }
    }
    g.putImageData(img, 0, 0);
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    if (labelled) {
      g.fillStyle = '#333';
      g.font = `${Math.min(12, cell - 2)}px sans-serif`;
      g.textBaseline = 'middle';
      data.names.forEach((name, i) => {
        g.textAlign = 'right';
        g.fillText(name, margin - 4, margin + i * cell + cell / 2, margin - 8);
        g.save();
        g.translate(margin + i * cell + cell / 2, margin - 4);
        g.rotate(-Math.PI / 2);
        g.textAlign = 'left';
        g.fillText(name, 0, 0, margin - 8);
        g.restore();
      });
    }
    geo = { cell, margin, cells, colour, value, scale };
    drawLegend(scale);
    info.textContent = `${n} nodes, ${cells.size} measured pairs (rows: source, columns: destination)` +
      (labelled ? '' : '; hover a cell for its names');
    canvas.dataset.nodes = String(n);
    canvas.dataset.pairs = String(cells.size);
    canvas.dataset.renderedMs = performance.now().toFixed(1);
    performance.mark('matrix-rendered');
    if (hover) showTip(hover.si, hover.di, hover.x, hover.y);
  }

  function cellAt(ev) {
    if (!geo) return null;
    const r = canvas.getBoundingClientRect();
    const x = ev.clientX - r.left - geo.margin, y = ev.clientY - r.top - geo.margin;
    const n = data.names.length;
    const di = Math.floor(x / geo.cell), si = Math.floor(y / geo.cell);
    if (x < 0 || y < 0 || si >= n || di >= n) return null;
    return { si, di };
  }

  function showTip(si, di, x, y) {
    const n = data.names.length;
    if (si >= n || di >= n) { tip.hidden = true; return; }
    const c = geo.cells.get(si * n + di);
    const src = data.names[si], dst = data.names[di];
    fill(tip, h('b', {}, `${src} \u2192 ${dst}`),
      c ? h('div', {}, `${c.transport}: p50 ${fmt.us(c.rtt_p50_us)}, p99 ${fmt.us(c.rtt_p99_us)}, loss ${fmt.pct(c.loss_ratio)}`,
        c.error_count ? h('div', { class: 'badtext' }, `errors: ${errorText(c.errors_by_status) || c.error_count}`) : null,
        h('div', { class: 'muted' }, `interval end ${fmt.time(c.interval_end_ms)}`)) : h('div', { class: 'muted' }, 'not measured'));
    tip.style.left = `${x + 14}px`;
    tip.style.top = `${y + 14}px`;
    tip.hidden = false;
  }

  canvas.addEventListener('mousemove', (ev) => {
    const c = cellAt(ev);
    if (!c) { hover = null; tip.hidden = true; return; }
    hover = { ...c, x: ev.pageX, y: ev.pageY };
    showTip(c.si, c.di, ev.pageX, ev.pageY);
  });
  canvas.addEventListener('mouseleave', () => { hover = null; tip.hidden = true; });
  canvas.addEventListener('click', (ev) => {
    const c = cellAt(ev);
    if (!c) return;
    tip.hidden = true;
    ctx.go('pair', { src: data.names[c.si], dst: data.names[c.di], range: '1h' });
  });

  window.rdmascopeMatrix = {
    cell(src, dst) {
      if (!geo) return null;
      const si = data.index.get(src), di = data.index.get(dst), n = data.names.length;
      if (si === undefined || di === undefined) return null;
      const r = canvas.getBoundingClientRect();
      const k = si * n + di;
      const c = geo.cells.get(k);
      return {
        x: r.left + geo.margin + di * geo.cell + geo.cell / 2, y: r.top + geo.margin + si * geo.cell + geo.cell / 2,
        rgb: geo.colour.get(k) || GREY, measured: !!c,
        bad: !!c && (c.error_count > 0 || geo.scale.isBad(geo.value(c))),
        error_count: c ? c.error_count : null, value: c ? geo.value(c) : null,
      };
    },
  };

  const view = {
    async refresh() {
      const m = await api.matrix(fmt.parseDuration(ctx.params.window), ctx.params.rail);
      performance.mark('matrix-fetched');
      const rails = [...new Set(m.nodes.flatMap((x) => ((x.labels && x.labels.rails) || '').split(',').filter(Boolean)))].sort();
      const current = ctx.params.rail || '';
      fill(railSel, h('option', { value: '' }, 'all rails'),
        rails.map((r) => h('option', { value: r, selected: r === current }, `rail ${r}`)));
      const names = m.nodes.map((x) => ({ name: x.name, group: (x.labels && x.labels.group) || '' }))
        .sort((a, b) => a.group.localeCompare(b.group) || a.name.localeCompare(b.name, undefined, { numeric: true }))
        .map((x) => x.name);
      data = { names, index: new Map(names.map((x, i) => [x, i])), rows: m.rows };
      draw();
    },
    unmount() { tip.hidden = true; delete window.rdmascopeMatrix; },
  };
  return view;
}
