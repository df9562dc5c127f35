/*
 * Small shared pieces of the health database library: checks and names
 * (statements, errors and columns: db_util.c).
 */
#include <stdio.h>
#include <string.h>

#include "hdb_int.h"

int apenet_hdb_writable(struct apenet_hdb *db, struct apenet_err *e, const char *what)
{
	if (db->f.flags & APENET_DB_READONLY)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: %s: opened read-only", db->f.path, what);
	return 0;
}

int apenet_hdb_check_text(struct apenet_hdb *db, const char *what, const char *s, size_t size, struct apenet_err *e)
{
	if (strnlen(s, size) >= size)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: %s is not terminated within %zu bytes", db->f.path,
				      what, size);
	return 0;
}

static const char *const link_names[APENET_HDB_NLINKS] = { "X+", "X-", "Y+", "Y-", "Z+", "Z-" };

const char *apenet_hdb_link_name(int link)
{
	return link >= 0 && link < APENET_HDB_NLINKS ? link_names[link] : "?";
}

int apenet_hdb_link_index(const char *name)
{
	for (int i = 0; i < APENET_HDB_NLINKS; i++)
		if (name && !strcmp(name, link_names[i]))
			return i;
	return -1;
}

const char *apenet_hdb_path_name(int path)
{
	static const char *const names[] = { "?", "self", "neighbour-ldm", "watchdog", "supervisor" };
	return path >= 1 && path <= 4 ? names[path] : "?";
}

const char *apenet_hdb_state_name(int state)
{
	static const char *const names[] = { "?", "open", "closed", "merged" };
	return state >= 1 && state <= 3 ? names[state] : "?";
}

const char *apenet_hdb_class_name(int cls)
{
	static const char *const names[] = { "normal", "sick", "broken", "silent" };
	return cls >= 0 && cls <= 3 ? names[cls] : "?";
}
