/* import/model.c: what the import collects, for the run (import.c) to
 * write: pages with the front matter to write and their aliases, files to
 * copy, the notes of the report (each once); and the old generator's
 * permalink patterns and pagination folder, expanded. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "import/internal.h"
#include "site/site.h"
#include "util/hash.h"
#include "util/text.h"
#include "util/vec.h"
#include "util/xalloc.h"


import_page *import_add_page(imp *m)
{
    import_page *p = arena_calloc(m->a, sizeof *p);
    p->body = (buf)BUF_INIT;
    VEC_PUSH_IN(m->a, m->pages, m->npages, m->cappages, 64, p);
    return p;
}

void import_add_file(imp *m, const char *src_rel, const char *dest_rel, const char *old_url)
{
    import_file *f = VEC_ADD_IN(m->a, m->files, m->nfiles, m->capfiles, 64);
    /* the arena's memory is not zeroed: every field is set */
    *f = (import_file){ .src_rel = src_rel, .dest_rel = dest_rel, .old_url = old_url };
}

static uint64_t note_hash(const char *src_rel, int line, int col, const char *what)
{
    uint64_t h = hash_str(src_rel ? src_rel : "");
    h = hash_add(h, &line, sizeof line);
    h = hash_add(h, &col, sizeof col);
    return hash_add(h, what, strlen(what));
}

static bool same_note(const import_note *n, const char *src_rel, int line, int col, const char *what)
{
    return n->line == line && n->col == col && !strcmp(n->what, what) &&
           ((!src_rel && !n->src_rel) || (src_rel && n->src_rel && !strcmp(src_rel, n->src_rel)));
}

void import_note_add(imp *m, const char *src_rel, int line, int col, const char *what, const char *todo)
{
    /* once (front-matter defaults apply to many pages): looked up in a hash
     * set, where comparing with every note made a post of many Liquid
     * tags quadratic */
    if (2 * (m->nnotes + 1) > m->nnote_slots) { /* grow (on the heap: import_notes_free) */
        size_t ns = 64;
        while (2 * (m->nnotes + 1) > ns)
            ns *= 2;
        size_t *slots = xcalloc(ns, sizeof *slots);
        for (size_t i = 0; i < m->nnotes; i++) {
            const import_note *n = &m->notes[i];
            size_t k = note_hash(n->src_rel, n->line, n->col, n->what) & (ns - 1);
            while (slots[k])
                k = (k + 1) & (ns - 1);
            slots[k] = i + 1;
        }
        free(m->note_slots);
        m->note_slots = slots;
        m->nnote_slots = ns;
    }
    size_t k = note_hash(src_rel, line, col, what) & (m->nnote_slots - 1);
    for (; m->note_slots[k]; k = (k + 1) & (m->nnote_slots - 1))
        if (same_note(&m->notes[m->note_slots[k] - 1], src_rel, line, col, what))
            return;
    import_note *n = VEC_ADD_IN(m->a, m->notes, m->nnotes, m->capnotes, 32);
    n->src_rel = src_rel;
    n->line = line;
    n->col = col;
    n->what = arena_strdup(m->a, what);
    n->todo = todo;
    m->note_slots[k] = m->nnotes;
}

void import_notes_free(imp *m)
{
    free(m->note_slots);
    m->note_slots = NULL;
    m->nnote_slots = 0;
    lines_release(&m->body_lines);
    m->lines_of = NULL;
}

const char *import_expand_pattern(imp *m, const char *pat, bool lower,
                                  bool (*token)(void *ctx, const char *name, size_t len, buf *out),
                                  void *ctx)
{
    buf b = BUF_INIT;
    for (const char *q = pat; *q;) {
        if (*q != ':') {
            buf_putc(&b, *q++);
            continue;
        }
        const char *e = q + 1;
        while (*e && (isalnum((unsigned char)*e) || *e == '_'))
            e++;
        if (!token(ctx, q + 1, (size_t)(e - q - 1), &b))
            buf_put(&b, q, (size_t)(e - q));
        q = e;
    }
    buf r = BUF_INIT;
    buf_putc(&r, '/');
    for (size_t i = 0; i < b.len; i++)
        if (b.data[i] != '/' || r.data[r.len - 1] != '/')
            buf_putc(&r, lower ? (char)tolower((unsigned char)b.data[i]) : b.data[i]);
    const char *s = arena_strdup(m->a, r.data);
    buf_release(&b);
    buf_release(&r);
    return s;
}

void import_note_dir(imp *m, const char *dir, const char *todo)
{
    import_note_add(m, dir, 0, 0, "folder", todo);
}

void import_kv_set(imp *m, import_page *p, const char *key, tpl_value v)
{
    for (size_t i = 0; i < p->nkv; i++)
        if (!strcmp(p->kv[i].key, key)) {
            p->kv[i].value = v;
            return;
        }
    import_kv *kv = VEC_ADD_IN(m->a, p->kv, p->nkv, p->capkv, 8);
    kv->key = key;
    kv->value = v;
}

tpl_value import_kv_get(const import_page *p, const char *key)
{
    for (size_t i = 0; i < p->nkv; i++)
        if (!strcmp(p->kv[i].key, key))
            return p->kv[i].value;
    return tpl_undefined();
}

void import_alias_add(imp *m, import_page *p, const char *url)
{
    for (size_t i = 0; i < p->naliases; i++)
        if (!strcmp(p->aliases[i], url))
            return;
    VEC_PUSH_IN(m->a, p->aliases, p->naliases, p->capaliases, 4, url);
}

const char *import_src_path(imp *m, const char *rel)
{
    return arena_printf(m->a, "%s/%s", m->o->src, rel);
}


void import_paginate_path(imp *m, const char *file, const char *old, const char *pattern)
{
    buf b = BUF_INIT;
    buf_puts(&b, pattern + (pattern[0] == '/'));
    if (!b.len || b.data[b.len - 1] != '/')
        buf_putc(&b, '/');
    const char *why = site_paginate_path_problem(m->a, b.data, b.len);
    if (why)
        import_note_add(m, file, 0, 0, arena_printf(m->a, "pagination path %s", old),
                        arena_printf(m->a, "sheaf cannot write the later list pages there ('%s' %s); they are at "
                                           "page/2/, …",
                                     b.data, why));
    else if (strcmp(b.data, "page/:num/")) {
        m->paginate_path = arena_strdup(m->a, b.data);
        m->paginate_old = arena_printf(m->a, "%s's %s", file, old);
    }
    buf_release(&b);
}

void import_redirect_file(imp *m, const char *src_rel, const char *out, const char *to)
{
    size_t n = strlen(out);
    import_add_file(m, src_rel, arena_printf(m->a, "static/%s%s", out, !n || out[n - 1] == '/' ? "index.html" : ""),
                    arena_printf(m->a, "/%s", out));
    m->files[m->nfiles - 1].text =
        arena_printf(m->a, "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
                           "<title>Redirecting…</title>\n<link rel=\"canonical\" href=\"%s\">\n"
                           "<meta http-equiv=\"refresh\" content=\"0; url=%s\">\n</head>\n<body>\n"
                           "<p>This page has moved to <a href=\"%s\">%s</a>.</p>\n</body>\n</html>\n",
                     to, to, to, to);
}
