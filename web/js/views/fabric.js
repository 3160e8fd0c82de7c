// Fabric (#/fabric?filter=text&sort=..&dir=..): the InfiniBand fabric from the
// agents' subnet sweeps and neighbour lookups: switches with error badges,
// links (gone ones and ones with open events first), and the link history
// (link_down, link_errors, link_degraded events of the last day).
import * as api from '../api.js';
import { h, fill } from '../dom.js';
import * as fmt from '../format.js';
import { table } from '../table.js';

const end = (guid, port, desc) => `${desc || guid}[${port}]`;

function badges(l) {
  const out = [];
  if (l.gone_at_ms != null) out.push(h('span', { class: 'badge bad', 'data-testid': 'badge-down' }, 'down'));
  else if (l.open_events > 0) out.push(h('span', { class: 'badge bad', 'data-testid': 'badge-events' }, `${l.open_events} open`));
  else out.push(h('span', { class: 'badge ok' }, 'up'));
  return h('span', {}, out);
}

export function mount(root, ctx) {
  const filter = h('input', { type: 'search', placeholder: 'filter (switch, GUID, state, ...)', value: ctx.params.filter || '', 'data-testid': 'filter' });
  const summary = h('p', { class: 'muted', 'data-testid': 'fabric-summary' });
  const switches = h('div', {});
  const links = h('div', {});
  const history = h('div', {});
  fill(root, h('h1', {}, 'Fabric'), summary, h('div', { class: 'controls' }, filter),
    h('h2', {}, 'Switches'), switches, h('h2', {}, 'Links'), links, h('h2', {}, 'Link history'), history);
  let data = null;

  const switchColumns = [
    { key: 'description', label: 'switch', value: (n) => n.description },
    { key: 'guid', label: 'GUID', value: (n) => n.guid, cell: (n) => h('code', {}, n.guid) },
    { key: 'lid', label: 'LID', num: true, value: (n) => n.lid },
    { key: 'up', label: 'ports up', num: true, value: (n) => n.ports.filter((p) => p.state === 'ACTIVE').length,
      text: (n) => `${n.ports.filter((p) => p.state === 'ACTIVE').length} / ${n.ports.length}` },
    { key: 'errors', label: 'errors', num: true, value: (n) => data.errorsBySwitch.get(n.guid) || 0,
      cell: (n) => {
        const c = data.errorsBySwitch.get(n.guid) || 0;
        return c ? h('span', { class: 'badge bad', 'data-testid': 'switch-errors' }, `${c} port counter${c > 1 ? 's' : ''}`) : h('span', { class: 'badge ok' }, '0');
      } },
    { key: 'seen_by', label: 'swept by', value: (n) => n.seen_by },
    { key: 'last_seen', label: 'last seen', value: (n) => n.last_seen_at_ms, text: (n) => fmt.time(n.last_seen_at_ms) },
  ];
  const linkColumns = [
    { key: 'status', label: 'status', value: (l) => (l.gone_at_ms != null ? 0 : l.open_events > 0 ? 1 : 2),
      text: (l) => (l.gone_at_ms != null ? 'down' : l.open_events > 0 ? 'open events' : 'up'), cell: badges },
    { key: 'a', label: 'end A', value: (l) => end(l.a_guid, l.a_port, l.a_description) },
    { key: 'b', label: 'end B', value: (l) => end(l.b_guid, l.b_port, l.b_description) },
    { key: 'state', label: 'state', value: (l) => `${l.a_state || fmt.NONE} / ${l.b_state || fmt.NONE}` },
    { key: 'rate', label: 'width speed', value: (l) => `${l.width || ''} ${l.speed || ''}` },
    { key: 'errors', label: 'error counters (A / B)', value: (l) => errText(l.a_guid, l.a_port) + errText(l.b_guid, l.b_port),
      text: (l) => `${errText(l.a_guid, l.a_port) || '0'} / ${errText(l.b_guid, l.b_port) || '0'}` },
    { key: 'first_seen', label: 'first seen', value: (l) => l.first_seen_at_ms, text: (l) => fmt.time(l.first_seen_at_ms) },
    { key: 'gone', label: 'gone since', value: (l) => l.gone_at_ms, text: (l) => fmt.time(l.gone_at_ms) },
  ];
  function errText(guid, port) {
    const e = data.errorsByPort.get(`${guid}|${port}`);
    return e ? e.map((x) => `${x.counter}=${x.value}`).join(' ') : '';
  }

  function draw() {
    if (!data) return;
    const state = { sort: ctx.params.sort || 'status', dir: ctx.params.dir || 'asc', filter: ctx.params.filter || '' };
    const sw = data.nodes.filter((n) => n.type === 'Switch');
    const down = data.links.filter((l) => l.gone_at_ms != null).length;
    summary.textContent = `${sw.length} switches, ${data.nodes.length - sw.length} other nodes, ${data.links.length} links` +
      ` (${down} down), ${data.errors.length} port counters over threshold, ${data.events.length} open link events`;
    fill(switches, sw.length === 0 ? h('p', { class: 'muted', 'data-testid': 'no-fabric' },
      'No subnet sweep yet: set fabric_sweep_interval on one or two agents per InfiniBand subnet.') :
      table({ columns: switchColumns, rows: sw, testid: 'switches', state: { sort: 'description', dir: 'asc', filter: state.filter },
        onState: () => {}, rowClass: (n) => (data.errorsBySwitch.get(n.guid) ? 'bad' : null) }));
    fill(links, table({ columns: linkColumns, rows: data.links, testid: 'links', state,
      onState: (patch) => { ctx.set(patch); draw(); },
      rowClass: (l) => (l.gone_at_ms != null || l.open_events > 0 ? 'bad' : null) }));
    fill(history, data.history.length === 0 ? h('p', { class: 'muted' }, 'No link events in the last day.') :
      h('table', { class: 'data', 'data-testid': 'link-history' },
        h('thead', {}, h('tr', {}, ['', 'kind', 'status', 'link', 'started', 'ended', 'detail'].map((c) => h('th', {}, c)))),
        h('tbody', {}, data.history.map((e) => h('tr', { class: e.ended_at_ms == null ? 'bad' : null, 'data-kind': e.kind },
          h('td', {}, h('span', { class: `badge ${e.ended_at_ms == null ? 'bad' : 'ok'}` }, e.ended_at_ms == null ? 'open' : 'closed')),
          h('td', {}, e.kind), h('td', {}, e.status), h('td', {}, `${e.node} \u2194 ${e.peer ?? fmt.NONE}`),
          h('td', {}, fmt.time(e.started_at_ms)), h('td', {}, fmt.time(e.ended_at_ms)), h('td', {}, e.detail))))));
  }
  filter.addEventListener('input', () => { ctx.set({ filter: filter.value }); draw(); });

  return {
    async refresh() {
      const [nodes, links, errors] = await Promise.all([api.fabricNodes(), api.fabricLinks(), api.fabricErrors()]);
      const errorsByPort = new Map();
      const errorsBySwitch = new Map();
      for (const e of errors.ports) {
        const k = `${e.guid}|${e.port}`;
        errorsByPort.set(k, [...(errorsByPort.get(k) || []), e]);
        errorsBySwitch.set(e.guid, (errorsBySwitch.get(e.guid) || 0) + 1);
      }
      data = { nodes: nodes.nodes, links: links.links, history: links.history, errors: errors.ports, events: errors.events, errorsByPort, errorsBySwitch };
      draw();
    },
  };
}
