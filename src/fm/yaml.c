/* yaml: libyaml events → template values.
 *
 * libyaml does the scanning and parsing; this file composes its events into
 * a tpl_value tree in the caller's arena, resolving plain scalars the way
 * PyYAML's SafeLoader does (YAML 1.1). Only the first document of a stream is
 * read. libyaml objects are created and freed here and never leave. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <yaml.h>

#include "fm/fm.h"
#include "util/buf.h"
#include "util/date.h"
#include "util/vec.h"
#include "util/xalloc.h"
#include "util/xmlchar.h"

/* Deeper nesting is refused rather than risk the C stack. */
#define MAX_DEPTH 512

/* The most nodes a document's aliases may stand for, counted as if each
 * alias were a copy of what it names (docs/templates.md, Limits). Aliases
 * share, they do not copy, but whatever walks the value — a template that
 * prints it, a comparison — meets every copy: nine levels of ten aliases
 * to the level below, 1 KB of YAML, are 10^9 nodes. */
#define MAX_ALIASED_NODES 1000000

#define YAML_TAG_PREFIX "tag:yaml.org,2002:"

typedef struct anchor {
    char *name;   /* xmalloc'd */
    tpl_value v;
    bool done;    /* false while the anchored collection is being read */
    uint64_t nodes; /* how many nodes v is, aliases in it counted as copies */
} anchor;

typedef struct key_mark {
    yaml_mark_t key, value;
} key_mark;

typedef struct composer {
    yaml_parser_t p;
    str src;
    int first_line;
    const char *path;
    arena *a;
    diag_list *d;
    int errors;
    int depth;
    anchor *anchors;
    size_t nanchors, capanchors;
    uint64_t nodes;   /* composed so far, aliases counted as copies */
    uint64_t aliased; /* of those, the ones aliases stand for */
    /* positions of every mapping's keys (fm_parse_yaml_pos); xmalloc'd
     * while composing, copied into the arena at the end */
    bool want_pos;
    bool xml_chars; /* refuse what XML 1.0 forbids (the site's own files) */
    bool dups_warn; /* FM_DUPS_LAST_WINS */
    fm_key_pos *pos;
    size_t npos, cappos;
} composer;

/* ---- diagnostics ------------------------------------------------------- */

static void error_at(composer *c, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void error_at(composer *c, int line, int col, const char *fmt, ...)
{
    if (c->d) {
        va_list ap;
        va_start(ap, fmt);
        diag_vadd(c->d, DIAG_ERROR, c->path, line, col, fmt, ap);
        va_end(ap);
    }
    c->errors++;
}

static int mark_line(const composer *c, yaml_mark_t m) { return c->first_line + (int)m.line; }
static int mark_col(yaml_mark_t m) { return (int)m.column + 1; }

/* Line and column (1-based, file-relative) of a byte offset into the YAML. */
static void offset_pos(const composer *c, size_t off, int *line, int *col)
{
    if (off > c->src.len)
        off = c->src.len;
    int l = c->first_line, k = 1;
    for (size_t i = 0; i < off; i++) {
        unsigned char ch = (unsigned char)c->src.ptr[i];
        if (ch == '\n') {
            l++;
            k = 1;
        } else if ((ch & 0xC0) != 0x80 && ch != '\r') {
            k++;
        }
    }
    *line = l;
    *col = k;
}

static void report_libyaml_error(composer *c)
{
    yaml_parser_t *p = &c->p;
    const char *problem = p->problem ? p->problem : "unknown YAML error";
    switch (p->error) {
    case YAML_MEMORY_ERROR:
        error_at(c, c->first_line, 1, "YAML: out of memory");
        break;
    case YAML_READER_ERROR: {
        int line, col;
        offset_pos(c, p->problem_offset, &line, &col);
        if (p->problem_value != -1)
            error_at(c, line, col, "YAML: %s (0x%02X)", problem, (unsigned)p->problem_value);
        else
            error_at(c, line, col, "YAML: %s", problem);
        break;
    }
    default: {
        /* `YAML: problem (context at line N)`, as PyYAML shows both marks */
        yaml_mark_t m = p->problem_mark, cm = p->context_mark;
        if (!p->context)
            error_at(c, mark_line(c, m), mark_col(m), "YAML: %s", problem);
        else if (cm.line != m.line || cm.column != m.column)
            error_at(c, mark_line(c, m), mark_col(m), "YAML: %s (%s at line %d)", problem,
                     p->context, mark_line(c, cm));
        else
            error_at(c, mark_line(c, m), mark_col(m), "YAML: %s (%s)", problem, p->context);
        break;
    }
    }
}

static bool next_event(composer *c, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&c->p, ev)) {
        report_libyaml_error(c);
        return false;
    }
    return true;
}

