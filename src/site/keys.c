/* keys: reading a mapping through a table of keys (see keys.h). */
#include <string.h>
#include <strings.h>

#include "site/keys.h"
#include "util/buf.h"
#include "util/date.h"
#include "util/strmap.h"

#define FIELD(out, off, type) ((type *)(void *)((char *)(out) + (off)))
#define CFIELD(out, off, type) ((type const *)(const void *)((const char *)(out) + (off)))

/* The row of a key. Every page's keys are looked up in the page table's
 * forty rows, so a row whose first byte differs is passed over without a
 * call: two names equal in any case have first bytes equal once ASCII
 * letters are folded (| 0x20; strcasecmp folds nothing else). */
static const key_def *find_row(const key_table *t, const char *name)
{
    unsigned char c0 = (unsigned char)name[0], f0 = (unsigned char)(c0 | 0x20);
    for (size_t i = 0; i < t->n; i++) {
        unsigned char k0 = (unsigned char)t->keys[i].name[0];
        if (t->any_case ? (k0 | 0x20) != f0 || strcasecmp(t->keys[i].name, name)
                        : k0 != c0 || strcmp(t->keys[i].name, name))
            continue;
        return &t->keys[i];
    }
    return NULL;
}

void site_keys_default(const key_table *t, void *out, arena *a)
{
    for (size_t i = 0; i < t->n; i++) {
        const key_def *k = &t->keys[i];
        switch (k->type) {
        case KEY_STRING:
        case KEY_TEXT: *FIELD(out, k->at, const char *) = k->str_default; break;
        case KEY_BOOL:
        case KEY_WORD:
            *FIELD(out, k->at, bool) = k->num_default != 0;
            if (k->set)
                *FIELD(out, k->set, bool) = false;
            break;
        case KEY_COUNT: *FIELD(out, k->at, long) = k->num_default; break;
        case KEY_MAP: *FIELD(out, k->at, tpl_value) = tpl_map_value(tpl_map_new(a, 0)); break;
        case KEY_DATE:
            memset(FIELD(out, k->at, sheaf_date), 0, sizeof(sheaf_date));
            *FIELD(out, k->set, bool) = false;
            break;
        case KEY_NAMES:
            *FIELD(out, k->at, const char **) = NULL;
            *FIELD(out, k->set, size_t) = 0;
            break;
        case KEY_TABLE: site_keys_default(k->sub, out, a); break;
        case KEY_READER: /* the struct's zero is its default */
        case KEY_NO_EQUIVALENT: break;
        }
    }
}

/* The place of a key for a warning: the key itself. */
static void key_place(const key_reader *r, const tpl_map *m, const char *key, int *line, int *col)
{
    const fm_key_pos *p = fm_key_find(r->pos, r->npos, m, key);
    if (p) {
        *line = p->line;
        *col = p->col;
    } else {
        *line = r->parent ? r->parent->vline : 1;
        *col = r->parent ? r->parent->vcol : 1;
    }
}

void site_keys_place(const key_reader *r, const tpl_map *m, const char *key, int *line, int *col)
{
    const fm_key_pos *p = fm_key_find(r->pos, r->npos, m, key);
    if (p && !r->parent) {
        *line = p->vline;
        *col = p->vcol;
    } else {
        key_place(r, m, key, line, col);
    }
}

void site_keys_type_error(key_reader *r, const key_table *t, const char *name, const tpl_map *m,
                     const char *want)
{
    int line, col;
    site_keys_place(r, m, name, &line, &col);
    diag_error(r->d, r->path, line, col, "'%s%s' must be %s", t->prefix, name, want);
    r->ok = false;
}

static void unknown_key(key_reader *r, const key_table *t, const tpl_map *m, const char *name)
{
    int line, col;
    key_place(r, m, name, &line, &col);
    if (t->unknown_hint) {
        diag_warning(r->d, r->path, line, col, "unknown key '%s%s' %s", t->prefix, name,
                     t->unknown_hint);
        return;
    }
    buf known = BUF_INIT;
    for (size_t i = 0; i < t->n; i++)
        buf_printf(&known, "%s%s", i ? ", " : "", t->keys[i].name);
    diag_warning(r->d, r->path, line, col, "unknown key '%s%s' (known: %s)", t->prefix, name,
                 known.data);
    buf_release(&known);
}

