/* diag: diagnostics collected during a build.
 *
 * Library code never prints: it reports problems into a diag_list and
 * returns false/NULL. Only cli/ and serve/ print the list, in GCC style
 * (`path:line:col: error: message`) so editors can jump to them. Adding is
 * thread-safe: pages render on several threads and report into one list. */
#ifndef SHEAF_DIAG_H
#define SHEAF_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>

#include "util/buf.h"

typedef enum diag_level { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } diag_level;

typedef struct diag {
    diag_level level;
    char *path;   /* NULL when the problem has no file */
    int line;     /* 1-based; 0 when unknown */
    int col;      /* 1-based; 0 when unknown */
    char *message;
    size_t seq;   /* order of arrival, keeps sorting stable */
    char *place;  /* NULL, or where in the file as words, printed instead of
                     line:col: "cell 7 (line 3:5)" (diag_relocate) */
    char *about;  /* NULL, or the name the message is about, for a program
                     to read rather than the words: a link check's missing
                     #fragment, "#id"; a missing link target, its path
                     (diag_add_about) */
} diag;

typedef struct diag_list diag_list;

diag_list *diag_list_new(void);
/* diag_list_free(NULL) does nothing. */
void diag_list_free(diag_list *d);
/* Adds one diagnostic; path may be NULL, line/col 0 when unknown. The list
 * copies path and message. diag_vadd is the one place a message is
 * formatted: a module's own reporting function with printf-like arguments
 * passes its va_list here. */
void diag_add(diag_list *d, diag_level level, const char *path, int line, int col,
              const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void diag_vadd(diag_list *d, diag_level level, const char *path, int line, int col,
               const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));
/* diag_add, with the name the message is about (diag.about). */
void diag_add_about(diag_list *d, const char *about, diag_level level, const char *path, int line, int col,
                    const char *fmt, ...) __attribute__((format(printf, 7, 8)));
#define diag_error(d, path, line, col, ...) diag_add(d, DIAG_ERROR, path, line, col, __VA_ARGS__)
#define diag_warning(d, path, line, col, ...) diag_add(d, DIAG_WARNING, path, line, col, __VA_ARGS__)
#define diag_note(d, path, line, col, ...) diag_add(d, DIAG_NOTE, path, line, col, __VA_ARGS__)
size_t diag_count(const diag_list *d);
size_t diag_error_count(const diag_list *d);
size_t diag_warning_count(const diag_list *d);
/* The i-th diagnostic (0 <= i < diag_count); owned by the list. */
const diag *diag_get(const diag_list *d, size_t i);
/* Sorts by path, line, column, then arrival (notes stay after their error
 * because they share its position or come later in arrival order). */
void diag_sort(diag_list *d);
/* Moves every entry of src to the end of dst; src is left empty. */
void diag_move(diag_list *dst, diag_list *src);
/* Gives entries from index `from` on a place in words (diag.place): for
 * each one with a path and a line, fn writes the place into out and
 * returns true, or returns false to leave it. For files whose lines are
 * not the author's (a notebook, read as the page text sheaf made of it). */
void diag_relocate(diag_list *d, size_t from, bool (*fn)(void *ctx, const diag *e, buf *out), void *ctx);
/* Empties the list. */
void diag_clear(diag_list *d);
/* Formats one diagnostic as `path:line:col: level: message` (no newline). */
void diag_format(const diag *e, buf *out);
/* The most errors and warnings diag_print shows of one file (like GCC's
 * -fmax-errors): a page with 5,000 bad shortcodes is 20 lines and a note
 * counting the rest. */
#define DIAG_MAX_PER_FILE 20
/* Prints the diagnostics, one per line; `color` adds ANSI colours to the
 * level word (callers pass isatty(fileno(f))). Of each file's run of
 * entries (the list sorted, diag_sort) the first DIAG_MAX_PER_FILE errors
 * and warnings are printed, with their notes, then one note counting the
 * rest ("4980 more errors in this file not shown (the first 20 are)");
 * problems without a file are all printed. */
void diag_print(const diag_list *d, FILE *f, bool color);

#endif