/* ---- anchors ----------------------------------------------------------- */

static size_t anchor_add(composer *c, const char *name, tpl_value v, bool done)
{
    anchor *an = VEC_ADD(c->anchors, c->nanchors, c->capanchors, 8);
    an->name = xstrdup(name);
    an->nodes = 0;
    an->v = v;
    an->done = done;
    return c->nanchors - 1;
}

/* The latest definition wins, as in YAML (PyYAML refuses a second one). */
static const anchor *anchor_find(const composer *c, const char *name)
{
    for (size_t i = c->nanchors; i-- > 0;)
        if (strcmp(c->anchors[i].name, name) == 0)
            return &c->anchors[i];
    return NULL;
}

/* ---- plain scalar resolution (PyYAML's implicit resolvers) -------------- */

static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

static bool eq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static bool match_null(const char *s, size_t n)
{
    return n == 0 || eq(s, n, "~") || eq(s, n, "null") || eq(s, n, "Null") || eq(s, n, "NULL");
}

/* 1 true, 0 false, -1 not a bool. Exact spellings only (yes/Yes/YES…). */
static int match_bool(const char *s, size_t n)
{
    static const char *const yes[] = { "yes", "Yes", "YES", "true", "True", "TRUE",
                                       "on",  "On",  "ON" };
    static const char *const no[] = { "no", "No", "NO", "false", "False", "FALSE",
                                      "off", "Off", "OFF" };
    if (n < 2 || n > 5 || !memchr("yYtToOnNfF", s[0], 10))
        return -1; /* (most scalars: no spelling to compare with) */
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        if (eq(s, n, yes[i]))
            return 1;
        if (eq(s, n, no[i]))
            return 0;
    }
    return -1;
}

/* `:[0-5]?[0-9]` at s[*i] (which is ':'). */
static bool sexa_group(const char *s, size_t n, size_t *i)
{
    size_t k = *i + 1;
    if (k + 1 < n && s[k] >= '0' && s[k] <= '5' && is_digit(s[k + 1]))
        k += 2;
    else if (k < n && is_digit(s[k]))
        k += 1;
    else
        return false;
    *i = k;
    return true;
}

static size_t skip_digits_(const char *s, size_t n, size_t i)
{
    while (i < n && (is_digit(s[i]) || s[i] == '_'))
        i++;
    return i;
}

/* int: [-+]?0b[01_]+ | [-+]?0[0-7_]+ | [-+]?(0|[1-9][0-9_]*) | [-+]?0x[0-9a-fA-F_]+
 *    | [-+]?[1-9][0-9_]*(:[0-5]?[0-9])+ */
static bool match_int(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        i++;
    if (i >= n)
        return false;
    if (s[i] == '0') {
        if (i + 1 == n)
            return true;
        const char *allowed;
        if (s[i + 1] == 'b') {
            allowed = "01_";
            i += 2;
        } else if (s[i + 1] == 'x') {
            allowed = "0123456789abcdefABCDEF_";
            i += 2;
        } else {
            allowed = "01234567_";
            i += 1;
        }
        if (i >= n)
            return false;
        for (; i < n; i++)
            if (!s[i] || !strchr(allowed, s[i]))
                return false;
        return true;
    }
    if (s[i] < '1' || s[i] > '9')
        return false;
    i = skip_digits_(s, n, i + 1);
    while (i < n && s[i] == ':')
        if (!sexa_group(s, n, &i))
            return false;
    return i == n;
}

/* rest is empty or [eE][-+][0-9]+ */
static bool match_exponent(const char *s, size_t n, size_t i)
{
    if (i == n)
        return true;
    if (s[i] != 'e' && s[i] != 'E')
        return false;
    i++;
    if (i >= n || (s[i] != '-' && s[i] != '+'))
        return false;
    i++;
    if (i >= n)
        return false;
    for (; i < n; i++)
        if (!is_digit(s[i]))
            return false;
    return true;
}

/* float: [-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)? | \.[0-9][0-9_]*([eE][-+][0-9]+)?
 *      | [-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]* | [-+]?\.(inf|Inf|INF) | \.(nan|NaN|NAN) */
