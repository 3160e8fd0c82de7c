// Benchmark: the dashboard's latency matrix for a 1,000-node fabric.
//
// Loads a private collector with 1,000 Soft-RoCE-like nodes in 50 groups of 20
// (sampled pinglists: full mesh inside the group, 11 sampled targets
// across groups, i.e. 30 targets per node, RC and UD: 60,000 newest pair
// summaries), then opens #/matrix in headless chromium RUNS times and prints the
// time from navigation start to the heatmap being drawn (the canvas's
// data-rendered-ms), with the API fetch time, and the median against the
// budget (BUDGET_MS, default 2000). Figures are printed, not asserted: exit 0
// when every run drew the whole heatmap without page errors, 2 when a run did
// not or the setup failed.
//
//   node bench/web_matrix_bench.mjs            (needs tests/web/setup.sh and a built collector)
//   NODES=1000 RUNS=5 BUDGET_MS=2000 node bench/web_matrix_bench.mjs
import { startCollector } from '../tests/web/lib/collector.mjs';
import { launchBrowser, openPage, screenshot } from '../tests/web/lib/browser.mjs';
import { loadFabric } from './web_fabric.mjs';

const NODES = Number(process.env.NODES || 1000);
const RUNS = Number(process.env.RUNS || 5);
const BUDGET_MS = Number(process.env.BUDGET_MS || 2000);
const DEADLINE_MS = Number(process.env.DEADLINE_MS || 300000);  // whole benchmark

let collector;
let browser;

async function cleanup() {
  if (browser) await browser.close().catch(() => {});
  if (collector) await collector.stop();
  browser = collector = undefined;
}

async function main() {
  const deadline = setTimeout(async () => {
    console.error(`web_matrix_bench: over the ${DEADLINE_MS} ms deadline`);
    await cleanup();
    process.exit(2);
  }, DEADLINE_MS);
  collector = await startCollector(['--stale-after-s', '3600', '--max-body-bytes', String(16 << 20)]);
  try {
    const t0 = Date.now();
    const pairs = await loadFabric(collector, NODES);
    console.log(`web_matrix_bench: loaded ${NODES} nodes, ${pairs} pair summaries in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    browser = await launchBrowser();
    const times = [];
    for (let run = 0; run < RUNS; run++) {
      const page = await openPage(browser, { width: 1400, height: 1200 });
      await page.goto(`${collector.url}/#/matrix?metric=p99&refresh=0`);
      await page.waitForSelector('canvas[data-rendered-ms]', { timeout: 30000 });
      const m = await page.evaluate(() => {
        const c = document.querySelector('canvas[data-rendered-ms]');
        const api = performance.getEntriesByType('resource').filter((e) => /\/api\/v1\/(matrix|probes)(\?|$)/.test(e.name));
        return { rendered: Number(c.dataset.renderedMs), nodes: Number(c.dataset.nodes), pairs: Number(c.dataset.pairs),
          fetch: api.length ? api[0].duration : null,
          fetched: performance.getEntriesByName('matrix-fetched')[0]?.startTime ?? null, api: api.length ? new URL(api[0].name).pathname : 'no API request', bytes: api.length ? api[0].encodedBodySize : null };
      });
      if (m.nodes !== NODES) throw new Error(`heatmap shows ${m.nodes} nodes, expected ${NODES}`);
      if (page.problems.length) throw new Error(`page problems: ${page.problems.join('; ')}`);
      times.push(m.rendered);
      console.log(`web_matrix_bench: run ${run + 1}: heatmap of ${m.nodes} nodes, ${m.pairs} pairs drawn ${m.rendered.toFixed(0)} ms after navigation ` +
        `(${m.api} took ${m.fetch?.toFixed(0)} ms for ${(m.bytes / 1e6).toFixed(1)} MB, data in hand at ${m.fetched?.toFixed(0)} ms)`);
      if (run === 0) await screenshot(page, 'matrix-1000-nodes');
      await page.context().close();
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    const ok = median < BUDGET_MS;
    console.log(`web_matrix_bench: median ${median.toFixed(0)} ms, max ${times[times.length - 1].toFixed(0)} ms, budget ${BUDGET_MS} ms: ${ok ? 'within budget' : 'OVER BUDGET'}`);
  } finally {
    clearTimeout(deadline);
    await cleanup();
  }
}

main().catch((e) => {
  console.error(`web_matrix_bench: ${e.stack || e}`);
  process.exit(2);
});
