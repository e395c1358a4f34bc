/* json: JSON front matter (Hugo's third format) → template values.
 *
 * Strict RFC 8259: no comments, no trailing commas, no single quotes, no
 * leading zeros or `+`, no control characters in strings, every \u escape
 * a real character (a surrogate only as half of a pair). A key written
 * twice is an error: JSON leaves its meaning open and the other formats
 * refuse it. A number without
 * fraction or exponent that fits 64 bits is an int, any other a float.
 * The first problem ends the parse, at its line:col (columns count
 * characters, as the other formats' do). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

#include "fm/fm.h"
#include "util/buf.h"
#include "util/text.h"
#include "util/vec.h"
#include "util/xalloc.h"

/* Deeper nesting is refused rather than risk the C stack. */
#define MAX_DEPTH 512

typedef struct parser {
    const char *s, *end, *p;
    int line0;
    const char *path;
    arena *a;
    diag_list *d;
    bool failed;
    int depth;
    buf tmp;                 /* a string being decoded */
    const char *at;          /* where() counted up to here: at_line:at_col */
    int at_line, at_col;
    fm_key_pos *pos;         /* key records (xmalloc'd while parsing) */
    size_t npos, cappos;
    bool whole_file;         /* a data file, not front matter (for messages) */
    bool want_items;         /* record where each list item starts */
    fm_item_pos *items;      /* (xmalloc'd while parsing) */
    size_t nitems, capitems;
} parser;

/* 1-based line and column of q, counting characters. Positions are asked
 * for mostly in order, so the count goes on from the last one. */
static void where(parser *ps, const char *q, int *line, int *col)
{
    if (q > ps->end)
        q = ps->end;
    if (q < ps->at) {
        ps->at = ps->s;
        ps->at_line = ps->line0 + 1;
        ps->at_col = 1;
    }
    for (const char *x = ps->at; x < q; x++) {
        if (*x == '\n') {
            ps->at_line++;
            ps->at_col = 1;
        } else if (((unsigned char)*x & 0xC0) != 0x80 && *x != '\r') {
            ps->at_col++;
        }
    }
    ps->at = q;
    *line = ps->at_line;
    *col = ps->at_col;
}

static bool fail(parser *ps, const char *q, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(parser *ps, const char *q, const char *fmt, ...)
{
    if (ps->failed)
        return false;
    ps->failed = true;
    int line, col;
    where(ps, q, &line, &col);
    buf msg = BUF_INIT;
    buf_puts(&msg, "JSON: ");
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    diag_error(ps->d, ps->path, line, col, "%s", msg.data);
    buf_release(&msg);
    return false;
}

static void skip_ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

/* How the byte at p reads in a message: 'x', or "the end of the front matter". */
static const char *shown(parser *ps, const char *q)
{
    static _Thread_local char b[32];
    if (q >= ps->end)
        return ps->whole_file ? "the end of the file" : "the end of the front matter";
    unsigned char ch = (unsigned char)*q;
    if (ch < 0x20 || ch == 0x7f)
        snprintf(b, sizeof b, "the control character 0x%02X", ch);
    else if (ch >= 0x80)
        return "a non-ASCII character";
    else
        snprintf(b, sizeof b, "'%c'", ch);
    return b;
}

static int hex4(const char *q, const char *end)
{
    if (end - q < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char ch = q[i];
        int x = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
              : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
        if (x < 0)
            return -1;
        v = v * 16 + x;
    }
    return v;
}

static void put_utf8(buf *b, uint32_t cp)
{
    if (cp < 0x80) {
        buf_putc(b, (char)cp);
    } else if (cp < 0x800) {
        buf_putc(b, (char)(0xC0 | (cp >> 6)));
        buf_putc(b, (char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        buf_putc(b, (char)(0xE0 | (cp >> 12)));
        buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        buf_putc(b, (char)(0x80 | (cp & 0x3F)));
    } else {
        buf_putc(b, (char)(0xF0 | (cp >> 18)));
        buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3F)));
        buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        buf_putc(b, (char)(0x80 | (cp & 0x3F)));
    }
}

