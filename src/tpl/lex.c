/* lex: template source → tokens, as Jinja2's lexer cuts it.
 *
 * Data outside tags becomes T_TEXT. `{{ … }}`, `{% … %}` and `{# … #}` with
 * `-` on either side trim the whitespace (newlines included) next to them.
 * `{% raw %}…{% endraw %}` is data. Inside a tag, an end delimiter counts
 * only when every bracket opened in the tag is closed (so `{{ {'a': 1} }}`
 * works). Newlines are normalised to "\n" and one trailing newline of the
 * template is dropped, as Jinja2 does by default. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tpl/internal.h"
#include "util/buf.h"

typedef struct lexer {
    const char *path;
    const char *src;
    size_t len, pos;
    int line, col;
    arena *a;
    tpl_names *names;
    token *toks;
    size_t n, cap;
    diag_list *d;
    bool lstrip_next; /* the previous tag ended with '-' */
} lexer;

static void advance(lexer *x, size_t n)
{
    while (n-- && x->pos < x->len) {
        if (x->src[x->pos] == '\n') {
            x->line++;
            x->col = 1;
        } else if (((unsigned char)x->src[x->pos] & 0xC0) != 0x80) {
            x->col++;
        }
        x->pos++;
    }
}

static token *push(lexer *x, tok_kind k, int line, int col)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? x->cap * 2 : 64;
        token *nt = arena_alloc(x->a, x->cap * sizeof *nt);
        if (x->n)
            memcpy(nt, x->toks, x->n * sizeof *nt);
        x->toks = nt;
    }
    token *t = &x->toks[x->n++];
    memset(t, 0, sizeof *t);
    t->kind = k;
    t->line = line;
    t->col = col;
    return t;
}

static bool at(lexer *x, const char *s)
{
    size_t n = strlen(s);
    return x->pos + n <= x->len && memcmp(x->src + x->pos, s, n) == 0;
}

static bool err(lexer *x, int line, int col, const char *msg)
{
    diag_error(x->d, x->path, line, col, "%s", msg);
    return false;
}

static void push_text(lexer *x, const char *p, size_t n, int line, int col, bool rstrip)
{
    if (x->lstrip_next) {
        while (n && isspace((unsigned char)*p)) {
            if (*p == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
            p++;
            n--;
        }
        x->lstrip_next = false;
    }
    if (rstrip)
        while (n && isspace((unsigned char)p[n - 1]))
            n--;
    if (!n)
        return;
    token *t = push(x, T_TEXT, line, col);
    t->s = arena_strndup(x->a, p, n);
    t->n = n;
}

static void skip_space(lexer *x)
{
    while (x->pos < x->len && isspace((unsigned char)x->src[x->pos]))
        advance(x, 1);
}

/* A quoted string with Python-style escapes. */
static bool lex_string(lexer *x)
{
    int line = x->line, col = x->col;
    char q = x->src[x->pos];
    advance(x, 1);
    buf b = BUF_INIT;
    for (;;) {
        if (x->pos >= x->len) {
            buf_release(&b);
            return err(x, line, col, "unterminated string literal");
        }
        char c = x->src[x->pos];
        if (c == q) {
            advance(x, 1);
            break;
        }
        if (c == '\\' && x->pos + 1 < x->len) {
            char e = x->src[x->pos + 1];
            advance(x, 2);
            switch (e) {
            case 'n': tpl_putc(&b, (char)'\n'); break;
            case 't': tpl_putc(&b, (char)'\t'); break;
            case 'r': tpl_putc(&b, (char)'\r'); break;
            case 'a': tpl_putc(&b, '\a'); break;
            case 'b': tpl_putc(&b, '\b'); break;
            case 'f': tpl_putc(&b, '\f'); break;
            case 'v': tpl_putc(&b, '\v'); break;
            case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
                /* octal: up to three digits, like Python */
                unsigned cp = (unsigned)(e - '0');
                for (int k = 0; k < 2 && x->pos < x->len && x->src[x->pos] >= '0' &&
                                x->src[x->pos] <= '7'; k++) {
                    cp = cp * 8 + (unsigned)(x->src[x->pos] - '0');
                    advance(x, 1);
                }
                if (cp < 0x80) {
                    tpl_putc(&b, (char)cp);
                } else {
                    tpl_putc(&b, (char)(0xC0 | (cp >> 6)));
                    tpl_putc(&b, (char)(0x80 | (cp & 0x3F)));
                }
                break;
            }
            case '\\': tpl_putc(&b, (char)'\\'); break;
            case '\'': tpl_putc(&b, (char)'\''); break;
            case '"': tpl_putc(&b, (char)'"'); break;
            case '\n': break;
            case 'x':
            case 'u':
            case 'U': {
                int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                unsigned long cp = 0;
                for (int i = 0; i < digits; i++) {
                    if (x->pos >= x->len || !isxdigit((unsigned char)x->src[x->pos])) {
                        buf_release(&b);
                        return err(x, line, col, "bad escape sequence in string literal");
                    }
                    char h = x->src[x->pos];
                    cp = cp * 16 + (unsigned long)(isdigit((unsigned char)h) ? h - '0'
                                                                          : (tolower(h) - 'a' + 10));
                    advance(x, 1);
                }
                if (cp < 0x80) {
                    tpl_putc(&b, (char)(int)cp);
                } else if (cp < 0x800) {
                    tpl_putc(&b, (char)(int)(0xC0 | (cp >> 6)));
                    tpl_putc(&b, (char)(int)(0x80 | (cp & 0x3F)));
                } else if (cp < 0x10000) {
                    tpl_putc(&b, (char)(int)(0xE0 | (cp >> 12)));
                    tpl_putc(&b, (char)(int)(0x80 | ((cp >> 6) & 0x3F)));
                    tpl_putc(&b, (char)(int)(0x80 | (cp & 0x3F)));
                } else {
                    tpl_putc(&b, (char)(int)(0xF0 | (cp >> 18)));
                    tpl_putc(&b, (char)(int)(0x80 | ((cp >> 12) & 0x3F)));
                    tpl_putc(&b, (char)(int)(0x80 | ((cp >> 6) & 0x3F)));
                    tpl_putc(&b, (char)(int)(0x80 | (cp & 0x3F)));
                }
                break;
            }
            default:
                tpl_putc(&b, (char)'\\');
                tpl_putc(&b, (char)e);
                break;
            }
            continue;
        }
        tpl_putc(&b, (char)c);
        advance(x, 1);
    }
    token *t = push(x, T_STRING, line, col);
    t->s = arena_strndup(x->a, b.data, b.len);
    t->n = b.len;
    buf_release(&b);
    return true;
}

