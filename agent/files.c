/*
 * The agent's files: its state directory, the boot counter that makes
 * (node, boot id, sequence) unique across restarts, the lock file that
 * keeps a second agent off the card, black-box dumps and their retention,
 * and dropping root once everything that needs it is open.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apenet/clock.h"
#include "agent.h"
#include "apenet/log.h"
#include "apenet/out.h"

int agent_mkdirs(const char *path, mode_t mode)
{
	char p[APENET_PATH_MAX];
	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(p, mode) && errno != EEXIST)
		return -1;
	return 0;
}

/* ---- one agent per card ---- */

int agent_lock(struct agent *a, struct apenet_err *e)
{
	const char *dir = a->cfg.agent.lock_dir[0] ? a->cfg.agent.lock_dir : a->smp.site.lockdir;
	snprintf(a->lock_path, sizeof(a->lock_path), "%s/apenet-agent-%s.lock", dir, a->smp.card.bdf);
	if (a->cfg.agent.lock_dir[0] && agent_mkdirs(dir, 0755))
		return apenet_err_set(e, APENET_EIO, "%s: %s", dir, strerror(errno));
	a->lock_fd = open(a->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (a->lock_fd < 0)
		return apenet_err_set(e, APENET_EIO, "%s: %s", a->lock_path, strerror(errno));
	/* an OFD lock belongs to this open file: the kernel drops it when the
	 * agent dies, however it dies (docs/design.md, "The command lock") */
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
	if (fcntl(a->lock_fd, F_OFD_SETLK, &fl)) {
		char pid[32] = "";
		ssize_t n = pread(a->lock_fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = 0;
		pid[strcspn(pid, "\n")] = 0;
		close(a->lock_fd);
		a->lock_fd = -1;
		return apenet_err_set(e, APENET_EBUSY, "another agent (pid %s) already runs on %s: %s holds its lock",
				      pid[0] ? pid : "?", a->smp.card.bdf, a->lock_path);
	}
	char pid[32];
	int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(a->lock_fd, 0) || pwrite(a->lock_fd, pid, (size_t)n, 0) != n)
		apenet_log(APENET_LOG_WARN, "%s: cannot write the pid: %s", a->lock_path, strerror(errno));
	return 0;
}

/* ---- the boot counter ---- */

uint64_t agent_boot_count(const char *state_dir)
{
	char path[APENET_PATH_MAX + 32], tmp[APENET_PATH_MAX + 48];
	unsigned long long n = 0;
	snprintf(path, sizeof(path), "%s/boot_count", state_dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%llu", &n) != 1)
			n = 0;
		fclose(f);
	}
	n++;
	f = fopen(tmp, "we");
	if (!f || fprintf(f, "%llu\n", n) < 0 || fflush(f) || fsync(fileno(f)) || fclose(f) || rename(tmp, path)) {
		/* no state to keep it in: seconds since the epoch are unique enough
		 * unless the agent restarts twice within one */
		if (f)
			fclose(f);
		apenet_log(APENET_LOG_WARN, "%s: %s: the boot id is the start time", path, strerror(errno));
		return (uint64_t)time(NULL);
	}
	return n;
}

/* ---- black-box dumps ---- */

static int dump_prefix(const struct agent *a, char *buf, size_t n)
{
	return snprintf(buf, n, "blackbox-%u-%u-%u-", a->xyz[0], a->xyz[1], a->xyz[2]);
}

static int by_name(const struct dirent **x, const struct dirent **y)
{
	return strcmp((*x)->d_name, (*y)->d_name);
}

/* Keep the newest dumps of this node within keep_files and keep_mib; the
 * newest one always stays. */
void agent_retention(struct agent *a)
{
	const char *dir = a->cfg.agent.blackbox_dir;
	char prefix[64];
	dump_prefix(a, prefix, sizeof(prefix));
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, by_name);
	if (n < 0) {
		apenet_log(APENET_LOG_WARN, "%s: %s", dir, strerror(errno));
		return;
	}
	size_t keep_files = (size_t)a->cfg.agent.blackbox_keep_files;
	double keep_bytes = a->cfg.agent.blackbox_keep_mib * 1024 * 1024, total = 0;
	size_t kept = 0;
	/* newest first (names carry the UTC time) */
	for (int i = n - 1; i >= 0; i--) {
		const char *name = ents[i]->d_name;
		size_t len = strlen(name);
		if (strncmp(name, prefix, strlen(prefix)) || len < 5 || strcmp(name + len - 5, ".json"))
			continue;
		char path[APENET_PATH_MAX + 300];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (stat(path, &st))
			continue;
		if (kept > 0 && (kept >= keep_files || total + (double)st.st_size > keep_bytes)) {
			if (unlink(path) == 0)
				apenet_log(APENET_LOG_INFO, "black box: %s removed (retention)", path);
			continue;
		}
		kept++;
		total += (double)st.st_size;
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
}

int agent_dump(struct agent *a, const char *reason)
{
	const char *dir = a->cfg.agent.blackbox_dir;
	int64_t now = apenet_clock_epoch_ms();
	time_t secs = (time_t)(now / 1000);
	struct tm tm;
	gmtime_r(&secs, &tm);
	char prefix[64], stamp[40], name[160], path[APENET_PATH_MAX + 200], tmp[APENET_PATH_MAX + 220];
	dump_prefix(a, prefix, sizeof(prefix));
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	snprintf(name, sizeof(name), "%s%s.%03dZ-%llu.json", prefix, stamp, (int)(now % 1000),
		 (unsigned long long)a->dumps + 1);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);

	struct apenet_err e = { 0 };
	unsigned ns = 0;
	int64_t t0 = apenet_clock_mono_us();
	FILE *f = fopen(tmp, "we");
	int rc = -1;
	if (!f) {
		apenet_log(APENET_LOG_ERR, "black box: %s: %s", tmp, strerror(errno));
	} else {
		/* a snapshot document, streamed; why it was written comes first */
		struct apenet_out *o = apenet_out_stream(APENET_OUT_JSON, f, "snapshot");
		apenet_out_obj_begin(o, "blackbox");
		apenet_out_str(o, "reason", reason);
		apenet_out_strf(o, "node", "%u,%u,%u", a->xyz[0], a->xyz[1], a->xyz[2]);
		apenet_out_uint(o, "boot_id", a->boot_id);
		apenet_out_int(o, "written_ms", now);
		apenet_out_int(o, "held_from_ms", apenet_bbox_first_ms(&a->bbox));
		apenet_out_int(o, "held_to_ms", apenet_bbox_last_ms(&a->bbox));
		apenet_out_uint(o, "held_samples", apenet_bbox_count(&a->bbox));
		apenet_out_dbl_g(o, "period_ms", a->cfg.agent.period_ms, 6);
		apenet_out_obj_end(o);
		rc = apenet_bbox_dump(&a->bbox, o, (int64_t)(a->cfg.agent.blackbox_dump_full_s * 1000),
				      (int64_t)(a->cfg.agent.blackbox_dump_step_s * 1000), &ns, &e);
		if (apenet_out_finish(o))
			rc = -1;
		/* a black box is read after a crash: on disk before it is named */
		if (fflush(f) || fsync(fileno(f)))
			rc = -1;
		if (fclose(f))
			rc = -1;
		if (rc == 0 && rename(tmp, path))
			rc = -1;
		if (rc) {
			apenet_log(APENET_LOG_ERR, "black box: %s: %s", path, e.msg[0] ? e.msg : strerror(errno));
			unlink(tmp);
		}
	}
	a->last_dump_ms = now;
	if (rc) {
		a->dump_errors++;
		return -1;
	}
	a->dumps++;
	a->last_dump_samples = ns;
	snprintf(a->last_dump, sizeof(a->last_dump), "%s", path);
	apenet_log(APENET_LOG_NOTICE, "black box: %u samples written to %s in %lld ms (%s)", ns, path,
		   (long long)((apenet_clock_mono_us() - t0) / 1000), reason);
	agent_retention(a);
	return 0;
}