/* A string at ps->p (its '"'), decoded into ps->tmp. */
static bool parse_string(parser *ps)
{
    const char *open = ps->p++;
    buf_reset(&ps->tmp);
    for (;;) {
        if (ps->p >= ps->end)
            return fail(ps, open, "this string is never closed (expected '\"')");
        const char *q = ps->p;
        unsigned char ch = (unsigned char)*q;
        if (ch == '"') {
            ps->p++;
            return true;
        }
        if (ch < 0x20)
            return fail(ps, q, "%s in a string (write it as an escape, such as \\n or \\t)", shown(ps, q));
        if (ch != '\\') {
            const char *run = q;
            while (q < ps->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
                q++;
            buf_put(&ps->tmp, run, (size_t)(q - run));
            ps->p = q;
            continue;
        }
        if (q + 1 >= ps->end)
            return fail(ps, open, "this string is never closed (expected '\"')");
        char e = q[1];
        ps->p = q + 2;
        switch (e) {
        case '"': buf_putc(&ps->tmp, '"'); break;
        case '\\': buf_putc(&ps->tmp, '\\'); break;
        case '/': buf_putc(&ps->tmp, '/'); break;
        case 'b': buf_putc(&ps->tmp, '\b'); break;
        case 'f': buf_putc(&ps->tmp, '\f'); break;
        case 'n': buf_putc(&ps->tmp, '\n'); break;
        case 'r': buf_putc(&ps->tmp, '\r'); break;
        case 't': buf_putc(&ps->tmp, '\t'); break;
        case 'u': {
            int hi = hex4(q + 2, ps->end);
            if (hi < 0)
                return fail(ps, q, "'\\u' must be followed by four hex digits");
            ps->p = q + 6;
            uint32_t cp = (uint32_t)hi;
            if (cp >= 0xDC00 && cp <= 0xDFFF)
                return fail(ps, q, "'\\u%04X' is the second half of a surrogate pair without its first", cp);
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                int lo = ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u' ? hex4(ps->p + 2, ps->end) : -1;
                if (lo < 0xDC00 || lo > 0xDFFF)
                    return fail(ps, q, "'\\u%04X' is the first half of a surrogate pair without its second", cp);
                cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
                ps->p += 6;
            }
            put_utf8(&ps->tmp, cp);
            break;
        }
        default:
            return fail(ps, q, "'\\%s' is not an escape (JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                        e >= 0x20 && e < 0x7f ? (char[]){ e, 0 } : "…");
        }
    }
}

static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

static bool parse_number(parser *ps, tpl_value *out)
{
    const char *start = ps->p, *q = ps->p, *end = ps->end;
    bool integral = true;
    if (q < end && *q == '-')
        q++;
    if (q >= end || !is_digit(*q))
        return fail(ps, start, "a number needs a digit after '-'");
    if (*q == '0') {
        q++;
        if (q < end && is_digit(*q))
            return fail(ps, start, "a number may not start with 0 (write 7, not 07)");
    } else {
        while (q < end && is_digit(*q))
            q++;
    }
    if (q < end && *q == '.') {
        integral = false;
        q++;
        if (q >= end || !is_digit(*q))
            return fail(ps, q, "a number needs a digit after its '.'");
        while (q < end && is_digit(*q))
            q++;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        integral = false;
        q++;
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        if (q >= end || !is_digit(*q))
            return fail(ps, q, "a number needs a digit in its exponent");
        while (q < end && is_digit(*q))
            q++;
    }
    ps->p = q;
    /* strtoll/strtod stop where the grammar above stopped: copy the text
     * so they cannot read past the front matter */
    char tmp[64];
    size_t n = (size_t)(q - start);
    char *text = n < sizeof tmp ? tmp : xmalloc(n + 1);
    memcpy(text, start, n);
    text[n] = 0;
    bool ok = true;
    if (integral) {
        errno = 0;
        long long v = strtoll(text, NULL, 10);
        if (errno != ERANGE) {
            *out = tpl_int((int64_t)v);
            goto done;
        }
    }
    errno = 0;
    double f = strtod(text, NULL);
    if (errno == ERANGE && isinf(f))
        ok = fail(ps, start, "the number %.40s%s is too large", text, n > 40 ? "…" : "");
    *out = tpl_float(f);
done:
    if (text != tmp)
        free(text);
    return ok;
}

static bool parse_value(parser *ps, tpl_value *out);

static bool parse_literal(parser *ps, const char *word, tpl_value v, tpl_value *out)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return false;
    ps->p += n;
    *out = v;
    return true;
}

