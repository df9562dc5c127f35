/*
 * check_apenet: the monitoring plugin's own model of one node, filled either
 * from the node agent's status document (local mode, cli/check_apenet.c) or
 * from APENET-MIB's node tables through snmpd (cli/check_apenet_snmp.c), and
 * judged in one place so that both modes say the same things the same way.
 */
#ifndef CHECK_APENET_H
#define CHECK_APENET_H

#include <stddef.h>

/* Monitoring Plugins exit codes. */
enum ck_state { CK_OK = 0, CK_WARNING = 1, CK_CRITICAL = 2, CK_UNKNOWN = 3 };

/* The MIB's enumerations (mibs/APENET-MIB.txt); 0: not read. */
enum { CK_SEV_OK = 1, CK_SEV_WARN = 2, CK_SEV_FAIL = 3 };
enum { CK_LINK_DOWN = 1, CK_LINK_TRAINING = 2, CK_LINK_UP = 3, CK_LINK_DEGRADED = 4, CK_LINK_PRBS = 5 };
enum { CK_WD_NORMAL = 1, CK_WD_SICK = 2, CK_WD_BROKEN = 3, CK_WD_INVALID = 4 };

#define CK_MAX_LINKS 16
#define CK_MAX_SENSORS 32
#define CK_MAX_FINDINGS 64

struct ck_link {
	unsigned card, index; /* the row's index: card.link */
	char name[16];
	int state;            /* CK_LINK_*; 0: not read */
	unsigned lanes_up, lanes;
	double crc_per_min;   /* apenetLinkCrcRate / 1000 */
	int has_crc;
	int sev;              /* CK_SEV_* */
	char code[32];
};

struct ck_sensor {
	unsigned card, index;
	char name[24];
	char unit[8];
	double value; /* in unit (the MIB's thousandths divided out) */
	int has_value;
	int absent; /* apenetSensorPresent false(2) */
	int sev;
	double high_warn, high_fail; /* the agent's own limits; NAN: none */
};

/* A finding the agent has raised (local mode: its "raised" list). */
struct ck_finding {
	int sev;
	char subject[16], where[24], code[32];
	double value, threshold; /* what was judged and the limit it crossed; NAN: none */
	char unit[16];
	int dir;                 /* +1 it crossed upwards, -1 downwards (its raising transition); 0 not known */
};

struct ck_node {
	int has_card;       /* the card's row (SNMP) or the agent's document (local) was read */
	char node[24];      /* "x,y,z" */
	int card_sev;
	char card_code[32];
	unsigned findings;
	unsigned nlinks;
	struct ck_link link[CK_MAX_LINKS];
	unsigned nsensors;
	struct ck_sensor sensor[CK_MAX_SENSORS];
	int has_wd;
	int wd_dnp, wd_host; /* CK_WD_*: the card's view of the core, and of the host */
	/* local mode only */
	unsigned nraised;
	struct ck_finding raised[CK_MAX_FINDINGS];
	double overruns, sample_errors, step_us_max; /* NAN: not in the document */
};

struct ck_snmp_opts {
	const char *host;
	unsigned port;
	const char *community;
	int v1;           /* -P 1: GETNEXT; else 2c with GETBULK */
	double timeout_s; /* for the whole walk */
};

/* Walks apenetCardTable, apenetLinkTable, apenetSensorTable and
 * apenetWatchdogTable of host into n.  0, or -1 with the reason in err (the
 * host does not answer, or answers without the tables). */
int ck_snmp_read(const struct ck_snmp_opts *o, struct ck_node *n, char *err, size_t errn);

#endif
