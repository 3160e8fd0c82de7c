-- Collector database, version 1.
--
-- Contract: times are milliseconds since the Unix epoch (INTEGER, UTC).
-- Absent values from a report are NULL, never 0. Every migration file ends by
-- inserting its own number into schema_version; the collector applies the files
-- in order, each in one transaction, at open.

CREATE TABLE schema_version (
  version    INTEGER PRIMARY KEY,
  applied_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS INTEGER) * 1000)
);

-- One row per stored report; the primary key is the dedupe key.
CREATE TABLE reports (
  id              TEXT PRIMARY KEY,
  node            TEXT NOT NULL,
  received_at     INTEGER NOT NULL,
  generated_at    INTEGER NOT NULL,
  agent_version   TEXT,
  interval_s      REAL
) WITHOUT ROWID;
CREATE INDEX reports_received ON reports(received_at);

CREATE TABLE nodes (
  name            TEXT PRIMARY KEY,
  labels          TEXT NOT NULL DEFAULT '{}',  -- JSON object of strings
  agent_version   TEXT,
  first_seen_at   INTEGER NOT NULL,
  last_report_at  INTEGER NOT NULL,            -- received_at of the newest report
  last_generated_at INTEGER NOT NULL,
  last_report_id  TEXT NOT NULL,
  interval_s      REAL
) WITHOUT ROWID;

-- Latest inventory per node/device/port (replaced by every report that lists the port).
CREATE TABLE ports (
  node            TEXT NOT NULL,
  device          TEXT NOT NULL,
  port            INTEGER NOT NULL,
  state           INTEGER,
  state_name      TEXT,
  phys_state      INTEGER,
  phys_state_name TEXT,
  lid             INTEGER,
  sm_lid          INTEGER,
  link_layer      TEXT,
  active_mtu      INTEGER,
  rate_gbps       REAL,
  rate_text       TEXT,
  gids            TEXT NOT NULL DEFAULT '[]',  -- JSON array as the report carries it
  fw              TEXT,
  node_guid       TEXT,
  updated_at      INTEGER NOT NULL,
  PRIMARY KEY (node, device, port)
) WITHOUT ROWID;

-- Counter history; kind is 'counters' or 'hw_counters'. value NULL: present, no number.
CREATE TABLE counter_samples (
  id              INTEGER PRIMARY KEY,
  report_id       TEXT NOT NULL,
  node            TEXT NOT NULL,
  device          TEXT NOT NULL,
  port            INTEGER NOT NULL,
  kind            TEXT NOT NULL,
  name            TEXT NOT NULL,
  value           INTEGER,
  sampled_at      INTEGER NOT NULL
);
CREATE INDEX counter_samples_node_time ON counter_samples(node, sampled_at);
CREATE INDEX counter_samples_time ON counter_samples(sampled_at);

-- The newest value of every counter (for /metrics and threshold deltas).
CREATE TABLE counters_latest (
  node            TEXT NOT NULL,
  device          TEXT NOT NULL,
  port            INTEGER NOT NULL,
  kind            TEXT NOT NULL,
  name            TEXT NOT NULL,
  value           INTEGER,
  sampled_at      INTEGER NOT NULL,
  PRIMARY KEY (node, device, port, kind, name)
) WITHOUT ROWID;

-- One row per probe summary (per target, transport and interval). Latencies in microseconds.
CREATE TABLE probe_summaries (
  id              INTEGER PRIMARY KEY,
  report_id       TEXT NOT NULL,
  src             TEXT NOT NULL,
  dst             TEXT NOT NULL,
  transport       TEXT NOT NULL,
  local_device    TEXT,
  local_port      INTEGER,
  remote_host     TEXT,
  interval_start  INTEGER NOT NULL,
  interval_end    INTEGER NOT NULL,
  sent            INTEGER NOT NULL,
  received        INTEGER NOT NULL,
  lost            INTEGER NOT NULL,
  loss_ratio      REAL,
  rtt_count       INTEGER,
  rtt_min         REAL,
  rtt_avg         REAL,
  rtt_p50         REAL,
  rtt_p90         REAL,
  rtt_p99         REAL,
  rtt_p999        REAL,
  rtt_max         REAL,
  network_p50     REAL,
  network_p99     REAL,
  responder_p50   REAL,
  responder_p99   REAL,
  read_p50        REAL,
  read_p99        REAL,
  error_count     INTEGER NOT NULL DEFAULT 0,
  errors_by_status TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX probe_summaries_pair_time ON probe_summaries(src, dst, interval_end);
CREATE INDEX probe_summaries_time ON probe_summaries(interval_end);

-- Hourly rollup per pair and transport, kept longer than the raw summaries.
CREATE TABLE probe_hourly (
  src             TEXT NOT NULL,
  dst             TEXT NOT NULL,
  transport       TEXT NOT NULL,
  hour            INTEGER NOT NULL,  -- start of the hour, ms
  intervals       INTEGER NOT NULL,
  sent            INTEGER NOT NULL,
  received        INTEGER NOT NULL,
  lost            INTEGER NOT NULL,
  error_count     INTEGER NOT NULL,
  rtt_p50_sum     REAL NOT NULL,     -- sum over intervals with a p50; mean = sum / rtt_p50_n
  rtt_p50_n       INTEGER NOT NULL,
  rtt_p99_max     REAL,
  rtt_max         REAL,
  PRIMARY KEY (src, dst, transport, hour)
) WITHOUT ROWID;
CREATE INDEX probe_hourly_hour ON probe_hourly(hour);

-- Failed work completions as the agents recorded them.
CREATE TABLE wc_errors (
  id              INTEGER PRIMARY KEY,
  report_id       TEXT NOT NULL,
  src             TEXT NOT NULL,
  dst             TEXT NOT NULL,
  transport       TEXT NOT NULL,
  status          INTEGER NOT NULL,
  status_name     TEXT NOT NULL,
  vendor_err      INTEGER,
  opcode          TEXT,
  wall_ms         REAL,
  after_ms        REAL,
  explanation     TEXT,
  received_at     INTEGER NOT NULL
);
CREATE INDEX wc_errors_time ON wc_errors(received_at);

-- Running totals of errors by node and status (never pruned; backs a Prometheus counter).
CREATE TABLE wc_error_totals (
  node            TEXT NOT NULL,
  status          TEXT NOT NULL,
  count           INTEGER NOT NULL,
  PRIMARY KEY (node, status)
) WITHOUT ROWID;

-- Faults with a start and, once cleared, an end. `key` identifies the fault
-- (kind plus its subject); at most one open event per key.
CREATE TABLE events (
  id              INTEGER PRIMARY KEY,
  kind            TEXT NOT NULL CHECK (kind IN ('wc_error', 'port_state', 'counter_threshold')),
  key             TEXT NOT NULL,
  node            TEXT NOT NULL,
  peer            TEXT,
  transport       TEXT,
  device          TEXT,
  port            INTEGER,
  status          TEXT NOT NULL,
  detail          TEXT NOT NULL DEFAULT '',
  count           INTEGER NOT NULL DEFAULT 1,
  started_at      INTEGER NOT NULL,
  last_seen_at    INTEGER NOT NULL,
  ended_at        INTEGER
);
CREATE UNIQUE INDEX events_one_open ON events(key) WHERE ended_at IS NULL;
CREATE INDEX events_node ON events(node, started_at);
CREATE INDEX events_ended ON events(ended_at);

INSERT INTO schema_version(version) VALUES (1);
