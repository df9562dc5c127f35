/*
 * End to end: two writers on one card's command region (the node agent and
 * the CLI, once the agent runs), against the real apenet-sim.
 *
 *   - Two processes issue WRITER_CMDS commands each through
 *     apenet_dev_command_result at once: every command comes back with its
 *     own result, none is lost (CMD_DONE_SEQ advances by exactly one per
 *     command), and the two take turns rather than one starving the other.
 *   - The control: the same two writers with the command protocol as it was
 *     before the lock (read DONE_SEQ, write CODE, ARG, SEQ; no lock) mix or
 *     lose commands.  That protocol lives only here, in unlocked_command().
 *   - A lock held by another process turns into an error naming the lock
 *     file and the holder's PID; a holder killed outright leaves no lock.
 *
 * Each writer's commands cycle through three kinds whose results differ (NOP
 * -> OK, an unknown code -> BADCODE, REALIGN of a link that does not exist ->
 * BADARG), so a command that ran with the other writer's CODE or ARG shows up
 * as a wrong result.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "e2e.h"

#define WRITER_CMDS 300
#define CONTROL_MAX_CMDS 3000
#define DEADLINE 60.0

static struct e2e_sim sim;

struct shared {
	int ok[2], wrong[2], lost[2], failed[2];
	int order[2 * CONTROL_MAX_CMDS]; /* which writer finished each command, in order */
	int norder;
	int stop; /* the control stops once it saw a mix-up */
	char msg[2][sizeof(struct apenet_err)]; /* room for an error message */
};

static struct shared *sh;

static int setup(void **state)
{
	(void)state;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return -1;
	/* One board; 2 ms ticks so that hundreds of commands take seconds. */
	return e2e_sim_start(&sim, "--dims", "1x1x1", "--tick-ms", "2", NULL);
}

static int teardown(void **state)
{
	(void)state;
	munmap(sh, sizeof(*sh));
	return e2e_sim_stop(&sim) == 0 ? 0 : -1;
}

/* Command i of writer w, and the result the firmware must give it. */
static void command_of(int w, int i, uint32_t *code, uint32_t *arg, uint32_t *expect)
{
	switch ((i + w) % 3) {
	case 0:
		*code = APENET_CMD_NOP, *arg = (uint32_t)i, *expect = APENET_CMDERR_OK;
		break;
	case 1:
		*code = 0xc0de0000u + (uint32_t)(w << 12) + (uint32_t)i, *arg = 0, *expect = APENET_CMDERR_BADCODE;
		break;
	default:
		*code = APENET_CMD_REALIGN, *arg = 0x100u + (uint32_t)i, *expect = APENET_CMDERR_BADARG;
	}
}

static void record(int w)
{
	int k = __atomic_fetch_add(&sh->norder, 1, __ATOMIC_SEQ_CST);
	if (k < (int)(sizeof(sh->order) / sizeof(sh->order[0])))
		sh->order[k] = w;
}

/* The command protocol without the lock, as apenet_dev_command ran it before:
 * 0 and the result, 1 when its acknowledgement was overtaken (DONE_SEQ went
 * past our sequence number: the command was lost or merged), -1 on timeout. */
static int unlocked_command(struct apenet_dev *d, uint32_t code, uint32_t arg, uint32_t *result)
{
	uint32_t seq = apenet_rd32(d, APENET_REG_CMD_DONE_SEQ) + 1;
	apenet_wr32(d, APENET_REG_CMD_CODE, code);
	apenet_wr32(d, APENET_REG_CMD_ARG, arg);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	apenet_wr32(d, APENET_REG_CMD_SEQ, seq);
	double end = e2e_now() + 5;
	while (e2e_now() < end) {
		uint32_t done = apenet_rd32(d, APENET_REG_CMD_DONE_SEQ);
		if (done == seq) {
			*result = apenet_rd32(d, APENET_REG_CMD_RESULT);
			return 0;
		}
		if ((int32_t)(done - seq) > 0)
			return 1;
		struct timespec ts = { 0, 500000 };
		nanosleep(&ts, NULL);
	}
	return -1;
}

