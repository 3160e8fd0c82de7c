-- The raw summaries' per-source index in the order they arrive.
--
-- probe_summaries_pair_time (src, dst, interval_end) placed each report's
-- summaries in one run per target: at 20 targets, 20 scattered index pages
-- written (and checkpointed) per report, more as the table grows.
-- probe_summaries_src_time (src, interval_end, dst) keeps one source's
-- summaries in time order, so a report's land together at the end of its
-- source's run; a pair's history reads its source's range for the time
-- asked and keeps the target's entries from the index alone.
DROP INDEX probe_summaries_pair_time;
CREATE INDEX probe_summaries_src_time ON probe_summaries(src, interval_end, dst);

INSERT INTO schema_version(version) VALUES (8);
