/* fm: front matter splitting and YAML → template values with libyaml's
 * event parser.
 *
 * Plain scalars resolve as PyYAML (YAML 1.1) does: null, bools
 * (yes/no/on/off/true/false in their usual cases), ints (decimal, 0x, 0o and
 * leading-0 octal, 0b, underscores), floats (incl. .inf/.nan) and timestamps
 * (→ TPL_DATE). Quoted and block scalars are strings; explicit tags
 * (!!str, !!int, !!float, !!bool, !!null) are honoured. Anchors, aliases and
 * `<<` merge keys work; a later duplicate key wins. Only the first document
 * of a stream is read. Errors carry the file's line and column. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "fm/fm.h"
#include "util/date.h"

/* ---- splitting --------------------------------------------------------- */

/* Is the line [p, e) a fence (`---` or `...` with trailing blanks)? */
static bool is_fence(const char *p, const char *e, const char *fence)
{
    if (e - p < 3 || memcmp(p, fence, 3) != 0)
        return false;
    for (p += 3; p < e; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r')
            return false;
    return true;
}

bool fm_split_source(str src, const char *path, fm_split *out, diag_list *d)
{
    const char *s = src.ptr, *end = src.ptr + src.len;
    memset(out, 0, sizeof *out);
    if (end - s >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3))
        s += 3;
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const char *e1 = nl ? nl : end;
    if (!is_fence(s, e1, "---") || !nl) {
        out->body = str_make(s, (size_t)(end - s));
        out->body_line = 1;
        out->yaml = str_make(s, 0);
        return true;
    }
    const char *y = nl + 1;
    int line = 2;
    for (const char *p = y; p < end;) {
        const char *n = memchr(p, '\n', (size_t)(end - p));
        const char *le = n ? n : end;
        if (is_fence(p, le, "---") || is_fence(p, le, "...")) {
            out->has_front_matter = true;
            out->yaml = str_make(y, (size_t)(p - y));
            out->yaml_line = 2;
            out->body = n ? str_make(n + 1, (size_t)(end - n - 1)) : str_make(end, 0);
            out->body_line = line + 1;
            return true;
        }
        line++;
        if (!n)
            break;
        p = n + 1;
    }
    diag_error(d, path, 1, 1, "front matter opened here is never closed (expected a line '---')");
    return false;
}

/* ---- YAML ---------------------------------------------------------------- */

typedef struct anchor {
    char *name;
    tpl_value v;
} anchor;

typedef struct yparser {
    yaml_parser_t p;
    const char *path;
    int line0;
    arena *a;
    diag_list *d;
    anchor *anchors;
    size_t nanchors, capanchors;
    bool failed;
    fm_key_pos *pos;
    size_t npos, cappos;
    bool want_pos;
} yparser;

static bool yerr(yparser *y, int line, int col, const char *fmt, const char *arg)
{
    if (!y->failed)
        diag_error(y->d, y->path, line, col, fmt, arg);
    y->failed = true;
    return false;
}

static bool next_event(yparser *y, yaml_event_t *ev)
{
    if (yaml_parser_parse(&y->p, ev))
        return true;
    yaml_mark_t m = y->p.problem_mark;
    buf b = BUF_INIT;
    buf_puts(&b, y->p.problem ? y->p.problem : "invalid YAML");
    if (y->p.context) {
        buf_printf(&b, " (%s", y->p.context);
        if (y->p.context_mark.line != m.line || y->p.context_mark.column != m.column)
            buf_printf(&b, " at line %d", (int)y->p.context_mark.line + y->line0);
        buf_putc(&b, ')');
    }
    yerr(y, (int)m.line + y->line0, (int)m.column + 1, "YAML: %s", b.data);
    buf_release(&b);
    return false;
}

static void add_anchor(yparser *y, const yaml_char_t *name, tpl_value v)
{
    if (!name)
        return;
    if (y->nanchors == y->capanchors) {
        y->capanchors = y->capanchors ? y->capanchors * 2 : 8;
        anchor *na = arena_alloc(y->a, y->capanchors * sizeof *na);
        if (y->nanchors)
            memcpy(na, y->anchors, y->nanchors * sizeof *na);
        y->anchors = na;
    }
    y->anchors[y->nanchors].name = arena_strdup(y->a, (const char *)name);
    y->anchors[y->nanchors].v = v;
    y->nanchors++;
}

static bool all_digits(const char *s, const char *digits)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!strchr(digits, *s) && *s != '_')
            return false;
    return true;
}