static const char *as_text(arena *a, tpl_value v)
{
    if (v.kind == TPL_STRING) /* its own text, NUL-terminated, in the reader's arena */
        return v.u.s;
    buf b = BUF_INIT;
    tpl_value_to_str(v, &b);
    const char *s = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return s;
}

/* Up to this many names are made unique by comparing each with those
 * kept before it; more, through a set. */
#define UNIQUE_BY_SEARCH 16

/* KEY_NAMES: one name or a list; on the first item that is not a name,
 * an error, keeping the names before it. */
static void read_names(key_reader *r, const key_table *t, const key_def *k, const tpl_map *m,
                       tpl_value v)
{
    const tpl_value *items = &v;
    size_t n = 1;
    if (v.kind == TPL_LIST) {
        items = v.u.list->items;
        n = v.u.list->len;
    }
    const char **out = arena_alloc(r->a, (n + 1) * sizeof *out);
    size_t got = 0;
    for (size_t j = 0; j < n; j++) {
        tpl_value it = items[j];
        if (it.kind != TPL_STRING && it.kind != TPL_INT && it.kind != TPL_FLOAT) {
            site_keys_type_error(r, t, k->name, m, k->want);
            break;
        }
        out[got++] = as_text(r->a, it);
    }
    if ((k->flags & KEY_UNIQUE) && got <= UNIQUE_BY_SEARCH) {
        /* the first of each name, in order: a page's few tags are
         * compared with each other (a set is an allocation per page) */
        size_t u = 0;
        for (size_t j = 0; j < got; j++) {
            bool dup = !out[j][0];
            for (size_t i = 0; i < u && !dup; i++)
                dup = !strcmp(out[i], out[j]);
            if (!dup)
                out[u++] = out[j];
        }
        got = u;
    } else if (k->flags & KEY_UNIQUE) { /* a set, not a search per name
                                           * (100,000 tags took a minute) */
        strmap *seen = strmap_new(got);
        size_t u = 0;
        for (size_t j = 0; j < got; j++)
            if (out[j][0] && strmap_put(seen, out[j], (long)j) == (long)j)
                out[u++] = out[j];
        strmap_free(seen);
        got = u;
    }
    *FIELD(r->out, k->at, const char **) = out;
    *FIELD(r->out, k->set, size_t) = got;
}

/* Does v (or an item of list v) hold a NUL byte? Read as C text it would
 * be cut there ("a\0../x" read as "a"): an error, not a silent cut. */
static bool holds_nul(tpl_value v)
{
    if (v.kind == TPL_LIST) {
        for (size_t i = 0; i < v.u.list->len; i++)
            if (holds_nul(v.u.list->items[i]))
                return true;
        return false;
    }
    return v.kind == TPL_STRING && memchr(v.u.s, 0, v.len);
}

/* Stores v, the value of key k in mapping m, into its field by the key's
 * type; text holding a NUL byte, or a value of the wrong kind, is reported
 * at the key's place (the latter with what the key wants, k->want). */
