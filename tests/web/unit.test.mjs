// Unit tests of the dashboard's pure modules (no browser): URL state, value
// formatting, colour scales, staleness and counter rates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, format } from '../../web/js/route.js';
import * as fmt from '../../web/js/format.js';
import { p99Scale, lossScale, GREY } from '../../web/js/scale.js';
import { isStale, pairBad, errorText, evidenceText } from '../../web/js/model.js';
import { rates } from '../../web/js/views/counters.js';

test('route: hash <-> view and params round-trip, defaults to overview', () => {
  assert.deepEqual(parse('#/matrix?metric=loss&transport=rc'), { view: 'matrix', params: { metric: 'loss', transport: 'rc' } });
  assert.deepEqual(parse(''), { view: 'overview', params: {} });
  assert.deepEqual(parse('#/'), { view: 'overview', params: {} });
  const hash = format('pair', { src: 'node-a', dst: 'node c', range: '1h', empty: '', gone: undefined });
  assert.equal(hash, '#/pair?src=node-a&dst=node+c&range=1h');
  assert.deepEqual(parse(hash), { view: 'pair', params: { src: 'node-a', dst: 'node c', range: '1h' } });
});

test('format: absent is a dash never 0; units scale', () => {
  assert.equal(fmt.us(null), '\u2014');
  assert.equal(fmt.us(undefined), '\u2014');
  assert.equal(fmt.us(31.24), '31.2 \u00b5s');
  assert.equal(fmt.us(247), '247 \u00b5s');
  assert.equal(fmt.us(4800), '4.80 ms');
  assert.equal(fmt.pct(null), '\u2014');
  assert.equal(fmt.pct(0), '0 %');
  assert.equal(fmt.pct(0.3), '30 %');
  assert.equal(fmt.pct(0.01), '1.0 %');
  assert.equal(fmt.age(75), '1 min 15 s');
  assert.equal(fmt.parseDuration('15m'), 900000);
  assert.equal(fmt.parseDuration('1h'), 3600000);
  assert.equal(fmt.parseDuration('bogus'), undefined);
  assert.equal(fmt.rate(30), '30 /s');
  assert.equal(fmt.rate(2.5e6), '2.50 M/s');
});

test('p99 scale: judged against the median, bad from 5x, absent grey', () => {
  const s = p99Scale([100, 110, 120, 130, 4800]);
  assert.equal(s.median, 120);
  assert.deepEqual(s.colour(120), [46, 160, 67]);    // at the median: green
  assert.deepEqual(s.colour(1200), [208, 40, 40]);   // 10x: red
  assert.deepEqual(s.colour(null), GREY);
  assert.equal(s.isBad(4800), true);
  assert.equal(s.isBad(500), false);
  const [r, g] = s.colour(360);                      // 3x: amber
  assert.ok(r > 200 && g > 150, `3x is amber, got ${r},${g}`);
});

test('loss scale: 0 green, 1 % amber, >= 10 % red, bad from 5 %', () => {
  const s = lossScale();
  assert.deepEqual(s.colour(0), [46, 160, 67]);
  assert.deepEqual(s.colour(0.1), [208, 40, 40]);
  assert.deepEqual(s.colour(0.3), [208, 40, 40]);
  assert.deepEqual(s.colour(0.01), [230, 190, 40]);
  assert.equal(s.isBad(0.05), true);
  assert.equal(s.isBad(0.01), false);
  assert.deepEqual(s.colour(null), GREY);
});

test('model: stale after the collector says so or three missed intervals; bad pairs', () => {
  assert.equal(isStale({ stale: true, age_s: 1, interval_s: 10 }), true);
  assert.equal(isStale({ stale: false, age_s: 29, interval_s: 10 }), false);
  assert.equal(isStale({ stale: false, age_s: 31, interval_s: 10 }), true);
  assert.equal(isStale({ stale: false, age_s: 31, interval_s: null }), false);
  assert.equal(pairBad({ error_count: 1, loss_ratio: 0 }), true);
  assert.equal(pairBad({ error_count: 0, loss_ratio: 0.05 }), true);
  assert.equal(pairBad({ error_count: 0, loss_ratio: null }), false);
  assert.equal(errorText({ RETRY_EXC_ERR: 3, WR_FLUSH_ERR: 0 }), 'RETRY_EXC_ERR: 3');
});

test('counter rates: the API\'s rates and units, by port and counter, no rate no point', () => {
  const s = (name, rate, t, rate_unit = '/s') => ({ device: 'rxe0', port: 1, kind: 'hw_counters', name, value: 1, sampled_at_ms: t, rate, rate_unit });
  const out = rates([
    s('rcvd_pkts', null, 0), s('rcvd_pkts', 30, 10000), s('rcvd_pkts', 5, 20000),
    s('port_rcv_data', null, 0, 'bytes/s'), s('port_rcv_data', 400, 10000, 'bytes/s'),
    { ...s('rcvd_pkts', 7, 10000), port: 2 },
  ]);
  const port = out.get('rxe0/1');
  assert.deepEqual(port.get('rcvd_pkts'), { unit: '/s', points: [[0, null], [10000, 30], [20000, 5]] });
  assert.deepEqual(port.get('port_rcv_data'), { unit: 'bytes/s', points: [[0, null], [10000, 400]] });
  assert.deepEqual(out.get('rxe0/2').get('rcvd_pkts'), { unit: '/s', points: [[10000, 7]] });
});

test('evidenceText: the vote, counters, switch ports and port states in words', () => {
  assert.equal(evidenceText({ what: 'paths', bad: 10, as_src: '5/5', as_dst: '5/5', peer_groups: ['a', 'b'],
    median_loss_ratio: 0.3, wc_status: { RETRY_EXC_ERR: 3 } }),
  '10 bad path(s), as source 5/5, as destination 5/5, peers in group(s) a, b, RETRY_EXC_ERR: 3, median loss 30.0 %');
  assert.equal(evidenceText({ what: 'paths', bad: 4, across: '4/4' }), '4 bad path(s), across the link 4/4');
  assert.equal(evidenceText({ what: 'counter', node: 'n1', device: 'rxe0', port: 1, counter: 'rcvd_seq_err', delta: 7 }),
    'counter n1 rxe0/1 rcvd_seq_err +7');
  assert.equal(evidenceText({ what: 'switch_port', switch: 'leaf-1', port: 7, cabled_to: 'n1/mlx5_0/1', counter: 'symbol_error', delta: 9 }),
    'switch leaf-1 port 7 (cabled to n1/mlx5_0/1) symbol_error +9');
  assert.equal(evidenceText({ what: 'port_state', node: 'n9', device: 'rxe0', port: 1, state: 'DOWN' }), 'port n9 rxe0/1 is DOWN');
  assert.equal(evidenceText({ what: 'flapping', flaps: 2 }), 'flapping: came back 2 time(s) after a clean interval');
  assert.equal(evidenceText({ what: 'escalated', from_kind: 'link_errors', from_severity: 'warning', at_ms: 1700000000000 }),
    'escalated from warning link_errors at 2023-11-14T22:13:20.000Z');
});
