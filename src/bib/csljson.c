/* bib/csljson.c: CSL-JSON items → bib entries (see csljson.h). One table
 * says which CSL type is which BibTeX type, one which variable is which
 * field; names and dates have a function each; every item is checked
 * before any of it is kept, so a broken item is left out whole. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bib/csl.h"
#include "bib/csljson.h"
#include "bib/read.h"
#include "util/buf.h"
#include "util/vec.h"
#include "util/xalloc.h"

/* ---- tables ---- */

static const struct {
    const char *csl, *bib;
} types[] = {
    { "article-journal", "article" },     { "article-magazine", "article" },
    { "article-newspaper", "article" },   { "paper-conference", "inproceedings" },
    { "chapter", "incollection" },        { "book", "book" },
    { "thesis", "phdthesis" },            { "report", "techreport" },
    { "webpage", "online" },              { "post", "online" },
    { "post-weblog", "online" },          { "manuscript", "unpublished" },
    { "patent", "patent" },               { "dataset", "dataset" },
    { "software", "software" },
};

/* Text variables that become a field of the same meaning. container-title,
 * publisher and issue depend on the type: see item_fields. */
static const struct {
    const char *csl, *bib;
} plain[] = {
    { "title", "title" },           { "collection-title", "series" },
    { "volume", "volume" },         { "edition", "edition" },
    { "chapter-number", "chapter" }, { "publisher-place", "address" },
    { "number", "number" },         { "page", "pages" },
    { "DOI", "doi" },               { "URL", "url" },
    { "ISBN", "isbn" },             { "ISSN", "issn" },
    { "note", "note" },             { "abstract", "abstract" },
    { "genre", "type" },            { "language", "langid" },
};

/* The CSL 1.0.2 name and date variables: each is checked for its shape,
 * since citeproc-js reads them all (the text ones it reads as strings). */
static const char *const name_vars[] = {
    "author", "chair", "collection-editor", "compiler", "composer", "container-author",
    "contributor", "curator", "director", "editor", "editorial-director", "executive-producer",
    "guest", "host", "illustrator", "interviewer", "narrator", "organizer", "original-author",
    "performer", "producer", "recipient", "reviewed-author", "script-writer", "series-creator",
    "translator", NULL,
};
static const char *const date_vars[] = {
    "accessed", "available-date", "event-date", "issued", "original-date", "submitted", NULL,
};

static const char *const month_names[12] = { "January", "February", "March",     "April",
                                              "May",     "June",     "July",      "August",
                                              "September", "October", "November", "December" };

/* ---- reading one item ---- */

typedef struct item {
    const bib_json_places *at;
    const char *path;
    const tpl_map *m;      /* the item */
    int line, col;         /* where it starts */
    arena *a;
    diag_list *d;
    bool bad;
    bib_field *fields;     /* xmalloc'd while reading */
    size_t nfields, capfields;
} item;

static const char *kind_name(tpl_value v)
{
    switch (v.kind) {
    case TPL_NONE: return "null";
    case TPL_BOOL: return v.u.b ? "true" : "false";
    case TPL_INT:
    case TPL_FLOAT: return "a number";
    case TPL_STRING: return "a string";
    case TPL_LIST: return "a list";
    case TPL_MAP: return "an object";
    default: return "a value";
    }
}

/* Where the value of key in m was written; else the item's place. */
static void place(item *it, const tpl_map *m, const char *key, int *line, int *col)
{
    if (!it->at || !it->at->key_at || !it->at->key_at(it->at->ctx, m, key, line, col)) {
        *line = it->line;
        *col = it->col;
    }
}

