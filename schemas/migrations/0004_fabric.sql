-- InfiniBand fabric: what subnet sweeps and agents' neighbour lookups saw.
-- GUIDs are text "0x" + 16 hex digits; times are ms since the epoch.

-- Every node a sweep or a neighbour lookup found.
CREATE TABLE fabric_nodes (
  guid            TEXT PRIMARY KEY,
  type            TEXT NOT NULL,
  description     TEXT NOT NULL,
  num_ports       INTEGER,
  lid             INTEGER,
  first_seen_at   INTEGER NOT NULL,
  last_seen_at    INTEGER NOT NULL,
  seen_by         TEXT NOT NULL           -- the agent node that last reported it
);

-- The latest state and counters of every port (counters: JSON object).
CREATE TABLE fabric_ports (
  guid            TEXT NOT NULL,
  port            INTEGER NOT NULL,
  lid             INTEGER,
  state           TEXT,
  phys_state      TEXT,
  width           TEXT,
  speed           TEXT,
  width_supported TEXT,
  speed_supported TEXT,
  remote_guid     TEXT,
  remote_port     INTEGER,
  counters        TEXT NOT NULL DEFAULT '{}',
  last_seen_at    INTEGER NOT NULL,
  PRIMARY KEY (guid, port)
);

-- Links, one row per cable with its ends ordered (a < b); gone_at set while
-- the link is missing from the newest sweep that saw either end.
CREATE TABLE fabric_links (
  a_guid          TEXT NOT NULL,
  a_port          INTEGER NOT NULL,
  b_guid          TEXT NOT NULL,
  b_port          INTEGER NOT NULL,
  first_seen_at   INTEGER NOT NULL,
  last_seen_at    INTEGER NOT NULL,
  gone_at         INTEGER,
  PRIMARY KEY (a_guid, a_port, b_guid, b_port)
);
CREATE INDEX fabric_links_b ON fabric_links(b_guid, b_port);

-- Error-counter history of a port: a row when any error counter changed.
CREATE TABLE fabric_port_samples (
  guid            TEXT NOT NULL,
  port            INTEGER NOT NULL,
  at              INTEGER NOT NULL,
  counters        TEXT NOT NULL,
  PRIMARY KEY (guid, port, at)
);
CREATE INDEX fabric_port_samples_at ON fabric_port_samples(at);

-- What each agent's IB port sees at the other end of its cable.
CREATE TABLE node_neighbours (
  node            TEXT NOT NULL,
  device          TEXT NOT NULL,
  port            INTEGER NOT NULL,
  switch_guid     TEXT NOT NULL,
  switch_port     INTEGER NOT NULL,
  switch_type     TEXT NOT NULL,
  switch_description TEXT NOT NULL,
  state           TEXT,
  width           TEXT,
  speed           TEXT,
  counters        TEXT NOT NULL DEFAULT '{}',
  at              INTEGER NOT NULL,
  PRIMARY KEY (node, device, port)
);
CREATE INDEX node_neighbours_switch ON node_neighbours(switch_guid);
CREATE INDEX fabric_ports_remote ON fabric_ports(remote_guid);

INSERT INTO schema_version(version) VALUES (4);
