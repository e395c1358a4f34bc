/* nb: a Jupyter notebook → the source of a Markdown page (nb.h says what
 * the text holds).
 *
 * The reader is a small pull parser over the file's bytes: it walks the
 * JSON without building a tree, decodes only the strings the page needs
 * (cell sources, output text, the one representation chosen for each
 * output) and skips the rest, checking its syntax all the same (RFC 8259:
 * a syntax error anywhere in the file is an error at its line:col). It
 * never recurses: a value it skips is matched with a bounded stack of
 * brackets, and the notebook's own shape (cells, outputs, bundles) is at
 * most four levels deep. Keys may come in any order, so the place of the
 * parts read later (the top level's `cells` after its `metadata`, a cell's
 * `outputs` after its `source`) is remembered and read from there.
 *
 * Representations of an output, as nbconvert's HTML exporter chooses
 * them (its display_data_priority), so a page shows what `jupyter
 * nbconvert --to html` shows: text/html (only with markdown.unsafe),
 * text/markdown, image/svg+xml, text/latex, image/png, image/jpeg,
 * text/plain, then application/json (which nbconvert never shows; every
 * kernel gives text/plain beside it, so it is seen only without one). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "nb/nb.h"
#include "img/img.h"
#include "util/hash.h"
#include "util/vec.h"
#include "util/xalloc.h"

#define MAX_DEPTH 512

/* ---- the JSON reader ------------------------------------------------------ */

typedef struct rd {
    const char *s, *p, *end;
    const char *path;
    diag_list *d;
    bool failed;
    const char *at; /* where() counted up to here: at_line:at_col */
    int at_line, at_col;
    /* nb_options.drop: what is behind `mark` was given back */
    void (*drop)(void *ctx, size_t off, size_t n);
    void *drop_ctx;
    const char *mark;
} rd;

/* Gives back what the reader has gone past, every NB_DROP_EVERY bytes.
 * After a jump back (to a place remembered for later) it starts again
 * from there: a page read again is given back again. */
static void behind(rd *r)
{
    if (!r->drop)
        return;
    if (r->p < r->mark) {
        r->mark = r->p;
    } else if ((size_t)(r->p - r->mark) >= NB_DROP_EVERY) {
        r->drop(r->drop_ctx, (size_t)(r->mark - r->s), (size_t)(r->p - r->mark));
        r->mark = r->p;
    }
}

/* 1-based line and column of q, counting characters (as fm/json.c does). */
static void where(rd *r, const char *q, int *line, int *col)
{
    if (q > r->end)
        q = r->end;
    if (q < r->at) {
        r->at = r->s;
        r->at_line = 1;
        r->at_col = 1;
    }
    for (const char *x = r->at; x < q; x++) {
        if (*x == '\n') {
            r->at_line++;
            r->at_col = 1;
        } else if (((unsigned char)*x & 0xC0) != 0x80 && *x != '\r') {
            r->at_col++;
        }
    }
    r->at = q;
    *line = r->at_line;
    *col = r->at_col;
}

