-- Counter history stored compactly: one row per port per report instead of
-- one row per counter. An 8-port node reporting 8 counters a port wrote 64
-- rows (and 128 index entries) a report; it now writes 8.
--
-- counters: a JSON object {kind: {name: value}}, kind 'counters' or
-- 'hw_counters' as the report carries them, value an integer or null
-- (present, no number). The API and the diagnoses expand it with json_each
-- into the rows counter_samples held, in the same order.
CREATE TABLE counter_port_samples (
  id              INTEGER PRIMARY KEY,
  report_id       TEXT NOT NULL,
  node            TEXT NOT NULL,
  device          TEXT NOT NULL,
  port            INTEGER NOT NULL,
  sampled_at      INTEGER NOT NULL,
  counters        TEXT NOT NULL
);

INSERT INTO counter_port_samples(report_id, node, device, port, sampled_at, counters)
  SELECT report_id, node, device, port, sampled_at, json_group_object(kind, json(names))
  FROM (SELECT report_id, node, device, port, sampled_at, kind, json_group_object(name, value) AS names,
               MIN(id) AS first
        FROM (SELECT * FROM counter_samples ORDER BY id)
        GROUP BY report_id, node, device, port, sampled_at, kind
        ORDER BY first)
  GROUP BY report_id, node, device, port, sampled_at
  ORDER BY MIN(first);

DROP TABLE counter_samples;

CREATE INDEX counter_port_samples_node_time ON counter_port_samples(node, sampled_at);
CREATE INDEX counter_port_samples_time ON counter_port_samples(sampled_at);

INSERT INTO schema_version(version) VALUES (7);
