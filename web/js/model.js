// Judgements the views share, so every page flags the same things.

// A node is stale when the collector says so (silent past --stale-after-s) or
// when it has missed three of its own report intervals.
export function isStale(node) {
  if (node.stale) return true;
  return node.interval_s > 0 && node.age_s > 3 * node.interval_s;
}

export const ACTIVE = 4;  // ibv_port_state IBV_PORT_ACTIVE
export const portActive = (p) => p.state === ACTIVE;

// A probe summary is bad when it saw failed completions or lost >= 5 %.
export const pairBad = (p) => p.error_count > 0 || (p.loss_ratio ?? 0) >= 0.05;

// "RETRY_EXC_ERR: 3, RNR_RETRY_EXC_ERR: 1" from errors_by_status.
export function errorText(byStatus) {
  if (!byStatus) return '';
  return Object.entries(byStatus).filter(([, n]) => n > 0).map(([k, n]) => `${k}: ${n}`).join(', ');
}

export function pairLink(src, dst, extra = {}) {
  const q = new URLSearchParams({ src, dst, ...extra });
  return `#/pair?${q}`;
}