static bool fail(rd *r, const char *q, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(rd *r, const char *q, const char *fmt, ...)
{
    if (r->failed)
        return false;
    r->failed = true;
    int line, col;
    where(r, q, &line, &col);
    va_list ap;
    va_start(ap, fmt);
    diag_vadd(r->d, DIAG_ERROR, r->path, line, col, fmt, ap);
    va_end(ap);
    return false;
}

static void ws(rd *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static int peek(rd *r)
{
    ws(r);
    return r->p < r->end ? (unsigned char)*r->p : -1;
}

static const char *describe(rd *r)
{
    return r->p >= r->end ? "the end of the file" : NULL;
}

static bool unexpected(rd *r, const char *wanted)
{
    const char *what = describe(r);
    if (what)
        return fail(r, r->p, "JSON: expected %s, found %s", wanted, what);
    return fail(r, r->p, "JSON: expected %s, found '%c'", wanted, *r->p);
}

static void put_utf8(buf *b, uint32_t c)
{
    if (c < 0x80) {
        buf_putc(b, (int)c);
    } else if (c < 0x800) {
        buf_putc(b, (int)(0xC0 | c >> 6));
        buf_putc(b, (int)(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        buf_putc(b, (int)(0xE0 | c >> 12));
        buf_putc(b, (int)(0x80 | (c >> 6 & 0x3F)));
        buf_putc(b, (int)(0x80 | (c & 0x3F)));
    } else {
        buf_putc(b, (int)(0xF0 | c >> 18));
        buf_putc(b, (int)(0x80 | (c >> 12 & 0x3F)));
        buf_putc(b, (int)(0x80 | (c >> 6 & 0x3F)));
        buf_putc(b, (int)(0x80 | (c & 0x3F)));
    }
}

static int hex4(const char *q, const char *end)
{
    if (end - q < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = q[i];
        int h = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* A string at r->p: decoded and appended to out (NULL: only checked).
 * A lone surrogate becomes U+FFFD (Python's json writes them). */
static bool string(rd *r, buf *out)
{
    if (peek(r) != '"')
        return unexpected(r, "a string");
    r->p++;
    for (;;) {
        const char *run = r->p;
        /* a piece at a time, so that a long string (an image's base64) is
         * given back as it is read */
        const char *lim = (size_t)(r->end - r->p) > NB_DROP_EVERY ? r->p + NB_DROP_EVERY : r->end;
        while (r->p < lim && *r->p != '"' && *r->p != '\\' && (unsigned char)*r->p >= 0x20)
            r->p++;
        if (out)
            buf_put(out, run, (size_t)(r->p - run));
        if (r->p == lim && lim < r->end) {
            behind(r);
            continue;
        }
        if (r->p >= r->end)
            return fail(r, r->p, "JSON: a string is not closed before the end of the file");
        char c = *r->p;
        if (c == '"') {
            r->p++;
            return true;
        }
        if (c != '\\')
            return fail(r, r->p, "JSON: a control character (0x%02x) in a string: write it as \\u%04x",
                        (unsigned)c, (unsigned)c);
        const char *esc = r->p++;
        if (r->p >= r->end)
            return fail(r, esc, "JSON: a string is not closed before the end of the file");
        char e = *r->p++;
        uint32_t u;
        switch (e) {
        case '"': case '\\': case '/': u = (uint32_t)e; break;
        case 'b': u = '\b'; break;
        case 'f': u = '\f'; break;
        case 'n': u = '\n'; break;
        case 'r': u = '\r'; break;
        case 't': u = '\t'; break;
        case 'u': {
            int h = hex4(r->p, r->end);
            if (h < 0)
                return fail(r, esc, "JSON: \\u takes four hexadecimal digits");
            r->p += 4;
            u = (uint32_t)h;
            if (u >= 0xD800 && u < 0xDC00 && r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u') {
                int lo = hex4(r->p + 2, r->end);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    u = 0x10000 + ((u - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
                    r->p += 6;
                }
            }
            if (u >= 0xD800 && u < 0xE000)
                u = 0xFFFD;
            break;
        }
        default:
            return fail(r, esc, "JSON: unknown escape '\\%c' in a string", e);
        }
        if (out)
            put_utf8(out, u);
    }
}

/* A number at r->p, in RFC 8259's grammar; *v its value (may be NULL). */
static bool number(rd *r, double *v)
{
    ws(r);
    const char *q = r->p;
    if (q < r->end && *q == '-')
        q++;
    if (q >= r->end || *q < '0' || *q > '9')
        return unexpected(r, "a value");
    if (*q == '0' && q + 1 < r->end && q[1] >= '0' && q[1] <= '9')
        return fail(r, r->p, "JSON: a number has no leading zeros");
    while (q < r->end && *q >= '0' && *q <= '9')
        q++;
    if (q < r->end && *q == '.') {
        q++;
        if (q >= r->end || *q < '0' || *q > '9')
            return fail(r, q, "JSON: a digit must follow the decimal point");
        while (q < r->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < r->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < r->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= r->end || *q < '0' || *q > '9')
            return fail(r, q, "JSON: an exponent needs digits");
        while (q < r->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (v) {
        char tmp[64];
        size_t n = (size_t)(q - r->p);
        if (n >= sizeof tmp)
            n = sizeof tmp - 1;
        memcpy(tmp, r->p, n);
        tmp[n] = 0;
        *v = strtod(tmp, NULL);
    }
    r->p = q;
    return true;
}

static bool literal(rd *r)
{
    static const char *const words[] = { "true", "false", "null" };
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if ((size_t)(r->end - r->p) >= n && !memcmp(r->p, words[i], n)) {
            r->p += n;
            return true;
        }
    }
    return unexpected(r, "a value");
}

/* Skips one value of any kind, checking its syntax, without recursion. */
static bool skip(rd *r)
{
    char stack[MAX_DEPTH];
    int depth = 0;
    for (;;) {
        behind(r);
        int c = peek(r);
        /* a value */
        if (c == '{' || c == '[') {
            if (depth == MAX_DEPTH)
                return fail(r, r->p, "JSON: nested more than %d deep", MAX_DEPTH);
            stack[depth++] = (char)c;
            r->p++;
            int n = peek(r);
            if ((c == '{' && n == '}') || (c == '[' && n == ']')) {
                r->p++;
                depth--;
            } else if (c == '{') {
                if (!string(r, NULL))
                    return false;
                if (peek(r) != ':')
                    return unexpected(r, "':' after a key");
                r->p++;
                continue;
            } else {
                continue;
            }
        } else if (c == '"') {
            if (!string(r, NULL))
                return false;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            if (!number(r, NULL))
                return false;
        } else if (c == 't' || c == 'f' || c == 'n') {
            if (!literal(r))
                return false;
        } else {
            return unexpected(r, "a value");
        }
        /* after a value: close containers or go on to the next item */
        for (;;) {
            if (!depth)
                return true;
            int k = peek(r);
            char open = stack[depth - 1];
            if (k == ',') {
                r->p++;
                if (open == '{') {
                    if (!string(r, NULL))
                        return false;
                    if (peek(r) != ':')
                        return unexpected(r, "':' after a key");
                    r->p++;
                }
                break;
            }
            if ((open == '{' && k == '}') || (open == '[' && k == ']')) {
                r->p++;
                depth--;
                continue;
            }
            return unexpected(r, open == '{' ? "',' or '}'" : "',' or ']'");
        }
    }
}

/* Objects and arrays the converter walks: begin, then next until it
 * returns 0 (the end) or -1 (an error). next leaves r->p at the item's
 * value, with the key (objects) in *key. */
static bool obj_begin(rd *r)
{
    if (peek(r) != '{')
        return unexpected(r, "an object");
    r->p++;
    return true;
}

static int obj_next(rd *r, bool *first, buf *key)
{
    int c = peek(r);
    if (c == '}') {
        r->p++;
        return 0;
    }
    if (!*first) {
        if (c != ',')
            return unexpected(r, "',' or '}'"), -1;
        r->p++;
    }
    *first = false;
    buf_reset(key);
    if (!string(r, key))
        return -1;
    if (peek(r) != ':')
        return unexpected(r, "':' after a key"), -1;
    r->p++;
    return 1;
}

static bool arr_begin(rd *r)
{
    if (peek(r) != '[')
        return unexpected(r, "an array");
    r->p++;
    return true;
}

static int arr_next(rd *r, bool *first)
{
    int c = peek(r);
    if (c == ']') {
        r->p++;
        return 0;
    }
    if (!*first) {
        if (c != ',')
            return unexpected(r, "',' or ']'"), -1;
        r->p++;
    }
    *first = false;
    ws(r);
    return 1;
}

/* nbformat's "multiline string": a string, or an array of strings joined. */
static bool text(rd *r, buf *out)
{
    if (peek(r) == '"')
        return string(r, out);
    if (peek(r) != '[')
        return unexpected(r, "a string or an array of strings");
    r->p++;
    bool first = true;
    int k;
    while ((k = arr_next(r, &first)) > 0)
        if (!string(r, out))
            return false;
    return k == 0;
}

/* A string, or null (out untouched); anything else is skipped. */
static bool opt_string(rd *r, buf *out)
{
    int c = peek(r);
    if (c == '"')
        return string(r, out);
    return skip(r);
}

/* ---- helpers ---------------------------------------------------------- */

/* Base64, a character at a time (RFC 4648, either alphabet, white space
 * ignored, padding optional): 1 when c completed a byte (*out), 0 when
 * not (or c was skipped), -1 when c is not base64 there. */
typedef struct b64 {
    uint32_t acc;
    int bits;
    bool pad;
} b64;

static int b64_char(b64 *st, unsigned c, unsigned char *out)
{
    int v;
    if (c >= 'A' && c <= 'Z')
        v = (int)c - 'A';
    else if (c >= 'a' && c <= 'z')
        v = (int)c - 'a' + 26;
    else if (c >= '0' && c <= '9')
        v = (int)c - '0' + 52;
    else if (c == '+' || c == '-')
        v = 62;
    else if (c == '/' || c == '_')
        v = 63;
    else if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
        return 0;
    else if (c == '=') {
        st->pad = true;
        return 0;
    } else {
        return -1;
    }
    if (st->pad) /* data after padding */
        return -1;
    st->acc = st->acc << 6 | (uint32_t)v;
    st->bits += 6;
    if (st->bits < 8)
        return 0;
    st->bits -= 8;
    *out = (unsigned char)(st->acc >> st->bits & 0xFF);
    return 1;
}

bool nb_base64_decode(const char *s, size_t n, buf *out, size_t *bad)
{
    b64 st = { 0, 0, false };
    for (size_t i = 0; i < n; i++) {
        unsigned char byte;
        int k = b64_char(&st, (unsigned char)s[i], &byte);
        if (k < 0) {
            *bad = i;
            return false;
        }
        if (k)
            buf_putc(out, byte);
    }
    return true;
}

/* A file's JSON value (a string, or an array of strings, already checked
 * by skip) decoded a piece at a time: its text as bytes (SVG), or the
 * bytes its base64 text stands for. The same code reads it from the
 * notebook in memory (nb_convert: its length, hash and header) and from
 * the file (nb_file_decode_fd, when it is written). */
typedef struct dec {
    bool base64;
    unsigned char js; /* 0: between strings, 1: in one, 2: after '\\', 3-6: in \uXXXX */
    uint32_t u, hi;   /* the \u's value; a high surrogate waiting for its low one */
    b64 b;
    size_t raw, text; /* bytes of the value read; characters of its text */
    int bad;          /* -1; the character that is not base64 ('?': not ASCII); -2: not a string */
    size_t bad_at;    /* bad >= 0: its offset in the text; -2: in the value */
} dec;

static int hexval(unsigned char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 0;
}

/* A character of the text (cp: a code point of a \u escape, else a
 * byte): as it is, or through base64. */
static bool dec_char(dec *d, uint32_t t, bool cp, buf *out)
{
    if (!d->base64) {
        if (cp)
            put_utf8(out, t);
        else
            buf_putc(out, (int)t);
        d->text++;
        return true;
    }
    unsigned char byte;
    int k = t < 0x80 ? b64_char(&d->b, t, &byte) : -1;
    if (k < 0) {
        d->bad = t >= 0x20 && t < 0x7f ? (int)t : '?';
        d->bad_at = d->text;
        return false;
    }
    if (k)
        buf_putc(out, byte);
    d->text++;
    return true;
}

/* A lone high surrogate becomes U+FFFD, as string() makes it. */
static bool dec_lone(dec *d, buf *out)
{
    if (!d->hi)
        return true;
    d->hi = 0;
    return dec_char(d, 0xFFFD, true, out);
}

/* The value of a base64 digit (either alphabet); -1 for anything else
 * (white space and '=' included: b64_char has those). */
static const signed char b64_digit[256] = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 62, -1, 62, -1, 63,
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, -1, -1, -1, -1, -1, -1,
    -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1, -1, -1, -1, 63,
    -1, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
    41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
};

/* Feeds n more bytes of the value; the bytes they make go to out. False
 * at the first character that is not base64, or not in a string. */
static bool dec_feed(dec *d, const char *s, size_t n, buf *out)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        uint32_t t;
        switch (d->js) {
        case 0:
            if (ch == '"')
                d->js = 1;
            else if (!(ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '[' || ch == ',' || ch == ']')) {
                d->bad = -2;
                d->bad_at = d->raw + i;
                return false;
            }
            continue;
        case 1:
            if (d->base64 && !d->b.pad && b64_digit[ch] >= 0) {
                /* the run of digits, as most of the text is: in a loop of
                 * its own, straight into out */
                buf_grow(out, (n - i) / 4 * 3 + 3);
                unsigned char *o = (unsigned char *)out->data + out->len;
                uint32_t acc = d->b.acc;
                int bits = d->b.bits;
                size_t j = i;
                for (int v; j < n && (v = b64_digit[(unsigned char)s[j]]) >= 0; j++) {
                    acc = acc << 6 | (uint32_t)v;
                    bits += 6;
                    if (bits >= 8) {
                        bits -= 8;
                        *o++ = (unsigned char)(acc >> bits);
                    }
                }
                d->b.acc = acc;
                d->b.bits = bits;
                out->len = (size_t)((char *)o - out->data); /* as fs_read_head fills a buf */
                out->data[out->len] = 0;
                d->text += j - i;
                i = j - 1;
                continue;
            }
            if (ch == '"' || ch == '\\') {
                d->js = ch == '"' ? 0 : 2;
                if (ch == '"' && !dec_lone(d, out))
                    return false;
                continue;
            }
            t = ch;
            break;
        case 2:
            if (ch == 'u') {
                d->js = 3;
                d->u = 0;
                continue;
            }
            d->js = 1;
            t = ch == 'n' ? '\n' : ch == 'r' ? '\r' : ch == 't' ? '\t' : ch == 'b' ? '\b' : ch == 'f' ? '\f' : ch;
            break;
        default:
            d->u = d->u << 4 | (uint32_t)hexval(ch);
            if (++d->js < 7)
                continue;
            d->js = 1;
            t = d->u;
            if (d->hi && t >= 0xDC00 && t < 0xE000) { /* a pair */
                t = 0x10000 + ((d->hi - 0xD800) << 10) + (t - 0xDC00);
                d->hi = 0;
            } else {
                if (!dec_lone(d, out))
                    return false;
                if (t >= 0xD800 && t < 0xDC00) {
                    d->hi = t;
                    continue;
                }
                if (t >= 0xDC00 && t < 0xE000)
                    t = 0xFFFD;
            }
            if (!dec_char(d, t, true, out))
                return false;
            continue;
        }
        if (!dec_lone(d, out) || !dec_char(d, t, false, out))
            return false;
        if (!d->base64) { /* a run of plain bytes at once */
            size_t j = i + 1;
            while (j < n && s[j] != '"' && s[j] != '\\')
                j++;
            buf_put(out, s + i + 1, j - i - 1);
            d->text += j - i - 1;
            i = j - 1;
        }
    }
    d->raw += n;
    return true;
}

/* Decodes file f's value, got a piece at a time from `get` (a pointer to
 * NB_PIECE bytes or fewer at offset off, scratch its room; NULL: cannot
 * read), each piece of bytes to put. */
static int decode_file(const nb_file *f, const char *(*get)(void *g, size_t off, size_t n, char *scratch), void *g,
                       nb_put_fn put, void *ctx)
{
    dec d = { .base64 = f->base64, .bad = -1 };
    buf out = BUF_INIT;
    char *scratch = xmalloc(NB_PIECE);
    size_t len = 0;
    uint64_t h = HASH_SEED;
    int st = NB_DECODED;
    for (size_t at = 0; at < f->vlen && st == NB_DECODED;) {
        size_t n = f->vlen - at < NB_PIECE ? f->vlen - at : NB_PIECE;
        const char *p = get(g, f->off + at, n, scratch);
        if (!p) {
            st = NB_UNREADABLE;
            break;
        }
        buf_reset(&out);
        if (!dec_feed(&d, p, n, &out)) {
            st = NB_CHANGED;
            break;
        }
        len += out.len;
        h = hash_add(h, out.data, out.len);
        if (len > f->len)
            st = NB_CHANGED;
        else if (out.len && !put(ctx, out.data, out.len))
            st = NB_STOPPED;
        at += n;
    }
    if (st == NB_DECODED && (len != f->len || h != f->hash || d.js))
        st = NB_CHANGED;
    buf_release(&out);
    free(scratch);
    return st;
}

static const char *get_mem(void *g, size_t off, size_t n, char *scratch)
{
    (void)scratch;
    const str *json = g;
    return off + n <= json->len ? json->ptr + off : NULL;
}

int nb_file_decode(str json, const nb_file *f, nb_put_fn put, void *ctx)
{
    return decode_file(f, get_mem, &json, put, ctx);
}

static const char *get_fd(void *g, size_t off, size_t n, char *scratch)
{
    int fd = *(int *)g;
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, scratch + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (!k)
                errno = EIO; /* shorter than when it was read */
            return NULL;
        }
        got += (size_t)k;
    }
    return scratch;
}

int nb_file_decode_fd(int fd, const nb_file *f, nb_put_fn put, void *ctx)
{
    return decode_file(f, get_fd, &fd, put, ctx);
}

static void esc(buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        switch (c) {
        case '&': buf_puts(b, "&amp;"); break;
        case '<': buf_puts(b, "&lt;"); break;
        case '>': buf_puts(b, "&gt;"); break;
        case '"': buf_puts(b, "&quot;"); break;
        /* one line of HTML: a blank line would end the raw HTML block */
        case '\n': buf_puts(b, "&#10;"); break;
        case '\r': break;
        default: buf_putc(b, c);
        }
    }
}

/* Terminal text (a stream, a traceback) as HTML on one line: ANSI SGR
 * colour codes become <span class="ansi-…">, other escape sequences are
 * dropped. */
static void ansi_html(buf *b, const char *s, size_t n)
{
    static const char *const names[8] = { "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white" };
    int fg = -1, bg = -1;
    bool bold = false, open = false;
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != 0x1B)
            j++;
        if (j > i) {
            if (!open && (fg >= 0 || bg >= 0 || bold)) {
                buf_puts(b, "<span class=\"");
                const char *sep = "";
                if (fg >= 0)
                    buf_printf(b, "ansi-%s%s-fg", fg >= 8 ? "bright-" : "", names[fg & 7]), sep = " ";
                if (bg >= 0)
                    buf_printf(b, "%sansi-%s%s-bg", sep, bg >= 8 ? "bright-" : "", names[bg & 7]), sep = " ";
                if (bold)
                    buf_printf(b, "%sansi-bold", sep);
                buf_puts(b, "\">");
                open = true;
            }
            esc(b, s + i, j - i);
        }
        if (j >= n)
            break;
        /* ESC [ params final */
        i = j + 1;
        if (i < n && s[i] == '[') {
            i++;
            size_t ps = i;
            while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == ';'))
                i++;
            char final = i < n ? s[i] : 0;
            size_t pe = i;
            if (i < n)
                i++;
            if (final != 'm')
                continue;
            if (open) {
                buf_puts(b, "</span>");
                open = false;
            }
            /* parameters, ";"-separated; empty means 0 */
            size_t q = ps;
            int codes[16], nc = 0;
            while (q <= pe && nc < 16) {
                int v = 0;
                while (q < pe && s[q] != ';') {
                    if (v < 100000)
                        v = v * 10 + (s[q] - '0');
                    q++;
                }
                codes[nc++] = v;
                q++;
            }
            for (int k = 0; k < nc; k++) {
                int v = codes[k];
                if (v == 0)
                    fg = bg = -1, bold = false;
                else if (v == 1)
                    bold = true;
                else if (v == 22)
                    bold = false;
                else if (v >= 30 && v <= 37)
                    fg = v - 30;
                else if (v == 39)
                    fg = -1;
                else if (v >= 40 && v <= 47)
                    bg = v - 40;
                else if (v == 49)
                    bg = -1;
                else if (v >= 90 && v <= 97)
                    fg = v - 90 + 8;
                else if (v >= 100 && v <= 107)
                    bg = v - 100 + 8;
                else if ((v == 38 || v == 48) && k + 1 < nc)
                    k += codes[k + 1] == 5 ? 2 : codes[k + 1] == 2 ? 4 : 1; /* 256 / RGB: not kept */
            }
        } else if (i < n) {
            i++; /* a two-byte escape */
        }
    }
    if (open)
        buf_puts(b, "</span>");
}