static bool parse_array(parser *ps, tpl_value *out)
{
    ps->p++; /* [ */
    size_t first_item = ps->nitems;
    tpl_value *items = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
    } else {
        for (;;) {
            tpl_value v;
            skip_ws(ps);
            const char *iq = ps->p;
            if (!(ok = parse_value(ps, &v)))
                break;
            if (ps->want_items) {
                fm_item_pos *ip = VEC_ADD(ps->items, ps->nitems, ps->capitems, 16);
                ip->list = NULL; /* not made yet: set below */
                ip->index = n;
                where(ps, iq, &ip->line, &ip->col);
            }
            VEC_PUSH(items, n, cap, 8, v);
            skip_ws(ps);
            if (ps->p < ps->end && *ps->p == ',') {
                ps->p++;
                skip_ws(ps);
                if (ps->p < ps->end && *ps->p == ']') {
                    ok = fail(ps, ps->p, "']' after ',' (JSON has no trailing commas)");
                    break;
                }
                continue;
            }
            if (ps->p < ps->end && *ps->p == ']') {
                ps->p++;
                break;
            }
            ok = fail(ps, ps->p, "expected ',' or ']' after a list item, found %s", shown(ps, ps->p));
            break;
        }
    }
    tpl_list *l = tpl_list_new(ps->a, n);
    if (n)
        memcpy(l->items, items, n * sizeof *items);
    free(items);
    /* this list's item records are the NULL ones after first_item (nested
     * lists have set theirs already) */
    for (size_t i = first_item; i < ps->nitems; i++)
        if (!ps->items[i].list)
            ps->items[i].list = l;
    *out = tpl_list_value(l);
    return ok;
}

static bool parse_object(parser *ps, tpl_value *out)
{
    ps->p++; /* { */
    tpl_map *m = tpl_map_new(ps->a, 0);
    size_t first_pos = ps->npos;
    bool ok = true;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
    } else {
        for (;;) {
            skip_ws(ps);
            const char *kq = ps->p;
            if (kq >= ps->end || *kq != '"') {
                ok = fail(ps, kq, "expected a key in double quotes, found %s%s", shown(ps, kq),
                          kq < ps->end && *kq == '}' ? " (JSON has no trailing commas)" : "");
                break;
            }
            if (!(ok = parse_string(ps)))
                break;
            tpl_value k = tpl_str_copy(ps->a, ps->tmp.data, ps->tmp.len);
            if (tpl_map_get(m, k.u.s, k.len).kind != TPL_UNDEFINED) {
                int first = 0;
                for (size_t i = first_pos; i < ps->npos && !first; i++)
                    if (ps->pos[i].map == m && !strcmp(ps->pos[i].key, k.u.s))
                        first = ps->pos[i].line;
                ok = fail(ps, kq, "key \"%s\" is given twice (first at line %d)", k.u.s, first);
                break;
            }
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                ok = fail(ps, ps->p, "expected ':' after the key \"%s\", found %s", k.u.s, shown(ps, ps->p));
                break;
            }
            ps->p++;
            skip_ws(ps);
            const char *vq = ps->p;
            tpl_value v;
            if (!(ok = parse_value(ps, &v)))
                break;
            tpl_map_set(ps->a, m, k, v);
            fm_key_pos *kp = VEC_ADD(ps->pos, ps->npos, ps->cappos, 16);
            kp->map = m;
            kp->key = k.u.s;
            where(ps, kq, &kp->line, &kp->col);
            where(ps, vq, &kp->vline, &kp->vcol);
            skip_ws(ps);
            if (ps->p < ps->end && *ps->p == ',') {
                ps->p++;
                continue;
            }
            if (ps->p < ps->end && *ps->p == '}') {
                ps->p++;
                break;
            }
            ok = fail(ps, ps->p, "expected ',' or '}' after the value of \"%s\", found %s", k.u.s,
                      shown(ps, ps->p));
            break;
        }
    }
    tpl_map_seal(ps->a, m);
    *out = tpl_map_value(m);
    /* the records of this object's keys go after its nested objects' (as
     * fm_parse_yaml_pos orders them): move them to the end */
    size_t mine = 0;
    for (size_t i = first_pos; i < ps->npos; i++)
        if (ps->pos[i].map == m)
            mine++;
    if (mine && mine < ps->npos - first_pos) {
        fm_key_pos *tmp = xmalloc(mine * sizeof *tmp);
        size_t a = 0, b = first_pos;
        for (size_t i = first_pos; i < ps->npos; i++) {
            if (ps->pos[i].map == m)
                tmp[a++] = ps->pos[i];
            else
                ps->pos[b++] = ps->pos[i];
        }
        memcpy(ps->pos + b, tmp, mine * sizeof *tmp);
        free(tmp);
    }
    return ok;
}

