/* html.c: character references, as Python's html.unescape reads them. */
#include "util/html.h"
#include "util/scan.h"

#include <ctype.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

size_t html_unescape_ref(const char *s, size_t n, buf *b)
{
    if (n < 2)
        return 0;
    if (s[1] == '#') {
        size_t i = 2;
        bool hex = i < n && (s[i] == 'x' || s[i] == 'X');
        if (hex)
            i++;
        size_t st = i;
        int64_t cp = 0;
        while (i < n && (hex ? isxdigit((unsigned char)s[i]) : isdigit((unsigned char)s[i]))) {
            int d = isdigit((unsigned char)s[i]) ? s[i] - '0' : tolower((unsigned char)s[i]) - 'a' + 10;
            if (cp <= 0x110000)
                cp = cp * (hex ? 16 : 10) + d;
            i++;
        }
        if (i == st)
            return 0;
        if (i < n && s[i] == ';')
            i++;
        char tmp[8];
        buf_puts(b, html_entity_numeric(cp, tmp));
        return i;
    }
    size_t e = 1;
    while (e < n && e <= 32 && !strchr("\t\n\f <&#;", s[e]))
        e++;
    if (e == 1)
        return 0;
    if (e < n && s[e] == ';')
        e++;
    const char *name = s + 1;
    size_t len = e - 1;
    const char *rep = html_entity_named(name, len);
    if (rep) {
        buf_puts(b, rep);
        return e;
    }
    for (size_t x = len - 1; x > 1; x--) {
        rep = html_entity_named(name, x);
        if (rep) {
            buf_puts(b, rep);
            return 1 + x;
        }
    }
    return 0;
}


/* ---- plain text ---- */

/* isspace and tolower of the C locale (sheaf sets no other), without
 * their calls: they run once a byte of every tag. */
static inline bool c_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static inline unsigned char c_lower(unsigned char c)
{
    return (unsigned)(c - 'A') < 26 ? (unsigned char)(c | 0x20) : c;
}

static bool name_is(const char *s, size_t n, const char *name)
{
    size_t k = strlen(name);
    if (n != k)
        return false;
    for (size_t i = 0; i < k; i++)
        if (c_lower((unsigned char)s[i]) != (unsigned char)name[i])
            return false;
    return true;
}

/* What the plain text does with an element, by its name: a block (a
 * break around it), a void element (no content), an element skipped
 * whole. One lookup a tag, in a table sorted by name. */
enum { TAG_BLOCK = 1, TAG_VOID = 2, TAG_SKIP = 4 };
static const struct tag_kind {
    const char *name;
    unsigned char kind;
} tag_kinds[] = {
    { "address", TAG_BLOCK }, { "annotation", TAG_SKIP }, { "annotation-xml", TAG_SKIP },
    { "area", TAG_VOID }, { "article", TAG_BLOCK }, { "aside", TAG_BLOCK }, { "base", TAG_VOID },
    { "blockquote", TAG_BLOCK }, { "br", TAG_BLOCK | TAG_VOID }, { "button", TAG_SKIP },
    { "caption", TAG_BLOCK }, { "col", TAG_VOID }, { "dd", TAG_BLOCK }, { "details", TAG_BLOCK },
    { "dialog", TAG_BLOCK }, { "div", TAG_BLOCK }, { "dl", TAG_BLOCK }, { "dt", TAG_BLOCK },
    { "embed", TAG_VOID }, { "fieldset", TAG_BLOCK }, { "figcaption", TAG_BLOCK },
    { "figure", TAG_BLOCK }, { "footer", TAG_BLOCK }, { "form", TAG_BLOCK }, { "h1", TAG_BLOCK },
    { "h2", TAG_BLOCK }, { "h3", TAG_BLOCK }, { "h4", TAG_BLOCK }, { "h5", TAG_BLOCK },
    { "h6", TAG_BLOCK }, { "header", TAG_BLOCK }, { "hr", TAG_BLOCK | TAG_VOID },
    { "img", TAG_VOID }, { "input", TAG_VOID }, { "li", TAG_BLOCK }, { "link", TAG_VOID },
    { "main", TAG_BLOCK }, { "meta", TAG_VOID }, { "nav", TAG_BLOCK }, { "ol", TAG_BLOCK },
    { "p", TAG_BLOCK }, { "param", TAG_VOID }, { "pre", TAG_BLOCK }, { "script", TAG_SKIP },
    { "section", TAG_BLOCK }, { "select", TAG_SKIP }, { "source", TAG_VOID },
    { "style", TAG_SKIP }, { "summary", TAG_BLOCK }, { "svg", TAG_SKIP }, { "table", TAG_BLOCK },
    { "tbody", TAG_BLOCK }, { "td", TAG_BLOCK }, { "template", TAG_SKIP },
    { "textarea", TAG_SKIP }, { "tfoot", TAG_BLOCK }, { "th", TAG_BLOCK }, { "thead", TAG_BLOCK },
    { "tr", TAG_BLOCK }, { "track", TAG_VOID }, { "ul", TAG_BLOCK }, { "wbr", TAG_VOID },
};