/* ---- the converter ------------------------------------------------------ */

typedef struct part {
    buf text;
    nb_place *lines;
    unsigned char *trusted;
    size_t n, cap, tcap;
} part;

typedef struct conv {
    rd r;
    arena *a;
    const nb_options *opt;
    part head, body;
    nb_file *files;
    size_t nfiles, capfiles;
    buf key, tmp, tmp2;
    /* problems of a cell, kept until the JSON is known good; line: of the body */
    struct later { diag_level level; int line; char *msg; } *later;
    size_t nlater, caplater;
    const char *language;
    int exec_count;
    /* the types of outputs sheaf does not show that were warned about (once
     * each in a notebook; at most NB_WARN_TYPES of them) */
    char *warned[16];
    size_t nwarned;
} conv;

/* Appends s (whole lines) to part p: a source's lines are (cell, line,
 * line + 1, …) when line > 0, else (cell, 0). */
static void emit(part *p, const char *s, size_t n, int cell, int line, bool trusted)
{
    if (!n)
        s = "\n", n = 1;
    buf_put(&p->text, s, n);
    if (n && s[n - 1] != '\n')
        buf_putc(&p->text, '\n');
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\n' && i + 1 < n)
            continue;
        size_t tc = p->cap;
        VEC_PUSH(p->lines, p->n, p->cap, 64, ((nb_place){ cell, line }));
        if (p->cap != tc)
            p->trusted = xrealloc(p->trusted, p->cap);
        p->trusted[p->n - 1] = trusted;
        if (line)
            line++;
    }
}

static void emit_s(part *p, const char *s, int cell, bool trusted) { emit(p, s, strlen(s), cell, 0, trusted); }

/* The line of the body the next emit starts (for messages about a cell;
 * the head's lines are added once it is known). */
static int body_line(conv *c) { return (int)(c->body.n + 1); }

