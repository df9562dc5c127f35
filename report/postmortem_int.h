/*
 * Inside the post-mortem report (report/): shared by the builder, the
 * model and the writers.  Not installed.
 */
#ifndef APENET_POSTMORTEM_INT_H
#define APENET_POSTMORTEM_INT_H

#include <stddef.h>
#include <stdio.h>

#include "apenet/postmortem.h"

/* Grows *p (of *cap entries of size) to hold n + 1; -1 with e. */
int apenet_postmortem_grow(void **p, size_t *cap, size_t n, size_t size, struct apenet_err *e);
/* "x,y,z#N" -> x,y,z; 0 when it is not an agent's boot id. */
int apenet_postmortem_boot_node(const char *boot, unsigned xyz[3]);
/* Adds a node to the map's list (once; the stronger role kept). */
int apenet_postmortem_add_node(struct apenet_postmortem *pm, const unsigned xyz[3], int role, struct apenet_err *e);
/* Sorts the timeline and marks the first fault (what the trends are read
 * around); apenet_postmortem_finish does it too, then derives the rest. */
void apenet_postmortem_order(struct apenet_postmortem *pm);
/* The incident the report is about: the one asked for, else the first
 * fault's; NULL in a window without one. */
const struct apenet_hdb_incident *apenet_postmortem_main_incident(const struct apenet_postmortem *pm);
/* Who reported an event: "x,y,z", or "supervisor". */
const char *apenet_postmortem_who(const struct apenet_postmortem_event *ev, char *buf, size_t n);
/* A time relative to the first fault ("+1.234 s"), "-" without one. */
const char *apenet_postmortem_since_first(const struct apenet_postmortem *pm, int64_t ms, char *buf, size_t n);
/* The timeline ordered, the first fault, the propagation and the map's
 * nodes (model.c); apenet_postmortem_finish (build.c) then recommends and sums up. */
int apenet_postmortem_derive(struct apenet_postmortem *pm, struct apenet_err *e);
/* The summary line, from all the rest (the recommendations included). */
void apenet_postmortem_summarize(struct apenet_postmortem *pm);
/* The recommendations (report/recommend.c), from the incidents, cables and trends. */
int apenet_postmortem_recommend(struct apenet_postmortem *pm, struct apenet_err *e);
/* "1,2,0" or "1,2,0 (name)" for a node of the map. */
const char *apenet_postmortem_node_label(const struct apenet_postmortem *pm, const unsigned xyz[3], char *buf, size_t n);

/* The HTML page's pictures (report/svg.c): inline SVG with ids "map" and
 * "timeline", and a sparkline of a trend over [from_ms, to_ms]. */
void apenet_postmortem_svg_map(FILE *f, const struct apenet_postmortem *pm);
void apenet_postmortem_svg_timeline(FILE *f, const struct apenet_postmortem *pm);
void apenet_postmortem_svg_spark(FILE *f, const struct apenet_postmortem *pm, const struct apenet_postmortem_series *s, int64_t from_ms, int64_t to_ms);

#endif
