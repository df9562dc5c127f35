/*
 * apenet-top [--sim DIR | --dev BDF | --from FILE] [--db FILE] [--config FILE] [-d TENTHS] [--mono]
 *
 * The node scope (a card: --sim, --dev, or the only card) or, with --db,
 * the cluster scope (a health database).  One loop: getch with halfdelay
 * (-d tenths of a second, default 10) reads a key or times out; a timeout
 * refreshes the data.  curses sends only what changed to the terminal.
 * A resize arrives as KEY_RESIZE (curses' own SIGWINCH handler).  The
 * terminal is put back on every way out: q, SIGTERM/SIGINT/SIGHUP (a flag
 * the loop sees within a tenth of a second), and a failed start.
 */
#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet_version.h"
#include "top.h"

static volatile sig_atomic_t stop_sig;
static void on_stop(int sig)
{
	stop_sig = sig;
}

/* apenet-top's options: its parser, --help and its completion
 * (--completion-table) read this one table. */
enum { O_SIM, O_DEV, O_FROM, O_DB, O_CONFIG, O_DELAY, O_MONO, O_HELP, O_VERSION, O_N };
static const struct top_opt {
	const char *name, *arg; /* arg NULL: a flag */
	int group;              /* the synopsis: 0 alone, 1 one of "[A | B | C]", -1 not in it */
	const char *help;       /* a line of its own in --help (NULL: the synopsis says it) */
} top_opts[O_N] = {
	[O_SIM] = { "--sim", "DIR", 1, NULL },
	[O_DEV] = { "--dev", "BDF", 1, NULL },
	[O_FROM] = { "--from", "FILE", 1, NULL },
	[O_DB] = { "--db", "FILE", 0, NULL },
	[O_CONFIG] = { "--config", "FILE", 0, NULL },
	[O_DELAY] = { "-d", "TENTHS", 0, "refresh every TENTHS tenths of a second (1..255, default 10)" },
	[O_MONO] = { "--mono", NULL, 0, "letters and attributes only (also: NO_COLOR set, or a terminal without colours)" },
	[O_HELP] = { "--help", NULL, -1, NULL },
	[O_VERSION] = { "--version", NULL, -1, "the version and the JSON schema" },
};

static int usage(FILE *f, int rc)
{
	fputs("usage: apenet-top", f);
	for (int i = 0; i < O_N; i++) {
		const struct top_opt *o = &top_opts[i];
		if (o->group < 0)
			continue;
		int first = !o->group || i == 0 || top_opts[i - 1].group != o->group;
		int last = !o->group || i + 1 == O_N || top_opts[i + 1].group != o->group;
		fprintf(f, "%s%s%s%s%s", first ? " [" : " | ", o->name, o->arg ? " " : "", o->arg ? o->arg : "",
			last ? "]" : "");
	}
	fputs("\n  the node view of a card (or of a snapshot or black-box file), or with --db the cluster view of a\n"
	      "  health database (docs/top.md)\n",
	      f);
	for (int i = 0; i < O_N; i++) {
		char key[32];
		if (!top_opts[i].help)
			continue;
		snprintf(key, sizeof(key), "%s%s%s", top_opts[i].name, top_opts[i].arg ? " " : "",
			 top_opts[i].arg ? top_opts[i].arg : "");
		fprintf(f, "  %-9s  %s\n", key, top_opts[i].help);
	}
	fputs("  keys: F1 or h in the program; exit status: 0 after q or a signal, 2 could not start\n", f);
	return rc;
}

/* apenet-top --completion-table: the table above as tools/gen-completion.sh
 * reads it (the format: tools/completion.bash).  Hidden from --help. */
static void completion_table(void)
{
	for (int i = 0; i < O_N; i++)
		printf("opt - %s%s%s\n", top_opts[i].name, top_opts[i].arg ? " " : "",
		       top_opts[i].arg ? top_opts[i].arg : "");
}

