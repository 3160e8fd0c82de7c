// Dashboard shell: picks the view from the URL hash, refreshes it on a timer.
//
// Contract with views (js/views/*.js): each exports mount(root, ctx) returning
// {refresh(): Promise, unmount?()}. mount builds the view's controls once;
// refresh() re-fetches data and redraws only the data parts, so a refresh keeps
// the user's scroll position, filters, sort and hover. ctx.params is the view's
// URL state; ctx.set(patch) merges a patch into it and rewrites the URL without
// remounting (the view redraws itself). Navigating to another hash remounts.
//
// Auto-refresh period comes from ?refresh=N on any view (0 = off; default 10 s)
// and is kept in localStorage. After each refresh <body data-refreshed> counts
// the completed refreshes and <main data-ready> is set (tests wait on it).
import * as route from './route.js';
import * as wc from './wc.js';
import { fill, h } from './dom.js';
import { clock } from './format.js';

const VIEWS = {
  overview: () => import('./views/overview.js'),
  nodes: () => import('./views/nodes.js'),
  matrix: () => import('./views/matrix.js'),
  pair: () => import('./views/pair.js'),
  events: () => import('./views/events.js'),
  counters: () => import('./views/counters.js'),
  fabric: () => import('./views/fabric.js'),
};

const root = document.getElementById('view');
const status = document.getElementById('status');
const refreshSelect = document.getElementById('refresh');
let current = null;   // {name, view, ctx}
let timer = null;
let inflight = null;  // {view, promise}: the running refresh; callers for the same view share it
let refreshes = 0;
let mountSeq = 0;

function period() {
  const v = Number(localStorage.getItem('rdmascope.refresh') ?? 10);
  return Number.isFinite(v) && v >= 0 ? v : 10;
}

function schedule() {
  clearTimeout(timer);
  const p = period();
  if (p > 0) timer = setTimeout(tick, p * 1000);
}

async function tick() {
  await refresh();
  schedule();
}

function refresh() {
  if (inflight && inflight.view === current) return inflight.promise;
  const mine = { view: current };
  mine.promise = doRefresh().finally(() => { if (inflight === mine) inflight = null; });
  inflight = mine;
  return mine.promise;
}

async function doRefresh() {
  if (!current || !current.view.refresh) return;
  const mine = current;
  try {
    await mine.view.refresh();
    if (mine !== current) return;
    status.textContent = `updated ${clock(Date.now())} UTC`;
    status.classList.remove('error');
  } catch (e) {
    status.textContent = `refresh failed: ${e.message}`;
    status.classList.add('error');
  } finally {
    refreshes += 1;
    document.body.dataset.refreshed = String(refreshes);
    if (mine === current) root.dataset.ready = '1';
  }
}

async function show() {
  const { view, params } = route.parse();
  if (params.refresh !== undefined) localStorage.setItem('rdmascope.refresh', params.refresh);
  refreshSelect.value = String(period());
  const seq = ++mountSeq;
  if (current && current.view.unmount) current.view.unmount();
  current = null;
  delete root.dataset.ready;
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('active', a.dataset.view === view);
  const load = VIEWS[view];
  if (!load) {
    fill(root, h('h1', {}, 'Not found'), h('p', {}, `No view "${view}". `, h('a', { href: '#/overview' }, 'Overview')));
    root.dataset.ready = '1';
    return;
  }
  const [mod] = await Promise.all([load(), wc.load()]);
  if (seq !== mountSeq) return;  // the user navigated on meanwhile
  const ctx = {
    name: view,
    params: { ...params },
    set(patch) {
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined || v === null || v === '') delete ctx.params[k];
        else ctx.params[k] = String(v);
      }
      route.replace(view, ctx.params);
    },
    go: route.go,
  };
  fill(root);
  window.scrollTo(0, 0);
  current = { name: view, ctx, view: mod.mount(root, ctx) };
  await refresh();
  schedule();
}

refreshSelect.addEventListener('change', () => {
  localStorage.setItem('rdmascope.refresh', refreshSelect.value);
  schedule();
});
window.addEventListener('hashchange', show);
// Test and operator hook: refresh now (same path as the timer).
window.rdmascopeRefresh = refresh;
wc.load();  // in parallel with the first view's module
show();
