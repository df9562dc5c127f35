/*
 * Serving a set of value tables (include/apenet/mibtab.h) with net-snmp's
 * table_data helper (tdata): it keeps the rows in index order and turns
 * GETNEXT/GETBULK into GETs of the next instance, which the one handler
 * below answers from the cached values.  The rows are fixed at start (a
 * card's links and lanes do not change while it runs), so only the values
 * are refilled, lazily: the first request after apenet_mib_stale.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "apenet/mib.h"
#include "apenet/mibtab.h"

struct apenet_mib_tab *apenet_mib_add_table(struct apenet_mib *m, const char *name, unsigned arc,
					    const struct apenet_mib_col *cols, unsigned ncols, unsigned nidx,
					    unsigned nrows, struct apenet_err *e)
{
	if (m->ntab >= APENET_MIB_MAX_TABLES || nidx < 1 || nidx > APENET_MIB_MAX_INDEX || !ncols) {
		apenet_err_set(e, APENET_EINVAL, "%s: too many tables, or a bad shape", name);
		return NULL;
	}
	for (unsigned c = 1; c < ncols; c++)
		if (cols[c].arc != cols[0].arc + c) {
			apenet_err_set(e, APENET_EINVAL, "%s: column %s is not next to %s", name, cols[c].name,
				       cols[c - 1].name);
			return NULL;
		}
	struct apenet_mib_tab *t = &m->tab[m->ntab];
	memset(t, 0, sizeof(*t));
	t->idx = calloc((size_t)nrows * nidx + 1, sizeof(*t->idx));
	t->val = calloc((size_t)nrows * ncols + 1, sizeof(*t->val));
	if (!t->idx || !t->val) {
		free(t->idx);
		free(t->val);
		apenet_err_set(e, APENET_EIO, "%s: out of memory for %u rows", name, nrows);
		return NULL;
	}
	t->name = name;
	t->arc = arc;
	t->cols = cols;
	t->ncols = ncols;
	t->nidx = nidx;
	t->nrows = nrows;
	t->owner = m;
	m->ntab++;
	return t;
}

void apenet_mib_row_index(struct apenet_mib_tab *t, unsigned r, const uint32_t *idx)
{
	if (r < t->nrows)
		memcpy(&t->idx[(size_t)r * t->nidx], idx, t->nidx * sizeof(*idx));
}

static struct apenet_mib_val *cell(const struct apenet_mib_tab *t, unsigned r, unsigned arc)
{
	if (r >= t->nrows || arc < t->cols[0].arc || arc >= t->cols[0].arc + t->ncols)
		return NULL;
	return &t->val[(size_t)r * t->ncols + (arc - t->cols[0].arc)];
}

const struct apenet_mib_val *apenet_mib_cell(const struct apenet_mib_tab *t, unsigned r, unsigned arc)
{
	return cell(t, r, arc);
}

void apenet_mib_set_int(struct apenet_mib_tab *t, unsigned r, unsigned arc, int64_t v)
{
	struct apenet_mib_val *c = cell(t, r, arc);
	if (c)
		c->n = (uint64_t)v;
}

void apenet_mib_set_u(struct apenet_mib_tab *t, unsigned r, unsigned arc, uint64_t v)
{
	struct apenet_mib_val *c = cell(t, r, arc);
	if (c)
		c->n = v;
}

void apenet_mib_set_str(struct apenet_mib_tab *t, unsigned r, unsigned arc, const char *fmt, ...)
{
	struct apenet_mib_val *c = cell(t, r, arc);
	if (!c)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->s, sizeof(c->s), fmt, ap);
	va_end(ap);
}

long apenet_mib_find_row(const struct apenet_mib_tab *t, const uint32_t *idx)
{
	for (unsigned r = 0; r < t->nrows; r++)
		if (!memcmp(&t->idx[(size_t)r * t->nidx], idx, t->nidx * sizeof(*idx)))
			return r;
	return -1;
}

void apenet_mib_stale(struct apenet_mib *m)
{
	m->stale = 1;
}

static int add_rows(struct apenet_mib_tab *t, netsnmp_tdata *td);
static void clear_rows(netsnmp_tdata *td);

void apenet_mib_fresh(struct apenet_mib *m)
{
	if (!m->stale)
		return;
	m->stale = 0;
	m->refreshes++;
	if (m->refresh)
		m->refresh(m, m->ctx);
	/* a table whose rows changed gets its tdata rows again */
	for (unsigned i = 0; i < m->ntab; i++) {
		struct apenet_mib_tab *t = &m->tab[i];
		if (!t->rows_changed)
			continue;
		t->rows_changed = 0;
		if (t->tdata) {
			clear_rows(t->tdata);
			if (add_rows(t, t->tdata))
				clear_rows(t->tdata); /* no memory, or a duplicate: an empty table, not a wrong one */
		}
	}
}