static bool match_float(const char *s, size_t n)
{
    size_t i = 0;
    bool sign = false;
    if (n > 0 && (s[0] == '-' || s[0] == '+')) {
        i = 1;
        sign = true;
    }
    if (i >= n)
        return false;
    if (s[i] == '.') {
        const char *r = s + i + 1;
        size_t rn = n - i - 1;
        if (eq(r, rn, "inf") || eq(r, rn, "Inf") || eq(r, rn, "INF"))
            return true;
        if (sign)
            return false;
        if (eq(r, rn, "nan") || eq(r, rn, "NaN") || eq(r, rn, "NAN"))
            return true;
        i++;
        if (i >= n || !is_digit(s[i]))
            return false;
        return match_exponent(s, n, skip_digits_(s, n, i + 1));
    }
    if (!is_digit(s[i]))
        return false;
    i = skip_digits_(s, n, i + 1);
    if (i < n && s[i] == '.')
        return match_exponent(s, n, skip_digits_(s, n, i + 1));
    if (i >= n || s[i] != ':')
        return false;
    while (i < n && s[i] == ':')
        if (!sexa_group(s, n, &i))
            return false;
    if (i >= n || s[i] != '.')
        return false;
    return skip_digits_(s, n, i + 1) == n;
}

/* s without underscores, lower-cased, NUL-terminated, in tmp (or malloc'd
 * when longer; *heap says so). */
static char *clean_number(const char *s, size_t n, char *tmp, size_t tmpn, bool *heap)
{
    char *p = tmp;
    *heap = false;
    if (n + 1 > tmpn) {
        p = xmalloc(n + 1);
        *heap = true;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '_')
            continue;
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        p[k++] = ch;
    }
    p[k] = '\0';
    return p;
}

static bool parse_uint(const char *s, int base, uint64_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return false;
    for (; *s; s++) {
        int dgt;
        if (is_digit(*s))
            dgt = *s - '0';
        else if (*s >= 'a' && *s <= 'f')
            dgt = *s - 'a' + 10;
        else
            return false;
        if (dgt >= base)
            return false;
        if (v > (UINT64_MAX - (uint64_t)dgt) / (uint64_t)base)
            return false;
        v = v * (uint64_t)base + (uint64_t)dgt;
    }
    *out = v;
    return true;
}

/* PyYAML's construct_yaml_int on a matching scalar. False when it does not
 * fit in 64 bits (or is malformed, like `0b_`). */
