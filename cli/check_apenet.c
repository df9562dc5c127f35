/*
 * check_apenet: a Nagios/Icinga plugin (Monitoring Plugins conventions: one
 * status line with perfdata, exit 0/1/2/3 for OK/WARNING/CRITICAL/UNKNOWN)
 * for one APEnet+ node.
 *   local:  check_apenet [--socket PATH]      the node agent's own verdict
 *   SNMP:   check_apenet -H HOST [-p PORT]    APENET-MIB's node tables
 * The local mode asks the agent over its unix socket, as `apenet
 * agent-status` does, and reads the JSON with the library's one tree reader
 * (JSON is YAML): the agent holds the card and its thresholds, so the plugin
 * needs no access to the card and judges what the agent raised, showing
 * the value that crossed its limit.  The SNMP mode has the per-link rates
 * and the sensors too, so -w/-c and --temp-* are thresholds there, in the
 * Monitoring Plugins' range syntax (apenet/range.h).
 * docs/commands/check_apenet.md.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "apenet/clock.h"
#include "apenet/conf.h"
#include "apenet/config.h"
#include "apenet/range.h"
#include "apenet_version.h"
#include "apenet/esc.h"
#include "check_apenet.h"

#define PROG "check_apenet"

/* The agent's socket when --socket does not say: agent.socket's default,
 * from the config's table (the plugin reads no config file). */
static const char *default_socket(void)
{
	return apenet_config_desc_find(apenet_config_table_find("agent"), "socket")->def_str;
}

static const char *const state_name[] = { "OK", "WARNING", "CRITICAL", "UNKNOWN" };

/* A -w/-c/--temp-* threshold: a range, as given. */
struct thr {
	int set;
	struct apenet_range r;
};

struct opts {
	const char *socket;
	struct ck_snmp_opts snmp;
	struct thr crc_warn, crc_crit, temp_warn, temp_crit;
};

/* A line being built; what does not fit is cut (the line stays one line). */
struct buf {
	char s[4096];
	size_t n;
};

