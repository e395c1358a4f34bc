/* eval: renders a parsed template.
 *
 * Scopes are frames chained to their parent: the render's root frame holds
 * top-level `set`s, macros and imports; a `for`, `with`, block or macro call
 * opens a child frame, so a `set` inside it does not leak out (as in Jinja2).
 * Past the root frame, names come from the caller's variables, then the
 * built-ins (range, dict, namespace, cycler, joiner).
 *
 * Inheritance: the template being rendered runs first; `extends` records the
 * parent and silences the rest of the child's output (its `set`s and macros
 * still run); then the parent runs with the same root frame. Block
 * definitions from the whole chain are collected child first, so a block tag
 * renders the child-most definition and `super()` the next one up.
 *
 * Everything a render allocates goes to the caller's scratch arena; the
 * template's AST is only read. */
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tpl/internal.h"
#include "util/ckd.h"

/* ---- objects --------------------------------------------------------- */

enum obj_kind { O_LOOP, O_MACRO, O_NAMESPACE, O_SUPER, O_SELF, O_BLOCKREF, O_METHOD, O_BUILTIN,
                O_CYCLER, O_JOINER };

typedef struct frame frame;
struct frame {
    frame *parent;
    frame *top;     /* the last of the chain of parents (itself for a root) */
    size_t n, cap;
    const char **names;
    tpl_value *vals;
    bool with_vars; /* past this frame (the root), look in the render's variables */
    bool captured;  /* a macro or caller keeps this frame as its closure */
};

typedef struct obj {
    int kind;
} obj;

typedef struct loop_obj {
    int kind;
    const tpl_list *items;
    size_t i;
    int depth;
    tpl_value last_changed;
    bool has_changed;
} loop_obj;

typedef struct macro_obj {
    int kind;
    const char *name;
    const node *def;      /* N_MACRO, or N_CALL_BLOCK for caller() */
    frame *closure;
    tpl_value caller;     /* for caller(): undefined */
} macro_obj;

typedef struct ns_obj {
    int kind;
    tpl_map *m;
} ns_obj;

typedef struct super_obj {
    int kind;
    const char *name;
    size_t level;
    struct frame *scope; /* the frame the block runs in (root unless scoped) */
} super_obj;

typedef struct method_obj {
    int kind;
    tpl_value self;
    const char *name;
} method_obj;

typedef struct builtin_obj {
    int kind;
    const char *name;
    int id; /* TPL_FIXED_RANGE … TPL_FIXED_T */
} builtin_obj;

typedef struct cycler_obj {
    int kind;
    const tpl_list *items;
    size_t pos;
} cycler_obj;

typedef struct joiner_obj {
    int kind;
    tpl_value sep;
    bool used;
} joiner_obj;

static tpl_value objv(const void *o)
{
    tpl_value v = { 0 };
    v.kind = TPL_OBJECT;
    v.u.obj = o;
    return v;
}
static int okind(tpl_value v) { return v.kind == TPL_OBJECT ? ((const obj *)v.u.obj)->kind : -1; }

/* ---- render state ---------------------------------------------------- */

typedef struct block_entry {
    const char *name;
    const node *def;
} block_entry;

typedef struct blockset {
    block_entry *v;
    size_t n, cap;
} blockset;

struct tpl_render_state {
    tpl_loader *l;
    const tpl_options *opt;
    arena *a;
    diag_list *d;
    const char *context;
    const tpl_map *vars;
    blockset *blocks;
    frame *root;
    bool extends_seen;
    const tpl_template *parent;
    int depth;
    bool failed;
    bool have_base;
    tpl_base base;
    buf spare; /* tpl_r_take_buf */
    size_t mem_start;  /* arena_used(a) when the render began */
    size_t max_memory; /* TPL_MAX_MEMORY or a smaller tpl_options bound */
    size_t max_output; /* TPL_MAX_OUTPUT or smaller */
    uint64_t steps, max_steps; /* TPL_MAX_STEPS or smaller */
    uint64_t steps_check;      /* the slow check (step_bound) runs at this count */
    uint64_t steps_charged;    /* what is added to opt->budget */
    size_t mem_charged;        /* what is added to process_memory */
};

/* The memory of the renders running now in the process (bytes charged a
 * MiB at a time): at most TPL_MAX_MEMORY together. */
static _Atomic size_t process_memory;
#define CHARGE_MEMORY ((size_t)1 << 20)
#define CHARGE_STEPS ((uint64_t)1 << 16)

arena *tpl_r_arena(tpl_render_state *r) { return r->a; }

buf tpl_r_take_buf(tpl_render_state *r)
{
    buf b = r->spare;
    r->spare = (buf)BUF_INIT;
    buf_reset(&b);
    return b;
}

void tpl_r_give_buf(tpl_render_state *r, buf *b)
{
    if (b->cap > r->spare.cap) {
        buf_release(&r->spare);
        r->spare = *b;
        *b = (buf)BUF_INIT;
    } else {
        buf_release(b);
    }
}

const tpl_base *tpl_r_base(tpl_render_state *r)
{
    if (!r->have_base) {
        tpl_split_base(r->opt->base_url ? r->opt->base_url : "/", &r->base);
        r->have_base = true;
    }
    return &r->base;
}

bool tpl_r_error(tpl_render_state *r, const node *at, const char *fmt, ...)
{
    if (r->failed)
        return false;
    r->failed = true;
    va_list ap;
    va_start(ap, fmt);
    diag_vadd(r->d, DIAG_ERROR, at ? at->path : NULL, at ? at->line : 0, at ? at->col : 0, fmt, ap);
    va_end(ap);
    if (r->context)
        diag_note(r->d, at ? at->path : NULL, at ? at->line : 0, at ? at->col : 0,
                  "while rendering %s", r->context);
    return false;
}

static bool too_large(tpl_render_state *r, const node *at, const char *what, uint64_t n,
                      uint64_t max, const char *unit)
{
    if (n == UINT64_MAX)
        return tpl_r_error(r, at, "%s too large (over 2^64 %s; at most %llu)", what, unit,
                           (unsigned long long)max);
    return tpl_r_error(r, at, "%s too large (%llu %s; at most %llu)", what, (unsigned long long)n,
                       unit, (unsigned long long)max);
}

bool tpl_r_string_fits(tpl_render_state *r, const node *at, const char *what, uint64_t n)
{
    return n <= TPL_MAX_STRING || too_large(r, at, what, n, TPL_MAX_STRING, "bytes");
}

bool tpl_r_list_fits(tpl_render_state *r, const node *at, const char *what, uint64_t n)
{
    return n <= TPL_MAX_LIST || too_large(r, at, what, n, TPL_MAX_LIST, "items");
}

bool tpl_r_chars_fit(tpl_render_state *r, const node *at, tpl_value v)
{
    if (v.kind != TPL_STRING || v.len <= TPL_MAX_LIST)
        return true;
    size_t n = 0;
    for (size_t i = 0; i < v.len; i++)
        n += ((unsigned char)v.u.s[i] & 0xC0) != 0x80;
    return tpl_r_list_fits(r, at, "the string's list of characters", n);
}

bool tpl_r_memory_ok(tpl_render_state *r, const node *at)
{
    size_t used = arena_used(r->a) - r->mem_start;
    if (used > r->max_memory)
        return tpl_r_error(r, at, "the render takes more than %zu MiB of memory (the limit of one "
                                  "page)", r->max_memory >> 20);
    if (used >= r->mem_charged + CHARGE_MEMORY) {
        size_t all = atomic_fetch_add(&process_memory, used - r->mem_charged) + used - r->mem_charged;
        r->mem_charged = used;
        size_t max = r->opt->max_process_memory && r->opt->max_process_memory < TPL_MAX_MEMORY
                         ? r->opt->max_process_memory
                         : TPL_MAX_MEMORY;
        if (all > max)
            return tpl_r_error(r, at, "the renders running at once take more than %zu MiB of "
                                      "memory together (the limit of the process)",
                               max >> 20);
    }
    return true;
}

/* Is the render's memory still under the next check (a MiB more than what
 * it charged to the process, and its own bound)? */
static inline bool memory_quick(const tpl_render_state *r)
{
    size_t used = arena_used(r->a) - r->mem_start;
    return used < r->mem_charged + CHARGE_MEMORY && used <= r->max_memory;
}

/* The checks after every filter, call and operator: the value it made is
 * within the bounds, and so is the render's memory. */
static inline bool result_ok(tpl_render_state *r, const node *at, const char *what, tpl_value v)
{
    if (v.kind == TPL_STRING && v.len > TPL_MAX_STRING)
        return tpl_r_string_fits(r, at, arena_printf(r->a, "%s: the result is", what), v.len);
    if (v.kind == TPL_LIST && v.u.list->len > TPL_MAX_LIST)
        return tpl_r_list_fits(r, at, arena_printf(r->a, "%s: the result is", what), v.u.list->len);
    return memory_quick(r) || tpl_r_memory_ok(r, at);
}

/* After each statement: what it wrote is within the output bound. */
static inline bool output_ok(tpl_render_state *r, const node *at, const buf *out)
{
    if (out->len <= r->max_output)
        return memory_quick(r) || tpl_r_memory_ok(r, at);
    return tpl_r_error(r, at, "the output is too large (over %zu MiB, the limit of one page)",
                       r->max_output >> 20);
}

/* The slow half of steps(): the render's own bound, then the build's. */
static bool step_bound(tpl_render_state *r, const node *at)
{
    if (r->steps > r->max_steps)
        return tpl_r_error(r, at, "the render takes more than %llu steps (loop iterations, macro "
                                  "calls, items gone through by filters: the limit of one page)",
                           (unsigned long long)r->max_steps);
    tpl_budget *b = r->opt->budget;
    if (b) {
        uint64_t all = atomic_fetch_add(&b->steps, r->steps - r->steps_charged) + r->steps
                       - r->steps_charged;
        r->steps_charged = r->steps;
        if (all > TPL_MAX_BUILD_STEPS)
            return tpl_r_error(r, at, "the renders of this build take more than %llu steps "
                                      "together (the limit of one build)",
                               (unsigned long long)TPL_MAX_BUILD_STEPS);
    }
    r->steps_check = r->steps + CHARGE_STEPS < r->max_steps + 1 ? r->steps + CHARGE_STEPS
                                                                : r->max_steps + 1;
    return true;
}

/* Counts n steps of the render (see TPL_MAX_STEPS). */
static inline bool steps(tpl_render_state *r, const node *at, uint64_t n)
{
    r->steps += n;
    return r->steps < r->steps_check || step_bound(r, at);
}

/* The steps a filter or `in` takes going through v. */
static inline uint64_t size_steps(tpl_value v)
{
    switch (v.kind) {
    case TPL_LIST: return 1 + v.u.list->len;
    case TPL_MAP: tpl_map_ready(v.u.map); return 1 + v.u.map->len;
    case TPL_STRING: return 1 + v.len / 64;
    default: return 1;
    }
}

static frame *frame_new(tpl_render_state *r, frame *parent)
{
    frame *f = arena_calloc(r->a, sizeof *f);
    f->parent = parent;
    f->top = parent ? parent->top : f;
    return f;
}

/* Names are the loader's (names.c) or the evaluator's constants: equal
 * when their pointers are. */
