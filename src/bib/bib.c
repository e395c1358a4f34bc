/* bib/bib.c: reading .bib files with libbtparse (see bib.h).
 *
 * libbtparse runs in a child process, one per file (see "the child"
 * below). It prints its warnings and errors to `stderr` itself: in the
 * child `stderr` points at a memory stream, and its lines ("FILE, line N,
 * syntax error: …", "FILE, line N, warning: possible runaway string
 * started at line M") come back to become located diagnostics. */
#include <btparse.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bib/bib.h"
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

/* ---- the child: everything libbtparse touches ----
 *
 * libbtparse is old C with global state, and fuzzing finds inputs that
 * crash it inside its own code (an `@string` with a syntax error, used in
 * another `@string`, dereferences NULL). A crash there must not take the
 * build, or `sheaf serve`, down with it: each .bib file is parsed in a
 * child process, which writes down what libbtparse made of it — every
 * entry's key, type, line and raw fields, names split into their raw
 * parts, the broken entries, where it stopped and what it printed — and
 * exits. The parent turns TeX into text and builds the entries; a child
 * that dies is a located error, and the entries it sent before are kept.
 *
 * The wire: records of a tag byte and fields; a number is 4 bytes, a
 * string its length as a number then its bytes. The child writes each
 * record as soon as it is complete, to a file in memory that the parent
 * reads once the child has exited. */

enum {
    REC_SEEN = 'L',   /* libbtparse returned an entry: its line */
    REC_ENTRY = 'E',  /* a regular entry */
    REC_BROKEN = 'X', /* an entry with errors: its line */
    REC_STOPPED = 'S',/* the parser stopped before the end: the byte offset */
    REC_PRINTED = 'M',/* what libbtparse printed */
    REC_END = 'Z',    /* the child finished */
};

static void put_num(buf *w, long v)
{
    uint32_t u = (uint32_t)v;
    buf_put(w, (const char *)&u, sizeof u);
}

static void put_str(buf *w, const char *s, size_t n)
{
    put_num(w, (long)n);
    buf_put(w, s, n);
}

static void flush_to(int fd, buf *w)
{
    const char *p = w->data;
    size_t n = w->len;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            _exit(3); /* the file takes no more (memory or disk full) */
        p += k;
        n -= (size_t)k;
    }
    w->len = 0;
}

/* The tokens of one part of a name, joined by spaces, as TeX. libbtparse's
 * token pointers point into its copy of the name (`len` bytes); on some
 * odd names (found by fuzzing) it gives an empty part a NULL token, a part
 * longer than the token list or a pointer outside that copy: such tokens
 * are left out. */
static void put_part(buf *w, bt_name *nm, bt_namepart part, size_t len)
{
    buf t = BUF_INIT;
    const bt_stringlist *all = nm->tokens;
    char **first = nm->parts[part];
    /* each part is a run of the token list: stay inside it */
    if (all && first && first >= all->items && first < all->items + all->num_items) {
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
    }
    put_str(w, t.data ? t.data : "", t.len);
    buf_release(&t);
}

/* A name list: its count, then given, von, family and jr of each. */
static void put_names(buf *w, char *value, const char *path, int line)
{
    bt_stringlist *list = bt_split_list(value, "and", (char *)path, line, "name");
    size_t count_at = w->len;
    put_num(w, 0);
    uint32_t n = 0;
    for (int i = 0; list && i < list->num_items; i++) {
        if (!list->items[i])
            continue;
        bt_name *nm = bt_split_name(list->items[i], (char *)path, line, i + 1);
        if (!nm)
            continue;
        size_t len = strlen(list->items[i]) + 1;
        put_part(w, nm, BTN_FIRST, len);
        put_part(w, nm, BTN_VON, len);
        put_part(w, nm, BTN_LAST, len);
        put_part(w, nm, BTN_JR, len);
        bt_free_name(nm);
        n++;
    }
    memcpy(w->data + count_at, &n, sizeof n);
    if (list)
        bt_free_list(list);
}

/* One regular entry: key, type, line, then its fields — name, raw text (macros expanded, parts pasted) and, for author and editor, the
 * names. */
static void put_entry(buf *w, AST *ast, const char *path)
{
    buf_putc(w, REC_ENTRY);
    const char *key = bt_entry_key(ast), *type = bt_entry_type(ast);
    put_str(w, key, strlen(key));
    put_str(w, type ? type : "", type ? strlen(type) : 0);
    put_num(w, ast->line);
    size_t count_at = w->len;
    put_num(w, 0);
    uint32_t n = 0;
    char *name;
    for (AST *f = bt_next_field(ast, NULL, &name); f; f = bt_next_field(ast, f, &name)) {
        char *raw = bt_get_text(f); /* a copy, the caller's */
        if (!raw)
            continue;
        put_str(w, name, strlen(name));
        put_str(w, raw, strlen(raw));
        bool names = !strcasecmp(name, "author") || !strcasecmp(name, "editor");
        buf_putc(w, names);
        if (names)
            put_names(w, raw, path, f->line);
        free(raw);
        n++;
    }
    memcpy(w->data + count_at, &n, sizeof n);
}