static void cell_problem(conv *c, diag_level level, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void cell_problem(conv *c, diag_level level, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf m = BUF_INIT;
    buf_vprintf(&m, fmt, ap);
    va_end(ap);
    VEC_PUSH(c->later, c->nlater, c->caplater, 8, ((struct later){ level, line, buf_detach(&m, NULL) }));
}

typedef struct cell {
    int no;                 /* 1-based */
    char type;              /* 'm', 'c', 'r', or 0 */
    buf source;
    bool remove_cell, remove_input, remove_output, hide_input;
    int exec;               /* -1: none */
    const char *outputs, *attachments; /* where they are in the file */
} cell;

/* The cell's metadata: its tags. */
static bool cell_meta(conv *c, cell *ce)
{
    rd *r = &c->r;
    if (!obj_begin(r))
        return false;
    bool first = true;
    int k;
    while ((k = obj_next(r, &first, &c->key)) > 0) {
        if (!strcmp(c->key.data, "tags") && peek(r) == '[') {
            r->p++;
            bool f2 = true;
            int k2;
            while ((k2 = arr_next(r, &f2)) > 0) {
                buf_reset(&c->tmp);
                if (!opt_string(r, &c->tmp))
                    return false;
                const char *t = c->tmp.data;
                if (!strcmp(t, "remove-cell") || !strcmp(t, "remove_cell"))
                    ce->remove_cell = true;
                else if (!strcmp(t, "remove-input") || !strcmp(t, "remove_input"))
                    ce->remove_input = true;
                else if (!strcmp(t, "remove-output") || !strcmp(t, "remove_output"))
                    ce->remove_output = true;
                else if (!strcmp(t, "hide-input") || !strcmp(t, "hide_input"))
                    ce->hide_input = true;
            }
            if (k2 < 0)
                return false;
        } else if (!skip(r)) {
            return false;
        }
    }
    return k == 0;
}

/* A name for a file beside the page: letters, digits, '.', '_', '-'. */
static void safe_name(buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                  ch == '_' || ch == '-';
        buf_putc(b, ok && !(ch == '.' && i == 0) ? ch : '-');
    }
}

static const char *file_ext(const char *mime)
{
    if (!strcmp(mime, "image/png"))
        return "png";
    if (!strcmp(mime, "image/jpeg"))
        return "jpg";
    if (!strcmp(mime, "image/gif"))
        return "gif";
    if (!strcmp(mime, "image/svg+xml"))
        return "svg";
    return NULL;
}

/* Whether s starts (after white space and a byte-order mark) with '<', as
 * SVG text does: base64 never holds a '<', so the two cannot be confused. */
static bool svg_text(const char *s, size_t n)
{
    size_t i = 0;
    if (n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3))
        i = 3;
    while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
        i++;
    return i < n && s[i] == '<';
}

/* The head of a file kept while it is read for its length and hash: what
 * its format and size are read from (and a JPEG whose frame header is
 * further, up to NB_HEAD_MAX). */
#define NB_HEAD (64 * 1024)
#define NB_HEAD_MAX (16 * 1024 * 1024)

/* Reads file f's value (v, f->vlen bytes) through dec_feed a piece at a
 * time: its length and hash into f, its first `head` bytes into c->tmp2;
 * nothing else is kept. False at a character that is not base64 (*d
 * says which) or not in a string. */
static bool scan_file(conv *c, const char *v, nb_file *f, size_t head, dec *d)
{
    *d = (dec){ .base64 = f->base64, .bad = -1 };
    buf_reset(&c->tmp2);
    f->len = 0;
    f->hash = HASH_SEED;
    for (size_t at = 0; at < f->vlen; at += NB_PIECE) {
        size_t n = f->vlen - at < NB_PIECE ? f->vlen - at : NB_PIECE;
        buf_reset(&c->tmp);
        if (!dec_feed(d, v + at, n, &c->tmp))
            return false;
        f->len += c->tmp.len;
        f->hash = hash_add(f->hash, c->tmp.data, c->tmp.len);
        if (c->r.drop && n == NB_PIECE && (at + n) % NB_DROP_EVERY == 0)
            c->r.drop(c->r.drop_ctx, (size_t)(v - c->r.s) + at + n - NB_DROP_EVERY, NB_DROP_EVERY);
        if (c->tmp2.len < head)
            buf_put(&c->tmp2, c->tmp.data, c->tmp.len < head - c->tmp2.len ? c->tmp.len : head - c->tmp2.len);
    }
    return true;
}

/* The value at r->p as a file of the page: base64, or for image/svg+xml
 * the SVG text that nbformat stores (an attachment, and a few writers'
 * outputs, store base64 of it instead: told apart by svg_text). Its bytes
 * are not kept: they are decoded again when the file is written
 * (nb_file_decode_fd). Returns its entry, or NULL (a problem reported at
 * the cell, or the JSON failed). */
static nb_file *add_file(conv *c, const cell *ce, const char *name, const char *mime)
{
    rd *r = &c->r;
    bool svg = !strcmp(mime, "image/svg+xml");
    int at = body_line(c);
    int first = peek(r);
    if (first != '"' && first != '[')
        return unexpected(r, "a string or an array of strings") ? NULL : NULL;
    const char *v = r->p;
    if (!skip(r))
        return NULL;
    nb_file f = { .off = (size_t)(v - r->s), .vlen = (size_t)(r->p - v), .base64 = !svg };
    dec d;
    bool ok = scan_file(c, v, &f, NB_HEAD, &d);
    if (ok && svg && !svg_text(c->tmp2.data, c->tmp2.len)) { /* not SVG text: base64 of it? */
        f.base64 = true;
        ok = scan_file(c, v, &f, NB_HEAD, &d);
        if (ok && !svg_text(c->tmp2.data, c->tmp2.len)) {
            char shown[24];
            size_t k = 0;
            for (; k < c->tmp2.len && k < sizeof shown - 1; k++) {
                unsigned char ch = (unsigned char)c->tmp2.data[k];
                shown[k] = ch >= 0x20 && ch < 0x7f && ch != '\'' ? (char)ch : '?';
            }
            shown[k] = 0;
            cell_problem(c, DIAG_ERROR, at,
                         "%s of cell %d is neither SVG text nor base64 of SVG (it decodes to '%s%s')", mime, ce->no,
                         shown, k < c->tmp2.len ? "…" : "");
            return NULL;
        }
    }
    if (!ok && d.bad == -2) {
        r->p = v + d.bad_at;
        return unexpected(r, "a string") ? NULL : NULL;
    }
    if (!ok) {
        if (svg)
            cell_problem(c, DIAG_ERROR, at,
                         "%s of cell %d is neither SVG text nor base64 of SVG ('%c' at offset %zu is not base64)",
                         mime, ce->no, d.bad, d.bad_at);
        else
            cell_problem(c, DIAG_ERROR, at, "%s of cell %d is not base64: '%c' at offset %zu of its data", mime,
                         ce->no, d.bad, d.bad_at);
        return NULL;
    }
    if (!svg) {
        img_info info;
        const char *why;
        img_status st = img_read_header((const unsigned char *)c->tmp2.data, c->tmp2.len, name, &info, &why);
        if (st == IMG_SHORT && f.len > c->tmp2.len) { /* a JPEG's frame header further on */
            scan_file(c, v, &f, NB_HEAD_MAX, &d);
            st = img_read_header((const unsigned char *)c->tmp2.data, c->tmp2.len, name, &info, &why);
        }
        if (st == IMG_OK) {
            f.info = info;
            f.width = (int)info.width;
            f.height = (int)info.height;
        } else {
            cell_problem(c, DIAG_WARNING, at, "%s of cell %d: its data is not a %s image", mime, ce->no, mime);
        }
    }
    f.name = arena_strdup(c->a, name);
    nb_file *e = VEC_ADD(c->files, c->nfiles, c->capfiles, 8);
    *e = f;
    return e;
}

static void img_tag(conv *c, const cell *ce, const nb_file *f, const char *mime)
{
    buf *b = &c->tmp;
    buf_reset(b);
    buf_printf(b, "<div class=\"nb-output nb-image\" data-mime-type=\"%s\"><img src=\"", mime);
    esc(b, c->opt->files, strlen(c->opt->files));
    buf_putc(b, '/');
    esc(b, f->name, strlen(f->name));
    buf_printf(b, "\" alt=\"output of cell %d\"", ce->no);
    if (f->width && f->height)
        buf_printf(b, " width=\"%d\" height=\"%d\"", f->width, f->height);
    buf_puts(b, "></div>");
    emit(&c->body, b->data, b->len, ce->no, 0, true);
}

