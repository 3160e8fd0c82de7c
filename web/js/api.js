// The collector's JSON API (same origin). get() resolves with the parsed body
// of a 2xx answer and rejects with an Error carrying the API's error text
// ({"error", "detail"}) otherwise. Parameters that are undefined/null/'' are
// left out of the query string.

export async function get(path, params = {}) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  const url = `/api/v1/${path}${qs.toString() ? '?' + qs : ''}`;
  const res = await fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store' });
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (!res.ok) {
    const what = body && body.error ? `${body.error}${body.detail ? ': ' + JSON.stringify(body.detail) : ''}` : res.statusText;
    const err = new Error(`${url}: ${res.status} ${what}`);
    err.status = res.status;
    throw err;
  }
  return body;
}

export const nodes = () => get('nodes').then((b) => b.nodes);
export const node = (name) => get(`nodes/${encodeURIComponent(name)}`);
export const ports = (nodeName) => get('ports', { node: nodeName }).then((b) => b.ports);
// One page of the fleet's ports, filtered and sorted by the collector: q has
// sort, order, limit, cursor and the filters (node, device, state, gid,
// firmware, group, q); resolves with {ports, total, next_cursor, ...}.
export const portsPage = (q) => get('ports', q);
export const events = (q = {}) => get('events', q).then((b) => b.events);
export const diagnoses = (q = {}) => get('diagnoses', q).then((b) => b.diagnoses);
export const worst = (q = {}) => get('probes/worst', q).then((b) => b.pairs);
export const probes = (q = {}) => get('probes', q).then((b) => b.probes);
export const counters = (q = {}) => get('counters', q).then((b) => b.samples);
export const fabricNodes = () => get('fabric/nodes');
export const fabricLinks = () => get('fabric/links');
export const fabricErrors = () => get('fabric/errors');
// nodeName undefined: every node's.
export const fabricNeighbours = (nodeName) => get('fabric/neighbours', { node: nodeName }).then((b) => b.neighbours);

// What the latency matrix needs, from GET /api/v1/matrix: {nodes: [{name,
// labels, interval_s, last_generated_at_ms}], rows: [{src, dst, transport,
// interval_end_ms, rtt_p50_us, rtt_p99_us, loss_ratio, error_count,
// errors_by_status}]}, one row per (src, dst, transport): its newest summary.
// windowMs undefined: the last three report intervals counted back from the
// newest report (the collector's clock, not the browser's); else the last
// windowMs by the browser clock.
// rail: only that rail's summaries (undefined: every rail).
export async function matrix(windowMs, rail) {
  const since = windowMs === undefined ? undefined : Math.floor(Date.now() - windowMs);
  const m = await get('matrix', { since, rail: rail || undefined });
  const c = Object.fromEntries(m.columns.map((name, i) => [name, i]));
  const names = m.nodes.map((n) => n.name);
  const rows = m.rows.map((r) => ({
    src: names[r[c.src]], dst: names[r[c.dst]], transport: r[c.transport], interval_end_ms: r[c.interval_end_ms],
    rtt_p50_us: r[c.rtt_p50_us], rtt_p99_us: r[c.rtt_p99_us], loss_ratio: r[c.loss_ratio],
    error_count: r[c.error_count], errors_by_status: r[c.errors_by_status],
  }));
  return { nodes: m.nodes, rows };
}