static inline bool same_name(const char *a, const char *b) { return a == b; }

/* Binds name in f (and marks it bound: see tpl_name_bound). */
static void frame_set(tpl_render_state *r, frame *f, const char *name, tpl_value v)
{
    tpl_name_set_bound(name);
    for (size_t i = 0; i < f->n; i++)
        if (same_name(f->names[i], name)) {
            f->vals[i] = v;
            return;
        }
    if (f->n == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 4;
        const char **nn = arena_alloc(r->a, nc * sizeof *nn);
        tpl_value *nv = arena_alloc(r->a, nc * sizeof *nv);
        if (f->n) {
            memcpy(nn, f->names, f->n * sizeof *nn);
            memcpy(nv, f->vals, f->n * sizeof *nv);
        }
        f->names = nn;
        f->vals = nv;
        f->cap = nc;
    }
    f->names[f->n] = name;
    f->vals[f->n] = v;
    f->n++;
}

/* The global functions, one object each (they hold no state). */
static const builtin_obj builtins[] = {
    { O_BUILTIN, "range", TPL_FIXED_RANGE },   { O_BUILTIN, "dict", TPL_FIXED_DICT },
    { O_BUILTIN, "namespace", TPL_FIXED_NAMESPACE }, { O_BUILTIN, "cycler", TPL_FIXED_CYCLER },
    { O_BUILTIN, "joiner", TPL_FIXED_JOINER }, { O_BUILTIN, "t", TPL_FIXED_T },
};

/* Looks a name (len bytes) up through the frames, the variables and the
 * built-ins. `hint` (may be NULL) is the expression's remembered place of
 * the name in the variables (tpl_map_get_hinted). A name no render has
 * bound yet is in no frame (tpl_name_bound): only the variables are
 * looked at, past the root. */
static bool lookup_hinted(tpl_render_state *r, frame *f, const char *name, size_t len,
                          tpl_map_hint *hint, tpl_value *out)
{
    frame *g = f->top;
    if (tpl_name_bound(name)) {
        for (g = f;; g = g->parent) {
            for (size_t i = g->n; i-- > 0;)
                if (same_name(g->names[i], name)) {
                    *out = g->vals[i];
                    return true;
                }
            if (!g->parent)
                break;
        }
    }
    if (g->with_vars && r->vars) {
        tpl_value v = hint ? tpl_map_get_hinted(r->vars, name, len, hint)
                           : tpl_map_get(r->vars, name, len);
        if (v.kind != TPL_UNDEFINED) {
            *out = v;
            return true;
        }
    }
    if (name == tpl_fixed_names[TPL_FIXED_SELF].s) {
        static const obj self_obj = { O_SELF };
        *out = objv(&self_obj);
        return true;
    }
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
        if (name == tpl_fixed_names[builtins[i].id].s) {
            *out = objv(&builtins[i]);
            return true;
        }
    return false;
}

static bool lookup(tpl_render_state *r, frame *f, const char *name, tpl_value *out)
{
    return lookup_hinted(r, f, name, strlen(name), NULL, out);
}

/* A short text of simple expressions, for messages: page.prev.url */
static void expr_text(const node *n, buf *b)
{
    switch (n->kind) {
    case E_NAME:
        buf_puts(b, n->s);
        break;
    case E_GETATTR:
        expr_text(n->a, b);
        tpl_putc(b, (char)'.');
        buf_puts(b, n->s);
        break;
    case E_GETITEM:
        expr_text(n->a, b);
        buf_puts(b, "[");
        if (n->b->kind == E_LIT) {
            tpl_value_repr(n->b->lit, b);
        } else {
            expr_text(n->b, b);
        }
        buf_puts(b, "]");
        break;
    case E_CALL:
        expr_text(n->a, b);
        buf_puts(b, "()");
        break;
    case E_FILTER:
        if (n->a)
            expr_text(n->a, b);
        buf_puts(b, "|");
        buf_puts(b, n->s);
        break;
    case E_LIT:
        tpl_value_repr(n->lit, b);
        break;
    default:
        buf_puts(b, "the expression");
        break;
    }
}

static bool undefined_error(tpl_render_state *r, const node *n, const char *what)
{
    buf b = BUF_INIT;
    expr_text(n, &b);
    bool ok = tpl_r_error(r, n, "'%s' is undefined%s%s", b.data, what ? " " : "", what ? what : "");
    buf_release(&b);
    return ok;
}

static const char *type_name(tpl_value v)
{
    switch ((tpl_kind)v.kind) {
    case TPL_UNDEFINED: return "undefined";
    case TPL_NONE: return "none";
    case TPL_BOOL: return "bool";
    case TPL_INT: return "int";
    case TPL_FLOAT: return "float";
    case TPL_STRING: return "string";
    case TPL_DATE: return "date";
    case TPL_LIST: return "list";
    case TPL_MAP: return "map";
    case TPL_OBJECT:
        switch (okind(v)) {
        case O_MACRO: return "macro";
        case O_LOOP: return "loop";
        case O_NAMESPACE: return "namespace";
        default: return "function";
        }
    }
    return "?";
}

/* "a list", "an int", "an undefined value" */
static const char *a_type(tpl_value v)
{
    switch ((tpl_kind)v.kind) {
    case TPL_UNDEFINED: return "an undefined value";
    case TPL_INT: return "an int";
    case TPL_NONE: return "none";
    case TPL_OBJECT:
        switch (okind(v)) {
        case O_MACRO: return "a macro";
        case O_LOOP: return "a loop";
        case O_NAMESPACE: return "a namespace";
        default: return "a function";
        }
    default: break;
    }
    static const char *const names[] = { "", "", "a bool", "", "a float", "a string", "a date",
                                         "a list", "a map" };
    return names[v.kind];
}

/* ---- expressions ------------------------------------------------------ */

static bool eval(tpl_render_state *r, frame *f, const node *n, tpl_value *out);
static bool exec(tpl_render_state *r, frame *f, const node *n, buf *out);
static bool call_value(tpl_render_state *r, frame *f, const node *at, tpl_value fn,
                       const tpl_value *pos, size_t npos, const char **kwn, const tpl_value *kwv,
                       size_t nkw, tpl_value *out);

static const char *const loop_attrs[] = { NULL, "index", "index0", "revindex", "revindex0", "first",
                                          "last", "length", "depth", "depth0", "previtem",
                                          "nextitem", "cycle", "changed" };
enum { LA_INDEX = 1, LA_INDEX0, LA_REVINDEX, LA_REVINDEX0, LA_FIRST, LA_LAST, LA_LENGTH, LA_DEPTH,
       LA_DEPTH0, LA_PREVITEM, LA_NEXTITEM, LA_CYCLE, LA_CHANGED };

int tpl_loop_attr(const char *name)
{
    for (int k = 1; k < (int)(sizeof loop_attrs / sizeof *loop_attrs); k++)
        if (!strcmp(name, loop_attrs[k]))
            return k;
    return 0;
}

/* loop.<name>; id: tpl_loop_attr(name), which the parser keeps in the node */
static tpl_value loop_attr(tpl_render_state *r, loop_obj *lo, const char *name, int id)
{
    size_t len = lo->items->len, i = lo->i;
    switch (id) {
    case LA_INDEX: return tpl_int((int64_t)i + 1);
    case LA_INDEX0: return tpl_int((int64_t)i);
    case LA_REVINDEX: return tpl_int((int64_t)(len - i));
    case LA_REVINDEX0: return tpl_int((int64_t)(len - i - 1));
    case LA_FIRST: return tpl_bool(i == 0);
    case LA_LAST: return tpl_bool(i + 1 == len);
    case LA_LENGTH: return tpl_int((int64_t)len);
    case LA_DEPTH: return tpl_int(lo->depth);
    case LA_DEPTH0: return tpl_int(lo->depth - 1);
    case LA_PREVITEM: return i > 0 ? lo->items->items[i - 1] : tpl_undefined();
    case LA_NEXTITEM: return i + 1 < len ? lo->items->items[i + 1] : tpl_undefined();
    case LA_CYCLE:
    case LA_CHANGED: {
        method_obj *m = arena_alloc(r->a, sizeof *m);
        m->kind = O_METHOD;
        m->self = objv(lo);
        m->name = name;
        return objv(m);
    }
    default: return tpl_undefined();
    }
}

static tpl_value method_value(tpl_render_state *r, tpl_value self, const char *name)
{
    method_obj *m = arena_alloc(r->a, sizeof *m);
    m->kind = O_METHOD;
    m->self = self;
    m->name = name;
    return objv(m);
}

/* v.name for the evaluator (objects too). hint (may be NULL): where the
 * expression last found the name in a map (see tpl_map_get_hinted);
 * loop_id: tpl_loop_attr(name), or -1 to look it up; map_method: whether
 * name is a method of maps (NF_MAP_METHOD), or -1 to look it up. */
static tpl_value get_attr(tpl_render_state *r, tpl_value v, const char *name, size_t nlen,
                          tpl_map_hint *hint, int loop_id, int map_method)
{
    switch (okind(v)) {
    case O_LOOP:
        return loop_attr(r, (loop_obj *)v.u.obj, name, loop_id < 0 ? tpl_loop_attr(name) : loop_id);
    case O_NAMESPACE:
        return tpl_map_get(((const ns_obj *)v.u.obj)->m, name, nlen);
    case O_MACRO: {
        const macro_obj *m = v.u.obj;
        const node *def = m->def;
        if (!strcmp(name, "name"))
            return def->kind == N_MACRO ? tpl_str(m->name) : tpl_none();
        if (!strcmp(name, "arguments")) {
            tpl_list *l = tpl_list_new(r->a, def->nnames);
            for (size_t i = 0; i < def->nnames; i++)
                l->items[i] = tpl_str(def->names[i]);
            tpl_value t = tpl_list_value(l);
            t.flags |= TPL_TUPLE;
            return t;
        }
        if (!strcmp(name, "catch_kwargs"))
            return tpl_bool(def->flags & NF_USES_KWARGS);
        if (!strcmp(name, "catch_varargs"))
            return tpl_bool(def->flags & NF_USES_VARARGS);
        if (!strcmp(name, "caller"))
            return tpl_bool(def->flags & NF_USES_CALLER);
        return tpl_undefined();
    }
    case O_SELF: {
        super_obj *b = arena_alloc(r->a, sizeof *b);
        b->kind = O_BLOCKREF;
        b->name = name;
        b->level = 0;
        b->scope = r->root;
        return objv(b);
    }
    case O_CYCLER:
        if (!strcmp(name, "current")) {
            const cycler_obj *c = v.u.obj;
            return c->items->len ? c->items->items[c->pos] : tpl_undefined();
        }
        if (!strcmp(name, "next") || !strcmp(name, "reset"))
            return method_value(r, v, name);
        return tpl_undefined();
    default:
        break;
    }
    /* Jinja2's getattr: a method of the value wins over a key of that name */
    if (v.kind == TPL_MAP && map_method >= 0 ? map_method : tpl_has_method(v, name))
        return method_value(r, v, name);
    if (v.kind == TPL_MAP)
        return hint ? tpl_map_get_hinted(v.u.map, name, nlen, hint) : tpl_map_get(v.u.map, name, nlen);
    return tpl_getattr(v, name, nlen);
}