static void bad(item *it, const tpl_map *m, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void bad(item *it, const tpl_map *m, const char *key, const char *fmt, ...)
{
    int line, col;
    place(it, m, key, &line, &col);
    buf msg = BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    diag_error(it->d, it->path, line, col, "%s", msg.data);
    buf_release(&msg);
    it->bad = true;
}

/* A text variable's value as text (a number written as JSON has it), or
 * NULL when it is not a string or a number. */
static const char *text_of(item *it, tpl_value v)
{
    if (v.kind == TPL_STRING)
        return arena_strndup(it->a, v.u.s, v.len);
    if (v.kind == TPL_INT)
        return arena_printf(it->a, "%" PRId64, v.u.i);
    if (v.kind == TPL_FLOAT)
        return arena_printf(it->a, "%.17g", v.u.f);
    return NULL;
}

/* text as BibTeX would hold it (bib_field.raw: what /papers/' BibTeX
 * shows): TeX's special characters escaped. */
static void tex_escape(buf *out, const char *text)
{
    for (const char *p = text; *p; p++) {
        if (strchr("{}%&#$_", *p))
            buf_printf(out, "\\%c", *p);
        else if (*p == '\\')
            buf_puts(out, "\\textbackslash{}");
        else if (*p == '~')
            buf_puts(out, "\\textasciitilde{}");
        else if (*p == '^')
            buf_puts(out, "\\textasciicircum{}");
        else
            buf_putc(out, *p);
    }
}

static const char *tex_of(arena *a, const char *text)
{
    buf b = BUF_INIT;
    tex_escape(&b, text);
    const char *r = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return r;
}

static void add_field_raw(item *it, const char *name, const char *text, const char *raw)
{
    if (!text || !*text)
        return;
    for (size_t i = 0; i < it->nfields; i++)
        if (!strcmp(it->fields[i].name, name))
            return; /* the first variable for a field wins */
    bib_field *f = VEC_ADD(it->fields, it->nfields, it->capfields, 16);
    f->name = name;
    f->text = text;
    f->raw = raw;
}

static void add_field(item *it, const char *name, const char *text)
{
    if (text && *text)
        add_field_raw(it, name, text, tex_of(it->a, text));
}

/* A name list as a .bib writes it ("Family, Given and {Literal}"): the
 * author and editor fields, beside the split names. */
static void add_names_field(item *it, const char *name, const bib_name *v, size_t n)
{
    if (!n)
        return;
    buf text = BUF_INIT, raw = BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (i) {
            buf_puts(&text, " and ");
            buf_puts(&raw, " and ");
        }
        if (!*v[i].given && !*v[i].von && !*v[i].jr) { /* one family name: braced as one */
            buf_puts(&text, v[i].family);
            buf_putc(&raw, '{');
            tex_escape(&raw, v[i].family);
            buf_putc(&raw, '}');
            continue;
        }
        const char *parts[] = { v[i].von, v[i].family, v[i].jr, v[i].given };
        bool any = false;
        for (int k = 0; k < 4; k++) {
            if (!*parts[k])
                continue;
            const char *sep = !any ? "" : k == 1 ? " " : ", ";
            any = true;
            buf_puts(&text, sep);
            buf_puts(&raw, sep);
            buf_puts(&text, parts[k]);
            if (k == 1)
                buf_putc(&raw, '{'); /* "van Beethoven" stays one family */
            tex_escape(&raw, parts[k]);
            if (k == 1)
                buf_putc(&raw, '}');
        }
    }
    add_field_raw(it, name, arena_strndup(it->a, text.data, text.len), arena_strndup(it->a, raw.data, raw.len));
    buf_release(&text);
    buf_release(&raw);
}

/* A string variable: its text, or NULL (absent: quietly; wrong kind: an
 * error at it). */
static const char *text_var(item *it, const char *name)
{
    tpl_value v = tpl_map_get_cstr(it->m, name);
    if (v.kind == TPL_UNDEFINED || v.kind == TPL_NONE)
        return NULL;
    const char *t = text_of(it, v);
    if (!t)
        bad(it, it->m, name, "\"%s\" must be a string (or a number), found %s", name, kind_name(v));
    return t;
}

static const char *name_part(item *it, const tpl_map *n, const char *part)
{
    tpl_value v = tpl_map_get_cstr(n, part);
    if (v.kind == TPL_UNDEFINED || v.kind == TPL_NONE)
        return "";
    if (v.kind != TPL_STRING) {
        bad(it, n, part, "a name's \"%s\" must be a string, found %s", part, kind_name(v));
        return "";
    }
    return arena_strndup(it->a, v.u.s, v.len);
}

/* A name variable: a list of name objects → bib_names (NULL and *n = 0
 * when absent or wrong, the latter an error). */
