/*
 * apenet-supervisor [--config FILE] [--instance N] [--db FILE] [--listen ADDR:PORT] [--foreground]
 *
 * Start-up: the config (the cluster's layout is required); the instance's
 * address and database (supervisor.listen and supervisor.db, the Nth entry
 * of each; --listen and --db override); the database opened (created,
 * migrated) and the layout stored; the deduction seeded from the database
 * (restore.c); signals, the tick's timer, then the listening socket last,
 * so that nothing is acknowledged before the supervisor can store it.
 * Exit: 0 after SIGTERM/SIGINT (the open batch committed and acknowledged
 * first), 1 when the database failed while running, 2 when it could not
 * start.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "apenet/daemon.h"
#include "apenet/log.h"
#include "apenet_version.h"
#include "sup.h"

static const char usage[] =
	"usage: apenet-supervisor [--config FILE] [--instance N] [--db FILE] [--listen ADDR:PORT] [--foreground]\n\n"
	"Receives the node agents' reports (SNMP INFORMs), stores them in the health database,\n"
	"acknowledges each only once it is on disk, and deduces incidents from both paths.\n\n"
	"  --config FILE      the config (else $APENET_CONFIG, else the installed apenet.yaml)\n"
	"  --instance N       which of supervisor.listen / supervisor.db (default 1)\n"
	"  --db FILE          the health database (created when missing)\n"
	"  --listen ADDR:PORT where to receive (UDP)\n"
	"  --foreground       log to stderr instead of syslog\n"
	"  --version          the version and the JSON schema\n\n"
	"signals: TERM/INT stop (the open batch committed and acknowledged first), HUP reload the config\n"
	"reading: apenet health --db FILE\n";

/* --instance: 1 up to the most instances a config lists. */
static const char *instance_check(const char *v)
{
	static char why[32];
	char *end;
	unsigned long n = strtoul(v, &end, 10);
	if (!*end && n >= 1 && n <= APENET_CONFIG_MAX_INSTANCES)
		return NULL;
	snprintf(why, sizeof(why), "not a number 1..%d", APENET_CONFIG_MAX_INSTANCES);
	return why;
}

/* Where the instance listens and writes, from the config and the options. */
static int instance(struct sup *s, struct apenet_err *e)
{
	if (apenet_config_instance(&s->cfg.svr, s->opt.instance, s->listen, sizeof(s->listen), s->db_path,
				   sizeof(s->db_path), e))
		return -1;
	if (s->opt.listen)
		snprintf(s->listen, sizeof(s->listen), "%s", s->opt.listen);
	if (s->opt.db)
		snprintf(s->db_path, sizeof(s->db_path), "%s", s->opt.db);
	/* net-snmp's files (the SNMPv3 engine ID): one directory per instance,
	 * in state_dir, or beside the database when --db names one */
	if (s->opt.db)
		snprintf(s->snmp_dir, sizeof(s->snmp_dir), "%s.snmp", s->db_path);
	else
		snprintf(s->snmp_dir, sizeof(s->snmp_dir), "%s/supervisor-%u", s->cfg.svr.state_dir, s->opt.instance);
	return 0;
}