/* A writer process: waits for the start signal, then runs its commands. */
static void writer(int w, int start_fd, int locked, int ncmds)
{
	struct apenet_dev d;
	char c;
	if (e2e_open(&sim, 0, 0, 0, &d))
		_exit(3);
	if (read(start_fd, &c, 1) < 0)
		_exit(3);
	for (int i = 0; i < ncmds && !__atomic_load_n(&sh->stop, __ATOMIC_RELAXED); i++) {
		uint32_t code, arg, expect, result = 0;
		int rc;
		struct apenet_err e = { 0 };
		command_of(w, i, &code, &arg, &expect);
		if (locked) {
			rc = apenet_dev_command_result(&d, code, arg, 5000, &result, &e);
			if (rc && !sh->msg[w][0])
				snprintf(sh->msg[w], sizeof(sh->msg[w]), "%s", e.msg);
		} else {
			rc = unlocked_command(&d, code, arg, &result);
		}
		if (rc < 0) {
			sh->failed[w]++;
		} else if (rc > 0) {
			sh->lost[w]++;
		} else if (result != expect) {
			sh->wrong[w]++;
			if (!sh->msg[w][0])
				snprintf(sh->msg[w], sizeof(sh->msg[w]), "command %d (code 0x%x arg 0x%x): result %u, expected %u",
					 i, code, arg, result, expect);
		} else {
			sh->ok[w]++;
		}
		record(w);
		if (!locked && (sh->lost[w] || sh->wrong[w]))
			__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	}
	apenet_dev_close(&d);
	_exit(0);
}