/* tag_kind for the longer names: a binary search of the table. */
static unsigned tag_kind_long(const char *s, size_t n)
{
    char low[16];
    if (!n || n >= sizeof low)
        return 0;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)c_lower((unsigned char)s[i]);
    low[n] = 0;
    size_t lo = 0, hi = sizeof tag_kinds / sizeof *tag_kinds;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const char *a = low, *b = tag_kinds[mid].name; /* strcmp, inline: */
        while (*a && *a == *b)                           /* most differ at once */
            a++, b++;
        int c = (unsigned char)*a - (unsigned char)*b;
        if (!c)
            return tag_kinds[mid].kind;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

/* The names of up to 8 bytes (all but a few), each packed lower-cased
 * into a number, in an open-addressing table: a tag's kind is then found
 * by one hash and a compare or two, not a binary search of strings. */
#define TAG_SLOTS 256
static struct tag_slot {
    uint64_t key; /* 0: empty */
    unsigned char kind;
} tag_slots[TAG_SLOTS];
static pthread_once_t tag_slots_once = PTHREAD_ONCE_INIT;

static size_t tag_slot_of(uint64_t key) { return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 56); }

static void tag_slots_fill(void)
{
    for (size_t i = 0; i < sizeof tag_kinds / sizeof *tag_kinds; i++) {
        size_t n = strlen(tag_kinds[i].name);
        if (n > 8)
            continue;
        char b[8] = { 0 };
        memcpy(b, tag_kinds[i].name, n); /* the names are lower case */
        uint64_t key = swar_load(b);
        size_t j = tag_slot_of(key);
        while (tag_slots[j].key)
            j = (j + 1) % TAG_SLOTS;
        tag_slots[j] = (struct tag_slot){ key, tag_kinds[i].kind };
    }
}

/* The TAG_ bits of the element named s[0..n) (any case); 0 for others.
 * The name's bytes are letters, digits, '-' and ':' (name_byte); `room`
 * bytes can be read from s. */
static unsigned tag_kind(const char *s, size_t n, size_t room)
{
    if (n && n <= 8) {
        uint64_t key;
        if (room >= 8) {
            key = swar_load(s) & (n < 8 ? ((uint64_t)1 << (8 * n)) - 1 : ~(uint64_t)0);
        } else {
            char b[8] = { 0 };
            memcpy(b, s, n);
            key = swar_load(b);
        }
        /* upper case to lower: 0x20 added to the bytes from 'A' to 'Z',
         * a byte at a time whatever the byte order */
        key |= swar_range(key, 'A', 'Z') >> 2;
        pthread_once(&tag_slots_once, tag_slots_fill);
        for (size_t j = tag_slot_of(key); tag_slots[j].key; j = (j + 1) % TAG_SLOTS)
            if (tag_slots[j].key == key)
                return tag_slots[j].kind;
        return 0;
    }
    return tag_kind_long(s, n);
}

/* The next attribute of a tag's attribute text a[0..n) from *at: its
 * name a[*ns..*ne) (empty for a stray byte) and value *v[0..*vl) (""
 * when it has none); false at the end. Reads name=value, name="value",
 * name='value'. */
static bool next_attr(const char *a, size_t n, size_t *at, size_t *ns, size_t *ne, const char **v,
                      size_t *vl)
{
    size_t i = *at;
    if (i >= n)
        return false;
    while (i < n && (c_space((unsigned char)a[i]) || a[i] == '/'))
        i++;
    *ns = i;
    while (i < n && !c_space((unsigned char)a[i]) && a[i] != '=' && a[i] != '/')
        i++;
    *ne = i;
    while (i < n && c_space((unsigned char)a[i]))
        i++;
    *v = "";
    *vl = 0;
    if (i < n && a[i] == '=') {
        i++;
        while (i < n && c_space((unsigned char)a[i]))
            i++;
        if (i < n && (a[i] == '"' || a[i] == '\'')) {
            char q = a[i++];
            *v = a + i;
            while (i < n && a[i] != q)
                i++;
            *vl = (size_t)(a + i - *v);
            if (i < n)
                i++;
        } else {
            *v = a + i;
            while (i < n && !c_space((unsigned char)a[i]))
                i++;
            *vl = (size_t)(a + i - *v);
        }
    }
    if (*ne == *ns && i < n && *ns == i)
        i++; /* a stray byte: step over it */
    *at = i;
    return true;
}