static bool to_index(tpl_value k, int64_t *i)
{
    if (k.kind == TPL_INT) {
        *i = k.u.i;
        return true;
    }
    if (k.kind == TPL_BOOL) {
        *i = k.u.b;
        return true;
    }
    return false;
}

/* The UTF-8 characters of a string as offsets (for indexing and slicing). */
static size_t utf8_offsets(arena *a, tpl_value s, size_t **offs)
{
    size_t n = 0;
    for (size_t i = 0; i < s.len; i++)
        if (((unsigned char)s.u.s[i] & 0xC0) != 0x80)
            n++;
    size_t *o = arena_alloc(a, (n + 1) * sizeof *o);
    size_t k = 0;
    for (size_t i = 0; i < s.len; i++)
        if (((unsigned char)s.u.s[i] & 0xC0) != 0x80)
            o[k++] = i;
    o[n] = s.len;
    *offs = o;
    return n;
}

static tpl_value get_item(tpl_render_state *r, tpl_value v, tpl_value k)
{
    int64_t i;
    switch (v.kind) {
    case TPL_LIST:
        if (!to_index(k, &i))
            return tpl_undefined();
        if (i < 0)
            i += (int64_t)v.u.list->len;
        if (i < 0 || (size_t)i >= v.u.list->len)
            return tpl_undefined();
        return v.u.list->items[i];
    case TPL_MAP:
        return tpl_map_get_value(v.u.map, k);
    case TPL_STRING: {
        if (!to_index(k, &i))
            return k.kind == TPL_STRING && tpl_has_method(v, k.u.s) ? method_value(r, v, k.u.s)
                                                                     : tpl_undefined();
        size_t *o;
        size_t n = utf8_offsets(r->a, v, &o);
        if (i < 0)
            i += (int64_t)n;
        if (i < 0 || (size_t)i >= n)
            return tpl_undefined();
        tpl_value s = tpl_strn(v.u.s + o[i], o[i + 1] - o[i]);
        s.flags = v.flags & TPL_SAFE;
        return s;
    }
    case TPL_OBJECT:
        if (k.kind == TPL_STRING)
            return get_attr(r, v, k.u.s, k.len, NULL, -1, -1);
        return tpl_undefined();
    default:
        return tpl_undefined();
    }
}

/* Python slice indices. */
static void slice_indices(int64_t len, tpl_value s0, tpl_value s1, tpl_value s2, int64_t *start,
                          int64_t *stop, int64_t *step)
{
    *step = s2.kind == TPL_INT ? s2.u.i : 1;
    bool neg = *step < 0;
    int64_t lo = neg ? -1 : 0, hi = neg ? len - 1 : len;
    if (s0.kind == TPL_INT) {
        *start = s0.u.i < 0 ? s0.u.i + len : s0.u.i;
        if (*start < lo)
            *start = lo;
        if (*start > hi)
            *start = hi;
    } else {
        *start = neg ? hi : lo;
    }
    if (s1.kind == TPL_INT) {
        *stop = s1.u.i < 0 ? s1.u.i + len : s1.u.i;
        if (*stop < lo)
            *stop = lo;
        if (*stop > hi)
            *stop = hi;
    } else {
        *stop = neg ? lo : hi;
    }
}

/* a[start:stop:step] on a list or a string (by characters), as Python
 * slices: missing parts are None, negative indexes count from the end. */
static bool eval_slice(tpl_render_state *r, frame *f, const node *n, tpl_value *out)
{
    tpl_value v, s[3] = { tpl_none(), tpl_none(), tpl_none() };
    if (!eval(r, f, n->a, &v))
        return false;
    const node *parts[3] = { n->b, n->c, n->d };
    for (int i = 0; i < 3; i++) {
        if (parts[i] && !eval(r, f, parts[i], &s[i]))
            return false;
        if (s[i].kind == TPL_BOOL)
            s[i] = tpl_int(s[i].u.b);
        if (s[i].kind != TPL_NONE && s[i].kind != TPL_INT)
            return tpl_r_error(r, parts[i], "slice indices must be integers or none, not %s",
                               type_name(s[i]));
    }
    if (s[2].kind == TPL_INT && s[2].u.i == 0)
        return tpl_r_error(r, n->d, "slice step cannot be zero");
    int64_t start, stop, step;
    if (v.kind == TPL_LIST) {
        slice_indices((int64_t)v.u.list->len, s[0], s[1], s[2], &start, &stop, &step);
        /* counted, not stepped to the end: start + step may not fit */
        size_t cnt = (size_t)ckd_steps(start, stop, step);
        tpl_list *l = tpl_list_new(r->a, cnt);
        for (size_t k = 0; k < cnt; k++)
            l->items[k] = v.u.list->items[ckd_step_at(start, step, k)];
        *out = tpl_list_value(l);
        return true;
    }
    if (v.kind == TPL_STRING) {
        size_t *o;
        size_t len = utf8_offsets(r->a, v, &o);
        slice_indices((int64_t)len, s[0], s[1], s[2], &start, &stop, &step);
        buf b = BUF_INIT;
        uint64_t cnt = ckd_steps(start, stop, step);
        for (uint64_t k = 0; k < cnt; k++) {
            int64_t i = ckd_step_at(start, step, k);
            buf_put(&b, v.u.s + o[i], o[i + 1] - o[i]);
        }
        *out = tpl_str_copy(r->a, b.data, b.len);
        out->flags = v.flags & TPL_SAFE;
        buf_release(&b);
        return true;
    }
    if (v.kind == TPL_UNDEFINED)
        return undefined_error(r, n->a, NULL);
    return tpl_r_error(r, n, "cannot slice %s", a_type(v));
}

/* + - * / // % ** of two numbers with Python's rules: ints (and bools)
 * stay ints (an overflow is an error, not a wrap), / is always a float,
 * // and % floor towards minus infinity, a zero divisor is an error. */
static bool num_binop(tpl_render_state *r, const node *n, int op, tpl_value a, tpl_value b,
                      tpl_value *out)
{
    bool ints = (a.kind == TPL_INT || a.kind == TPL_BOOL) && (b.kind == TPL_INT || b.kind == TPL_BOOL);
    int64_t x = a.kind == TPL_BOOL ? a.u.b : a.u.i, y = b.kind == TPL_BOOL ? b.u.b : b.u.i;
    double fx = tpl_as_double(a), fy = tpl_as_double(b);
    switch (op) {
    case BIN_ADD:
    case BIN_SUB:
    case BIN_MUL:
        if (ints) {
            int64_t z;
            bool over = op == BIN_ADD   ? __builtin_add_overflow(x, y, &z)
                        : op == BIN_SUB ? __builtin_sub_overflow(x, y, &z)
                                        : __builtin_mul_overflow(x, y, &z);
            if (over)
                return tpl_r_error(r, n, "integer overflow");
            *out = tpl_int(z);
        } else {
            *out = tpl_float(op == BIN_ADD ? fx + fy : op == BIN_SUB ? fx - fy : fx * fy);
        }
        return true;
    case BIN_DIV:
        if (fy == 0)
            return tpl_r_error(r, n, "division by zero");
        *out = tpl_float(fx / fy);
        return true;
    case BIN_FLOORDIV:
    case BIN_MOD:
        if (ints) {
            if (y == 0)
                return tpl_r_error(r, n, op == BIN_MOD ? "modulo by zero" : "division by zero");
            if (x == INT64_MIN && y == -1)
                return tpl_r_error(r, n, "integer overflow");
            int64_t q = x / y, m = x % y;
            if (m != 0 && ((m < 0) != (y < 0))) {
                q -= 1;
                m += y;
            }
            *out = tpl_int(op == BIN_MOD ? m : q);
        } else {
            if (fy == 0)
                return tpl_r_error(r, n, op == BIN_MOD ? "modulo by zero" : "division by zero");
            double m = fmod(fx, fy);
            if (m != 0 && ((m < 0) != (fy < 0)))
                m += fy;
            if (op == BIN_MOD) {
                *out = tpl_float(m == 0 ? copysign(0.0, fy) : m);
            } else {
                double q = (fx - m) / fy;
                double fq = floor(q);
                if (q - fq > 0.5)
                    fq += 1;
                *out = tpl_float(fq);
            }
        }
        return true;
    case BIN_POW:
        if (ints && y >= 0) {
            int64_t z = 1, base = x;
            int64_t e = y;
            while (e) {
                if (e & 1 && __builtin_mul_overflow(z, base, &z))
                    return tpl_r_error(r, n, "integer overflow");
                e >>= 1;
                if (e && __builtin_mul_overflow(base, base, &base))
                    return tpl_r_error(r, n, "integer overflow");
            }
            *out = tpl_int(z);
        } else {
            if (fx == 0 && fy < 0)
                return tpl_r_error(r, n, "zero cannot be raised to a negative power");
            *out = tpl_float(pow(fx, fy));
        }
        return true;
    }
    return false;
}

static const char *const bin_names[] = { "+", "-", "*", "/", "//", "%", "**" };

/* A binary operator: both sides evaluated, an undefined side is an error;
 * numbers go to num_binop, the rest (str + str, list + list, str * n, …)
 * is handled here with Python's rules and type errors. */
static bool eval_bin(tpl_render_state *r, frame *f, const node *n, tpl_value *out)
{
    tpl_value a, b;
    if (!eval(r, f, n->a, &a) || !eval(r, f, n->b, &b))
        return false;
    if (a.kind == TPL_UNDEFINED)
        return undefined_error(r, n->a, NULL);
    if (b.kind == TPL_UNDEFINED)
        return undefined_error(r, n->b, NULL);
    if (tpl_is_number(a) && tpl_is_number(b))
        return num_binop(r, n, n->op, a, b, out);
    if (n->op == BIN_ADD && a.kind == TPL_STRING && b.kind == TPL_STRING) {
        if ((a.flags ^ b.flags) & TPL_SAFE) {
            a = tpl_escape_value(r->a, a);
            b = tpl_escape_value(r->a, b);
        }
        if (!tpl_r_string_fits(r, n, "'+': the result is", ckd_add_sat(a.len, b.len)))
            return false;
        char *s = arena_alloc(r->a, a.len + b.len + 1);
        memcpy(s, a.u.s, a.len);
        memcpy(s + a.len, b.u.s, b.len);
        s[a.len + b.len] = 0;
        *out = tpl_strn(s, a.len + b.len);
        out->flags = (a.flags | b.flags) & TPL_SAFE;
        return true;
    }
    if (n->op == BIN_ADD && a.kind == TPL_LIST && b.kind == TPL_LIST &&
        !((a.flags ^ b.flags) & TPL_TUPLE)) {
        if (!tpl_r_list_fits(r, n, "'+': the result is",
                             ckd_add_sat(a.u.list->len, b.u.list->len)))
            return false;
        tpl_list *l = tpl_list_new(r->a, a.u.list->len + b.u.list->len);
        memcpy(l->items, a.u.list->items, a.u.list->len * sizeof(tpl_value));
        memcpy(l->items + a.u.list->len, b.u.list->items, b.u.list->len * sizeof(tpl_value));
        *out = tpl_list_value(l);
        out->flags |= a.flags & TPL_TUPLE;
        return true;
    }
    if (n->op == BIN_MUL && (a.kind == TPL_INT || b.kind == TPL_INT) &&
        (a.kind == TPL_STRING || b.kind == TPL_STRING || a.kind == TPL_LIST || b.kind == TPL_LIST)) {
        tpl_value seq = a.kind == TPL_INT ? b : a;
        int64_t k = a.kind == TPL_INT ? a.u.i : b.u.i;
        size_t len = seq.kind == TPL_STRING ? seq.len : seq.u.list->len;
        if (k <= 0 || len == 0) /* empty, however large k is */
            k = 0;
        uint64_t total = ckd_mul_sat((uint64_t)k, len);
        if (seq.kind == TPL_STRING) {
            if (!tpl_r_string_fits(r, n, "string repetition", total))
                return false;
            char *d = arena_alloc(r->a, (size_t)total + 1);
            for (size_t i = 0; i < (size_t)total; i += len)
                memcpy(d + i, seq.u.s, len);
            d[total] = '\0';
            *out = tpl_strn(d, (size_t)total);
            out->flags = seq.flags & TPL_SAFE;
        } else {
            if (!tpl_r_list_fits(r, n, "list repetition", total))
                return false;
            tpl_list *l = tpl_list_new(r->a, (size_t)total);
            for (size_t i = 0; i < (size_t)total; i += len)
                memcpy(l->items + i, seq.u.list->items, len * sizeof(tpl_value));
            *out = tpl_list_value(l);
        }
        return result_ok(r, n, "repetition", *out);
    }
    return tpl_r_error(r, n, "unsupported operand types for %s: %s and %s", bin_names[n->op],
                       type_name(a), type_name(b));
}

