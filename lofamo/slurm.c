/*
 * The batch scheduler's decisions (include/apenet/slurm.h): the policy's
 * nodes, the reason text, scontrol's description of a node, and drain,
 * leave alone or resume.  The process around them is supervisor/slurm.c.
 */
#include <stdio.h>
#include <string.h>

#include "apenet/config.h"
#include "apenet/deduce.h"
#include "apenet/regs.h"
#include "apenet/slurm.h"
#include "deduce_int.h"

/* Each component the deduction names (deduce.h) and its key; a sensor's
 * three share one. */
static const struct {
	const char *component;
	size_t off;
} policy_keys[] = {
	{ "card", offsetof(struct apenet_slurm_config, card) },
	{ "dnp", offsetof(struct apenet_slurm_config, dnp) },
	{ "host", offsetof(struct apenet_slurm_config, host) },
	{ "node-power", offsetof(struct apenet_slurm_config, node_power) },
	{ "pcie", offsetof(struct apenet_slurm_config, pcie) },
	{ "memory", offsetof(struct apenet_slurm_config, memory) },
	{ "sensor:temperature", offsetof(struct apenet_slurm_config, sensor) },
	{ "sensor:voltage", offsetof(struct apenet_slurm_config, sensor) },
	{ "sensor:current", offsetof(struct apenet_slurm_config, sensor) },
	{ "cabling", offsetof(struct apenet_slurm_config, cabling) },
	{ "cable", offsetof(struct apenet_slurm_config, cable) },
	{ "link", offsetof(struct apenet_slurm_config, link) },
	{ "module", offsetof(struct apenet_slurm_config, module) },
	{ "agent", offsetof(struct apenet_slurm_config, agent) },
	{ "service-network", offsetof(struct apenet_slurm_config, service_network) },
};

int apenet_slurm_policy(const struct apenet_slurm_config *c, const char *component)
{
	if (!strcmp(component, "supervisor"))
		return APENET_SLURM_NONE; /* it names no node */
	const char *word = c->other;
	for (size_t i = 0; i < sizeof(policy_keys) / sizeof(policy_keys[0]); i++)
		if (!strcmp(policy_keys[i].component, component))
			word = (const char *)c + policy_keys[i].off;
	return !strcmp(word, "ends") ? APENET_SLURM_ENDS : !strcmp(word, "node") ? APENET_SLURM_NODE : APENET_SLURM_NONE;
}

/* The node link ("X+" .. "Z-", or a v5 paired channel) of node xyz faces
 * in the torus (the toolkit's one geometry: apenet_torus_neighbour); 0
 * when there is none, or past an edge whose dimension has no wraparound. */
static int facing(const unsigned xyz[3], const char *link, const unsigned dims[3], const int wrap[3], unsigned out[3])
{
	uint8_t dir = apenet_deduce_dir_of(link);
	enum apenet_dir back;
	int dim, wraps;
	if (dir == DD_NOLINK || apenet_torus_neighbour(dims, xyz, (enum apenet_dir)dir, out, &back, &dim, &wraps))
		return 0;
	return !wraps || wrap[dim];
}

unsigned apenet_slurm_nodes(const struct apenet_slurm_config *c, const struct apenet_deduce_blame *b,
			    const unsigned dims[3], const int wrap[3], unsigned out[2][3])
{
	int p = apenet_slurm_policy(c, b->component);
	if (!b->has_node || p == APENET_SLURM_NONE)
		return 0;
	out[0][0] = b->x;
	out[0][1] = b->y;
	out[0][2] = b->z;
	if (p == APENET_SLURM_NODE)
		return 1;
	unsigned far[3];
	int have = 0;
	if (b->has_far) {
		far[0] = b->fx;
		far[1] = b->fy;
		far[2] = b->fz;
		have = 1;
	} else if (b->link[0]) {
		have = facing(out[0], b->link, dims, wrap, far);
	}
	if (!have || !memcmp(far, out[0], sizeof(far)))
		return 1; /* no far end, or itself (a dimension of 1) */
	memcpy(out[1], far, sizeof(far));
	return 2;
}