/* The value of attribute `name` (its first) in a tag's attribute text
 * a[0..n), or NULL; *len its length. */
static const char *attr_value(const char *a, size_t n, const char *name, size_t *len)
{
    size_t i = 0, ns, ne, vl;
    const char *v;
    while (next_attr(a, n, &i, &ns, &ne, &v, &vl))
        if (ne > ns && name_is(a + ns, ne - ns, name)) {
            *len = vl;
            return v;
        }
    return NULL;
}

static bool has_class(const char *v, size_t n, const char *cls)
{
    size_t k = strlen(cls);
    for (size_t i = 0; i < n;) {
        while (i < n && c_space((unsigned char)v[i]))
            i++;
        size_t s = i;
        while (i < n && !c_space((unsigned char)v[i]))
            i++;
        if (i - s == k && !memcmp(v + s, cls, k))
            return true;
    }
    return false;
}

/* Whether the element whose attribute text is a[0..n) is left out: its
 * first aria-hidden is "true", it has a hidden attribute, or its first
 * class names a footnote link. The attributes read once, not once a
 * name. */
static bool hidden(const char *a, size_t n)
{
    size_t i = 0, ns, ne, vl;
    const char *v;
    bool aria_seen = false, class_seen = false;
    while (next_attr(a, n, &i, &ns, &ne, &v, &vl)) {
        const char *name = a + ns;
        size_t nl = ne - ns;
        if (name_is(name, nl, "aria-hidden")) {
            if (!aria_seen && name_is(v, vl, "true"))
                return true;
            aria_seen = true;
        } else if (name_is(name, nl, "hidden")) {
            return true;
        } else if (name_is(name, nl, "class")) {
            if (!class_seen
                && (has_class(v, vl, "footnote-ref") || has_class(v, vl, "footnote-backref")))
                return true;
            class_seen = true;
        }
    }
    return false;
}

typedef struct plain {
    buf *out;
    size_t start;  /* out->len when this text began */
    int pending;   /* 0 none, 1 a space, 2 a line break before the next text */
    bool lines;
    const size_t *marks; /* html offsets, ascending, whose text offsets */
    size_t *at;          /* are wanted in at[] */
    size_t nmarks, next;
} plain;

/* Notes the text offset of every mark at or before html offset i: where
 * the next text will start. */
static void plain_marks(plain *p, size_t i)
{
    for (; p->next < p->nmarks && p->marks[p->next] <= i; p->next++)
        p->at[p->next] = p->out->len + (p->pending && p->out->len > p->start);
}

static void plain_break(plain *p, int kind)
{
    if (kind == 2 && !p->lines)
        kind = 1;
    if (kind > p->pending)
        p->pending = kind;
}

static bool plain_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* Text: each run of blanks is one pending space, written (or a line
 * break) only when text follows. A block of SCAN_STEP bytes that holds no
 * two blanks in a row is copied as it is, its blanks as spaces: most
 * running text (a blank first in it is the pending separator, unless
 * nothing was written yet); any other block a byte at a time.
 * Never more than n + 1 bytes are written (a separator, then at most one
 * byte a byte read), so room is made once. */
static void plain_put(plain *p, const char *s, size_t n)
{
    buf *o = p->out;
    if (o->len + n + 2 > o->cap) /* (buf_grow's test, without the call) */
        buf_grow(o, n + 1);
    char *d = o->data + o->len, *start = o->data + p->start;
    int pending = p->pending;
    size_t i = 0;
    while (i < n) {
        if (n - i >= SCAN_STEP) {
            scan_spaced blk;
            unsigned blank = scan_blank_spaced(s + i, &blk);
            if (!(blank & (blank >> 1)) && (!(blank & 1) || d > start)) {
                if (blank & 1) { /* the separator: a line break when one is pending */
                    scan_put_spaced(d, &blk);
                    if (pending == 2)
                        *d = '\n';
                } else {
                    if (pending && d > start)
                        *d++ = pending == 2 ? '\n' : ' ';
                    scan_put_spaced(d, &blk);
                }
                pending = 0;
                d += SCAN_STEP;
                i += SCAN_STEP;
                if (blank >> (SCAN_STEP - 1)) { /* it ends with a blank: pending */
                    d--;
                    pending = 1;
                }
                continue;
            }
        }
        for (size_t end = n - i > SCAN_STEP ? i + SCAN_STEP : n; i < end; i++) {
            char c = s[i];
            if (plain_space(c)) {
                if (!pending)
                    pending = 1;
                continue;
            }
            if (pending && d > start)
                *d++ = pending == 2 ? '\n' : ' ';
            pending = 0;
            *d++ = c;
        }
    }
    o->len = (size_t)(d - o->data);
    *d = '\0';
    p->pending = pending;
}