/* Text as a <pre> of one line, cut at NB_TEXT_MAX. */
static void pre(conv *c, const cell *ce, const char *cls, const char *mime, const char *s, size_t n, bool ansi)
{
    buf *b = &c->tmp2;
    buf_reset(b);
    size_t cut = 0;
    if (n > NB_TEXT_MAX) {
        cut = n - NB_TEXT_MAX;
        n = NB_TEXT_MAX;
        while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    while (n && s[n - 1] == '\n')
        n--;
    buf_printf(b, "<div class=\"nb-output %s\" data-mime-type=\"%s\"><pre tabindex=\"0\">", cls, mime);
    if (ansi)
        ansi_html(b, s, n);
    else
        esc(b, s, n);
    if (cut)
        buf_printf(b, "&#10;… (%zu more bytes not shown)", cut);
    buf_puts(b, "</pre></div>");
    emit(&c->body, b->data, b->len, ce->no, 0, true);
}

/* Markdown (text/markdown, text/latex) in an output box: Markdown lines
 * between two lines of sheaf's HTML. */
static void markdown_box(conv *c, const cell *ce, const char *cls, const char *mime, const char *s, size_t n)
{
    char open[128];
    snprintf(open, sizeof open, "<div class=\"nb-output %s\" data-mime-type=\"%s\">", cls, mime);
    emit_s(&c->body, open, ce->no, true);
    emit_s(&c->body, "", ce->no, false);
    /* sympy's text/latex is one formula, `$\displaystyle …$`: the whole
     * output, so it is display math, in the page's scrolling box a
     * keyboard reaches (an inline formula wider than a phone scrolls in a
     * box of its own that it cannot) */
    size_t a = 0, z = n;
    while (a < z && (s[a] == ' ' || s[a] == '\n' || s[a] == '\r' || s[a] == '\t'))
        a++;
    while (z > a && (s[z - 1] == ' ' || s[z - 1] == '\n' || s[z - 1] == '\r' || s[z - 1] == '\t'))
        z--;
    if (!strcmp(mime, "text/latex") && z - a > 2 && s[a] == '$' && s[a + 1] != '$' && s[z - 1] == '$' &&
        !memchr(s + a + 1, '$', z - a - 2) && !memchr(s + a, '\n', z - a)) {
        buf b = BUF_INIT;
        buf_puts(&b, "$$");
        buf_put(&b, s + a + 1, z - a - 2);
        buf_puts(&b, "$$");
        emit(&c->body, b.data, b.len, ce->no, 0, false);
        buf_release(&b);
    } else { /* no blank line may end the box early: each one is a line of its own */
        emit(&c->body, s, n, ce->no, 0, false);
    }
    emit_s(&c->body, "", ce->no, false);
    emit_s(&c->body, "</div>", ce->no, true);
}

/* Lays out the JSON value s (valid: skip() read it) as JupyterLab's
 * viewer and Python's json.dumps(indent=2) do: one member or element a
 * line, two spaces a level, an empty object or array as {} or [];
 * strings, numbers and literals as written. It stops once out holds max
 * bytes; *left is then how much of s was not laid out. One pass, no
 * recursion (the depth is bounded by skip's MAX_DEPTH). */
static void json_pretty(const char *s, size_t n, buf *out, size_t max, size_t *left)
{
    size_t depth = 0, i = 0;
    bool opened = false; /* just after '{' or '[': an empty one closes on its line */
    *left = 0;
    while (i < n) {
        if (out->len >= max) {
            *left = n - i;
            size_t keep = out->len;
            while (keep && (out->data[keep - 1] == ' ' || out->data[keep - 1] == '\n'))
                keep--;
            buf_truncate(out, keep);
            return;
        }
        char ch = s[i];
        if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') {
            i++;
            continue;
        }
        bool closing = ch == '}' || ch == ']';
        if (closing)
            depth--;
        if (opened != closing) { /* a first member, or the close of a full one */
            buf_putc(out, '\n');
            for (size_t k = 0; k < depth; k++)
                buf_puts(out, "  ");
        }
        opened = false;
        if (ch == '{' || ch == '[') {
            buf_putc(out, ch);
            depth++;
            opened = true;
            i++;
        } else if (closing) {
            buf_putc(out, ch);
            i++;
        } else if (ch == ',') {
            buf_putc(out, ',');
            buf_putc(out, '\n');
            for (size_t k = 0; k < depth; k++)
                buf_puts(out, "  ");
            i++;
        } else if (ch == ':') {
            buf_puts(out, ": ");
            i++;
        } else {
            size_t j = i + 1;
            if (ch == '"') {
                while (j < n && s[j] != '"')
                    j += s[j] == '\\' ? 2 : 1;
                j = j < n ? j + 1 : n;
            } else {
                while (j < n && !strchr(",:]} \n\r\t", s[j]))
                    j++;
            }
            if (out->len + (j - i) > max) { /* a string of megabytes: cut it */
                size_t k = i + (max > out->len ? max - out->len : 0);
                while (k > i && ((unsigned char)s[k] & 0xC0) == 0x80)
                    k--;
                buf_put(out, s + i, k - i);
                *left = n - k;
                return;
            }
            buf_put(out, s + i, j - i);
            i = j;
        }
    }
}

static size_t longest_run(const char *s, size_t n, char ch);

/* application/json: laid out by json_pretty, cut at NB_TEXT_MAX, in a
 * json code block (so highlighted as any) in an output box. */
static void json_box(conv *c, const cell *ce, const char *s, size_t n)
{
    buf *b = &c->tmp2;
    buf_reset(b);
    size_t left;
    json_pretty(s, n, b, NB_TEXT_MAX, &left);
    size_t ticks = longest_run(b->data, b->len, '`') + 1;
    char fence[64];
    size_t fl = ticks < 3 ? 3 : ticks < sizeof fence - 8 ? ticks : sizeof fence - 8;
    memset(fence, '`', fl);
    fence[fl] = 0;
    if (left)
        buf_printf(b, "\n… (%zu more bytes of JSON not shown)", left);
    emit_s(&c->body, "<div class=\"nb-output nb-json\" data-mime-type=\"application/json\">", ce->no, true);
    emit_s(&c->body, "", ce->no, false);
    char open[80];
    snprintf(open, sizeof open, "%sjson", fence);
    emit_s(&c->body, open, ce->no, false);
    emit(&c->body, b->data, b->len, ce->no, 0, false);
    emit_s(&c->body, fence, ce->no, false);
    emit_s(&c->body, "", ce->no, false);
    emit_s(&c->body, "</div>", ce->no, true);
}

enum { M_HTML, M_MARKDOWN, M_SVG, M_LATEX, M_PNG, M_JPEG, M_PLAIN, M_JSON, M_N };
static const char *const mimes[M_N] = { "text/html", "text/markdown", "image/svg+xml", "text/latex",
                                        "image/png", "image/jpeg", "text/plain", "application/json" };

/* pandas writes `<style scoped>` before its tables: `scoped` was dropped
 * from HTML (no browser ever applied it; the rules hold for the whole
 * page either way), and the Nu checker calls it an error. The attribute
 * goes from each <style> start tag of h; nothing else changes. */
static void drop_scoped(buf *h)
{
    buf out = BUF_INIT;
    const char *s = h->data, *e = s + h->len;
    bool changed = false;
    while (s < e) {
        const char *lt = memchr(s, '<', (size_t)(e - s));
        if (!lt)
            break;
        const char *t = lt + 1;
        if (e - t < 6 || strncasecmp(t, "style", 5) || !strchr(" \t\n\r/>", t[5])) {
            buf_put(&out, s, (size_t)(t - s));
            s = t;
            continue;
        }
        const char *gt = memchr(t, '>', (size_t)(e - t));
        const char *end = gt ? gt : e;
        buf_put(&out, s, (size_t)(t + 5 - s));
        for (const char *a = t + 5; a < end;) {
            const char *w = a; /* white space, then a name */
            while (w < end && strchr(" \t\n\r/", *w))
                w++;
            const char *n = w;
            while (n < end && !strchr(" \t\n\r/=", *n))
                n++;
            const char *v = n; /* an optional value */
            if (v < end && *v == '=') {
                v++;
                if (v < end && (*v == '"' || *v == '\'')) {
                    const char *cl = memchr(v + 1, *v, (size_t)(end - v - 1));
                    v = cl ? cl + 1 : end;
                } else {
                    while (v < end && !strchr(" \t\n\r", *v))
                        v++;
                }
            }
            if (n - w == 6 && !strncasecmp(w, "scoped", 6))
                changed = true;
            else
                buf_put(&out, a, (size_t)(v - a));
            if (v == a)
                v++, buf_putc(&out, *a);
            a = v;
        }
        s = end;
    }
    if (changed) {
        buf_put(&out, s, (size_t)(e - s));
        buf_reset(h);
        buf_put(h, out.data, out.len);
    }
    buf_release(&out);
}

/* pandas heads its index column with an empty <th></th>: a header with no
 * text (axe-core's empty-table-header). That corner heads nothing, so it
 * becomes the empty data cell it is, <td></td>. */
static void empty_th_to_td(buf *h)
{
    for (char *q = h->data; (q = strstr(q, "<th></th>")); q += 9)
        memcpy(q, "<td></td>", 9);
}

/* Shows the representation of a bundle (display_data, execute_result)
 * that comes first in nbconvert's order. */