static void help(const struct top *t)
{
	static const char *const lines[] = {
		"apenet-top keys",
		"",
		"  F1 h      this help (any key closes it)",
		"  F3 /      filter: rows with the text (name, partner, node, verdict)",
		"  F6 >      sort links: worst first, by name, by traffic, by errors",
		"  F5 t      cluster: the slice map, or every slice's summary",
		"  z Z       cluster: previous / next Z slice (PgUp PgDn too)",
		"  i         cluster: the open incidents instead of the nodes",
		"  Up Down   move (j k)",
		"  Enter     drill down: node -> link -> lane (cluster -> node)",
		"  Esc Left  back up",
		"  q         quit",
		"",
		"  '.' normal  's' sick  'B' broken  '?' silent  '!' invalid",
	};
	int w = 72, h = (int)(sizeof(lines) / sizeof(lines[0])) + 2;
	int y0 = LINES > h ? (LINES - h) / 2 : 0, x0 = COLS > w ? (COLS - w) / 2 : 0;
	(void)t;
	for (int i = 0; i < h && y0 + i < LINES; i++) {
		move(y0 + i, x0);
		attron(A_REVERSE);
		top_printw("%-*.*s", w < COLS ? w : COLS, w < COLS ? w : COLS,
		       i == 0 || i == h - 1 ? "" : lines[i - 1]);
		attroff(A_REVERSE);
	}
}

static void draw(struct top *t)
{
	erase();
	if (LINES < 10 || COLS < 40)
		top_mvprintw(0, 0, "apenet-top needs 40x10 at least (%dx%d)", COLS, LINES);
	else if (t->db)
		top_cluster_draw(t);
	else
		top_node_draw(t);
	if (t->help)
		help(t);
	refresh();
}

static void refresh_data(struct top *t)
{
	if (t->db)
		top_cluster_refresh(t);
	else
		top_node_refresh(t);
}

/* After a key that changes what is shown (filter, sort): at once. */
static void reread(struct top *t)
{
	if (t->db)
		top_cluster_reread(t);
	else
		top_node_refresh(t);
}

static int rows(const struct top *t)
{
	return t->db ? top_cluster_rows(t) : top_node_rows(t);
}

/* The filter, read on the last line (Enter keeps it, Esc clears it). */
static void prompt_filter(struct top *t)
{
	char buf[sizeof(t->filter)];
	size_t n = 0;
	cbreak(); /* no timeout while typing */
	for (;;) {
		attron(A_REVERSE);
		top_mvprintw(LINES - 1, 0, "%-*.*s", COLS, COLS, "");
		top_mvprintw(LINES - 1, 0, "filter: %.*s", (int)n, buf);
		attroff(A_REVERSE);
		refresh();
		int ch = getch();
		if (ch == '\n' || ch == KEY_ENTER) {
			memcpy(t->filter, buf, n);
			t->filter[n] = 0;
			break;
		}
		if (ch == 27) {
			t->filter[0] = 0;
			break;
		}
		if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n)
			n--;
		else if (ch >= 32 && ch < 127 && n + 1 < sizeof(buf))
			buf[n++] = (char)ch;
		if (stop_sig)
			break;
	}
	halfdelay(t->delay_ds);
	t->sel = 0;
}

static void drill(struct top *t)
{
	if (t->db) {
		top_cluster_drill(t);
		return;
	}
	if (t->view == TOP_NODE && t->sel >= 0 && (unsigned)t->sel < t->nrows) {
		t->link = t->rows[t->sel].link;
		t->view = TOP_LINK;
		t->sel = 0;
	} else if (t->view == TOP_LINK) {
		t->lane = (unsigned)t->sel;
		t->view = TOP_LANE;
	}
}

static void back(struct top *t)
{
	if (t->view == TOP_LANE) {
		t->view = TOP_LINK;
		t->sel = (int)t->lane;
	} else if (t->view == TOP_LINK) {
		t->view = TOP_NODE;
		t->sel = 0;
		for (unsigned i = 0; i < t->nrows; i++)
			if (t->rows[i].link == t->link)
				t->sel = (int)i;
	} else if (t->view == TOP_CNODE) {
		t->view = TOP_CLUSTER;
	}
}

/* One key; 0 to quit. */
static int key(struct top *t, int ch)
{
	if (t->help) { /* any key closes the help */
		t->help = 0;
		return ch != 'q';
	}
	switch (ch) {
	case 'q':
	case 'Q':
		return 0;
	case 'h':
	case '?':
	case KEY_F(1):
		t->help = 1;
		break;
	case '/':
	case KEY_F(3):
		prompt_filter(t);
		reread(t);
		break;
	case '>':
	case KEY_F(6):
		t->sort = (enum apenet_top_sort)((t->sort + 1) % APENET_TOP_NSORT);
		reread(t);
		break;
	case 't':
	case KEY_F(5):
		t->map = !t->map;
		break;
	case 'i':
		if (!t->db)
			break;
		/* from a node: the incidents; in the cluster: the other list */
		t->incidents = t->view == TOP_CNODE ? 1 : !t->incidents;
		t->view = TOP_CLUSTER;
		t->sel = 0; /* the other list: its own rows */
		break;
	case 'z':
	case KEY_PPAGE:
		if (t->z > 0)
			t->z--;
		break;
	case 'Z':
	case KEY_NPAGE:
		if (t->z + 1 < t->dims[2])
			t->z++;
		break;
	case KEY_UP:
	case 'k':
		if (t->sel > 0)
			t->sel--;
		break;
	case KEY_DOWN:
	case 'j':
		if (t->sel + 1 < rows(t))
			t->sel++;
		break;
	case '\n':
	case KEY_ENTER:
	case KEY_RIGHT:
		drill(t);
		break;
	case 27:
	case KEY_LEFT:
	case KEY_BACKSPACE:
	case 127:
		back(t);
		break;
	default:
		break;
	}
	return 1;
}