/* Digits with optional single underscores between them. */
static size_t digits(const char *p, size_t n, int (*ok)(int))
{
    size_t i = 0;
    while (i < n && (ok((unsigned char)p[i]) || (p[i] == '_' && i > 0 && i + 1 < n &&
                                                  ok((unsigned char)p[i + 1]))))
        i++;
    return i;
}

static int is_dec(int c) { return c >= '0' && c <= '9'; }
static int is_hex(int c) { return isxdigit(c); }
static int is_oct(int c) { return c >= '0' && c <= '7'; }
static int is_bin(int c) { return c == '0' || c == '1'; }

static char *strip_underscores(arena *a, const char *p, size_t n)
{
    char *s = arena_alloc(a, n + 1);
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] != '_')
            s[j++] = p[i];
    s[j] = 0;
    return s;
}

/* A number literal as Python reads it: 0x/0o/0b integers, decimal
 * integers and floats with exponents, `_` between digits. */
static bool lex_number(lexer *x)
{
    int line = x->line, col = x->col;
    const char *p = x->src + x->pos;
    size_t rest = x->len - x->pos;
    if (rest > 2 && p[0] == '0' && strchr("xXoObB", p[1])) {
        int (*ok)(int) = (p[1] == 'x' || p[1] == 'X') ? is_hex : (p[1] == 'o' || p[1] == 'O') ? is_oct : is_bin;
        int base = ok == is_hex ? 16 : ok == is_oct ? 8 : 2;
        size_t nd = digits(p + 2, rest - 2, ok);
        if (nd) {
            char *s = strip_underscores(x->a, p + 2, nd);
            token *t = push(x, T_INT, line, col);
            errno = 0;
            t->i = strtoll(s, NULL, base);
            if (errno)
                return err(x, line, col, "integer literal out of range");
            advance(x, 2 + nd);
            return true;
        }
    }
    size_t n = digits(p, rest, is_dec);
    bool is_float = false;
    if (n + 1 < rest && p[n] == '.' && is_dec((unsigned char)p[n + 1])) {
        n += 1 + digits(p + n + 1, rest - n - 1, is_dec);
        is_float = true;
    }
    if (n < rest && (p[n] == 'e' || p[n] == 'E')) {
        size_t m = n + 1;
        if (m < rest && (p[m] == '+' || p[m] == '-'))
            m++;
        size_t ed = m < rest ? digits(p + m, rest - m, is_dec) : 0;
        if (ed) {
            n = m + ed;
            is_float = true;
        }
    }
    char *s = strip_underscores(x->a, p, n);
    token *t = push(x, is_float ? T_FLOAT : T_INT, line, col);
    errno = 0;
    if (is_float)
        t->f = strtod(s, NULL);
    else
        t->i = strtoll(s, NULL, 10);
    if (errno == ERANGE && !is_float)
        return err(x, line, col, "integer literal out of range");
    advance(x, n);
    return true;
}

