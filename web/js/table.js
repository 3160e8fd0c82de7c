// Sortable, filterable table.
//
// columns: [{key, label, value: row => sortable value, cell?: row => Node|string,
//            num?: bool, sortable?: bool}]. state: {sort: key, dir: 'asc'|'desc', filter: text}
// is owned by the caller (kept in the URL); onState(patch) is called when the
// user clicks a header. Rows whose cells' text does not contain the filter
// (case-insensitive) are hidden. rowClass(row) may mark rows (e.g. 'bad').
//
// server: {footer}: the rows are one page the collector already filtered and
// sorted; the table shows them as given, only the columns marked sortable
// take a click, and the footer is the caller's text.
import { h } from './dom.js';
import { NONE } from './format.js';

function cmp(a, b) {
  const an = a === null || a === undefined, bn = b === null || b === undefined;
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;  // absent values last
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

export function table({ columns, rows, state, onState, rowClass, testid, server }) {
  const col = columns.find((c) => c.key === state.sort);
  let shown = rows;
  const f = (state.filter || '').toLowerCase();
  const text = (c, r) => {
    const v = c.text ? c.text(r) : c.value(r);
    return v === null || v === undefined ? NONE : String(v);
  };
  if (f && !server) shown = shown.filter((r) => columns.some((c) => text(c, r).toLowerCase().includes(f)));
  if (col && !server) {
    shown = [...shown].sort((a, b) => cmp(col.value(a), col.value(b)));
    if (state.dir === 'desc') shown.reverse();
  }
  const head = h('tr', {}, columns.map((c) => {
    const active = c.key === state.sort;
    const sortable = !server || c.sortable;
    return h('th', {
      class: `${c.num ? 'num' : ''} ${sortable ? 'sortable' : ''} ${active ? 'sorted' : ''}`,
      title: sortable ? 'sort' : null,
      'data-key': c.key,
      onclick: sortable ? () => onState({ sort: c.key, dir: active && state.dir === 'asc' ? 'desc' : 'asc' }) : null,
    }, c.label, active ? (state.dir === 'desc' ? ' \u25be' : ' \u25b4') : '');
  }));
  const body = shown.map((r) => h('tr', { class: rowClass ? rowClass(r) : null },
    columns.map((c) => h('td', { class: c.num ? 'num' : null }, c.cell ? c.cell(r) : text(c, r)))));
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'data', 'data-testid': testid }, h('thead', {}, head), h('tbody', {}, body)),
    h('div', { class: 'muted small' }, server ? server.footer : `${shown.length} of ${rows.length} rows`));
}
