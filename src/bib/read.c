/* bib/read.c: sheaf's BibTeX reader (see bib.h).
 *
 * One pass over the file, no recursion, nothing global: a reader holds the
 * file, its @string macros and where it is. Between entries, text is
 * ignored and `%` starts a comment to the end of the line (as biber and
 * btparse read it). An entry is `@type{…}` or `@type(…)`:
 *
 *   @comment{…}          skipped (its braces must balance)
 *   @preamble{value}     its value checked, then dropped
 *   @string{name = value, …}   macros, usable after their definition
 *   @type{key, name = value, …}   a regular entry; a trailing ',' is fine
 *
 * A value is pieces joined by `#`: `{…}` (braces nest), `"…"` (braces inside
 * nest, a `"` at depth 0 ends it), a number, or a macro name; the joined
 * text has every run of white space made one space and none at either end,
 * as BibTeX does (a macro's text is stored so too).
 *
 * Errors are reported where they are; after one the reader goes on at the
 * next `@` at the start of a line, and the broken entry is dropped. A
 * duplicate field, an unknown macro or a value over its budget does not
 * break the structure: the entry is read to its end (so each of its
 * problems is reported) and dropped.
 *
 * Bounds: every byte is scanned at most twice (see `floor`); macro text
 * copied into values is capped per value (BIB_VALUE_MAX) and per file
 * (BIB_EXPANSION_MAX). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bib/bib.h"
#include "bib/read.h"
#include "util/buf.h"
#include "util/lines.h"
#include "util/strmap.h"
#include "util/xalloc.h"

typedef struct macro {
    char *name;        /* lower case; the map's key (the reader's) */
    char *text;        /* its value, white space collapsed (the reader's) */
    size_t len;
    bool broken;       /* its definition had an error (reported there) */
} macro;

/* A field being read: name and where it is (for duplicates). */
typedef struct rfield {
    const char *name;  /* lower case (arena) */
    size_t text, len;  /* its raw value: offset in the reader's `store` */
    size_t at;
} rfield;

typedef struct reader {
    const char *s;          /* the file (not NUL-terminated) */
    size_t n, i;            /* its length, where the reader is */
    const char *path;
    bib *b;
    arena *a;
    diag_list *d;
    lines lines;            /* the file's line index */
    strmap *macro_index;    /* lower-case name → index in macros */
    macro *macros;
    size_t nmacros, capmacros;
    size_t expanded;        /* bytes of macro text copied into values */
    size_t high;            /* the furthest byte scanned */
    size_t floor;           /* the reader never goes back before this */
    bool ok;                /* no error so far */
    int nerrors;
    bool stop;              /* a file budget is spent: read no further */
    buf val;                /* the value being read, raw */
    rfield *fields;         /* the entry being read */
    size_t nfields, capfields;
    buf store;              /* the raw values of the entry being read */
    buf name;               /* a macro name being looked up, lower case */
    buf msg;                /* a value's structural error, for its caller */
    size_t msg_at;
    bool pending;           /* msg is not reported yet */
} reader;

/* What went wrong in the value just read (parse_value). */
typedef struct value_info {
    size_t start;           /* where its first piece starts */
    size_t runaway;         /* an entry start inside a {…} or "…" piece, or 0 */
    size_t runaway_piece;   /* where that piece starts */
    bool bad;               /* an error that leaves the structure intact */
    bool capped;            /* over BIB_VALUE_MAX: expand no more */
} value_info;

enum { CONTINUE_ENTRY, BROKEN_ENTRY };

/* ---- characters ---- */

