/*
 * The toolkit's configuration, read through the one YAML loader: the
 * cluster's layout (torus dimensions, wraparound, node names <-> coordinates)
 * and the thresholds behind every verdict.  Every threshold has a documented
 * default (docs/config.md) used when there is no file or it leaves it out.
 */
#ifndef APENET_CONFIG_H
#define APENET_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "apenet/err.h"

struct apenet_thresholds {
	double fpga_temp_warn_c, fpga_temp_fail_c;
	double board_temp_warn_c, board_temp_fail_c;
	double vdroop_warn_pct, vdroop_fail_pct;     /* core supply below nominal */
	double v12_tol_warn_pct, v12_tol_fail_pct;   /* 12 V input off nominal */
	double crc_warn_per_min, crc_fail_per_min;   /* header + footer CRC errors */
	double payload_warn_per_min;                 /* payload CRC errors (left to software) */
	double lane_errors_warn_per_min;             /* 8b/10b code + disparity errors on a lane */
	double flaps_fail;                           /* link down events within the interval */
	double align_restarts_warn;                  /* a lane's restarts since the counters were cleared... */
	double align_restarts_warn_per_hour;         /* ...and at this rate */
	double ldm_age_warn_ms, ldm_age_fail_ms;     /* last LDM received from a neighbour */
	double fifo_hwm_warn_pct;                    /* RX FIFO high-water mark, % of T_RED */
	/* How sure a rate rule must be (docs/verdicts.md, "Rates"): it fires
	 * only on at least rate_min_events events whose rate's lower bound at
	 * rate_confidence clears the threshold. */
	double rate_confidence;
	double rate_min_events;
	double since_clear_min_s;                    /* counts since the clear are judged over at least this */
	/* Hysteresis, for whoever judges sample after sample (the agent): a
	 * finding clears after clear_after_samples clean samples; a sensor
	 * finding clears only this far on the good side of its threshold. */
	double clear_after_samples;
	double temp_clear_margin_c;
	double supply_clear_margin_pct;
	/* Written into the board's THR_ICORE_SICK by the agent: the DNP's own
	 * current field; the host has no rule of its own on the current. */
	double icore_sick_ma;
};

/*
 * The `supervisors:` section: where the node agent reports (the notifier,
 * include/apenet/notify.h, snmp/notify.c).  Its key table
 * (apenet_config_supervisors_rows, common/config_sup.c) gives each key's
 * default, unit, range and meaning; the values are in the notifier's own
 * types here (and heartbeat_s in struct apenet_config).
 */
#define APENET_NOTIFY_MAX_SUPERVISORS 8

enum apenet_snmp_version { APENET_SNMP_V2C = 2, APENET_SNMP_V3 = 3 };

struct apenet_notify_config {
	/* "host:port", "[v6addr]:port" or "host" (port 162).  Names are
	 * resolved when a session opens (blocking: prefer addresses). */
	char supervisors[APENET_NOTIFY_MAX_SUPERVISORS][128];
	unsigned nsupervisors;
	int version;               /* enum apenet_snmp_version */
	char community[64];        /* v2c */
	/* v3 (the default): this node's key file (include/apenet/keys.h), its
	 * USM user and keys, always authPriv: HMAC-SHA-256-192 and AES-128 */
	char key_file[APENET_PATH_MAX];
	unsigned timeout_ms;       /* one try of an INFORM waits this long for the answer... */
	unsigned retries;          /* ...and is resent this many times before it counts as unanswered */
	unsigned backoff_ms;       /* then the supervisor is left alone this long before the next try */
	char spool[APENET_PATH_MAX];
	uint64_t spool_max_bytes;  /* past it the oldest heartbeats go, never a transition */
	/* net-snmp's persistent directory (it keeps indexes there even when
	 * told to persist nothing); "": "snmp" beside the spool. */
	char snmp_dir[APENET_PATH_MAX];
};

/* The table's defaults (spool: /var/lib/apenet/spool.db; the agent's is
 * in its state_dir, agent/report.c). */