static void read_value(key_reader *r, const key_table *t, const key_def *k, const tpl_map *m,
                       tpl_value v)
{
    if ((k->type == KEY_STRING || k->type == KEY_TEXT || k->type == KEY_NAMES) && holds_nul(v)) {
        int line, col;
        site_keys_place(r, m, k->name, &line, &col);
        diag_error(r->d, r->path, line, col, "'%s%s' holds a NUL byte (\\0), which would cut it short",
                   t->prefix, k->name);
        r->ok = false;
        return;
    }
    switch (k->type) {
    case KEY_STRING:
        if (v.kind != TPL_STRING)
            break;
        *FIELD(r->out, k->at, const char *) = v.u.s;
        return;
    case KEY_TEXT:
        if (v.kind == TPL_STRING)
            *FIELD(r->out, k->at, const char *) = v.u.s;
        else if (v.kind == TPL_INT || v.kind == TPL_FLOAT || v.kind == TPL_BOOL || v.kind == TPL_DATE)
            *FIELD(r->out, k->at, const char *) = as_text(r->a, v);
        else
            break;
        return;
    case KEY_BOOL:
        if (v.kind != TPL_BOOL)
            break;
        *FIELD(r->out, k->at, bool) = (k->flags & KEY_NEGATE) ? !v.u.b : v.u.b;
        if (k->set)
            *FIELD(r->out, k->set, bool) = true;
        return;
    case KEY_COUNT:
        if (v.kind != TPL_INT || v.u.i < 1)
            break;
        *FIELD(r->out, k->at, long) = (long)v.u.i;
        return;
    case KEY_WORD:
        if (v.kind != TPL_STRING || (strcmp(v.u.s, k->words[0]) && strcmp(v.u.s, k->words[1])))
            break;
        *FIELD(r->out, k->at, bool) = !strcmp(v.u.s, k->words[1]);
        return;
    case KEY_MAP:
        if (v.kind != TPL_MAP)
            break;
        *FIELD(r->out, k->at, tpl_value) = v;
        return;
    case KEY_DATE: {
        sheaf_date dt;
        if (!tpl_value_as_date(v, &dt))
            break;
        *FIELD(r->out, k->at, sheaf_date) = dt;
        *FIELD(r->out, k->set, bool) = true;
        return;
    }
    case KEY_NAMES:
        read_names(r, t, k, m, v);
        return;
    case KEY_TABLE: {
        if (v.kind != TPL_MAP)
            break;
        const fm_key_pos *outer = r->parent;
        r->parent = fm_key_find(r->pos, r->npos, m, k->name);
        site_keys_read(k->sub, v.u.map, r);
        r->parent = outer;
        return;
    }
    case KEY_READER:
        k->read(r, t, k, m, v);
        return;
    case KEY_NO_EQUIVALENT: {
        int line, col;
        key_place(r, m, k->name, &line, &col);
        diag_warning(r->d, r->path, line, col, "'%s%s' has no equivalent in sheaf and is ignored: %s",
                     t->prefix, k->name, k->want);
        return;
    }
    }
    site_keys_type_error(r, t, k->name, m, k->want);
}

/* Is row k a synonym of row o (another name for the same field)? */
static bool same_field(const key_def *k, const key_def *o)
{
    if (k == o || k->type != o->type || k->at != o->at)
        return false;
    return k->type != KEY_NO_EQUIVALENT && k->type != KEY_TABLE && k->type != KEY_READER;
}

void site_keys_read(const key_table *t, const tpl_map *m, key_reader *r)
{
    /* the rows read so far, to catch two synonyms in one mapping
     * (`lastmod:` and `updated:`): which one should win is anyone's guess */
    enum { SEEN_MAX = 64 };
    const key_def *seen[SEEN_MAX];
    const char *seen_name[SEEN_MAX];
    size_t nseen = 0;
    for (size_t i = 0; i < m->len; i++) {
        tpl_value key = m->entries[i].key, v = m->entries[i].value;
        /* a key that is not a string names nothing: ignored in the file's
         * own keys, shown as '?' in a nested table that warns */
        const char *name = key.kind == TPL_STRING ? key.u.s : r->parent ? "?" : NULL;
        if (!name)
            continue;
        const key_def *k = find_row(t, name);
        if (!k) {
            if (t->warn_unknown)
                unknown_key(r, t, m, name);
            continue;
        }
        if (t->null_is_unset && v.kind == TPL_NONE && k->type != KEY_NO_EQUIVALENT)
            continue;
        const char *twin = NULL;
        for (size_t j = 0; j < nseen && !twin; j++)
            if (same_field(k, seen[j]))
                twin = seen_name[j];
        if (twin) {
            int line, col, tl, tc;
            key_place(r, m, name, &line, &col);
            key_place(r, m, twin, &tl, &tc);
            diag_error(r->d, r->path, line, col,
                       "'%s%s' and '%s%s' (line %d) are two names for one setting: keep one",
                       t->prefix, name, t->prefix, twin, tl);
            r->ok = false;
            continue;
        }
        if (nseen < SEEN_MAX) {
            seen[nseen] = k;
            seen_name[nseen++] = name;
        }
        /* the row under the name as written, for messages and places */
        key_def as_written = *k;
        as_written.name = name;
        read_value(r, t, &as_written, m, v);
    }
}

