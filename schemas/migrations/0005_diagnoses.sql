-- Diagnoses (issue 15): where a fault is and why, from the vote over paths.
-- One row per diagnosis; `key` is scope|subject|kind and at most one row per
-- key is open (closed_at NULL). evidence and paths are JSON arrays as the
-- analysis wrote them at its last sighting.
CREATE TABLE diagnoses (
  id              INTEGER PRIMARY KEY,
  key             TEXT NOT NULL,
  scope           TEXT NOT NULL,
  subject         TEXT NOT NULL,
  kind            TEXT NOT NULL,
  severity        TEXT NOT NULL,
  confidence      REAL NOT NULL,
  evidence        TEXT NOT NULL DEFAULT '[]',
  paths           TEXT NOT NULL DEFAULT '[]',
  since_at        INTEGER NOT NULL,   -- start of the first bad summary behind it
  opened_at       INTEGER NOT NULL,   -- the run that opened it
  last_seen_at    INTEGER NOT NULL,   -- the newest run that still found it
  closed_at       INTEGER,
  runs            INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX diagnoses_one_open ON diagnoses(key) WHERE closed_at IS NULL;
CREATE INDEX diagnoses_closed ON diagnoses(closed_at);

INSERT INTO schema_version(version) VALUES (5);