static bib_name *names_var(item *it, const char *var, size_t *n)
{
    *n = 0;
    tpl_value v = tpl_map_get_cstr(it->m, var);
    if (v.kind == TPL_UNDEFINED || v.kind == TPL_NONE)
        return NULL;
    if (v.kind != TPL_LIST) {
        bad(it, it->m, var, "\"%s\" must be a list of names ([{\"family\": …, \"given\": …}]), found %s",
            var, kind_name(v));
        return NULL;
    }
    const tpl_list *l = v.u.list;
    bib_name *out = l->len ? arena_calloc(it->a, l->len * sizeof *out) : NULL;
    for (size_t i = 0; i < l->len; i++) {
        tpl_value nv = l->items[i];
        if (nv.kind != TPL_MAP) {
            int line, col;
            if (!it->at || !it->at->item_at || !it->at->item_at(it->at->ctx, l, i, &line, &col))
                place(it, it->m, var, &line, &col);
            diag_error(it->d, it->path, line, col,
                       "name %zu of \"%s\" must be an object ({\"family\": …, \"given\": …} or "
                       "{\"literal\": …}), found %s",
                       i + 1, var, kind_name(nv));
            it->bad = true;
            continue;
        }
        const tpl_map *nm = nv.u.map;
        bool was_bad = it->bad;
        it->bad = false;
        bib_name *b = &out[(*n)++];
        const char *literal = name_part(it, nm, "literal");
        const char *nd = name_part(it, nm, "non-dropping-particle");
        const char *dp = name_part(it, nm, "dropping-particle");
        b->family = *literal ? literal : name_part(it, nm, "family");
        b->given = *literal ? "" : name_part(it, nm, "given");
        b->von = *literal ? "" : *nd ? nd : dp;
        b->jr = *literal ? "" : name_part(it, nm, "suffix");
        bool part_bad = it->bad;
        it->bad |= was_bad;
        if (part_bad) {
            (*n)--;
            continue;
        }
        if (!*b->family && !*b->given) {
            int line, col;
            if (!it->at || !it->at->item_at || !it->at->item_at(it->at->ctx, l, i, &line, &col))
                place(it, it->m, var, &line, &col);
            diag_error(it->d, it->path, line, col,
                       "name %zu of \"%s\" has no \"family\", \"given\" or \"literal\"", i + 1, var);
            it->bad = true;
            (*n)--;
            continue;
        }
        buf full = BUF_INIT;
        buf_puts(&full, b->given);
        if (*b->von)
            buf_printf(&full, "%s%s", full.len ? " " : "", b->von);
        if (*b->family)
            buf_printf(&full, "%s%s", full.len ? " " : "", b->family);
        if (*b->jr)
            buf_printf(&full, ", %s", b->jr);
        b->full = arena_strndup(it->a, full.data, full.len);
        buf_release(&full);
    }
    return out;
}

/* A date part: an integer, or a string of digits (citeproc-js takes both). */
static bool date_part(tpl_value v, long *out)
{
    if (v.kind == TPL_INT) {
        *out = (long)v.u.i;
        return true;
    }
    if (v.kind == TPL_STRING && v.len && v.len < 8 && strspn(v.u.s, "-0123456789") == v.len) {
        *out = strtol(v.u.s, NULL, 10);
        return true;
    }
    return false;
}

/* A date variable, checked; p[0..2] its first date's year, month, day (0:
 * absent) and *text its "raw"/"literal" when it has no date-parts. */
static bool date_var(item *it, const char *var, long p[3], const char **text)
{
    p[0] = p[1] = p[2] = 0;
    *text = NULL;
    tpl_value v = tpl_map_get_cstr(it->m, var);
    if (v.kind == TPL_UNDEFINED || v.kind == TPL_NONE)
        return false;
    if (v.kind != TPL_MAP) {
        bad(it, it->m, var, "\"%s\" must be a date object ({\"date-parts\": [[2020, 5, 1]]}), found %s",
            var, kind_name(v));
        return false;
    }
    const tpl_map *dm = v.u.map;
    tpl_value parts = tpl_map_get_cstr(dm, "date-parts");
    if (parts.kind != TPL_UNDEFINED) {
        bool ok = parts.kind == TPL_LIST && parts.u.list->len >= 1 && parts.u.list->len <= 2;
        for (size_t i = 0; ok && i < parts.u.list->len; i++) {
            tpl_value one = parts.u.list->items[i];
            ok = one.kind == TPL_LIST && one.u.list->len <= 3;
            for (size_t k = 0; ok && k < one.u.list->len; k++) {
                long x;
                ok = date_part(one.u.list->items[k], &x);
                if (ok && i == 0)
                    p[k] = x;
            }
        }
        if (!ok) {
            bad(it, dm, "date-parts",
                "\"date-parts\" of \"%s\" must be one or two lists of up to three numbers "
                "(year, month, day): [[2020, 5, 1]]",
                var);
            p[0] = p[1] = p[2] = 0;
            return false;
        }
        return true;
    }
    const char *keys[] = { "raw", "literal" };
    for (int k = 0; k < 2; k++) {
        tpl_value t = tpl_map_get_cstr(dm, keys[k]);
        if (t.kind == TPL_UNDEFINED)
            continue;
        if (t.kind != TPL_STRING) {
            bad(it, dm, keys[k], "\"%s\" of \"%s\" must be a string, found %s", keys[k], var, kind_name(t));
            return false;
        }
        *text = arena_strndup(it->a, t.u.s, t.len);
        if (k == 0) { /* raw: "2020", "2020-05", "2020-05-01" read as parts */
            const char *s = *text;
            if (strspn(s, "0123456789") == 4) {
                p[0] = strtol(s, NULL, 10);
                if (s[4] == '-' && strspn(s + 5, "0123456789") == 2) {
                    p[1] = strtol(s + 5, NULL, 10);
                    if (s[7] == '-' && strspn(s + 8, "0123456789") == 2)
                        p[2] = strtol(s + 8, NULL, 10);
                }
            }
        }
        return true;
    }
    bad(it, it->m, var, "\"%s\" has no \"date-parts\", \"raw\" or \"literal\"", var);
    return false;
}