static bool bundle(conv *c, cell *ce, int nout)
{
    rd *r = &c->r;
    const char *at[M_N] = { 0 };
    /* the types it has that sheaf does not show (the first few) */
    char unknown[4][128];
    size_t nunknown = 0;
    if (!obj_begin(r))
        return false;
    bool first = true;
    int k;
    while ((k = obj_next(r, &first, &c->key)) > 0) {
        ws(r);
        int m;
        for (m = 0; m < M_N && strcmp(mimes[m], c->key.data); m++)
            ;
        if (m < M_N)
            at[m] = r->p;
        else if (nunknown < sizeof unknown / sizeof *unknown)
            snprintf(unknown[nunknown++], sizeof *unknown, "%s", c->key.data);
        if (!skip(r))
            return false;
    }
    if (k < 0)
        return false;
    const char *end = r->p;
    int chosen = -1;
    for (int m = 0; m < M_N && chosen < 0; m++)
        if (at[m] && (m != M_HTML || c->opt->unsafe))
            chosen = m;
    if (chosen < 0) {
        if (nunknown || at[M_HTML])
            cell_problem(c, DIAG_WARNING, body_line(c),
                         "cell %d: output %d has no representation sheaf shows (%s): it is left out", ce->no,
                         nout, nunknown ? unknown[0] : "text/html, and markdown.unsafe is false");
        return true;
    }
    /* what is left out beside what is shown: said once a type, so that a
     * notebook of a hundred Plotly figures gives one line, not a hundred */
    for (size_t u = 0; u < nunknown; u++) {
        size_t w = 0;
        while (w < c->nwarned && strcmp(c->warned[w], unknown[u]))
            w++;
        if (w < c->nwarned || c->nwarned == sizeof c->warned / sizeof *c->warned)
            continue;
        c->warned[c->nwarned++] = xstrdup(unknown[u]);
        cell_problem(c, DIAG_WARNING, body_line(c),
                     "cell %d: output %d has %s, which sheaf does not show: it shows %s instead (said once for "
                     "each type in a notebook)", ce->no, nout, unknown[u], mimes[chosen]);
    }
    r->p = at[chosen];
    char name[64];
    switch (chosen) {
    case M_PNG:
    case M_JPEG:
    case M_SVG: {
        snprintf(name, sizeof name, "cell%d-%d.%s", ce->no, nout, file_ext(mimes[chosen]));
        nb_file *f = add_file(c, ce, name, mimes[chosen]);
        if (f)
            img_tag(c, ce, f, mimes[chosen]);
        break;
    }
    case M_HTML: {
        buf_reset(&c->tmp2);
        if (!text(r, &c->tmp2))
            return false;
        drop_scoped(&c->tmp2);
        empty_th_to_td(&c->tmp2);
        /* raw HTML, as markdown.unsafe allows: its blank lines would end
         * the HTML block, so they go */
        buf *b = &c->tmp;
        buf_reset(b);
        /* a wide table scrolls in this box, which the keyboard can reach */
        buf_printf(b, "<div class=\"nb-output nb-html\" data-mime-type=\"text/html\" tabindex=\"0\" role=\"group\" "
                      "aria-label=\"Output of cell %d\">\n", ce->no);
        const char *s = c->tmp2.data, *e = s + c->tmp2.len;
        while (s < e) {
            const char *nl = memchr(s, '\n', (size_t)(e - s));
            const char *le = nl ? nl : e;
            const char *q = s;
            while (q < le && (*q == ' ' || *q == '\t' || *q == '\r'))
                q++;
            if (q < le) {
                buf_put(b, s, (size_t)(le - s));
                buf_putc(b, '\n');
            }
            s = nl ? nl + 1 : e;
        }
        buf_puts(b, "</div>\n");
        emit(&c->body, b->data, b->len, ce->no, 0, false);
        emit_s(&c->body, "", ce->no, false);
        break;
    }
    case M_MARKDOWN:
    case M_LATEX:
        buf_reset(&c->tmp2);
        if (!text(r, &c->tmp2))
            return false;
        markdown_box(c, ce, chosen == M_LATEX ? "nb-latex" : "nb-markdown", mimes[chosen], c->tmp2.data,
                     c->tmp2.len);
        break;
    case M_JSON: {
        const char *s = r->p;
        if (!skip(r))
            return false;
        json_box(c, ce, s, (size_t)(r->p - s));
        break;
    }
    default:
        buf_reset(&c->tmp);
        if (!text(r, &c->tmp))
            return false;
        pre(c, ce, "nb-text", mimes[chosen], c->tmp.data, c->tmp.len, true); /* pre writes in tmp2 */
    }
    r->p = end;
    return !r->failed;
}

/* One output object. */
static bool output(conv *c, cell *ce, int nout)
{
    rd *r = &c->r;
    const char *start = r->p;
    buf type = BUF_INIT, name = BUF_INIT, ename = BUF_INIT, evalue = BUF_INIT, t = BUF_INIT;
    const char *data = NULL, *tb = NULL, *txt = NULL;
    bool ok = obj_begin(r);
    bool first = true;
    int k = 0;
    while (ok && (k = obj_next(r, &first, &c->key)) > 0) {
        ws(r);
        const char *key = c->key.data;
        if (!strcmp(key, "output_type"))
            ok = string(r, &type);
        else if (!strcmp(key, "name"))
            ok = opt_string(r, &name);
        else if (!strcmp(key, "ename"))
            ok = opt_string(r, &ename);
        else if (!strcmp(key, "evalue"))
            ok = opt_string(r, &evalue);
        else if (!strcmp(key, "data"))
            data = r->p, ok = skip(r);
        else if (!strcmp(key, "traceback"))
            tb = r->p, ok = skip(r);
        else if (!strcmp(key, "text"))
            txt = r->p, ok = skip(r);
        else
            ok = skip(r);
    }
    ok = ok && k == 0;
    const char *end = r->p;
    if (ok) {
        if (!strcmp(type.data, "stream") && !strcmp(name.data, "stdin")) {
            /* what was typed at an input() prompt: nbconvert leaves it out */
        } else if (!strcmp(type.data, "stream") && txt) {
            r->p = txt;
            ok = text(r, &t);
            if (ok)
            {
                bool err = !strcmp(name.data, "stderr");
                pre(c, ce, err ? "nb-stream nb-stderr" : "nb-stream nb-stdout",
                    err ? "application/vnd.jupyter.stderr" : "text/plain", t.data, t.len, true); /* as nbconvert names them */
            }
        } else if ((!strcmp(type.data, "display_data") || !strcmp(type.data, "execute_result")) && data) {
            r->p = data;
            ok = bundle(c, ce, nout);
        } else if (!strcmp(type.data, "error")) {
            if (tb) {
                r->p = tb;
                bool f2 = true;
                int k2;
                if ((ok = arr_begin(r))) {
                    while ((k2 = arr_next(r, &f2)) > 0) {
                        if (t.len)
                            buf_putc(&t, '\n');
                        if (!(ok = opt_string(r, &t)))
                            break;
                    }
                    ok = ok && k2 == 0;
                }
            }
            if (ok && !t.len)
                buf_printf(&t, "%s: %s", ename.data, evalue.data);
            if (ok)
                pre(c, ce, "nb-error", "application/vnd.jupyter.stderr", t.data, t.len, true);
        } else if (!type.len) {
            r->p = start;
            ok = fail(r, start, "cell %d: an output without \"output_type\"", ce->no);
        }
    }
    r->p = end;
    buf_release(&type);
    buf_release(&name);
    buf_release(&ename);
    buf_release(&evalue);
    buf_release(&t);
    return ok && !r->failed;
}

