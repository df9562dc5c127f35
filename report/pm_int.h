/*
 * Inside the post-mortem report (report/): shared by the builder, the
 * model and the writers.  Not installed.
 */
#ifndef APENET_PM_INT_H
#define APENET_PM_INT_H

#include <stddef.h>
#include <stdio.h>

#include "apenet/postmortem.h"

/* Grows *p (of *cap entries of size) to hold n + 1; -1 with e. */
int apenet_pm_grow(void **p, size_t *cap, size_t n, size_t size, struct apenet_err *e);
/* "x,y,z#N" -> x,y,z; 0 when it is not an agent's boot id. */
int apenet_pm_boot_node(const char *boot, unsigned xyz[3]);
/* Adds a node to the map's list (once; the stronger role kept). */
int apenet_pm_add_node(struct apenet_pm *pm, const unsigned xyz[3], int role, struct apenet_err *e);
/* Sorts the timeline and marks the first fault (what the trends are read
 * around); apenet_pm_finish does it too, then derives the rest. */
void apenet_pm_order(struct apenet_pm *pm);
/* The incident the report is about: the one asked for, else the first
 * fault's; NULL in a window without one. */
const struct apenet_hdb_incident *apenet_pm_main_incident(const struct apenet_pm *pm);
/* Who reported an event: "x,y,z", or "supervisor". */
const char *apenet_pm_who(const struct apenet_pm_event *ev, char *buf, size_t n);
/* A time relative to the first fault ("+1.234 s"), "-" without one. */
const char *apenet_pm_since_first(const struct apenet_pm *pm, int64_t ms, char *buf, size_t n);
/* The recommendations (report/recommend.c), from the incidents, cables and trends. */
int apenet_pm_recommend(struct apenet_pm *pm, struct apenet_err *e);
/* "1,2,0" or "1,2,0 (name)" for a node of the map. */
const char *apenet_pm_node_label(const struct apenet_pm *pm, const unsigned xyz[3], char *buf, size_t n);

/* The HTML page's pictures (report/svg.c): inline SVG with ids "map" and
 * "timeline", and a sparkline of a trend over [from_ms, to_ms]. */
void apenet_pm_svg_map(FILE *f, const struct apenet_pm *pm);
void apenet_pm_svg_timeline(FILE *f, const struct apenet_pm *pm);
void apenet_pm_svg_spark(FILE *f, const struct apenet_pm *pm, const struct apenet_pm_series *s, int64_t from_ms, int64_t to_ms);

#endif
