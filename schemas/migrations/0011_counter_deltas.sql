-- Each counter's newest delta, kept where its newest value is.
--
-- The writer already turns a counter's reading and the one before it into a
-- delta with the counter rules (common/counter_rules.h: width, wrap, reset,
-- boot id); it now keeps that delta with the reading, so that "which counters
-- rose in the last intervals" is an indexed read of the few rows that rose
-- rather than a walk over the history's JSON.
--
-- delta: the rules' delta of this reading over the one before (a wrap gives
-- the modular difference, a reset or a new boot id the value itself); NULL when
-- there was no previous reading, or either value was absent. delta_from: the
-- sampled_at of that previous reading (NULL with delta). Rows stored before this
-- migration keep NULL until their counter is next reported.
ALTER TABLE counters_latest ADD COLUMN delta INTEGER;
ALTER TABLE counters_latest ADD COLUMN delta_from INTEGER;

-- Only the counters that rose, by the time of their newest reading: the
-- diagnosis reads "delta > 0 AND sampled_at >= T AND delta_from >= F" from it
-- alone (it covers the query: the key columns are in every index of a table
-- without rowid).
CREATE INDEX counters_latest_rose ON counters_latest(sampled_at, delta_from, delta) WHERE delta > 0;

INSERT INTO schema_version(version) VALUES (11);
