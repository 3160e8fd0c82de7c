-- InfiniBand routes: the newest forwarding table of every switch, and a
-- number that changes with whatever a traced route could see.

-- A switch's LinearForwardingTable as the newest sweep that changed it
-- stored it: one byte per destination LID from LID 0 (the egress port; 255
-- no route). Rewritten only when a sweep brings a different table.
CREATE TABLE fabric_lfts (
  guid            TEXT PRIMARY KEY,       -- the switch, as in fabric_nodes
  lft             BLOB NOT NULL,
  swept_at        INTEGER NOT NULL,       -- the sweep that stored this table
  seen_by         TEXT NOT NULL           -- the agent node whose sweep it was
);

-- One row: bumped in the transaction of every sweep (or retention step) that
-- changed a node's type or LID, a port's LID, state or remote end, a link's
-- presence or a forwarding table, so that routes traced from one version hold
-- until it changes.
CREATE TABLE fabric_topology_version (
  id              INTEGER PRIMARY KEY CHECK (id = 1),
  version         INTEGER NOT NULL
);
INSERT INTO fabric_topology_version(id, version) VALUES (1, 1);

INSERT INTO schema_version(version) VALUES (10);
