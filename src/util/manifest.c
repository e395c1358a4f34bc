/* manifest: read and write `.sheaf-manifest` (see manifest.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fs.h"
#include "util/hash.h"
#include "util/manifest.h"
#include "util/strmap.h"
#include "util/vec.h"
#include "util/xalloc.h"

static const char head[] = "# sheaf: the files it wrote in this folder, which it alone may remove\n";

/* A plain relative path: no empty, "." or ".." component, not absolute. */
static bool plain_path(const char *p)
{
    if (!*p || *p == '/')
        return false;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return false;
        s += n + (e != NULL);
        if (e && !*s)
            return false;
    }
    return true;
}

/* 16 hex digits at s (lower case, as written) into *v. */
static bool hex16(const char *s, uint64_t *v)
{
    uint64_t x = 0;
    for (int i = 0; i < 16; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9')
            x = x << 4 | (uint64_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            x = x << 4 | (uint64_t)(c - 'a' + 10);
        else
            return false;
    }
    *v = x;
    return true;
}

bool manifest_read(const char *dir, manifest *m)
{
    memset(m, 0, sizeof *m);
    m->paths = strmap_new(1024);
    char *p = fs_join(dir, MANIFEST_NAME);
    buf b = BUF_INIT;
    bool ok = fs_read_file(p, &b) && b.len >= sizeof head - 1 && !memcmp(b.data, head, sizeof head - 1);
    free(p);
    if (!ok) {
        buf_release(&b);
        return false;
    }
    m->len = b.len;
    m->sorted = true;
    m->hash = hash_bytes(b.data, b.len);
    /* to its length: the read's buffer may have twice the room (the text
     * is kept while the build runs: 8 MB at 100,000 posts) */
    m->text = xrealloc(buf_detach(&b, NULL), m->len + 1);
    char *s = m->text + sizeof head - 1;
    char *end = s + strlen(s); /* (a NUL ends the list) */
    /* room for a path a line, made once: the map and the lists are not
     * grown (and copied) on the way (31,000 lines at 10,000 posts) */
    size_t lines = 1;
    for (const char *q = s; (q = memchr(q, '\n', (size_t)(end - q))); q++)
        lines += q[1] != '\\'; /* a path's line (a \folder line is not one) */
    strmap_free(m->paths);
    m->paths = strmap_new(lines);
    m->cap = lines;
    m->list = xmalloc(lines * sizeof *m->list);
    while (s < end) {
        char *nl = memchr(s, '\n', (size_t)(end - s));
        char *line_end = nl ? nl : end, *next = nl ? nl + 1 : end;
        if (nl)
            *nl = 0;
        char *w = s;
        bool bad = false;
        int kind = 0; /* 1: a \changed line, 2: a \user line, 3: a \folder line, 4: an \own line */
        uint64_t stamp = 0;
        bool direct = false;
        if (*s == '\\')
            m->plain_tail = false; /* (a line of another kind, or an escaped path) */
        if (*s != '\\') {
            /* a path: most lines */
        } else if (!strncmp(s, "\\generation ", 12)) {
            unsigned long long g, h;
            int end = 0;
            if (sscanf(s + 12, "%llu %llx%n", &g, &h, &end) == 2 && !s[12 + end])
                m->generation = g, m->spare = h;
            s = next;
            continue;
        } else if (!strncmp(s, "\\base ", 6)) {
            uint64_t h;
            if (hex16(s + 6, &h) && !s[22])
                m->base = h;
            s = next;
            continue;
        } else if (!strncmp(s, "\\folder ", 8) || !strncmp(s, "\\own ", 5)) {
            /* "\folder " or "\own ", 16 hex digits, ' ', '+' or '-', ' ', the path */
            size_t at = s[1] == 'f' ? 8 : 5;
            if (!hex16(s + at, &stamp) || s[at + 16] != ' ' || (s[at + 17] != '+' && s[at + 17] != '-') ||
                s[at + 18] != ' ') {
                s = next;
                continue;
            }
            direct = s[at + 17] == '+';
            kind = at == 8 ? 3 : 4, s += at + 19, w = s;
        } else if (!strncmp(s, "\\changed ", 9)) {
            kind = 1, s += 9, w = s;
        } else if (!strncmp(s, "\\user ", 6)) {
            kind = 2, s += 6, w = s;
        }
        /* unescaped in place from its first '\\' (most paths have none) */
        char *r = memchr(s, '\\', (size_t)(line_end - s));
        w = r ? r : line_end;
        for (; r && *r && !bad; r++) {
            if (*r != '\\')
                *w++ = *r;
            else if (r[1] == 'n')
                *w++ = '\n', r++;
            else if (r[1] == '\\')
                *w++ = '\\', r++;
            else
                bad = true;
        }
        *w = 0;
        if (kind && !bad && plain_path(s)) {
            if (kind == 1)
                *VEC_ADD(m->changed, m->nchanged, m->capchanged, 64) = s;
            else if (kind == 2)
                *VEC_ADD(m->user, m->nuser, m->capuser, 16) = s;
            else if (kind == 3)
                *VEC_ADD(m->folders, m->nfolders, m->capfolders, 256) = (manifest_folder){ s, stamp, direct };
            else
                *VEC_ADD(m->own, m->nown, m->capown, 256) = (manifest_folder){ s, stamp, direct };
        } else if (!kind && !bad && plain_path(s) && strmap_put(m->paths, s, (long)m->n) == (long)m->n) {
            *VEC_ADD(m->list, m->n, m->cap, 256) = s; /* not a repeated line */
            m->sorted = m->sorted && (m->n < 2 || strcmp(m->list[m->n - 2], s) < 0);
            if (m->n == 1) {
                m->paths_from = (size_t)(s - m->text);
                m->plain_tail = true;
            }
            m->plain_tail = m->plain_tail && w == line_end && nl; /* unescaped, and ends in '\n' */
            s = next;
            continue;
        }
        m->plain_tail = false; /* (any other line after the first path) */
        s = next;
    }
    m->plain_tail = m->plain_tail && end == m->text + m->len; /* (no NUL in the file) */
    return true;
}

bool manifest_has(const manifest *m, const char *rel)
{
    if (m->dropped)
        abort(); /* its paths were let go: the caller must not ask */
    return m->paths && strmap_get(m->paths, rel) >= 0;
}

void manifest_drop_paths(manifest *m)
{
    strmap_free(m->paths);
    free(m->list);
    m->paths = NULL;
    m->list = NULL;
    m->n = m->cap = 0;
    m->dropped = true;
}

void manifest_free(manifest *m)
{
    strmap_free(m->paths);
    free(m->list);
    free(m->changed);
    free(m->user);
    free(m->folders);
    free(m->own);
    free(m->text);
    memset(m, 0, sizeof *m);
}

static void put_hex16(char *out, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 15; i >= 0; i--, v >>= 4)
        out[i] = digits[v & 15];
}

