-- Which counters count errors, kept with the counter, so that "which error
-- counters rose in the last intervals" reads only those rows.
--
-- Traffic counters (port_xmit_data and the like) rise on every port in every
-- report; the diagnosis cites only error counters (IsErrorCounter,
-- collector/rules/error_counters.h). The index of rises therefore holds only
-- the error counters that rose: at 2,000 nodes x 8 rails it is the few ports
-- with errors, not four rows for every port.
--
-- error: 1 for an error counter, 0 for any other; NULL on rows stored before
-- this migration until their counter is next reported.
ALTER TABLE counters_latest ADD COLUMN error INTEGER;

DROP INDEX IF EXISTS counters_latest_rose;
CREATE INDEX counters_latest_error_rose ON counters_latest(sampled_at, delta_from, delta, error)
  WHERE delta > 0 AND error = 1;

INSERT INTO schema_version(version) VALUES (13);