void apenet_notify_config_defaults(struct apenet_notify_config *c);
/* Checks every setting, numbers against the table's ranges; the message
 * names the setting ("supervisors[1]: 'sup:0': port out of range
 * 1..65535").  0 or -1. */
int apenet_notify_config_check(const struct apenet_notify_config *c, struct apenet_err *e);

/* "host:port", "[v6]:port" or "host" as net-snmp's "udp:host:port" /
 * "udp6:[v6]:port"; -1 with why when the address is malformed. */
int apenet_notify_peer(const char *addr, char *peer, size_t len, char *why, size_t whylen);

struct apenet_node_name {
	char name[64];
	unsigned x, y, z;
};

/* Lookups by coordinate and by name are O(1) at 32K nodes: the loader
 * indexes the names it reads.  A cluster filled by hand (tests) has no index
 * and is searched one node after the other. */
struct apenet_cluster {
	int have;               /* a cluster section was given */
	unsigned dims[3];
	int wrap[3];            /* wraparound cables in each dimension */
	struct apenet_node_name *nodes;
	unsigned nnodes;
	uint32_t *by_coord;     /* dims[0]*dims[1]*dims[2] slots: node index + 1, 0 unnamed */
	uint32_t *by_name;      /* open-addressing hash of the names: node index + 1, 0 empty */
	uint32_t name_mask;     /* slots of by_name - 1 (a power of two) */
};

#define APENET_NTHR (sizeof(struct apenet_thresholds) / sizeof(double))

/*
 * The node agent's settings (the `agent:` section; docs/agent.md).  Numbers
 * are doubles and strings fixed buffers so that one descriptor table
 * (struct apenet_config_table, below) drives the loader, `apenet config
 * check`, the shipped etc/apenet/apenet.yaml and their tests, as for the
 * thresholds.
 */
struct apenet_agent_config {
	double period_ms;              /* the agent's sampling and heartbeat period P */
	double watchdog_period_ms;     /* WD_PERIOD_US: the DNP's beat and miss period */
	double watchdog_timeout_beats; /* WD_TIMEOUT_BEATS */
	double dnp_stuck_periods;      /* WD_DNP_HB unchanged this many periods: DNP broken */
	double baseline_s;             /* rates are also judged over this long a window */
	double pcie_interval_ms;       /* config space (link training, AER) re-read every */
	double module_interval_s;      /* module EEPROM windows re-read every (0: never) */
	double blackbox_span_s;        /* the ring holds the last span of samples... */
	double blackbox_memory_mib;    /* ...in at most this much memory */
	double blackbox_dump_full_s;   /* a dump has every sample of the last full_s... */
	double blackbox_dump_step_s;   /* ...and one per step_s before that */
	double blackbox_holdoff_s;     /* transitions within this of a dump share the next one */
	double blackbox_keep_files;    /* retention of dump files, by count... */
	double blackbox_keep_mib;      /* ...and by their total size */
	double edac_interval_s;        /* EDAC counters read every */
	double edac_window_s;          /* corrected-error rate window */
	double edac_ce_sick_per_hour;  /* corrected errors proven at this rate: memory sick */
	double service_timeout_s;      /* no supervisor acknowledged for this long: service broken */
	double events_keep;            /* transitions kept for agent-status */
	double events_max_mib;         /* events.jsonl is rotated at this size */
	char user[64];                 /* drop root to it after opening the card ("": stay) */
	char state_dir[APENET_PATH_MAX];
	char blackbox_dir[APENET_PATH_MAX];
	char socket[APENET_PATH_MAX];  /* agent-status talks to it */
	char lock_dir[APENET_PATH_MAX];/* "": the card's own lock directory */
	char edac_root[APENET_PATH_MAX];
	char log_level[16];
	char pma_presets_dir[APENET_PATH_MAX]; /* apenet sweep --save: presets the agent applies ("": none) */
	double agentx;                 /* 1: serve APENET-MIB through the host's snmpd (AgentX subagent) */
	char agentx_socket[APENET_PATH_MAX]; /* the master's AgentX socket ("": net-snmp's default) */
	double agentx_ping_s;          /* how often the subagent checks for (and reconnects to) the master */
	double agentx_traps;           /* 1: transitions also to snmpd's trap sinks */
	char certificates_db[APENET_PATH_MAX]; /* apenet qualify's certificates, for apenetCertTable ("": its default) */
};
#define APENET_NAGENT 33

