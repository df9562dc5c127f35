/*
 * apenet agent-status [--json] [--socket PATH] [--config FILE]: asks the
 * running node agent (apenet-agent) for its state over its unix socket
 * (agent.socket of the config, /run/apenet/agent.sock by default): period
 * and overruns, the watchdog on both sides, LDM_HOST, EDAC, neighbours, the
 * black box, the last transitions.  --json prints the agent's own document;
 * text is the same tree through the one writer.  Exit 0 with an answer, 2
 * when no agent answers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "apenet/conf.h"
#include "apenet/config.h"
#include "cli.h"

/* The whole answer, or NULL with the reason in err. */
static char *ask(const char *path, size_t *len, char *err, size_t errn)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errn, "%s: too long for a unix socket", path);
		return NULL;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* the agent answers within its loop: a few periods at most */
	struct timeval tv = { 5, 0 };
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, "status\n", 7) != 7) {
		snprintf(err, errn, "no agent answers on %s: %s (is apenet-agent running? agent.socket in the config)", path,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			snprintf(err, errn, "out of memory");
			break;
		}
		if (n + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				continue;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errn, "%s: %s", path, errno == EAGAIN ? "the agent did not answer within 5 s" : strerror(errno));
			free(buf);
			buf = NULL;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf && n == 0) {
		snprintf(err, errn, "%s: the agent closed the connection without an answer", path);
		free(buf);
		return NULL;
	}
	if (buf) {
		buf[n] = 0;
		*len = n;
	}
	return buf;
}

/* The agent's JSON tree, written again through the writer (text, CSV). */
static void copy(struct apenet_out *o, const struct apenet_conf_node *n, const char *key)
{
	switch (n->kind) {
	case APENET_CONF_MAP:
		apenet_out_obj_begin(o, key);
		for (const struct apenet_conf_node *c = n->child; c; c = c->next)
			copy(o, c, c->key);
		apenet_out_obj_end(o);
		break;
	case APENET_CONF_SEQ:
		/* the transitions carry many fields: one block each, not a table */
		if (key && !strcmp(key, "transitions"))
			apenet_out_arr_begin_vertical(o, key);
		else
			apenet_out_arr_begin(o, key);
		for (const struct apenet_conf_node *c = n->child; c; c = c->next)
			copy(o, c, NULL);
		apenet_out_arr_end(o);
		break;
	case APENET_CONF_SCALAR:
		if (!strcmp(n->value, "null"))
			apenet_out_null(o, key);
		else
			apenet_out_str(o, key, n->value);
		break;
	}
}

int cmd_agent_status(struct cli *c)
{
	const char *sock = NULL, *config = NULL;
	const struct cli_opt opts[] = { { "--socket", &sock, NULL }, { "--config", &config, NULL }, { NULL, NULL, NULL } };
	const char *pos[1];
	int npos;
	if (cli_parse(c, "agent-status", opts, pos, 0, &npos))
		return CLI_EXIT_ERROR;
	struct apenet_config cfg;
	int rc = cli_config("agent-status", config, &cfg);
	if (rc)
		return rc;
	char path[APENET_PATH_MAX], err[APENET_PATH_MAX + 200];
	snprintf(path, sizeof(path), "%s", sock ? sock : cfg.agent.socket);
	apenet_config_free(&cfg);
	size_t len = 0;
	char *doc = ask(path, &len, err, sizeof(err));
	if (!doc)
		return cli_input_error(c, "agent-status", "NO_AGENT", "%s", err);
	if (c->fmt == APENET_OUT_JSON) {
		/* the agent's own document, as it wrote it */
		int ok = fwrite(doc, 1, len, stdout) == len && fflush(stdout) == 0;
		free(doc);
		return ok ? CLI_EXIT_OK : CLI_EXIT_ERROR;
	}
	struct apenet_conf *t;
	struct apenet_err e = { 0 };
	if (apenet_conf_load_string(path, doc, &t, &e)) {
		free(doc);
		return cli_input_error(c, "agent-status", "BAD_ANSWER", "the agent's answer does not parse: %s", e.msg);
	}
	free(doc);
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "agent-status");
	for (const struct apenet_conf_node *n = t->root->child; n; n = n->next)
		if (strcmp(n->key, "schema") && strcmp(n->key, "command"))
			copy(o, n, n->key);
	apenet_conf_free(t);
	return apenet_out_finish(o) ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
