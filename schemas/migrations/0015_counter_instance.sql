-- Each counter reading names the device instance it was read under (the
-- report's inventory.devices[].instance, NULL when unknown): a counter under
-- a new instance was reset (the device was re-created: driver reload, delete
-- and add), not wrapped, whatever its value did (common/counter_rules.h).
-- counters_latest.instance is what the writer compares the next reading
-- with; counter_port_samples.instance is what the history's rates compare.
-- Rows stored before this migration keep NULL: unknown, the boot id and the
-- value rules decide for them.
ALTER TABLE counters_latest ADD COLUMN instance TEXT;
ALTER TABLE counter_port_samples ADD COLUMN instance TEXT;

INSERT INTO schema_version(version) VALUES (15);
