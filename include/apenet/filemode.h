/* The modes of the files a daemon keeps (common/filemode.c). */
#ifndef APENET_FILEMODE_H
#define APENET_FILEMODE_H

#include <sys/types.h>

/* An sqlite database's files, PATH, PATH-wal and PATH-shm, at most MOST
 * (0640: the owner writes, its group reads, nobody else): bits outside MOST
 * are cleared on the ones that exist, are regular files and are ours.
 * Called right after sqlite opens PATH and before its first write: sqlite
 * creates -wal and -shm with the main file's mode.  Returns 0, or -1 with
 * errno when a file of ours could not be changed. */
int apenet_sqlite_files_mode(const char *path, mode_t most);

#endif