int main(int argc, char **argv)
{
	static struct top t;
	t.delay_ds = 10;
	int mono = 0;
	if (argc == 2 && !strcmp(argv[1], "--completion-table")) {
		completion_table();
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		int k = 0;
		while (k < O_N && strcmp(a, top_opts[k].name))
			k++;
		if (!strcmp(a, "-h"))
			k = O_HELP;
		if (k == O_N) {
			fprintf(stderr, "apenet-top: %s: unknown option\n", a);
			return usage(stderr, 2);
		}
		if (top_opts[k].arg && !next) {
			fprintf(stderr, "apenet-top: %s needs a value\n", a);
			return usage(stderr, 2);
		}
		switch (k) {
		case O_HELP:
			return usage(stdout, 0);
		case O_VERSION:
			puts("apenet-top " APENET_VERSION_TEXT);
			return 0;
		case O_MONO:
			mono = 1;
			continue;
		case O_SIM:
			t.sim = next;
			break;
		case O_DEV:
			t.dev = next;
			break;
		case O_DB:
			t.db = next;
			break;
		case O_FROM:
			t.from = next;
			break;
		case O_CONFIG:
			t.config = next;
			break;
		case O_DELAY: {
			char *end;
			long d = strtol(next, &end, 10);
			if (*end || d < 1 || d > 255) {
				fprintf(stderr, "apenet-top: -d '%s': tenths of a second, 1..255\n", next);
				return 2;
			}
			t.delay_ds = (int)d;
			break;
		}
		}
		i++;
	}
	if (!t.sim && !t.dev && getenv("APENET_SIM_DIR") && !t.db)
		t.sim = getenv("APENET_SIM_DIR");
	struct apenet_err e = { 0 };
	const char *from = NULL;
	const char *path = apenet_config_path(t.config, &from);
	if (apenet_config_load(path, &t.cfg, &e)) {
		top_error(e.msg);
		return 2;
	}
	t.view = t.db ? TOP_CLUSTER : TOP_NODE;
	if (t.db ? top_cluster_open(&t) : top_node_open(&t)) {
		apenet_config_free(&t.cfg);
		return 2;
	}
	struct sigaction sa = { .sa_handler = on_stop };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	if (!initscr()) {
		fprintf(stderr, "apenet-top: cannot start the terminal (TERM=%s)\n", getenv("TERM") ? getenv("TERM") : "");
		return 2;
	}
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	halfdelay(t.delay_ds);
	t.color = !mono && has_colors() && !(getenv("NO_COLOR") && *getenv("NO_COLOR"));
	if (t.color) {
		start_color();
		use_default_colors();
		init_pair(TOP_C_OK, COLOR_GREEN, -1);
		init_pair(TOP_C_WARN, COLOR_YELLOW, -1);
		init_pair(TOP_C_FAIL, COLOR_RED, -1);
		init_pair(TOP_C_SILENT, COLOR_MAGENTA, -1);
		init_pair(TOP_C_HEAD, COLOR_CYAN, -1);
	}
	refresh_data(&t);
	draw(&t);
	for (;;) {
		int ch = getch();
		if (stop_sig)
			break;
		if (ch == ERR) {
			refresh_data(&t);
		} else if (ch == KEY_RESIZE) {
			/* curses has the new size already */
		} else if (!key(&t, ch)) {
			break;
		}
		if (t.sel >= rows(&t))
			t.sel = rows(&t) > 0 ? rows(&t) - 1 : 0;
		draw(&t);
	}
	endwin();
	if (t.db)
		top_cluster_close(&t);
	else
		top_node_close(&t);
	apenet_config_free(&t.cfg);
	return 0;
}
