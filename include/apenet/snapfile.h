/*
 * The snapshot codec: a board view as the versioned `apenet snapshot`
 * document (JSON, schema apenet-diag/2) and back.  Errors name
 * file:line:column.
 */
#ifndef APENET_SNAPFILE_H
#define APENET_SNAPFILE_H

#include "apenet/out.h"
#include "apenet/view.h"

/* Writes the view's members into the current object of o. */
void apenet_snapfile_write(const struct apenet_view *v, struct apenet_out *o);
int apenet_snapfile_load(const char *path, struct apenet_view *v, struct apenet_err *e);
/* The same from memory; name is used in messages. */
int apenet_snapfile_load_string(const char *name, const char *text, struct apenet_view *v, struct apenet_err *e);

#endif
