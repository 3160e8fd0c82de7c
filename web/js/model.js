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

// One line of a diagnosis's evidence (GET /api/v1/diagnoses): the path vote,
// a counter that moved on the element, the switch port at the other end of
// its cable, a port state, a silent agent, how often it came back (flapping)
// or what it was before it escalated in place (escalated).
export function evidenceText(e) {
  switch (e.what) {
    case 'counter': return `counter ${e.node} ${e.device}/${e.port} ${e.counter} +${e.delta}`;
    case 'switch_port': return `switch ${e.switch || e.switch_guid} port ${e.port} (cabled to ${e.cabled_to}) ${e.counter} +${e.delta}`;
    case 'port_state': return `port ${e.node} ${e.device}/${e.port} is ${e.state}`;
    case 'agent_silent': return `agent silent since ${new Date(e.last_report_at_ms).toISOString()}`;
    case 'flapping': return `flapping: came back ${e.flaps} time(s) after a clean interval`;
    case 'escalated': return `escalated from ${e.from_severity} ${e.from_kind} at ${new Date(e.at_ms).toISOString()}`;
    case 'paths': {
      const parts = [`${e.bad} bad path(s)`];
      if (e.as_src) parts.push(`as source ${e.as_src}`);
      if (e.as_dst) parts.push(`as destination ${e.as_dst}`);
      if (e.across) parts.push(`across the link ${e.across}`);
      if (e.voted_on) parts.push(`decided on its ${e.voted_on} paths (the other transport hides or lacks the fault)`);
      if (e.peer_groups && e.peer_groups.length) parts.push(`peers in group(s) ${e.peer_groups.join(', ')}`);
      if (e.wc_status) parts.push(errorText(e.wc_status));
      if (e.median_loss_ratio) parts.push(`median loss ${(100 * e.median_loss_ratio).toFixed(1)} %`);
      if (e.median_p50_us !== undefined && e.latency_limit_us !== undefined && e.median_p50_us >= e.latency_limit_us) {
        parts.push(`median p50 ${e.median_p50_us} \u00b5s (limit ${e.latency_limit_us} \u00b5s)`);
      }
      if (e.median_min_us !== undefined && e.min_limit_us !== undefined && e.median_min_us >= e.min_limit_us) {
        parts.push(`median min RTT ${e.median_min_us} \u00b5s (limit ${e.min_limit_us} \u00b5s)`);
      }
      return parts.join(', ');
    }
    default: return JSON.stringify(e);
  }
}

export function pairLink(src, dst, extra = {}) {
  const q = new URLSearchParams({ src, dst, ...extra });
  return `#/pair?${q}`;
}
