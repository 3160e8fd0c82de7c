// The work-completion status table (meaning, causes, checks per status),
// shipped as ../wc_status.json, a generated copy of `rdmactl explain --all --json`.
// lookup() accepts a short name ("RETRY_EXC_ERR"), an enum ("IBV_WC_RETRY_EXC_ERR"),
// an API key ("RETRY_EXC_ERR (12)") or a number; the prober's own statuses
// PROBE_DEADLINE (-1) and CONNECT (-2) are not WC statuses and get their own text.
import { h } from './dom.js';

let table = null;
let loading = null;

const PROBER = {
  PROBE_DEADLINE: {
    name: 'PROBE_DEADLINE', number: -1,
    meaning: "The prober's own deadline expired with no completion: the probe counts as lost.",
    causes: ['peer agent or its responder not running', 'path dropping packets', 'peer host overloaded'],
    checks: ['is the peer agent up (rdmactl status)?', 'port state on both ends', 'probe the path now: rdmactl probe'],
  },
  CONNECT: {
    name: 'CONNECT', number: -2,
    meaning: "The RC connection to the peer could not be set up over the agent's control port.",
    causes: ['peer agent down or its control port blocked', 'wrong control_host/control_port label'],
    checks: ['reach the peer control port from this node', "the peer's labels in its report"],
  },
};

// Loads the table once; concurrent callers share the one request.
export function load() {
  if (!loading) {
    loading = fetch('wc_status.json').then((res) => (res.ok ? res.json() : []), () => []).then((t) => (table = t), () => (table = []));
  }
  return loading;
}

export function lookup(key) {
  if (key === null || key === undefined) return null;
  const text = String(key).replace(/\s*\(-?\d+\)$/, '');
  if (PROBER[text]) return PROBER[text];
  for (const e of table || []) {
    if (e.name === text || e.enum === text || String(e.number) === text) return e;
  }
  return null;
}

// A block explaining one status: meaning, likely causes, what to check.
export function explain(key) {
  const e = lookup(key);
  if (!e) return h('div', { class: 'wc-explain' }, h('b', {}, String(key)), ': not in the WC status table');
  return h('div', { class: 'wc-explain' },
    h('div', {}, h('b', {}, e.name), e.enum ? ` (${e.enum}, ${e.number})` : '', ' \u2014 ', e.meaning),
    e.causes && e.causes.length ? h('div', {}, h('span', { class: 'label' }, 'Likely causes'), h('ul', {}, e.causes.map((c) => h('li', {}, c)))) : null,
    e.checks && e.checks.length ? h('div', {}, h('span', { class: 'label' }, 'Check'), h('ul', { class: 'checks' }, e.checks.map((c) => h('li', {}, c)))) : null);
}
