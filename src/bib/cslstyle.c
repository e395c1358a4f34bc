/* bib/cslstyle.c: the CSL style checker (see cslstyle.h). A one-pass XML
 * reader that keeps only a stack of open element names, and the few CSL
 * facts taken from the tags it meets on the way. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bib/cslstyle.h"
#include "util/buf.h"
#include "util/text.h"
#include "util/vec.h"
#include "util/xalloc.h"

#define CSL_NS "http://purl.org/net/xbiblio/csl"

typedef struct attr {
    const char *name, *value; /* value with its entities decoded (in a) */
    size_t nlen;
    const char *at;           /* where its name starts */
} attr;

typedef struct rd {
    const char *s, *p, *end;
    const char *path;
    arena *a;
    diag_list *d;
    bool failed;
    const char *at;           /* where() counted up to here */
    int at_line, at_col;
    attr *attrs;              /* the current tag's (xmalloc'd) */
    size_t nattrs, capattrs;
    buf val;                  /* an attribute value being decoded */
} rd;

static void where(rd *r, const char *q, int *line, int *col)
{
    if (q < r->at) {
        r->at = r->s;
        r->at_line = r->at_col = 1;
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
    int line, col;
    where(r, q, &line, &col);
    buf msg = BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    diag_error(r->d, r->path, line, col, "%s", msg.data);
    buf_release(&msg);
    r->failed = true;
    return false;
}

static bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static void skip_space(rd *r)
{
    while (r->p < r->end && space(*r->p))
        r->p++;
}

/* XML names, loosely: a letter, '_' or ':' (or any non-ASCII byte) first,
 * then also digits, '-' and '.'. */
static bool name_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80;
}
static bool name_char(unsigned char c)
{
    return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

static size_t name_len(const rd *r)
{
    const char *q = r->p;
    if (q >= r->end || !name_start((unsigned char)*q))
        return 0;
    while (q < r->end && name_char((unsigned char)*q))
        q++;
    return (size_t)(q - r->p);
}

/* What is at q, for a message: 'x', or "the end of the file". */
static const char *shown(rd *r, const char *q)
{
    if (q >= r->end)
        return "the end of the file";
    unsigned char c = (unsigned char)*q;
    if (c < 0x20)
        return arena_printf(r->a, "the control character 0x%02X", c);
    size_t n = 1;
    while (q + n < r->end && ((unsigned char)q[n] & 0xC0) == 0x80)
        n++;
    return arena_printf(r->a, "'%.*s'", (int)n, q);
}

/* An entity reference at r->p ('&'), appended decoded to out. */
static bool entity(rd *r, buf *out)
{
    const char *amp = r->p;
    const char *semi = memchr(amp, ';', (size_t)(r->end - amp) < 12 ? (size_t)(r->end - amp) : 12);
    if (!semi)
        return fail(r, amp, "'&' starts no entity: write '&amp;' for an ampersand");
    const char *n = amp + 1;
    size_t len = (size_t)(semi - n);
    static const struct {
        const char *name, *text;
    } known[] = { { "amp", "&" }, { "lt", "<" }, { "gt", ">" }, { "quot", "\"" }, { "apos", "'" } };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (len == strlen(known[i].name) && !memcmp(n, known[i].name, len)) {
            buf_puts(out, known[i].text);
            r->p = semi + 1;
            return true;
        }
    if (len >= 2 && n[0] == '#') {
        bool hex = n[1] == 'x';
        const char *digits = n + 1 + hex;
        size_t nd = (size_t)(semi - digits);
        uint32_t cp = 0;
        bool ok = nd >= 1 && nd <= (hex ? 6 : 7);
        for (size_t i = 0; ok && i < nd; i++) {
            char c = digits[i];
            int v = c >= '0' && c <= '9' ? c - '0'
                    : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                  : -1;
            ok = v >= 0;
            cp = cp * (hex ? 16 : 10) + (uint32_t)(v < 0 ? 0 : v);
        }
        /* XML 1.0's Char: no NUL or other C0 control but tab, LF, CR; no
         * surrogate; not U+FFFE/U+FFFF; at most U+10FFFF */
        ok = ok && (cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
                    (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF));
        if (!ok)
            return fail(r, amp, "'%.*s' is not a character XML allows", (int)(semi + 1 - amp), amp);
        char u[4];
        size_t k = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
        if (k == 1) {
            u[0] = (char)cp;
        } else {
            for (size_t i = k - 1; i > 0; i--, cp >>= 6)
                u[i] = (char)(0x80 | (cp & 0x3F));
            u[0] = (char)((k == 2 ? 0xC0 : k == 3 ? 0xE0 : 0xF0) | cp);
        }
        buf_put(out, u, k);
        r->p = semi + 1;
        return true;
    }
    return fail(r, amp, "unknown entity '&%.*s;': XML knows &amp; &lt; &gt; &quot; &apos; and &#N;", (int)len, n);
}

/* Skips from r->p past the first `end` (e.g. "-->"); an error at `open`
 * when it is not there. */
static bool skip_past(rd *r, const char *end, const char *open, const char *what)
{
    size_t n = strlen(end);
    for (const char *q = r->p; q + n <= r->end; q++)
        if (!memcmp(q, end, n)) {
            r->p = q + n;
            return true;
        }
    return fail(r, open, "%s is never closed with '%s'", what, end);
}

/* The attributes of a start tag, after its name, up to '>' or '/>'. */
static bool attributes(rd *r, bool *empty)
{
    r->nattrs = 0;
    for (;;) {
        const char *before = r->p;
        skip_space(r);
        if (r->p >= r->end)
            return fail(r, r->p, "a tag that never ends: expected '>' before the end of the file");
        if (*r->p == '>') {
            r->p++;
            *empty = false;
            return true;
        }
        if (*r->p == '/') {
            if (r->p + 1 < r->end && r->p[1] == '>') {
                r->p += 2;
                *empty = true;
                return true;
            }
            return fail(r, r->p, "expected '/>' or '>', found %s", shown(r, r->p + 1));
        }
        size_t n = name_len(r);
        if (!n)
            return fail(r, r->p, "expected an attribute name, '>' or '/>', found %s", shown(r, r->p));
        if (r->p == before)
            return fail(r, r->p, "expected a space before the attribute '%.*s'", (int)n, r->p);
        attr *at = VEC_ADD(r->attrs, r->nattrs, r->capattrs, 8);
        at->name = r->p;
        at->nlen = n;
        at->at = r->p;
        for (size_t i = 0; i + 1 < r->nattrs; i++)
            if (r->attrs[i].nlen == n && !memcmp(r->attrs[i].name, r->p, n))
                return fail(r, r->p, "the attribute '%.*s' is given twice in one tag", (int)n, r->p);
        r->p += n;
        skip_space(r);
        if (r->p >= r->end || *r->p != '=')
            return fail(r, r->p, "expected '=' after the attribute '%.*s', found %s", (int)n, at->name,
                        shown(r, r->p));
        r->p++;
        skip_space(r);
        if (r->p >= r->end || (*r->p != '"' && *r->p != '\''))
            return fail(r, r->p, "the value of '%.*s' must be quoted (\"…\" or '…'), found %s", (int)n, at->name,
                        shown(r, r->p));
        char q = *r->p++;
        const char *open = r->p - 1;
        buf_reset(&r->val);
        for (;;) {
            if (r->p >= r->end)
                return fail(r, open, "the value of '%.*s' is never closed with %c", (int)n, at->name, q);
            if (*r->p == q) {
                r->p++;
                break;
            }
            if (*r->p == '<')
                return fail(r, r->p, "'<' inside the value of '%.*s': write '&lt;'", (int)n, at->name);
            if (*r->p == '&') {
                if (!entity(r, &r->val))
                    return false;
                continue;
            }
            buf_putc(&r->val, *r->p == '\t' || *r->p == '\n' || *r->p == '\r' ? ' ' : *r->p);
            r->p++;
        }
        at->value = arena_strndup(r->a, r->val.data, r->val.len);
    }
}

static const attr *find_attr(const rd *r, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < r->nattrs; i++)
        if (r->attrs[i].nlen == n && !memcmp(r->attrs[i].name, name, n))
            return &r->attrs[i];
    return NULL;
}

