/*
 * Neighbours through the torus (SPEC §3-4; docs/agent.md, "Neighbours").
 *
 * Every credit a link receives carries the partner DNP's LDM word; the link
 * keeps the last one (LINK_LDM_RX) and when it came (LINK_LDM_RX_TS).  This
 * state machine follows one link's partner: a field of its word that changes
 * (host expired, service network, memory, peripheral, DNP core, a sensor, a
 * link) is an event about the partner, reported on its behalf with the path
 * (neighbour-ldm) and the link it came in on, so the partner's health is
 * known even when the partner cannot speak.  A word that stops arriving while
 * the link is up is an event too (LDM_STALE, sick then broken at the
 * thresholds' ldm_age_warn_ms / ldm_age_fail_ms), and so is an invalid word
 * (a field reading 11, or the valid bit clear: a decoder reports it, never
 * guesses its fields).
 *
 * What is reported is remembered across a link going down: the link itself
 * is this node's own finding (LINK_DOWN), and the partner's state is news
 * again only when a word says something else.  A different partner on the
 * link (recabled) starts afresh, silently.
 */
#include <stdio.h>
#include <string.h>

#include "apenet/agent.h"

void apenet_nbr_init(struct apenet_nbr *n)
{
	memset(n, 0, sizeof(*n));
}

void apenet_nbr_input_of(const struct apenet_view *v, unsigned l, struct apenet_nbr_input *in)
{
	const struct apenet_snap_link *k = &v->s1.link[l];
	uint32_t p = (uint32_t)k->LINK_PARTNER, me = (uint32_t)v->s1.g.NODE_COORD;
	unsigned state = APENET_GET(LINK_STATE, STATE, k->LINK_STATE);
	memset(in, 0, sizeof(*in));
	in->up = state == APENET_LINK_UP || state == APENET_LINK_DEGRADED;
	in->partner_valid = (int)APENET_GET(LINK_PARTNER, VALID, p);
	in->partner_ext = (int)APENET_GET(LINK_PARTNER, EXTERNAL, p) || v->prof->links[l].dir == APENET_DIR_EXT;
	in->partner[0] = APENET_GET(LINK_PARTNER, X, p);
	in->partner[1] = APENET_GET(LINK_PARTNER, Y, p);
	in->partner[2] = APENET_GET(LINK_PARTNER, Z, p);
	in->port = APENET_GET(LINK_PARTNER, PORT, p);
	/* a cable looping back to this node (Z+ to Z- of a 4x4x1) is no neighbour */
	in->partner_self = in->partner[0] == APENET_GET(NODE_COORD, X, me) &&
			   in->partner[1] == APENET_GET(NODE_COORD, Y, me) && in->partner[2] == APENET_GET(NODE_COORD, Z, me);
	in->word = (uint32_t)k->LINK_LDM_RX;
	in->rx_count = (uint32_t)k->LINK_LDM_RX_COUNT;
	in->age_ms = k->LINK_LDM_RX_TS && v->s1.g.TIMESTAMP >= k->LINK_LDM_RX_TS
			     ? apenet_ticks_to_s(&v->s1, v->s1.g.TIMESTAMP - k->LINK_LDM_RX_TS) * 1000
			     : 0;
}

/* Subject and code of each LDM field, as the event names them. */
static void field_names(unsigned f, const char **subject, const char **code, char *where, size_t n)
{
	switch (f) {
	case APENET_LDM_F_SERVICE:
		*subject = "host", *code = "NEIGHBOUR_SERVICE";
		break;
	case APENET_LDM_F_MEMORY:
		*subject = "host", *code = "NEIGHBOUR_MEMORY";
		break;
	case APENET_LDM_F_PERIPHERAL:
		*subject = "host", *code = "NEIGHBOUR_PERIPHERAL";
		break;
	case APENET_LDM_F_CORE:
		*subject = "dnp", *code = "NEIGHBOUR_CORE";
		break;
	case APENET_LDM_F_CURRENT:
		*subject = "sensor", *code = "NEIGHBOUR_CURRENT";
		break;
	case APENET_LDM_F_VOLTAGE:
		*subject = "sensor", *code = "NEIGHBOUR_VOLTAGE";
		break;
	case APENET_LDM_F_TEMPERATURE:
		*subject = "sensor", *code = "NEIGHBOUR_TEMPERATURE";
		break;
	default:
		*subject = "link", *code = "NEIGHBOUR_LINK";
		break;
	}
	/* a link field is named by its direction ("X+"), the others by key */
	const char *name = apenet_ldm_field_name(f);
	if (!strcmp(*subject, "link"))
		snprintf(where, n, "%.*s", (int)strcspn(name, " "), name);
	else
		snprintf(where, n, "%s", apenet_ldm_field_key(f));
}

struct nbr_ctx {
	struct apenet_nbr *n;
	const struct apenet_nbr_input *in;
	const char *via;
	struct apenet_event *out;
	unsigned max, cnt;
};