static void copy_field(void *dst, const void *src, size_t off, size_t size)
{
    memcpy((char *)dst + off, (const char *)src + off, size);
}

void site_keys_copy(const key_table *t, void *dst, const void *src, unsigned only)
{
    for (size_t i = 0; i < t->n; i++) {
        const key_def *k = &t->keys[i];
        if (only && !(k->flags & only))
            continue;
        switch (k->type) {
        case KEY_STRING:
        case KEY_TEXT: copy_field(dst, src, k->at, sizeof(const char *)); break;
        case KEY_BOOL:
        case KEY_WORD:
            copy_field(dst, src, k->at, sizeof(bool));
            if (k->set)
                copy_field(dst, src, k->set, sizeof(bool));
            break;
        case KEY_COUNT: copy_field(dst, src, k->at, sizeof(long)); break;
        case KEY_MAP: copy_field(dst, src, k->at, sizeof(tpl_value)); break;
        case KEY_DATE:
            copy_field(dst, src, k->at, sizeof(sheaf_date));
            copy_field(dst, src, k->set, sizeof(bool));
            break;
        case KEY_NAMES:
            copy_field(dst, src, k->at, sizeof(const char **));
            copy_field(dst, src, k->set, sizeof(size_t));
            break;
        case KEY_TABLE: site_keys_copy(k->sub, dst, src, only); break;
        case KEY_READER:
        case KEY_NO_EQUIVALENT: break;
        }
    }
}

static bool same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static bool same_row(const key_def *k, const void *a, const void *b)
{
    switch (k->type) {
    case KEY_STRING:
    case KEY_TEXT: return same_str(*CFIELD(a, k->at, const char *), *CFIELD(b, k->at, const char *));
    case KEY_BOOL:
    case KEY_WORD:
        return *CFIELD(a, k->at, bool) == *CFIELD(b, k->at, bool)
               && (!k->set || *CFIELD(a, k->set, bool) == *CFIELD(b, k->set, bool));
    case KEY_COUNT: return *CFIELD(a, k->at, long) == *CFIELD(b, k->at, long);
    case KEY_MAP: return tpl_value_equal(*CFIELD(a, k->at, tpl_value), *CFIELD(b, k->at, tpl_value));
    case KEY_DATE: {
        bool ha = *CFIELD(a, k->set, bool), hb = *CFIELD(b, k->set, bool);
        const sheaf_date *x = CFIELD(a, k->at, sheaf_date), *y = CFIELD(b, k->at, sheaf_date);
        return ha == hb && (!ha || (x->t == y->t && x->offset_min == y->offset_min &&
                                    x->has_time == y->has_time && x->has_zone == y->has_zone));
    }
    case KEY_NAMES: {
        size_t n = *CFIELD(a, k->set, size_t);
        if (n != *CFIELD(b, k->set, size_t))
            return false;
        const char *const *x = *CFIELD(a, k->at, const char **), *const *y = *CFIELD(b, k->at, const char **);
        for (size_t i = 0; i < n; i++)
            if (strcmp(x[i], y[i]) != 0)
                return false;
        return true;
    }
    case KEY_TABLE:
    case KEY_READER: return false;
    case KEY_NO_EQUIVALENT: return true;
    }
    return false;
}

bool site_keys_same(const key_table *t, const void *a, const void *b, unsigned skip)
{
    for (size_t i = 0; i < t->n; i++)
        if (!(t->keys[i].flags & skip) && !same_row(&t->keys[i], a, b))
            return false;
    return true;
}