static bool construct_int(const char *s, size_t n, int64_t *out)
{
    char tmp[64];
    bool heap;
    char *v = clean_number(s, n, tmp, sizeof tmp, &heap);
    bool neg = false, ok;
    char *p = v;
    uint64_t u = 0;
    if (*p == '-' || *p == '+') {
        neg = *p == '-';
        p++;
    }
    if (strcmp(p, "0") == 0) {
        ok = true;
    } else if (p[0] == '0' && p[1] == 'b') {
        ok = parse_uint(p + 2, 2, &u);
    } else if (p[0] == '0' && p[1] == 'x') {
        ok = parse_uint(p + 2, 16, &u);
    } else if (p[0] == '0') {
        ok = parse_uint(p + 1, 8, &u);
    } else if (strchr(p, ':')) {
        ok = true;
        for (char *part = p; ok;) {
            char *colon = strchr(part, ':');
            if (colon)
                *colon = '\0';
            uint64_t d;
            ok = parse_uint(part, 10, &d) && u <= (UINT64_MAX - d) / 60;
            if (ok)
                u = u * 60 + d;
            if (!colon)
                break;
            part = colon + 1;
        }
    } else {
        ok = parse_uint(p, 10, &u);
    }
    if (ok && u > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
        ok = false;
    if (ok)
        *out = neg ? (int64_t)(0 - u) : (int64_t)u;
    if (heap)
        free(v);
    return ok;
}

/* PyYAML's construct_yaml_float (also for `!!float 3`). False when the text is
 * not a number at all. */
static bool construct_float(const char *s, size_t n, double *out)
{
    char tmp[64];
    bool heap;
    char *v = clean_number(s, n, tmp, sizeof tmp, &heap);
    char *p = v;
    double sign = 1.0;
    bool ok = true;
    if (*p == '-' || *p == '+') {
        if (*p == '-')
            sign = -1.0;
        p++;
    }
    if (strcmp(p, ".inf") == 0) {
        *out = sign * INFINITY;
    } else if (strcmp(p, ".nan") == 0) {
        *out = NAN;
    } else if (strchr(p, ':')) {
        /* sexagesimal, summed from the right as PyYAML does */
        size_t nparts = 1;
        for (char *q = p; *q; q++)
            if (*q == ':') {
                *q = '\0';
                nparts++;
            }
        char **parts = xmalloc(nparts * sizeof *parts);
        char *q = p;
        for (size_t k = 0; k < nparts; k++) {
            parts[k] = q;
            q += strlen(q) + 1;
        }
        double value = 0.0, base = 1.0;
        for (size_t k = nparts; k-- > 0 && ok;) {
            char *e;
            double d = strtod(parts[k], &e);
            ok = e != parts[k] && *e == '\0' && (is_digit(*parts[k]) || *parts[k] == '.');
            value += d * base;
            base *= 60;
        }
        free(parts);
        *out = sign * value;
    } else {
        char *e;
        ok = *p && !strchr(p, 'x') && (is_digit(*p) || *p == '.');
        if (ok) {
            double d = strtod(p, &e);
            ok = *e == '\0';
            *out = sign * d;
        }
    }
    if (heap)
        free(v);
    return ok;
}

static bool construct_date(const char *s, size_t n, tpl_value *out)
{
    sheaf_date dt;
    if (n < 8 || !is_digit(s[0]) || !date_parse(s, n, &dt))
        return false;
    *out = tpl_date(dt.t, dt.offset_min,
                    (uint8_t)((dt.has_time ? TPL_HAS_TIME : 0) | (dt.has_zone ? TPL_HAS_ZONE : 0)));
    return true;
}

static tpl_value resolve_plain(composer *c, const char *s, size_t n)
{
    tpl_value v;
    if (match_null(s, n))
        return tpl_none();
    int b = match_bool(s, n);
    if (b >= 0)
        return tpl_bool(b);
    if (match_float(s, n) && construct_float(s, n, &v.u.f))
        return tpl_float(v.u.f);
    if (match_int(s, n) && construct_int(s, n, &v.u.i))
        return tpl_int(v.u.i);
    if (construct_date(s, n, &v))
        return v;
    return tpl_str_copy(c->a, s, n);
}

/* A scalar with an explicit tag from the YAML namespace (`!!int 3`). Returns
 * false when the tag is not one of ours; then the scalar resolves as untagged. */
static bool resolve_tagged(composer *c, const char *tag, const char *s, size_t n,
                           yaml_mark_t m, tpl_value *out)
{
    if (strncmp(tag, YAML_TAG_PREFIX, strlen(YAML_TAG_PREFIX)) != 0)
        return false;
    const char *t = tag + strlen(YAML_TAG_PREFIX);
    if (strcmp(t, "str") == 0) {
        *out = tpl_str_copy(c->a, s, n);
        return true;
    }
    if (strcmp(t, "null") == 0) {
        *out = tpl_none();
        return true;
    }
    bool ok;
    if (strcmp(t, "bool") == 0) {
        /* any case: PyYAML looks the lower-cased text up */
        char low[8];
        int b = -1;
        if (n < sizeof low) {
            for (size_t i = 0; i < n; i++)
                low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
            b = match_bool(low, n);
        }
        ok = b >= 0;
        if (ok)
            *out = tpl_bool(b);
    } else if (strcmp(t, "int") == 0) {
        int64_t i = 0;
        ok = match_int(s, n) && construct_int(s, n, &i);
        if (ok)
            *out = tpl_int(i);
    } else if (strcmp(t, "float") == 0) {
        double f = 0;
        ok = construct_float(s, n, &f);
        if (ok)
            *out = tpl_float(f);
    } else if (strcmp(t, "timestamp") == 0) {
        ok = construct_date(s, n, out);
    } else {
        return false;
    }
    if (!ok) {
        error_at(c, mark_line(c, m), mark_col(m), "YAML: '%.*s' is not a valid !!%s value",
                 (int)(n > 200 ? 200 : n), s, t);
        *out = tpl_str_copy(c->a, s, n);
    }
    return true;
}

static tpl_value resolve_scalar(composer *c, const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    tpl_value v;
    if (tag) {
        if (strcmp(tag, "!") == 0) /* PyYAML resolves `! x` as if plain, whatever its style */
            return resolve_plain(c, s, n);
        if (resolve_tagged(c, tag, s, n, ev->start_mark, &v))
            return v;
    }
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return tpl_str_copy(c->a, s, n);
    return resolve_plain(c, s, n);
}

static bool is_merge_key(const yaml_event_t *ev)
{
    if (ev->type != YAML_SCALAR_EVENT)
        return false;
    const char *tag = (const char *)ev->data.scalar.tag;
    if (tag)
        return strcmp(tag, YAML_TAG_PREFIX "merge") == 0;
    return ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && ev->data.scalar.length == 2 &&
           memcmp(ev->data.scalar.value, "<<", 2) == 0;
}

/* ---- composing --------------------------------------------------------- */

static bool compose_node(composer *c, yaml_event_t *ev, tpl_value *out);

typedef struct pair {
    tpl_value k, v;
    yaml_mark_t km, vm;
    bool merge;
} pair;

static const char *kind_name(tpl_value v)
{
    switch (v.kind) {
    case TPL_NONE: return "null";
    case TPL_BOOL: return "a bool";
    case TPL_INT: return "an int";
    case TPL_FLOAT: return "a float";
    case TPL_STRING: return "a string";
    case TPL_DATE: return "a timestamp";
    case TPL_LIST: return "a list";
    default: return "a scalar";
    }
}

/* Sets one entry; with positions, records where it was written (a later
 * duplicate replaces both the value and its position). */
static void map_put(composer *c, tpl_map *m, key_mark *marks, tpl_value k, tpl_value v,
                    yaml_mark_t km, yaml_mark_t vm)
{
    size_t before = m->len;
    tpl_map_set(c->a, m, k, v);
    if (!marks)
        return;
    size_t at = before;
    if (m->len == before) {
        for (at = 0; at < m->len; at++)
            if (tpl_value_equal(m->entries[at].key, k))
                break;
        if (at == m->len)
            return;
    }
    marks[at].key = km;
    marks[at].value = vm;
}

static void merge_map(composer *c, tpl_map *m, key_mark *marks, const tpl_map *src,
                      const pair *p)
{
    for (size_t i = 0; i < src->len; i++)
        map_put(c, m, marks, src->entries[i].key, src->entries[i].value, p->km, p->vm);
}

/* A mapping, from its MAPPING-START event to its end: each key and value
 * composed in turn (with their places, when positions are wanted), `<<`
 * merge keys applied as PyYAML's flatten_mapping does (merged entries
 * first, then the mapping's own, a later key winning), a key that is not
 * a scalar or a merge of something that is not a mapping reported at its
 * line:col. An anchor on the mapping is registered before its entries. */
static bool compose_mapping(composer *c, yaml_event_t *ev, tpl_value *out)
{
    const char *anchor_name = (const char *)ev->data.mapping_start.anchor;
    uint64_t first_node = c->nodes;
    /* room for one entry: a larger mapping gets its room below, once its
     * keys are counted (front matter is kept for the whole build) */
    tpl_map *m = tpl_map_new(c->a, 1);
    size_t ai = anchor_name ? anchor_add(c, anchor_name, tpl_map_value(m), false) : 0;
    yaml_event_delete(ev);

    pair *pairs = NULL;
    size_t n = 0, cap = 0, total = 0;
    bool ok = true;
    for (;;) {
        yaml_event_t ke, ve;
        if (!(ok = next_event(c, &ke)))
            break;
        if (ke.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&ke);
            break;
        }
        pair p = { 0 };
        p.km = ke.start_mark;
        p.merge = is_merge_key(&ke);
        if (!(ok = compose_node(c, &ke, &p.k)))
            break;
        if (!(ok = next_event(c, &ve)))
            break;
        p.vm = ve.start_mark;
        if (!(ok = compose_node(c, &ve, &p.v)))
            break;
        if (p.merge) {
            if (p.v.kind == TPL_MAP) {
                total += p.v.u.map->len;
            } else if (p.v.kind == TPL_LIST) {
                for (size_t i = 0; i < p.v.u.list->len; i++) {
                    tpl_value it = p.v.u.list->items[i];
                    if (it.kind != TPL_MAP) {
                        error_at(c, mark_line(c, p.vm), mark_col(p.vm),
                                 "YAML: expected a mapping for merging, but found %s", kind_name(it));
                        p.merge = false;
                        break;
                    }
                    total += it.u.map->len;
                }
                if (!p.merge)
                    continue;
            } else {
                error_at(c, mark_line(c, p.vm), mark_col(p.vm),
                         "YAML: expected a mapping or list of mappings for merging, but found %s",
                         kind_name(p.v));
                continue;
            }
        } else if (p.k.kind == TPL_LIST || p.k.kind == TPL_MAP) {
            error_at(c, mark_line(c, p.km), mark_col(p.km),
                     "YAML: found unhashable key while constructing a mapping");
            continue;
        } else {
            total++;
        }
        VEC_PUSH(pairs, n, cap, 8, p);
    }
    if (!ok) {
        free(pairs);
        return false;
    }

    /* A key written twice is an error at the second: YAML forbids it, and
     * PyYAML's silent "the last one wins" hides a typo'd second `title:`.
     * Keys compare as the map compares them (1, 1.0 and true are one key);
     * `<<` merges may be overridden, that is what they are for. */
    arena *scratch = n > 1 ? arena_new() : NULL; /* not c->a: only for this check */
    tpl_map *seen = n > 1 ? tpl_map_new(scratch, n) : NULL;
    for (size_t i = 0; seen && i < n; i++) {
        if (pairs[i].merge)
            continue;
        tpl_value first = tpl_map_get_value(seen, pairs[i].k);
        if (first.kind == TPL_UNDEFINED) {
            tpl_map_set(scratch, seen, pairs[i].k, tpl_int((int64_t)i));
            continue;
        }
        const pair *f = &pairs[first.u.i];
        buf b = BUF_INIT;
        tpl_value_repr(pairs[i].k, &b);
        if (c->dups_warn && c->d) /* later ones win, below */
            diag_warning(c->d, c->path, mark_line(c, pairs[i].km), mark_col(pairs[i].km),
                         "YAML: duplicate key %s (first written at line %d, column %d): the last "
                         "one is kept",
                         b.data, mark_line(c, f->km), mark_col(f->km));
        else
            error_at(c, mark_line(c, pairs[i].km), mark_col(pairs[i].km),
                     "YAML: duplicate key %s (first written at line %d, column %d)", b.data,
                     mark_line(c, f->km), mark_col(f->km));
        buf_release(&b);
    }
    arena_free(scratch);

    /* As PyYAML's flatten_mapping: merged entries first (of a list of maps,
     * the earlier map wins), then the mapping's own keys, later ones winning. */
    if (total > m->cap) {
        m->entries = arena_alloc(c->a, total * sizeof *m->entries);
        m->cap = total;
    }
    key_mark *marks = c->want_pos ? xcalloc(total ? total : 1, sizeof *marks) : NULL;
    for (size_t i = 0; i < n; i++) {
        const pair *p = &pairs[i];
        if (!p->merge)
            continue;
        if (p->v.kind == TPL_MAP) {
            merge_map(c, m, marks, p->v.u.map, p);
        } else {
            for (size_t j = p->v.u.list->len; j-- > 0;)
                merge_map(c, m, marks, p->v.u.list->items[j].u.map, p);
        }
    }
    for (size_t i = 0; i < n; i++)
        if (!pairs[i].merge)
            map_put(c, m, marks, pairs[i].k, pairs[i].v, pairs[i].km, pairs[i].vm);
    tpl_map_seal(c->a, m);
    free(pairs);

    if (marks) {
        for (size_t i = 0; i < m->len; i++) {
            tpl_value k = m->entries[i].key;
            fm_key_pos *kp = VEC_ADD(c->pos, c->npos, c->cappos, 16);
            kp->map = m;
            if (k.kind == TPL_STRING) {
                kp->key = k.u.s;
            } else {
                buf b = BUF_INIT;
                tpl_value_to_str(k, &b);
                kp->key = arena_strndup(c->a, b.data, b.len);
                buf_release(&b);
            }
            kp->line = mark_line(c, marks[i].key);
            kp->col = mark_col(marks[i].key);
            kp->vline = mark_line(c, marks[i].value);
            kp->vcol = mark_col(marks[i].value);
        }
        free(marks);
    }

    *out = tpl_map_value(m);
    if (anchor_name) {
        c->anchors[ai].v = *out;
        c->anchors[ai].done = true;
        c->anchors[ai].nodes = c->nodes - first_node + 1; /* + the collection */
    }
    return true;
}