/* Text with its character references decoded. */
static void plain_text(plain *p, const char *s, size_t n)
{
    buf t = BUF_INIT;
    for (size_t i = 0; i < n;) {
        const char *amp = memchr(s + i, '&', n - i);
        size_t e = amp ? (size_t)(amp - s) : n;
        plain_put(p, s + i, e - i);
        if (!amp)
            break;
        buf_reset(&t);
        size_t k = html_unescape_ref(s + e, n - e, &t);
        if (k) {
            plain_put(p, t.data, t.len);
            i = e + k;
        } else {
            plain_put(p, "&", 1);
            i = e + 1;
        }
    }
    if (t.cap)
        buf_release(&t);
}

/* The end of the tag whose name ends at h[from]: the index of the first
 * '>' outside quoted values, or n. */
static size_t tag_end(const char *h, size_t from, size_t n)
{
    char q = 0;
    for (size_t e = from; e < n; e++) {
        if (q) {
            if (h[e] == q)
                q = 0;
        } else if (h[e] == '"' || h[e] == '\'') {
            q = h[e];
        } else if (h[e] == '>') {
            return e;
        }
    }
    return n;
}

/* A byte of a tag's name after its first: an ASCII letter or digit, '-'
 * or ':' (isalnum without its locale lookup: a call a byte). */
static inline bool name_byte(unsigned char c)
{
    return (unsigned)((c | 0x20) - 'a') < 26 || (unsigned)(c - '0') < 10 || c == '-' || c == ':';
}

/* Reads the tag at h[t] == '<': its name and whether it closes. Returns
 * false when no tag starts there (a '<' that is text). */
static bool tag_name(const char *h, size_t t, size_t n, size_t *ns, size_t *ne, bool *closing)
{
    size_t s = t + 1;
    *closing = s < n && h[s] == '/';
    if (*closing)
        s++;
    if (s >= n || (unsigned)(((unsigned char)h[s] | 0x20) - 'a') >= 26) /* isalpha */
        return false;
    size_t e = s;
    while (e < n && name_byte((unsigned char)h[e]))
        e++;
    *ns = s;
    *ne = e;
    return true;
}

/* The first "</name" at or after `from` (any case), or n; `memo` keeps the
 * last answer, so that nested or unclosed elements cost one search. */
typedef struct close_memo {
    size_t from, at;
} close_memo;

static size_t find_close(const char *h, size_t from, size_t n, const char *name, close_memo *m)
{
    if (m->from <= from && m->at >= from)
        return m->at;
    size_t at = n;
    for (const char *lt = memchr(h + from, '<', n - from); lt;
         lt = (size_t)(lt - h) + 1 < n ? memchr(lt + 1, '<', (size_t)(h + n - lt - 1)) : NULL) {
        size_t i = (size_t)(lt - h), ns, ne;
        bool closing;
        if (tag_name(h, i, n, &ns, &ne, &closing) && closing && name_is(h + ns, ne - ns, name)) {
            at = i;
            break;
        }
    }
    m->from = from;
    m->at = at;
    return at;
}

/* A formula's TeX: the text of its <annotation encoding="application/x-tex">
 * within h[from..to), written to p; false when it has none. */
static bool math_tex(plain *p, const char *h, size_t from, size_t to)
{
    for (size_t i = from; i < to;) {
        const char *lt = memchr(h + i, '<', to - i);
        if (!lt)
            return false;
        size_t t = (size_t)(lt - h), ns, ne;
        bool closing;
        if (!tag_name(h, t, to, &ns, &ne, &closing)) {
            i = t + 1;
            continue;
        }
        size_t e = tag_end(h, ne, to);
        if (!closing && name_is(h + ns, ne - ns, "annotation")) {
            size_t l;
            const char *enc = attr_value(h + ne, e - ne, "encoding", &l);
            size_t body = e < to ? e + 1 : to;
            close_memo m = { 1, 0 };
            size_t end = find_close(h, body, to, "annotation", &m);
            if (enc && name_is(enc, l, "application/x-tex")) {
                plain_text(p, h + body, end - body);
                return true;
            }
            i = end < to ? end + 1 : to;
            continue;
        }
        i = e < to ? e + 1 : to;
    }
    return false;
}