static void __attribute__((format(printf, 2, 3))) put(struct buf *b, const char *fmt, ...)
{
	if (b->n >= sizeof(b->s) - 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	int r = vsnprintf(b->s + b->n, sizeof(b->s) - b->n, fmt, ap);
	va_end(ap);
	if (r > 0)
		b->n = b->n + (size_t)r < sizeof(b->s) ? b->n + (size_t)r : sizeof(b->s) - 1;
}

/* Text from the agent or a remote snmpd must not end the line, reach the
 * monitoring system's terminal or web page as control, or start the
 * perfdata early: the text writer's escaping (include/apenet/esc.h: every
 * control and non-UTF-8 byte as \xNN), then '|' as '/'.  In place, cut to
 * the buffer's n bytes. */
static void clean_n(char *s, size_t n)
{
	char t[4096];
	if (n > sizeof(t))
		n = sizeof(t);
	apenet_esc_text(t, n, s);
	for (char *p = t; *p; p++)
		if (*p == '|')
			*p = '/';
	memcpy(s, t, strlen(t) + 1);
}
#define clean(s)                                                                                          \
	do {                                                                                               \
		_Static_assert(!__builtin_types_compatible_p(__typeof__(s), __typeof__(&(s)[0])),          \
			       "clean() takes an array: its size bounds the escaped text");                 \
		clean_n((s), sizeof(s));                                                                    \
	} while (0)

static int unknown(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int unknown(const char *fmt, ...)
{
	char m[2304];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	clean(m);
	printf("APENET UNKNOWN - %s\n", m);
	return CK_UNKNOWN;
}

/* The options: getopt_long's tables, --help's lines and the completion
 * (--completion-table) are made from this one table. */
enum { OPT_TEMP_WARN = 256, OPT_TEMP_CRIT };
enum { M_LOCAL, M_SNMP, M_BOTH };
static const struct ck_opt {
	int key;          /* the short option's letter, or OPT_* (a long option only) */
	const char *name; /* the long option's */
	const char *arg;  /* its value; NULL: a flag */
	int mode;         /* the section of --help */
	const char *help; /* NULL: described with the next one; %s: the default socket */
} ck_opts[] = {
	{ 's', "socket", "PATH", M_LOCAL, "the agent's socket (default %s)" },
	{ 'H', "hostname", "HOST", M_SNMP, "snmpd serving APENET-MIB (the agent as an AgentX subagent)" },
	{ 'p', "port", "PORT", M_SNMP, "UDP port (default 161)" },
	{ 'C', "community", "NAME", M_SNMP, "SNMP community (default public)" },
	{ 'P', "protocol", "1|2c", M_SNMP, "SNMP version (default 2c)" },
	{ 'w', "warning", "RANGE", M_SNMP, "WARNING when a link's CRC errors/min are outside RANGE" },
	{ 'c', "critical", "RANGE", M_SNMP, "CRITICAL when a link's CRC errors/min are outside RANGE" },
	{ OPT_TEMP_WARN, "temp-warn", "RANGE", M_SNMP, NULL },
	{ OPT_TEMP_CRIT, "temp-crit", "RANGE", M_SNMP,
	  "WARNING / CRITICAL when fpga_temp (C) is outside RANGE\n(default: the agent's own limits)" },
	{ 't', "timeout", "SECONDS", M_BOTH, "give up after this long (default 10)" },
	{ 'h', "help", NULL, M_BOTH, "this text" },
	{ 'V', "version", NULL, M_BOTH, "the version" },
};
#define CK_NOPTS (sizeof(ck_opts) / sizeof(ck_opts[0]))
/* Each mode's section of --help: what comes before its options and after. */
static const char *const ck_mode_text[][2] = {
	[M_LOCAL] = { "Local mode (no -H): asks the node agent (apenet-agent) on its unix socket and\n"
		      "judges the findings it has raised and its watchdog.\n",
		      "" },
	[M_SNMP] = { "SNMP mode: walks APENET-MIB's card, link, sensor and watchdog tables.\n",
		     "  RANGE (Monitoring Plugins): 10 = 0:10, 10: = 10 and up, ~:10 = up to 10, 10:20;\n"
		     "  a value outside it alerts; @10:20 alerts inside instead\n" },
	[M_BOTH] = { "Both modes:\n", "" },
};

/* "-s, --socket PATH" or "    --temp-warn RANGE" */
static void opt_label(const struct ck_opt *o, char *buf, size_t n)
{
	if (o->key < 256)
		snprintf(buf, n, "-%c, --%s%s%s", o->key, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	else
		snprintf(buf, n, "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

static void usage(FILE *f)
{
	fputs("Usage: " PROG " [--socket PATH] [-t SECONDS]\n"
	      "       " PROG " -H HOST [-p PORT] [-C COMMUNITY] [-P 1|2c] [-t SECONDS]\n"
	      "                    [-w RANGE] [-c RANGE] [--temp-warn RANGE] [--temp-crit RANGE]\n"
	      "\n"
	      "Checks one APEnet+ node for Nagios/Icinga: one status line with perfdata, exit\n"
	      "0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.\n"
	      "\n",
	      f);
	char label[128];
	size_t len = 0;
	for (size_t i = 0; i < CK_NOPTS; i++) {
		const struct ck_opt *o = &ck_opts[i];
		if (i == 0 || ck_opts[i - 1].mode != o->mode)
			fputs(ck_mode_text[o->mode][0], f);
		if (len)
			len += (size_t)snprintf(label + len, sizeof(label) - len, ", ");
		opt_label(o, label + len, sizeof(label) - len);
		if (len) /* "    --temp-warn RANGE, --temp-crit RANGE" */
			memmove(label + len, label + len + 4, strlen(label + len + 4) + 1);
		len = strlen(label);
		if (!o->help)
			continue;
		if (len > 21)
			fprintf(f, "  %s\n%24s", label, "");
		else
			fprintf(f, "  %-21s ", label);
		for (const char *p = o->help; *p; p++)
			if (*p == '\n')
				fprintf(f, "\n%24s", "");
			else if (p[0] == '%' && p[1] == 's') {
				fputs(default_socket(), f);
				p++;
			} else
				fputc(*p, f);
		fputc('\n', f);
		len = 0;
		if (i + 1 == CK_NOPTS || ck_opts[i + 1].mode != o->mode)
			fputs(ck_mode_text[o->mode][1], f);
	}
	fputs("\n"
	      "CRITICAL: a severity fail (card, link, sensor), a link down, the watchdog broken,\n"
	      "or a threshold's -c/--temp-crit crossed.  WARNING: a severity warn, a link\n"
	      "degraded, training or in a PRBS test, the watchdog sick, or -w/--temp-warn crossed.\n"
	      "UNKNOWN: no answer, or an answer without the tables.\n",
	      f);
}

/* check_apenet --completion-table: the table above as tools/gen-completion.sh
 * reads it (the format: tools/completion.bash).  Hidden from --help. */
static void completion_table(void)
{
	for (size_t i = 0; i < CK_NOPTS; i++) {
		const struct ck_opt *o = &ck_opts[i];
		for (int form = o->key < 256 ? 0 : 1; form < 2; form++) {
			if (form == 0)
				printf("opt - -%c", o->key);
			else
				printf("opt - --%s", o->name);
			if (o->arg && strchr(o->arg, '|')) { /* the values themselves: 1|2c */
				printf(" %s ", o->arg);
				for (const char *p = o->arg; *p; p++)
					putchar(*p == '|' ? ' ' : *p);
			} else if (o->arg) {
				printf(" %s", o->arg);
			}
			putchar('\n');
		}
	}
}

static int number(const char *opt, const char *s, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(d) || d < min || d > max) {
		unknown("%s '%s': not a number in [%g, %g] (" PROG " --help)", opt, s, min, max);
		return -1;
	}
	*out = d;
	return 0;
}

static int range_opt(const char *opt, const char *s, struct thr *t)
{
	char err[200];
	if (apenet_range_parse(s, &t->r, err, sizeof(err))) {
		unknown("%s %s (" PROG " --help)", opt, err);
		return -1;
	}
	t->set = 1;
	return 0;
}

/* A -w wider than its -c: whatever it alerts on is critical already. */
static int never_warns(const char *w, const struct thr *wt, const char *c, const struct thr *ct)
{
	if (!wt->set || !ct->set || !apenet_range_within(&ct->r, &wt->r) || apenet_range_within(&wt->r, &ct->r))
		return 0;
	unknown("%s %s is wider than %s %s: no reading could be WARNING", w, wt->r.text, c, ct->r.text);
	return 1;
}

/* 0, or the exit code after printing the complaint. */
static int parse(int argc, char **argv, struct opts *o)
{
	/* getopt_long's tables, from ck_opts */
	static struct option lo[CK_NOPTS + 1];
	static char shorts[2 * CK_NOPTS + 2] = ":";
	for (size_t i = 0, n = 1; i < CK_NOPTS; i++) {
		lo[i] = (struct option){ ck_opts[i].name, ck_opts[i].arg ? required_argument : no_argument, NULL,
					 ck_opts[i].key };
		if (ck_opts[i].key < 256 && !strchr(shorts, ck_opts[i].key)) {
			shorts[n++] = (char)ck_opts[i].key;
			if (ck_opts[i].arg)
				shorts[n++] = ':';
		}
	}
	*o = (struct opts){ .snmp = { .port = 161, .community = "public", .timeout_s = 10 } };
	opterr = 0; /* the complaint goes on the status line, not to stderr */
	double d;
	int c;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		switch (c) {
		case 'H':
			if (!*optarg)
				return unknown("-H: an empty host name");
			o->snmp.host = optarg;
			break;
		case 'p':
			if (number("-p", optarg, 1, 65535, &d))
				return CK_UNKNOWN;
			if (d != floor(d))
				return unknown("-p '%s': not a port number", optarg);
			o->snmp.port = (unsigned)d;
			break;
		case 'C':
			o->snmp.community = optarg;
			break;
		case 'P':
			if (strcmp(optarg, "1") && strcmp(optarg, "2c"))
				return unknown("-P '%s': the SNMP version is 1 or 2c", optarg);
			o->snmp.v1 = !strcmp(optarg, "1");
			break;
		case 't':
			if (number("-t", optarg, 0.1, 3600, &o->snmp.timeout_s))
				return CK_UNKNOWN;
			break;
		case 's':
			o->socket = optarg;
			break;
		case 'w':
			if (range_opt("-w", optarg, &o->crc_warn))
				return CK_UNKNOWN;
			break;
		case 'c':
			if (range_opt("-c", optarg, &o->crc_crit))
				return CK_UNKNOWN;
			break;
		case OPT_TEMP_WARN:
			if (range_opt("--temp-warn", optarg, &o->temp_warn))
				return CK_UNKNOWN;
			break;
		case OPT_TEMP_CRIT:
			if (range_opt("--temp-crit", optarg, &o->temp_crit))
				return CK_UNKNOWN;
			break;
		case 'h': /* UNKNOWN, as the Monitoring Plugins' own do */
			usage(stdout);
			return CK_UNKNOWN;
		case 'V':
			puts(PROG " " APENET_VERSION_TEXT);
			return CK_UNKNOWN;
		case ':':
			return unknown("%s needs a value (" PROG " --help)", argv[optind - 1]);
		default:
			if (optopt)
				return unknown("unknown option '-%c' (" PROG " --help)", optopt);
			return unknown("unknown option '%s' (" PROG " --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return unknown("unexpected argument '%s' (" PROG " --help)", argv[optind]);
	if (o->socket && o->snmp.host)
		return unknown("--socket (local mode) and -H (SNMP mode) exclude each other");
	if (!o->snmp.host && (o->crc_warn.set || o->crc_crit.set || o->temp_warn.set || o->temp_crit.set))
		return unknown("-w, -c, --temp-warn and --temp-crit need -H: the agent's status document has no rates or "
			       "readings, and in local mode the agent's own thresholds judge");
	if (never_warns("-w", &o->crc_warn, "-c", &o->crc_crit) ||
	    never_warns("--temp-warn", &o->temp_warn, "--temp-crit", &o->temp_crit))
		return CK_UNKNOWN;
	return 0;
}

/* ---- local mode: the agent's status document ---- */

/* The whole answer (NUL-terminated), or NULL with the reason in err. */
static char *ask(const char *path, double timeout_s, char *err, size_t errn)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errn, "%s: too long for a unix socket", path);
		return NULL;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) || write(fd, "status\n", 7) != 7) {
		snprintf(err, errn, "no agent answers on %s: %s (is apenet-agent running? --socket)", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	int64_t deadline = apenet_clock_mono_ms() + (int64_t)(timeout_s * 1000);
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	const char *why = NULL;
	while (buf && !why) {
		if (n + 1 >= cap) {
			/* the document is tens of kB; a runaway peer is cut off */
			char *nb = cap < (16u << 20) ? realloc(buf, cap * 2) : NULL;
			if (!nb) {
				why = cap < (16u << 20) ? "out of memory" : "the answer is over 16 MB";
				break;
			}
			buf = nb;
			cap *= 2;
		}
		int64_t left = deadline - apenet_clock_mono_ms();
		struct pollfd p = { fd, POLLIN, 0 };
		int pr = left > 0 ? poll(&p, 1, (int)left) : 0;
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0) {
			why = "the agent did not answer in time (-t)";
			break;
		}
		ssize_t r = pr < 0 ? -1 : read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			why = strerror(errno);
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (!buf)
		why = "out of memory";
	else if (!why && n == 0)
		why = "the agent closed the connection without an answer";
	if (why) {
		snprintf(err, errn, "%s: %s", path, why);
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	return buf;
}

static const char *scalar(const struct apenet_conf_node *map, const char *key)
{
	const struct apenet_conf_node *n = map ? apenet_conf_get(map, key) : NULL;
	return n && n->kind == APENET_CONF_SCALAR ? n->value : NULL;
}

static double scalar_num(const struct apenet_conf_node *map, const char *key)
{
	const char *s = scalar(map, key);
	char *end;
	double d = s ? strtod(s, &end) : NAN;
	return s && *s && !*end ? d : NAN;
}

static int sev_of(const char *s)
{
	return !s ? 0 : !strcmp(s, "fail") ? CK_SEV_FAIL : !strcmp(s, "warn") ? CK_SEV_WARN : !strcmp(s, "ok") ? CK_SEV_OK : 0;
}

static int health_of(const char *s)
{
	return !s ? 0 : !strcmp(s, "normal") ? CK_WD_NORMAL : !strcmp(s, "sick") ? CK_WD_SICK : !strcmp(s, "broken") ? CK_WD_BROKEN
														 : CK_WD_INVALID;
}

static void copy(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
}

static int same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Which way a raised finding crossed its limit, from the transition that
 * raised it (the newest of its subject, place and code that left normal):
 * +1 up, -1 down, 0 not known.  A sensor finding stays raised a little
 * inside its limit (the clear margin), so its value now cannot say. */
static int crossing(const struct apenet_conf_node *transitions, const struct ck_finding *k)
{
	if (!transitions || transitions->kind != APENET_CONF_SEQ)
		return 0;
	for (const struct apenet_conf_node *t = transitions->child; t; t = t->next) { /* newest first */
		if (t->kind != APENET_CONF_MAP || !same(scalar(t, "kind"), "transition") ||
		    !same(scalar(t, "subject"), k->subject) || !same(scalar(t, "where"), k->where) ||
		    !same(scalar(t, "code"), k->code) || same(scalar(t, "new"), "normal"))
			continue;
		double v = scalar_num(t, "value"), th = scalar_num(t, "threshold");
		return isnan(v) || isnan(th) ? 0 : v > th ? 1 : v < th ? -1 : 0;
	}
	return 0;
}

/* The document into n; -1 with the reason in err when it is not the
 * agent's status or lacks what is judged. */
static int from_doc(const char *path, const char *doc, struct ck_node *n, char *err, size_t errn)
{
	struct apenet_conf *t;
	struct apenet_err e = { 0 };
	if (apenet_conf_load_string(path, doc, &t, &e)) {
		snprintf(err, errn, "the agent's answer does not parse: %s", e.msg);
		return -1;
	}
	int rc = -1;
	const struct apenet_conf_node *root = t->root, *x;
	if (!root || root->kind != APENET_CONF_MAP) {
		snprintf(err, errn, "%s: the answer is not a JSON object", path);
		goto out;
	}
	if ((x = apenet_conf_get(root, "error"))) {
		snprintf(err, errn, "%s: the agent refused: %s", path, scalar(x, "message") ? scalar(x, "message") : "?");
		goto out;
	}
	const struct apenet_conf_node *raised = apenet_conf_get(root, "raised"), *wd = apenet_conf_get(root, "watchdog");
	const struct apenet_conf_node *dnp = wd ? apenet_conf_get(wd, "dnp") : NULL;
	if (!raised || raised->kind != APENET_CONF_SEQ || !dnp || dnp->kind != APENET_CONF_MAP) {
		snprintf(err, errn, "%s: the answer lacks %s (not an apenet-agent status document?)", path,
			 !raised || raised->kind != APENET_CONF_SEQ ? "the raised findings" : "watchdog.dnp");
		goto out;
	}
	n->has_card = 1;
	copy(n->node, sizeof(n->node), scalar(apenet_conf_get(root, "agent"), "node"));
	n->card_sev = CK_SEV_OK;
	for (const struct apenet_conf_node *f = raised->child; f; f = f->next) {
		if (f->kind != APENET_CONF_MAP)
			continue;
		n->findings++;
		int sev = sev_of(scalar(f, "severity"));
		if (sev > n->card_sev)
			n->card_sev = sev;
		if (n->nraised == CK_MAX_FINDINGS)
			continue;
		struct ck_finding *k = &n->raised[n->nraised++];
		k->sev = sev;
		copy(k->subject, sizeof(k->subject), scalar(f, "subject"));
		copy(k->where, sizeof(k->where), scalar(f, "where"));
		copy(k->code, sizeof(k->code), scalar(f, "code"));
		k->value = scalar_num(f, "value");
		k->threshold = scalar_num(f, "threshold");
		copy(k->unit, sizeof(k->unit), scalar(f, "unit"));
		k->dir = crossing(apenet_conf_get(root, "transitions"), k);
	}
	/* the same two states as apenetWatchdogTable (snmp/mib_node.c) */
	int core = health_of(scalar(dnp, "core")), card = health_of(scalar(dnp, "card"));
	const char *expired = scalar(dnp, "host_expired");
	n->has_wd = core && card;
	n->wd_dnp = core > card ? core : card;
	n->wd_host = expired && !strcmp(expired, "true") ? CK_WD_BROKEN : CK_WD_NORMAL;
	const struct apenet_conf_node *period = apenet_conf_get(root, "period");
	n->overruns = scalar_num(period, "overruns");
	n->sample_errors = scalar_num(period, "sample_errors");
	n->step_us_max = scalar_num(period, "step_us_max");
	rc = 0;
out:
	apenet_conf_free(t);
	return rc;
}

/* ---- the verdict ---- */

struct verdict {
	enum ck_state state;
	struct buf problems, summary, perf;
	unsigned nproblems;
};

static void problem(struct verdict *v, enum ck_state s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void problem(struct verdict *v, enum ck_state s, const char *fmt, ...)
{
	if (s > v->state)
		v->state = s;
	char m[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	/* the worst first would need sorting; the first few in table order is
	 * what fits a status line */
	if (v->nproblems < 6)
		put(&v->problems, "%s%s", v->nproblems ? ", " : "", m);
	else if (v->nproblems == 6)
		put(&v->problems, ", ...");
	v->nproblems++;
}

static enum ck_state of_sev(int sev)
{
	return sev == CK_SEV_FAIL ? CK_CRITICAL : sev == CK_SEV_WARN ? CK_WARNING : CK_OK;
}

static void judge_wd(struct verdict *v, const struct ck_node *n)
{
	if (n->wd_dnp == CK_WD_BROKEN)
		problem(v, CK_CRITICAL, "watchdog: DNP core broken");
	else if (n->wd_dnp == CK_WD_SICK || n->wd_dnp == CK_WD_INVALID)
		problem(v, CK_WARNING, "watchdog: DNP core %s", n->wd_dnp == CK_WD_SICK ? "sick" : "invalid");
	if (n->wd_host == CK_WD_BROKEN)
		problem(v, CK_CRITICAL, "watchdog: the DNP declared this host expired");
	else if (n->wd_host == CK_WD_SICK || n->wd_host == CK_WD_INVALID)
		problem(v, CK_WARNING, "watchdog: host %s", n->wd_host == CK_WD_SICK ? "sick" : "invalid");
}

static const char *wd_word(const struct ck_node *n)
{
	int w = n->wd_dnp > n->wd_host ? n->wd_dnp : n->wd_host;
	return w == CK_WD_BROKEN ? "broken" : w == CK_WD_SICK ? "sick" : w == CK_WD_INVALID ? "invalid" : "normal";
}

/* A reading for a status line: a temperature as the SNMP mode writes it,
 * else as many digits as say something. */
static const char *reading(double x, const char *unit, char *b, size_t n)
{
	if (!strcmp(unit, "C"))
		snprintf(b, n, "%.1f", x);
	else if (x == floor(x) && fabs(x) < 1e15)
		snprintf(b, n, "%.0f", x);
	else
		snprintf(b, n, fabs(x) >= 100 ? "%.0f" : fabs(x) >= 10 ? "%.1f" : "%.3g", x);
	return b;
}

/* "fpga_temp 97.1 C > 95", "X+ LINK_CRC 12.5/min > 1", "X+ LINK_DOWN": the
 * value that crossed, when the finding has one (a sensor's name says what
 * it is: no code). */
static void local_problem(struct verdict *v, enum ck_state s, struct ck_finding *f)
{
	clean(f->where);
	clean(f->code);
	clean(f->unit);
	clean(f->subject);
	const char *what = f->where[0] ? f->where : f->subject;
	if (isnan(f->value) || isnan(f->threshold)) {
		problem(v, s, "%s %s", what, f->code);
		return;
	}
	char val[32], code[40] = "", unit[20] = "";
	if (strcmp(f->subject, "sensor") || !f->where[0])
		snprintf(code, sizeof(code), " %s", f->code);
	if (f->unit[0])
		snprintf(unit, sizeof(unit), "%s%s", f->unit[0] == '/' || f->unit[0] == '%' ? "" : " ", f->unit);
	reading(f->value, f->unit, val, sizeof(val));
	int side = f->value > f->threshold ? 1 : f->value < f->threshold ? -1 : 0;
	int dir = f->dir ? f->dir : side;
	if (side && side != dir) /* held by the clear margin: back inside, not yet cleared */
		problem(v, s, "%s%s %s%s, back %s %g", what, code, val, unit, dir > 0 ? "under" : "over", f->threshold);
	else
		problem(v, s, "%s%s %s%s %s %g", what, code, val, unit,
			side ? (side > 0 ? ">" : "<") : (dir < 0 ? "<=" : ">="), f->threshold);
}

/* Local mode.  Whether the agent is connected to snmpd is not said here: the
 * socket answered, the verdict is the agent's own, and SNMP mode names an
 * agent missing from snmpd where it matters (UNKNOWN, "answers without
 * apenetCardTable"). */
static void judge_local(struct verdict *v, struct ck_node *n)
{
	for (unsigned i = 0; i < n->nraised; i++) {
		struct ck_finding *f = &n->raised[i];
		enum ck_state s = of_sev(f->sev);
		if (s != CK_OK)
			local_problem(v, s, f);
	}
	judge_wd(v, n);
	if (n->findings)
		put(&v->summary, "node %s: %u finding%s raised, watchdog %s", n->node[0] ? n->node : "?", n->findings,
		    n->findings == 1 ? "" : "s", wd_word(n));
	else
		put(&v->summary, "node %s: no findings, watchdog %s", n->node[0] ? n->node : "?", wd_word(n));
	put(&v->perf, "'findings'=%u;;;0", n->findings);
	if (!isnan(n->overruns))
		put(&v->perf, " 'overruns'=%.0fc", n->overruns);
	if (!isnan(n->sample_errors))
		put(&v->perf, " 'sample_errors'=%.0fc", n->sample_errors);
	if (!isnan(n->step_us_max))
		put(&v->perf, " 'step_max'=%.0fus", n->step_us_max);
}

static void link_label(const struct ck_link *l, char *b, size_t n)
{
	char name[16];
	snprintf(name, sizeof(name), "%s", l->name);
	clean(name);
	for (char *p = name; *p; p++)
		if (*p == '\'' || *p == '=' || *p == ' ')
			*p = '_';
	if (!name[0])
		snprintf(name, sizeof(name), "link%u", l->index);
	if (l->card != 1)
		snprintf(b, n, "card%u_%s", l->card, name);
	else
		snprintf(b, n, "%s", name);
}

/* ";W;C" of perfdata: the -w/-c ranges as they were given, else the
 * agent's own limits (either may be empty) */
static void thresholds(struct buf *b, const struct thr *w, double wdef, const struct thr *c, double cdef)
{
	const struct thr *t[2] = { w, c };
	double d[2] = { wdef, cdef };
	for (int i = 0; i < 2; i++) {
		if (t[i] && t[i]->set)
			put(b, ";%s", t[i]->r.text);
		else if (!isnan(d[i]))
			put(b, ";%g", d[i]);
		else
			put(b, ";");
	}
}

/* A reading against a -c/-w pair: the state it raises (or CK_OK) and why. */
static enum ck_state against(const struct thr *warn, const struct thr *crit, double x, char *why, size_t n)
{
	char w[64];
	if (crit->set && apenet_range_alerts(&crit->r, x)) {
		snprintf(why, n, " %s", apenet_range_why(&crit->r, x, w, sizeof(w)));
		return CK_CRITICAL;
	}
	if (warn->set && apenet_range_alerts(&warn->r, x)) {
		snprintf(why, n, " %s", apenet_range_why(&warn->r, x, w, sizeof(w)));
		return CK_WARNING;
	}
	why[0] = 0;
	return CK_OK;
}

static void judge_snmp(struct verdict *v, struct ck_node *n, const struct opts *o)
{
	unsigned up = 0;
	enum ck_state parts = CK_OK;
	for (unsigned i = 0; i < n->nlinks; i++) {
		struct ck_link *l = &n->link[i];
		char lb[40];
		link_label(l, lb, sizeof(lb));
		clean(l->code);
		const char *code = l->code[0] && strcmp(l->code, "OK") ? l->code : NULL;
		if (l->state == CK_LINK_UP || l->state == CK_LINK_DEGRADED)
			up++;
		if (l->state == CK_LINK_DOWN)
			problem(v, CK_CRITICAL, "%s down%s%s%s", lb, code ? " (" : "", code ? code : "", code ? ")" : "");
		else if (l->sev == CK_SEV_FAIL)
			problem(v, CK_CRITICAL, "%s %s", lb, code ? code : "fail");
		else if (l->state == CK_LINK_DEGRADED)
			problem(v, CK_WARNING, "%s degraded, %u of %u lanes%s%s", lb, l->lanes_up, l->lanes, code ? " " : "",
				code ? code : "");
		else if (l->state == CK_LINK_TRAINING || l->state == CK_LINK_PRBS)
			problem(v, CK_WARNING, "%s %s", lb, l->state == CK_LINK_TRAINING ? "training" : "in a PRBS test");
		else if (l->sev == CK_SEV_WARN)
			problem(v, CK_WARNING, "%s %s", lb, code ? code : "warn");
		char why[72];
		enum ck_state cs = l->has_crc ? against(&o->crc_warn, &o->crc_crit, l->crc_per_min, why, sizeof(why)) : CK_OK;
		if (cs != CK_OK)
			problem(v, cs, "%s %g CRC errors/min%s", lb, l->crc_per_min, why);
	}
	const struct ck_sensor *fpga = NULL;
	for (unsigned i = 0; i < n->nsensors; i++) {
		struct ck_sensor *s = &n->sensor[i];
		clean(s->name);
		clean(s->unit);
		if (s->absent)
			s->has_value = 0;
		int is_fpga = s->card == 1 && !strcmp(s->name, "fpga_temp");
		if (is_fpga && s->has_value)
			fpga = s;
		enum ck_state st = of_sev(s->sev);
		char why[72] = "";
		enum ck_state mine = is_fpga && s->has_value ? against(&o->temp_warn, &o->temp_crit, s->value, why, sizeof(why))
							 : CK_OK;
		if (mine == CK_CRITICAL || (mine == CK_WARNING && st < CK_WARNING)) {
			st = mine;
		} else if (st != CK_OK) {
			double lim = st == CK_CRITICAL ? s->high_fail : s->high_warn;
			if (!isnan(lim) && s->value > lim)
				snprintf(why, sizeof(why), " > %g", lim);
			else
				snprintf(why, sizeof(why), " (%s)", st == CK_CRITICAL ? "fail" : "warn");
		}
		if (st != CK_OK)
			problem(v, st, "%s %.1f %s%s", s->name[0] ? s->name : "sensor", s->value, s->unit, why);
	}
	judge_wd(v, n);
	parts = v->state;
	/* the card's severity is the worst of its findings: named only when
	 * the rows above did not already say as much */
	clean(n->card_code);
	if (of_sev(n->card_sev) > parts)
		problem(v, of_sev(n->card_sev), "card %s (%u finding%s)", n->card_code[0] ? n->card_code : "?", n->findings,
			n->findings == 1 ? "" : "s");

	if (up == n->nlinks)
		put(&v->summary, "%u links up", up);
	else
		put(&v->summary, "%u of %u links up", up, n->nlinks);
	if (fpga)
		put(&v->summary, ", fpga %.1f %s", fpga->value, fpga->unit);

	put(&v->perf, "'links_up'=%u;;;0;%u", up, n->nlinks);
	for (unsigned i = 0; i < n->nlinks; i++) {
		const struct ck_link *l = &n->link[i];
		if (!l->has_crc)
			continue;
		char lb[40];
		link_label(l, lb, sizeof(lb));
		put(&v->perf, " '%s_crc_per_min'=%g", lb, l->crc_per_min);
		thresholds(&v->perf, &o->crc_warn, NAN, &o->crc_crit, NAN);
		put(&v->perf, ";0");
	}
	/* temperatures only: C is what graphers take; volts and amps in
	 * thousandths would need UOMs the guidelines do not have */
	for (unsigned i = 0; i < n->nsensors; i++) {
		const struct ck_sensor *s = &n->sensor[i];
		if (!s->has_value || strcmp(s->unit, "C"))
			continue;
		char name[48];
		if (s->card == 1)
			snprintf(name, sizeof(name), "%s", s->name);
		else
			snprintf(name, sizeof(name), "card%u_%s", s->card, s->name);
		for (char *p = name; *p; p++)
			if (*p == '\'' || *p == '=' || *p == ' ')
				*p = '_';
		int is_fpga = s == fpga;
		put(&v->perf, " '%s'=%.3fC", name, s->value);
		thresholds(&v->perf, is_fpga ? &o->temp_warn : NULL, s->high_warn, is_fpga ? &o->temp_crit : NULL,
			   s->high_fail);
	}
}

int main(int argc, char **argv)
{
	struct opts o;
	if (argc == 2 && !strcmp(argv[1], "--completion-table")) {
		completion_table();
		return CK_OK;
	}
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	struct ck_node *n = calloc(1, sizeof(*n));
	if (!n)
		return unknown("out of memory");
	char err[2048];
	struct verdict *v = calloc(1, sizeof(*v));
	if (!v) {
		free(n);
		return unknown("out of memory");
	}
	if (o.snmp.host) {
		if (ck_snmp_read(&o.snmp, n, err, sizeof(err)))
			rc = unknown("%s", err);
		else
			judge_snmp(v, n, &o);
	} else {
		const char *path = o.socket ? o.socket : default_socket();
		char *doc = ask(path, o.snmp.timeout_s, err, sizeof(err));
		if (!doc || from_doc(path, doc, n, err, sizeof(err)))
			rc = unknown("%s", err);
		else
			judge_local(v, n);
		free(doc);
	}
	if (!rc) {
		clean(v->summary.s);
		clean(v->problems.s);
		if (v->nproblems)
			printf("APENET %s - %s; %s | %s\n", state_name[v->state], v->problems.s, v->summary.s, v->perf.s);
		else
			printf("APENET %s - %s | %s\n", state_name[v->state], v->summary.s, v->perf.s);
		rc = (int)v->state;
	}
	free(v);
	free(n);
	return fflush(stdout) ? CK_UNKNOWN : rc;
}