static bool contains(tpl_render_state *r, const node *at, tpl_value needle, tpl_value hay,
                     bool *res)
{
    if (!steps(r, at, size_steps(hay)))
        return false;
    switch (hay.kind) {
    case TPL_STRING:
        if (needle.kind != TPL_STRING)
            return tpl_r_error(r, at, "'in <string>' needs a string on the left, not %s",
                               type_name(needle));
        *res = needle.len == 0 || (hay.len >= needle.len &&
                                   memmem(hay.u.s, hay.len, needle.u.s, needle.len) != NULL);
        return true;
    case TPL_LIST:
        *res = false;
        for (size_t i = 0; i < hay.u.list->len; i++)
            if (tpl_value_equal(hay.u.list->items[i], needle)) {
                *res = true;
                break;
            }
        return true;
    case TPL_MAP:
        *res = tpl_map_get_value(hay.u.map, needle).kind != TPL_UNDEFINED;
        return true;
    case TPL_UNDEFINED:
        *res = false;
        return true;
    default:
        return tpl_r_error(r, at, "'in' needs a string, list or map on the right, not %s",
                           type_name(hay));
    }
}

static bool compare_op(tpl_render_state *r, const node *at, int op, tpl_value a, tpl_value b,
                       bool *res)
{
    switch (op) {
    case CMP_EQ:
        *res = tpl_value_equal(a, b);
        return true;
    case CMP_NE:
        *res = !tpl_value_equal(a, b);
        return true;
    case CMP_IN:
        return contains(r, at, a, b, res);
    case CMP_NOTIN:
        if (!contains(r, at, a, b, res))
            return false;
        *res = !*res;
        return true;
    default: {
        bool err = false;
        int c = tpl_compare(a, b, false, &err);
        if (err)
            return tpl_r_error(r, at, "cannot compare %s with %s", type_name(a), type_name(b));
        *res = op == CMP_LT ? c < 0 : op == CMP_LE ? c <= 0 : op == CMP_GT ? c > 0 : c >= 0;
        return true;
    }
    }
}

static bool eval_args(tpl_render_state *r, frame *f, const node *n, tpl_value **pos,
                      tpl_value **kwv)
{
    static tpl_value none_[1];
    *pos = n->nkids ? arena_alloc(r->a, n->nkids * sizeof **pos) : none_;
    *kwv = n->nnames ? arena_alloc(r->a, n->nnames * sizeof **kwv) : none_;
    for (size_t i = 0; i < n->nkids; i++)
        if (!eval(r, f, n->kids[i], &(*pos)[i]))
            return false;
    for (size_t i = 0; i < n->nnames; i++)
        if (!eval(r, f, n->kw[i], &(*kwv)[i]))
            return false;
    return true;
}

bool tpl_args_in_order(const char *params, size_t npos, size_t nkw)
{
    if (nkw)
        return false;
    size_t np = *params ? 1 : 0;
    for (const char *c = params; *c; c++) {
        if (*c == '*')
            return false;
        np += *c == ',';
    }
    return npos <= np && npos <= 8;
}

/* Binds positional and keyword arguments to a comma-separated parameter
 * list. A parameter "*name" takes the remaining positional arguments as a
 * list, "**name" the unknown keywords as a map. */
static bool bind_args(tpl_render_state *r, const node *at, const char *kind, const char *fname,
                      const char *params, bool plain, const tpl_value *pos, size_t npos,
                      const char **kwn, const tpl_value *kwv, size_t nkw, tpl_args *out)
{
    memset(out, 0, sizeof *out);
    if (nkw == 0 && npos == 0) /* the commonest case: nothing to bind */
        return true;
    if (plain || tpl_args_in_order(params, npos, nkw)) { /* NF_PLAIN_ARGS, or found so now */
        for (size_t i = 0; i < npos; i++) {
            out->v[i] = pos[i];
            out->given[i] = true;
        }
        return true;
    }
    const char *names[8];
    size_t lens[8];
    size_t nparams = 0;
    for (const char *p = params; *p && nparams < 8;) {
        const char *c = strchr(p, ',');
        names[nparams] = p;
        lens[nparams] = c ? (size_t)(c - p) : strlen(p);
        nparams++;
        if (!c)
            break;
        p = c + 1;
    }
    int vi = -1, ki = -1;
    size_t nplain = 0;
    for (size_t i = 0; i < nparams; i++) {
        if (!strncmp(names[i], "**", 2))
            ki = (int)i;
        else if (names[i][0] == '*')
            vi = (int)i;
        else
            nplain++;
    }
    if (vi >= 0) {
        size_t rest = npos > (size_t)vi ? npos - (size_t)vi : 0;
        tpl_list *l = tpl_list_new(r->a, rest);
        for (size_t k = 0; k < rest; k++)
            l->items[k] = pos[(size_t)vi + k];
        out->v[vi] = tpl_list_value(l);
        out->given[vi] = true;
    } else if (npos > nplain) {
        return tpl_r_error(r, at, "%s '%s' takes at most %zu argument%s (%zu given)", kind, fname,
                           nplain, nplain == 1 ? "" : "s", npos);
    }
    for (size_t i = 0; i < npos && (vi < 0 || i < (size_t)vi); i++) {
        out->v[i] = pos[i];
        out->given[i] = true;
    }
    tpl_map *extra = ki >= 0 ? tpl_map_new(r->a, nkw) : NULL;
    for (size_t k = 0; k < nkw; k++) {
        size_t j;
        for (j = 0; j < nparams; j++)
            if (names[j][0] != '*' && strlen(kwn[k]) == lens[j] &&
                !strncmp(names[j], kwn[k], lens[j]))
                break;
        if (j == nparams) {
            if (extra) {
                tpl_map_set_str(r->a, extra, kwn[k], kwv[k]);
                continue;
            }
            return tpl_r_error(r, at, "%s '%s' got an unexpected keyword argument '%s'", kind,
                               fname, kwn[k]);
        }
        if (out->given[j])
            return tpl_r_error(r, at, "%s '%s' got argument '%s' twice", kind, fname, kwn[k]);
        out->v[j] = kwv[k];
        out->given[j] = true;
    }
    if (extra) {
        out->v[ki] = tpl_map_value(extra);
        out->given[ki] = extra->len > 0;
    }
    return true;
}

bool tpl_r_apply_filter(tpl_render_state *r, const node *at, int idx, tpl_value v,
                        const tpl_value *pos, size_t npos, tpl_value *out)
{
    const tpl_filter_def *fd = tpl_filter_get(idx);
    tpl_args args;
    if (!steps(r, at, size_steps(v))
        || !bind_args(r, at, "filter", fd->name, fd->params, false, pos, npos, NULL, NULL, 0, &args))
        return false;
    return fd->fn(r, at, v, &args, out) && result_ok(r, at, fd->name, *out);
}

bool tpl_r_apply_test(tpl_render_state *r, const node *at, int idx, tpl_value v,
                      const tpl_value *pos, size_t npos, bool *out)
{
    const tpl_test_def *td = tpl_test_get(idx);
    tpl_args args;
    if (!bind_args(r, at, "test", td->name, td->params, false, pos, npos, NULL, NULL, 0, &args))
        return false;
    return td->fn(r, at, v, &args, out);
}

static bool apply_filter_node(tpl_render_state *r, frame *f, const node *n, tpl_value v,
                              tpl_value *out)
{
    if (!steps(r, n, size_steps(v)))
        return false;
    if (!n->nkids && !n->nnames) { /* no arguments: nothing to bind */
        static const tpl_args none;
        return tpl_filter_get(n->op)->fn(r, n, v, &none, out) && result_ok(r, n, n->s, *out);
    }
    tpl_value *pos, *kwv;
    if (!eval_args(r, f, n, &pos, &kwv))
        return false;
    const tpl_filter_def *fd = tpl_filter_get(n->op);
    tpl_args args;
    if (!bind_args(r, n, "filter", fd->name, fd->params, n->flags & NF_PLAIN_ARGS, pos, n->nkids,
                   n->names, kwv, n->nnames, &args))
        return false;
    return fd->fn(r, n, v, &args, out) && result_ok(r, n, fd->name, *out);
}

static bool eval_test(tpl_render_state *r, frame *f, const node *n, tpl_value *out)
{
    tpl_value v;
    if (!eval(r, f, n->a, &v))
        return false;
    tpl_value *pos, *kwv;
    if (!eval_args(r, f, n, &pos, &kwv))
        return false;
    const tpl_test_def *td = tpl_test_get(n->op);
    tpl_args args;
    if (!bind_args(r, n, "test", td->name, td->params, n->flags & NF_PLAIN_ARGS, pos, n->nkids,
                   n->names, kwv, n->nnames, &args))
        return false;
    bool res;
    if (!td->fn(r, n, v, &args, &res))
        return false;
    *out = tpl_bool((n->flags & NF_NEGATED) ? !res : res);
    return true;
}

static bool eval_call(tpl_render_state *r, frame *f, const node *n, tpl_value *out)
{
    tpl_value fn;
    /* `super()` and `caller()` get clear errors when out of place */
    if (n->a->kind == E_NAME && n->a->s == tpl_name_super) {
        if (!lookup(r, f, tpl_name_super, &fn))
            return tpl_r_error(r, n->a, "super() is only available inside a block");
    } else if (n->a->kind == E_NAME && n->a->s == tpl_name_caller) {
        if (!lookup(r, f, tpl_name_caller, &fn))
            return tpl_r_error(r, n->a, "caller() is only available inside a macro called with "
                                        "{%% call %%}");
    } else if (!eval(r, f, n->a, &fn)) {
        return false;
    }
    tpl_value *pos, *kwv;
    if (!eval_args(r, f, n, &pos, &kwv))
        return false;
    if (fn.kind == TPL_UNDEFINED)
        return undefined_error(r, n->a, "(it cannot be called)");
    return call_value(r, f, n, fn, pos, n->nkids, n->names, kwv, n->nnames, out) &&
           result_ok(r, n, "call", *out);
}

