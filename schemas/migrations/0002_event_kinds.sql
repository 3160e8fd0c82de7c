-- Event kinds are validated by the collector (collector/event_kinds.h), not
-- by a CHECK list, so a feature that adds a kind does not have to rebuild
-- this table again. Rebuilds `events` with the same columns and indexes.
CREATE TABLE events_new (
  id              INTEGER PRIMARY KEY,
  kind            TEXT NOT NULL CHECK (kind <> ''),
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
INSERT INTO events_new SELECT id, kind, key, node, peer, transport, device, port, status, detail, count,
                              started_at, last_seen_at, ended_at FROM events;
DROP TABLE events;
ALTER TABLE events_new RENAME TO events;
CREATE UNIQUE INDEX events_one_open ON events(key) WHERE ended_at IS NULL;
CREATE INDEX events_node ON events(node, started_at);
CREATE INDEX events_ended ON events(ended_at);

INSERT INTO schema_version(version) VALUES (2);