/* Past the element opened by the tag ending at h[after - 1], named
 * name[0..nl): its end tag matched by counting elements of that name. */
static size_t skip_element(const char *h, size_t after, size_t n, const char *name, size_t nl)
{
    int depth = 1;
    size_t j = after;
    while (j < n) {
        const char *lt = memchr(h + j, '<', n - j);
        if (!lt)
            return n;
        size_t t = (size_t)(lt - h), ns, ne;
        bool closing;
        if (!tag_name(h, t, n, &ns, &ne, &closing)) {
            j = t + 1;
            continue;
        }
        size_t e = tag_end(h, ne, n);
        j = e < n ? e + 1 : n;
        if (ne - ns != nl || strncasecmp(h + ns, name, nl))
            continue;
        if (closing) {
            if (--depth == 0)
                return j;
        } else if (!(e < n && e > ne && h[e - 1] == '/')) {
            depth++;
        }
    }
    return n;
}

void html_plain_text(buf *out, const char *h, size_t n, bool lines)
{
    html_plain_text_marked(out, h, n, lines, NULL, NULL, 0);
}

void html_plain_text_marked(buf *out, const char *h, size_t n, bool lines, const size_t *marks,
                            size_t *at, size_t nmarks)
{
    plain p = { .out = out, .start = out->len, .lines = lines, .marks = marks, .at = at,
                .nmarks = nmarks };
    close_memo math_close = { 1, 0 };
    size_t no_tex_before = 0; /* a formula closing here has no TeX */
    size_t i = 0;
    while (i < n) {
        const char *lt = memchr(h + i, '<', n - i);
        size_t t = lt ? (size_t)(lt - h) : n;
        for (plain_marks(&p, i); p.next < nmarks && marks[p.next] < t; plain_marks(&p, i)) {
            plain_text(&p, h + i, marks[p.next] - i); /* text up to a mark inside it */
            i = marks[p.next];
        }
        plain_text(&p, h + i, t - i);
        plain_marks(&p, t);
        if (t >= n)
            break;
        if (t + 4 <= n && !memcmp(h + t, "<!--", 4)) { /* a comment */
            const char *e = t + 4 < n ? memmem(h + t + 4, n - t - 4, "-->", 3) : NULL;
            i = e ? (size_t)(e - h) + 3 : n;
            continue;
        }
        size_t ns, ne;
        bool closing;
        if (!tag_name(h, t, n, &ns, &ne, &closing)) {
            if (t + 1 < n && (h[t + 1] == '!' || h[t + 1] == '?')) { /* <!DOCTYPE>, <?…> */
                const char *gt = memchr(h + t, '>', n - t);
                i = gt ? (size_t)(gt - h) + 1 : n;
            } else {
                plain_text(&p, "<", 1); /* a '<' that opens no tag is text */
                i = t + 1;
            }
            continue;
        }
        size_t e = tag_end(h, ne, n);
        size_t after = e < n ? e + 1 : n;
        const char *name = h + ns;
        size_t nl = ne - ns;
        unsigned kind = tag_kind(name, nl, n - ns);
        bool block = kind & TAG_BLOCK;
        if (block)
            plain_break(&p, 2);
        i = after;
        if (closing)
            continue;
        if (nl == 4 && !strncasecmp(name, "math", 4)) {
            size_t close = find_close(h, after, n, "math", &math_close);
            if (close != no_tex_before && math_tex(&p, h, after, close)) {
                i = close < n ? tag_end(h, close, n) : n;
                i = i < n ? i + 1 : n;
            } else {
                no_tex_before = close; /* its text, less the annotations */
            }
            continue;
        }
        bool self_closing = e < n && e > ne && h[e - 1] == '/';
        /* (a tag without attributes, most of them, is not hidden) */
        if (!self_closing && !(kind & TAG_VOID) &&
            ((kind & TAG_SKIP) || (e > ne + 1 && hidden(h + ne, e - ne)))) {
            i = skip_element(h, after, n, name, nl);
            if (block)
                plain_break(&p, 2);
        }
    }
    p.pending = 0;
    plain_marks(&p, (size_t)-1);
    for (size_t k = 0; k < nmarks; k++)
        if (at[k] > out->len) /* a space that was never written */
            at[k] = out->len;
}