/* Every field of the item, in it->fields; names into e. */
static void item_fields(item *it, bib_entry *e, const char *csl_type)
{
    bool article = !strcmp(e->type, "article");
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        add_field(it, plain[i].bib, text_var(it, plain[i].csl));
    add_field(it, article ? "journal" : "booktitle", text_var(it, "container-title"));
    add_field(it, "number", text_var(it, "issue"));
    const char *pub = text_var(it, "publisher");
    add_field(it, !strcmp(csl_type, "thesis") ? "school" : !strcmp(csl_type, "report") ? "institution" : "publisher",
              pub);
    long p[3];
    const char *t;
    if (date_var(it, "issued", p, &t)) {
        if (p[0]) {
            add_field(it, "year", arena_printf(it->a, "%ld", p[0]));
            if (p[1] >= 1 && p[1] <= 12)
                add_field(it, "month", month_names[p[1] - 1]);
        } else {
            add_field(it, "year", t);
        }
    }
    if (date_var(it, "accessed", p, &t)) {
        if (p[0] && p[1] && p[2])
            add_field(it, "urldate", arena_printf(it->a, "%04ld-%02ld-%02ld", p[0], p[1], p[2]));
        else if (p[0])
            add_field(it, "urldate", arena_printf(it->a, "%ld", p[0]));
    }
    for (size_t i = 0; date_vars[i]; i++) /* the others: checked only */
        if (strcmp(date_vars[i], "issued") && strcmp(date_vars[i], "accessed"))
            (void)date_var(it, date_vars[i], p, &t);
    for (size_t i = 0; name_vars[i]; i++) {
        size_t n;
        bib_name *v = names_var(it, name_vars[i], &n);
        if (!strcmp(name_vars[i], "author")) {
            e->authors = v;
            e->nauthors = n;
            add_names_field(it, "author", v, n);
        } else if (!strcmp(name_vars[i], "editor")) {
            e->editors = v;
            e->neditors = n;
            add_names_field(it, "editor", v, n);
        }
    }
}

/* ---- writing an item back as CSL-JSON ---- */

static void write_json(buf *out, tpl_value v)
{
    switch (v.kind) {
    case TPL_BOOL: buf_puts(out, v.u.b ? "true" : "false"); break;
    case TPL_INT: buf_printf(out, "%" PRId64, v.u.i); break;
    case TPL_FLOAT: buf_printf(out, "%.17g", v.u.f); break;
    case TPL_STRING: bib_json_string(out, v.u.s, v.len); break;
    case TPL_LIST:
        buf_putc(out, '[');
        for (size_t i = 0; i < v.u.list->len; i++) {
            if (i)
                buf_putc(out, ',');
            write_json(out, v.u.list->items[i]);
        }
        buf_putc(out, ']');
        break;
    case TPL_MAP:
        buf_putc(out, '{');
        for (size_t i = 0; i < v.u.map->len; i++) {
            if (i)
                buf_putc(out, ',');
            write_json(out, v.u.map->entries[i].key);
            buf_putc(out, ':');
            write_json(out, v.u.map->entries[i].value);
        }
        buf_putc(out, '}');
        break;
    default: buf_puts(out, "null"); break;
    }
}