static struct apenet_event *emit(struct nbr_ctx *c, const char *subject, const char *where, const char *code,
				 unsigned old, unsigned now)
{
	if (c->cnt >= c->max)
		return NULL;
	struct apenet_event *ev = &c->out[c->cnt++];
	apenet_event_init(ev);
	memcpy(ev->node, c->in->partner, sizeof(ev->node));
	snprintf(ev->subject, sizeof(ev->subject), "%s", subject);
	snprintf(ev->where, sizeof(ev->where), "%s", where);
	snprintf(ev->code, sizeof(ev->code), "%s", code);
	ev->old_status = (uint8_t)old;
	ev->new_status = (uint8_t)now;
	ev->path = APENET_PATH_NEIGHBOUR_LDM;
	snprintf(ev->via, sizeof(ev->via), "%s", c->via);
	snprintf(ev->evidence, sizeof(ev->evidence), "LINK_LDM_RX 0x%08x on %s, %.0f ms old", c->in->word, c->via,
		 c->in->age_ms);
	return ev;
}

unsigned apenet_nbr_step(struct apenet_nbr *n, const struct apenet_nbr_input *in, const struct apenet_thresholds *t,
			 const char *via, struct apenet_event *out, unsigned max)
{
	struct nbr_ctx c = { n, in, via, out, max, 0 };
	struct apenet_event *ev;
	const unsigned *p = in->partner;
	if (!in->partner_valid || in->partner_ext || in->partner_self)
		return 0;
	if (!n->known || memcmp(n->partner, in->partner, sizeof(n->partner)) || n->port != in->port) {
		apenet_nbr_init(n);
		n->known = 1;
		memcpy(n->partner, in->partner, sizeof(n->partner));
		n->port = in->port;
	}
	if (!in->up || in->rx_count == 0)
		return 0; /* nothing can arrive: the link's own state says why */
	n->word = in->word;
	n->age_ms = in->age_ms;

	unsigned stale = in->age_ms >= t->ldm_age_fail_ms ? APENET_H_BROKEN
			 : in->age_ms >= t->ldm_age_warn_ms ? APENET_H_SICK
							     : APENET_H_NORMAL;
	if (stale != n->stale) {
		if (!(ev = emit(&c, "ldm", "ldm", "LDM_STALE", n->stale, stale)))
			return c.cnt;
		ev->value = in->age_ms;
		ev->threshold = stale == APENET_H_BROKEN ? t->ldm_age_fail_ms : t->ldm_age_warn_ms;
		snprintf(ev->unit, sizeof(ev->unit), "ms");
		if (stale != APENET_H_NORMAL)
			snprintf(ev->message, sizeof(ev->message),
				 "no diagnostic message from node %u,%u,%u for %.1f s while %s is up: its DNP is probably hung",
				 p[0], p[1], p[2], in->age_ms / 1000, via);
		else
			snprintf(ev->message, sizeof(ev->message), "node %u,%u,%u's diagnostic messages arrive again on %s",
				 p[0], p[1], p[2], via);
		n->stale = (uint8_t)stale;
	}
	if (stale != APENET_H_NORMAL)
		return c.cnt; /* an old word says nothing new */

	struct apenet_ldm w;
	unsigned invalid = apenet_ldm_decode(in->word, &w) ? APENET_H_SICK : APENET_H_NORMAL;
	if (invalid != n->invalid) {
		if (!(ev = emit(&c, "ldm", "ldm", "LDM_INVALID", n->invalid, invalid)))
			return c.cnt;
		if (invalid)
			snprintf(ev->message, sizeof(ev->message), "node %u,%u,%u sends an invalid LDM (%s)", p[0], p[1],
				 p[2], w.valid ? "a field reads 11" : "its valid bit is clear");
		else
			snprintf(ev->message, sizeof(ev->message), "node %u,%u,%u sends valid LDMs again", p[0], p[1], p[2]);
		n->invalid = (uint8_t)invalid;
	}
	if (invalid)
		return c.cnt; /* its fields are not guessed */

	unsigned host = w.host_expired ? APENET_H_BROKEN : APENET_H_NORMAL;
	if (host != n->host) {
		if (!(ev = emit(&c, "host", "watchdog", "NEIGHBOUR_HOST_EXPIRED", n->host, host)))
			return c.cnt;
		if (host)
			snprintf(ev->message, sizeof(ev->message),
				 "node %u,%u,%u's DNP declared its host dead (its watchdog expired): the host or its agent is hung",
				 p[0], p[1], p[2]);
		else
			snprintf(ev->message, sizeof(ev->message), "node %u,%u,%u's DNP hears its host again", p[0], p[1],
				 p[2]);
		n->host = (uint8_t)host;
	}
	for (unsigned f = 0; f < APENET_LDM_NFIELDS; f++) {
		if (w.field[f] == n->field[f])
			continue;
		const char *subject, *code;
		char where[24];
		field_names(f, &subject, &code, where, sizeof(where));
		if (!(ev = emit(&c, subject, where, code, n->field[f], w.field[f])))
			return c.cnt;
		snprintf(ev->message, sizeof(ev->message), "node %u,%u,%u reports its %s %s", p[0], p[1], p[2],
			 apenet_ldm_field_name(f), apenet_health_name(w.field[f]));
		n->field[f] = w.field[f];
	}
	return c.cnt;
}