/* The local part of a tag name (after any prefix) equals `local`. */
static bool is(const char *name, size_t n, const char *local)
{
    const char *colon = memchr(name, ':', n);
    if (colon) {
        n -= (size_t)(colon + 1 - name);
        name = colon + 1;
    }
    return n == strlen(local) && !memcmp(name, local, n);
}

typedef struct open_tag {
    const char *name;
    size_t n;
    const char *at;
} open_tag;

/* The namespace the root's name is in: xmlns or xmlns:PREFIX. */
static const char *root_namespace(rd *r, const char *name, size_t n)
{
    const char *colon = memchr(name, ':', n);
    if (!colon)
        return find_attr(r, "xmlns") ? find_attr(r, "xmlns")->value : NULL;
    char *an = arena_printf(r->a, "xmlns:%.*s", (int)(colon - name), name);
    const attr *at = find_attr(r, an);
    return at ? at->value : NULL;
}

bool bib_csl_style_check(const char *text, size_t len, const char *path, arena *a, bib_csl_style *out,
                         diag_list *d)
{
    memset(out, 0, sizeof *out);
    rd r = { .s = len ? text : "", .path = path, .a = a, .d = d, .at_line = 1, .at_col = 1 };
    r.p = r.s;
    r.end = r.s + len;
    r.at = r.s;
    r.val = (buf)BUF_INIT;
    open_tag *stack = NULL;
    size_t depth = 0, cap = 0;
    const char *root_at = NULL;
    bool root_done = false, root_ok = false;
    bool in_info = false, in_title = false;
    buf title = BUF_INIT;

    size_t bad = text_utf8_check(r.s, len);
    if (bad != (size_t)-1)
        fail(&r, r.s + bad, "not UTF-8 text: byte 0x%02X (save the style as UTF-8)", (unsigned char)r.s[bad]);
    if (!r.failed && len >= 3 && !memcmp(r.s, "\xEF\xBB\xBF", 3))
        r.p += 3; /* a byte order mark */
    while (!r.failed && r.p < r.end) {
        const char *lt = r.p;
        if (*lt != '<') {
            /* text: only blanks outside the root; entities checked inside */
            if (!depth && !space(*lt)) {
                fail(&r, lt, root_done ? "text after the root element's end: %s" : "text before the root element: %s",
                     shown(&r, lt));
                break;
            }
            if (*lt == '&') {
                buf t = BUF_INIT;
                bool ok = entity(&r, in_title ? &title : &t);
                buf_release(&t);
                if (!ok)
                    break;
                continue;
            }
            if (*lt == '>' && lt - r.s >= 2 && !memcmp(lt - 2, "]]", 2)) {
                fail(&r, lt - 2, "']]>' in text: write ']]&gt;'");
                break;
            }
            if (in_title)
                buf_putc(&title, *lt);
            r.p++;
            continue;
        }
        if (r.p + 4 <= r.end && !memcmp(r.p, "<!--", 4)) {
            r.p += 4;
            if (!skip_past(&r, "-->", lt, "a comment"))
                break;
            continue;
        }
        if (r.p + 9 <= r.end && !memcmp(r.p, "<![CDATA[", 9)) {
            if (!depth) {
                fail(&r, lt, "a CDATA section outside the root element");
                break;
            }
            r.p += 9;
            const char *from = r.p;
            if (!skip_past(&r, "]]>", lt, "a CDATA section"))
                break;
            if (in_title)
                buf_put(&title, from, (size_t)(r.p - 3 - from));
            continue;
        }
        if (r.p + 2 <= r.end && !memcmp(r.p, "<?", 2)) {
            r.p += 2;
            if (!skip_past(&r, "?>", lt, "a processing instruction"))
                break;
            continue;
        }
        if (r.p + 9 <= r.end && !memcmp(r.p, "<!DOCTYPE", 9)) {
            if (depth || root_done) {
                fail(&r, lt, "a DOCTYPE only goes before the root element");
                break;
            }
            const char *gt = memchr(r.p, '>', (size_t)(r.end - r.p));
            const char *br = memchr(r.p, '[', (size_t)(r.end - r.p));
            if (br && (!gt || br < gt)) {
                fail(&r, br, "a DOCTYPE with an internal subset ('[…]'): sheaf reads no DTD");
                break;
            }
            if (!gt) {
                fail(&r, lt, "a DOCTYPE is never closed with '>'");
                break;
            }
            r.p = gt + 1;
            continue;
        }
        if (r.p + 1 < r.end && r.p[1] == '/') { /* an end tag */
            r.p += 2;
            size_t n = name_len(&r);
            if (!n) {
                fail(&r, r.p, "expected a tag name after '</', found %s", shown(&r, r.p));
                break;
            }
            const char *name = r.p;
            r.p += n;
            skip_space(&r);
            if (r.p >= r.end || *r.p != '>') {
                fail(&r, r.p, "expected '>' to end '</%.*s', found %s", (int)n, name, shown(&r, r.p));
                break;
            }
            r.p++;
            if (!depth) {
                fail(&r, lt, "'</%.*s>' closes no element", (int)n, name);
                break;
            }
            open_tag *top = &stack[depth - 1];
            if (top->n != n || memcmp(top->name, name, n)) {
                int line, col;
                where(&r, top->at, &line, &col);
                fail(&r, lt, "'</%.*s>' where '</%.*s>' was expected (the element opened at line %d, column %d)",
                     (int)n, name, (int)top->n, top->name, line, col);
                break;
            }
            if (depth == 2 && is(name, n, "info"))
                in_info = false;
            if (in_title && depth == 3) {
                out->title = arena_strndup(a, title.data, title.len);
                in_title = false;
            }
            depth--;
            if (!depth)
                root_done = true;
            continue;
        }
        /* a start tag */
        r.p++;
        size_t n = name_len(&r);
        if (!n) {
            fail(&r, r.p, "expected a tag name after '<', found %s (write '&lt;' for a '<' in text)", shown(&r, r.p));
            break;
        }
        const char *name = r.p;
        r.p += n;
        bool empty = false;
        if (!attributes(&r, &empty))
            break;
        if (root_done) {
            fail(&r, lt, "a second root element <%.*s>: a style has one, <style>", (int)n, name);
            break;
        }
        if (!depth) {
            root_at = lt;
            const char *ns = root_namespace(&r, name, n);
            if (!is(name, n, "style")) {
                fail(&r, lt, "the root element is <%.*s>, not <style>: this is not a CSL style", (int)n, name);
            } else if (!ns || strcmp(ns, CSL_NS)) {
                fail(&r, lt, "<style> is not in the CSL namespace: it needs xmlns=\"" CSL_NS "\"%s%s%s",
                     ns ? " (it has \"" : "", ns ? ns : "", ns ? "\")" : "");
            } else {
                root_ok = true;
                const attr *at;
                if ((at = find_attr(&r, "default-locale")) && *at->value)
                    out->default_locale = at->value;
                if ((at = find_attr(&r, "class")))
                    out->klass = at->value;
            }
            if (r.failed)
                break;
        } else if (depth == 1) {
            if (is(name, n, "citation"))
                out->has_citation = true;
            else if (is(name, n, "bibliography"))
                out->has_bibliography = true;
            else if (is(name, n, "info") && !empty)
                in_info = true;
        } else if (depth == 2 && in_info) {
            const attr *at;
            if (is(name, n, "category") && (at = find_attr(&r, "citation-format")) && !out->citation_format)
                out->citation_format = at->value;
            else if (is(name, n, "link") && (at = find_attr(&r, "rel")) && !strcmp(at->value, "independent-parent") &&
                     find_attr(&r, "href"))
                out->parent = find_attr(&r, "href")->value;
            else if (is(name, n, "title") && !empty && !out->title)
                in_title = true;
        }
        if (!empty)
            *VEC_ADD(stack, depth, cap, 16) = (open_tag){ name, n, lt };
        else if (!depth)
            root_done = true;
    }
    if (!r.failed && depth) {
        open_tag *top = &stack[depth - 1];
        fail(&r, top->at, "<%.*s> is never closed (the file ends first)", (int)top->n, top->name);
    }
    if (!r.failed && !root_at)
        fail(&r, r.p, "no root element: a CSL style is <style xmlns=\"" CSL_NS "\" …>");
    out->numeric = out->citation_format && !strcmp(out->citation_format, "numeric");
    if (!r.failed && root_ok) {
        if (!out->has_citation && out->parent) {
            fail(&r, root_at,
                 "a dependent style: it has no <citation> or <bibliography> of its own but uses "
                 "those of %s; use that style instead",
                 out->parent);
        } else {
            if (!out->has_citation)
                fail(&r, root_at, "<style> has no <citation>: a CSL style says how to cite in one");
            if (!out->has_bibliography)
                fail(&r, root_at,
                     "<style> has no <bibliography>: sheaf needs one for a page's list of references");
        }
    }
    free(stack);
    free(r.attrs);
    buf_release(&r.val);
    buf_release(&title);
    return !r.failed;
}