/* ---- net-snmp ------------------------------------------------------------ */

static int mib_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reginfo,
		       netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	(void)handler;
	struct apenet_mib_tab *t = reginfo->my_reg_void;
	if (reqinfo->mode != MODE_GET) {
		/* read-only: the table helper answers SETs notWritable */
		return SNMP_ERR_NOERROR;
	}
	for (netsnmp_request_info *rq = requests; rq; rq = rq->next) {
		if (rq->processed)
			continue;
		netsnmp_tdata_row *row = netsnmp_tdata_extract_row(rq);
		netsnmp_table_request_info *ti = netsnmp_extract_table_info(rq);
		const struct apenet_mib_val *v =
			row && ti ? cell(t, (unsigned)((uintptr_t)row->data - 1), ti->colnum) : NULL;
		if (!v) {
			netsnmp_set_request_error(reqinfo, rq, SNMP_NOSUCHINSTANCE);
			continue;
		}
		const struct apenet_mib_col *col = &t->cols[ti->colnum - t->cols[0].arc];
		switch (col->type) {
		case APENET_MIB_INTEGER: {
			long x = (long)(int64_t)v->n;
			snmp_set_var_typed_value(rq->requestvb, ASN_INTEGER, &x, sizeof(x));
			break;
		}
		case APENET_MIB_UNSIGNED:
		case APENET_MIB_GAUGE:
		case APENET_MIB_COUNTER: {
			/* 32-bit types: a value past 2^32 - 1 is shown as the top
			 * (gauges) or wraps (counters), as SMIv2 defines them */
			u_long x = col->type == APENET_MIB_COUNTER ? (u_long)(v->n & 0xffffffffu)
				   : v->n > 0xffffffffu	     ? 0xffffffffu
								     : (u_long)v->n;
			u_char asn = col->type == APENET_MIB_UNSIGNED ? ASN_UNSIGNED
				     : col->type == APENET_MIB_GAUGE  ? ASN_GAUGE
								      : ASN_COUNTER;
			snmp_set_var_typed_value(rq->requestvb, asn, &x, sizeof(x));
			break;
		}
		case APENET_MIB_COUNTER64: {
			struct counter64 c = { (u_long)(v->n >> 32), (u_long)(v->n & 0xffffffffu) };
			snmp_set_var_typed_value(rq->requestvb, ASN_COUNTER64, &c, sizeof(c));
			break;
		}
		case APENET_MIB_STRING:
			snmp_set_var_typed_value(rq->requestvb, ASN_OCTET_STR, v->s, strlen(v->s));
			break;
		}
	}
	return SNMP_ERR_NOERROR;
}

/* Runs before the table helper finds the rows: a refill that changes the
 * rows (a dynamic table) is in place before the lookup. */
static int fresh_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reginfo,
			 netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	struct apenet_mib_tab *t = reginfo->my_reg_void;
	if (reqinfo->mode == MODE_GET || reqinfo->mode == MODE_GETNEXT || reqinfo->mode == MODE_GETBULK) {
		t->owner->requests++;
		apenet_mib_fresh(t->owner);
	}
	return netsnmp_call_next_handler(handler, reginfo, reqinfo, requests);
}

/* The tdata rows of t's current rows (after a change of the row set). */
static int add_rows(struct apenet_mib_tab *t, netsnmp_tdata *td)
{
	for (unsigned r = 0; r < t->nrows; r++) {
		netsnmp_tdata_row *row = netsnmp_tdata_create_row();
		if (!row)
			return -1;
		row->data = (void *)(uintptr_t)(r + 1);
		for (unsigned k = 0; k < t->nidx; k++) {
			u_long x = t->idx[(size_t)r * t->nidx + k];
			netsnmp_tdata_row_add_index(row, ASN_UNSIGNED, &x, sizeof(x));
		}
		if (netsnmp_tdata_add_row(td, row) != SNMPERR_SUCCESS) {
			netsnmp_tdata_delete_row(row);
			return -2;
		}
	}
	return 0;
}

static void clear_rows(netsnmp_tdata *td)
{
	netsnmp_tdata_row *row;
	while ((row = netsnmp_tdata_row_first(td)) != NULL)
		netsnmp_tdata_delete_row(netsnmp_tdata_remove_row(td, row));
}