/*
 * The supervisor's settings (the `supervisor:` section): the daemon
 * apenet-supervisor that receives the agents' reports and keeps the health
 * database.  One file serves every instance: `--instance N` takes the Nth
 * entry of the comma-separated listen and db lists
 * (apenet_config_instance).  The SNMP credentials are not here: a
 * supervisor accepts what the `supervisors:` section tells the agents to
 * send (version, community; struct apenet_config.sup).  Each key's
 * default, unit, range and meaning are its row of the table
 * (common/config.c; docs/config.md, "Supervisor"), not restated here.
 */
struct apenet_supervisor_config {
	double batch_max_events;   /* a batch is committed at this many reports... */
	double batch_max_ms;       /* ...or when its oldest report waited this long; acks follow the commit */
	double recv_buffer_kib;    /* the UDP receive buffer (SO_RCVBUF) */
	double tick_ms;            /* how often the deduction looks at the time */
	/* The deduction's own settings (struct apenet_deduce_config takes
	 * them by name: apenet_deduce_config_from). */
	double silent_ms;          /* no report from a node itself for this long: silent */
	double settle_ms;          /* after the first evidence of a fault, wait this long for the rest */
	double explain_ms;         /* a silence waits this long for the neighbours' words */
	double late_ms;            /* a report this much older than its arrival is history, not news */
	double restore_hold_ms;    /* an incident open at start that no evidence supports closes after this */
	double resync_ms;          /* a restarted agent says again what is still wrong within this */
	double group_min;          /* this many unexplained silences at once: this supervisor is cut off */
	double evidence_max;       /* evidence rows written per incident (the rest are counted) */
	double heartbeat_flush_ms; /* node times from routine heartbeats reach the file at most this late */
	double retention_days;     /* transitions older than this are deleted (0: kept) */
	char listen[256];          /* where each instance listens (udp), comma-separated */
	char db[APENET_PATH_MAX];  /* each instance's health database, the same way */
	char state_dir[APENET_PATH_MAX]; /* net-snmp's persistent files go to state_dir/supervisor-N */
	char log_level[16];
	char site_key[APENET_PATH_MAX];          /* SNMPv3: the site secret the node keys derive from */
	char site_key_previous[APENET_PATH_MAX]; /* while keys roll, the previous secret ("": none) */
	double agentx;             /* 1: serve the cluster tables through the host's snmpd (AgentX subagent) */
	char agentx_socket[APENET_PATH_MAX]; /* the master's AgentX socket ("": net-snmp's default) */
	double agentx_ping_s;      /* how often the subagent checks for (and reconnects to) the master */
	double agentx_cache_ms;    /* the cluster tables are read from the database again at most this often */
};
#define APENET_NSVR 24

/*
 * The batch scheduler (the `slurm:` section; docs/supervisor.md, "The batch
 * scheduler (Slurm)"): whether the supervisor drains the nodes a settled
 * incident affects and resumes them when it closes, and which nodes each
 * kind of incident affects (a policy word: "node", "ends" or "none").
 * Each key's default, unit and meaning are its row (common/config.c).
 */