static int in_set(const unsigned (*set)[3], unsigned n, const unsigned node[3])
{
	for (unsigned i = 0; i < n; i++)
		if (!memcmp(set[i], node, 3 * sizeof(unsigned)))
			return 1;
	return 0;
}

void apenet_slurm_plan(const unsigned (*want)[3], unsigned nwant, const unsigned (*held)[3], unsigned nheld,
		       unsigned (*drain)[3], unsigned *ndrain, unsigned (*resume)[3], unsigned *nresume)
{
	*ndrain = *nresume = 0;
	for (unsigned i = 0; i < nwant; i++)
		if (!in_set(held, nheld, want[i]) && !in_set((const unsigned (*)[3])drain, *ndrain, want[i]))
			memcpy(drain[(*ndrain)++], want[i], 3 * sizeof(unsigned));
	for (unsigned i = 0; i < nheld; i++)
		if (!in_set(want, nwant, held[i]) && !in_set((const unsigned (*)[3])resume, *nresume, held[i]))
			memcpy(resume[(*nresume)++], held[i], 3 * sizeof(unsigned));
}

void apenet_slurm_reason(char *buf, size_t len, int64_t id, const char *summary)
{
	if (!len)
		return;
	if (len > APENET_SLURM_REASON_MAX)
		len = APENET_SLURM_REASON_MAX;
	int n = snprintf(buf, len, APENET_SLURM_REASON_TAG "%lld: ", (long long)id);
	if (n < 0 || (size_t)n >= len) {
		buf[0] = 0; /* no room for the id: no reason at all */
		return;
	}
	size_t k = (size_t)n;
	for (const unsigned char *s = (const unsigned char *)summary; *s && k + 1 < len; s++)
		buf[k++] = *s < 0x20 || *s > 0x7e ? '?' : *s == '"' ? '\'' : (char)*s;
	buf[k] = 0;
}

int apenet_slurm_reason_ours(const char *reason)
{
	return !strncmp(reason, APENET_SLURM_REASON_TAG, strlen(APENET_SLURM_REASON_TAG));
}

/* The line of text about node name ("NodeName=name ..."), its length. */
static const char *node_line(const char *text, const char *name, size_t *len)
{
	size_t nl = strlen(name);
	for (const char *p = text; *p;) {
		size_t l = strcspn(p, "\n");
		if (l > 9 + nl && !strncmp(p, "NodeName=", 9) && !strncmp(p + 9, name, nl) &&
		    (p[9 + nl] == ' ' || p[9 + nl] == '\t')) {
			*len = l;
			return p;
		}
		p += l;
		if (*p)
			p++;
	}
	return NULL;
}

/* Where " key=" starts a field in the line, its value; NULL when absent. */
static const char *field(const char *line, size_t len, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i + kl + 2 <= len; i++)
		if ((line[i] == ' ' || line[i] == '\t') && !strncmp(line + i + 1, key, kl) && line[i + 1 + kl] == '=')
			return line + i + 2 + kl;
	return NULL;
}

int apenet_slurm_parse_node(const char *text, const char *name, struct apenet_slurm_node *n, char *why, size_t whylen)
{
	memset(n, 0, sizeof(*n));
	size_t len;
	const char *line = node_line(text, name, &len);
	if (!line) {
		if (strstr(text, "not found"))
			snprintf(why, whylen, "Slurm knows no node %s", name);
		else
			snprintf(why, whylen, "scontrol's answer does not describe node %s", name);
		return -1;
	}
	const char *st = field(line, len, "State");
	if (!st) {
		snprintf(why, whylen, "no State= in scontrol's answer for node %s", name);
		return -1;
	}
	size_t sl = strcspn(st, " \t\n");
	snprintf(n->state, sizeof(n->state), "%.*s", (int)sl, st);
	/* the base state and its flags, '+' between them */
	for (const char *f = n->state; *f;) {
		size_t fl = strcspn(f, "+");
		if ((fl == 5 && !strncmp(f, "DRAIN", 5)) || (fl == 8 && !strncmp(f, "DRAINING", 8)) ||
		    (fl == 7 && !strncmp(f, "DRAINED", 7)))
			n->drain = 1;
		f += fl;
		if (*f)
			f++;
	}
	/* Reason= is the last field and may hold spaces; Slurm adds
	 * " [user@time]" */
	const char *r = field(line, len, "Reason");
	if (r) {
		size_t rl = (size_t)(line + len - r);
		while (rl && (r[rl - 1] == ' ' || r[rl - 1] == '\r'))
			rl--;
		if (rl && r[rl - 1] == ']') {
			size_t b = rl;
			while (b > 1 && !(r[b - 1] == '[' && r[b - 2] == ' '))
				b--;
			if (b > 1 && memchr(r + b, '@', rl - b))
				rl = b - 2;
		}
		if (rl == 6 && !strncmp(r, "(null)", 6))
			rl = 0;
		snprintf(n->reason, sizeof(n->reason), "%.*s", (int)rl, r);
	}
	return 0;
}

