/* md/scparse.c: the grammar of one shortcode tag (see scparse.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "md/scparse.h"
#include "util/hash.h"
#include "util/vec.h"
#include "util/xalloc.h"

static bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

static bool word(char c) { return letter(c) || (c >= '0' && c <= '9') || c == '-'; }

/* Does the closing mark of a `mark` tag start at s[i]? */
static bool closer_at(const char *s, size_t n, size_t i, char mark)
{
    return i + 3 <= n && s[i] == (mark == '<' ? '>' : '%') && s[i + 1] == '}' && s[i + 2] == '}';
}

static size_t skip_space(const char *s, size_t n, size_t i)
{
    while (i < n && space(s[i]))
        i++;
    return i;
}

/* A name: word characters in parts separated by '/'. Returns its end, or
 * i when there is none. */
static size_t name_end(const char *s, size_t n, size_t i)
{
    size_t j = i;
    for (;;) {
        size_t k = j;
        while (k < n && word(s[k]))
            k++;
        if (k == j)
            return j == i ? i : j - 1; /* "a/" ends before the slash */
        j = k;
        if (j < n && s[j] == '/' && j + 1 < n && word(s[j + 1]))
            j++;
        else
            return j;
    }
}

#define FAIL(msg, at)          \
    do {                       \
        *error = (msg);        \
        *error_at = (at);      \
        return MD_SC_ERROR;    \
    } while (0)

md_sc_status md_sc_parse(const char *s, size_t n, md_sc_tag *t, const char **error,
                         size_t *error_at)
{
    if (n < 3 || s[0] != '{' || s[1] != '{' || (s[2] != '<' && s[2] != '%'))
        return MD_SC_NONE;
    if (n > MD_SC_MAX_TAG)
        n = MD_SC_MAX_TAG;
    memset(t, 0, offsetof(md_sc_tag, args));
    t->nargs = 0;
    t->len = 0;
    char mark = t->mark = s[2];
    char other = mark == '<' ? '%' : '<';
    size_t i = 3;
    if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
        /* a comment inside the marks: the tag is shown as written */
        for (size_t j = i + 2; j + 5 <= n; j++)
            if (s[j] == '*' && s[j + 1] == '/' && closer_at(s, n, j + 2, mark)) {
                t->escaped = true;
                t->name = s + i + 2;
                t->name_len = j - (i + 2);
                t->len = j + 5;
                return MD_SC_OK;
            }
        FAIL(mark == '<' ? "unclosed shortcode comment: no '*/>}}' after '{{</*'"
                         : "unclosed shortcode comment: no '*/%}}' after '{{%/*'",
             0);
    }
    i = skip_space(s, n, i);
    if (i < n && s[i] == '/') {
        t->closing = true;
        i = skip_space(s, n, i + 1);
    }
    size_t e = name_end(s, n, i);
    if (e == i) {
        if (i >= n)
            FAIL(mark == '<' ? "unclosed shortcode tag: no '>}}' after '{{<'"
                             : "unclosed shortcode tag: no '%}}' after '{{%'",
                 0);
        FAIL(closer_at(s, n, i, mark) ? "shortcode tag without a name"
                                      : "bad shortcode name: letters, digits, '_', '-' and '/' only",
             i);
    }
    t->name = s + i;
    t->name_len = e - i;
    i = e;
    if (i < n && !space(s[i]) && !closer_at(s, n, i, mark) && s[i] != '/')
        FAIL("bad shortcode name: letters, digits, '_', '-' and '/' only", i);
    for (;;) {
        i = skip_space(s, n, i);
        if (i >= n)
            FAIL(mark == '<' ? "unclosed shortcode tag: no '>}}' after '{{<'"
                             : "unclosed shortcode tag: no '%}}' after '{{%'",
                 0);
        if (closer_at(s, n, i, mark)) {
            t->len = i + 3;
            return MD_SC_OK;
        }
        if (closer_at(s, n, i, other))
            FAIL(mark == '<' ? "shortcode tag opened with '{{<' is closed with '%}}'"
                             : "shortcode tag opened with '{{%' is closed with '>}}'",
                 i);
        if (s[i] == '/' && closer_at(s, n, i + 1, mark)) {
            if (t->closing)
                FAIL("a closing shortcode tag cannot also be self-closing", i);
            t->self_closing = true;
            t->len = i + 4;
            return MD_SC_OK;
        }
        if (t->closing)
            FAIL("a closing shortcode tag takes no arguments", i);
        if (t->nargs == MD_SC_MAX_ARGS)
            FAIL("more than 64 shortcode arguments", i);
        md_sc_arg *a = &t->args[t->nargs];
        memset(a, 0, sizeof *a);
        a->at = i;
        /* key= ? */
        if (letter(s[i])) {
            size_t k = i + 1;
            while (k < n && word(s[k]))
                k++;
            if (k < n && s[k] == '=') {
                a->key = s + i;
                a->key_len = k - i;
                for (size_t p = 0; p < t->nargs; p++)
                    if (t->args[p].key && t->args[p].key_len == a->key_len
                        && !memcmp(t->args[p].key, a->key, a->key_len))
                        FAIL("shortcode argument given twice", i);
                i = k + 1;
                if (i >= n || space(s[i]) || closer_at(s, n, i, mark)
                    || (s[i] == '/' && closer_at(s, n, i + 1, mark)))
                    FAIL("shortcode argument without a value after '='", k);
            }
        }
        if (s[i] == '"' || s[i] == '`') {
            char q = a->quote = s[i];
            size_t j = i + 1;
            while (j < n && s[j] != q)
                j += q == '"' && s[j] == '\\' && j + 1 < n ? 2 : 1;
            if (j >= n)
                FAIL(q == '"' ? "unterminated \"string\" in a shortcode argument"
                              : "unterminated `string` in a shortcode argument",
                     i);
            a->val = s + i + 1;
            a->val_len = j - i - 1;
            i = j + 1;
            if (i < n && !space(s[i]) && !closer_at(s, n, i, mark)
                && !(s[i] == '/' && closer_at(s, n, i + 1, mark)))
                FAIL("a space must follow a quoted shortcode argument", i);
        } else {
            size_t j = i;
            while (j < n && !space(s[j]) && s[j] != '"' && s[j] != '`' && !closer_at(s, n, j, mark)
                   && !(s[j] == '/' && closer_at(s, n, j + 1, mark)) && !closer_at(s, n, j, other))
                j++;
            if (j < n && (s[j] == '"' || s[j] == '`'))
                FAIL("a quote inside a bare shortcode argument (quote the whole value)", j);
            if (j == i)
                FAIL("bad shortcode argument", i);
            a->val = s + i;
            a->val_len = j - i;
            i = j;
        }
        t->nargs++;
    }
}