struct apenet_slurm_config {
	double enabled;            /* 1: drain and resume; 0: leave the scheduler alone */
	double dry_run;            /* 1: log and record what it would do, change nothing */
	double timeout_ms;         /* one scontrol call is killed after this */
	char scontrol[APENET_PATH_MAX];
	char slurm_conf[APENET_PATH_MAX]; /* SLURM_CONF for scontrol ("": inherited) */
	/* the policy of each component an incident blames (deduce.h) */
	char card[8], dnp[8], host[8], node_power[8], pcie[8], memory[8], sensor[8], cabling[8];
	char cable[8], link[8], module[8];
	char agent[8], service_network[8], other[8];
};
#define APENET_NSLURM 19
/* The keys of the `supervisors:` section (apenet_config_supervisors_rows). */
#define APENET_NSUP_KEYS 10
/* The most instances the listen and db lists name. */
#define APENET_CONFIG_MAX_INSTANCES 8

/* What a string setting must be; the loader checks it, with the error at
 * the value in the file. */
enum apenet_config_form {
	APENET_FORM_NUM,           /* a number in min..max */
	APENET_FORM_TEXT,          /* any text that fits (a user name; may be empty) */
	APENET_FORM_PATH,          /* an absolute path */
	APENET_FORM_PATH_OR_EMPTY, /* an absolute path, or "" for the built-in choice */
	APENET_FORM_SOCKET,        /* an absolute path of at most 107 characters (sun_path) */
	APENET_FORM_LOG_LEVEL,     /* err, warn, notice, info or debug */
	APENET_FORM_ADDR_LIST,     /* 1..8 comma-separated host:port, "[v6addr]:port" */
	APENET_FORM_PATH_LIST,     /* 1..8 comma-separated absolute paths, distinct */
	APENET_FORM_NODE_POLICY,   /* node or none (a component on one node) */
	APENET_FORM_ENDS_POLICY,   /* ends, node or none (a cable, a link: both ends, the blamed one, none) */
};

/* One setting of a table-driven section, as the loader, `apenet config
 * check` and the shipped file see it. */
struct apenet_config_desc {
	const char *key;
	int is_str;             /* a string (path, name, list) rather than a number */
	int form;               /* enum apenet_config_form */
	size_t off;             /* of its member in the section's struct */
	size_t size;            /* of a string member */
	double min, max, def;   /* numbers */
	const char *def_str;    /* strings */
	const char *unit;
	const char *doc;
	/* A daemon takes it when it starts only: a reload (SIGHUP) keeps the
	 * value in force and says so. */
	int at_start;
};

/* A table-driven section of the file (`agent:`, `supervisor:`): its rows
 * and where its values and its given-flags live in struct apenet_config. */
struct apenet_config_table {
	const char *section;    /* its key at the top of the file */
	const struct apenet_config_desc *rows;
	size_t n;
	size_t struct_off;      /* of the section's struct in struct apenet_config */
	size_t given_off;       /* of its unsigned char given[n] in struct apenet_config */
};

struct apenet_config {
	char path[APENET_PATH_MAX];    /* empty: defaults only */
	struct apenet_thresholds thr;
	unsigned char thr_given[APENET_NTHR]; /* by descriptor index: the file set it */
	struct apenet_cluster cl;
	struct apenet_agent_config agent;
	unsigned char agent_given[APENET_NAGENT]; /* by descriptor index: the file set it */
	struct apenet_supervisor_config svr;
	unsigned char svr_given[APENET_NSVR];     /* by descriptor index: the file set it */
	struct apenet_slurm_config slurm;
	unsigned char slurm_given[APENET_NSLURM]; /* by descriptor index: the file set it */
	/* supervisors: where the agent reports (common/config_sup.c); no
	 * targets: reports off */
	struct apenet_notify_config sup;
	/* by the index of apenet_config_supervisors_rows(): the file set it */
	unsigned char sup_given[APENET_NSUP_KEYS];
	int spool_given;        /* else the spool is <agent.state_dir>/spool.db */
	double heartbeat_s;     /* a heartbeat report every */
};

/* What `apenet config check` and etc/apenet/apenet.yaml say about each
 * threshold: taken from the loader's own table, so a key added there shows
 * up everywhere. */
struct apenet_thr_desc {
	const char *key;
	size_t off;             /* of its double in struct apenet_thresholds */
	double min, max;        /* the range the loader accepts */
	double def;             /* its default */
	const char *unit;       /* as docs/config.md writes it; "?" when undocumented */
	const char *doc;        /* what it does; "" when undocumented */
};

