/*
 * The device layer: find APEnet cards through libpci, open one by BDF, read
 * and write its BAR0 registers.  A real card and an emulated one differ only
 * in two roots: where libpci reads config space (sysfs, or a dump file in the
 * emulator's node directory) and where the BAR lives (<root>/<BDF>/resource0
 * with root /sys/bus/pci/devices, or <node dir>/devices).
 */
#ifndef APENET_DEV_H
#define APENET_DEV_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "apenet/err.h"
#include "apenet/pcie.h"
#include "apenet/regs.h"

#define APENET_SYSFS_DEVICES "/sys/bus/pci/devices"
#define APENET_SIM_DUMP "pci.lspci"   /* config-space dump in a node directory */
#define APENET_SIM_DEVROOT "devices"  /* <node dir>/devices/<BDF>/resource0 */
#define APENET_MAX_CARDS 16
/* Command-region locks of real cards: <dir>/apenet-<BDF>.lock (FHS: /run/lock
 * is for lock files shared between programs).  An emulated board's lock file
 * sits in its node directory. */
#define APENET_LOCK_DIR "/run/lock"

/* Where boards are looked for. */
struct apenet_site {
	char dump[APENET_PATH_MAX];    /* libpci dump file; empty: the real bus (sysfs) */
	char devroot[APENET_PATH_MAX]; /* directory holding <BDF>/resource0 */
	char lockdir[APENET_PATH_MAX]; /* directory holding apenet-<BDF>.lock */
};

/* simdir NULL: $APENET_SIM_DIR if set, else the real machine. */
int apenet_site_init(struct apenet_site *s, const char *simdir, struct apenet_err *e);
/* The paths of the emulated node directory simdir, not checked (apenet_site_init
 * checks them): -1 when too long. */
int apenet_site_node(struct apenet_site *s, const char *simdir);

/* One PCI function the scan found. */
struct apenet_card {
	char bdf[16];
	uint16_t vendor, device;
	const struct apenet_profile *prof; /* NULL when the device id is unknown */
	int gone;                          /* config space reads all ones */
	int pcie_ok;                       /* pcie holds a parsed capability */
	struct apenet_pcie_info pcie;
	char pcie_err[160];
};

/* Fills cards[] with every APEnet function (and every function reading all
 * ones, which may be a card that fell off the bus). */
int apenet_pci_scan(const struct apenet_site *s, struct apenet_card *cards, int max, int *n,
		    struct apenet_err *e);

/* The card at bdf ("0000:03:00.0" or "03:00.0"; NULL: the only card there
 * is), with errors for none, several, or one that reads all ones. */
int apenet_pci_pick(const struct apenet_site *s, const char *bdf, struct apenet_card *out, struct apenet_err *e);

/* The card apenet_pci_pick(s, NULL) would give (an APEnet card, or one
 * reading all ones), read without libpci from an emulated node's dump when
 * it is exactly one function in lspci's own layout: 0 with *out (no PCIe
 * capability parsed: pcie_ok 0).  1 for anything else, the real bus
 * included: ask libpci (apenet_pci_pick), which says what is wrong. */
int apenet_pci_peek(const struct apenet_site *s, struct apenet_card *out);

struct apenet_dev {
	char bdf[16];
	const struct apenet_profile *prof;
	volatile uint32_t *bar;
	size_t bar_len;
	uint64_t nreads, nwrites; /* register accesses, each ~1 us on a real bus */
	uint32_t ts_hz;           /* TIMESTAMP frequency, read at open */
	char lock_path[APENET_PATH_MAX + 32]; /* the command region's lock file */
	int lock_fd;                   /* opened at the first command; -1 before */
	int lock_depth;                /* apenet_dev_lock calls not yet undone */
	int64_t lock_handoff_us;       /* gave the lock to a waiter: keep away until then */
};

/* Opens the card at bdf (NULL: the only card there is). */
int apenet_dev_open(struct apenet_dev *d, const struct apenet_site *s, const char *bdf,
		    struct apenet_err *e);
/* Opens a card a scan found. */
int apenet_dev_open_card(struct apenet_dev *d, const struct apenet_site *s, const struct apenet_card *c,
			 struct apenet_err *e);
void apenet_dev_close(struct apenet_dev *d);
/* ID_MAGIC check: -1 with APENET_EGONE "card not responding" when it reads all ones. */
int apenet_dev_check(struct apenet_dev *d, struct apenet_err *e);

/* The steps of an open, for a reader that does not map the BAR (below).
 * apenet_dev_bar_open: the file descriptor of card c's BAR0
 * (<devroot>/<BDF>/resource0, read-write), checked to hold the register
 * map; -1 with APENET_EGONE when c's config space reads all ones.
 * apenet_dev_magic: what apenet_dev_check says of an ID_MAGIC value.
 * apenet_dev_ident: what an open checks of ID_MAGIC, ID_VARIANT (*prof
 * becomes the variant's profile when the PCI device id named another: the
 * firmware knows better) and TS_FREQ_HZ.  Errors name bdf. */
int apenet_dev_bar_open(const struct apenet_site *s, const struct apenet_card *c, struct apenet_err *e);
int apenet_dev_magic(const char *bdf, uint32_t magic, struct apenet_err *e);
int apenet_dev_ident(const char *bdf, uint32_t magic, uint32_t variant, uint32_t ts_hz,
		     const struct apenet_profile **prof, struct apenet_err *e);