int apenet_mib_set_rows(struct apenet_mib_tab *t, unsigned nrows, struct apenet_err *e)
{
	if (nrows != t->nrows) {
		uint32_t *idx = realloc(t->idx, ((size_t)nrows * t->nidx + 1) * sizeof(*idx));
		if (!idx)
			return apenet_err_set(e, APENET_EIO, "%s: out of memory for %u rows", t->name, nrows);
		t->idx = idx;
		struct apenet_mib_val *val = realloc(t->val, ((size_t)nrows * t->ncols + 1) * sizeof(*val));
		if (!val)
			return apenet_err_set(e, APENET_EIO, "%s: out of memory for %u rows", t->name, nrows);
		t->val = val;
		t->nrows = nrows;
	}
	memset(t->idx, 0, ((size_t)nrows * t->nidx + 1) * sizeof(*t->idx));
	memset(t->val, 0, ((size_t)nrows * t->ncols + 1) * sizeof(*t->val));
	t->rows_changed = 1;
	return 0;
}

static int register_tab(struct apenet_mib_tab *t, struct apenet_err *e)
{
	oid base[] = { APENET_OID_OBJECTS, 0 };
	size_t len = sizeof(base) / sizeof(base[0]);
	base[len - 1] = t->arc;
	netsnmp_tdata *td = netsnmp_tdata_create_table(t->name, 0);
	netsnmp_table_registration_info *ti = SNMP_MALLOC_TYPEDEF(netsnmp_table_registration_info);
	netsnmp_handler_registration *reg =
		netsnmp_create_handler_registration(t->name, mib_handler, base, len, HANDLER_CAN_RONLY);
	if (!td || !ti || !reg) {
		if (td)
			netsnmp_tdata_delete_table(td);
		SNMP_FREE(ti);
		if (reg)
			netsnmp_handler_registration_free(reg);
		return apenet_err_set(e, APENET_EIO, "%s: out of memory", t->name);
	}
	reg->my_reg_void = t;
	for (unsigned k = 0; k < t->nidx; k++)
		netsnmp_table_helper_add_index(ti, ASN_UNSIGNED);
	ti->min_column = t->cols[0].arc;
	ti->max_column = t->cols[0].arc + t->ncols - 1;
	const char *why = NULL;
	int k = add_rows(t, td);
	if (k)
		why = k == -1 ? "out of memory" : "a duplicate row index";
	if (!why && netsnmp_tdata_register(reg, td, ti) != MIB_REGISTERED_OK) {
		why = "net-snmp refused the registration (registered twice?)";
		reg = NULL; /* freed by the failed registration */
	}
	netsnmp_mib_handler *pre = why ? NULL : netsnmp_create_handler("apenet_mib_fresh", fresh_handler);
	if (!why && (!pre || netsnmp_inject_handler(reg, pre) != SNMPERR_SUCCESS)) {
		/* registered, but without the refill: take it back */
		if (pre)
			netsnmp_handler_free(pre);
		netsnmp_unregister_handler(reg);
		reg = NULL;
		why = "cannot add the refresh handler";
	}
	if (why) {
		clear_rows(td);
		netsnmp_tdata_delete_table(td);
		netsnmp_table_registration_info_free(ti);
		if (reg)
			netsnmp_handler_registration_free(reg);
		return apenet_err_set(e, APENET_EIO, "%s: %s", t->name, why);
	}
	t->tdata = td;
	t->reg = reg;
	t->tinfo = ti;
	return 0;
}

int apenet_mib_register(struct apenet_mib *m, struct apenet_err *e)
{
	for (unsigned i = 0; i < m->ntab; i++)
		if (register_tab(&m->tab[i], e)) {
			apenet_mib_unregister(m);
			return -1;
		}
	m->registered = 1;
	m->stale = 1;
	return 0;
}

void apenet_mib_unregister(struct apenet_mib *m)
{
	for (unsigned i = 0; i < m->ntab; i++) {
		struct apenet_mib_tab *t = &m->tab[i];
		if (t->reg)
			netsnmp_unregister_handler(t->reg);
		/* the table helper keeps the registration info and does not
		 * free it with the handler */
		if (t->tinfo)
			netsnmp_table_registration_info_free(t->tinfo);
		if (t->tdata) {
			clear_rows(t->tdata);
			netsnmp_tdata_delete_table(t->tdata);
		}
		t->reg = t->tdata = t->tinfo = NULL;
	}
	m->registered = 0;
}

void apenet_mib_free(struct apenet_mib *m)
{
	apenet_mib_unregister(m);
	for (unsigned i = 0; i < m->ntab; i++) {
		free(m->tab[i].idx);
		free(m->tab[i].val);
	}
	m->ntab = 0;
}