/* The item as one JSON object, its id replaced by the key as a string. */
static const char *item_json(arena *a, const tpl_map *m, const char *key)
{
    buf out = BUF_INIT;
    buf_puts(&out, "{\"id\":");
    bib_json_string(&out, key, strlen(key));
    for (size_t i = 0; i < m->len; i++) {
        tpl_value k = m->entries[i].key;
        if (k.kind == TPL_STRING && !strcmp(k.u.s, "id"))
            continue;
        buf_putc(&out, ',');
        write_json(&out, k);
        buf_putc(&out, ':');
        write_json(&out, m->entries[i].value);
    }
    buf_putc(&out, '}');
    const char *s = arena_strndup(a, out.data, out.len);
    buf_release(&out);
    return s;
}

/* ---- the file ---- */

/* "Master's thesis", "MA thesis"? Only the word: "master" in any case. */
static bool mentions_master(const char *s)
{
    for (; *s; s++)
        if (!strncasecmp(s, "master", 6))
            return true;
    return false;
}

bool bib_load_csljson(bib *b, tpl_value root, const char *path, const bib_json_places *at,
                      arena *a, diag_list *d)
{
    if (root.kind != TPL_LIST) {
        diag_error(d, path, 1, 1,
                   "a CSL-JSON bibliography is a list of items ([{\"id\": \"key\", \"type\": …}, …]), "
                   "found %s",
                   kind_name(root));
        return false;
    }
    bool ok = true;
    const tpl_list *l = root.u.list;
    for (size_t i = 0; i < l->len; i++) {
        item it = { .at = at, .path = path, .a = a, .d = d, .line = 1, .col = 1 };
        if (!at || !at->item_at || !at->item_at(at->ctx, l, i, &it.line, &it.col))
            it.line = it.col = 1;
        tpl_value v = l->items[i];
        if (v.kind != TPL_MAP) {
            diag_error(d, path, it.line, it.col, "item %zu must be an object ({\"id\": …, \"type\": …}), found %s",
                       i + 1, kind_name(v));
            ok = false;
            continue;
        }
        it.m = v.u.map;
        tpl_value idv = tpl_map_get_cstr(it.m, "id");
        const char *key = NULL;
        if (idv.kind == TPL_UNDEFINED) {
            diag_error(d, path, it.line, it.col, "item %zu has no \"id\": each item needs one, its citation key", i + 1);
            it.bad = true;
        } else if (idv.kind != TPL_STRING && idv.kind != TPL_INT) {
            bad(&it, it.m, "id", "\"id\" must be a string (or a whole number), found %s", kind_name(idv));
        } else if (!*(key = text_of(&it, idv))) {
            bad(&it, it.m, "id", "\"id\" is empty: each item needs one, its citation key");
        }
        tpl_value tv = tpl_map_get_cstr(it.m, "type");
        const char *csl_type = NULL;
        if (tv.kind == TPL_UNDEFINED) {
            diag_error(d, path, it.line, it.col, "item %zu has no \"type\" (\"article-journal\", \"book\", …)",
                       i + 1);
            it.bad = true;
        } else if (tv.kind != TPL_STRING || !tv.len) {
            bad(&it, it.m, "type", "\"type\" must be a CSL type (\"article-journal\", \"book\", …), found %s",
                tv.kind == TPL_STRING ? "an empty string" : kind_name(tv));
        } else {
            csl_type = tv.u.s;
        }
        bib_entry e = { 0 };
        e.key = key;
        e.src = path;
        e.line = it.line;
        e.type = "misc";
        for (size_t k = 0; csl_type && k < sizeof types / sizeof *types; k++)
            if (!strcmp(types[k].csl, csl_type))
                e.type = types[k].bib;
        if (!strcmp(e.type, "phdthesis")) {
            tpl_value g = tpl_map_get_cstr(it.m, "genre");
            if (g.kind == TPL_STRING && mentions_master(g.u.s))
                e.type = "mastersthesis";
        }
        item_fields(&it, &e, csl_type ? csl_type : "");
        if (key && !it.bad) {
            const bib_entry *o = bib_find(b, key);
            if (o) {
                bad(&it, it.m, "id",
                    "duplicate id '%s': already defined at %s:%d (keys must be unique across every "
                    "bibliography of the site)",
                    key, o->src, o->line);
            }
        }
        if (it.bad) {
            free(it.fields);
            ok = false;
            continue;
        }
        e.fields = it.nfields ? arena_alloc(a, it.nfields * sizeof *e.fields) : NULL;
        if (it.nfields)
            memcpy(e.fields, it.fields, it.nfields * sizeof *e.fields);
        e.nfields = it.nfields;
        free(it.fields);
        e.csl = item_json(a, it.m, key);
        ok &= bib_add_entry(b, &e, d);
    }
    return ok;
}
