-- Rollups built once per closed period instead of per summary at ingest.
--
-- probe_minute: one row per pair, transport and minute, the same measures as
-- probe_hourly. The store builds both from the raw probe_summaries when a
-- period closes (Store::RollupStep), so raw summaries can be kept only hours.
--
-- rollup_marks: how far the rollups reach. Every raw summary whose
-- interval_end is below 'probe_minute' is counted in probe_minute, and every
-- whole minute below it in probe_hourly. A summary that arrives below the mark
-- (a late or replayed report) is added to the rollups as it is stored.
CREATE TABLE probe_minute (
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
  PRIMARY KEY (src, dst, transport, minute)
) WITHOUT ROWID;
CREATE INDEX probe_minute_minute ON probe_minute(minute);

CREATE TABLE rollup_marks (
  name            TEXT PRIMARY KEY,
  through_ms      INTEGER NOT NULL
) WITHOUT ROWID;

-- A database from before this version already holds hourly rollups, written per
-- summary, up to and including the newest hour it saw: that hour counts as
-- rolled, so what arrives in it later is added as it is stored.
INSERT INTO rollup_marks(name, through_ms)
  SELECT 'probe_minute', MAX(hour) + 3600000 FROM probe_hourly HAVING COUNT(*) > 0;

INSERT INTO schema_version(version) VALUES (6);
