/* diag: a thread-safe list of GCC-style diagnostics (see diag.h). */
#include "diag/diag.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "util/xalloc.h"

struct diag_list {
    pthread_mutex_t lock;
    diag *items;
    size_t len, cap;
    size_t errors, warnings;
    size_t seq;
};

diag_list *diag_list_new(void)
{
    diag_list *d = xcalloc(1, sizeof *d);
    pthread_mutex_init(&d->lock, NULL);
    return d;
}

void diag_clear(diag_list *d)
{
    for (size_t i = 0; i < d->len; i++) {
        free(d->items[i].path);
        free(d->items[i].message);
        free(d->items[i].place);
        free(d->items[i].about);
    }
    d->len = d->errors = d->warnings = 0;
}

void diag_list_free(diag_list *d)
{
    if (!d)
        return;
    diag_clear(d);
    free(d->items);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

static void push(diag_list *d, diag e)
{
    pthread_mutex_lock(&d->lock);
    e.seq = d->seq++;
    VEC_PUSH(d->items, d->len, d->cap, 16, e);
    if (e.level == DIAG_ERROR)
        d->errors++;
    else if (e.level == DIAG_WARNING)
        d->warnings++;
    pthread_mutex_unlock(&d->lock);
}

static void vadd(diag_list *d, const char *about, diag_level level, const char *path, int line, int col,
                 const char *fmt, va_list ap)
{
    buf m = BUF_INIT;
    buf_vprintf(&m, fmt, ap);
    diag e = { level, path ? xstrdup(path) : NULL, line, col, buf_detach(&m, NULL), 0, NULL,
               about ? xstrdup(about) : NULL };
    push(d, e);
}

void diag_vadd(diag_list *d, diag_level level, const char *path, int line, int col,
               const char *fmt, va_list ap)
{
    vadd(d, NULL, level, path, line, col, fmt, ap);
}

void diag_add_about(diag_list *d, const char *about, diag_level level, const char *path, int line, int col,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd(d, about, level, path, line, col, fmt, ap);
    va_end(ap);
}

void diag_add(diag_list *d, diag_level level, const char *path, int line, int col,
              const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vadd(d, level, path, line, col, fmt, ap);
    va_end(ap);
}

size_t diag_count(const diag_list *d) { return d->len; }
size_t diag_error_count(const diag_list *d) { return d->errors; }
size_t diag_warning_count(const diag_list *d) { return d->warnings; }
const diag *diag_get(const diag_list *d, size_t i) { return &d->items[i]; }

typedef struct {
    const diag *key; /* the entry whose position orders this one */
    diag item;
} sort_entry;

static int cmp_pos(const diag *a, const diag *b)
{
    /* Diagnostics without a file come first: they are about the whole run. */
    if (!a->path != !b->path)
        return a->path ? 1 : -1;
    if (a->path) {
        int c = strcmp(a->path, b->path);
        if (c)
            return c;
    }
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp(const void *pa, const void *pb)
{
    const sort_entry *a = pa, *b = pb;
    int c = cmp_pos(a->key, b->key);
    if (c)
        return c;
    return a->item.seq < b->item.seq ? -1 : a->item.seq > b->item.seq;
}

void diag_sort(diag_list *d)
{
    /* A note belongs to the diagnostic just before it: it sorts with it. */
    if (d->len < 2)
        return;
    sort_entry *e = xmalloc(d->len * sizeof *e);
    for (size_t i = 0; i < d->len; i++) {
        e[i].item = d->items[i];
        e[i].key = &d->items[i];
        if (d->items[i].level == DIAG_NOTE && i > 0)
            e[i].key = e[i - 1].key;
    }
    vec_sort(e, d->len, sizeof *e, cmp);
    diag *sorted = xmalloc(d->cap * sizeof *sorted);
    for (size_t i = 0; i < d->len; i++)
        sorted[i] = e[i].item;
    free(e);
    free(d->items);
    d->items = sorted;
}

void diag_move(diag_list *dst, diag_list *src)
{
    pthread_mutex_lock(&src->lock);
    for (size_t i = 0; i < src->len; i++)
        push(dst, src->items[i]);
    src->len = src->errors = src->warnings = 0;
    pthread_mutex_unlock(&src->lock);
}

void diag_relocate(diag_list *d, size_t from, bool (*fn)(void *ctx, const diag *e, buf *out), void *ctx)
{
    buf b = BUF_INIT;
    pthread_mutex_lock(&d->lock);
    for (size_t i = from; i < d->len; i++) {
        diag *e = &d->items[i];
        if (!e->path || e->line <= 0 || e->place)
            continue;
        buf_reset(&b);
        if (fn(ctx, e, &b))
            e->place = xstrdup(b.data);
    }
    pthread_mutex_unlock(&d->lock);
    buf_release(&b);
}

static const char *level_name(diag_level l)
{
    return l == DIAG_ERROR ? "error" : l == DIAG_WARNING ? "warning" : "note";
}

/* Appends s with its control bytes written as \xNN: a message may quote a
 * source's bytes (a template's stray character, a YAML key, a file name),
 * and raw control bytes would reach the terminal — a \r that hides the
 * line, an escape sequence that repaints it. */
static void put_visible(buf *out, const char *s)
{
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c == 0x7f)
            buf_printf(out, "\\x%02x", c);
        else
            buf_putc(out, (char)c);
    }
}