/* ---- privileges ---- */

/* Before the card is touched: who a root agent becomes.  Root is never kept
 * by accident: a user that does not exist, or one that is root itself, stops
 * the start (exit 2); only user: "" keeps root, and says so at every start.
 * Started as another user there is nothing to drop and the key is not used. */
int agent_check_user(struct agent *a, struct apenet_err *e)
{
	const char *user = a->cfg.agent.user;
	const char *from = a->config_path[0] ? a->config_path : "(built-in defaults)";
	a->uid = geteuid();
	a->gid = getegid();
	a->drop = 0;
	if (a->uid != 0)
		return 0;
	if (!user[0]) {
		apenet_log(APENET_LOG_WARN,
			   "running as root on purpose (agent.user: \"\" in %s): the card, the socket, the spool and "
			   "every file are root's for as long as the agent runs; name an unprivileged user (apenet) "
			   "to drop root after mapping the BAR",
			   from);
		return 0;
	}
	errno = 0;
	struct passwd *pw = getpwnam(user);
	if (!pw)
		return apenet_err_set(e, APENET_EINVAL,
				      "%s: agent.user: user '%s' does not exist%s%s; create it (make install does, "
				      "with sysusers.d: systemd-sysusers), name another unprivileged user, or write "
				      "user: \"\" to run as root on purpose",
				      from, user, errno ? ": " : "", errno ? strerror(errno) : "");
	if (pw->pw_uid == 0)
		return apenet_err_set(e, APENET_EINVAL,
				      "%s: agent.user: '%s' is root (uid 0): nothing would be dropped; name an "
				      "unprivileged user (apenet), or write user: \"\" to run as root on purpose",
				      from, user);
	a->drop = 1;
	a->drop_uid = pw->pw_uid;
	a->drop_gid = pw->pw_gid;
	return 0;
}