static bool eval_concat(tpl_render_state *r, frame *f, const node *n, tpl_value *out)
{
    tpl_value *parts = arena_alloc(r->a, n->nkids * sizeof *parts);
    bool any_safe = false;
    for (size_t i = 0; i < n->nkids; i++) {
        if (!eval(r, f, n->kids[i], &parts[i]))
            return false;
        parts[i] = tpl_to_string(r->a, parts[i]);
        any_safe |= (parts[i].flags & TPL_SAFE) != 0;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < n->nkids; i++)
        total = ckd_add_sat(total, parts[i].len);
    if (!tpl_r_string_fits(r, n, "'~': the result is", total))
        return false;
    if (!any_safe) { /* plain strings: their lengths add up, straight into the arena */
        size_t len = (size_t)total;
        char *d = arena_alloc(r->a, len + 1), *w = d;
        for (size_t i = 0; i < n->nkids; i++) {
            copy_bytes(w, parts[i].u.s, parts[i].len);
            w += parts[i].len;
        }
        *w = '\0';
        *out = tpl_strn(d, len);
        return true;
    }
    buf b = BUF_INIT;
    for (size_t i = 0; i < n->nkids; i++) {
        if (any_safe && !(parts[i].flags & TPL_SAFE))
            tpl_escape_html(&b, parts[i].u.s, parts[i].len);
        else
            buf_put(&b, parts[i].u.s, parts[i].len);
    }
    *out = tpl_str_copy(r->a, b.data, b.len);
    if (any_safe)
        out->flags |= TPL_SAFE;
    buf_release(&b);
    return result_ok(r, n, "'~'", *out);
}

static bool eval_name(tpl_render_state *r, frame *f, const node *n, tpl_value *out)
{
    if (lookup_hinted(r, f, n->s, n->slen, &((node *)n)->hint, out))
        return true;
    if (n->flags & NF_ALLOW_UNDEF) {
        *out = tpl_undefined();
        return true;
    }
    if (!strcmp(n->s, "super"))
        return tpl_r_error(r, n, "super() is only available inside a block");
    return tpl_r_error(r, n, "unknown variable '%s'", n->s);
}

/* The expressions templates are mostly made of get direct branches before
 * the switch: a jump table's one indirect branch mispredicts a lot on the
 * repeating mix of kinds a loop body has, conditional branches much less. */
static bool eval_any(tpl_render_state *r, frame *f, const node *n, tpl_value *out);

static bool eval(tpl_render_state *r, frame *f, const node *n, tpl_value *out)
{
    if (n->kind == E_GETATTR) {
        tpl_value v;
        const node *o = n->a;
        if (o->kind == E_NAME ? !eval_name(r, f, o, &v) : !eval(r, f, o, &v))
            return false;
        if (v.kind == TPL_UNDEFINED)
            return undefined_error(r, o, NULL);
        *out = get_attr(r, v, n->s, n->slen, &((node *)n)->hint, n->op, (n->flags & NF_MAP_METHOD) != 0);
        return true;
    }
    if (n->kind == E_NAME)
        return eval_name(r, f, n, out);
    if (n->kind == E_FILTER) {
        tpl_value v;
        if (!eval(r, f, n->a, &v))
            return false;
        return apply_filter_node(r, f, n, v, out);
    }
    if (n->kind == E_LIT) {
        *out = n->lit;
        return true;
    }
    return eval_any(r, f, n, out);
}

/* Every expression kind eval does not take first: one case per node kind
 * (E_*), each computing *out or reporting at n. */
static bool eval_any(tpl_render_state *r, frame *f, const node *n, tpl_value *out)
{
    if (n->kind == E_CONCAT) /* the next commonest, again before the switch */
        return eval_concat(r, f, n, out);
    switch (n->kind) { /* E_LIT, E_NAME, E_GETATTR and E_FILTER: see eval */
    case E_GETITEM: {
        tpl_value v, k;
        if (!eval(r, f, n->a, &v) || !eval(r, f, n->b, &k))
            return false;
        if (v.kind == TPL_UNDEFINED)
            return undefined_error(r, n->a, NULL);
        *out = get_item(r, v, k);
        return true;
    }
    case E_SLICE:
        return eval_slice(r, f, n, out);
    case E_CALL:
        return eval_call(r, f, n, out);
    case E_TEST:
        return eval_test(r, f, n, out);
    case E_BIN:
        return eval_bin(r, f, n, out);
    case E_NEG:
    case E_POS: {
        tpl_value v;
        if (!eval(r, f, n->a, &v))
            return false;
        if (v.kind == TPL_UNDEFINED)
            return undefined_error(r, n->a, NULL);
        if (v.kind == TPL_BOOL)
            v = tpl_int(v.u.b);
        if (v.kind == TPL_INT) {
            if (n->kind == E_NEG && v.u.i == INT64_MIN)
                return tpl_r_error(r, n, "integer overflow");
            *out = tpl_int(n->kind == E_NEG ? -v.u.i : v.u.i);
        } else if (v.kind == TPL_FLOAT) {
            *out = tpl_float(n->kind == E_NEG ? -v.u.f : v.u.f);
        } else {
            return tpl_r_error(r, n, "bad operand type for unary %s: %s",
                               n->kind == E_NEG ? "-" : "+", type_name(v));
        }
        return true;
    }
    case E_NOT: {
        tpl_value v;
        if (!eval(r, f, n->a, &v))
            return false;
        *out = tpl_bool(!tpl_value_truthy(v));
        return true;
    }
    case E_AND:
    case E_OR: {
        tpl_value a;
        if (!eval(r, f, n->a, &a))
            return false;
        bool t = tpl_value_truthy(a);
        if (n->kind == E_AND ? !t : t) {
            *out = a;
            return true;
        }
        return eval(r, f, n->b, out);
    }
    case E_CMP: {
        tpl_value a;
        if (!eval(r, f, n->a, &a))
            return false;
        for (size_t i = 0; i < n->nkids; i++) {
            tpl_value b;
            if (!eval(r, f, n->kids[i], &b))
                return false;
            bool res;
            if (!compare_op(r, n, n->ops[i], a, b, &res))
                return false;
            if (!res) {
                *out = tpl_bool(false);
                return true;
            }
            a = b;
        }
        *out = tpl_bool(true);
        return true;
    }
    case E_COND: {
        tpl_value c;
        if (!eval(r, f, n->a, &c))
            return false;
        if (tpl_value_truthy(c))
            return eval(r, f, n->b, out);
        if (n->c)
            return eval(r, f, n->c, out);
        *out = tpl_undefined();
        return true;
    }
    case E_LIST:
    case E_TUPLE: {
        tpl_list *l = tpl_list_new(r->a, n->nkids);
        for (size_t i = 0; i < n->nkids; i++)
            if (!eval(r, f, n->kids[i], &l->items[i]))
                return false;
        *out = tpl_list_value(l);
        if (n->kind == E_TUPLE)
            out->flags |= TPL_TUPLE;
        return true;
    }
    case E_DICT: {
        tpl_map *m = tpl_map_new(r->a, n->nkids);
        for (size_t i = 0; i < n->nkids; i++) {
            tpl_value k, v;
            if (!eval(r, f, n->kids[i], &k) || !eval(r, f, n->kw[i], &v))
                return false;
            tpl_map_set(r->a, m, k, v);
        }
        *out = tpl_map_value(m);
        return true;
    }
    default:
        return tpl_r_error(r, n, "internal error: not an expression");
    }
}

/* ---- calls -------------------------------------------------------------- */

static tpl_value capture_value(tpl_render_state *r, buf *b)
{
    tpl_value v = tpl_str_copy(r->a, b->data, b->len);
    v.flags |= TPL_SAFE;
    return v;
}

static bool render_block_level(tpl_render_state *r, frame *f, const char *name, size_t level,
                               const node *at, buf *out);

/* Calls a macro (or a call block's caller) the way Jinja2's Macro.__call__
 * binds arguments: positional ones fill the parameters in order, keywords
 * fill the rest; leftovers go to `varargs`/`kwargs` when the body mentions
 * them and are errors otherwise. A call block's caller arrives as the
 * keyword `caller`. */
static bool call_macro(tpl_render_state *r, const node *at, const macro_obj *m, const tpl_value *pos,
                       size_t npos, const char **kwn, const tpl_value *kwv, size_t nkw,
                       tpl_value caller, tpl_value *out)
{
    const node *def = m->def;
    if (r->depth > 200)
        return tpl_r_error(r, at, "macro calls nested too deeply (recursion?)");
    if (!steps(r, at, 1))
        return false;
    frame *mf = frame_new(r, m->closure);
    size_t np = def->nnames;
    bool *used = arena_calloc(r->a, nkw + 1);
    tpl_value *vals = arena_alloc(r->a, (np + 1) * sizeof *vals);
    bool *given = arena_calloc(r->a, np + 1);
    bool caller_taken = false;
    for (size_t i = 0; i < np; i++) {
        if (i < npos) {
            vals[i] = pos[i];
            given[i] = true;
            continue;
        }
        for (size_t k = 0; k < nkw; k++)
            if (!used[k] && !strcmp(kwn[k], def->names[i])) {
                vals[i] = kwv[k];
                given[i] = used[k] = true;
                break;
            }
        if (!given[i] && caller.kind != TPL_UNDEFINED && !strcmp(def->names[i], "caller")) {
            vals[i] = caller;
            given[i] = caller_taken = true;
        }
    }
    for (size_t k = 0; k < nkw; k++)
        for (size_t j = k + 1; j < nkw; j++)
            if (!strcmp(kwn[k], kwn[j]))
                return tpl_r_error(r, at, "macro '%s' got argument '%s' twice", m->name, kwn[k]);
    tpl_value callerv = tpl_undefined();
    if (def->flags & NF_USES_CALLER) {
        for (size_t k = 0; k < nkw; k++)
            if (!used[k] && !strcmp(kwn[k], "caller")) {
                callerv = kwv[k];
                used[k] = true;
            }
        if (!caller_taken && caller.kind != TPL_UNDEFINED)
            callerv = caller;
        caller_taken = true;
    }
    if (caller.kind != TPL_UNDEFINED && !caller_taken && !(def->flags & NF_USES_KWARGS))
        return tpl_r_error(r, at, "macro '%s' was called with {%% call %%} but does not use "
                                  "caller()", m->name);
    tpl_map *kwargs = tpl_map_new(r->a, 0);
    for (size_t k = 0; k < nkw; k++)
        if (!used[k])
            tpl_map_set_str(r->a, kwargs, kwn[k], kwv[k]);
    if (caller.kind != TPL_UNDEFINED && !caller_taken)
        tpl_map_set_str(r->a, kwargs, "caller", caller);
    if (kwargs->len && !(def->flags & NF_USES_KWARGS))
        return tpl_r_error(r, at, "macro '%s' takes no keyword argument '%s'", m->name,
                           kwargs->entries[0].key.u.s);
    if (npos > np && !(def->flags & NF_USES_VARARGS))
        return tpl_r_error(r, at, "macro '%s' takes not more than %zu argument(s)", m->name, np);
    for (size_t i = 0; i < np; i++) {
        tpl_value v = vals[i];
        if (!given[i]) {
            v = tpl_undefined();
            if (def->kw && def->kw[i] && !eval(r, mf, def->kw[i], &v))
                return false;
        }
        frame_set(r, mf, def->names[i], v);
    }
    if (def->flags & NF_USES_VARARGS) {
        size_t extra = npos > np ? npos - np : 0;
        tpl_list *va = tpl_list_new(r->a, extra);
        for (size_t i = 0; i < extra; i++)
            va->items[i] = pos[np + i];
        tpl_value vv = tpl_list_value(va);
        vv.flags |= TPL_TUPLE;
        frame_set(r, mf, tpl_name_varargs, vv);
    }
    if (def->flags & NF_USES_KWARGS)
        frame_set(r, mf, tpl_name_kwargs, tpl_map_value(kwargs));
    if (def->flags & NF_USES_CALLER)
        frame_set(r, mf, tpl_name_caller, callerv);
    buf b = BUF_INIT;
    r->depth++;
    bool ok = exec(r, mf, def->b, &b);
    r->depth--;
    *out = capture_value(r, &b);
    buf_release(&b);
    return ok;
}

