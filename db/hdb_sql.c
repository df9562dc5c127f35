/*
 * Every statement of the health database library, in one place (the
 * schema is in hdb_schema.c, transactions in db_util.c).  Values are bound
 * (?N), never written into the text.
 */
#include "hdb_int.h"

/* A node's worst current state and when the latest of them was reported:
 * node_state holds only what is not normal, so this is small. */
#define WORST "(SELECT node_id, max(status) AS worst, max(time_ms) AS changed FROM node_state GROUP BY node_id)"
/* A node's class given ?1 = now - silence: silent when nothing came from the
 * node itself since, else by its worst current state (invalid counts as
 * broken).  Shown: the layout's nodes, and others while they are heard. */
#define CLASS                                                                                                      \
	"CASE WHEN s.self_recv_ms < ?1 THEN 3 WHEN coalesce(w.worst, 0) >= 2 THEN 2 ELSE coalesce(w.worst, 0) END"
#define SHOWN "(n.in_layout = 1 OR s.self_recv_ms >= ?1 OR s.torus_recv_ms >= ?1)"
#define NODE_FROM " FROM node n JOIN node_seen s ON s.node_id = n.id LEFT JOIN " WORST " w ON w.node_id = n.id"
#define NODE_COLS                                                                                                  \
	"n.x, n.y, n.z, n.name, n.in_layout, n.boot, s.self_ms, s.self_recv_ms, s.torus_ms, s.torus_recv_ms,"       \
	" s.hb_seq, s.hb_ms, s.hb_recv_ms, n.ldm, n.summary, coalesce(w.worst, 0) AS worst,"                       \
	" coalesce(w.changed, 0) AS changed_ms, " CLASS " AS cls" NODE_FROM
#define INCIDENT_COLS                                                                                              \
	"i.id, i.component, n.x, n.y, n.z, n.name, coalesce(i.link, ''), i.far_node_id IS NOT NULL, f.x, f.y, f.z," \
	" coalesce(i.far_link, ''), i.rule, i.state, i.opened_ms, coalesce(i.closed_ms, 0),"                        \
	" coalesce(i.merged_into, 0), i.first_ms, i.first_path, i.first_evidence, i.first_reporter,"               \
	" coalesce(i.first_seq, 0),"                                                                               \
	" coalesce((SELECT transition_id FROM evidence WHERE incident_id = i.id ORDER BY id LIMIT 1), 0),"        \
	" (SELECT count(*) FROM evidence WHERE incident_id = i.id), coalesce(i.settled_ms, 0)"                      \
	" FROM incident i JOIN node n ON n.id = i.node_id LEFT JOIN node f ON f.id = i.far_node_id"
#define TRANSITION_COLS                                                                                            \
	"t.id, t.boot, t.seq, r.x, r.y, r.z, n.x, n.y, n.z, t.subject, t.place, t.code, t.old_status,"            \
	" t.new_status, t.value, t.threshold, t.unit, t.evidence, t.path, t.via, t.time_ms, t.recv_ms"           \
	" FROM transition t JOIN node n ON n.id = t.node_id JOIN node r ON r.id = t.reporter_id"