/* Right after the card is open (the BAR mapped, libpci's config file open):
 * everything after this, the lock, the files, the socket, the spool, is
 * done as the user, so the agent needs no capability to write files as
 * root (etc/systemd/apenet-agent.service: CAP_SYS_ADMIN for config space,
 * CAP_SETUID and CAP_SETGID for this, nothing else). */
int agent_drop_privileges(struct agent *a)
{
	const char *user = a->cfg.agent.user;
	if (a->uid != 0) {
		snprintf(a->privileges, sizeof(a->privileges), "not root (uid %u): nothing to drop", (unsigned)a->uid);
		apenet_log(APENET_LOG_INFO, "%s", a->privileges);
		return 0;
	}
	if (!a->drop) {
		snprintf(a->privileges, sizeof(a->privileges), "running as root on purpose (agent.user: \"\")");
		return 0;
	}
	uid_t uid = a->drop_uid;
	gid_t gid = a->drop_gid;
	if (setgroups(1, &gid) || setgid(gid) || setuid(uid)) {
		snprintf(a->privileges, sizeof(a->privileges), "cannot drop root to '%s': %s", user, strerror(errno));
		apenet_log(APENET_LOG_ERR, "%s", a->privileges);
		return -1;
	}
	if (setuid(0) == 0 || geteuid() == 0) {
		snprintf(a->privileges, sizeof(a->privileges), "root came back after dropping to '%s'", user);
		apenet_log(APENET_LOG_ERR, "%s", a->privileges);
		return -1;
	}
	a->uid = uid;
	a->gid = gid;
	snprintf(a->privileges, sizeof(a->privileges),
		 "dropped root to %s (uid %u, gid %u) after mapping the BAR and opening libpci", user, (unsigned)uid,
		 (unsigned)gid);
	apenet_log(APENET_LOG_NOTICE, "%s", a->privileges);
	return 0;
}
