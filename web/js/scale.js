// Colour scales for latency and loss, shared by the heatmap and its legend.
//
// Contract: colour(value) returns [r, g, b]; good values are green, bad red,
// absent values grey. p99 is judged against the fabric's median p99 (ratio 1
// green, 3 yellow, >= 10 red, log-interpolated) because absolute latency
// differs by fabric (Soft-RoCE vs InfiniBand). Loss: 0 green, 1 % yellow,
// >= 10 % red. isBad(value) is true in the red half (>= 5x median, >= 5 % loss).

export const GREY = [200, 200, 200];
const STOPS = [[0, [46, 160, 67]], [0.5, [230, 190, 40]], [1, [208, 40, 40]]];

function ramp(t) {
  t = Math.min(1, Math.max(0, t));
  for (let i = 1; i < STOPS.length; i++) {
    const [t1, c1] = STOPS[i];
    const [t0, c0] = STOPS[i - 1];
    if (t <= t1) {
      const u = (t - t0) / (t1 - t0);
      return c0.map((v, j) => Math.round(v + (c1[j] - v) * u));
    }
  }
  return STOPS[STOPS.length - 1][1];
}

function median(values) {
  const v = values.filter((x) => x !== null && x !== undefined && Number.isFinite(x)).sort((a, b) => a - b);
  return v.length ? v[Math.floor(v.length / 2)] : null;
}

// Maps ratio r >= 1 to [0, 1]: 1 -> 0, 3 -> 0.5, 10 -> 1 (piecewise log).
function ratioT(r) {
  if (!(r > 1)) return 0;
  if (r <= 3) return 0.5 * Math.log(r) / Math.log(3);
  return Math.min(1, 0.5 + 0.5 * Math.log(r / 3) / Math.log(10 / 3));
}

function lossT(loss) {
  if (!(loss > 0)) return 0;
  if (loss <= 0.01) return 0.5 * Math.log10(1 + 999 * loss) / Math.log10(1 + 9.99);
  return Math.min(1, 0.5 + 0.5 * Math.log(loss / 0.01) / Math.log(10));
}

export function p99Scale(values) {
  const med = median(values);
  return {
    metric: 'p99',
    median: med,
    t: (v) => (v === null || v === undefined || !med ? null : ratioT(v / med)),
    colour(v) { const t = this.t(v); return t === null ? GREY : ramp(t); },
    isBad(v) { return med !== null && v !== null && v !== undefined && v / med >= 5; },
    stops: med ? [[1, med], [3, med * 3], [10, med * 10]].map(([r, x]) => ({ t: ratioT(r), value: x })) : [],
    ramp,
  };
}

export function lossScale() {
  return {
    metric: 'loss',
    t: (v) => (v === null || v === undefined ? null : lossT(v)),
    colour(v) { const t = this.t(v); return t === null ? GREY : ramp(t); },
    isBad: (v) => v !== null && v !== undefined && v >= 0.05,
    stops: [0, 0.01, 0.1].map((x) => ({ t: lossT(x), value: x })),
    ramp,
  };
}

export const css = ([r, g, b]) => `rgb(${r}, ${g}, ${b})`;
