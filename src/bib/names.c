/* bib/names.c: name lists split as BibTeX splits them (see bib.h).
 *
 * A list is split at ` and ` (any case, outside braces). A name is cut
 * into tokens at white space, `-` and `~` outside braces (a `{…}` group is
 * part of one token) and at up to two commas (more act as spaces). Then,
 * as BibTeX's x_format_name does it:
 *
 *   no comma      First von Last: von runs from the first lower-case token
 *                 to the last lower-case one before the last token; with
 *                 no von, Last is the last token (with those joined to it
 *                 by `-`) and First what comes before.
 *   one comma     von Last, First: von is the tokens before the comma up
 *                 to the last lower-case one, not the last token.
 *   two commas    von Last, Jr, First.
 *
 * A token is lower case when its first letter outside braces is: a `{\…}`
 * group at its start is a special character, whose letter counts (`{\"u}`
 * lower, `{\O}` upper, `{\ss}` lower); another `{…}` group counts as no
 * letter. A letter is any cased Unicode letter (`Émile` is upper case). */
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "bib/bib.h"
#include "util/buf.h"
#include "util/xalloc.h"

typedef struct token {
    size_t start, end;
    char sep; /* the separator before it: ' ', '-', '~' (0 for the first) */
} token;

/* 1: a lower-case letter at s[*i], 0: upper case, -1: no cased letter;
 * moves *i past the character. */
static int letter_case(const char *s, size_t n, size_t *i)
{
    unsigned char c = (unsigned char)s[*i];
    if (c < 0x80) {
        (*i)++;
        return c >= 'a' && c <= 'z' ? 1 : c >= 'A' && c <= 'Z' ? 0 : -1;
    }
    utf8proc_int32_t cp;
    utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + *i, (utf8proc_ssize_t)(n - *i), &cp);
    if (k <= 0) {
        (*i)++;
        return -1;
    }
    *i += (size_t)k;
    utf8proc_category_t cat = utf8proc_category(cp);
    return cat == UTF8PROC_CATEGORY_LL ? 1 : cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LT ? 0 : -1;
}

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* BibTeX's von_token_found, over s[start, end). */
static bool von_token(const char *s, size_t start, size_t end)
{
    size_t i = start;
    while (i < end) {
        if (s[i] != '{') {
            int lc = letter_case(s, end, &i);
            if (lc >= 0)
                return lc == 1;
            continue;
        }
        int depth = 1;
        i++;
        if (i + 1 < end && s[i] == '\\') { /* a special character: {\"u}, {\ss}, {\v{S}} */
            i++;
            size_t cs = i;
            while (i < end && is_alpha(s[i]))
                i++;
            size_t len = i - cs;
            static const char *const upper[] = { "OE", "AE", "AA", "O", "L" };
            static const char *const lower_cs[] = { "i", "j", "oe", "ae", "aa", "o", "l", "ss" };
            for (size_t k = 0; k < sizeof upper / sizeof *upper; k++)
                if (strlen(upper[k]) == len && !memcmp(upper[k], s + cs, len))
                    return false;
            for (size_t k = 0; k < sizeof lower_cs / sizeof *lower_cs; k++)
                if (strlen(lower_cs[k]) == len && !memcmp(lower_cs[k], s + cs, len))
                    return true;
            while (i < end && depth > 0) {
                if (s[i] == '{') {
                    depth++;
                    i++;
                } else if (s[i] == '}') {
                    depth--;
                    i++;
                } else {
                    int lc = letter_case(s, end, &i);
                    if (lc >= 0)
                        return lc == 1;
                }
            }
            return false;
        }
        while (i < end && depth > 0) { /* a group: no letter of the token's */
            if (s[i] == '{')
                depth++;
            else if (s[i] == '}')
                depth--;
            i++;
        }
    }
    return false;
}

/* The tokens [from, to) joined by their separators, as text. */
static const char *part(arena *a, const char *s, const token *t, size_t from, size_t to)
{
    if (from >= to)
        return "";
    buf b = BUF_INIT;
    for (size_t k = from; k < to; k++) {
        if (k > from)
            buf_putc(&b, t[k].sep == '-' || t[k].sep == '~' ? t[k].sep : ' ');
        buf_put(&b, s + t[k].start, t[k].end - t[k].start);
    }
    const char *r = bib_tex_to_text(a, b.data ? b.data : "", b.len);
    buf_release(&b);
    return r;
}