static size_t longest_run(const char *s, size_t n, char ch)
{
    size_t best = 0, run = 0;
    for (size_t i = 0; i < n; i++) {
        run = s[i] == ch ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best;
}

/* A Markdown cell's `attachment:NAME` → the file's path beside the page. */
static void markdown_cell(conv *c, cell *ce, int first_attachment)
{
    buf out = BUF_INIT;
    const char *s = ce->source.data, *e = s + ce->source.len;
    static const char att[] = "attachment:";
    for (;;) {
        const char *q = s;
        while (q < e && !(e - q >= 11 && !memcmp(q, att, 11)))
            q++;
        buf_put(&out, s, (size_t)(q - s));
        if (q >= e)
            break;
        size_t nl = strcspn(q + 11, " )\n\t\"'>");
        if (q + 11 + nl > e)
            nl = (size_t)(e - q - 11);
        bool found = false;
        buf want = BUF_INIT;
        buf_printf(&want, "cell%d-", ce->no);
        safe_name(&want, q + 11, nl);
        for (size_t i = (size_t)first_attachment; i < c->nfiles; i++) {
            const char *nm = c->files[i].name;
            if (!strcmp(nm, want.data)) {
                buf_printf(&out, "%s/%s", c->opt->files, nm);
                found = true;
                break;
            }
        }
        buf_release(&want);
        if (!found)
            buf_put(&out, q, 11 + nl);
        s = q + 11 + nl;
    }
    /* in a box of its own, as Jupyter shows it: its Markdown between two
     * lines of sheaf's HTML, each followed or preceded by a blank line */
    emit_s(&c->body, "<div class=\"nb-cell nb-markdown\">", ce->no, true);
    emit_s(&c->body, "", ce->no, false);
    emit(&c->body, out.data, out.len, ce->no, 1, false);
    emit_s(&c->body, "", ce->no, false);
    emit_s(&c->body, "</div>", ce->no, true);
    emit_s(&c->body, "", ce->no, false);
    buf_release(&out);
}

/* Attachments: {name: {mime: base64}} → files "cellN-NAME". */
static bool attachments(conv *c, cell *ce)
{
    rd *r = &c->r;
    if (!obj_begin(r))
        return false;
    bool first = true;
    int k;
    buf nm = BUF_INIT;
    while ((k = obj_next(r, &first, &c->key)) > 0) {
        buf_reset(&nm);
        buf_put(&nm, c->key.data, c->key.len);
        bool bad_name = !nm.len || strpbrk(nm.data, "/\\") || nm.data[0] == '.';
        if (!obj_begin(r))
            break;
        bool f2 = true;
        int k2;
        bool done = false;
        while ((k2 = obj_next(r, &f2, &c->key)) > 0) {
            const char *ext = file_ext(c->key.data);
            if (done || !ext || bad_name) {
                if (!skip(r))
                    break;
                continue;
            }
            char mime[64];
            snprintf(mime, sizeof mime, "%s", c->key.data);
            buf fb = BUF_INIT;
            buf_printf(&fb, "cell%d-", ce->no);
            safe_name(&fb, nm.data, nm.len);
            nb_file *got = add_file(c, ce, fb.data, mime);
            buf_release(&fb);
            if (!got && r->failed)
                break;
            done = true;
        }
        if (k2 < 0 || r->failed)
            break;
    }
    buf_release(&nm);
    return !r->failed && k == 0;
}

static bool code_cell(conv *c, cell *ce)
{
    rd *r = &c->r;
    char line[160];
    emit_s(&c->body, "<div class=\"nb-cell nb-code\">", ce->no, true);
    if (!ce->remove_input) {
        char prompt[64] = "";
        if (ce->exec >= 0)
            snprintf(prompt, sizeof prompt, "In&nbsp;[%d]:", ce->exec);
        else
            snprintf(prompt, sizeof prompt, "In&nbsp;[&nbsp;]:");
        if (ce->hide_input)
            snprintf(line, sizeof line, "<details class=\"nb-input\"><summary><span class=\"nb-prompt\">%s</span> Code</summary>", prompt);
        else
            snprintf(line, sizeof line, "<div class=\"nb-input\"><span class=\"nb-prompt\">%s</span>", prompt);
        emit_s(&c->body, line, ce->no, true);
        emit_s(&c->body, "", ce->no, false);
        size_t fence = longest_run(ce->source.data, ce->source.len, '`') + 1;
        if (fence < 3)
            fence = 3;
        buf f = BUF_INIT;
        for (size_t i = 0; i < fence; i++)
            buf_putc(&f, '`');
        size_t flen = f.len;
        buf_puts(&f, c->language);
        emit(&c->body, f.data, f.len, ce->no, 0, false);
        if (ce->source.len)
            emit(&c->body, ce->source.data, ce->source.len, ce->no, 1, false);
        emit(&c->body, f.data, flen, ce->no, 0, false);
        buf_release(&f);
        emit_s(&c->body, "", ce->no, false);
        emit_s(&c->body, ce->hide_input ? "</details>" : "</div>", ce->no, true);
    }
    if (!ce->remove_output && ce->outputs) {
        r->p = ce->outputs;
        if (!arr_begin(r))
            return false;
        bool first = true;
        int k, n = 0;
        while ((k = arr_next(r, &first)) > 0)
            if (!output(c, ce, ++n))
                return false;
        if (k < 0)
            return false;
    }
    emit_s(&c->body, "</div>", ce->no, true);
    emit_s(&c->body, "", ce->no, false);
    return true;
}

/* Whether a raw cell is a `---` YAML block; its YAML goes to the head. */
static bool yaml_cell(conv *c, cell *ce)
{
    const char *s = ce->source.data, *e = s + ce->source.len;
    if (ce->source.len < 4 || memcmp(s, "---", 3) || (s[3] != '\n' && s[3] != '\r'))
        return false;
    const char *body = (const char *)memchr(s, '\n', (size_t)(e - s)) + 1;
    for (const char *q = body; q < e;) {
        const char *nl = memchr(q, '\n', (size_t)(e - q));
        const char *le = nl ? nl : e;
        size_t n = (size_t)(le - q);
        while (n && (q[n - 1] == ' ' || q[n - 1] == '\r' || q[n - 1] == '\t'))
            n--;
        if ((n == 3 && (!memcmp(q, "---", 3) || !memcmp(q, "...", 3)))) {
            emit(&c->head, "---\n", 4, ce->no, 1, false);
            emit(&c->head, body, (size_t)(q - body), ce->no, 2, false);
            return true;
        }
        q = nl ? nl + 1 : e;
    }
    return false;
}

static bool cell_obj(conv *c, cell *ce)
{
    rd *r = &c->r;
    buf type = BUF_INIT;
    bool ok = obj_begin(r), first = true;
    int k = 0;
    while (ok && (k = obj_next(r, &first, &c->key)) > 0) {
        ws(r);
        const char *key = c->key.data;
        if (!strcmp(key, "cell_type")) {
            ok = string(r, &type);
        } else if (!strcmp(key, "source")) {
            ok = text(r, &ce->source);
        } else if (!strcmp(key, "metadata")) {
            ok = cell_meta(c, ce);
        } else if (!strcmp(key, "execution_count") && peek(r) != 'n') {
            double v;
            ok = number(r, &v);
            if (v >= 0 && v < 1e9)
                ce->exec = (int)v;
        } else if (!strcmp(key, "outputs")) {
            ce->outputs = r->p;
            ok = skip(r);
        } else if (!strcmp(key, "attachments")) {
            ce->attachments = r->p;
            ok = skip(r);
        } else {
            ok = skip(r);
        }
    }
    ok = ok && k == 0;
    ce->type = !strcmp(type.data, "markdown") ? 'm' : !strcmp(type.data, "code") ? 'c'
             : !strcmp(type.data, "raw") ? 'r' : 0;
    buf_release(&type);
    return ok;
}

static bool cells(conv *c)
{
    rd *r = &c->r;
    if (!arr_begin(r))
        return false;
    bool first = true;
    int k, no = 0;
    cell ce = { 0 };
    ce.source = (buf)BUF_INIT;
    while ((k = arr_next(r, &first)) > 0) {
        buf_reset(&ce.source);
        buf src = ce.source;
        ce = (cell){ .no = ++no, .exec = -1, .source = src };
        behind(r);
        const char *start = r->p;
        if (!cell_obj(c, &ce))
            break;
        const char *end = r->p;
        if (!ce.type) {
            r->p = start;
            fail(r, start, "JSON: cell %d has no known \"cell_type\" (markdown, code or raw)", no);
            break;
        }
        if (no == 1 && ce.type == 'r' && yaml_cell(c, &ce))
            continue;
        if (ce.remove_cell || ce.type == 'r')
            continue;
        size_t first_att = c->nfiles;
        if (ce.attachments) {
            r->p = ce.attachments;
            if (!attachments(c, &ce))
                break;
        }
        bool ok = ce.type == 'm' ? (markdown_cell(c, &ce, (int)first_att), true) : code_cell(c, &ce);
        r->p = end;
        if (!ok)
            break;
    }
    buf_release(&ce.source);
    return !r->failed && k == 0;
}

/* YAML double-quoted scalar. */
static void yaml_q(buf *b, const char *s, size_t n)
{
    buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\')
            buf_putc(b, '\\'), buf_putc(b, ch);
        else if (ch < 0x20)
            buf_printf(b, "\\x%02x", ch);
        else
            buf_putc(b, ch);
    }
    buf_putc(b, '"');
}

/* Whether the head's YAML (the raw cell's) sets key at its top level. */
static bool head_has(conv *c, const char *key)
{
    size_t n = strlen(key);
    const char *s = c->head.text.data, *e = s + c->head.text.len;
    for (const char *q = s; q < e;) {
        if ((size_t)(e - q) > n && !memcmp(q, key, n) && (q[n] == ':' || q[n] == ' '))
            return true;
        const char *nl = memchr(q, '\n', (size_t)(e - q));
        q = nl ? nl + 1 : e;
    }
    return false;
}

typedef struct meta {
    buf title, date, author, lang, lang2;
    buf tags; /* YAML flow list */
    int ntags;
} meta;