const char *apenet_slurm_verb_name(int verb)
{
	return verb == APENET_SLURM_DRAIN ? "drain" : verb == APENET_SLURM_RESUME ? "resume" : "";
}

static const char *const outcome_names[APENET_SLURM_NOUTCOME] = {
	[APENET_SLURM_DONE] = "done",	      [APENET_SLURM_OTHER] = "other",	  [APENET_SLURM_APENET] = "apenet",
	[APENET_SLURM_GONE] = "gone",	      [APENET_SLURM_DRY_RUN] = "dry-run", [APENET_SLURM_FAILED] = "failed",
	[APENET_SLURM_NO_NAME] = "no-name",   [APENET_SLURM_TIMEOUT] = "timeout", [APENET_SLURM_KEPT] = "kept",
	[APENET_SLURM_ABANDONED] = "abandoned",
};

const char *apenet_slurm_outcome_name(int outcome)
{
	return outcome > 0 && outcome < APENET_SLURM_NOUTCOME ? outcome_names[outcome] : "";
}

int apenet_slurm_outcome_of(const char *name)
{
	for (int i = 1; i < APENET_SLURM_NOUTCOME; i++)
		if (!strcmp(outcome_names[i], name))
			return i;
	return 0;
}

const char *apenet_slurm_outcome_words(int verb, int outcome)
{
	int drain = verb == APENET_SLURM_DRAIN;
	switch (outcome) {
	case APENET_SLURM_DONE:
		return drain ? "drained" : "resumed";
	case APENET_SLURM_OTHER:
		return drain ? "already drained by someone else: left alone" : "drained by someone else since: left alone";
	case APENET_SLURM_APENET:
		return "already drained by apenet";
	case APENET_SLURM_GONE:
		return "not drained any more";
	case APENET_SLURM_DRY_RUN:
		return drain ? "dry run: would drain" : "dry run: would resume";
	case APENET_SLURM_FAILED:
		return "failed";
	case APENET_SLURM_NO_NAME:
		return "no Slurm name for the node (cluster.nodes)";
	case APENET_SLURM_TIMEOUT:
		return "timed out";
	case APENET_SLURM_KEPT:
		return "left drained: another open incident holds it";
	case APENET_SLURM_ABANDONED:
		return "abandoned: the supervisor stopped";
	}
	return "?";
}

int apenet_slurm_holds(int verb, int outcome)
{
	return verb == APENET_SLURM_DRAIN &&
	       (outcome == APENET_SLURM_DONE || outcome == APENET_SLURM_APENET || outcome == APENET_SLURM_DRY_RUN);
}

int apenet_slurm_decide(int verb, const struct apenet_slurm_node *n)
{
	int ours = apenet_slurm_reason_ours(n->reason);
	if (verb == APENET_SLURM_DRAIN) {
		if (!n->drain)
			return 0;
		return ours ? APENET_SLURM_APENET : APENET_SLURM_OTHER;
	}
	if (!n->drain)
		return APENET_SLURM_GONE;
	return ours ? 0 : APENET_SLURM_OTHER;
}

int apenet_slurm_judge(int verb, const struct apenet_slurm_node *n)
{
	if (verb == APENET_SLURM_DRAIN)
		return n->drain && apenet_slurm_reason_ours(n->reason) ? APENET_SLURM_DONE : APENET_SLURM_FAILED;
	return n->drain ? APENET_SLURM_FAILED : APENET_SLURM_DONE;
}