/* t(key, name=value, …): the theme string `key` of the site's language
 * (tpl_options.strings), else the English one (strings_fallback) with a
 * warning, else the key itself with a warning. Each {name} in it is
 * replaced by the keyword argument's value; with n=1, `key_one` is taken
 * when the table has it ("1 post" against "{n} posts"). Without tables
 * (sheaf render) the key is given back. */
static bool call_t(tpl_render_state *r, const node *at, const tpl_value *pos, size_t npos,
                   const char **kwn, const tpl_value *kwv, size_t nkw, tpl_value *out)
{
    if (npos != 1 || pos[0].kind != TPL_STRING)
        return tpl_r_error(r, at, "t() takes the key of a theme string: t(\"key\", n=…)");
    const tpl_options *o = r->opt;
    const char *key = pos[0].u.s;
    tpl_value s = tpl_undefined();
    bool one = false;
    for (size_t i = 0; i < nkw; i++)
        if (!strcmp(kwn[i], "n") && kwv[i].kind == TPL_INT && kwv[i].u.i == 1)
            one = true;
    const tpl_map *tables[2] = { o->strings, o->strings_fallback };
    int found = -1;
    for (int k = 0; k < 2 && found < 0; k++) {
        if (!tables[k])
            continue;
        if (one) {
            const char *k1 = arena_printf(r->a, "%s_one", key);
            s = tpl_map_get_cstr(tables[k], k1);
        }
        if (s.kind != TPL_STRING)
            s = tpl_map_get_cstr(tables[k], key);
        if (s.kind == TPL_STRING)
            found = k;
    }
    if (found != 0 && (o->strings || o->strings_fallback)) {
        if (found == 1)
            diag_warning(r->d, at->path, at->line, at->col,
                         "no theme string '%s' in language '%s' (the English one is shown; add it "
                         "to i18n/%s.yaml)", key, o->language ? o->language : "?",
                         o->language ? o->language : "?");
        else
            diag_warning(r->d, at->path, at->line, at->col,
                         "no theme string '%s' in any language (the key is shown; add it to "
                         "i18n/%s.yaml)", key, o->language ? o->language : "en");
    }
    if (found < 0)
        s = pos[0];
    if (!nkw || !memchr(s.u.s, '{', s.len)) {
        *out = s;
        out->flags &= (uint8_t)~TPL_SAFE;
        return true;
    }
    buf b = BUF_INIT;
    for (const char *p = s.u.s; *p; p++) {
        size_t k = 0;
        if (*p == '{')
            for (k = 0; k < nkw; k++) {
                size_t n = strlen(kwn[k]);
                if (!strncmp(p + 1, kwn[k], n) && p[1 + n] == '}')
                    break;
            }
        if (*p != '{' || k == nkw) {
            buf_putc(&b, *p);
            continue;
        }
        tpl_value v = tpl_to_string(r->a, kwv[k]);
        buf_put(&b, v.u.s, v.len);
        p += strlen(kwn[k]) + 1;
    }
    *out = tpl_str_copy(r->a, b.data, b.len);
    buf_release(&b);
    return true;
}

/* The global functions (builtins: range, dict, namespace, cycler,
 * joiner) called with their arguments, as Jinja2 defines them. */
static bool call_builtin(tpl_render_state *r, const node *at, const builtin_obj *b,
                         const tpl_value *pos, size_t npos, const char **kwn, const tpl_value *kwv,
                         size_t nkw, tpl_value *out)
{
    if (b->id == TPL_FIXED_RANGE) {
        int64_t a[3] = { 0, 0, 1 };
        if (npos < 1 || npos > 3 || nkw)
            return tpl_r_error(r, at, "range() takes 1 to 3 integer arguments");
        for (size_t i = 0; i < npos; i++) {
            if (pos[i].kind != TPL_INT && pos[i].kind != TPL_BOOL)
                return tpl_r_error(r, at, "range() arguments must be integers, not %s",
                                   type_name(pos[i]));
        }
        if (npos == 1) {
            a[1] = pos[0].u.i;
        } else {
            a[0] = pos[0].u.i;
            a[1] = pos[1].u.i;
            if (npos == 3)
                a[2] = pos[2].u.i;
        }
        if (a[2] == 0)
            return tpl_r_error(r, at, "range() step must not be zero");
        uint64_t cnt = ckd_steps(a[0], a[1], a[2]);
        if (!tpl_r_list_fits(r, at, "range()", cnt))
            return false;
        tpl_list *l = tpl_list_new(r->a, (size_t)cnt);
        for (size_t i = 0; i < (size_t)cnt; i++)
            l->items[i] = tpl_int(ckd_step_at(a[0], a[2], i));
        *out = tpl_list_value(l);
        return true;
    }
    if (b->id == TPL_FIXED_DICT || b->id == TPL_FIXED_NAMESPACE) {
        tpl_map *m = tpl_map_new(r->a, nkw);
        for (size_t i = 0; i < npos; i++) {
            if (pos[i].kind != TPL_MAP)
                return tpl_r_error(r, at, "%s() takes a map or keyword arguments", b->name);
            tpl_map_touch_all(pos[i].u.map);
            for (size_t k = 0; k < pos[i].u.map->len; k++)
                tpl_map_set(r->a, m, pos[i].u.map->entries[k].key, pos[i].u.map->entries[k].value);
        }
        for (size_t i = 0; i < nkw; i++)
            tpl_map_set_str(r->a, m, kwn[i], kwv[i]);
        if (b->id == TPL_FIXED_DICT) {
            *out = tpl_map_value(m);
        } else {
            ns_obj *ns = arena_alloc(r->a, sizeof *ns);
            ns->kind = O_NAMESPACE;
            ns->m = m;
            *out = objv(ns);
        }
        return true;
    }
    if (b->id == TPL_FIXED_CYCLER) {
        cycler_obj *c = arena_alloc(r->a, sizeof *c);
        c->kind = O_CYCLER;
        tpl_list *l = tpl_list_new(r->a, npos);
        memcpy(l->items, pos, npos * sizeof *pos);
        c->items = l;
        c->pos = 0;
        *out = objv(c);
        return true;
    }
    if (b->id == TPL_FIXED_T)
        return call_t(r, at, pos, npos, kwn, kwv, nkw, out);
    if (b->id == TPL_FIXED_JOINER) {
        joiner_obj *j = arena_alloc(r->a, sizeof *j);
        j->kind = O_JOINER;
        j->sep = npos ? pos[0] : nkw ? kwv[0] : tpl_str(", ");
        j->used = false;
        *out = objv(j);
        return true;
    }
    return tpl_r_error(r, at, "'%s' cannot be called", b->name);
}

/* A call `fn(args)` of anything callable — a macro, caller(), super(),
 * self.block(), a method of a value or of a loop/cycler/joiner, a global
 * function — with its arguments already evaluated. */
static bool call_value(tpl_render_state *r, frame *f, const node *at, tpl_value fn,
                       const tpl_value *pos, size_t npos, const char **kwn, const tpl_value *kwv,
                       size_t nkw, tpl_value *out)
{
    (void)f;
    switch (okind(fn)) {
    case O_MACRO:
        return call_macro(r, at, fn.u.obj, pos, npos, kwn, kwv, nkw,
                          ((const macro_obj *)fn.u.obj)->caller, out);
    case O_BUILTIN:
        return call_builtin(r, at, fn.u.obj, pos, npos, kwn, kwv, nkw, out);
    case O_SUPER:
    case O_BLOCKREF: {
        const super_obj *s = fn.u.obj;
        buf b = BUF_INIT;
        bool ok = render_block_level(r, s->scope, s->name, s->kind == O_SUPER ? s->level + 1 : 0,
                                     at, &b);
        *out = capture_value(r, &b);
        buf_release(&b);
        return ok;
    }
    case O_JOINER: {
        joiner_obj *j = (joiner_obj *)fn.u.obj;
        *out = j->used ? j->sep : tpl_str("");
        j->used = true;
        return true;
    }
    case O_METHOD: {
        const method_obj *m = fn.u.obj;
        if (okind(m->self) == O_LOOP) {
            loop_obj *lo = (loop_obj *)m->self.u.obj;
            if (!strcmp(m->name, "cycle")) {
                if (!npos)
                    return tpl_r_error(r, at, "loop.cycle() needs at least one argument");
                *out = pos[lo->i % npos];
                return true;
            }
            /* changed */
            tpl_value cur;
            if (npos == 1) {
                cur = pos[0];
            } else {
                tpl_list *l = tpl_list_new(r->a, npos);
                memcpy(l->items, pos, npos * sizeof *pos);
                cur = tpl_list_value(l);
            }
            bool ch = !lo->has_changed || !tpl_value_equal(cur, lo->last_changed);
            lo->has_changed = true;
            lo->last_changed = cur;
            *out = tpl_bool(ch);
            return true;
        }
        if (okind(m->self) == O_CYCLER) {
            cycler_obj *c = (cycler_obj *)m->self.u.obj;
            if (!strcmp(m->name, "reset")) {
                c->pos = 0;
                *out = tpl_none();
                return true;
            }
            if (!c->items->len)
                return tpl_r_error(r, at, "cycler() has no items");
            *out = c->items->items[c->pos];
            c->pos = (c->pos + 1) % c->items->len;
            return true;
        }
        return tpl_call_method(r, at, m->self, m->name, pos, npos, kwn, kwv, nkw, out);
    }
    default:
        break;
    }
    return tpl_r_error(r, at, "%s cannot be called", a_type(fn));
}

/* ---- output ----------------------------------------------------------- */