static bool is_one_of(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp(s, list[i]))
            return true;
    return false;
}

static tpl_value parse_int(const char *s, bool *ok)
{
    char tmp[96];
    size_t k = 0;
    bool neg = false;
    *ok = false;
    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    int base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        if (!all_digits(s, "0123456789abcdefABCDEF"))
            return tpl_none();
    } else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
        base = 8;
        s += 2;
        if (!all_digits(s, "01234567"))
            return tpl_none();
    } else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
        base = 2;
        s += 2;
        if (!all_digits(s, "01"))
            return tpl_none();
    } else if (s[0] == '0' && s[1]) {
        base = 8;
        if (!all_digits(s, "01234567"))
            return tpl_none();
    } else if (!all_digits(s, "0123456789") || *s == '_') {
        return tpl_none();
    }
    for (; *s && k < sizeof tmp - 1; s++)
        if (*s != '_')
            tmp[k++] = *s;
    tmp[k] = 0;
    errno = 0;
    long long v = strtoll(tmp, NULL, base);
    if (errno)
        return tpl_none();
    *ok = true;
    return tpl_int(neg ? -v : v);
}

static tpl_value parse_float(const char *s, bool *ok)
{
    *ok = false;
    static const char *const inf[] = { ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", NULL };
    static const char *const ninf[] = { "-.inf", "-.Inf", "-.INF", NULL };
    static const char *const nan_[] = { ".nan", ".NaN", ".NAN", NULL };
    if (is_one_of(s, inf)) {
        *ok = true;
        return tpl_float(INFINITY);
    }
    if (is_one_of(s, ninf)) {
        *ok = true;
        return tpl_float(-INFINITY);
    }
    if (is_one_of(s, nan_)) {
        *ok = true;
        return tpl_float(NAN);
    }
    /* PyYAML: [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)? | [-+]?\.[0-9_]+(?:[eE][-+][0-9]+)? */
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    const char *intpart = p;
    while (isdigit((unsigned char)*p) || (*p == '_' && p != intpart))
        p++;
    if (*p != '.')
        return tpl_none();
    bool had_int = p > intpart;
    p++;
    const char *frac = p;
    while (isdigit((unsigned char)*p) || *p == '_')
        p++;
    if (!had_int && p == frac)
        return tpl_none();
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p != '+' && *p != '-')
            return tpl_none();
        p++;
        if (!isdigit((unsigned char)*p))
            return tpl_none();
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p)
        return tpl_none();
    char tmp[128];
    size_t k = 0;
    for (const char *q = s; *q && k < sizeof tmp - 1; q++)
        if (*q != '_')
            tmp[k++] = *q;
    tmp[k] = 0;
    *ok = true;
    return tpl_float(strtod(tmp, NULL));
}

/* Resolves a plain scalar (or one tagged explicitly). */
static tpl_value resolve_scalar(yparser *y, const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
    static const char *const trues[] = { "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", NULL };
    static const char *const falses[] = { "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", NULL };
    bool ok;
    if (tag && !strcmp(tag, YAML_STR_TAG))
        return tpl_str_copy(y->a, s, n);
    if (tag && strcmp(tag, "!") && strncmp(tag, "tag:yaml.org,2002:", 18))
        return tpl_str_copy(y->a, s, n); /* local tags: keep the text */
    if (!plain && !tag)
        return tpl_str_copy(y->a, s, n);
    if (tag && !strcmp(tag, "!"))
        return tpl_str_copy(y->a, s, n);
    if (strlen(s) != n) /* embedded NUL: only a string */
        return tpl_str_copy(y->a, s, n);
    if ((!tag || !strcmp(tag, YAML_NULL_TAG)) && is_one_of(s, nulls))
        return tpl_none();
    if (!tag || !strcmp(tag, YAML_BOOL_TAG)) {
        if (is_one_of(s, trues))
            return tpl_bool(true);
        if (is_one_of(s, falses))
            return tpl_bool(false);
    }
    if (!tag || !strcmp(tag, YAML_INT_TAG)) {
        tpl_value v = parse_int(s, &ok);
        if (ok)
            return v;
    }
    if (!tag || !strcmp(tag, YAML_FLOAT_TAG)) {
        tpl_value v = parse_float(s, &ok);
        if (ok)
            return v;
        if (tag) {
            v = parse_int(s, &ok);
            if (ok)
                return tpl_float((double)v.u.i);
        }
    }
    if (!tag || !strcmp(tag, YAML_TIMESTAMP_TAG)) {
        sheaf_date dt;
        if (n >= 8 && isdigit((unsigned char)s[0]) && date_parse(s, n, &dt))
            return tpl_date(dt.t, dt.offset_min,
                            (uint8_t)((dt.has_time ? TPL_HAS_TIME : 0) | (dt.has_zone ? TPL_HAS_ZONE : 0)));
    }
    if (tag && strcmp(tag, YAML_STR_TAG)) {
        yerr(y, (int)ev->start_mark.line + y->line0, (int)ev->start_mark.column + 1,
             "YAML: '%s' does not match its tag", s);
        return tpl_none();
    }
    return tpl_str_copy(y->a, s, n);
}

