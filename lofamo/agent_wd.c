/*
 * The mutual watchdog, host side (SPEC §4; docs/agent.md, "The watchdog").
 *
 * The agent beats (WD_HOST_HB) every period and reads the DNP's beat
 * (WD_DNP_HB).  This state machine judges what it reads:
 *   - WD_DNP_HB unchanged for stuck_limit periods in a row: the DNP core is
 *     broken (its firmware hung); it is normal again at the first change;
 *   - the card reads all ones: it left the bus (card broken); while it is
 *     gone nothing else can be judged, and the beat count starts afresh when
 *     it is back, so a card that returns is not called hung for the gap;
 *   - WD_STATUS.HOST_EXPIRED: the DNP declared this host dead (the agent
 *     was stopped, or too late); reported so, and normal once it clears.
 * Every change is one event on the watchdog path: the DNP cannot report its
 * own death, so these go out over the service network.
 */
#include <stdio.h>
#include <string.h>

#include "apenet/agent.h"

void apenet_wd_init(struct apenet_wd *w, unsigned stuck_limit)
{
	memset(w, 0, sizeof(*w));
	w->stuck_limit = stuck_limit ? stuck_limit : 1;
}

static struct apenet_event *wd_event(struct apenet_event *ev, const char *subject, const char *code, unsigned old,
				     unsigned now)
{
	apenet_event_init(ev);
	snprintf(ev->subject, sizeof(ev->subject), "%s", subject);
	snprintf(ev->code, sizeof(ev->code), "%s", code);
	ev->old_status = (uint8_t)old;
	ev->new_status = (uint8_t)now;
	ev->path = APENET_PATH_WATCHDOG;
	return ev;
}

unsigned apenet_wd_step(struct apenet_wd *w, const struct apenet_wd_input *in, struct apenet_event out[3])
{
	unsigned n = 0;
	struct apenet_event *ev;
	if (in->gone) {
		if (w->card != APENET_H_BROKEN) {
			ev = wd_event(&out[n++], "card", "CARD_GONE", w->card, APENET_H_BROKEN);
			snprintf(ev->message, sizeof(ev->message),
				 "the card does not respond: its registers read all ones (it fell off the bus)");
			snprintf(ev->evidence, sizeof(ev->evidence), "BAR0 reads 0xffffffff");
			w->card = APENET_H_BROKEN;
		}
		w->seen = 0; /* the beat is counted afresh when it is back */
		w->stuck = 0;
		return n;
	}
	if (w->card != APENET_H_NORMAL) {
		ev = wd_event(&out[n++], "card", "CARD_GONE", w->card, APENET_H_NORMAL);
		snprintf(ev->message, sizeof(ev->message), "the card responds again");
		w->card = APENET_H_NORMAL;
	}
	w->wd_status = in->wd_status;
	w->expire_count = in->expire_count;

	/* the first beat read (at start, or after the card came back) is only
	 * a reference: hung or not is judged from the next one on */
	int moved = w->seen && in->dnp_hb != w->dnp_hb;
	if (w->seen && !moved) {
		if (w->stuck < 0xffffffffu)
			w->stuck++;
	} else {
		w->stuck = 0;
	}
	w->seen = 1;
	w->dnp_hb = in->dnp_hb;
	if (w->stuck >= w->stuck_limit && w->dnp != APENET_H_BROKEN) {
		ev = wd_event(&out[n++], "dnp", "DNP_HUNG", w->dnp, APENET_H_BROKEN);
		ev->value = w->stuck;
		ev->threshold = w->stuck_limit;
		snprintf(ev->unit, sizeof(ev->unit), "periods");
		snprintf(ev->message, sizeof(ev->message),
			 "the DNP's heartbeat stopped: its firmware is hung and its neighbours hear nothing from it");
		snprintf(ev->evidence, sizeof(ev->evidence), "WD_DNP_HB stuck at %u for %u periods of %g ms", in->dnp_hb,
			 w->stuck, in->period_ms);
		w->dnp = APENET_H_BROKEN;
	} else if (moved && w->dnp != APENET_H_NORMAL) {
		ev = wd_event(&out[n++], "dnp", "DNP_HUNG", w->dnp, APENET_H_NORMAL);
		snprintf(ev->message, sizeof(ev->message), "the DNP's heartbeat is back");
		snprintf(ev->evidence, sizeof(ev->evidence), "WD_DNP_HB moved to %u", in->dnp_hb);
		w->dnp = APENET_H_NORMAL;
	}

	unsigned expired = APENET_GET(WD_STATUS, HOST_EXPIRED, in->wd_status);
	unsigned h = expired ? APENET_H_SICK : APENET_H_NORMAL;
	if (h != w->host) {
		ev = wd_event(&out[n++], "host", "HOST_EXPIRED", w->host, h);
		if (expired) {
			ev->value = APENET_GET(WD_STATUS, MISSED, in->wd_status);
			snprintf(ev->unit, sizeof(ev->unit), "beats");
			snprintf(ev->message, sizeof(ev->message),
				 "the DNP declared this host dead after %u missed heartbeats (the agent was stopped or late)",
				 APENET_GET(WD_STATUS, MISSED, in->wd_status));
		} else {
			snprintf(ev->message, sizeof(ev->message), "the DNP hears this host's heartbeat again");
		}
		snprintf(ev->evidence, sizeof(ev->evidence), "WD_STATUS 0x%08x, WD_EXPIRE_COUNT %u", in->wd_status,
			 in->expire_count);
		w->host = (uint8_t)h;
	}
	return n;
}