static bool compose_sequence(composer *c, yaml_event_t *ev, tpl_value *out)
{
    const char *anchor_name = (const char *)ev->data.sequence_start.anchor;
    uint64_t first_node = c->nodes;
    size_t ai = anchor_name ? anchor_add(c, anchor_name, tpl_none(), false) : 0;
    yaml_event_delete(ev);

    tpl_value *items = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        yaml_event_t e;
        if (!next_event(c, &e)) {
            free(items);
            return false;
        }
        if (e.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&e);
            break;
        }
        tpl_value v;
        if (!compose_node(c, &e, &v)) {
            free(items);
            return false;
        }
        VEC_PUSH(items, n, cap, 8, v);
    }
    tpl_list *l = tpl_list_new(c->a, n);
    if (n)
        memcpy(l->items, items, n * sizeof *items);
    free(items);
    *out = tpl_list_value(l);
    if (anchor_name) {
        c->anchors[ai].v = *out;
        c->anchors[ai].done = true;
        c->anchors[ai].nodes = c->nodes - first_node + 1; /* + the collection */
    }
    return true;
}

/* Composes the node that starts with *ev (deleting it) into *out. Returns
 * false only when parsing cannot go on (a libyaml error); other problems are
 * reported and give a stand-in value. */
static bool compose_node(composer *c, yaml_event_t *ev, tpl_value *out)
{
    *out = tpl_none();
    switch (ev->type) {
    case YAML_ALIAS_EVENT: {
        const char *name = (const char *)ev->data.alias.anchor;
        const anchor *an = anchor_find(c, name);
        if (!an)
            error_at(c, mark_line(c, ev->start_mark), mark_col(ev->start_mark),
                     "YAML: found undefined alias '%s'", name);
        else if (!an->done)
            error_at(c, mark_line(c, ev->start_mark), mark_col(ev->start_mark),
                     "YAML: alias '%s' refers to a node that contains it", name);
        else if (an->nodes > MAX_ALIASED_NODES - c->aliased) {
            error_at(c, mark_line(c, ev->start_mark), mark_col(ev->start_mark),
                     "YAML: aliases stand for more than %d nodes (this one for %llu more); "
                     "write the values out, or alias less",
                     MAX_ALIASED_NODES, (unsigned long long)an->nodes);
            yaml_event_delete(ev);
            return false;
        } else {
            *out = an->v;
            c->aliased += an->nodes;
            c->nodes += an->nodes;
        }
        yaml_event_delete(ev);
        return true;
    }
    case YAML_SCALAR_EVENT: {
        c->nodes++;
        /* libyaml refuses control characters written as they are, but
         * not escaped ones ("\a", "\x07", "\0"): refused here, as any
         * value may reach a feed (util/xmlchar.h) and NUL would cut it */
        const char *sv = (const char *)ev->data.scalar.value;
        size_t sn = ev->data.scalar.length, bad = c->xml_chars ? xml_forbidden_find(sv, sn) : sn;
        if (bad < sn) {
            char what[16];
            if ((unsigned char)sv[bad] < 0x20)
                snprintf(what, sizeof what, "\\x%02x", (unsigned char)sv[bad]);
            else
                snprintf(what, sizeof what, "U+%s", (unsigned char)sv[bad] == 0xEF ?
                         ((unsigned char)sv[bad + 2] == 0xBE ? "FFFE" : "FFFF") : "D800-DFFF");
            /* reported, not counted: the document is still read, so the
             * file's other checks (an alias's path, …) report too; the
             * error fails the build all the same */
            int errors = c->errors;
            error_at(c, mark_line(c, ev->start_mark), mark_col(ev->start_mark),
                     "YAML: this value holds %s, a character XML 1.0 forbids (no feed or "
                     "sitemap could hold it); remove it", what);
            c->errors = errors;
        }
        *out = resolve_scalar(c, ev);
        if (ev->data.scalar.anchor) {
            size_t ai = anchor_add(c, (const char *)ev->data.scalar.anchor, *out, true);
            c->anchors[ai].nodes = 1;
        }
        yaml_event_delete(ev);
        return true;
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        if (c->depth >= MAX_DEPTH) {
            error_at(c, mark_line(c, ev->start_mark), mark_col(ev->start_mark),
                     "YAML: nesting is too deep (more than %d levels)", MAX_DEPTH);
            yaml_event_delete(ev);
            return false;
        }
        c->depth++;
        c->nodes++;
        bool ok = ev->type == YAML_MAPPING_START_EVENT ? compose_mapping(c, ev, out)
                                                       : compose_sequence(c, ev, out);
        c->depth--;
        return ok;
    }
    default:
        error_at(c, mark_line(c, ev->start_mark), mark_col(ev->start_mark),
                 "YAML: unexpected YAML event");
        yaml_event_delete(ev);
        return false;
    }
}