static const char *const ops2[] = { "==", "!=", "<=", ">=", "//", "**", NULL };
static const char ops1[] = "+-*/%~<>=.,:|()[]{}";

/* Lexes the inside of a tag up to its end delimiter `end` ("}}" or "%}"). */
static bool lex_tag(lexer *x, const char *end, tok_kind end_kind, int oline, int ocol)
{
    int depth = 0;
    int bline[64], bcol[64];
    char bch[64];
    for (;;) {
        skip_space(x);
        if (x->pos >= x->len && depth > 0) {
            int k = depth <= 64 ? depth - 1 : 63;
            diag_error(x->d, x->path, bline[k], bcol[k], "'%c' is never closed", bch[k]);
            return false;
        }
        if (x->pos >= x->len)
            return err(x, oline, ocol,
                       end_kind == T_VAR_END ? "'{{' is never closed (expected '}}')"
                                             : "'{%' is never closed (expected '%}')");
        int line = x->line, col = x->col;
        if (depth == 0) {
            bool trim = x->src[x->pos] == '-' && x->pos + 1 + 2 <= x->len &&
                        memcmp(x->src + x->pos + 1, end, 2) == 0;
            bool plus = x->src[x->pos] == '+' && x->pos + 1 + 2 <= x->len &&
                        memcmp(x->src + x->pos + 1, end, 2) == 0;
            if (trim || plus || at(x, end)) {
                advance(x, (trim || plus) ? 3 : 2);
                push(x, end_kind, line, col);
                x->lstrip_next = trim;
                return true;
            }
        }
        char c = x->src[x->pos];
        if (c == '\'' || c == '"') {
            if (!lex_string(x))
                return false;
            continue;
        }
        if (isdigit((unsigned char)c)) {
            if (!lex_number(x))
                return false;
            continue;
        }
        if (isalpha((unsigned char)c) || c == '_' || ((unsigned char)c & 0x80)) {
            size_t s = x->pos, e = s;
            while (e < x->len && (isalnum((unsigned char)x->src[e]) || x->src[e] == '_' ||
                                  ((unsigned char)x->src[e] & 0x80)))
                e++;
            token *t = push(x, T_NAME, line, col);
            t->s = tpl_names_intern(x->names, x->src + s, e - s);
            t->n = e - s;
            advance(x, e - s);
            continue;
        }
        const char *op = NULL;
        for (int i = 0; ops2[i]; i++)
            if (at(x, ops2[i]))
                op = ops2[i];
        char one[2] = { c, 0 };
        if (!op && strchr(ops1, c) && c)
            op = one;
        if (!op) {
            diag_error(x->d, x->path, line, col, "unexpected character '%c' in a tag", c);
            return false;
        }
        if (*op == '(' || *op == '[' || *op == '{') {
            if (depth < 64) {
                bline[depth] = line;
                bcol[depth] = col;
                bch[depth] = *op;
            }
            depth++;
        }
        else if ((*op == ')' || *op == ']' || *op == '}') && op[1] == 0 && depth > 0) {
            int k = depth <= 64 ? depth - 1 : 63;
            char want = bch[k] == '(' ? ')' : bch[k] == '[' ? ']' : '}';
            if (*op != want) {
                diag_error(x->d, x->path, bline[k], bcol[k], "'%c' is never closed (found '%c')",
                           bch[k], *op);
                return false;
            }
            depth--;
        }
        token *t = push(x, T_OP, line, col);
        t->s = arena_strdup(x->a, op);
        t->n = strlen(op);
        advance(x, t->n);
    }
}

/* At "{%": is this `{% raw %}` (with optional '-' marks)? On success, emits
 * the raw data as text and consumes through the matching endraw. */
