// Overview: open diagnoses first (where a fault is, why, and links to the
// paths behind each), then node, port and event counts, the worst paths now,
// and every node's last report age with stale nodes flagged.
import * as api from '../api.js';
import { h, fill } from '../dom.js';
import * as fmt from '../format.js';
import { isStale, portActive, pairBad, errorText, pairLink, evidenceText } from '../model.js';

function card(label, value, sub, cls, testid) {
  return h('div', { class: `card ${cls || ''}`, 'data-testid': testid },
    h('div', { class: 'card-value' }, String(value)), h('div', { class: 'card-label' }, label),
    sub ? h('div', { class: 'card-sub' }, sub) : null);
}

const kMaxPathLinks = 12;

function diagnosisBlock(d) {
  const paths = d.paths || [];
  return h('div', { class: `diagnosis ${d.severity === 'critical' ? 'bad' : 'warn'}`, 'data-testid': 'diagnosis',
    'data-key': `${d.scope}|${d.subject}|${d.kind}` },
  h('div', { class: 'diagnosis-head' },
    h('span', { class: `badge ${d.severity === 'critical' ? 'bad' : 'warn'}` }, d.severity),
    h('strong', {}, ` ${d.scope} ${d.subject}: ${d.kind}`),
    h('span', { class: 'muted' }, ` since ${fmt.time(d.since_ms)}, confidence ${Number(d.confidence).toFixed(2)}` +
      (d.flaps > 0 ? `, flapping (back ${d.flaps} time(s))` : ''))),
  h('ul', { class: 'evidence' }, (d.evidence || []).map((e) => h('li', {}, evidenceText(e)))),
  paths.length ? h('div', { class: 'diagnosis-paths' }, 'paths: ',
    paths.slice(0, kMaxPathLinks).map((p, i) => [i ? ', ' : '', h('a', { href: pairLink(p.src, p.dst) }, `${p.src} \u2192 ${p.dst}`)]),
    paths.length > kMaxPathLinks ? ` and ${paths.length - kMaxPathLinks} more` : '') : null);
}

export function mount(root) {
  const diag = h('section', { 'data-testid': 'diagnoses' });
  const cards = h('section', { class: 'cards' });
  const worst = h('section', {});
  const nodes = h('section', {});
  fill(root, h('h1', {}, 'Fabric overview'), h('h2', {}, 'Diagnoses'), diag, cards, h('h2', {}, 'Worst paths'), worst, h('h2', {}, 'Nodes'), nodes);

  return {
    async refresh() {
      const [ns, ports, open, pairs, diagnoses] = await Promise.all([
        api.nodes(), api.ports(), api.events({ open: 1 }), api.worst({ limit: 10 }), api.diagnoses()]);
      fill(diag, diagnoses.length === 0 ? h('p', { class: 'muted', 'data-testid': 'no-diagnoses' }, 'No fault located: no open diagnosis.') :
        diagnoses.map(diagnosisBlock));
      const stale = ns.filter(isStale);
      const active = ports.filter(portActive).length;
      const byKind = {};
      for (const e of open) byKind[e.kind] = (byKind[e.kind] || 0) + 1;
      const badPairs = pairs.filter(pairBad);
      fill(cards,
        card('nodes', ns.length, stale.length ? `${stale.length} stale` : 'all reporting', stale.length ? 'warn' : 'ok', 'card-nodes'),
        card('ports ACTIVE', `${active} / ${ports.length}`, ports.length - active ? `${ports.length - active} not active` : 'all active',
          ports.length - active ? 'bad' : 'ok', 'card-ports'),
        h('a', { href: '#/events?open=1', class: 'cardlink' }, card('open events', open.length,
          Object.entries(byKind).map(([k, n]) => `${k} ${n}`).join(', ') || 'none', open.length ? 'bad' : 'ok', 'card-events')),
        h('a', { href: '#/matrix', class: 'cardlink' }, card('bad paths', badPairs.length, 'of the 10 worst', badPairs.length ? 'bad' : 'ok', 'card-paths')));

      fill(worst, pairs.length === 0 ? h('p', { class: 'muted' }, 'No probe results yet.') :
        h('table', { class: 'data', 'data-testid': 'worst-paths' },
          h('thead', {}, h('tr', {}, ['path', 'transport', 'p50', 'p99', 'loss', 'errors', 'interval end'].map((c) => h('th', {}, c)))),
          h('tbody', {}, pairs.map((p) => h('tr', { class: pairBad(p) ? 'bad' : null },
            h('td', {}, h('a', { href: pairLink(p.src, p.dst) }, `${p.src} \u2192 ${p.dst}`)),
            h('td', {}, p.transport), h('td', { class: 'num' }, fmt.us(p.rtt_p50_us)), h('td', { class: 'num' }, fmt.us(p.rtt_p99_us)),
            h('td', { class: 'num' }, fmt.pct(p.loss_ratio)), h('td', {}, errorText(p.errors_by_status) || '0'),
            h('td', {}, fmt.time(p.interval_end_ms)))))));

      fill(nodes, h('table', { class: 'data', 'data-testid': 'overview-nodes' },
        h('thead', {}, h('tr', {}, ['node', 'last report', 'ports', 'not active', 'open events', 'agent', 'group'].map((c) => h('th', {}, c)))),
        h('tbody', {}, ns.map((n) => h('tr', { class: isStale(n) ? 'stale' : null, 'data-node': n.name },
          h('td', {}, h('a', { href: `#/nodes?filter=${encodeURIComponent(n.name)}` }, n.name)),
          h('td', {}, `${fmt.age(n.age_s)} ago`, isStale(n) ? h('span', { class: 'badge warn' }, 'stale') : null),
          h('td', { class: 'num' }, n.port_count), h('td', { class: `num ${n.ports_not_active ? 'badtext' : ''}` }, n.ports_not_active),
          h('td', { class: 'num' }, n.open_event_count), h('td', {}, fmt.val(n.agent_version)),
          h('td', {}, fmt.val(n.labels && n.labels.group)))))));
    },
  };
}