static bool parse_value(parser *ps, tpl_value *out)
{
    *out = tpl_none();
    skip_ws(ps);
    const char *q = ps->p;
    if (q >= ps->end)
        return fail(ps, q, "expected a value, found the end of the %s",
                    ps->whole_file ? "file" : "front matter");
    switch (*q) {
    case '{':
    case '[': {
        if (ps->depth >= MAX_DEPTH)
            return fail(ps, q, "nesting is too deep (more than %d levels)", MAX_DEPTH);
        ps->depth++;
        bool ok = *q == '{' ? parse_object(ps, out) : parse_array(ps, out);
        ps->depth--;
        return ok;
    }
    case '"':
        if (!parse_string(ps))
            return false;
        *out = tpl_str_copy(ps->a, ps->tmp.data, ps->tmp.len);
        return true;
    case 't':
        if (parse_literal(ps, "true", tpl_bool(true), out))
            return true;
        break;
    case 'f':
        if (parse_literal(ps, "false", tpl_bool(false), out))
            return true;
        break;
    case 'n':
        if (parse_literal(ps, "null", tpl_none(), out))
            return true;
        break;
    default:
        if (*q == '-' || is_digit(*q))
            return parse_number(ps, out);
        break;
    }
    if (*q == '\'')
        return fail(ps, q, "strings take double quotes in JSON, not single ones");
    return fail(ps, q, "expected a value (a string in double quotes, a number, true, false, null, "
                       "a list or an object), found %s", shown(ps, q));
}

static bool parse_json(str json, int first_line, const char *path, arena *a, tpl_value *out,
                       fm_key_pos **pos, size_t *npos, fm_item_pos **items, size_t *nitems,
                       bool any_root, diag_list *d)
{
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.s = ps.p = json.ptr ? json.ptr : "";
    ps.end = ps.s + json.len;
    ps.line0 = (first_line > 0 ? first_line : 1) - 1;
    ps.path = path;
    ps.a = a;
    ps.d = d;
    ps.tmp = (buf)BUF_INIT;
    ps.at = ps.s;
    ps.at_line = ps.line0 + 1;
    ps.at_col = 1;
    ps.want_items = items != NULL;
    ps.whole_file = any_root;
    tpl_value root = tpl_none();
    size_t bad = text_utf8_check(ps.s, json.len);
    if (bad != (size_t)-1) {
        fail(&ps, ps.s + bad, "not valid UTF-8: byte 0x%02X", (unsigned char)ps.s[bad]);
    } else {
        skip_ws(&ps);
        if (!any_root && (ps.p >= ps.end || *ps.p != '{')) {
            fail(&ps, ps.p, "front matter must be an object ({\"title\": …}), found %s", shown(&ps, ps.p));
        } else if (any_root && ps.p >= ps.end) {
            fail(&ps, ps.p, "no value: the file is empty");
        } else if (parse_value(&ps, &root)) {
            skip_ws(&ps);
            if (ps.p < ps.end)
                fail(&ps, ps.p, any_root ? "%s after the value" : "%s after the object's closing '}'",
                     shown(&ps, ps.p));
        }
    }
    buf_release(&ps.tmp);
    *out = !ps.failed && (any_root || root.kind == TPL_MAP) ? root : tpl_map_value(tpl_map_new(a, 0));
    if (pos) {
        *pos = ps.npos ? arena_alloc(a, ps.npos * sizeof **pos) : NULL;
        if (ps.npos)
            memcpy(*pos, ps.pos, ps.npos * sizeof **pos);
        *npos = ps.npos;
    }
    free(ps.pos);
    if (items) {
        *items = ps.nitems ? arena_alloc(a, ps.nitems * sizeof **items) : NULL;
        if (ps.nitems)
            memcpy(*items, ps.items, ps.nitems * sizeof **items);
        *nitems = ps.nitems;
    }
    free(ps.items);
    return !ps.failed;
}

bool fm_parse_json_pos(str json, int first_line, const char *path, arena *a, tpl_value *out,
                       fm_key_pos **pos, size_t *npos, diag_list *d)
{
    return parse_json(json, first_line, path, a, out, pos, npos, NULL, NULL, false, d);
}

bool fm_parse_json_value(str json, const char *path, arena *a, tpl_value *out, diag_list *d)
{
    return parse_json(json, 1, path, a, out, NULL, NULL, NULL, NULL, true, d);
}

bool fm_parse_json_value_pos(str json, const char *path, arena *a, tpl_value *out, fm_key_pos **pos,
                             size_t *npos, fm_item_pos **items, size_t *nitems, diag_list *d)
{
    return parse_json(json, 1, path, a, out, pos, npos, items, nitems, true, d);
}