static void put_path(buf *out, const char *p)
{
    for (;;) {
        size_t n = strcspn(p, "\\\n"); /* a run to copy as it is */
        buf_put(out, p, n);
        p += n;
        if (!*p)
            break;
        buf_puts(out, *p == '\\' ? "\\\\" : "\\n");
        p++;
    }
    buf_putc(out, '\n');
}

/* The n paths sorted (a copy of the array), so the bytes do not depend on
 * the order the build made them in. */
static char **sorted(char *const *paths, size_t n)
{
    char **v = xmalloc((n + 1) * sizeof *v);
    if (n)
        memcpy(v, paths, n * sizeof *v);
    vec_sort(v, n, sizeof *v, vec_cmp_str);
    return v;
}

/* n records of folders, each a line: word (with its space), the stamp, '+'
 * or '-', the path. */
static void put_folders(buf *out, const char *word, const manifest_folder *f, size_t n)
{
    size_t w = strlen(word);
    for (size_t i = 0; i < n; i++) {
        char line[32];
        memcpy(line, word, w);
        put_hex16(line + w, f[i].stamp);
        line[w + 16] = ' ';
        line[w + 17] = f[i].direct ? '+' : '-';
        line[w + 18] = ' ';
        buf_put(out, line, w + 19);
        put_path(out, f[i].path);
    }
}

void manifest_format_gen(char *const *paths, size_t n, const manifest_gen *g, buf *out)
{
    buf_puts(out, head);
    if (g && g->generation) {
        buf_printf(out, "\\generation %llu %016llx\n", g->generation, (unsigned long long)g->spare);
        char **v = sorted(g->changed, g->nchanged);
        for (size_t i = 0; i < g->nchanged; i++) {
            buf_puts(out, "\\changed ");
            put_path(out, v[i]);
        }
        free(v);
        v = sorted(g->user, g->nuser);
        for (size_t i = 0; i < g->nuser; i++) {
            buf_puts(out, "\\user ");
            put_path(out, v[i]);
        }
        free(v);
        if (g->base)
            buf_printf(out, "\\base %016llx\n", (unsigned long long)g->base);
        put_folders(out, "\\folder ", g->folders, g->nfolders);
        put_folders(out, "\\own ", g->own, g->nown);
    }
    if (g && g->same && g->same->plain_tail && g->same->n == n) {
        /* the lines as read: each path was made a string in place (its
         * newline a NUL), and is made a line again */
        const manifest *m = g->same;
        size_t from = out->len, len = m->len - m->paths_from;
        buf_put(out, m->text + m->paths_from, len);
        for (char *p = out->data + from, *end = p + len; (p = memchr(p, 0, (size_t)(end - p)));)
            *p++ = '\n';
        return;
    }
    char **v = g && g->sorted ? NULL : sorted(paths, n);
    for (size_t i = 0; i < n; i++)
        put_path(out, v ? v[i] : paths[i]);
    free(v);
}

void manifest_format(char *const *paths, size_t n, buf *out)
{
    manifest_format_gen(paths, n, NULL, out);
}

bool manifest_write(const char *dir, char *const *paths, size_t n)
{
    buf b = BUF_INIT, tmp = BUF_INIT;
    manifest_format(paths, n, &b);
    buf_printf(&tmp, "%s/." MANIFEST_NAME ".sheaf-XXXXXX", dir);
    int fd = mkostemp(tmp.data, O_CLOEXEC);
    bool ok = fd >= 0;
    if (ok) {
        const char *p = b.data;
        size_t left = b.len;
        while (ok && left) {
            ssize_t w = write(fd, p, left);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                if (w == 0)
                    errno = ENOSPC;
                ok = false;
                break;
            }
            p += w;
            left -= (size_t)w;
        }
        ok = fchmod(fd, 0644) == 0 && ok;
        int e = errno;
        ok = close(fd) == 0 && ok;
        if (ok) {
            char *dst = fs_join(dir, MANIFEST_NAME);
            ok = rename(tmp.data, dst) == 0;
            e = errno;
            free(dst);
        }
        if (!ok)
            unlink(tmp.data);
        errno = e;
    }
    buf_release(&b);
    buf_release(&tmp);
    return ok;
}