/* Runs both writers to the end; 0 when both exited cleanly. */
static int race(int locked, int ncmds)
{
	int p[2];
	pid_t pid[2];
	memset(sh, 0, sizeof(*sh));
	if (pipe(p))
		return -1;
	fflush(NULL);
	for (int w = 0; w < 2; w++) {
		pid[w] = fork();
		if (pid[w] < 0)
			return -1;
		if (pid[w] == 0) {
			close(p[1]);
			writer(w, p[0], locked, ncmds);
		}
	}
	close(p[0]);
	close(p[1]); /* both readers see EOF: the start, as close to together as we can */
	int bad = 0;
	for (int w = 0; w < 2; w++) {
		int st;
		if (waitpid(pid[w], &st, 0) != pid[w] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad = 1;
	}
	return bad ? -1 : 0;
}

static uint32_t done_seq(void)
{
	struct apenet_dev d;
	assert_int_equal(e2e_open(&sim, 0, 0, 0, &d), 0);
	uint32_t v = apenet_rd32(&d, APENET_REG_CMD_DONE_SEQ);
	apenet_dev_close(&d);
	return v;
}

static void test_two_writers_with_the_lock(void **state)
{
	(void)state;
	uint32_t before = done_seq();
	double t0 = e2e_now();
	assert_int_equal(race(1, WRITER_CMDS), 0);
	double took = e2e_now() - t0;
	int switches = 0;
	for (int k = 1; k < sh->norder; k++)
		switches += sh->order[k] != sh->order[k - 1];
	printf("locked: %d + %d commands in %.1f s; the writers took turns %d times\n", sh->ok[0], sh->ok[1], took,
	       switches);
	for (int w = 0; w < 2; w++) {
		if (sh->msg[w][0])
			printf("writer %d: %s\n", w, sh->msg[w]);
		assert_int_equal(sh->failed[w], 0);
		assert_int_equal(sh->wrong[w], 0);
		assert_int_equal(sh->lost[w], 0);
		assert_int_equal(sh->ok[w], WRITER_CMDS);
	}
	/* Nothing lost or merged: one sequence number per command. */
	assert_int_equal(done_seq() - before, 2 * WRITER_CMDS);
	/* Neither starved: a writer in a loop hands the lock over when the
	 * other waits.  Without the handoff the order is one writer's commands
	 * then the other's (a turn or two); with it, close to one turn per
	 * command (about 600).  Requiring a tenth of that leaves room for a
	 * loaded machine (about 470 measured with four busy loops on two cores). */
	assert_true(switches >= WRITER_CMDS / 5);
}

static void test_without_the_lock_commands_mix(void **state)
{
	(void)state;
	/* Until the first mix-up (normally within the first few commands), or
	 * CONTROL_MAX_CMDS each. */
	assert_int_equal(race(0, CONTROL_MAX_CMDS), 0);
	int lost = sh->lost[0] + sh->lost[1], wrong = sh->wrong[0] + sh->wrong[1];
	printf("unlocked: %d commands: %d with the other writer's result, %d lost, %d ok\n", sh->norder, wrong, lost,
	       sh->ok[0] + sh->ok[1]);
	for (int w = 0; w < 2; w++)
		if (sh->msg[w][0])
			printf("writer %d: %s\n", w, sh->msg[w]);
	/* The control shows the race the lock prevents; a race is a matter of
	 * scheduling, and on a loaded machine the two writers may never overlap
	 * (seen once in a loaded soak: 6000 commands, no overlap).  No overlap
	 * proves nothing either way: skipped, not failed.  The locked test
	 * above is the assertion. */
	if (lost + wrong == 0) {
		printf("unlocked: the writers never overlapped this time: control skipped\n");
		skip();
	}
}

/* A child that takes the lock, says so on out_fd, and keeps it until in_fd closes. */
static pid_t holder(int *to_child, int *from_child)
{
	int a[2], b[2];
	if (pipe(a) || pipe(b))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		struct apenet_dev d;
		struct apenet_err e = { 0 };
		char c = 'L';
		close(a[1]);
		close(b[0]);
		if (e2e_open(&sim, 0, 0, 0, &d) || apenet_dev_lock(&d, 5000, &e))
			_exit(3);
		if (write(b[1], &c, 1) != 1)
			_exit(3);
		while (read(a[0], &c, 1) > 0)
			;
		apenet_dev_unlock(&d);
		apenet_dev_close(&d);
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	*to_child = a[1];
	*from_child = b[0];
	return pid;
}

static void test_busy_lock_names_file_and_holder(void **state)
{
	(void)state;
	int to, from;
	char c;
	pid_t pid = holder(&to, &from);
	assert_true(pid > 0);
	assert_int_equal(read(from, &c, 1), 1);

	struct apenet_dev d;
	struct apenet_err e = { 0 };
	char want[64];
	assert_int_equal(e2e_open(&sim, 0, 0, 0, &d), 0);
	double t0 = e2e_now();
	assert_int_equal(apenet_dev_command(&d, APENET_CMD_NOP, 0, 200, &e), -1);
	double waited = e2e_now() - t0;
	printf("%s\n", e.msg);
	assert_int_equal(e.code, APENET_EBUSY);
	assert_non_null(strstr(e.msg, d.lock_path));
	snprintf(want, sizeof(want), "pid %d", (int)pid);
	assert_non_null(strstr(e.msg, want));
	assert_true(waited >= 0.2 && waited < 5);
	/* The command never reached the card. */
	assert_int_equal(apenet_rd32(&d, APENET_REG_CMD_SEQ), apenet_rd32(&d, APENET_REG_CMD_DONE_SEQ));
	/* The CLI says the same after its 5 s, and exits 2. */
	char node[PATH_MAX + 64], out[1024], err[1024];
	e2e_node_dir(&sim, 0, 0, 0, node, sizeof(node));
	assert_int_equal(e2e_run(out, sizeof(out), err, sizeof(err), "apenet", "--sim", node, "clear-counters", NULL),
			 2);
	printf("apenet clear-counters: %s", err);
	assert_non_null(strstr(err, "command region busy"));
	assert_non_null(strstr(err, want));
	assert_int_equal(apenet_rd32(&d, APENET_REG_CMD_SEQ), apenet_rd32(&d, APENET_REG_CMD_DONE_SEQ));

	/* Released: the next command goes through. */
	close(to);
	close(from);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(apenet_dev_command(&d, APENET_CMD_NOP, 0, 5000, &e), 0);

	/* A holder killed outright: the kernel drops its lock. */
	pid = holder(&to, &from);
	assert_true(pid > 0);
	assert_int_equal(read(from, &c, 1), 1);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(to);
	close(from);
	assert_int_equal(apenet_dev_command(&d, APENET_CMD_NOP, 0, 5000, &e), 0);

	/* Locks nest: a caller may hold it around several commands. */
	assert_int_equal(apenet_dev_lock(&d, 1000, &e), 0);
	assert_int_equal(apenet_dev_command(&d, APENET_CMD_NOP, 0, 5000, &e), 0);
	assert_int_equal(apenet_dev_command(&d, APENET_CMD_CLEAR_COUNTERS, 1, 5000, &e), 0);
	assert_int_equal(d.lock_depth, 1);
	apenet_dev_unlock(&d);
	assert_int_equal(d.lock_depth, 0);
	apenet_dev_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_writers_with_the_lock),
		cmocka_unit_test(test_without_the_lock_commands_mix),
		cmocka_unit_test(test_busy_lock_names_file_and_holder),
	};
	return cmocka_run_group_tests_name("e2e_cmdlock", tests, setup, teardown);
}