static int try_raw(lexer *x)
{
    size_t p = x->pos + 2;
    bool ltrim = p < x->len && x->src[p] == '-';
    if (ltrim)
        p++;
    while (p < x->len && isspace((unsigned char)x->src[p]))
        p++;
    if (p + 3 > x->len || memcmp(x->src + p, "raw", 3) != 0)
        return 0;
    p += 3;
    while (p < x->len && isspace((unsigned char)x->src[p]))
        p++;
    bool rtrim = p < x->len && x->src[p] == '-';
    if (rtrim)
        p++;
    if (p + 2 > x->len || memcmp(x->src + p, "%}", 2) != 0)
        return 0;
    p += 2;
    int oline = x->line, ocol = x->col;
    /* find {%-? endraw -?%} */
    size_t q = p;
    for (;;) {
        const char *f = q < x->len ? memmem(x->src + q, x->len - q, "{%", 2) : NULL;
        if (!f) {
            err(x, oline, ocol, "'raw' opened here is never closed (expected 'endraw')");
            return -1;
        }
        size_t s = (size_t)(f - x->src), e = s + 2;
        bool eltrim = e < x->len && x->src[e] == '-';
        if (eltrim)
            e++;
        while (e < x->len && isspace((unsigned char)x->src[e]))
            e++;
        if (e + 6 <= x->len && memcmp(x->src + e, "endraw", 6) == 0) {
            e += 6;
            while (e < x->len && isspace((unsigned char)x->src[e]))
                e++;
            bool ertrim = e < x->len && x->src[e] == '-';
            if (ertrim)
                e++;
            if (e + 2 <= x->len && memcmp(x->src + e, "%}", 2) == 0) {
                e += 2;
                /* text between */
                advance(x, p - x->pos);
                const char *body = x->src + p;
                size_t blen = s - p;
                x->lstrip_next = rtrim;
                push_text(x, body, blen, x->line, x->col, eltrim);
                x->lstrip_next = false;
                advance(x, e - x->pos);
                x->lstrip_next = ertrim;
                return 1;
            }
        }
        q = s + 2;
    }
}

bool tpl_lex(const char *path, const char *src0, size_t len0, arena *a, tpl_names *names,
             token **toks, size_t *ntoks, diag_list *d)
{
    /* Normalise newlines and drop one trailing newline. */
    char *src = arena_alloc(a, len0 + 1);
    size_t len = 0;
    for (size_t i = 0; i < len0; i++) {
        if (src0[i] == '\r') {
            src[len++] = '\n';
            if (i + 1 < len0 && src0[i + 1] == '\n')
                i++;
        } else {
            src[len++] = src0[i];
        }
    }
    if (len && src[len - 1] == '\n')
        len--;
    src[len] = 0;

    lexer x = { .path = path, .src = src, .len = len, .line = 1, .col = 1, .a = a, .names = names,
                .d = d };
    while (x.pos < x.len) {
        /* find the next tag start */
        size_t s = x.pos;
        const char *next = NULL;
        for (size_t i = s; i + 1 < x.len; i++) {
            if (src[i] == '{' && (src[i + 1] == '{' || src[i + 1] == '%' || src[i + 1] == '#')) {
                next = src + i;
                break;
            }
        }
        size_t e = next ? (size_t)(next - src) : x.len;
        if (e > s) {
            bool rstrip = next && e + 2 < x.len && src[e + 2] == '-';
            int line = x.line, col = x.col;
            push_text(&x, src + s, e - s, line, col, rstrip);
            advance(&x, e - s);
        } else {
            x.lstrip_next = false;
        }
        if (!next)
            break;
        int line = x.line, col = x.col;
        char kind = src[e + 1];
        if (kind == '#') {
            const char *close = memmem(src + e + 2, x.len - e - 2, "#}", 2);
            if (!close) {
                err(&x, line, col, "comment '{#' is never closed (expected '#}')");
                return false;
            }
            size_t ce = (size_t)(close - src);
            x.lstrip_next = ce > e + 2 && src[ce - 1] == '-';
            advance(&x, ce + 2 - x.pos);
            continue;
        }
        if (kind == '%') {
            int r = try_raw(&x);
            if (r < 0)
                return false;
            if (r > 0)
                continue;
        }
        advance(&x, 2);
        if (x.pos < x.len && (src[x.pos] == '-' || src[x.pos] == '+'))
            advance(&x, 1);
        push(&x, kind == '{' ? T_VAR_BEGIN : T_BLOCK_BEGIN, line, col);
        if (!lex_tag(&x, kind == '{' ? "}}" : "%}", kind == '{' ? T_VAR_END : T_BLOCK_END, line,
                     col))
            return false;
    }
    push(&x, T_EOF, x.line, x.col);
    *toks = x.toks;
    *ntoks = x.n;
    return true;
}
