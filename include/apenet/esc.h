/*
 * Escaping: every string that comes from outside (the network, the health
 * database, module EEPROMs, snapshot and black-box files, configs, the
 * emulator) is data, never control.  One helper per output kind, used by
 * every writer of that kind (common/out.c, common/log.c, report/, top/):
 *
 *   text  (a terminal, a log line, a CSV cell): printable UTF-8 is kept;
 *         every control character (C0 0x00-0x1f, newline and tab
 *         included; DEL 0x7f; C1 U+0080..U+009F) and every byte that is not
 *         part of valid UTF-8 is shown as \xNN, the byte in two lower-case
 *         hex digits: ESC is \x1b, a newline \x0a, the C1 CSI (UTF-8 c2 9b)
 *         \xc2\x9b, a stray 0xff \xff.  So a field never ends a line and
 *         never reaches a terminal as an escape sequence.  A backslash stays
 *         as it is: the text is for reading; the exact string is in the JSON.
 *   CSV   a cell: the text form, in double quotes when it holds a comma or
 *         a quote (doubled); a string cell that starts with = + - @ (or a
 *         tab or CR) and goes on is a formula to a spreadsheet: it gets a
 *         leading ' and quotes (OWASP's advice).  Numbers are written as
 *         they are, and so is the sign alone ("-", a placeholder).
 *   JSON  a string literal: " \ and the C0 controls newline, tab, CR as
 *         \" \\ \n \t \r; every other C0, DEL and C1 as \u00XX; a byte that
 *         is not valid UTF-8 as \u00XX of its value (the document stays
 *         valid UTF-8).
 *   HTML  text or an attribute value: & < > " ' as entities; control
 *         characters and bytes that are not UTF-8 as the text form's \xNN.
 *
 * The stream forms write straight to the FILE and allocate nothing (the
 * output writer renders without memory).  NULL is taken as "".
 */
#ifndef APENET_ESC_H
#define APENET_ESC_H

#include <stddef.h>
#include <stdio.h>

/* The text form of s into dst (n bytes, NUL-terminated when n > 0), cut
 * between characters, never inside an escape or a UTF-8 sequence.  Returns
 * the length of the whole text form, as snprintf does: >= n when it was
 * cut. */
size_t apenet_esc_text(char *dst, size_t n, const char *s);
void apenet_esc_text_put(FILE *f, const char *s);
/* "PREFIX: S\n" with S in its text form: a program's error line (S may
 * quote a file, a database or a register). */
void apenet_esc_text_line(FILE *f, const char *prefix, const char *s);
/* The columns the text form of s takes on a terminal: one per UTF-8
 * character, four per \xNN. */
size_t apenet_esc_text_width(const char *s);
/* Whether s is shown as it is (its text form is s itself). */
int apenet_esc_text_clean(const char *s);

/* A CSV cell; is_string 0 for a number (or another value the program
 * wrote, e.g. "-" for none), which is never taken for a formula. */
void apenet_esc_csv_put(FILE *f, const char *s, int is_string);

/* A JSON string literal, quotes included. */
void apenet_esc_json_put(FILE *f, const char *s);
/* Whether the literal of s is s itself in quotes (nothing to escape): a
 * writer may then copy it as it is. */
int apenet_esc_json_clean(const char *s);

/* HTML text (also good inside a quoted attribute value). */
void apenet_esc_html_put(FILE *f, const char *s);

#endif
