-- The error counters of each fabric port's newest sample that rose over the
-- sample before it, computed once when the sample is written, so that the
-- diagnosis reads the few ports that rose instead of comparing the two
-- newest samples of every port on every pass (at 2,000 nodes x 8 rails:
-- 16,000 host cables' switch ports, plus every swept port).
--
-- A row is there only while the port's newest sample rose: the writer
-- (collector/store/report_fabric.cpp) upserts it when a new sample rose over
-- the one before and deletes it when a new sample did not; retention deletes
-- it with the samples of its age. The rule is SampleErrorRises
-- (collector/rules/link_rules.h): error counters, integers on both sides,
-- delta > 0.
--
-- at: the newest sample's time (ms); rises: JSON object {"name": delta}.
CREATE TABLE fabric_port_rises (
  guid            TEXT NOT NULL,
  port            INTEGER NOT NULL,
  at              INTEGER NOT NULL,
  rises           TEXT NOT NULL,
  PRIMARY KEY (guid, port)
);
CREATE INDEX fabric_port_rises_at ON fabric_port_rises(at);

-- A database from before this migration: the rises of every port's newest
-- sample, from its two newest samples. The error counters are the names of
-- the collector's threshold table and the names with an error word in them
-- (IsErrorCounter, collector/rules/error_counters.cpp; LIKE ignores ASCII
-- case, as that rule does); the samples hold the
-- threshold table's counters only. A value beyond 64 bits is left out here
-- (it is stored as a real); the port's next changed sample sets it right.
INSERT INTO fabric_port_rises(guid, port, at, rises)
SELECT pair.guid, pair.port, pair.at, json_group_object(a.key, a.value - b.value)
FROM (
  SELECT s.guid, s.port, s.at, s.counters AS newest,
         (SELECT p.counters FROM fabric_port_samples p WHERE p.guid = s.guid AND p.port = s.port AND p.at < s.at
          AND json_valid(p.counters) ORDER BY p.at DESC LIMIT 1) AS before
  FROM (SELECT guid, port, MAX(at) AS at FROM fabric_port_samples GROUP BY guid, port) n
  JOIN fabric_port_samples s ON s.guid = n.guid AND s.port = n.port AND s.at = n.at
  WHERE json_valid(s.counters)
) pair, json_each(pair.newest) a, json_each(pair.before) b
WHERE b.key = a.key AND a.type = 'integer' AND b.type = 'integer' AND a.value > b.value
  AND (a.key IN ('symbol_error', 'link_error_recovery', 'link_downed', 'port_rcv_errors',
                 'port_rcv_remote_physical_errors', 'port_rcv_switch_relay_errors', 'port_xmit_discards',
                 'port_xmit_constraint_errors', 'port_rcv_constraint_errors', 'local_link_integrity_errors',
                 'excessive_buffer_overrun_errors', 'VL15_dropped', 'port_xmit_wait')
       OR a.key LIKE '%err%' OR a.key LIKE '%retr%' OR a.key LIKE '%timeout%'
       OR a.key LIKE '%drop%' OR a.key LIKE '%discard%' OR a.key LIKE '%seq%'
       OR a.key LIKE '%nak%' OR a.key LIKE '%rnr%' OR a.key LIKE '%dup%'
       OR a.key LIKE '%out\_of%' ESCAPE '\' OR a.key LIKE '%resend%'
       OR a.key LIKE '%downed%' OR a.key LIKE '%symbol%')
GROUP BY pair.guid, pair.port, pair.at;

INSERT INTO schema_version(version) VALUES (14);