/* Under a sanitizer: what runs when it has found an error (weak, so a
 * build without one has none). */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

enum { CHILD_GAVE_UP = 70 };

static void child_quit(void) { _exit(CHILD_GAVE_UP); }

/* The child is a copy of sheaf: what sheaf (or a fuzzer, or a sanitizer)
 * set up to run at exit or on a signal is the parent's business. libbtparse
 * calls exit() on some inputs; a handler registered last runs first, so
 * this one leaves before any other runs. A crash is a plain death by
 * signal, with no core file written. */
static void child_alone(void)
{
    atexit(child_quit);
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
                                SIGINT,  SIGTERM, SIGHUP, SIGPIPE };
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        signal(sigs[i], SIG_DFL);
    struct rlimit none = { 0, 0 };
    setrlimit(RLIMIT_CORE, &none);
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(child_quit);
}

/* The child's work: parse `text` as `path`, write the records to fd. */
static _Noreturn void child_parse(buf *text, const char *path, int fd)
{
    buf w = BUF_INIT;
    child_alone();
    bt_initialize();
    /* Nothing but comments: libbtparse would meet the end of the file on
     * its first call and refuse the next call. */
    FILE *in = text->len && memchr(text->data, '@', text->len)
                   ? fmemopen(text->data, text->len, "r")
                   : NULL;
    char *out = NULL;
    size_t outlen = 0;
    FILE *catcher = open_memstream(&out, &outlen);
    if (catcher)
        stderr = catcher; /* libbtparse prints its messages itself */
    boolean status;
    AST *ast;
    while (in && (ast = bt_parse_entry(in, (char *)path, 0, &status))) {
        bt_metatype mt = bt_entry_metatype(ast);
        buf_putc(&w, REC_SEEN);
        put_num(&w, ast->line);
        if (!status && mt != BTE_MACRODEF) {
            buf_putc(&w, REC_BROKEN);
            put_num(&w, ast->line);
        }
        if (status && mt == BTE_REGULAR && bt_entry_key(ast))
            put_entry(&w, ast, path);
        bt_free_ast(ast);
        flush_to(fd, &w);
    }
    if (in && !feof(in)) {
        buf_putc(&w, REC_STOPPED);
        put_num(&w, ftell(in));
    }
    if (catcher) {
        fflush(catcher);
        buf_putc(&w, REC_PRINTED);
        put_str(&w, out ? out : "", out ? outlen : 0);
    }
    buf_putc(&w, REC_END);
    flush_to(fd, &w);
    _exit(0);
}

/* What the child sent, read back. */
typedef struct wire {
    const char *p, *end;
    bool bad;
} wire;

static long get_num(wire *r)
{
    uint32_t u = 0;
    if (r->end - r->p < (long)sizeof u) {
        r->bad = true;
        r->p = r->end;
        return 0;
    }
    memcpy(&u, r->p, sizeof u);
    r->p += sizeof u;
    return (long)u;
}

static const char *get_str(wire *r, size_t *n)
{
    *n = (size_t)get_num(r);
    if ((size_t)(r->end - r->p) < *n) {
        r->bad = true;
        r->p = r->end;
        *n = 0;
        return "";
    }
    const char *s = r->p;
    r->p += *n;
    return s;
}

static const char *get_text(wire *r, arena *a)
{
    size_t n;
    const char *s = get_str(r, &n);
    return bib_tex_to_text(a, s, n);
}

