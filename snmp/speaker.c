/*
 * Who may say what (include/apenet/report_pdu.h, apenet_report_speaker_ok):
 * an authenticated node speaks for itself, and about a torus neighbour only
 * through the link that neighbour is on.  A stolen node key therefore lies
 * only about that node and its six neighbours' words (docs/security.md).
 */
#include <stdio.h>
#include <string.h>

#include "apenet/report_pdu.h"

/* "X+" ... "Z-": the axis and the step; -1 for anything else. */
static int link_dir(const char *via, int *axis, int *step)
{
	if (strlen(via) != 2 || via[0] < 'X' || via[0] > 'Z' || (via[1] != '+' && via[1] != '-'))
		return -1;
	*axis = via[0] - 'X';
	*step = via[1] == '+' ? 1 : -1;
	return 0;
}

/* Whether c is the neighbour of r one step along an axis of size dim (0:
 * unknown, when any wraparound must be allowed). */
static int next_to(unsigned r, unsigned c, int step, unsigned dim)
{
	if (dim)
		return c == (step > 0 ? (r + 1) % dim : (r + dim - 1) % dim);
	if (step > 0)
		return c == r + 1 || (c == 0 && r > 0);
	return (r > 0 && c == r - 1) || (r == 0 && c > 0);
}

int apenet_report_speaker_ok(const struct apenet_report *r, const unsigned who[3], const unsigned *dims, char *why,
			     size_t whylen)
{
	unsigned b[3];
	uint64_t gen;
	if (apenet_report_boot_parse(r->boot, b, &gen) || b[0] != who[0] || b[1] != who[1] || b[2] != who[2]) {
		snprintf(why, whylen, "node %u,%u,%u sent a report of boot '%.40s': another node's", who[0], who[1], who[2],
			 r->boot);
		return 0;
	}
	int self = r->x == who[0] && r->y == who[1] && r->z == who[2];
	if (r->kind != APENET_REPORT_HEALTH || r->path != APENET_REPORT_PATH_NEIGHBOUR_LDM) {
		if (self)
			return 1;
		snprintf(why, whylen, "node %u,%u,%u spoke for node %u,%u,%u (%s, path %s): a node speaks for itself",
			 who[0], who[1], who[2], r->x, r->y, r->z, apenet_report_kind_name(r->kind),
			 apenet_report_path_name(r->path));
		return 0;
	}
	int axis, step;
	if (link_dir(r->via, &axis, &step)) {
		snprintf(why, whylen, "node %u,%u,%u: a neighbour's word through link '%.8s', which is none", who[0],
			 who[1], who[2], r->via);
		return 0;
	}
	unsigned about[3] = { r->x, r->y, r->z };
	int ok = 1;
	for (int i = 0; i < 3; i++)
		if (i == axis)
			ok &= next_to(who[i], about[i], step, dims ? dims[i] : 0);
		else
			ok &= about[i] == who[i];
	if (ok)
		return 1;
	snprintf(why, whylen, "node %u,%u,%u spoke for node %u,%u,%u through its link %s, which does not lead there",
		 who[0], who[1], who[2], r->x, r->y, r->z, r->via);
	return 0;
}