static bool write_value(tpl_render_state *r, const node *at, tpl_value v, buf *out)
{
    switch (v.kind) {
    case TPL_UNDEFINED:
        return true;
    case TPL_STRING:
        if (v.flags & TPL_SAFE)
            buf_put(out, v.u.s, v.len);
        else
            tpl_escape_html(out, v.u.s, v.len);
        return true;
    case TPL_INT: {
        char tmp[24], *e = tmp + sizeof tmp, *d = e;
        uint64_t u = v.u.i < 0 ? 0 - (uint64_t)v.u.i : (uint64_t)v.u.i;
        do
            *--d = (char)('0' + u % 10);
        while (u /= 10);
        if (v.u.i < 0)
            *--d = '-';
        buf_put(out, d, (size_t)(e - d));
        return true;
    }
    default: {
        tpl_value s = tpl_to_string(r->a, v);
        if (!result_ok(r, at, "str()", s))
            return false;
        tpl_escape_html(out, s.u.s, s.len);
        return true;
    }
    }
}

/* ---- blocks and templates -------------------------------------------- */

static void blocks_add(tpl_render_state *r, blockset *bs, const tpl_template *t)
{
    for (size_t i = 0; i < t->nblocks; i++) {
        if (bs->n == bs->cap) {
            size_t nc = bs->cap ? bs->cap * 2 : 16;
            block_entry *nv = arena_alloc(r->a, nc * sizeof *nv);
            if (bs->n)
                memcpy(nv, bs->v, bs->n * sizeof *nv);
            bs->v = nv;
            bs->cap = nc;
        }
        bs->v[bs->n].name = t->blocks[i].name;
        bs->v[bs->n].def = t->blocks[i].node;
        bs->n++;
    }
}

static bool render_block_level(tpl_render_state *r, frame *f, const char *name, size_t level,
                               const node *at, buf *out)
{
    blockset *bs = r->blocks;
    size_t seen = 0;
    for (size_t i = 0; bs && i < bs->n; i++) {
        if (strcmp(bs->v[i].name, name))
            continue;
        if (seen++ < level)
            continue;
        const node *def = bs->v[i].def;
        frame *bf = frame_new(r, f);
        super_obj *s = arena_alloc(r->a, sizeof *s);
        s->kind = O_SUPER;
        s->name = name;
        s->level = level;
        s->scope = f;
        frame_set(r, bf, tpl_name_super, objv(s));
        if (r->depth > 200)
            return tpl_r_error(r, at, "blocks nested too deeply");
        r->depth++;
        bool ok = exec(r, bf, def->b, out);
        r->depth--;
        return ok;
    }
    if (level == 0)
        return tpl_r_error(r, at, "no block named '%s'", name);
    return tpl_r_error(r, at, "super(): block '%s' has no parent block to call", name);
}

static bool render_template(tpl_render_state *r, const tpl_template *t, frame *parent,
                            bool with_vars, buf *out, frame **root_out);

static const tpl_template *load_dynamic(tpl_render_state *r, const node *at, tpl_value name,
                                        bool optional, bool *missing)
{
    *missing = false;
    if (name.kind != TPL_STRING) {
        tpl_r_error(r, at, "template name must be a string, not %s", type_name(name));
        return NULL;
    }
    buf tried = BUF_INIT;
    diag_list *tmp = diag_list_new();
    const tpl_template *t = tpl_loader_get(r->l, name.u.s, &tried, tmp);
    if (diag_error_count(tmp)) {
        diag_move(r->d, tmp);
        r->failed = true;
        t = NULL;
    } else if (!t) {
        *missing = true;
        if (!optional)
            tpl_r_error(r, at, "template '%s' not found (looked in: %s)", name.u.s, tried.data);
    }
    diag_list_free(tmp);
    buf_release(&tried);
    return t;
}

/* {% include name %} (a name or a list of names, the first found wins;
 * `ignore missing` allowed): renders the template with the current
 * variables, guarding the nesting depth. */
static bool exec_include(tpl_render_state *r, frame *f, const node *n, buf *out)
{
    tpl_value name;
    if (!eval(r, f, n->a, &name))
        return false;
    const tpl_template *t = NULL;
    bool missing;
    if (name.kind == TPL_LIST) {
        for (size_t i = 0; i < name.u.list->len && !t; i++) {
            t = load_dynamic(r, n, name.u.list->items[i], true, &missing);
            if (r->failed)
                return false;
        }
        if (!t && !(n->flags & NF_IGNORE_MISSING)) {
            buf b = BUF_INIT;
            tpl_value_to_str(name, &b);
            bool ok = tpl_r_error(r, n, "none of the templates %s was found", b.data);
            buf_release(&b);
            return ok;
        }
    } else {
        t = load_dynamic(r, n, name, n->flags & NF_IGNORE_MISSING, &missing);
    }
    if (!t)
        return !r->failed;
    if (r->depth > 100)
        return tpl_r_error(r, n, "includes nested too deeply (an include cycle?)");
    blockset *saved_bs = r->blocks;
    frame *saved_root = r->root;
    bool saved_ext = r->extends_seen;
    const tpl_template *saved_parent = r->parent;
    r->depth++;
    bool ok = render_template(r, t, (n->flags & NF_NO_CONTEXT) ? NULL : f,
                              !(n->flags & NF_NO_CONTEXT), out, NULL);
    r->depth--;
    r->blocks = saved_bs;
    r->root = saved_root;
    r->extends_seen = saved_ext;
    r->parent = saved_parent;
    return ok;
}

/* Renders a template as a module and returns its exported names. */
static bool load_module(tpl_render_state *r, frame *f, const node *n, tpl_map **mod)
{
    tpl_value name;
    if (!eval(r, f, n->a, &name))
        return false;
    bool missing;
    const tpl_template *t = load_dynamic(r, n, name, false, &missing);
    if (!t)
        return false;
    if (r->depth > 100)
        return tpl_r_error(r, n, "imports nested too deeply (an import cycle?)");
    blockset *saved_bs = r->blocks;
    frame *saved_root = r->root;
    bool saved_ext = r->extends_seen;
    const tpl_template *saved_parent = r->parent;
    buf discard = BUF_INIT;
    frame *root = NULL;
    bool with = n->flags & NF_WITH_CONTEXT;
    r->depth++;
    bool ok = render_template(r, t, with ? f : NULL, with, &discard, &root);
    r->depth--;
    buf_release(&discard);
    r->blocks = saved_bs;
    r->root = saved_root;
    r->extends_seen = saved_ext;
    r->parent = saved_parent;
    if (!ok)
        return false;
    tpl_map *m = tpl_map_new(r->a, root ? root->n : 0);
    for (size_t i = 0; root && i < root->n; i++)
        if (root->names[i][0] != '_')
            tpl_map_set_str(r->a, m, root->names[i], root->vals[i]);
    *mod = m;
    return true;
}

static bool assign_targets(tpl_render_state *r, frame *f, const node *at, const char **names,
                           size_t n, tpl_value v)
{
    if (n == 1) {
        frame_set(r, f, names[0], v);
        return true;
    }
    const tpl_list *l = NULL;
    if (v.kind == TPL_LIST)
        l = v.u.list;
    else if (v.kind == TPL_STRING || v.kind == TPL_MAP) {
        if (!tpl_r_chars_fit(r, at, v))
            return false;
        l = tpl_iterable(r->a, v);
    }
    if (!l)
        return tpl_r_error(r, at, "cannot unpack %s into %zu names", a_type(v), n);
    if (l->len != n)
        return tpl_r_error(r, at, "cannot unpack %zu value%s into %zu names", l->len,
                           l->len == 1 ? "" : "s", n);
    for (size_t i = 0; i < n; i++)
        frame_set(r, f, names[i], l->items[i]);
    return true;
}

/* A long list of maps (site.posts) is read from all over memory: each
 * item's map, then its entries, then the strings and lists they point to,
 * one dependent load after another. A loop asks for them ahead of time in
 * that order, each step once the step before has had time to arrive: the
 * map 8 items ahead, its entries 4 ahead, what they point to 2 ahead. (On
 * an index of 10,000 posts: about 9% more renders a second on average; no
 * cost when everything is in cache.) */
static void prefetch_ahead(const tpl_list *items, size_t i)
{
    if (i + 8 < items->len && items->items[i + 8].kind == TPL_MAP)
        __builtin_prefetch(items->items[i + 8].u.map);
    if (i + 4 < items->len && items->items[i + 4].kind == TPL_MAP &&
        tpl_map_made(items->items[i + 4].u.map)) {
        const tpl_map *m = items->items[i + 4].u.map;
        const char *e = (const char *)m->entries;
        size_t bytes = m->len * sizeof *m->entries;
        for (size_t k = 0; k < bytes && k < 256; k += 64)
            __builtin_prefetch(e + k);
    }
    if (i + 2 < items->len && items->items[i + 2].kind == TPL_MAP &&
        tpl_map_made(items->items[i + 2].u.map)) {
        const tpl_map *m = items->items[i + 2].u.map;
        for (size_t k = 0; k < m->len && k < 8; k++) {
            const tpl_value *v = &m->entries[k].value;
            if (v->kind == TPL_STRING || v->kind == TPL_LIST || v->kind == TPL_MAP)
                __builtin_prefetch(v->u.s);
        }
    }
}

/* {% for %}: the items (a map's entries for `for k, v in map`), the
 * inline `if` filter, unpacking into the loop names, the `loop` object,
 * the {% else %} branch when nothing was looped over; assignments inside
 * stay inside (a frame of its own). */
static bool exec_for(tpl_render_state *r, frame *f, const node *n, buf *out)
{
    tpl_value it;
    if (!eval(r, f, n->a, &it))
        return false;
    const tpl_list *items;
    if (it.kind == TPL_MAP && n->nnames == 2) {
        /* sheaf extension: for k, v in map — entries in document order */
        tpl_map_touch_all(it.u.map);
        tpl_list *l = tpl_list_new(r->a, it.u.map->len);
        for (size_t i = 0; i < it.u.map->len; i++) {
            tpl_list *pair = tpl_list_new(r->a, 2);
            pair->items[0] = it.u.map->entries[i].key;
            pair->items[1] = it.u.map->entries[i].value;
            l->items[i] = tpl_list_value(pair);
        }
        items = l;
    } else {
        if (!tpl_r_chars_fit(r, n->a, it))
            return false;
        items = tpl_iterable(r->a, it);
        if (!items)
            return tpl_r_error(r, n->a, "cannot loop over %s", a_type(it));
    }
    frame *lf = frame_new(r, f);
    if (n->d) {
        tpl_list *kept = tpl_list_new(r->a, items->len);
        size_t k = 0;
        for (size_t i = 0; i < items->len; i++) {
            if (lf->captured)
                lf = frame_new(r, f);
            lf->n = 0;
            if (!steps(r, n, 1) || !assign_targets(r, lf, n, n->names, n->nnames, items->items[i]))
                return false;
            tpl_value c;
            if (!eval(r, lf, n->d, &c))
                return false;
            if (tpl_value_truthy(c))
                kept->items[k++] = items->items[i];
            if (!result_ok(r, n->d, "the loop condition", c))
                return false;
        }
        kept->len = k;
        items = kept;
    }
    if (!items->len)
        return n->c ? exec(r, f, n->c, out) : true;
    loop_obj *lo = arena_calloc(r->a, sizeof *lo);
    lo->kind = O_LOOP;
    lo->items = items;
    lo->depth = 1; /* depth counts recursive loops, which sheaf has not */
    /* Each iteration runs in a fresh frame: a `set` in one iteration is
     * seen neither by the next one nor after the loop (as in Jinja2). The
     * frame is reused unless a macro defined in it captured it. */
    for (size_t i = 0; i < items->len; i++) {
        prefetch_ahead(items, i);
        lo->i = i;
        if (lf->captured)
            lf = frame_new(r, f);
        lf->n = 0;
        if (n->flags & NF_LOOP_USED)
            frame_set(r, lf, tpl_name_loop, objv(lo));
        if (!steps(r, n, 1) || !assign_targets(r, lf, n, n->names, n->nnames, items->items[i]))
            return false;
        if (!exec(r, lf, n->b, out) || !output_ok(r, n, out))
            return false;
    }
    return true;
}

