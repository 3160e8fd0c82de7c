-- Rails and counter resets (issue 7).
-- Every report names the boot it comes from (/proc/sys/kernel/random/boot_id):
-- a counter that steps back after a new boot id was reset, not wrapped.
ALTER TABLE reports ADD COLUMN boot_id TEXT;
ALTER TABLE counters_latest ADD COLUMN boot_id TEXT;
-- A probe summary names its rail and both ends; not_run says why a rail did
-- not probe (e.g. "local port DOWN"): such a row measured nothing, it is no loss.
ALTER TABLE probe_summaries ADD COLUMN rail TEXT;
ALTER TABLE probe_summaries ADD COLUMN remote_device TEXT;
ALTER TABLE probe_summaries ADD COLUMN remote_port INTEGER;
ALTER TABLE probe_summaries ADD COLUMN not_run TEXT;
-- The order reports arrived in (1, 2, ...): with generated_at it shows that a
-- node's backlog was replayed in generation order.
ALTER TABLE reports ADD COLUMN received_seq INTEGER;
CREATE INDEX reports_received_seq ON reports(received_seq);

INSERT INTO schema_version(version) VALUES (3);
