-- The rollups keyed by source, then period, then pair.
--
-- Keyed (src, dst, transport, period), a closed minute's rows went to a
-- separate place per pair: rolling one minute of 2,000 sources x 40 pairs
-- dirtied about as many pages as it wrote rows, in probe_minute and again
-- in probe_hourly, more as the tables grow. Keyed (src, period, dst,
-- transport), one source's rows of one period sit together. A source's
-- rollups over a time range are one range of the key; the same columns
-- stay unique, so the upserts (ON CONFLICT) are unchanged.
CREATE TABLE probe_minute_by_time (
  src             TEXT NOT NULL,
  dst             TEXT NOT NULL,
  transport       TEXT NOT NULL,
  minute          INTEGER NOT NULL,  -- start of the minute, ms
  intervals       INTEGER NOT NULL,
  sent            INTEGER NOT NULL,
  received        INTEGER NOT NULL,
  lost            INTEGER NOT NULL,
  error_count     INTEGER NOT NULL,
  rtt_p50_sum     REAL NOT NULL,     -- sum over intervals with a p50; mean = sum / rtt_p50_n
  rtt_p50_n       INTEGER NOT NULL,
  rtt_p99_max     REAL,
  rtt_max         REAL,
  PRIMARY KEY (src, minute, dst, transport)
) WITHOUT ROWID;
INSERT INTO probe_minute_by_time SELECT src, dst, transport, minute, intervals, sent, received, lost, error_count,
  rtt_p50_sum, rtt_p50_n, rtt_p99_max, rtt_max FROM probe_minute ORDER BY src, minute, dst, transport;
DROP TABLE probe_minute;
ALTER TABLE probe_minute_by_time RENAME TO probe_minute;
CREATE INDEX probe_minute_minute ON probe_minute(minute);

CREATE TABLE probe_hourly_by_time (
  src             TEXT NOT NULL,
  dst             TEXT NOT NULL,
  transport       TEXT NOT NULL,
  hour            INTEGER NOT NULL,  -- start of the hour, ms
  intervals       INTEGER NOT NULL,
  sent            INTEGER NOT NULL,
  received        INTEGER NOT NULL,
  lost            INTEGER NOT NULL,
  error_count     INTEGER NOT NULL,
  rtt_p50_sum     REAL NOT NULL,
  rtt_p50_n       INTEGER NOT NULL,
  rtt_p99_max     REAL,
  rtt_max         REAL,
  PRIMARY KEY (src, hour, dst, transport)
) WITHOUT ROWID;
INSERT INTO probe_hourly_by_time SELECT src, dst, transport, hour, intervals, sent, received, lost, error_count,
  rtt_p50_sum, rtt_p50_n, rtt_p99_max, rtt_max FROM probe_hourly ORDER BY src, hour, dst, transport;
DROP TABLE probe_hourly;
ALTER TABLE probe_hourly_by_time RENAME TO probe_hourly;
CREATE INDEX probe_hourly_hour ON probe_hourly(hour);

INSERT INTO schema_version(version) VALUES (9);