static bool apply_chain(tpl_render_state *r, frame *f, node **chain, size_t n, tpl_value v,
                        tpl_value *out)
{
    for (size_t i = 0; i < n; i++)
        if (!apply_filter_node(r, f, chain[i], v, &v))
            return false;
    *out = v;
    return true;
}

static bool exec_output(tpl_render_state *r, frame *f, const node *n, buf *out)
{
    tpl_value v;
    if (!eval(r, f, n->a, &v))
        return false;
    if (v.kind == TPL_OBJECT && okind(v) != O_NAMESPACE)
        return tpl_r_error(r, n->a, "cannot print a %s (did you mean to call it?)", type_name(v));
    return write_value(r, n, v, out);
}

static bool exec_if(tpl_render_state *r, frame *f, const node *n, buf *out)
{
    for (const node *c = n; c; c = c->c) {
        if (c->kind != N_IF)
            return exec(r, f, c, out);
        tpl_value v;
        if (!eval(r, f, c->a, &v))
            return false;
        if (tpl_value_truthy(v))
            return exec(r, f, c->b, out);
    }
    return true;
}

/* One statement node (N_*) of a template body, writing to out. */
static bool exec_stmt(tpl_render_state *r, frame *f, const node *n, buf *out)
{
    switch (n->kind) {
    case N_TEXT:
        buf_put(out, n->s, n->slen);
        return true;
    case N_OUTPUT:
        return exec_output(r, f, n, out);
    case N_BODY:
        return exec(r, f, n, out);
    case N_IF:
        return exec_if(r, f, n, out);
    case N_FOR:
        return exec_for(r, f, n, out);
    case N_SET: {
        tpl_value v;
        if (!eval(r, f, n->a, &v))
            return false;
        if (n->flags & NF_ATTR_TARGET) {
            tpl_value ns;
            if (!lookup(r, f, n->names[0], &ns))
                return tpl_r_error(r, n, "unknown variable '%s'", n->names[0]);
            if (okind(ns) != O_NAMESPACE)
                return tpl_r_error(r, n, "cannot set an attribute of '%s': it is a %s, not a "
                                         "namespace()", n->names[0], type_name(ns));
            tpl_map_set_str(r->a, ((ns_obj *)ns.u.obj)->m, n->s, v);
            return true;
        }
        return assign_targets(r, f, n, n->names, n->nnames, v);
    }
    case N_SET_BLOCK: {
        buf b = BUF_INIT;
        bool ok = exec(r, frame_new(r, f), n->b, &b); /* a scope of its own */
        tpl_value v = capture_value(r, &b);
        buf_release(&b);
        if (!ok || !apply_chain(r, f, n->kids, n->nkids, v, &v))
            return false;
        frame_set(r, f, n->names[0], v);
        return true;
    }
    case N_BLOCK:
        if (r->extends_seen)
            return true;
        return render_block_level(r, (n->flags & NF_SCOPED) ? f : r->root, n->s, 0, n, out);
    case N_EXTENDS: {
        if (r->extends_seen)
            return tpl_r_error(r, n, "a template can extend only one parent");
        tpl_value name;
        if (!eval(r, f, n->a, &name))
            return false;
        bool missing;
        const tpl_template *p = load_dynamic(r, n, name, false, &missing);
        if (!p)
            return false;
        r->extends_seen = true;
        r->parent = p;
        return true;
    }
    case N_INCLUDE:
        return exec_include(r, f, n, out);
    case N_IMPORT: {
        tpl_map *m;
        if (!load_module(r, f, n, &m))
            return false;
        frame_set(r, f, n->s, tpl_map_value(m));
        return true;
    }
    case N_FROM: {
        tpl_map *m;
        if (!load_module(r, f, n, &m))
            return false;
        const char **alias = (const char **)n->kids;
        for (size_t i = 0; i < n->nnames; i++) {
            tpl_value v = tpl_map_get_cstr(m, n->names[i]);
            if (v.kind == TPL_UNDEFINED)
                return tpl_r_error(r, n, "the template does not export '%s'", n->names[i]);
            frame_set(r, f, alias[i], v);
        }
        return true;
    }
    case N_MACRO: {
        macro_obj *m = arena_calloc(r->a, sizeof *m);
        m->kind = O_MACRO;
        m->name = n->s;
        m->def = n;
        m->closure = f;
        f->captured = true;
        frame_set(r, f, n->s, objv(m));
        return true;
    }
    case N_CALL_BLOCK: {
        const node *call = n->a;
        tpl_value fn;
        if (!eval(r, f, call->a, &fn))
            return false;
        if (okind(fn) != O_MACRO)
            return tpl_r_error(r, call, "'call' needs a macro, not %s", a_type(fn));
        tpl_value *pos, *kwv;
        if (!eval_args(r, f, call, &pos, &kwv))
            return false;
        macro_obj *c = arena_calloc(r->a, sizeof *c);
        c->kind = O_MACRO;
        c->name = "caller";
        c->def = n;
        c->closure = f;
        f->captured = true;
        tpl_value res;
        if (!call_macro(r, call, fn.u.obj, pos, call->nkids, call->names, kwv, call->nnames,
                        objv(c), &res))
            return false;
        return write_value(r, n, res, out);
    }
    case N_WITH: {
        frame *wf = frame_new(r, f);
        for (size_t i = 0; i < n->nnames; i++) {
            tpl_value v;
            if (!eval(r, f, n->kids[i], &v))
                return false;
            frame_set(r, wf, n->names[i], v);
        }
        return exec(r, wf, n->b, out);
    }
    case N_FILTER_BLOCK: {
        buf b = BUF_INIT;
        bool ok = exec(r, frame_new(r, f), n->b, &b); /* a scope of its own */
        tpl_value v = capture_value(r, &b);
        buf_release(&b);
        if (!ok || !apply_chain(r, f, n->kids, n->nkids, v, &v))
            return false;
        return write_value(r, n, v, out);
    }
    default:
        return tpl_r_error(r, n, "internal error: not a statement");
    }
}

static bool exec(tpl_render_state *r, frame *f, const node *n, buf *out)
{
    if (n->kind != N_BODY)
        return exec_stmt(r, f, n, out);
    for (size_t i = 0; i < n->nkids; i++) {
        if (r->extends_seen && f == r->root) {
            /* after `extends`, a child's top level only defines things */
            const node *k = n->kids[i];
            if (k->kind == N_TEXT || k->kind == N_OUTPUT || k->kind == N_BLOCK)
                continue;
            buf discard = BUF_INIT;
            bool ok = exec_stmt(r, f, k, &discard);
            buf_release(&discard);
            if (!ok)
                return false;
            continue;
        }
        const node *k = n->kids[i];
        if (k->kind == N_TEXT) { /* the commonest statements without the switch (see eval) */
            buf_put(out, k->s, k->slen);
            continue;
        }
        bool ok = k->kind == N_OUTPUT ? exec_output(r, f, k, out)
                  : k->kind == N_IF   ? exec_if(r, f, k, out)
                                      : exec_stmt(r, f, k, out);
        if (!ok || !output_ok(r, k, out))
            return false;
    }
    return true;
}

/* Renders t, following {% extends %}: each template of the chain runs in
 * turn (its top-level code sets variables, its blocks are collected), the
 * last one — the one that extends nothing — writes the output. A cycle or
 * a chain deeper than 32 is an error. *root_out: the root frame (for
 * imports). */
static bool render_template(tpl_render_state *r, const tpl_template *t, frame *parent,
                            bool with_vars, buf *out, frame **root_out)
{
    blockset *bs = arena_calloc(r->a, sizeof *bs);
    frame *root = frame_new(r, parent);
    root->with_vars = with_vars && parent == NULL;
    r->blocks = bs;
    r->root = root;
    r->extends_seen = false;
    r->parent = NULL;
    blocks_add(r, bs, t);
    const tpl_template *chain[32];
    size_t nchain = 0;
    chain[nchain++] = t;
    for (;;) {
        if (!exec(r, root, t->root, out))
            return false;
        if (!r->extends_seen)
            break;
        const tpl_template *p = r->parent;
        for (size_t i = 0; i < nchain; i++) {
            if (chain[i] == p) {
                buf b = BUF_INIT;
                for (size_t k = 0; k < nchain; k++)
                    buf_printf(&b, "%s → ", chain[k]->name);
                buf_puts(&b, p->name);
                diag_error(r->d, t->path, 1, 1, "extends cycle: %s", b.data);
                buf_release(&b);
                r->failed = true;
                return false;
            }
        }
        if (nchain == 32) {
            diag_error(r->d, t->path, 1, 1, "templates extend each other too deeply");
            r->failed = true;
            return false;
        }
        chain[nchain++] = p;
        blocks_add(r, bs, p);
        r->extends_seen = false;
        r->parent = NULL;
        t = p;
    }
    if (root_out)
        *root_out = root;
    return true;
}

bool tpl_render(const tpl_template *t, tpl_loader *l, const tpl_map *vars, const tpl_options *opt,
                const char *context, arena *scratch, buf *out, diag_list *d)
{
    static const tpl_options no_opt = { .base_url = "/" };
    tpl_render_state r = { .l = l, .opt = opt ? opt : &no_opt, .a = scratch, .d = d,
                           .context = context, .vars = vars };
    r.mem_start = arena_used(scratch);
    r.max_memory = r.opt->max_memory && r.opt->max_memory < TPL_MAX_MEMORY ? r.opt->max_memory
                                                                           : TPL_MAX_MEMORY;
    r.max_output = r.opt->max_output && r.opt->max_output < TPL_MAX_OUTPUT ? r.opt->max_output
                                                                           : TPL_MAX_OUTPUT;
    r.max_steps = r.opt->max_steps && r.opt->max_steps < TPL_MAX_STEPS ? r.opt->max_steps
                                                                       : TPL_MAX_STEPS;
    r.steps_check = r.max_steps + 1 < CHARGE_STEPS ? r.max_steps + 1 : CHARGE_STEPS;
    r.spare = (buf)BUF_INIT;
    size_t start = out->len, hint = atomic_load_explicit(&((tpl_template *)t)->out_hint,
                                                         memory_order_relaxed);
    if (hint)
        buf_grow(out, hint + hint / 16);
    bool ok = render_template(&r, t, NULL, true, out, NULL);
    if (ok && out->len - start != hint)
        atomic_store_explicit(&((tpl_template *)t)->out_hint, out->len - start,
                              memory_order_relaxed);
    if (r.opt->budget && r.steps > r.steps_charged)
        atomic_fetch_add(&r.opt->budget->steps, r.steps - r.steps_charged);
    atomic_fetch_sub(&process_memory, r.mem_charged);
    buf_release(&r.spare);
    return ok && !r.failed;
}
