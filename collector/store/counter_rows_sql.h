// SQL pieces that read the counter history (0007_counter_port_samples.sql)
// as one row per counter, the shape the API and the diagnoses work with.
#pragma once

// FROM clause: s is a port sample, k one kind of its counters object, c one
// counter of that kind. Ordering by s.sampled_at, s.id, k.id, c.id gives the
// counters in the order each report carried them.
#define COUNTER_ROWS_FROM "counter_port_samples s, json_each(s.counters) k, json_each(k.value) c"
// The counter's place and value: node, device, port, kind, name, value.
#define COUNTER_ROW_COLUMNS "s.node, s.device, s.port, k.key AS kind, c.key AS name, c.value AS value"

// The same on PostgreSQL: json_each keeps the document's order, WITH
// ORDINALITY numbers it (k.id, c.id), and a counter's JSON value is read as
// an integer (NULL for null).
#define COUNTER_ROWS_FROM_PG                                                                        \
  "counter_port_samples s CROSS JOIN LATERAL json_each(s.counters::json) WITH ORDINALITY AS k(key, value, id) " \
  "CROSS JOIN LATERAL json_each(k.value) WITH ORDINALITY AS c(key, value, id)"
#define COUNTER_ROW_COLUMNS_PG \
  "s.node, s.device, s.port, k.key AS kind, c.key AS name, (c.value #>> '{}')::bigint AS value"
