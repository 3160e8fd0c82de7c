// Display formatting. Absent values (null/undefined) show as an em dash, never 0.

export const NONE = '\u2014';

export function us(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return NONE;
  if (v >= 1000) return `${(v / 1000).toFixed(v >= 10000 ? 1 : 2)} ms`;
  return `${v.toFixed(v >= 100 ? 0 : 1)} \u00b5s`;
}

export function pct(ratio) {
  if (ratio === null || ratio === undefined) return NONE;
  if (ratio === 0) return '0 %';
  const p = ratio * 100;
  return `${p >= 10 ? p.toFixed(0) : p >= 1 ? p.toFixed(1) : p.toFixed(2)} %`;
}

export function age(seconds) {
  if (seconds === null || seconds === undefined) return NONE;
  const s = Math.max(0, seconds);
  if (s < 60) return `${s.toFixed(0)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.floor(s % 60)} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

export function time(ms) {
  if (ms === null || ms === undefined) return NONE;
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function clock(ms) {
  return new Date(ms).toISOString().slice(11, 19);
}

export function val(v) {
  return v === null || v === undefined ? NONE : String(v);
}

export function rate(v) {
  if (v === null || v === undefined) return NONE;
  const a = Math.abs(v);
  if (a >= 1e9) return `${(v / 1e9).toFixed(2)} G/s`;
  if (a >= 1e6) return `${(v / 1e6).toFixed(2)} M/s`;
  if (a >= 1e3) return `${(v / 1e3).toFixed(2)} k/s`;
  return `${v.toFixed(a >= 10 ? 0 : 2)} /s`;
}

// "1h" / "15m" / "30s" / "2d" -> milliseconds; undefined for anything else.
export function parseDuration(text) {
  const m = /^(\d+)([smhd])$/.exec(text || '');
  if (!m) return undefined;
  return Number(m[1]) * { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3 }[m[2]];
}
