/* bib/bib.c: reading .bib files with libbtparse (see bib.h).
 *
 * libbtparse prints its warnings and errors to `stderr` itself and keeps
 * its state in globals. While it runs, under one lock, `stderr` points at
 * a memory stream; its lines ("FILE, line N, syntax error: …", "FILE, line
 * N, warning: possible runaway string started at line M") become located
 * diagnostics instead. */
#include <btparse.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bib/bib.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/xalloc.h"

static pthread_mutex_t bt_lock = PTHREAD_MUTEX_INITIALIZER;
static bool bt_ready;

const bib_entry *bib_find(const bib *b, const char *key)
{
    if (!b->by_key)
        return NULL;
    long i = strmap_get(b->by_key, key);
    return i < 0 ? NULL : &b->entries[i];
}

const char *bib_suggest(const bib *b, const char *key)
{
    const char *best = NULL;
    size_t bd = (size_t)-1;
    for (size_t i = 0; i < b->n; i++) {
        size_t d = text_edit_distance(key, b->entries[i].key);
        if (d < bd) {
            bd = d;
            best = b->entries[i].key;
        }
    }
    return best && text_close_enough(key, bd) ? best : NULL;
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

/* ---- names ---- */

/* The tokens of one part of a name, joined by spaces. libbtparse's token
 * pointers point into its copy of the name (`len` bytes); on some odd
 * names (found by fuzzing) it gives an empty part a NULL token, a part
 * longer than the token list or a pointer outside that copy: such tokens
 * are left out. */
static const char *join_part(arena *a, bt_name *nm, bt_namepart part, size_t len)
{
    buf t = BUF_INIT;
    const bt_stringlist *all = nm->tokens;
    char **first = nm->parts[part];
    /* each part is a run of the token list: stay inside it */
    if (!all || !first || first < all->items || first >= all->items + all->num_items) {
        buf_release(&t);
        return "";
    }
    long room = (long)(all->items + all->num_items - first);
    const char *lo = all->string;
    for (long i = 0; i < nm->part_len[part] && i < room; i++) {
        const char *tok = first[i];
        if (!tok || !lo || tok < lo || tok >= lo + len)
            continue;
        if (t.len)
            buf_putc(&t, ' ');
        buf_puts(&t, tok);
    }
    const char *r = bib_tex_to_text(a, t.len ? t.data : "", t.len);
    buf_release(&t);
    return r;
}

static bib_name *split_names(arena *a, char *value, const char *path, int line, size_t *n)
{
    bt_stringlist *list = bt_split_list(value, "and", (char *)path, line, "name");
    *n = 0;
    if (!list)
        return NULL;
    bib_name *v = arena_calloc(a, (size_t)(list->num_items ? list->num_items : 1) * sizeof *v);
    for (int i = 0; i < list->num_items; i++) {
        if (!list->items[i])
            continue;
        bt_name *nm = bt_split_name(list->items[i], (char *)path, line, i + 1);
        if (!nm)
            continue;
        bib_name *x = &v[(*n)++];
        size_t len = strlen(list->items[i]) + 1;
        x->given = join_part(a, nm, BTN_FIRST, len);
        x->von = join_part(a, nm, BTN_VON, len);
        x->family = join_part(a, nm, BTN_LAST, len);
        x->jr = join_part(a, nm, BTN_JR, len);
        if (!*x->family && !*x->von) { /* "{Barnes and Noble}" alone */
            x->family = x->given;
            x->given = "";
        }
        buf f = BUF_INIT;
        const char *parts[] = { x->given, x->von, x->family };
        for (size_t k = 0; k < 3; k++) {
            if (!*parts[k])
                continue;
            if (f.len)
                buf_putc(&f, ' ');
            buf_puts(&f, parts[k]);
        }
        if (*x->jr)
            buf_printf(&f, ", %s", x->jr);
        x->full = arena_strndup(a, f.len ? f.data : "", f.len);
        buf_release(&f);
        bt_free_name(nm);
    }
    bt_free_list(list);
    return v;
}

/* ---- btparse's messages ---- */

typedef struct bt_msg {
    int line;       /* where btparse says */
    int runaway;    /* "runaway string started at line M": M, else 0 */
    bool error;
    char *text;     /* after "line N, " */
} bt_msg;

/* Splits what btparse printed into messages about `name`. */
static size_t parse_messages(const char *out, const char *name, bt_msg **v)
{
    size_t n = 0, cap = 0;
    *v = NULL;
    size_t nl = strlen(name);
    for (const char *p = out; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int line = 0;
        const char *rest = NULL;
        if (len > nl + 7 && !strncmp(p, name, nl) && !strncmp(p + nl, ", line ", 7)) {
            line = atoi(p + nl + 7);
            rest = memchr(p + nl + 7, ',', len - nl - 7);
        }
        if (rest) {
            rest++;
            while (*rest == ' ')
                rest++;
            if (n == cap)
                *v = xrealloc(*v, (cap = cap ? 2 * cap : 8) * sizeof **v);
            bt_msg *m = &(*v)[n++];
            m->line = line;
            m->text = xstrndup(rest, (size_t)(p + len - rest));
            m->error = strstr(m->text, "error") != NULL; /* "syntax error", "lexical error" */
            const char *r = strstr(m->text, "started at line ");
            m->runaway = r ? atoi(r + 16) : 0;
            /* "syntax error: found …, expected … (skipping to next "@")" →
             * "found …, expected …" */
            char *t = m->text;
            if (!strncmp(t, "syntax error: ", 14))
                memmove(t, t + 14, strlen(t + 14) + 1);
            char *skip = strstr(t, " (skipping");
            if (skip)
                *skip = 0;
        }
        p += len + (e != NULL);
    }
    return n;
}

/* ---- entries ---- */

static bool add_entry(bib *b, bib_entry *e, const char *path, diag_list *d)
{
    if (!b->by_key)
        b->by_key = strmap_new(64);
    long at = strmap_get(b->by_key, e->key);
    if (at >= 0) {
        const bib_entry *o = &b->entries[at];
        diag_add(d, DIAG_ERROR, path, e->line, 1,
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

static char *lower(arena *a, const char *s)
{
    char *r = arena_strdup(a, s);
    for (char *p = r; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return r;
}

/* Reads one regular entry's fields. */
static void read_entry(AST *ast, const char *path, arena *a, bib_entry *e)
{
    e->key = arena_strdup(a, bt_entry_key(ast));
    e->type = lower(a, bt_entry_type(ast));
    e->src = path;
    e->line = ast->line;
    size_t cap = 0;
    char *name;
    for (AST *f = bt_next_field(ast, NULL, &name); f; f = bt_next_field(ast, f, &name))
        cap++;
    e->fields = arena_calloc(a, (cap ? cap : 1) * sizeof *e->fields);
    for (AST *f = bt_next_field(ast, NULL, &name); f; f = bt_next_field(ast, f, &name)) {
        char *raw = bt_get_text(f); /* macros expanded, parts pasted; a copy */
        if (!raw)
            continue;
        const char *fname = lower(a, name);
        if (!strcmp(fname, "author"))
            e->authors = split_names(a, raw, path, f->line, &e->nauthors);
        else if (!strcmp(fname, "editor"))
            e->editors = split_names(a, raw, path, f->line, &e->neditors);
        bib_field *x = &e->fields[e->nfields++];
        x->name = fname;
        x->text = bib_tex_to_text(a, raw, strlen(raw));
        free(raw); /* bt_get_text's copy is the caller's */
    }
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

/* Where a broken entry starts: the last `@` at the start of a line (after
 * blanks) at or before `line`. */
static int entry_start(const char *text, int line)
{
    int cur = 1, best = line;
    const char *p = text;
    while (*p && cur <= line) {
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == '@')
            best = cur;
        const char *e = strchr(p, '\n');
        if (!e)
            break;
        p = e + 1;
        cur++;
    }
    return best;
}

bool bib_load(bib *b, const char *file, const char *path, const char *where_path, int where_line,
              int where_col, arena *a, diag_list *d)
{
    buf text = BUF_INIT;
    if (!fs_read_file(file, &text)) {
        diag_add(d, DIAG_ERROR, where_path, where_line, where_col,
                 "cannot read bibliography '%s': %s", path, strerror(errno));
        buf_release(&text);
        return false;
    }
    bool ok = bib_load_text(b, text.data ? text.data : "", text.len, path, a, d);
    buf_release(&text);
    return ok;
}

bool bib_load_text(bib *b, const char *data, size_t len, const char *path, arena *a, diag_list *d)
{
    buf text = BUF_INIT;
    buf_put(&text, data, len);
    size_t bad = text_utf8_check(text.data ? text.data : "", text.len);
    const char *nul = text.len ? memchr(text.data, 0, text.len) : NULL;
    if (nul && (bad == (size_t)-1 || (size_t)(nul - text.data) < bad)) {
        /* libbtparse's lexer stops at a NUL byte, and asserts on what follows */
        int line, col;
        place_of(text.data, (size_t)(nul - text.data), &line, &col);
        diag_add(d, DIAG_ERROR, path, line, col, "a NUL byte: a .bib file is text");
        buf_release(&text);
        return false;
    }
    if (bad != (size_t)-1) {
        int line, col;
        place_of(text.data, bad, &line, &col);
        diag_add(d, DIAG_ERROR, path, line, col,
                 "not UTF-8 text: save the .bib as UTF-8 (or write the letter as TeX, e.g. {\\\"u})");
        buf_release(&text);
        return false;
    }
    bool ok = true;
    char *out = NULL;
    size_t outlen = 0;

    pthread_mutex_lock(&bt_lock);
    if (!bt_ready) {
        bt_initialize();
        bt_ready = true;
    }
    /* Nothing but comments: libbtparse would meet the end of the file on
     * its first call and refuse the next file it is given. */
    FILE *in = text.len && memchr(text.data, '@', text.len) ? fmemopen(text.data, text.len, "r")
                                                            : NULL;
    FILE *catcher = open_memstream(&out, &outlen);
    FILE *saved = stderr;
    stderr = catcher;
    bt_delete_all_macros();
    bt_reset_error_counts();
    boolean status;
    AST *ast;
    struct broken {
        int line;
    } *broken = NULL;
    size_t nbroken = 0;
    while (in && (ast = bt_parse_entry(in, (char *)path, 0, &status))) {
        bt_metatype mt = bt_entry_metatype(ast);
        if (!status && mt != BTE_MACRODEF) {
            broken = xrealloc(broken, (nbroken + 1) * sizeof *broken);
            broken[nbroken++].line = ast->line;
        }
        if (status && mt == BTE_REGULAR && bt_entry_key(ast)) {
            bib_entry e = { 0 };
            read_entry(ast, path, a, &e);
            if (!add_entry(b, &e, path, d))
                ok = false;
        }
        bt_free_ast(ast);
    }
    /* libbtparse remembers the file it is reading until a call finds it at
     * its end, and exits the process when given another: take it to the
     * end (when it stopped early, saying the rest was not read). */
    long stopped = -1;
    if (in) {
        if (!feof(in)) {
            stopped = ftell(in);
            fseek(in, 0, SEEK_END);
            (void)getc(in);
        }
        /* at the end now: this call lets go of the file (after a syntax
         * error at the end the parser has not) */
        (void)bt_parse_entry(in, (char *)path, 0, &status);
    }
    fflush(catcher);
    stderr = saved;
    fclose(catcher);
    if (in)
        fclose(in);
    pthread_mutex_unlock(&bt_lock);

    bt_msg *msgs;
    size_t nmsgs = parse_messages(out ? out : "", path, &msgs);
    int runaway = 0;
    for (size_t i = 0; i < nmsgs; i++)
        if (msgs[i].runaway && !runaway)
            runaway = msgs[i].runaway;
    bool reported = false;
    for (size_t i = 0; i < nmsgs; i++) {
        if (!msgs[i].error || reported)
            continue;
        /* One error per file: after the first, btparse's recovery makes
         * the rest noise. It is reported where the entry starts. */
        int at = entry_start(text.data ? text.data : "", msgs[i].line);
        if (runaway)
            diag_add(d, DIAG_ERROR, path, runaway, 1,
                     "unbalanced braces or quotes: the value that starts on this line never "
                     "closes (the parser ran on to line %d)",
                     msgs[i].line);
        else
            diag_add(d, DIAG_ERROR, path, at, 1, "syntax error in this entry: %s", msgs[i].text);
        reported = true;
        ok = false;
    }
    if (!reported && stopped >= 0) {
        int line, col;
        place_of(text.data, (size_t)stopped < text.len ? (size_t)stopped : text.len, &line, &col);
        diag_add(d, DIAG_ERROR, path, entry_start(text.data, line), 1,
                 "the file could not be read past this entry (check it for stray characters)");
        reported = true;
        ok = false;
    }
    if (!reported && nbroken) {
        diag_add(d, DIAG_ERROR, path, broken[0].line, 1,
                 "this entry could not be read (check its braces, quotes and commas)");
        ok = false;
    }
    for (size_t i = 0; i < nmsgs; i++)
        free(msgs[i].text);
    free(msgs);
    free(broken);
    free(out);
    buf_release(&text);

    return ok;
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
