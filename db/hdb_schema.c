/*
 * The health database's schema, as forward migrations: entry i takes a file
 * from version i (PRAGMA user_version) to i + 1; a new file runs them all
 * (db_open.c runs them).  Never edit a step that shipped: add the next one.
 *
 * Times are integer milliseconds since the epoch, 0 for "never".  Statuses
 * are enum apenet_ldm_status (0 normal, 1 sick, 2 broken, 3 invalid),
 * subjects enum apenet_report_subject, paths enum apenet_hdb_path.
 */
#include "hdb_int.h"

const char *const apenet_hdb_steps[APENET_HDB_SCHEMA] = {
	/* 0 -> 1: the schema as the issue asked for it. */
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;"
	/* The nodes: coordinates, name, the latest boot of the node's agent
	 * and when it was last heard on each path.  worst and changed_ms
	 * follow node_state (triggers below), so that listing 32K nodes worst
	 * first reads one table. */
	"CREATE TABLE node ("
	"  id INTEGER PRIMARY KEY,"
	"  x INTEGER NOT NULL, y INTEGER NOT NULL, z INTEGER NOT NULL,"
	"  name TEXT NOT NULL DEFAULT '',"
	"  in_layout INTEGER NOT NULL DEFAULT 0,"
	"  boot TEXT NOT NULL DEFAULT '', boot_ms INTEGER NOT NULL DEFAULT 0,"
	"  self_ms INTEGER NOT NULL DEFAULT 0, self_recv_ms INTEGER NOT NULL DEFAULT 0,"
	"  torus_ms INTEGER NOT NULL DEFAULT 0, torus_recv_ms INTEGER NOT NULL DEFAULT 0,"
	"  worst INTEGER NOT NULL DEFAULT 0, changed_ms INTEGER NOT NULL DEFAULT 0,"
	"  UNIQUE (x, y, z));"
	/* Each node's links (idx 0..5: X+ X- Y+ Y- Z+ Z-) and their far ends. */
	"CREATE TABLE link ("
	"  node_id INTEGER NOT NULL REFERENCES node (id),"
	"  idx INTEGER NOT NULL, name TEXT NOT NULL,"
	"  partner_id INTEGER NOT NULL REFERENCES node (id), partner_link TEXT NOT NULL,"
	"  PRIMARY KEY (node_id, idx)) WITHOUT ROWID;"
	/* Every health transition reported, once: (boot, seq) names a report
	 * (the boot id names the reporter). */
	"CREATE TABLE transition ("
	"  id INTEGER PRIMARY KEY,"
	"  boot TEXT NOT NULL, seq INTEGER NOT NULL,"
	"  reporter_id INTEGER NOT NULL REFERENCES node (id),"
	"  node_id INTEGER NOT NULL REFERENCES node (id),"
	"  subject INTEGER NOT NULL, place TEXT NOT NULL, code TEXT NOT NULL,"
	"  old_status INTEGER NOT NULL, new_status INTEGER NOT NULL,"
	"  value REAL, threshold REAL, unit TEXT NOT NULL,"
	"  evidence TEXT NOT NULL, path INTEGER NOT NULL, via TEXT NOT NULL,"
	"  time_ms INTEGER NOT NULL, recv_ms INTEGER NOT NULL,"
	"  UNIQUE (boot, seq));"
	"CREATE INDEX transition_time ON transition (time_ms, boot, seq);"
	"CREATE INDEX transition_node ON transition (node_id, time_ms, boot, seq);"
	"CREATE INDEX transition_recv ON transition (recv_ms);"
	/* The current state of everything reported: the latest transition of
	 * (node, reporter, subject, place, code) from the reporter's current
	 * boot.  The reporter is in the key: two neighbours see a node through
	 * two different links. */
	"CREATE TABLE node_state ("
	"  node_id INTEGER NOT NULL REFERENCES node (id),"
	"  reporter_id INTEGER NOT NULL REFERENCES node (id),"
	"  subject INTEGER NOT NULL, place TEXT NOT NULL, code TEXT NOT NULL,"
	"  status INTEGER NOT NULL, boot TEXT NOT NULL, seq INTEGER NOT NULL,"
	"  path INTEGER NOT NULL, via TEXT NOT NULL, time_ms INTEGER NOT NULL,"
	"  PRIMARY KEY (node_id, reporter_id, subject, place, code)) WITHOUT ROWID;"
	"CREATE INDEX node_state_reporter ON node_state (reporter_id, boot);"
	"CREATE TRIGGER node_state_insert AFTER INSERT ON node_state BEGIN"
	"  UPDATE node SET worst = (SELECT max(status) FROM node_state WHERE node_id = new.node_id),"
	"    changed_ms = max(changed_ms, new.time_ms) WHERE id = new.node_id;"
	"END;"
	"CREATE TRIGGER node_state_update AFTER UPDATE OF status ON node_state WHEN new.status <> old.status BEGIN"
	"  UPDATE node SET worst = (SELECT max(status) FROM node_state WHERE node_id = new.node_id),"
	"    changed_ms = max(changed_ms, new.time_ms) WHERE id = new.node_id;"
	"END;"
	"CREATE TRIGGER node_state_delete AFTER DELETE ON node_state BEGIN"
	"  UPDATE node SET worst = coalesce((SELECT max(status) FROM node_state WHERE node_id = old.node_id), 0)"
	"    WHERE id = old.node_id;"
	"END;"
	/* The latest heartbeat of each node (one row a node, not one a beat). */
	"CREATE TABLE heartbeat ("
	"  node_id INTEGER PRIMARY KEY REFERENCES node (id),"
	"  boot TEXT NOT NULL, seq INTEGER NOT NULL, time_ms INTEGER NOT NULL, recv_ms INTEGER NOT NULL,"
	"  ldm INTEGER NOT NULL, summary TEXT NOT NULL);"
	/* Incidents: what the supervisor deduced, with the first fault. */
	"CREATE TABLE incident ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  component TEXT NOT NULL,"
	"  node_id INTEGER NOT NULL REFERENCES node (id),"
	"  link TEXT,"
	"  far_node_id INTEGER REFERENCES node (id), far_link TEXT,"
	"  rule TEXT NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN ('open', 'closed', 'merged')),"
	"  opened_ms INTEGER NOT NULL, closed_ms INTEGER,"
	"  first_ms INTEGER NOT NULL, first_path INTEGER NOT NULL, first_evidence TEXT NOT NULL,"
	"  first_reporter TEXT NOT NULL, first_seq INTEGER,"
	"  merged_into INTEGER REFERENCES incident (id),"
	"  CHECK ((state = 'merged') = (merged_into IS NOT NULL)),"
	"  CHECK ((state = 'open') = (closed_ms IS NULL)));"
	"CREATE INDEX incident_opened ON incident (opened_ms);"
	"CREATE INDEX incident_open ON incident (opened_ms) WHERE state = 'open';"
	"CREATE TABLE evidence ("
	"  id INTEGER PRIMARY KEY,"
	"  incident_id INTEGER NOT NULL REFERENCES incident (id) ON DELETE CASCADE,"
	"  time_ms INTEGER NOT NULL, path INTEGER NOT NULL, reporter TEXT NOT NULL, seq INTEGER,"
	"  transition_id INTEGER REFERENCES transition (id) ON DELETE SET NULL,"
	"  text TEXT NOT NULL);"
	"CREATE INDEX evidence_incident ON evidence (incident_id, time_ms);"
	"CREATE INDEX evidence_transition ON evidence (transition_id);"
	/* Cables by serial, with both ends, for cable qualification. */
	"CREATE TABLE cable ("
	"  serial TEXT PRIMARY KEY,"
	"  vendor TEXT NOT NULL, part TEXT NOT NULL, length_m REAL,"
	"  a_node_id INTEGER REFERENCES node (id), a_link TEXT,"
	"  b_node_id INTEGER REFERENCES node (id), b_link TEXT,"
	"  first_ms INTEGER NOT NULL, last_ms INTEGER NOT NULL);"
	"CREATE INDEX cable_a ON cable (a_node_id);"
	"CREATE INDEX cable_b ON cable (b_node_id);",

	/* 1 -> 2: measured at 32K nodes (bench/bench_hdb.c), version 1 wrote
	 * too many scattered pages per report: a heartbeat wrote its row and
	 * the node's (wide) row; a transition also rewrote the node's row
	 * twice (heard, and its worst state through the triggers) and kept a
	 * row for every state ever reported, normal ones included.  Now:
	 *  - node_seen holds, in a narrow row of integers, every time a report
	 *    changes (heard on each path, the latest heartbeat's sequence and
	 *    times); the writer keeps them in memory and writes the changed
	 *    rows at most once a second, in row order;
	 *  - node keeps what changes rarely (boot, the latest heartbeat's LDM
	 *    word and summary); a node's worst state is read from node_state;
	 *  - node_state keeps only what is not normal: a state back to normal
	 *    is deleted, so the table is the list of current problems, small
	 *    and hot, and its pages are the same few in every batch. */
	"CREATE TABLE node_seen ("
	"  node_id INTEGER PRIMARY KEY REFERENCES node (id),"
	"  boot_ms INTEGER NOT NULL DEFAULT 0,"
	"  self_ms INTEGER NOT NULL DEFAULT 0, self_recv_ms INTEGER NOT NULL DEFAULT 0,"
	"  torus_ms INTEGER NOT NULL DEFAULT 0, torus_recv_ms INTEGER NOT NULL DEFAULT 0,"
	"  hb_seq INTEGER NOT NULL DEFAULT 0, hb_ms INTEGER NOT NULL DEFAULT 0, hb_recv_ms INTEGER NOT NULL DEFAULT 0);"
	"INSERT INTO node_seen (node_id, boot_ms, self_ms, self_recv_ms, torus_ms, torus_recv_ms, hb_seq, hb_ms, hb_recv_ms)"
	"  SELECT n.id, n.boot_ms, max(n.self_ms, coalesce(h.time_ms, 0)), max(n.self_recv_ms, coalesce(h.recv_ms, 0)),"
	"    n.torus_ms, n.torus_recv_ms, coalesce(h.seq, 0), coalesce(h.time_ms, 0), coalesce(h.recv_ms, 0)"
	"  FROM node n LEFT JOIN heartbeat h ON h.node_id = n.id;"
	/* every node has its row, from its insert on */
	"CREATE TRIGGER node_seen_insert AFTER INSERT ON node BEGIN"
	"  INSERT INTO node_seen (node_id) VALUES (new.id);"
	"END;"
	"ALTER TABLE node ADD COLUMN hb_boot TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE node ADD COLUMN ldm INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE node ADD COLUMN summary TEXT NOT NULL DEFAULT '';"
	"UPDATE node SET hb_boot = h.boot, ldm = h.ldm, summary = h.summary FROM heartbeat h WHERE h.node_id = node.id;"
	"DROP TABLE heartbeat;"
	"DROP TRIGGER node_state_insert;"
	"DROP TRIGGER node_state_update;"
	"DROP TRIGGER node_state_delete;"
	"DELETE FROM node_state WHERE status = 0;"
	"ALTER TABLE node DROP COLUMN boot_ms;"
	"ALTER TABLE node DROP COLUMN self_ms;"
	"ALTER TABLE node DROP COLUMN self_recv_ms;"
	"ALTER TABLE node DROP COLUMN torus_ms;"
	"ALTER TABLE node DROP COLUMN torus_recv_ms;"
	"ALTER TABLE node DROP COLUMN worst;"
	"ALTER TABLE node DROP COLUMN changed_ms;",

	/* 2 -> 3: cable certificates (issue 10, `apenet qualify`): one row a
	 * qualification of a link, both directions of its cable, the cable by
	 * the serial number of the module at the tested end (a copper cable's
	 * two plugs carry the same one).  The lanes' figures are kept as the
	 * JSON the command printed: read back whole, never queried by field. */
	"CREATE TABLE certificate ("
	"  id INTEGER PRIMARY KEY,"
	"  serial TEXT NOT NULL REFERENCES cable (serial),"
	"  node_id INTEGER NOT NULL REFERENCES node (id), link TEXT NOT NULL,"
	"  far_node_id INTEGER REFERENCES node (id), far_link TEXT,"
	"  pattern TEXT NOT NULL, target REAL NOT NULL, cl REAL NOT NULL,"
	"  verdict TEXT NOT NULL CHECK (verdict IN ('pass', 'fail', 'inconclusive')),"
	"  bits INTEGER NOT NULL, errors INTEGER NOT NULL, upper REAL NOT NULL, lower REAL NOT NULL,"
	"  swept INTEGER NOT NULL, pma_near TEXT NOT NULL, pma_far TEXT NOT NULL, lanes TEXT NOT NULL,"
	"  started_ms INTEGER NOT NULL, finished_ms INTEGER NOT NULL);"
	"CREATE INDEX certificate_serial ON certificate (serial, finished_ms);"
	"CREATE INDEX certificate_node ON certificate (node_id, link, finished_ms);",

	/* 3 -> 4: an incident opens provisionally at its first evidence and is
	 * re-blamed in place until its blame settles (issue 23): settled_ms,
	 * NULL while provisional (and for one withdrawn before it settled).
	 * What acts on incidents reads only settled ones.  Every incident of
	 * an older file was settled when it opened. */
	("ALTER TABLE incident ADD COLUMN settled_ms INTEGER;"
	 "UPDATE incident SET settled_ms = opened_ms;"),

	/* 4 -> 5: the batch scheduler's actions on incidents (issue 24): one
	 * row an action on one node and what became of it (include/apenet/
	 * slurm.h's outcomes by name), the host name it went to ("" when
	 * cluster.nodes names none).  holds: by this row the incident holds
	 * the node drained (apenet_slurm_holds), so that the latest row of an
	 * (incident, node) says whether its close may resume it. */
	("CREATE TABLE slurm_action ("
	 "  id INTEGER PRIMARY KEY,"
	 "  incident_id INTEGER NOT NULL REFERENCES incident (id) ON DELETE CASCADE,"
	 "  node_id INTEGER NOT NULL REFERENCES node (id),"
	 "  host TEXT NOT NULL,"
	 "  verb TEXT NOT NULL CHECK (verb IN ('drain', 'resume')),"
	 "  outcome TEXT NOT NULL,"
	 "  holds INTEGER NOT NULL CHECK (holds IN (0, 1)),"
	 "  message TEXT NOT NULL,"
	 "  time_ms INTEGER NOT NULL);"
	 "CREATE INDEX slurm_action_incident ON slurm_action (incident_id, node_id, id);"
	 "CREATE INDEX slurm_action_node ON slurm_action (node_id, id);"),
};