static bool str_list(conv *c, buf *out, int *n, const char *field)
{
    rd *r = &c->r;
    if (peek(r) == '"') {
        buf_reset(&c->tmp);
        if (!string(r, &c->tmp))
            return false;
        if (*n)
            buf_puts(out, ", ");
        yaml_q(out, c->tmp.data, c->tmp.len);
        (*n)++;
        return true;
    }
    if (peek(r) != '[')
        return skip(r);
    r->p++;
    bool first = true;
    int k;
    while ((k = arr_next(r, &first)) > 0) {
        buf_reset(&c->tmp);
        if (peek(r) == '{' && field) {
            /* {"name": "…"} (authors) */
            bool f2 = true;
            int k2;
            r->p++;
            while ((k2 = obj_next(r, &f2, &c->key)) > 0)
                if (!(strcmp(c->key.data, field) ? skip(r) : opt_string(r, &c->tmp)))
                    return false;
            if (k2 < 0)
                return false;
        } else if (!opt_string(r, &c->tmp)) {
            return false;
        }
        if (!c->tmp.len)
            continue;
        if (*n)
            buf_puts(out, ", ");
        yaml_q(out, c->tmp.data, c->tmp.len);
        (*n)++;
    }
    return k == 0;
}

static bool metadata(conv *c, meta *m)
{
    rd *r = &c->r;
    if (!obj_begin(r))
        return false;
    bool first = true;
    int k, nauthors = 0;
    while ((k = obj_next(r, &first, &c->key)) > 0) {
        const char *key = c->key.data;
        bool ok;
        if (!strcmp(key, "title"))
            ok = opt_string(r, &m->title);
        else if (!strcmp(key, "date"))
            ok = opt_string(r, &m->date);
        else if (!strcmp(key, "authors") || !strcmp(key, "author"))
            ok = str_list(c, &m->author, &nauthors, "name");
        else if (!strcmp(key, "tags"))
            ok = str_list(c, &m->tags, &m->ntags, NULL);
        else if (!strcmp(key, "kernelspec") || !strcmp(key, "language_info")) {
            bool ks = key[0] == 'k';
            ok = obj_begin(r);
            bool f2 = true;
            int k2 = 0;
            while (ok && (k2 = obj_next(r, &f2, &c->key)) > 0) {
                if (!strcmp(c->key.data, ks ? "language" : "name"))
                    ok = opt_string(r, ks ? &m->lang : &m->lang2);
                else
                    ok = skip(r);
            }
            ok = ok && k2 == 0;
        } else
            ok = skip(r);
        if (!ok)
            return false;
    }
    return k == 0;
}

static void part_free(part *p)
{
    buf_release(&p->text);
    free(p->lines);
    free(p->trusted);
}

bool nb_convert(str json, const char *path, const nb_options *opt, arena *a, nb_doc *out,
                diag_list *d)
{
    memset(out, 0, sizeof *out);
    conv c = { .a = a, .opt = opt };
    c.r = (rd){ .s = json.ptr, .p = json.ptr, .end = json.ptr + json.len, .path = path, .d = d,
                .at = json.ptr, .at_line = 1, .at_col = 1, .drop = opt->drop, .drop_ctx = opt->drop_ctx,
                .mark = json.ptr };
    c.head.text = c.body.text = c.key = c.tmp = c.tmp2 = (buf)BUF_INIT;
    rd *r = &c.r;
    meta m = { BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT, 0 };
    const char *cells_at = NULL, *meta_at = NULL, *fmt_at = NULL;
    double nbformat = -1;
    bool ok = obj_begin(r), first = true;
    int k = 0;
    while (ok && (k = obj_next(r, &first, &c.key)) > 0) {
        ws(r);
        if (!strcmp(c.key.data, "cells"))
            cells_at = r->p;
        else if (!strcmp(c.key.data, "metadata"))
            meta_at = r->p;
        else if (!strcmp(c.key.data, "nbformat") && peek(r) != '"' && peek(r) != '{' && peek(r) != '[') {
            fmt_at = r->p;
            ok = number(r, &nbformat);
            continue;
        }
        ok = skip(r);
    }
    ok = ok && k == 0;
    if (ok && peek(r) >= 0)
        ok = fail(r, r->p, "JSON: more after the notebook's closing '}'");
    if (ok && !fmt_at)
        ok = fail(r, json.ptr, "not a Jupyter notebook: it has no \"nbformat\"");
    if (ok && nbformat != 4)
        ok = fail(r, fmt_at,
                  "nbformat %g: sheaf reads notebooks of nbformat 4 (save it from Jupyter 4 or later, or "
                  "convert it: jupyter nbconvert --to notebook --nbformat 4)", nbformat);
    if (ok && !cells_at)
        ok = fail(r, json.ptr, "not a Jupyter notebook: it has no \"cells\"");
    if (ok && meta_at) {
        r->p = meta_at;
        ok = metadata(&c, &m);
    }
    c.language = m.lang.len ? m.lang.data : m.lang2.data;
    /* the language names a fence: one word */
    for (char *q = m.lang.len ? m.lang.data : m.lang2.data; *q; q++)
        if (*q == ' ' || *q == '`' || *q == '~' || *q == '{')
            *q = 0;
    if (ok) {
        r->p = cells_at;
        ok = cells(&c);
    }
    if (ok) {
        /* the head: the raw cell's YAML, then the metadata's keys it lacks */
        bool had = c.head.n > 0;
        if (!had)
            emit_s(&c.head, "---", 0, false);
        buf b = BUF_INIT;
        if (m.title.len && !head_has(&c, "title")) {
            buf_puts(&b, "title: ");
            yaml_q(&b, m.title.data, m.title.len);
            emit(&c.head, b.data, b.len, 0, 0, false);
            buf_reset(&b);
        }
        if (m.date.len && !head_has(&c, "date")) {
            buf_puts(&b, "date: ");
            /* a timestamp, unquoted so that YAML reads it as one */
            if (strspn(m.date.data, "0123456789-:T+. Zz") == m.date.len)
                buf_put(&b, m.date.data, m.date.len);
            if (b.len > 6)
                emit(&c.head, b.data, b.len, 0, 0, false);
            buf_reset(&b);
        }
        if (m.author.len && !head_has(&c, "author") && !head_has(&c, "authors")) {
            buf_printf(&b, "authors: [%s]", m.author.data);
            emit(&c.head, b.data, b.len, 0, 0, false);
            buf_reset(&b);
        }
        if (m.ntags && !head_has(&c, "tags")) {
            buf_printf(&b, "tags: [%s]", m.tags.data);
            emit(&c.head, b.data, b.len, 0, 0, false);
        }
        buf_release(&b);
        emit_s(&c.head, "---", 0, false);
        /* the whole text */
        size_t n = c.head.n + c.body.n;
        out->lines = arena_alloc(a, (n + 1) * sizeof *out->lines);
        out->trusted = arena_alloc(a, n + 1);
        memcpy(out->lines, c.head.lines, c.head.n * sizeof *out->lines);
        if (c.body.n) { /* (memcpy from NULL, even of 0 bytes, is undefined) */
            memcpy(out->lines + c.head.n, c.body.lines, c.body.n * sizeof *out->lines);
            memcpy(out->trusted + c.head.n, c.body.trusted, c.body.n);
        }
        memcpy(out->trusted, c.head.trusted, c.head.n);
        out->nlines = n;
        buf_put(&c.head.text, c.body.text.data, c.body.text.len);
        out->text = buf_detach(&c.head.text, &out->len);
        out->files = c.nfiles ? arena_alloc(a, c.nfiles * sizeof *c.files) : NULL;
        if (c.nfiles)
            memcpy(out->files, c.files, c.nfiles * sizeof *c.files);
        out->nfiles = c.nfiles;
        out->language = arena_strdup(a, c.language);
        for (size_t i = 0; i < c.nlater; i++)
            diag_add(d, c.later[i].level, path, c.later[i].line + (int)c.head.n, 0, "%s", c.later[i].msg);
    }
    for (size_t i = 0; i < c.nlater; i++)
        free(c.later[i].msg);
    for (size_t i = 0; i < c.nwarned; i++)
        free(c.warned[i]);
    free(c.later);
    free(c.files);
    part_free(&c.head);
    part_free(&c.body);
    buf_release(&c.key);
    buf_release(&c.tmp);
    buf_release(&c.tmp2);
    buf_release(&m.title);
    buf_release(&m.date);
    buf_release(&m.author);
    buf_release(&m.lang);
    buf_release(&m.lang2);
    buf_release(&m.tags);
    return ok;
}

void nb_place_text(const nb_doc *doc, int line, int col, buf *out)
{
    if (line < 1 || (size_t)line > doc->nlines) {
        buf_puts(out, "metadata");
        return;
    }
    nb_place p = doc->lines[line - 1];
    if (!p.cell)
        buf_puts(out, "metadata");
    else if (!p.line)
        buf_printf(out, "cell %d", p.cell);
    else if (col > 0)
        buf_printf(out, "cell %d (line %d:%d)", p.cell, p.line, col);
    else
        buf_printf(out, "cell %d (line %d)", p.cell, p.line);
}