static bool parse_node(yparser *y, yaml_event_t *ev, tpl_value *out, int depth);

static void push_pos(yparser *y, const char *key, const yaml_event_t *k, const yaml_event_t *v)
{
    if (y->npos == y->cappos) {
        y->cappos = y->cappos ? y->cappos * 2 : 16;
        fm_key_pos *np = arena_alloc(y->a, y->cappos * sizeof *np);
        if (y->npos)
            memcpy(np, y->pos, y->npos * sizeof *np);
        y->pos = np;
    }
    fm_key_pos *p = &y->pos[y->npos++];
    p->key = key;
    p->line = (int)k->start_mark.line + y->line0;
    p->col = (int)k->start_mark.column + 1;
    p->vline = (int)v->start_mark.line + y->line0;
    p->vcol = (int)v->start_mark.column + 1;
}

static bool parse_mapping(yparser *y, yaml_event_t *start, tpl_value *out, int depth)
{
    tpl_map *m = tpl_map_new(y->a, 8);
    yaml_char_t *anchor_name = start->data.mapping_start.anchor
                                   ? (yaml_char_t *)arena_strdup(y->a, (const char *)start->data.mapping_start.anchor)
                                   : NULL;
    yaml_event_delete(start);
    for (;;) {
        yaml_event_t kev;
        if (!next_event(y, &kev))
            return false;
        if (kev.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&kev);
            break;
        }
        yaml_event_t kcopy = kev; /* marks only */
        bool is_merge = kev.type == YAML_SCALAR_EVENT && kev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                        !strcmp((const char *)kev.data.scalar.value, "<<");
        tpl_value key;
        if (!parse_node(y, &kev, &key, depth + 1))
            return false;
        yaml_event_t vev;
        if (!next_event(y, &vev))
            return false;
        yaml_event_t vcopy = vev;
        tpl_value val;
        if (!parse_node(y, &vev, &val, depth + 1))
            return false;
        if (is_merge) {
            /* merge one map or a list of maps; existing keys win */
            const tpl_value *srcs = &val;
            size_t nsrc = 1;
            if (val.kind == TPL_LIST) {
                srcs = val.u.list->items;
                nsrc = val.u.list->len;
            }
            for (size_t i = 0; i < nsrc; i++) {
                if (srcs[i].kind != TPL_MAP)
                    return yerr(y, (int)vcopy.start_mark.line + y->line0, (int)vcopy.start_mark.column + 1,
                                "YAML: %s", "'<<' needs a mapping or a list of mappings");
                for (size_t k = 0; k < srcs[i].u.map->len; k++) {
                    const tpl_map_entry *e = &srcs[i].u.map->entries[k];
                    if (tpl_map_get_value(m, e->key).kind == TPL_UNDEFINED)
                        tpl_map_set(y->a, m, e->key, e->value);
                }
            }
            continue;
        }
        if (key.kind == TPL_LIST || key.kind == TPL_MAP)
            return yerr(y, (int)kcopy.start_mark.line + y->line0, (int)kcopy.start_mark.column + 1,
                        "YAML: %s", "a mapping key must be a plain value, not a list or mapping");
        if (key.kind == TPL_NONE)
            key = tpl_str("None");
        tpl_map_set(y->a, m, key, val);
        if (y->want_pos && depth == 0 && key.kind == TPL_STRING)
            push_pos(y, key.u.s, &kcopy, &vcopy);
    }
    tpl_map_seal(y->a, m);
    *out = tpl_map_value(m);
    add_anchor(y, anchor_name, *out);
    return true;
}

