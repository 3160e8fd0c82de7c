// SVG time-series chart.
//
// lineChart({t0, t1, series, markers, yFormat, width, height, testid}) returns an <svg>:
//  - series: [{name, colour, points: [[t_ms, value|null], ...]}]; a null value
//    breaks the line (absent, not 0). Each point carries a <title> with its value.
//  - markers: [{t, label, colour?}] drawn as vertical lines on the time axis with
//    a <title> (e.g. WC errors); class "marker" for tests.
//  - data-t0/data-t1 hold the time range in ms.
//  - y axis starts at 0 and ends at a rounded maximum; x axis is t0..t1 in UTC.
import { s, h } from './dom.js';
import { clock, time } from './format.js';

const PAD = { l: 64, r: 34, t: 14, b: 28 };

function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

export function lineChart({ t0, t1, series, markers = [], yFormat = String, width = 900, height = 220, testid }) {
  const W = width, H = height;
  const iw = W - PAD.l - PAD.r, ih = H - PAD.t - PAD.b;
  let ymax = 0;
  for (const se of series) for (const [, v] of se.points) if (v !== null && v > ymax) ymax = v;
  ymax = niceMax(ymax);
  const span = Math.max(1, t1 - t0);
  const x = (t) => PAD.l + ((t - t0) / span) * iw;
  const y = (v) => PAD.t + ih - (v / ymax) * ih;

  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', 'data-testid': testid, role: 'img',
    'data-t0': Math.round(t0), 'data-t1': Math.round(t1) });
  for (let i = 0; i <= 4; i++) {
    const v = (ymax * i) / 4;
    svg.append(s('line', { x1: PAD.l, x2: W - PAD.r, y1: y(v), y2: y(v), class: 'grid' }),
      s('text', { x: PAD.l - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, yFormat(v)));
  }
  const ticks = W >= 600 ? 5 : 3;
  for (let i = 0; i <= ticks; i++) {
    const t = t0 + (span * i) / ticks;
    svg.append(s('text', { x: x(t), y: H - 8, 'text-anchor': 'middle', class: 'axis' }, clock(t)));
  }
  svg.append(s('line', { x1: PAD.l, x2: W - PAD.r, y1: PAD.t + ih, y2: PAD.t + ih, class: 'axisline' }));

  for (const m of markers) {
    if (m.t < t0 || m.t > t1) continue;
    const g = s('g', { class: 'marker' },
      s('line', { x1: x(m.t), x2: x(m.t), y1: PAD.t, y2: PAD.t + ih }),
      s('path', { d: `M${x(m.t) - 5},${PAD.t} l10,0 l-5,8 z` }),
      s('title', {}, `${time(m.t)}: ${m.label}`));
    svg.append(g);
  }
  for (const se of series) {
    let d = '';
    let pen = false;
    for (const [t, v] of se.points) {
      if (v === null || v === undefined) { pen = false; continue; }
      d += `${pen ? 'L' : 'M'}${x(t).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    }
    svg.append(s('path', { d, class: 'series', stroke: se.colour, fill: 'none' }));
    for (const [t, v] of se.points) {
      if (v === null || v === undefined) continue;
      svg.append(s('circle', { cx: x(t), cy: y(v), r: 2.5, fill: se.colour, class: 'pt' },
        s('title', {}, `${se.name} ${time(t)}: ${yFormat(v)}`)));
    }
  }
  return svg;
}

export function legend(series) {
  return h('div', { class: 'chart-legend' }, series.map((se) =>
    h('span', {}, h('i', { style: `background:${se.colour}` }), se.name)));
}