static int start(struct sup *s)
{
	struct apenet_err e = { 0 };
	struct apenet_deduce_config dc;
	if (instance(s, &e) || sup_deduce_config(&s->cfg, &dc, &e))
		return apenet_daemon_fail("", &e);
	if (apenet_hdb_open(s->db_path, APENET_HDB_CREATE, &s->db, &e))
		return apenet_daemon_fail("", &e);
	apenet_hdb_set_heartbeat_flush(s->db, (unsigned)s->cfg.svr.heartbeat_flush_ms);
	if (apenet_hdb_layout(s->db, s->cfg.cl.dims, sup_node_name, &s->cfg, &e))
		return apenet_daemon_fail("layout", &e);
	if (apenet_deduce_open(&dc, &s->ded, &e))
		return apenet_daemon_fail("deduction", &e);
	if (sup_restore(s, &e))
		return apenet_daemon_fail("restore", &e);

	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, 0 };
	if ((s->sfd = apenet_daemon_signalfd(sigs, &e)) < 0)
		return apenet_daemon_fail("", &e);
	long tick = (long)s->cfg.svr.tick_ms;
	struct itimerspec it = { { tick / 1000, (tick % 1000) * 1000000 }, { tick / 1000, (tick % 1000) * 1000000 } };
	if ((s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) < 0 ||
	    timerfd_settime(s->tfd, 0, &it, NULL)) {
		apenet_err_set(&e, APENET_EIO, "timerfd: %s", strerror(errno));
		return apenet_daemon_fail("", &e);
	}
	if (mkdir(s->snmp_dir, 0700) && errno != EEXIST) {
		apenet_err_set(&e, APENET_EIO, "%s: %s", s->snmp_dir, strerror(errno));
		return apenet_daemon_fail("", &e);
	}
	sup_mib_want(s);
	if (sup_recv_open(s, &e))
		return apenet_daemon_fail("", &e);
	if (sup_mib_open(s, &e))
		return apenet_daemon_fail("AgentX", &e);
	if (s->cfg.slurm.enabled)
		apenet_log(APENET_LOG_NOTICE, "slurm: settled incidents drain their nodes with %s%s%s%s", s->cfg.slurm.scontrol,
			   s->cfg.slurm.slurm_conf[0] ? " (SLURM_CONF " : "", s->cfg.slurm.slurm_conf,
			   s->cfg.slurm.slurm_conf[0] ? ")" : "");
	if (s->cfg.slurm.enabled && s->cfg.slurm.dry_run)
		apenet_log(APENET_LOG_NOTICE, "slurm: dry run: actions are only logged and recorded");
	apenet_log(APENET_LOG_NOTICE,
		   "instance %u listening on %s (SNMP%s), database %s, torus %ux%ux%u, batches of %g reports or %g ms, "
		   "config %s",
		   s->opt.instance, s->listen, s->cfg.sup.version == APENET_SNMP_V3 ? "v3 authPriv" : "v2c", s->db_path,
		   s->cfg.cl.dims[0], s->cfg.cl.dims[1], s->cfg.cl.dims[2], s->cfg.svr.batch_max_events,
		   s->cfg.svr.batch_max_ms, s->config_path[0] ? s->config_path : "(defaults)");
	return 0;
}

static void stop(struct sup *s)
{
	sup_recv_close(s);
	sup_mib_close(s); /* after the receiver's session: this one ends net-snmp */
	sup_batch_free(s);
	apenet_deduce_close(s->ded);
	apenet_hdb_close(s->db);
	if (s->tfd >= 0)
		close(s->tfd);
	if (s->sfd >= 0)
		close(s->sfd);
	apenet_config_free(&s->cfg);
}

int main(int argc, char **argv)
{
	static struct sup s;
	static const char *inst;
	static const struct apenet_daemon_opt opts[] = {
		{ "--db", NULL, &s.opt.db, NULL, NULL },
		{ "--listen", NULL, &s.opt.listen, NULL, NULL },
		{ "--instance", NULL, &inst, NULL, instance_check },
		{ NULL, NULL, NULL, NULL, NULL },
	};
	static struct apenet_daemon d = { .name = "apenet-supervisor", .usage = usage,
					  .version = "apenet-supervisor " APENET_VERSION_TEXT, .section = "supervisor",
					  .opts = opts };
	s.tfd = s.sfd = s.sock = -1;
	sup_slurm_init(&s);
	/* the health database, its WAL and net-snmp's files: the supervisor's
	 * user writes them, its group (apenet) reads them (the umask) */
	d.out = stdout;
	d.err = stderr;
	if (apenet_daemon_start(&d, argc, argv, &s.cfg))
		return d.status;
	apenet_daemon_log(&d, &s.cfg);
	s.opt.instance = inst ? (unsigned)strtoul(inst, NULL, 10) : 1;
	s.opt.config = d.config;
	s.opt.foreground = d.foreground;
	snprintf(s.config_path, sizeof(s.config_path), "%s", d.config_path);
	int rc = start(&s);
	if (rc == 0)
		rc = sup_loop(&s) ? 1 : 0;
	stop(&s);
	if (rc != 2)
		apenet_log(APENET_LOG_NOTICE, "stopped: %llu reports received, %llu stored, %llu duplicates, %llu "
					      "rejected, %llu refused, %llu acknowledged in %llu batches",
			   (unsigned long long)s.n.received, (unsigned long long)s.n.stored,
			   (unsigned long long)s.n.duplicates, (unsigned long long)s.n.rejected,
			   (unsigned long long)s.n.refused, (unsigned long long)s.n.acked, (unsigned long long)s.n.batches);
	if (rc != 2 && s.cfg.sup.version == APENET_SNMP_V3) {
		char b[512];
		size_t off = 0;
		for (int i = 0; i < SUP_V3_NWHY; i++)
			off += (size_t)snprintf(b + off, sizeof(b) - off, "%s%s %llu", i ? ", " : "", sup_v3_why_name[i],
						(unsigned long long)s.n.v3[i]);
		apenet_log(APENET_LOG_NOTICE, "SNMPv3: %s", b);
	}
	return rc;
}