static bool parse_sequence(yparser *y, yaml_event_t *start, tpl_value *out, int depth)
{
    size_t n = 0, cap = 8;
    tpl_value *items = arena_alloc(y->a, cap * sizeof *items);
    yaml_char_t *anchor_name = start->data.sequence_start.anchor
                                   ? (yaml_char_t *)arena_strdup(y->a, (const char *)start->data.sequence_start.anchor)
                                   : NULL;
    yaml_event_delete(start);
    for (;;) {
        yaml_event_t ev;
        if (!next_event(y, &ev))
            return false;
        if (ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if (n == cap) {
            cap *= 2;
            tpl_value *ni = arena_alloc(y->a, cap * sizeof *ni);
            memcpy(ni, items, n * sizeof *ni);
            items = ni;
        }
        if (!parse_node(y, &ev, &items[n], depth + 1))
            return false;
        n++;
    }
    tpl_list *l = tpl_list_new(y->a, n);
    if (n)
        memcpy(l->items, items, n * sizeof *items);
    *out = tpl_list_value(l);
    add_anchor(y, anchor_name, *out);
    return true;
}

/* Consumes ev (deleting it) and everything below it. */
static bool parse_node(yparser *y, yaml_event_t *ev, tpl_value *out, int depth)
{
    if (depth > 200) {
        yaml_event_delete(ev);
        return yerr(y, (int)ev->start_mark.line + y->line0, 1, "YAML: %s", "nesting too deep");
    }
    switch (ev->type) {
    case YAML_SCALAR_EVENT: {
        *out = resolve_scalar(y, ev);
        if (ev->data.scalar.anchor)
            add_anchor(y, ev->data.scalar.anchor, *out);
        yaml_event_delete(ev);
        return !y->failed;
    }
    case YAML_ALIAS_EVENT: {
        const char *name = (const char *)ev->data.alias.anchor;
        for (size_t i = y->nanchors; i-- > 0;)
            if (!strcmp(y->anchors[i].name, name)) {
                *out = y->anchors[i].v;
                yaml_event_delete(ev);
                return true;
            }
        yerr(y, (int)ev->start_mark.line + y->line0, (int)ev->start_mark.column + 1,
             "YAML: unknown alias '*%s'", name);
        yaml_event_delete(ev);
        return false;
    }
    case YAML_MAPPING_START_EVENT:
        return parse_mapping(y, ev, out, depth);
    case YAML_SEQUENCE_START_EVENT:
        return parse_sequence(y, ev, out, depth);
    default:
        yaml_event_delete(ev);
        return yerr(y, (int)ev->start_mark.line + y->line0, (int)ev->start_mark.column + 1, "YAML: %s",
                    "unexpected event");
    }
}

bool fm_parse_yaml_pos(str yaml, int first_line, const char *path, arena *a, tpl_value *out,
                       fm_key_pos **pos, size_t *npos, diag_list *d)
{
    yparser y = { .path = path, .line0 = first_line, .a = a, .d = d, .want_pos = pos != NULL };
    *out = tpl_map_value(tpl_map_new(a, 0));
    if (pos) {
        *pos = NULL;
        *npos = 0;
    }
    /* libyaml wants a mutable buffer; and an empty document is an empty map */
    bool blank = true;
    for (size_t i = 0; i < yaml.len && blank; i++)
        blank = isspace((unsigned char)yaml.ptr[i]);
    if (blank)
        return true;
    if (!yaml_parser_initialize(&y.p)) {
        diag_error(d, path, first_line, 1, "YAML: out of memory");
        return false;
    }
    yaml_parser_set_input_string(&y.p, (const unsigned char *)yaml.ptr, yaml.len);
    yaml_parser_set_encoding(&y.p, YAML_UTF8_ENCODING);
    bool ok = false;
    yaml_event_t ev;
    /* stream start, document start */
    for (;;) {
        if (!next_event(&y, &ev))
            goto done;
        yaml_event_type_t t = ev.type;
        if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_START_EVENT) {
            yaml_event_delete(&ev);
            continue;
        }
        if (t == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            ok = true;
            goto done;
        }
        break;
    }
    ok = parse_node(&y, &ev, out, 0);
    if (ok) {
        /* the rest of the first document must parse too */
        yaml_event_t e2;
        if (!next_event(&y, &e2))
            ok = false;
        else
            yaml_event_delete(&e2);
    }
    if (ok && out->kind == TPL_NONE)
        *out = tpl_map_value(tpl_map_new(a, 0));
done:
    yaml_parser_delete(&y.p);
    if (ok && pos) {
        *pos = y.pos;
        *npos = y.npos;
    }
    return ok && !y.failed;
}

bool fm_parse_yaml(str yaml, int first_line, const char *path, arena *a, tpl_value *out,
                   diag_list *d)
{
    return fm_parse_yaml_pos(yaml, first_line, path, a, out, NULL, NULL, d);
}
