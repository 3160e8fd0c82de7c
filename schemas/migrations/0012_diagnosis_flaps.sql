-- A flapping element is one diagnosis with a flap count (issue 43).
--
-- flaps: how many times the fault came back after a gap: while the diagnosis
-- was open, or after it closed, within the reopen window (then the same row
-- is reopened: closed_at back to NULL). Rows before this migration: 0.
ALTER TABLE diagnoses ADD COLUMN flaps INTEGER NOT NULL DEFAULT 0;

-- The newest closed diagnosis of a key, to reopen it when the fault returns.
CREATE INDEX diagnoses_key_closed ON diagnoses(key, closed_at) WHERE closed_at IS NOT NULL;

INSERT INTO schema_version(version) VALUES (12);