/* One name, s[0, n): its four parts; false when it has none. */
static bool split_name(arena *a, const char *s, size_t n, token *t, bib_name *x)
{
    size_t nt = 0, commas[2], ncommas = 0;
    int depth = 0;
    bool starting = true;
    char sep = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (depth == 0 && (c == ' ' || c == '-' || c == '~' || c == ',')) {
            if (c == ',') {
                if (ncommas < 2)
                    commas[ncommas++] = nt;
                c = ' '; /* a third comma is a space */
            }
            if (!starting)
                sep = c; /* the first separator after a token is kept */
            starting = true;
            continue;
        }
        if (starting) {
            t[nt].start = i;
            t[nt].sep = sep ? sep : ' ';
            nt++;
            starting = false;
            sep = 0;
        }
        if (c == '{')
            depth++;
        else if (c == '}')
            depth--;
        t[nt - 1].end = i + 1;
    }
    if (!nt)
        return false;
    size_t first_s, first_e, von_s, von_e, last_e, jr_s = 0, jr_e = 0;
    if (ncommas == 0) {
        last_e = nt;
        first_s = 0;
        for (von_s = 0; von_s + 1 < last_e; von_s++)
            if (von_token(s, t[von_s].start, t[von_s].end))
                break;
        if (von_s + 1 < last_e) {
            for (von_e = last_e - 1; von_e > von_s; von_e--)
                if (von_token(s, t[von_e - 1].start, t[von_e - 1].end))
                    break;
        } else {
            von_s = last_e - 1; /* no von: Last is the last token, and those '-' joins to it */
            while (von_s > 0 && t[von_s].sep == '-')
                von_s--;
            von_e = von_s;
        }
        first_e = von_s;
    } else {
        von_s = 0;
        last_e = commas[0];
        if (ncommas == 2) {
            jr_s = commas[0];
            jr_e = commas[1];
        }
        first_s = ncommas == 2 ? commas[1] : commas[0];
        first_e = nt;
        von_e = last_e ? last_e - 1 : 0;
        while (von_e > von_s && !von_token(s, t[von_e - 1].start, t[von_e - 1].end))
            von_e--;
    }
    x->given = part(a, s, t, first_s, first_e);
    x->von = part(a, s, t, von_s, von_e);
    x->family = part(a, s, t, von_e, last_e);
    x->jr = part(a, s, t, jr_s, jr_e);
    if (!*x->family && !*x->von) { /* ", Foo": the one part is the family */
        x->family = x->given;
        x->given = "";
    }
    if (!*x->family && !*x->jr)
        return false;
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
    return true;
}

static bool is_and(const char *s, size_t n, size_t i)
{
    return i + 5 <= n && s[i] == ' ' && (s[i + 1] | 0x20) == 'a' && (s[i + 2] | 0x20) == 'n' &&
           (s[i + 3] | 0x20) == 'd' && s[i + 4] == ' ';
}

bib_name *bib_split_names(arena *a, const char *tex, size_t *count)
{
    /* white space as in a value: runs are one space, none at the ends */
    size_t len = strlen(tex);
    char *s = xmalloc(len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char c = tex[i];
        bool ws = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
        if (ws && (n == 0 || s[n - 1] == ' '))
            continue;
        s[n++] = ws ? ' ' : c;
    }
    while (n && s[n - 1] == ' ')
        n--;
    s[n] = 0;
    size_t names = 1;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        depth += s[i] == '{' ? 1 : s[i] == '}' ? -1 : 0;
        if (depth == 0 && is_and(s, n, i))
            names++;
    }
    bib_name *v = arena_calloc(a, names * sizeof *v);
    token *t = xmalloc((n + 1) * sizeof *t);
    *count = 0;
    size_t from = 0;
    depth = 0;
    for (size_t i = 0; i <= n; i++) {
        bool end = i == n;
        if (!end) {
            depth += s[i] == '{' ? 1 : s[i] == '}' ? -1 : 0;
            end = depth == 0 && is_and(s, n, i);
        }
        if (!end)
            continue;
        if (i > from && split_name(a, s + from, i - from, t, &v[*count]))
            (*count)++;
        from = i + 5;
        if (i < n)
            i += 3; /* to the space after "and": it may start another " and " */
    }
    free(t);
    free(s);
    return v;
}
