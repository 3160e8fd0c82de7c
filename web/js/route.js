// Hash routing: "#/view?key=value&..." <-> {view, params}.
//
// Contract: the URL hash holds the whole view state, so a copied link opens the
// same view with the same filters, sort, metric and time range. replace()
// rewrites the hash without a history entry and without firing hashchange (the
// current view applies the change itself); go() navigates (fires hashchange).

export const DEFAULT_VIEW = 'overview';

export function parse(hash = location.hash) {
  const text = hash.replace(/^#\/?/, '');
  const q = text.indexOf('?');
  const view = (q < 0 ? text : text.slice(0, q)) || DEFAULT_VIEW;
  const params = {};
  if (q >= 0) for (const [k, v] of new URLSearchParams(text.slice(q + 1))) params[k] = v;
  return { view, params };
}

export function format(view, params = {}) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return `#/${view}${s ? '?' + s : ''}`;
}

export function replace(view, params) {
  history.replaceState(null, '', format(view, params));
}

export function go(view, params) {
  location.hash = format(view, params);
}
