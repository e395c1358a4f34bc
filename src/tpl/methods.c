/* methods: the string, list and map methods templates may call
 * (s.split(), d.items(), …), as Python defines them. */
#include <string.h>

#include "tpl/builtins.h"

enum {
    M_CAPITALIZE, M_COUNT, M_ENDSWITH, M_FIND, M_GET, M_INDEX, M_ITEMS, M_JOIN, M_KEYS,
    M_LOWER, M_LSTRIP, M_REPLACE, M_RSPLIT, M_RSTRIP, M_SPLIT, M_SPLITLINES, M_STARTSWITH,
    M_STRIP, M_TITLE, M_UPPER, M_VALUES
};

#define S (1u << TPL_STRING)
#define L (1u << TPL_LIST)
#define M (1u << TPL_MAP)

/* Every method, with the kinds of value that have it: the one list of
 * their names (tpl_has_method, the evaluator's getattr and tpl_call_method
 * all read it). SORTED by name in byte order: tpl_method_find bisects it,
 * and tests/unit/test_tables.c checks the order. A map method's first
 * letter must be in TPL_MAP_METHOD_INITIALS (internal.h; the same test
 * checks that too). */
static const tpl_method_def methods[] = {
    { "capitalize", S, M_CAPITALIZE }, { "count", S | L, M_COUNT },
    { "endswith", S, M_ENDSWITH },     { "find", S, M_FIND },
    { "get", M, M_GET },               { "index", L, M_INDEX },
    { "items", M, M_ITEMS },           { "join", S, M_JOIN },
    { "keys", M, M_KEYS },             { "lower", S, M_LOWER },
    { "lstrip", S, M_LSTRIP },         { "replace", S, M_REPLACE },
    { "rsplit", S, M_RSPLIT },         { "rstrip", S, M_RSTRIP },
    { "split", S, M_SPLIT },           { "splitlines", S, M_SPLITLINES },
    { "startswith", S, M_STARTSWITH }, { "strip", S, M_STRIP },
    { "title", S, M_TITLE },           { "upper", S, M_UPPER },
    { "values", M, M_VALUES },
};

#undef S
#undef L
#undef M

size_t tpl_method_count(void) { return sizeof methods / sizeof methods[0]; }
const tpl_method_def *tpl_method_get(size_t i) { return &methods[i]; }

/* The row of `name` for a value of v's kind, or NULL. */
static const tpl_method_def *method_of(tpl_value v, const char *name)
{
    int i = tpl_bisect_name(methods, tpl_method_count(), sizeof methods[0], name);
    return i >= 0 && (methods[i].kinds & (1u << v.kind)) ? &methods[i] : NULL;
}

bool tpl_has_method(tpl_value v, const char *name)
{
    return tpl_may_have_method(v, name) && method_of(v, name);
}

/* Length of the whitespace character (Python's isspace) at s[i], or 0. */
static size_t space_at(const char *s, size_t n, size_t i)
{
    int32_t cp;
    size_t k = next_cp(s, n, i, &cp);
    return is_space_cp(cp) ? k : 0;
}

/* Length of the whitespace character ending at s[e], or 0. */
static size_t space_before(const char *s, size_t e)
{
    size_t b = e - 1;
    while (b > 0 && ((unsigned char)s[b] & 0xC0) == 0x80 && e - b < 4)
        b--;
    return space_at(s, e, b) == e - b ? e - b : 0;
}

typedef struct vlist {
    tpl_value *v;
    size_t n, cap;
} vlist;

static void vl_push(arena *ar, vlist *l, tpl_value x)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 8;
        tpl_value *nv = arena_alloc(ar, nc * sizeof *nv);
        if (l->n)
            memcpy(nv, l->v, l->n * sizeof *nv);
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n++] = x;
}