/*
 * A card read through its BAR file with pread(2), for a tool that reads a
 * few registers of many emulated boards in a row (apenet cabling over a
 * cluster).  Mapping a BAR costs a page fault and, at munmap, a TLB flush:
 * on a virtual machine 0.1-0.3 ms, more than the rest of a node's reading.
 * Here a read is a system call and its bytes cost next to nothing, so a
 * caller reads a span of registers at once, from the same page the
 * emulator's mapping writes.  A real card's sysfs resource0 maps and does
 * not read: there the reader maps it and serves the same spans from the
 * mapping.  The same checks and errors as apenet_dev_open_card, on the
 * identity block read at open.
 */
#define APENET_BAR_FILE_ID_REGS 16 /* 0x000-0x03f: ID_*, NODE_COORD, TORUS_DIMS, ..., TS_FREQ_HZ */
struct apenet_bar_file {
	int fd;
	/* a real card's sysfs resource0 can be mapped, not read: then the
	 * registers come from the mapping, one 32-bit load each */
	volatile uint32_t *map;
	char bdf[16];
	const struct apenet_profile *prof;
	uint32_t ts_hz;
	uint32_t id[APENET_BAR_FILE_ID_REGS]; /* as read at open, by offset / 4 */
};
int apenet_bar_file_open(struct apenet_bar_file *b, const struct apenet_site *s, const struct apenet_card *c,
			 struct apenet_err *e);
/* The same through a mapping, as on a real card (whose resource0 does not
 * read: apenet_bar_file_open falls back to this by itself). */
int apenet_bar_file_open_mapped(struct apenet_bar_file *b, const struct apenet_site *s, const struct apenet_card *c,
				struct apenet_err *e);
/* n registers from off in one read; -1 with all ones in regs when the read
 * comes short, as a card gone from the bus reads. */
int apenet_bar_file_read(struct apenet_bar_file *b, uint32_t off, uint32_t *regs, unsigned n);
uint32_t apenet_bar_file_rd32(struct apenet_bar_file *b, uint32_t off);
/* apenet_dev_check's ID_MAGIC check. */
int apenet_bar_file_check(struct apenet_bar_file *b, struct apenet_err *e);
void apenet_bar_file_close(struct apenet_bar_file *b);

static inline uint32_t apenet_rd32(struct apenet_dev *d, uint32_t off)
{
	d->nreads++;
	return d->bar[off / 4];
}

/* One 64-bit access (a single read TLP, as readq()). */
static inline uint64_t apenet_rd64(struct apenet_dev *d, uint32_t off)
{
	d->nreads++;
	return *(volatile uint64_t *)(volatile void *)(d->bar + off / 4);
}

static inline void apenet_wr32(struct apenet_dev *d, uint32_t off, uint32_t v)
{
	d->nwrites++;
	d->bar[off / 4] = v;
}

/*
 * The command region (CMD_CODE, CMD_ARG, the CMD_SEQ doorbell, CMD_DONE_SEQ,
 * CMD_RESULT) has one owner at a time, across processes and threads: every
 * command holds the card's lock file (d->lock_path) from reading DONE_SEQ
 * to reading RESULT, so the node agent and the CLI never mix their commands.
 * See docs/design.md, "The command lock".
 *
 * apenet_dev_lock waits (sleeping, up to timeout_ms) for the region; -1 with
 * APENET_EBUSY naming the lock file and its holder's PID when it does not
 * come free in time, APENET_EIO when the lock file cannot be opened.  A
 * caller that needs several commands back to back may hold it around them;
 * locks nest.  A struct apenet_dev is not to be shared between threads
 * (each thread opens its own), nor used by a forked child.
 */
int apenet_dev_lock(struct apenet_dev *d, int timeout_ms, struct apenet_err *e);
void apenet_dev_unlock(struct apenet_dev *d);

/*
 * A wait for the card (a command's acknowledgement, a remote answer, a far
 * end going back to traffic) ends once its time has passed on both clocks:
 * the host's monotonic clock and the card's TIMESTAMP.  A card's clock runs
 * while its host is paused (a VM stopped or snapshotted, a process
 * descheduled on a loaded machine), so on a card the host clock decides;
 * an emulated card pauses with its process, and a request it has had no
 * time to serve is not "unanswered".  After APENET_DEADLINE_BACKSTOP times
 * the wait on the host clock alone it ends anyway (a card whose TIMESTAMP
 * stopped, or reads that do not come back).
 */
#define APENET_DEADLINE_BACKSTOP 5
struct apenet_deadline {
	int64_t host_end_us, backstop_us;
	int card;        /* the card gives a clock: ts_end counts */
	uint64_t ts_end; /* the card's TIMESTAMP at the end */
};
void apenet_deadline_start(struct apenet_dev *d, int timeout_ms, struct apenet_deadline *dl);
int apenet_deadline_passed(struct apenet_dev *d, const struct apenet_deadline *dl);
/* Microseconds left on the host clock (0 when passed there). */
int64_t apenet_deadline_left_us(const struct apenet_deadline *dl);

/* Runs a command and waits (up to timeout_ms for the lock, then up to
 * timeout_ms for the firmware) for its acknowledgement.  0 with the
 * firmware's CMD_RESULT in *result (APENET_CMDERR_*), or -1 when the command
 * could not be run or was not acknowledged. */
int apenet_dev_command_result(struct apenet_dev *d, uint32_t code, uint32_t arg, int timeout_ms, uint32_t *result,
			      struct apenet_err *e);
/* The same, with a result other than APENET_CMDERR_OK as an error. */
int apenet_dev_command(struct apenet_dev *d, uint32_t code, uint32_t arg, int timeout_ms,
		       struct apenet_err *e);

#endif