const char *const apenet_hdb_sql[ST_N] = {
	[ST_DATA_VERSION] = "PRAGMA data_version",

	[ST_NODE_LOAD] = "SELECT n.id, n.x, n.y, n.z, n.boot, n.hb_boot, n.ldm, s.boot_ms, s.self_ms, s.self_recv_ms,"
			 " s.torus_ms, s.torus_recv_ms, s.hb_seq, s.hb_ms, s.hb_recv_ms"
			 " FROM node n JOIN node_seen s ON s.node_id = n.id",
	[ST_NODE_INSERT] = "INSERT INTO node (x, y, z, name, in_layout) VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_NODE_NAME] = "UPDATE node SET name = ?2, in_layout = 1 WHERE id = ?1 AND (name IS NOT ?2 OR in_layout <> 1)",
	[ST_NODE_LEAVE] = "UPDATE node SET in_layout = 0 WHERE in_layout = 1 AND NOT (x < ?1 AND y < ?2 AND z < ?3)",
	[ST_META_GET] = "SELECT value FROM meta WHERE key = ?1",
	[ST_META_SET] = "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
	[ST_LINK_CLEAR] = "DELETE FROM link",
	[ST_LINK_INSERT] = "INSERT INTO link (node_id, idx, name, partner_id, partner_link) VALUES (?1, ?2, ?3, ?4, ?5)",

	[ST_TR_INSERT] = "INSERT INTO transition (boot, seq, reporter_id, node_id, subject, place, code, old_status,"
			 " new_status, value, threshold, unit, evidence, path, via, time_ms, recv_ms)"
			 " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"
			 " ON CONFLICT (boot, seq) DO NOTHING",
	/* Within a boot the later sequence wins; the rows of older boots were
	 * purged when the reporter's boot changed.  Back to normal: forgotten. */
	[ST_STATE_UPSERT] = "INSERT INTO node_state (node_id, reporter_id, subject, place, code, status, boot, seq, path,"
			    " via, time_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
			    " ON CONFLICT (node_id, reporter_id, subject, place, code) DO UPDATE SET"
			    " status = excluded.status, boot = excluded.boot, seq = excluded.seq, path = excluded.path,"
			    " via = excluded.via, time_ms = excluded.time_ms"
			    " WHERE excluded.boot <> node_state.boot OR excluded.seq > node_state.seq",
	[ST_STATE_CLEAR] = "DELETE FROM node_state WHERE node_id = ?1 AND reporter_id = ?2 AND subject = ?3 AND place = ?4"
			   " AND code = ?5 AND (boot <> ?6 OR seq < ?7)",
	[ST_STATE_PURGE] = "DELETE FROM node_state WHERE reporter_id = ?1 AND boot <> ?2",
	/* What changes rarely is in node, what a report changes in node_seen. */
	[ST_NODE_BOOT] = "UPDATE node SET boot = ?2 WHERE id = ?1",
	[ST_NODE_HB_NEWS] = "UPDATE node SET hb_boot = ?2, ldm = ?3, summary = ?4 WHERE id = ?1",
	/* The times the writer keeps in memory (struct hdb_node). */
	[ST_NODE_SEEN] = "UPDATE node_seen SET boot_ms = ?2, self_ms = ?3, self_recv_ms = ?4, torus_ms = ?5,"
			 " torus_recv_ms = ?6, hb_seq = ?7, hb_ms = ?8, hb_recv_ms = ?9 WHERE node_id = ?1",

	[ST_INC_INSERT] = "INSERT INTO incident (component, node_id, link, far_node_id, far_link, rule, state, opened_ms,"
			  " first_ms, first_path, first_evidence, first_reporter, first_seq, settled_ms)"
			  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'open', ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
	[ST_INC_STATE] = "SELECT state FROM incident WHERE id = ?1",
	[ST_INC_UPDATE] = "UPDATE incident SET component = iif(?2 & 1, ?3, component), rule = iif(?2 & 2, ?4, rule),"
			  " node_id = iif(?2 & 4, ?5, node_id), link = iif(?2 & 8, ?6, link),"
			  " far_node_id = iif(?2 & 8, ?7, far_node_id), far_link = iif(?2 & 8, ?8, far_link),"
			  " settled_ms = iif(?2 & 16, ?9, settled_ms),"
			  " opened_ms = iif(?2 & 32, ?10, opened_ms), first_ms = iif(?2 & 32, ?10, first_ms),"
			  " first_path = iif(?2 & 32, ?11, first_path), first_evidence = iif(?2 & 32, ?12, first_evidence),"
			  " first_reporter = iif(?2 & 32, ?13, first_reporter), first_seq = iif(?2 & 32, ?14, first_seq)"
			  " WHERE id = ?1 AND state = 'open' AND (?2 & 16 = 0 OR settled_ms IS NULL)",
	[ST_INC_CLOSE] = "UPDATE incident SET state = ?2, closed_ms = ?3, merged_into = ?4 WHERE id = ?1 AND state = 'open'",
	/* The transition is found by the report that carried it. */
	[ST_EV_INSERT] = "INSERT INTO evidence (incident_id, time_ms, path, reporter, seq, transition_id, text)"
			 " VALUES (?1, ?2, ?3, ?4, ?5, (SELECT id FROM transition WHERE boot = ?4 AND seq = ?5), ?6)",
	[ST_INC_GET] = "SELECT " INCIDENT_COLS " WHERE i.id = ?1",
	/* ?1: 1 the settled ones, 0 the provisional ones */
	[ST_INC_OPEN_EACH] = "SELECT " INCIDENT_COLS " WHERE i.state = 'open' AND (i.settled_ms IS NOT NULL) = ?1"
			     " ORDER BY i.opened_ms, i.id",
	[ST_INC_EACH] = "SELECT " INCIDENT_COLS " WHERE i.opened_ms >= ?1 AND i.opened_ms < ?2"
			" AND (?3 OR i.settled_ms IS NOT NULL) ORDER BY i.opened_ms, i.id",
	[ST_EV_EACH] = "SELECT id, time_ms, path, reporter, coalesce(seq, 0), coalesce(transition_id, 0), text"
		       " FROM evidence WHERE incident_id = ?1 ORDER BY time_ms, id",

	[ST_SL_INSERT] = "INSERT INTO slurm_action (incident_id, node_id, host, verb, outcome, holds, message, time_ms)"
			 " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[ST_SL_EACH] = "SELECT a.id, a.incident_id, n.x, n.y, n.z, a.host, a.verb, a.outcome, a.message, a.time_ms"
		       " FROM slurm_action a JOIN node n ON n.id = a.node_id WHERE a.incident_id = ?1 ORDER BY a.id",
	/* an (incident, node)'s latest row says whether it holds the node */
	[ST_SL_HELD] = "SELECT n.x, n.y, n.z FROM slurm_action a JOIN node n ON n.id = a.node_id"
		       " WHERE a.incident_id = ?1 AND a.holds AND a.id = (SELECT max(b.id) FROM slurm_action b"
		       " WHERE b.incident_id = a.incident_id AND b.node_id = a.node_id) ORDER BY a.id",
	[ST_SL_HOLDER] = "SELECT a.incident_id FROM slurm_action a JOIN node n ON n.id = a.node_id"
			 " JOIN incident i ON i.id = a.incident_id"
			 " WHERE n.x = ?1 AND n.y = ?2 AND n.z = ?3 AND a.incident_id <> ?4 AND i.state = 'open' AND a.holds"
			 " AND a.id = (SELECT max(b.id) FROM slurm_action b WHERE b.incident_id = a.incident_id"
			 " AND b.node_id = a.node_id) ORDER BY a.id LIMIT 1",

	[ST_CABLE_UPSERT] =
		"INSERT INTO cable (serial, vendor, part, length_m, a_node_id, a_link, b_node_id, b_link, first_ms, last_ms)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9) ON CONFLICT (serial) DO UPDATE SET"
		" vendor = iif(excluded.vendor <> '', excluded.vendor, vendor),"
		" part = iif(excluded.part <> '', excluded.part, part),"
		" length_m = coalesce(excluded.length_m, length_m),"
		" a_node_id = iif(excluded.a_link IS NOT NULL, excluded.a_node_id, a_node_id),"
		" a_link = coalesce(excluded.a_link, a_link),"
		" b_node_id = iif(excluded.b_link IS NOT NULL, excluded.b_node_id, b_node_id),"
		" b_link = coalesce(excluded.b_link, b_link),"
		" first_ms = min(first_ms, excluded.first_ms), last_ms = max(last_ms, excluded.last_ms)",
	[ST_CABLE_GET] = "SELECT c.serial, c.vendor, c.part, c.length_m, c.a_link IS NOT NULL, a.x, a.y, a.z,"
			 " coalesce(c.a_link, ''), c.b_link IS NOT NULL, b.x, b.y, b.z, coalesce(c.b_link, ''),"
			 " c.first_ms, c.last_ms FROM cable c LEFT JOIN node a ON a.id = c.a_node_id"
			 " LEFT JOIN node b ON b.id = c.b_node_id WHERE c.serial = ?1",

	[ST_CERT_INSERT] = "INSERT INTO certificate (serial, node_id, link, far_node_id, far_link, pattern, target, cl,"
			   " verdict, bits, errors, upper, lower, swept, pma_near, pma_far, lanes, started_ms, finished_ms)"
			   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
	[ST_CERT_EACH] = "SELECT c.id, c.serial, n.x, n.y, n.z, c.link, c.far_link IS NOT NULL, f.x, f.y, f.z,"
			 " coalesce(c.far_link, ''), c.pattern, c.target, c.cl, c.verdict, c.bits, c.errors, c.upper,"
			 " c.lower, c.swept, c.pma_near, c.pma_far, c.lanes, c.started_ms, c.finished_ms"
			 " FROM certificate c JOIN node n ON n.id = c.node_id LEFT JOIN node f ON f.id = c.far_node_id"
			 " WHERE c.serial = ?1 ORDER BY c.finished_ms DESC, c.id DESC",

	[ST_RETENTION] = "DELETE FROM transition WHERE recv_ms < ?1 AND id NOT IN"
			 " (SELECT e.transition_id FROM evidence e JOIN incident i ON i.id = e.incident_id"
			 "  WHERE i.state = 'open' AND e.transition_id IS NOT NULL)",
	[ST_VACUUM] = "VACUUM",

	[ST_SUMMARY] = "SELECT count(*), coalesce(sum(cls = 0), 0), coalesce(sum(cls = 1), 0), coalesce(sum(cls = 2), 0),"
		       " coalesce(sum(cls = 3), 0), coalesce(sum(cls = 3 AND torus_recv_ms >= ?1), 0),"
		       " coalesce(sum(in_layout = 0), 0), (SELECT max(max(self_recv_ms, torus_recv_ms)) FROM node_seen)"
		       " FROM (SELECT " CLASS " AS cls, s.torus_recv_ms AS torus_recv_ms, n.in_layout AS in_layout"
		       NODE_FROM " WHERE " SHOWN ")",
	[ST_OPEN_COUNT] = "SELECT count(*) FROM incident WHERE state = 'open' AND settled_ms IS NOT NULL",
	/* Worst first: broken, silent, sick, normal. */
	[ST_NODES_EACH] = "SELECT * FROM (SELECT " NODE_COLS " WHERE " SHOWN ")"
			  " ORDER BY CASE cls WHEN 2 THEN 0 WHEN 3 THEN 1 WHEN 1 THEN 2 ELSE 3 END, worst DESC,"
			  " changed_ms DESC, x, y, z LIMIT ?2",
	[ST_NODE_GET] = "SELECT " NODE_COLS " WHERE n.x = ?2 AND n.y = ?3 AND n.z = ?4",
	[ST_STATES_EACH] = "SELECT r.x, r.y, r.z, s.boot, s.seq, s.subject, s.place, s.code, s.status, s.path, s.via,"
			   " s.time_ms FROM node n JOIN node_state s ON s.node_id = n.id JOIN node r ON r.id = s.reporter_id"
			   " WHERE n.x = ?1 AND n.y = ?2 AND n.z = ?3 AND s.status >= ?4"
			   " ORDER BY s.status DESC, s.time_ms DESC, r.x, r.y, r.z",
	/* A link end's status: the worst current state at that place (the
	 * link's own findings, its lanes and module, and what the node's DNP
	 * says of that link in the LDM its neighbours relay). */
	[ST_LINKS_EACH] = "SELECT l.name, p.x, p.y, p.z, p.name, l.partner_link,"
			  " coalesce((SELECT max(status) FROM node_state s WHERE s.node_id = l.node_id AND s.place = l.name), 0),"
			  " coalesce((SELECT max(status) FROM node_state s WHERE s.node_id = l.partner_id"
			  "   AND s.place = l.partner_link), 0)"
			  " FROM node n JOIN link l ON l.node_id = n.id JOIN node p ON p.id = l.partner_id"
			  " WHERE n.x = ?1 AND n.y = ?2 AND n.z = ?3 ORDER BY l.idx",
	[ST_TR_WINDOW] = "SELECT " TRANSITION_COLS " WHERE t.time_ms >= ?1 AND t.time_ms < ?2"
			 " ORDER BY t.time_ms, t.boot, t.seq",
	[ST_TR_WINDOW_NODE] = "SELECT " TRANSITION_COLS
			      " WHERE t.node_id = (SELECT id FROM node WHERE x = ?3 AND y = ?4 AND z = ?5)"
			      " AND t.time_ms >= ?1 AND t.time_ms < ?2 ORDER BY t.time_ms, t.boot, t.seq",
	/* The report counts what it leaves out of a window (transition_time). */
	[ST_TR_COUNT] = "SELECT count(*) FROM transition WHERE time_ms >= ?1 AND time_ms < ?2",
	[ST_TR_COUNT_NODE] = "SELECT count(*) FROM transition WHERE node_id = (SELECT id FROM node WHERE x = ?3 AND y = ?4"
			     " AND z = ?5) AND time_ms >= ?1 AND time_ms < ?2",
	/* The cable last seen at a link end, either end. */
	[ST_CABLE_AT] = "SELECT c.serial FROM cable c, (SELECT id FROM node WHERE x = ?1 AND y = ?2 AND z = ?3) n"
			" WHERE (c.a_node_id = n.id AND c.a_link = ?4) OR (c.b_node_id = n.id AND c.b_link = ?4)"
			" ORDER BY c.last_ms DESC LIMIT 1",
	/* Incidents that named a link end (either end), before a time, newest
	 * first.  Incidents are few (one per real fault): no index. */
	[ST_INC_LINK] = "SELECT " INCIDENT_COLS " WHERE i.opened_ms < ?5 AND i.link IS NOT NULL AND i.settled_ms IS NOT NULL AND"
			" ((n.x = ?1 AND n.y = ?2 AND n.z = ?3 AND i.link = ?4) OR"
			"  (f.x = ?1 AND f.y = ?2 AND f.z = ?3 AND i.far_link = ?4))"
			" ORDER BY i.opened_ms DESC, i.id DESC LIMIT ?6",
	[ST_INC_MERGED] = "SELECT " INCIDENT_COLS " WHERE i.merged_into = ?1 ORDER BY i.opened_ms, i.id",
};