/* Python's str.split / str.rsplit. */
static bool split_impl(tpl_render_state *r, const node *at, tpl_value s, tpl_value sep,
                       int64_t maxsplit, bool from_right, tpl_value *out)
{
    arena *ar = tpl_r_arena(r);
    vlist parts = { 0 };
    const char *p = s.u.s;
    if (sep.kind == TPL_STRING && sep.len == 0)
        return tpl_r_error(r, at, "split: empty separator");
    int64_t done = 0;
    if (sep.kind == TPL_STRING && !from_right) {
        size_t i = 0;
        for (;;) {
            const char *m = maxsplit < 0 || done < maxsplit
                                ? memmem(p + i, s.len - i, sep.u.s, sep.len) : NULL;
            if (!m) {
                vl_push(ar, &parts, tpl_str_copy(ar, p + i, s.len - i));
                break;
            }
            vl_push(ar, &parts, tpl_str_copy(ar, p + i, (size_t)(m - p) - i));
            i = (size_t)(m - p) + sep.len;
            done++;
        }
    } else if (sep.kind == TPL_STRING) {
        size_t e = s.len;
        for (;;) {
            const char *m = NULL;
            if (maxsplit < 0 || done < maxsplit)
                for (size_t i = e; i >= sep.len && !m; i--)
                    if (!memcmp(p + i - sep.len, sep.u.s, sep.len))
                        m = p + i - sep.len;
            if (!m) {
                vl_push(ar, &parts, tpl_str_copy(ar, p, e));
                break;
            }
            size_t ms = (size_t)(m - p);
            vl_push(ar, &parts, tpl_str_copy(ar, m + sep.len, e - ms - sep.len));
            e = ms;
            done++;
        }
    } else if (!from_right) {
        size_t i = 0, k;
        for (;;) {
            while (i < s.len && (k = space_at(p, s.len, i)))
                i += k;
            if (i >= s.len)
                break;
            if (maxsplit >= 0 && done == maxsplit) { /* the rest, as it is */
                vl_push(ar, &parts, tpl_str_copy(ar, p + i, s.len - i));
                break;
            }
            size_t b = i;
            while (i < s.len && !space_at(p, s.len, i))
                i += next_cp(p, s.len, i, &(int32_t){ 0 });
            vl_push(ar, &parts, tpl_str_copy(ar, p + b, i - b));
            done++;
        }
    } else {
        size_t e = s.len, k;
        for (;;) {
            while (e > 0 && (k = space_before(p, e)))
                e -= k;
            if (e == 0)
                break;
            if (maxsplit >= 0 && done == maxsplit) {
                vl_push(ar, &parts, tpl_str_copy(ar, p, e));
                break;
            }
            size_t b = e;
            while (b > 0 && !space_before(p, b)) {
                b--;
                while (b > 0 && ((unsigned char)p[b] & 0xC0) == 0x80)
                    b--;
            }
            vl_push(ar, &parts, tpl_str_copy(ar, p + b, e - b));
            done++;
            e = b;
        }
    }
    if (from_right)
        for (size_t i = 0; i < parts.n / 2; i++) {
            tpl_value t = parts.v[i];
            parts.v[i] = parts.v[parts.n - 1 - i];
            parts.v[parts.n - 1 - i] = t;
        }
    *out = list_of(ar, parts.v, parts.n);
    return true;
}