static bool is_ws(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* Field, type and macro names: what BibTeX allows, less `@`. */
static bool is_ident(int c)
{
    unsigned char u = (unsigned char)c;
    return u > ' ' && u != 0x7f && !strchr("\"#%'(),={}@", u);
}

/* Keys: anything but white space and the characters that end or build
 * values and entries. */
static bool is_key(int c)
{
    unsigned char u = (unsigned char)c;
    return u > ' ' && u != 0x7f && !strchr("\"#%(),={}@\\", u);
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

static char *lower(arena *a, const char *s, size_t n)
{
    char *r = arena_strndup(a, s, n);
    for (char *p = r; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return r;
}

/* ---- places ---- */

static int line_of(const reader *r, size_t pos)
{
    int line, col;
    lines_place(&r->lines, pos, &line, &col);
    return line;
}

static int col_of(const reader *r, size_t pos)
{
    int line, col;
    lines_place(&r->lines, pos, &line, &col);
    return col;
}

/* The file's last line (its final newline ends it, starts no other). */
static int last_line(const reader *r) { return r->n ? line_of(r, r->n - 1) : 1; }

/* Reports an error (the first BIB_ERRORS_MAX of a file; then one saying
 * so, and the reader stops). */
static void error_at(reader *r, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void error_at(reader *r, size_t pos, const char *fmt, ...)
{
    r->ok = false;
    if (r->stop)
        return;
    if (r->nerrors++ == BIB_ERRORS_MAX) {
        diag_add(r->d, DIAG_ERROR, r->path, line_of(r, pos), col_of(r, pos),
                 "more than %d errors in this file: the rest of it is not read", BIB_ERRORS_MAX);
        r->stop = true;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    diag_vadd(r->d, DIAG_ERROR, r->path, line_of(r, pos), col_of(r, pos), fmt, ap);
    va_end(ap);
}

static void seen(reader *r, size_t pos)
{
    if (pos > r->high)
        r->high = pos;
}

/* Is s[pos] an `@` with only blanks before it on its line? */
static bool at_line_start(const reader *r, size_t pos)
{
    while (pos > 0 && (r->s[pos - 1] == ' ' || r->s[pos - 1] == '\t'))
        pos--;
    return pos == 0 || r->s[pos - 1] == '\n' || r->s[pos - 1] == '\r';
}

/* Does an entry start at s[pos]: `@`, at the start of a line, a type and
 * `{` or `(`? (Inside a value, that is most likely a runaway.) */
static bool entry_starts(const reader *r, size_t pos)
{
    if (r->s[pos] != '@' || !at_line_start(r, pos))
        return false;
    size_t j = pos + 1;
    while (j < r->n && (r->s[j] == ' ' || r->s[j] == '\t'))
        j++;
    size_t t = j;
    while (j < r->n && is_ident(r->s[j]))
        j++;
    if (j == t)
        return false;
    while (j < r->n && is_ws(r->s[j]))
        j++;
    return j < r->n && (r->s[j] == '{' || r->s[j] == '(');
}

/* What is at pos, for "found …" (into out). */
static const char *found(const reader *r, size_t pos, char out[80])
{
    if (pos >= r->n) {
        snprintf(out, 80, "the end of the file");
    } else if (r->s[pos] == '@' && at_line_start(r, pos)) {
        snprintf(out, 80, "the next entry (line %d)", line_of(r, pos));
    } else if (is_ident(r->s[pos])) {
        size_t j = pos;
        while (j < r->n && is_ident(r->s[j]) && j - pos < 40)
            j++;
        bool more = j < r->n && is_ident(r->s[j]);
        while (more && j > pos + 1 && ((unsigned char)r->s[j] & 0xC0) == 0x80)
            j--; /* not inside a UTF-8 character */
        snprintf(out, 80, "'%.*s%s'", (int)(j - pos), r->s + pos, more ? "…" : "");
    } else if ((unsigned char)r->s[pos] < ' ' || r->s[pos] == 0x7f) {
        snprintf(out, 80, "a control character (0x%02x)", (unsigned char)r->s[pos]);
    } else {
        snprintf(out, 80, "'%c'", r->s[pos]);
    }
    return out;
}

/* Goes on at the next `@` at the start of a line at or after `from`. */
static void resync(reader *r, size_t from)
{
    size_t i = from;
    while (i < r->n) {
        const char *at = memchr(r->s + i, '@', r->n - i);
        if (!at)
            break;
        i = (size_t)(at - r->s);
        if (at_line_start(r, i))
            break;
        i++;
    }
    r->i = i < r->n ? i : r->n;
    seen(r, r->i);
}

/* Goes back to `to` (an entry swallowed by a runaway value) when the
 * reader has not been there since the last time it went back: so each
 * byte is read at most twice. Else goes on from `from`. */
static void resync_back(reader *r, size_t to, size_t from)
{
    if (to && to >= r->floor && to < from) {
        r->floor = r->high > from ? r->high : from;
        r->i = to;
    } else {
        resync(r, from);
    }
}

static void skip_ws(reader *r)
{
    while (r->i < r->n && is_ws(r->s[r->i]))
        r->i++;
}

/* ---- macros ---- */

static const char *const month_names[12][2] = {
    { "jan", "January" }, { "feb", "February" }, { "mar", "March" },     { "apr", "April" },
    { "may", "May" },     { "jun", "June" },     { "jul", "July" },       { "aug", "August" },
    { "sep", "September" }, { "oct", "October" }, { "nov", "November" }, { "dec", "December" },
};

/* s[0, n) in lower case, in r->name. */
static const char *lower_name(reader *r, const char *s, size_t n)
{
    buf_reset(&r->name);
    for (size_t k = 0; k < n; k++)
        buf_putc(&r->name, s[k] >= 'A' && s[k] <= 'Z' ? s[k] - 'A' + 'a' : s[k]);
    return r->name.data;
}

/* The macro named name (lower case), or NULL; the month macros are there
 * until redefined. */
static const macro *find_macro(reader *r, const char *name, macro *month)
{
    long k = r->macro_index ? strmap_get(r->macro_index, name) : -1;
    if (k >= 0)
        return &r->macros[k];
    for (size_t m = 0; m < 12; m++)
        if (!strcmp(name, month_names[m][0])) {
            month->text = (char *)month_names[m][1];
            month->len = strlen(month->text);
            month->broken = false;
            return month;
        }
    return NULL;
}

/* Defines (or redefines, as BibTeX does) the macro `name` as r->val. */
static void define_macro(reader *r, const char *name, bool broken)
{
    if (!r->macro_index)
        r->macro_index = strmap_new(16);
    long k = strmap_get(r->macro_index, name);
    if (k < 0) {
        if (r->nmacros == r->capmacros)
            r->macros = xrealloc(r->macros, (r->capmacros = r->capmacros ? 2 * r->capmacros : 16) *
                                                sizeof *r->macros);
        k = (long)r->nmacros++;
        r->macros[k].name = xstrdup(name);
        strmap_put(r->macro_index, r->macros[k].name, k);
    } else {
        free(r->macros[k].text);
    }
    r->macros[k].text = xstrndup(r->val.data, r->val.len);
    r->macros[k].len = r->val.len;
    r->macros[k].broken = broken;
}

/* ---- values ---- */

/* Reads a {…} or "…" piece at r->i into r->val. Returns false (reported)
 * when it never closes, or, in quotes, a '}' closes no '{'. */
static bool read_delimited(reader *r, const char *what, value_info *vi)
{
    size_t start = r->i;
    char open = r->s[start];
    int depth = open == '{' ? 1 : 0;
    size_t i = start + 1;
    size_t runaway = 0;
    for (; i < r->n; i++) {
        char c = r->s[i];
        if (c == '{') {
            depth++;
        } else if (c == '}') {
            if (depth == 0) { /* in quotes */
                error_at(r, i, "unbalanced braces: this '}' in the quoted value of %s closes no '{'", what);
                seen(r, i);
                resync(r, i);
                return false;
            }
            if (--depth == 0 && open == '{')
                break;
        } else if (c == '"' && open == '"' && depth == 0) {
            break;
        } else if (c == '@' && !runaway && entry_starts(r, i)) {
            runaway = i;
        } else if (c == '\n' || c == '\t' || c == '\r') {
            c = ' ';
        }
        buf_putc(&r->val, is_ws(c) ? ' ' : c);
    }
    seen(r, i);
    if (runaway && !vi->runaway) {
        vi->runaway = runaway;
        vi->runaway_piece = start;
    }
    if (i >= r->n) {
        const char *kind = open == '{' || depth > 0 ? "braces" : "quotes";
        if (runaway)
            error_at(r, start,
                     "unbalanced %s: the value of %s that starts here never closes (it runs on "
                     "through the entry at line %d to the end of the file, line %d)",
                     kind, what, line_of(r, runaway), last_line(r));
        else
            error_at(r, start,
                     "unbalanced %s: the value of %s that starts here never closes (it runs on to "
                     "the end of the file, line %d)",
                     kind, what, last_line(r));
        r->i = r->n;
        resync_back(r, runaway, r->n); /* read the entries it swallowed */
        return false;
    }
    r->i = i + 1;
    return true;
}

/* Appends a macro's text to r->val within the budgets. */
static bool expand(reader *r, const macro *m, size_t at, const char *name, const char *what,
                   value_info *vi)
{
    if (m->broken || vi->capped) {
        vi->bad = true; /* said already: at its definition, or at the first piece over */
        return true;
    }
    if (r->val.len + m->len > BIB_VALUE_MAX) {
        error_at(r, at,
                 "the value of %s would be %zu bytes with @string '%s' expanded here: a value may "
                 "hold at most 1 MiB (%d bytes)",
                 what, r->val.len + m->len, name, BIB_VALUE_MAX);
        vi->bad = vi->capped = true;
        return true;
    }
    if (r->expanded + m->len > BIB_EXPANSION_MAX) {
        error_at(r, at,
                 "expanding @string '%s' here takes this file's macro expansions past 64 MiB (%d "
                 "bytes): the rest of the file is not read",
                 name, BIB_EXPANSION_MAX);
        r->stop = true;
        return false;
    }
    r->expanded += m->len;
    buf_put(&r->val, m->text, m->len);
    return true;
}

/* Reads a value at r->i (after `=`, or a @preamble's): its pieces joined
 * into r->val, white space collapsed. `expand_macros` false: only checked
 * (a @preamble). Returns false when the structure is broken: either
 * reported already (and the reader moved on), or, with r->pending, the
 * message for the caller to report through `broken`. A problem that leaves
 * the structure whole sets vi->bad. */
static bool parse_value(reader *r, const char *what, bool expand_macros, value_info *vi)
{
    buf_reset(&r->val);
    r->pending = false;
    memset(vi, 0, sizeof *vi);
    skip_ws(r);
    vi->start = r->i;
    bool after_hash = false;
    for (;;) {
        char f[80];
        size_t at = r->i;
        char c = at < r->n ? r->s[at] : 0;
        if (c == '{' || c == '"') {
            if (!read_delimited(r, what, vi))
                return false;
        } else if (is_digit(c)) {
            while (r->i < r->n && is_digit(r->s[r->i]))
                r->i++;
            buf_put(&r->val, r->s + at, r->i - at);
        } else if (at < r->n && is_ident(c)) {
            while (r->i < r->n && is_ident(r->s[r->i]))
                r->i++;
            if (expand_macros) {
                const char *name = lower_name(r, r->s + at, r->i - at);
                macro month;
                const macro *m = find_macro(r, name, &month);
                if (!m) {
                    error_at(r, at,
                             "unknown @string macro '%.*s' in the value of %s (an @string must "
                             "come before the entries that use it; a text value needs {…} or \"…\")",
                             (int)(r->i - at), r->s + at, what);
                    vi->bad = true;
                } else if (!expand(r, m, at, name, what, vi)) {
                    return false;
                }
            }
        } else {
            buf_reset(&r->msg);
            if (after_hash)
                buf_printf(&r->msg, "expected a value after '#' in %s, found %s", what, found(r, at, f));
            else
                buf_printf(&r->msg,
                           "expected the value of %s ({…}, \"…\", a number or an @string name), "
                           "found %s",
                           what, found(r, at, f));
            r->msg_at = at;
            r->pending = true;
            return false;
        }
        seen(r, r->i);
        size_t back = r->i;
        skip_ws(r);
        if (r->i < r->n && r->s[r->i] == '#') {
            r->i++;
            skip_ws(r);
            after_hash = true;
            continue;
        }
        r->i = back;
        break;
    }
    /* collapse white space: runs become one space, none at the ends */
    size_t k = 0;
    bool space = true;
    for (size_t j = 0; j < r->val.len; j++) {
        char c = r->val.data[j];
        if (c == ' ') {
            if (!space)
                r->val.data[k++] = ' ';
            space = true;
        } else {
            r->val.data[k++] = c;
            space = false;
        }
    }
    if (k && r->val.data[k - 1] == ' ')
        k--;
    buf_truncate(&r->val, k);
    return true;
}

/* ---- entries ---- */

/* A structural error at `pos` in the entry whose `@` is at `entry`, after
 * the values in vi: when one of those values swallowed the start of an
 * entry, the real problem is that value (unbalanced), said there, and the
 * reader goes back to the swallowed entry. */
static void broken(reader *r, size_t pos, const value_info *vi, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void broken(reader *r, size_t pos, const value_info *vi, const char *what, const char *fmt, ...)
{
    buf m = BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&m, fmt, ap);
    va_end(ap);
    if (vi && vi->runaway && vi->runaway < pos) {
        error_at(r, vi->runaway_piece,
                 "unbalanced braces or quotes: the value of %s that starts here runs on into the "
                 "entry at line %d (then, at line %d, col %d: %s)",
                 what, line_of(r, vi->runaway), line_of(r, pos), col_of(r, pos), m.data);
        resync_back(r, vi->runaway, pos);
    } else {
        error_at(r, pos, "%s", m.data);
        resync(r, pos);
    }
    buf_release(&m);
}

/* Does the entry stop at `at` without its close: the end of the file, or
 * an `@` that starts a line? */
static bool cut_off(const reader *r, size_t at)
{
    return at >= r->n || (r->s[at] == '@' && at_line_start(r, at));
}

/* The entry is not closed before `at` (cut_off): said at `after`, the end
 * of its last part (`what`). */
static void unclosed(reader *r, size_t after, size_t at, const value_info *vi, const char *what,
                     const char *key, const char *expected, const char *after_what)
{
    char f[80];
    if (key)
        broken(r, after, vi, what, "entry '%s' is not closed: expected %s after %s, before %s", key,
               expected, after_what, found(r, at, f));
    else
        broken(r, after, vi, what, "this entry is not closed: expected %s after %s, before %s", expected,
               after_what, found(r, at, f));
}

static void skip_comment(reader *r, size_t open, char close)
{
    int depth = 0;
    size_t i = open + 1;
    for (; i < r->n; i++) {
        char c = r->s[i];
        if (c == '{')
            depth++;
        else if (c == '}' && depth > 0)
            depth--;
        else if (c == close && depth == 0)
            break;
    }
    seen(r, i);
    if (i >= r->n) {
        error_at(r, open,
                 "unbalanced braces: this @comment never closes (it runs on to the end of the file, "
                 "line %d)",
                 last_line(r));
        resync(r, open + 1);
        return;
    }
    r->i = i + 1;
}

/* After a value or a key: `,` (then maybe the close) or the close.
 * Returns 1 to read another field, 0 at the entry's end, -1 broken. */
static int after_item(reader *r, char close, const value_info *vi, const char *what,
                      const char *prev_field, const char *key)
{
    char f[80], expected[16];
    size_t after = r->i;
    skip_ws(r);
    size_t at = r->i;
    snprintf(expected, sizeof expected, "',' or '%c'", close);
    if (at < r->n && r->s[at] == close) {
        r->i++;
        return 0;
    }
    if (at < r->n && r->s[at] == ',') {
        r->i++;
        after = r->i;
        skip_ws(r);
        if (r->i < r->n && r->s[r->i] == close) {
            r->i++;
            return 0;
        }
        if (cut_off(r, r->i)) {
            snprintf(expected, sizeof expected, "'%c'", close);
            unclosed(r, after, r->i, vi, what, key, expected,
                     prev_field ? arena_printf(r->a, "the value of '%s'", prev_field)
                                : arena_printf(r->a, "the key '%s'", key));
            return -1;
        }
        return 1;
    }
    if (cut_off(r, at)) {
        unclosed(r, after, at, vi, what, key, expected,
                 prev_field ? arena_printf(r->a, "the value of '%s'", prev_field)
                            : arena_printf(r->a, "the key '%s'", key));
        return -1;
    }
    if (prev_field && is_ident(r->s[at])) {
        size_t j = at;
        while (j < r->n && is_ident(r->s[j]))
            j++;
        size_t k = j;
        while (k < r->n && is_ws(r->s[k]))
            k++;
        if (k < r->n && r->s[k] == '=') {
            broken(r, at, vi, what, "missing ',' between the fields '%s' and '%.*s'", prev_field,
                   (int)(j - at), r->s + at);
            return -1;
        }
    }
    if (prev_field)
        broken(r, at, vi, what, "expected ',' or '%c' after the value of '%s', found %s", close,
               prev_field, found(r, at, f));
    else
        broken(r, at, vi, what, "expected ',' or '%c' after the key '%s', found %s", close, key,
               found(r, at, f));
    return -1;
}

static void add_fields(reader *r, bib_entry *e)
{
    e->fields = arena_calloc(r->a, (r->nfields ? r->nfields : 1) * sizeof *e->fields);
    for (size_t k = 0; k < r->nfields; k++) {
        bib_field *x = &e->fields[e->nfields++];
        x->name = r->fields[k].name;
        const char *raw = r->store.data + r->fields[k].text;
        x->text = bib_tex_to_text(r->a, raw, r->fields[k].len);
        x->raw = arena_strndup(r->a, raw, r->fields[k].len);
        if (!strcmp(x->name, "author"))
            e->authors = bib_split_names(r->a, raw, &e->nauthors);
        else if (!strcmp(x->name, "editor"))
            e->editors = bib_split_names(r->a, raw, &e->neditors);
    }
}

/* A field named `name` already in the entry (index), or -1. Small entries
 * are scanned; a large one gets a map (no quadratic time on 10⁵ fields). */
static long field_index(reader *r, strmap **map, const char *name, size_t k)
{
    if (!*map && k < 16) {
        for (size_t j = 0; j < k; j++)
            if (!strcmp(r->fields[j].name, name))
                return (long)j;
        return -1;
    }
    if (!*map) {
        *map = strmap_new(64);
        for (size_t j = 0; j < k; j++)
            strmap_put(*map, r->fields[j].name, (long)j);
    }
    long at = strmap_put(*map, name, (long)k);
    return at == (long)k ? -1 : at;
}

static void read_regular(reader *r, size_t entry, const char *type, char close)
{
    char f[80];
    skip_ws(r);
    size_t ks = r->i;
    while (r->i < r->n && is_key(r->s[r->i]))
        r->i++;
    if (r->i == ks) {
        broken(r, ks, NULL, NULL, "expected the key of this @%s after its '%c', found %s", type,
               close == '}' ? '{' : '(', found(r, ks, f));
        return;
    }
    const char *key = arena_strndup(r->a, r->s + ks, r->i - ks);
    skip_ws(r);
    if (r->i < r->n && r->s[r->i] == '=') {
        broken(r, ks, NULL, NULL,
               "missing key: '%s' is followed by '=' (an entry starts with its key: @%s{KEY, %s = …})",
               key, type, key);
        return;
    }
    r->nfields = 0;
    buf_reset(&r->store);
    strmap *names = NULL;
    bool bad = false;
    value_info last = { 0 }, run = { 0 };
    const char *prev = NULL, *what = NULL;
    int more = after_item(r, close, NULL, NULL, NULL, key);
    while (more == 1) {
        size_t ns = r->i;
        while (r->i < r->n && is_ident(r->s[r->i]))
            r->i++;
        if (r->i == ns) { /* after_item saw to a cut-off entry */
            broken(r, ns, &run, what, "expected a field name or '%c' in entry '%s', found %s", close,
                   key, found(r, ns, f));
            more = -1;
            break;
        }
        const char *name = lower(r->a, r->s + ns, r->i - ns);
        skip_ws(r);
        if (r->i >= r->n || r->s[r->i] != '=') {
            broken(r, r->i, &run, what, "expected '=' after the field name '%s', found %s", name,
                   found(r, r->i, f));
            more = -1;
            break;
        }
        r->i++;
        what = arena_printf(r->a, "'%s'", name);
        if (!parse_value(r, what, true, &last)) {
            if (r->pending)
                broken(r, r->msg_at, &run, what, "%s", r->msg.data);
            more = -1;
            break;
        }
        if (last.runaway && !run.runaway)
            run = last;
        if (last.bad)
            bad = true;
        long dup = field_index(r, &names, name, r->nfields);
        if (dup >= 0) {
            error_at(r, ns, "duplicate field '%s' in entry '%s' (the first is at line %d)", name, key,
                     line_of(r, r->fields[dup].at));
            bad = true;
        } else {
            if (r->nfields == r->capfields)
                r->fields = xrealloc(r->fields, (r->capfields = r->capfields ? 2 * r->capfields : 16) *
                                                    sizeof *r->fields);
            r->fields[r->nfields++] = (rfield){ name, r->store.len, r->val.len, ns };
            buf_put(&r->store, r->val.data, r->val.len);
            buf_putc(&r->store, 0);
        }
        prev = name;
        more = after_item(r, close, &run, what, prev, key);
    }
    strmap_free(names);
    if (more < 0 || bad)
        return;
    bib_entry e = { 0 };
    e.key = key;
    e.type = type;
    e.src = r->path;
    e.line = line_of(r, entry);
    add_fields(r, &e);
    if (!bib_add_entry(r->b, &e, r->d))
        r->ok = false;
}

static void read_string(reader *r, char close)
{
    char f[80];
    for (;;) {
        skip_ws(r);
        size_t ns = r->i;
        while (r->i < r->n && is_ident(r->s[r->i]))
            r->i++;
        if (r->i == ns) {
            broken(r, ns, NULL, NULL, "expected a macro name in this @string, found %s", found(r, ns, f));
            return;
        }
        const char *name = lower(r->a, r->s + ns, r->i - ns);
        skip_ws(r);
        if (r->i >= r->n || r->s[r->i] != '=') {
            broken(r, r->i, NULL, NULL, "expected '=' after the @string name '%s', found %s", name,
                   found(r, r->i, f));
            return;
        }
        r->i++;
        const char *what = arena_printf(r->a, "@string '%s'", name);
        value_info vi;
        if (!parse_value(r, what, true, &vi)) {
            if (r->pending)
                broken(r, r->msg_at, NULL, what, "%s", r->msg.data);
            return;
        }
        define_macro(r, name, vi.bad);
        size_t after = r->i;
        skip_ws(r);
        if (r->i < r->n && r->s[r->i] == ',') {
            r->i++;
            skip_ws(r);
            if (r->i < r->n && r->s[r->i] == close) {
                r->i++;
                return;
            }
            continue;
        }
        if (r->i < r->n && r->s[r->i] == close) {
            r->i++;
            return;
        }
        char expected[16];
        snprintf(expected, sizeof expected, "'%c'", close);
        if (cut_off(r, r->i))
            unclosed(r, after, r->i, &vi, what, NULL, expected, arena_printf(r->a, "the value of %s", what));
        else
            broken(r, r->i, &vi, what, "expected '%c' after the value of %s, found %s", close, what,
                   found(r, r->i, f));
        return;
    }
}

static void read_preamble(reader *r, char close)
{
    char f[80];
    value_info vi;
    if (!parse_value(r, "this @preamble", false, &vi)) {
        if (r->pending)
            broken(r, r->msg_at, NULL, NULL, "%s", r->msg.data);
        return;
    }
    size_t after = r->i;
    skip_ws(r);
    if (r->i < r->n && r->s[r->i] == close) {
        r->i++;
        return;
    }
    char expected[16];
    snprintf(expected, sizeof expected, "'%c'", close);
    if (cut_off(r, r->i))
        unclosed(r, after, r->i, &vi, "this @preamble", NULL, expected, "the value of this @preamble");
    else
        broken(r, r->i, &vi, "this @preamble", "expected '%c' after the value of this @preamble, found %s",
               close, found(r, r->i, f));
}

/* At an `@` between entries. */
static void read_entry(reader *r)
{
    char f[80];
    size_t entry = r->i;
    bool line_start = at_line_start(r, entry);
    char prev = entry ? r->s[entry - 1] : ' ';
    r->i++;
    if (is_digit(prev) || (prev >= 'a' && prev <= 'z') || (prev >= 'A' && prev <= 'Z'))
        return; /* mid-word, as in an e-mail address: text */
    skip_ws(r);
    size_t ts = r->i;
    while (r->i < r->n && is_ident(r->s[r->i]))
        r->i++;
    size_t te = r->i;
    skip_ws(r);
    char open = r->i < r->n ? r->s[r->i] : 0;
    if (te == ts || (open != '{' && open != '(')) {
        /* Not an entry: text between entries, as an e-mail address is;
         * an error when it starts a line. */
        if (!line_start) {
            r->i = entry + 1;
            return;
        }
        if (te == ts)
            error_at(r, entry + 1, "expected an entry type after '@' (like @article{key, …}), found %s",
                     found(r, ts, f));
        else
            error_at(r, cut_off(r, r->i) ? te : r->i, "expected '{' or '(' after '@%.*s', found %s",
                     (int)(te - ts), r->s + ts, found(r, r->i, f));
        resync(r, entry + 1);
        return;
    }
    const char *type = lower(r->a, r->s + ts, te - ts);
    char close = open == '{' ? '}' : ')';
    size_t at = r->i;
    r->i++;
    if (!strcmp(type, "comment"))
        skip_comment(r, at, close);
    else if (!strcmp(type, "preamble"))
        read_preamble(r, close);
    else if (!strcmp(type, "string"))
        read_string(r, close);
    else
        read_regular(r, entry, type, close);
}

bool bib_read(bib *b, const char *text, size_t len, const char *path, arena *a, diag_list *d)
{
    reader r = { 0 };
    r.s = text;
    r.n = len;
    r.path = path;
    r.b = b;
    r.a = a;
    r.d = d;
    r.ok = true;
    r.val = (buf)BUF_INIT;
    r.msg = (buf)BUF_INIT;
    r.store = (buf)BUF_INIT;
    r.name = (buf)BUF_INIT;
    lines_index(&r.lines, r.s, r.n);
    while (r.i < r.n && !r.stop) {
        char c = r.s[r.i];
        if (c == '@') {
            read_entry(&r);
        } else if (c == '%') {
            const char *nl = memchr(r.s + r.i, '\n', r.n - r.i);
            r.i = nl ? (size_t)(nl - r.s) + 1 : r.n;
        } else {
            size_t j = r.i + 1;
            while (j < r.n && r.s[j] != '@' && r.s[j] != '%')
                j++;
            r.i = j;
        }
        seen(&r, r.i);
    }
    strmap_free(r.macro_index);
    for (size_t k = 0; k < r.nmacros; k++) {
        free(r.macros[k].name);
        free(r.macros[k].text);
    }
    free(r.macros);
    free(r.fields);
    lines_release(&r.lines);
    buf_release(&r.val);
    buf_release(&r.msg);
    buf_release(&r.store);
    buf_release(&r.name);
    return r.ok;
}
