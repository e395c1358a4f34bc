/* bib/bib.c: a bibliography — loading files (their text checked, then
 * read by read.c), the key index, crossref, lookups (see bib.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bib/bib.h"
#include "bib/read.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/xalloc.h"


const bib_entry *bib_find(const bib *b, const char *key)
{
    if (!b->by_key)
        return NULL;
    long i = strmap_get(b->by_key, key);
    return i < 0 ? NULL : &b->entries[i];
}

const char *bib_suggest(const bib *b, const char *key)
{
    text_near near = TEXT_NEAR(key);
    for (size_t i = 0; i < b->n; i++)
        text_near_try(&near, b->entries[i].key);
    return text_near_best(&near);
}

const char *bib_field_get(const bib_entry *e, const char *name)
{
    for (size_t i = 0; i < e->nfields; i++)
        if (!strcmp(e->fields[i].name, name))
            return e->fields[i].text;
    return NULL;
}

void bib_free(bib *b)
{
    free(b->entries);
    strmap_free(b->by_key);
    memset(b, 0, sizeof *b);
}

bool bib_add_entry(bib *b, const bib_entry *e, diag_list *d)
{
    if (!b->by_key)
        b->by_key = strmap_new(64);
    long at = strmap_get(b->by_key, e->key);
    if (at >= 0) {
        const bib_entry *o = &b->entries[at];
        diag_add(d, DIAG_ERROR, e->src, e->line, 1,
                 "duplicate key '%s': already defined at %s:%d (keys must be unique across "
                 "every bibliography of the site)",
                 e->key, o->src, o->line);
        return false;
    }
    if (b->n == b->cap)
        b->entries = xrealloc(b->entries, (b->cap = b->cap ? 2 * b->cap : 64) * sizeof *b->entries);
    b->entries[b->n] = *e;
    strmap_put(b->by_key, b->entries[b->n].key, (long)b->n);
    b->n++;
    return true;
}

/* The line and column (from 1) of byte `off` of text. */
static void place_of(const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++, (*col)++)
        if (text[i] == '\n') {
            (*line)++;
            *col = 0;
        }
}

bool bib_load(bib *b, const char *file, const char *path, const char *where_path, int where_line,
              int where_col, arena *a, diag_list *d)
{
    buf text = BUF_INIT;
    if (!fs_read_file(file, &text)) {
        diag_add(d, DIAG_ERROR, where_path, where_line, where_col,
                 "cannot read bibliography '%s': %s", path, fs_strerror(errno));
        buf_release(&text);
        return false;
    }
    bool ok = bib_load_text(b, text.data ? text.data : "", text.len, path, a, d);
    buf_release(&text);
    return ok;
}

bool bib_load_text(bib *b, const char *data, size_t len, const char *path, arena *a, diag_list *d)
{
    const char *text = len ? data : "";
    size_t bad = text_utf8_check(text, len);
    const char *nul = len ? memchr(text, 0, len) : NULL;
    if (nul && (bad == (size_t)-1 || (size_t)(nul - text) < bad)) {
        int line, col;
        place_of(text, (size_t)(nul - text), &line, &col);
        diag_add(d, DIAG_ERROR, path, line, col, "a NUL byte: a .bib file is text");
        return false;
    }
    if (bad != (size_t)-1) {
        int line, col;
        place_of(text, bad, &line, &col);
        diag_add(d, DIAG_ERROR, path, line, col,
                 "not UTF-8 text: save the .bib as UTF-8 (or write the letter as TeX, e.g. {\\\"u})");
        return false;
    }
    return bib_read(b, text, len, path, a, d);
}

bool bib_resolve_crossrefs(bib *b, arena *a, diag_list *d)
{
    bool ok = true;
    /* crossref: a child takes what it lacks from its parent. */
    for (size_t i = 0; i < b->n; i++) {
        bib_entry *e = &b->entries[i];
        const char *parent_key = bib_field_get(e, "crossref");
        if (!parent_key)
            continue;
        const bib_entry *p = bib_find(b, parent_key);
        if (!p) {
            diag_add(d, DIAG_ERROR, e->src, e->line, 1, "'%s' has crossref '%s', which is not in the bibliography",
                     e->key, parent_key);
            ok = false;
            continue;
        }
        size_t extra = p->nfields + 1;
        bib_field *f = arena_calloc(a, (e->nfields + extra) * sizeof *f);
        memcpy(f, e->fields, e->nfields * sizeof *f);
        size_t n = e->nfields;
        for (size_t k = 0; k < p->nfields; k++) {
            const char *name = p->fields[k].name;
            if (!strcmp(name, "title"))
                name = "booktitle";
            bool have = false;
            for (size_t j = 0; j < n; j++)
                have |= !strcmp(f[j].name, name);
            if (!have) {
                f[n].name = name;
                f[n].text = p->fields[k].text;
                f[n].raw = p->fields[k].raw;
                n++;
            }
        }
        e->fields = f;
        e->nfields = n;
        if (!e->nauthors && p->nauthors) {
            e->authors = p->authors;
            e->nauthors = p->nauthors;
        }
        if (!e->neditors && p->neditors) {
            e->editors = p->editors;
            e->neditors = p->neditors;
        }
    }
    return ok;
}