/* What every fm_parse_yaml* entry point does: runs libyaml over yaml
 * (first_line: the file line it starts at), composes the first document
 * into a value in a, optionally records where each mapping key is written
 * (pos), and reports each problem into d at its line:col. */
static bool parse(str yaml, int first_line, const char *path, arena *a, tpl_value *out,
                  bool want_pos, unsigned flags, fm_key_pos **pos, size_t *npos, diag_list *d)
{
    composer c;
    memset(&c, 0, sizeof c);
    c.dups_warn = flags & FM_DUPS_LAST_WINS;
    c.src = yaml;
    c.first_line = first_line > 0 ? first_line : 1;
    c.path = path;
    c.a = a;
    c.d = d;
    c.want_pos = want_pos;
    c.xml_chars = want_pos; /* front matter and site.yaml: see fm.h */

    tpl_value root = tpl_none();
    bool ok = true;
    if (!yaml_parser_initialize(&c.p)) {
        error_at(&c, c.first_line, 1, "YAML: out of memory");
        ok = false;
    } else {
        yaml_parser_set_input_string(&c.p, (const unsigned char *)(yaml.ptr ? yaml.ptr : ""),
                                     yaml.len);
        yaml_parser_set_encoding(&c.p, YAML_UTF8_ENCODING);
        bool done = false;
        while (ok && !done) {
            yaml_event_t ev;
            if (!(ok = next_event(&c, &ev)))
                break;
            switch (ev.type) {
            case YAML_DOCUMENT_START_EVENT: {
                yaml_event_delete(&ev);
                yaml_event_t node;
                if (!(ok = next_event(&c, &node)))
                    break;
                if (!(ok = compose_node(&c, &node, &root)))
                    break;
                /* the document's end, so errors just after its root show */
                yaml_event_t end;
                if ((ok = next_event(&c, &end)))
                    yaml_event_delete(&end);
                done = true;
                break;
            }
            case YAML_STREAM_END_EVENT:
                done = true;
                yaml_event_delete(&ev);
                break;
            default: /* stream start */
                yaml_event_delete(&ev);
                break;
            }
        }
        yaml_parser_delete(&c.p);
    }
    for (size_t i = 0; i < c.nanchors; i++)
        free(c.anchors[i].name);
    free(c.anchors);

    if (root.kind == TPL_NONE || root.kind == TPL_UNDEFINED) {
        tpl_map *m = tpl_map_new(a, 0);
        root = tpl_map_value(m);
    }
    *out = root;
    if (pos) {
        *pos = c.npos ? arena_alloc(a, c.npos * sizeof **pos) : NULL;
        if (c.npos)
            memcpy(*pos, c.pos, c.npos * sizeof **pos);
        *npos = c.npos;
    }
    free(c.pos);
    return ok && c.errors == 0;
}