bool tpl_call_method(tpl_render_state *r, const node *at, tpl_value self, const char *name,
                     const tpl_value *pos, size_t npos, const char **kwn, const tpl_value *kwv,
                     size_t nkw, tpl_value *out)
{
    arena *ar = tpl_r_arena(r);
    tpl_value arg0 = npos > 0 ? pos[0] : tpl_none(), arg1 = npos > 1 ? pos[1] : tpl_none();
    for (size_t k = 0; k < nkw; k++) {
        if (!strcmp(kwn[k], "sep") || !strcmp(kwn[k], "default"))
            arg0 = kwv[k];
        else if (!strcmp(kwn[k], "maxsplit"))
            arg1 = kwv[k];
        else
            return tpl_r_error(r, at, "%s() got an unexpected keyword argument '%s'", name, kwn[k]);
    }
    const tpl_method_def *def = method_of(self, name);
    if (!def)
        return tpl_r_error(r, at, "no method '%s'", name);
    int id = def->id;
    if (self.kind == TPL_STRING) {
        tpl_args args = { 0 };
        if (id == M_UPPER)
            return case_filter(r, self, CASE_UPPER, out);
        if (id == M_LOWER)
            return case_filter(r, self, CASE_LOWER, out);
        if (id == M_TITLE) {
            *out = py_title(ar, self);
            return true;
        }
        if (id == M_CAPITALIZE)
            return f_capitalize(r, at, self, &args, out);
        if (id == M_STRIP || id == M_LSTRIP || id == M_RSTRIP) {
            if (arg0.kind != TPL_NONE && arg0.kind != TPL_STRING)
                return tpl_r_error(r, at, "%s() needs a string", name);
            tpl_value s = strip(ar, self, arg0, id != M_RSTRIP, id != M_LSTRIP);
            *out = mkstr(ar, s.u.s, s.len, s.flags & TPL_SAFE);
            return true;
        }
        if (id == M_STARTSWITH || id == M_ENDSWITH) {
            bool start = id == M_STARTSWITH;
            tpl_value cands[64];
            size_t nc = 0;
            if (arg0.kind == TPL_LIST) {
                for (size_t i = 0; i < arg0.u.list->len && nc < 64; i++)
                    cands[nc++] = arg0.u.list->items[i];
            } else {
                cands[nc++] = arg0;
            }
            *out = tpl_bool(false);
            for (size_t i = 0; i < nc; i++) {
                if (cands[i].kind != TPL_STRING)
                    return tpl_r_error(r, at, "%s() needs a string", name);
                tpl_value c = cands[i];
                if (c.len <= self.len &&
                    !memcmp(start ? self.u.s : self.u.s + self.len - c.len, c.u.s, c.len))
                    *out = tpl_bool(true);
            }
            return true;
        }
        if (id == M_REPLACE) {
            if (npos < 2)
                return tpl_r_error(r, at, "replace() needs two arguments");
            args.v[0] = pos[0];
            args.v[1] = pos[1];
            args.given[0] = args.given[1] = true;
            if (npos > 2) {
                args.v[2] = pos[2];
                args.given[2] = true;
            }
            if (pos[0].kind != TPL_STRING || pos[1].kind != TPL_STRING)
                return tpl_r_error(r, at, "replace() needs strings");
            return f_replace(r, at, self, &args, out);
        }
        if (id == M_SPLIT || id == M_RSPLIT) {
            int64_t maxsplit = -1;
            if (arg1.kind != TPL_NONE && !want_int(r, at, "maxsplit", arg1, &maxsplit))
                return false;
            if (arg0.kind != TPL_NONE && arg0.kind != TPL_STRING)
                return tpl_r_error(r, at, "%s() separator must be a string", name);
            return split_impl(r, at, self, arg0, maxsplit, id == M_RSPLIT, out);
        }
        if (id == M_SPLITLINES) {
            args.v[0] = tpl_int(0);
            tpl_list *l = tpl_list_new(ar, 0);
            size_t cap = 0, n = 0;
            tpl_value *items = NULL;
            for (size_t i = 0; i < self.len;) {
                size_t e = i;
                while (e < self.len && !strchr("\n\r\v\f", self.u.s[e]))
                    e++;
                if (n == cap) {
                    cap = cap ? cap * 2 : 8;
                    tpl_value *ni = arena_alloc(ar, cap * sizeof *ni);
                    if (n)
                        memcpy(ni, items, n * sizeof *ni);
                    items = ni;
                }
                items[n++] = tpl_str_copy(ar, self.u.s + i, e - i);
                i = e + 1;
                if (e < self.len && self.u.s[e] == '\r' && i < self.len && self.u.s[i] == '\n')
                    i++;
            }
            (void)l;
            *out = list_of(ar, items, n);
            return true;
        }
        if (id == M_JOIN) {
            args.v[0] = self;
            args.given[0] = true;
            return f_join(r, at, arg0, &args, out);
        }
        if (id == M_COUNT || id == M_FIND) {
            if (arg0.kind != TPL_STRING)
                return tpl_r_error(r, at, "%s() needs a string", name);
            bool find = id == M_FIND;
            /* start and end as Python takes them: code points, negative
             * from the end, then clamped (start only from below: a start
             * past the end finds nothing, not even the empty string) */
            int64_t len = (int64_t)cp_count(self.u.s, self.len), se[2] = { 0, len };
            if (npos > 3)
                return tpl_r_error(r, at, "%s() takes at most 3 arguments", name);
            for (size_t k = 1; k < npos; k++) {
                if (pos[k].kind == TPL_NONE)
                    continue;
                if (!want_int(r, at, k == 1 ? "start" : "end", pos[k], &se[k - 1]))
                    return false;
                if (se[k - 1] < 0)
                    se[k - 1] = se[k - 1] < -len ? 0 : se[k - 1] + len;
            }
            if (se[1] > len)
                se[1] = len;
            if (se[1] < se[0] || (uint64_t)(se[1] - se[0]) < cp_count(arg0.u.s, arg0.len)) {
                *out = tpl_int(find ? -1 : 0);
                return true;
            }
            size_t b0 = cp_offset(self.u.s, self.len, (size_t)se[0]);
            size_t b1 = cp_offset(self.u.s, self.len, (size_t)se[1]);
            const char *h = self.u.s + b0;
            size_t hn = b1 - b0;
            if (find) {
                const char *p = arg0.len ? memmem(h, hn, arg0.u.s, arg0.len) : h;
                *out = tpl_int(p ? se[0] + (int64_t)cp_count(h, (size_t)(p - h)) : -1);
                return true;
            }
            if (!arg0.len) {
                *out = tpl_int(se[1] - se[0] + 1);
                return true;
            }
            int64_t c = 0;
            for (const char *p = h; (p = memmem(p, hn - (size_t)(p - h), arg0.u.s, arg0.len));
                 p += arg0.len)
                c++;
            *out = tpl_int(c);
            return true;
        }
    }
    if (self.kind == TPL_MAP) {
        const tpl_map *m = self.u.map;
        if (id == M_GET) {
            if (!npos)
                return tpl_r_error(r, at, "get() needs a key");
            tpl_value x = tpl_map_get_value(m, pos[0]);
            *out = x.kind == TPL_UNDEFINED ? (npos > 1 ? pos[1] : tpl_none()) : x;
            return true;
        }
        tpl_map_touch_all(m);
        tpl_list *l = tpl_list_new(ar, m->len);
        for (size_t i = 0; i < m->len; i++) {
            if (id == M_KEYS) {
                l->items[i] = m->entries[i].key;
            } else if (id == M_VALUES) {
                l->items[i] = m->entries[i].value;
            } else {
                tpl_value pair[2] = { m->entries[i].key, m->entries[i].value };
                l->items[i] = pair_of(ar, pair);
            }
        }
        *out = tpl_list_value(l);
        return true;
    }
    if (self.kind == TPL_LIST) {
        const tpl_list *l = self.u.list;
        if (!npos)
            return tpl_r_error(r, at, "%s() needs an argument", name);
        int64_t c = 0, idx = -1;
        for (size_t i = 0; i < l->len; i++)
            if (tpl_value_equal(l->items[i], pos[0])) {
                c++;
                if (idx < 0)
                    idx = (int64_t)i;
            }
        if (id == M_INDEX) {
            if (idx < 0)
                return tpl_r_error(r, at, "index(): the value is not in the list");
            *out = tpl_int(idx);
        } else {
            *out = tpl_int(c);
        }
        return true;
    }
    return tpl_r_error(r, at, "no method '%s'", name);
}