void apenet_config_defaults(struct apenet_config *c);
/* path NULL: defaults. Errors name file:line:column. */
int apenet_config_load(const char *path, struct apenet_config *c, struct apenet_err *e);
/* The same from memory (tests, fuzzing); name stands for the file in messages. */
int apenet_config_load_string(const char *name, const char *text, struct apenet_config *c, struct apenet_err *e);
void apenet_config_free(struct apenet_config *c);
struct apenet_conf;
struct apenet_conf_node;
/* The `supervisors:` section (common/config_sup.c). */
int apenet_config_load_supervisors(const struct apenet_conf *c, const struct apenet_conf_node *m,
				   struct apenet_config *cfg, struct apenet_err *e);
/* Its rows (APENET_NSUP_KEYS of them): key, unit, range, default and
 * meaning; not its values, which are not at the rows' off (struct
 * apenet_notify_config's own types). */
const struct apenet_config_desc *apenet_config_supervisors_rows(void);
/* Its defaults in c->sup and c->heartbeat_s. */
void apenet_config_supervisors_defaults(struct apenet_config *c);
/* The node's name, or NULL. */
const char *apenet_config_node_name(const struct apenet_config *c, unsigned x, unsigned y, unsigned z);
/* Node by name, 0 or -1. */
int apenet_config_node_by_name(const struct apenet_config *c, const char *name, unsigned xyz[3]);

/* The i-th threshold the loader knows: 0 with *d filled, -1 past the last. */
int apenet_config_threshold_desc(size_t i, struct apenet_thr_desc *d);
/* Its value in t. */
double apenet_config_threshold_value(const struct apenet_thresholds *t, const struct apenet_thr_desc *d);
/* The table-driven sections, in the order of the file: 0 agent, 1
 * supervisor, 2 slurm; NULL past the last. */
const struct apenet_config_table *apenet_config_table(size_t i);
/* By its section key ("agent", "supervisor"); NULL when none. */
const struct apenet_config_table *apenet_config_table_find(const char *section);
/* The section's struct in c (&c->agent, &c->svr, &c->slurm). */
const void *apenet_config_section(const struct apenet_config *c, const struct apenet_config_table *t);
/* A number setting's value in the section's struct (d->is_str 0), a
 * string's (d->is_str 1). */
double apenet_config_num(const void *section, const struct apenet_config_desc *d);
const char *apenet_config_str(const void *section, const struct apenet_config_desc *d);
/* Whether the file set row i of t. */
int apenet_config_given(const struct apenet_config *c, const struct apenet_config_table *t, size_t i);
/* The row of t for key; NULL when none. */
const struct apenet_config_desc *apenet_config_desc_find(const struct apenet_config_table *t, const char *key);
/* For a reload, between two structs of the row's section: whether its
 * values differ (strings as strings), and the value copied. */
int apenet_config_differs(const void *a, const void *b, const struct apenet_config_desc *d);
void apenet_config_copy(void *dst, const void *src, const struct apenet_config_desc *d);

/* Instance n (1-based, `--instance N`) of the supervisor: the nth entries of
 * its listen and db lists, spaces around them removed.  -1 when the lists
 * have no nth entry ("--instance 3: the config lists 2") or an entry does
 * not fit the buffer. */
int apenet_config_instance(const struct apenet_supervisor_config *s, unsigned n, char *listen, size_t ln, char *db,
			   size_t dn, struct apenet_err *e);

/* Where the config file is looked for when neither --config nor
 * $APENET_CONFIG names one: SYSCONFDIR/apenet/apenet.yaml. */
const char *apenet_config_default_path(void);
/* Which file a program reads: opt (--config), else $APENET_CONFIG (set but
 * empty: the defaults), else the installed default when it exists, else
 * none (NULL: the defaults).  *from says which, for messages. */
const char *apenet_config_path(const char *opt, const char **from);

#endif