static bib_name *get_names(wire *r, arena *a, size_t *n)
{
    size_t count = (size_t)get_num(r);
    if (count > (size_t)(r->end - r->p) / 16) { /* each name is at least 16 bytes */
        r->bad = true;
        count = 0;
    }
    bib_name *v = arena_calloc(a, (count ? count : 1) * sizeof *v);
    *n = count;
    for (size_t i = 0; i < count; i++) {
        bib_name *x = &v[i];
        x->given = get_text(r, a);
        x->von = get_text(r, a);
        x->family = get_text(r, a);
        x->jr = get_text(r, a);
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
    }
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

static char *lower(arena *a, const char *s, size_t n)
{
    char *r = arena_strndup(a, s, n);
    for (char *p = r; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return r;
}

static int get_byte(wire *r)
{
    if (r->p == r->end) {
        r->bad = true;
        return 0;
    }
    return (unsigned char)*r->p++;
}

/* A REC_ENTRY's body, as an entry: TeX turned into text. */
static void get_entry(wire *r, const char *path, arena *a, bib_entry *e)
{
    size_t n;
    const char *s = get_str(r, &n);
    e->key = arena_strndup(a, s, n);
    s = get_str(r, &n);
    e->type = lower(a, s, n);
    e->src = path;
    e->line = (int)get_num(r);
    size_t count = (size_t)get_num(r);
    if (count > (size_t)(r->end - r->p) / 9) { /* each field is at least 9 bytes */
        r->bad = true;
        count = 0;
    }
    e->fields = arena_calloc(a, (count ? count : 1) * sizeof *e->fields);
    for (size_t i = 0; i < count && !r->bad; i++) {
        bib_field *x = &e->fields[e->nfields++];
        s = get_str(r, &n);
        x->name = lower(a, s, n);
        x->text = get_text(r, a);
        if (!get_byte(r))
            continue;
        if (!strcmp(x->name, "author"))
            e->authors = get_names(r, a, &e->nauthors);
        else
            e->editors = get_names(r, a, &e->neditors);
    }
}

/* Runs child_parse on text; `got` receives what it sent. Returns the
 * child's wait status, or -1 when no child could be started (errno). */
/* The file the child writes to: in memory where the kernel can (memfd),
 * else an unnamed temporary file. -1 with errno set. */
static int wire_file(void)
{
    int fd = memfd_create("sheaf-bib", MFD_CLOEXEC);
    if (fd >= 0)
        return fd;
    FILE *f = tmpfile();
    if (!f)
        return -1;
    fd = dup(fileno(f));
    fclose(f);
    return fd;
}

static int run_child(buf *text, const char *path, buf *got)
{
    /* A file, not a pipe: the child writes each entry as it completes (so
     * a crash keeps those before it), and through a pipe each write woke
     * the parent — two context switches per entry, a quarter of loading a
     * 2,000-entry file. The parent reads the file once the child is gone. */
    int fd = wire_file();
    if (fd < 0)
        return -1;
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (pid == 0)
        child_parse(text, path, fd);
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
    }
    char chunk[65536];
    off_t at = 0;
    for (;;) {
        ssize_t k = pread(fd, chunk, sizeof chunk, at);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        buf_put(got, chunk, (size_t)k);
        at += k;
    }
    close(fd);
    return st;
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

/* The line of the first entry (an `@` at the start of a line, after
 * blanks) after line `after`; `after` + 1 when there is none. */
static int next_entry(const char *text, int after)
{
    int cur = 1;
    for (const char *p = text; *p; cur++) {
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == '@' && cur > after)
            return cur;
        const char *e = strchr(p, '\n');
        if (!e)
            break;
        p = e + 1;
    }
    return after + 1;
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
    buf got = BUF_INIT;
    int st = run_child(&text, path, &got);
    if (st == -1) {
        diag_add(d, DIAG_ERROR, path, 0, 0, "cannot start the BibTeX parser: %s", strerror(errno));
        buf_release(&got);
        buf_release(&text);
        return false;
    }
    /* what the child sent */
    const char *out = "";
    size_t outlen = 0;
    int *broken = NULL;
    size_t nbroken = 0;
    long stopped = -1;
    int seen = 0; /* the line of the last entry libbtparse returned */
    bool finished = false;
    wire r = { got.data, got.data + got.len, false };
    while (r.p < r.end && !r.bad && !finished) {
        int tag = get_byte(&r);
        if (tag == REC_SEEN) {
            seen = (int)get_num(&r);
        } else if (tag == REC_BROKEN) {
            broken = xrealloc(broken, (nbroken + 1) * sizeof *broken);
            broken[nbroken++] = (int)get_num(&r);
        } else if (tag == REC_STOPPED) {
            stopped = get_num(&r);
        } else if (tag == REC_PRINTED) {
            out = get_str(&r, &outlen);
        } else if (tag == REC_ENTRY) {
            bib_entry e = { 0 };
            get_entry(&r, path, a, &e);
            if (!r.bad && !add_entry(b, &e, path, d))
                ok = false;
        } else {
            finished = tag == REC_END;
            r.bad |= !finished;
        }
    }
    if (!finished || r.bad || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        /* libbtparse crashed: on the entry after the last one it returned */
        int line = next_entry(text.data ? text.data : "", seen);
        char why[64];
        if (WIFSIGNALED(st))
            snprintf(why, sizeof why, "crashed (%s)", strsignal(WTERMSIG(st)));
        else if (WIFEXITED(st) && WEXITSTATUS(st) == CHILD_GAVE_UP)
            snprintf(why, sizeof why, "gave up");
        else
            snprintf(why, sizeof why, "failed (exit status %d)",
                     WIFEXITED(st) ? WEXITSTATUS(st) : st);
        diag_add(d, DIAG_ERROR, path, line, 1,
                 "the BibTeX parser (libbtparse) %s on the entry that starts here: check it, "
                 "and any @string it uses, for broken braces, quotes or '#' concatenations "
                 "(the entries before it were read)",
                 why);
        free(broken);
        buf_release(&got);
        buf_release(&text);
        return false;
    }
    char *printed = xstrndup(out, outlen);

    bt_msg *msgs;
    size_t nmsgs = parse_messages(printed, path, &msgs);
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
        diag_add(d, DIAG_ERROR, path, broken[0], 1,
                 "this entry could not be read (check its braces, quotes and commas)");
        ok = false;
    }
    for (size_t i = 0; i < nmsgs; i++)
        free(msgs[i].text);
    free(msgs);
    free(broken);
    free(printed);
    buf_release(&got);
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