bool fm_parse_yaml(str yaml, int first_line, const char *path, arena *a, tpl_value *out,
                   diag_list *d)
{
    return parse(yaml, first_line, path, a, out, false, 0, NULL, NULL, d);
}

const fm_key_pos *fm_key_find(const fm_key_pos *pos, size_t npos, const tpl_map *m, const char *key)
{
    for (size_t i = 0; i < npos; i++)
        if (pos[i].map == m && !strcmp(pos[i].key, key))
            return &pos[i];
    return NULL;
}

bool fm_parse_yaml_pos(str yaml, int first_line, const char *path, arena *a, tpl_value *out,
                       fm_key_pos **pos, size_t *npos, diag_list *d)
{
    return fm_parse_yaml_pos_flags(yaml, first_line, path, a, out, 0, pos, npos, d);
}

bool fm_parse_yaml_pos_flags(str yaml, int first_line, const char *path, arena *a, tpl_value *out,
                             unsigned flags, fm_key_pos **pos, size_t *npos, diag_list *d)
{
    size_t n_ = 0;
    fm_key_pos *p_ = NULL;
    bool ok = parse(yaml, first_line, path, a, out, true, flags, &p_, &n_, d);
    if (pos)
        *pos = p_;
    if (npos)
        *npos = n_;
    return ok;
}
