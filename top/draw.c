/*
 * apenet-top's drawing primitives (top.h): every text on the screen goes
 * through top_printw/top_mvprintw, and severities and node classes become
 * colours or attributes here.  A leaf: main.c, node.c and cluster.c draw
 * with it, it calls none of them.
 */
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>

#include "apenet/esc.h"
#include "top.h"

/* The formatted line escaped whole and cut at the right edge (top.h). */
static void vdraw(const char *fmt, va_list ap)
{
	char raw[2048], esc[4 * sizeof(raw)];
	vsnprintf(raw, sizeof(raw), fmt, ap);
	apenet_esc_text(esc, sizeof(esc), raw);
	int room = COLS - getcurx(stdscr), cols = 0;
	if (room <= 0)
		return;
	size_t i = 0;
	/* the escaped text is printable: one column per UTF-8 lead byte */
	for (; esc[i]; i++)
		if (((unsigned char)esc[i] & 0xc0) != 0x80 && cols++ == room)
			break;
	esc[i] = 0;
	addstr(esc);
}

void top_printw(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdraw(fmt, ap);
	va_end(ap);
}

void top_mvprintw(int y, int x, const char *fmt, ...)
{
	if (move(y, x) == ERR)
		return;
	va_list ap;
	va_start(ap, fmt);
	vdraw(fmt, ap);
	va_end(ap);
}

int top_attr_sev(const struct top *t, enum apenet_sev s)
{
	if (s == APENET_SEV_OK)
		return t->color ? COLOR_PAIR(TOP_C_OK) : 0;
	if (s == APENET_SEV_WARN)
		return t->color ? COLOR_PAIR(TOP_C_WARN) | A_BOLD : A_UNDERLINE;
	return t->color ? COLOR_PAIR(TOP_C_FAIL) | A_BOLD : A_BOLD | A_STANDOUT;
}

int top_attr_class(const struct top *t, int cls)
{
	if (cls == 3) /* silent */
		return t->color ? COLOR_PAIR(TOP_C_SILENT) | A_BOLD : A_BOLD;
	return top_attr_sev(t, cls == 2 ? APENET_SEV_FAIL : cls == 1 ? APENET_SEV_WARN : APENET_SEV_OK);
}

void top_hints(const struct top *t, const char *hints)
{
	(void)t;
	attron(A_REVERSE);
	top_mvprintw(LINES - 1, 0, "%-*.*s", COLS, COLS, hints);
	attroff(A_REVERSE);
}

void top_error(const char *msg)
{
	apenet_esc_text_line(stderr, "apenet-top", msg);
}