size_t md_sc_value(const md_sc_arg *a, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < a->val_len; i++) {
        if (a->quote == '"' && a->val[i] == '\\' && i + 1 < a->val_len
            && (a->val[i + 1] == '"' || a->val[i + 1] == '\\'))
            i++;
        out[k++] = a->val[i];
    }
    out[k] = 0;
    return k;
}

size_t md_sc_find_close(const char *s, size_t n, char mark, const char *name, size_t name_len,
                        size_t *len)
{
    int depth = 0;
    for (size_t i = 0; i + 2 < n; i++) {
        if (s[i] != '{' || s[i + 1] != '{' || s[i + 2] != mark)
            continue;
        md_sc_tag t;
        const char *err;
        size_t at;
        if (md_sc_parse(s + i, n - i, &t, &err, &at) != MD_SC_OK)
            continue;
        if (!t.escaped && t.name_len == name_len && !memcmp(t.name, name, name_len)) {
            if (t.closing && depth-- == 0) {
                *len = t.len;
                return i;
            }
            if (!t.closing && !t.self_closing)
                depth++;
        }
        i += t.len - 1;
    }
    return (size_t)-1;
}

size_t md_sc_pairs(const char *s, size_t n, md_sc_pair **out)
{
    md_sc_pair *v = NULL;
    size_t nv = 0, cap = 0;
    /* per name (hashed into `top`), the open tags not yet closed, as a
     * stack linked through `below` */
    size_t ntop = 64, *top = xmalloc(ntop * sizeof *top), *below = NULL, cb = 0;
    for (size_t k = 0; k < ntop; k++)
        top[k] = (size_t)-1;
    for (size_t i = 0; i + 2 < n; i++) {
        const char *q = memchr(s + i, '{', n - i - 2);
        if (!q)
            break;
        i = (size_t)(q - s);
        if (s[i + 1] != '{' || s[i + 2] != '<')
            continue;
        md_sc_tag t;
        const char *err;
        size_t at;
        if (md_sc_parse(s + i, n - i, &t, &err, &at) != MD_SC_OK)
            continue;
        if (!t.escaped && !t.self_closing) {
            size_t slot = (size_t)hash_bytes(t.name, t.name_len) & (ntop - 1);
            if (!t.closing) {
                if (nv == cap)
                    v = vec_grow(v, &cap, 16, sizeof *v);
                if (cb < cap)
                    below = xrealloc(below, (cb = cap) * sizeof *below);
                v[nv] = (md_sc_pair){ i, t.len, (size_t)-1, 0, t.name, t.name_len };
                below[nv] = top[slot];
                top[slot] = nv++;
            } else {
                /* the nearest open tag of this name (others share the slot) */
                size_t *link = &top[slot];
                while (*link != (size_t)-1) {
                    md_sc_pair *o = &v[*link];
                    if (o->name_len == t.name_len && !memcmp(o->name, t.name, t.name_len)) {
                        o->close = i;
                        o->close_len = t.len;
                        *link = below[*link];
                        break;
                    }
                    link = &below[*link];
                }
            }
            if (nv > ntop / 2) { /* keep slots mostly one name each: rehash */
                size_t nn = ntop * 4, *nt = xmalloc(nn * sizeof *nt);
                for (size_t k = 0; k < nn; k++)
                    nt[k] = (size_t)-1;
                /* relink the open ones in order, oldest first */
                for (size_t k = 0; k < nv; k++) {
                    if (v[k].close != (size_t)-1)
                        continue;
                    size_t sl = (size_t)hash_bytes(v[k].name, v[k].name_len) & (nn - 1);
                    below[k] = nt[sl];
                    nt[sl] = k;
                }
                free(top);
                top = nt;
                ntop = nn;
            }
        }
        i += t.len - 1;
    }
    free(top);
    free(below);
    *out = v;
    return nv;
}