static void format(const diag *e, buf *out, bool color)
{
    if (e->path) {
        put_visible(out, e->path);
        if (e->place) {
            buf_puts(out, ": ");
            put_visible(out, e->place);
        } else if (e->line > 0) {
            buf_printf(out, ":%d", e->line);
            if (e->col > 0)
                buf_printf(out, ":%d", e->col);
        }
        buf_puts(out, ": ");
    } else {
        buf_puts(out, "sheaf: ");
    }
    if (color) {
        const char *c = e->level == DIAG_ERROR ? "\033[1;31m" : e->level == DIAG_WARNING ? "\033[1;35m" : "\033[1;36m";
        buf_printf(out, "%s%s:\033[0m ", c, level_name(e->level));
    } else {
        buf_printf(out, "%s: ", level_name(e->level));
    }
    put_visible(out, e->message);
}

void diag_format(const diag *e, buf *out)
{
    format(e, out, false);
}

static bool same_path(const diag *a, const diag *b)
{
    return (!a->path && !b->path) || (a->path && b->path && !strcmp(a->path, b->path));
}

void diag_print(const diag_list *d, FILE *f, bool color)
{
    buf b = BUF_INIT;
    size_t shown = 0, errors = 0, warnings = 0; /* of the current file's run */
    bool dropping = false;
    for (size_t i = 0; i < d->len; i++) {
        const diag *e = &d->items[i];
        if (i && !same_path(e, &d->items[i - 1]))
            shown = errors = warnings = 0, dropping = false;
        if (e->level != DIAG_NOTE)
            dropping = e->path && shown++ >= DIAG_MAX_PER_FILE;
        if (dropping) { /* a note goes with the error before it */
            errors += e->level == DIAG_ERROR;
            warnings += e->level == DIAG_WARNING;
        } else {
            buf_reset(&b);
            format(e, &b, color);
            buf_putc(&b, '\n');
            fwrite(b.data, 1, b.len, f);
        }
        bool last = i + 1 == d->len || !same_path(e, &d->items[i + 1]);
        if (last && (errors || warnings)) {
            diag more = { DIAG_NOTE, e->path, 0, 0, NULL, 0, NULL, NULL };
            buf m = BUF_INIT;
            if (errors)
                buf_printf(&m, "%zu more error%s", errors, errors == 1 ? "" : "s");
            if (warnings)
                buf_printf(&m, "%s%zu more warning%s", errors ? " and " : "", warnings,
                           warnings == 1 ? "" : "s");
            buf_printf(&m, " in this file not shown (the first %d are)", DIAG_MAX_PER_FILE);
            more.message = m.data;
            buf_reset(&b);
            format(&more, &b, color);
            buf_putc(&b, '\n');
            fwrite(b.data, 1, b.len, f);
            buf_release(&m);
        }
    }
    buf_release(&b);
}
