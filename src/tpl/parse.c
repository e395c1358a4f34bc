/* parse: tokens → AST, with Jinja2's grammar and operator precedence.
 *
 *   expr    := cond
 *   cond    := or ['if' or ['else' cond]]
 *   or      := and ('or' and)*          and := not ('and' not)*
 *   not     := 'not' not | compare      compare := math1 (cmpop math1)*
 *   math1   := concat (('+'|'-') concat)*
 *   concat  := math2 ('~' math2)*       math2 := pow (('*'|'/'|'//'|'%') pow)*
 *   pow     := unary ('**' unary)*
 *   unary   := ('-'|'+') unary-without-filters | primary postfix* (filter|test|call)*
 *
 * Errors stop the parse at the first problem, at its line and column; an
 * unclosed block names the line of its opening tag. Filters and tests are
 * looked up here, so an unknown one is a parse error. */
#include <stdlib.h>
#include <string.h>

#include "tpl/internal.h"
#include "util/vec.h"
#include "util/xalloc.h"

typedef struct parser {
    const char *path;
    token *t;
    size_t n, i;
    arena *a;
    diag_list *d;
    bool failed;
    tpl_template *tpl;
    /* static references */
    size_t refcap;
    int depth;      /* recursion of the parser (unary, not, bodies) */
    int expr_level; /* parse_expr calls under way */
} parser;

/* How deep templates may nest: statements in statements, and expressions
 * in expressions (each level is a few stack frames when rendering; Python's
 * recursion limit stops Jinja2 somewhat deeper). */
#define MAX_NESTING 256

static token *peek(parser *p) { return &p->t[p->i]; }
static token *peek2(parser *p) { return &p->t[p->i + 1 < p->n ? p->i + 1 : p->i]; }
static token *next(parser *p)
{
    token *t = &p->t[p->i];
    if (p->i + 1 < p->n)
        p->i++;
    return t;
}

static bool is_op(token *t, const char *op) { return t->kind == T_OP && strcmp(t->s, op) == 0; }
static bool is_name(token *t, const char *n) { return t->kind == T_NAME && strcmp(t->s, n) == 0; }

static void *fail(parser *p, token *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void *fail(parser *p, token *t, const char *fmt, ...)
{
    if (!p->failed) {
        va_list ap;
        va_start(ap, fmt);
        diag_vadd(p->d, DIAG_ERROR, p->path, t->line, t->col, fmt, ap);
        va_end(ap);
    }
    p->failed = true;
    return NULL;
}

static const char *describe(token *t)
{
    switch (t->kind) {
    case T_EOF: return "end of template";
    case T_TEXT: return "template text";
    case T_VAR_BEGIN: return "{{";
    case T_VAR_END: return "}}";
    case T_BLOCK_BEGIN: return "{%";
    case T_BLOCK_END: return "%}";
    case T_NAME: return t->s;
    case T_STRING: return "a string";
    case T_INT: return "an integer";
    case T_FLOAT: return "a number";
    case T_OP: return t->s;
    }
    return "?";
}

static bool expect_op(parser *p, const char *op)
{
    token *t = peek(p);
    if (!is_op(t, op)) {
        fail(p, t, "expected '%s', found '%s'", op, describe(t));
        return false;
    }
    next(p);
    return true;
}

static node *mk(parser *p, int kind, token *at)
{
    node *n = arena_calloc(p->a, sizeof *n);
    n->kind = (uint8_t)kind;
    n->line = at->line;
    n->col = at->col;
    n->path = p->path;
    return n;
}

/* A growable node list in the arena. */
typedef struct nlist {
    node **v;
    size_t n, cap;
} nlist;
static void nl_push(parser *p, nlist *l, node *x)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 4;
        node **nv = arena_alloc(p->a, nc * sizeof *nv);
        if (l->n)
            memcpy(nv, l->v, l->n * sizeof *nv);
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n++] = x;
}
typedef struct slist {
    const char **v;
    size_t n, cap;
} slist;
static void sl_push(parser *p, slist *l, const char *s)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 4;
        const char **nv = arena_alloc(p->a, nc * sizeof *nv);
        if (l->n)
            memcpy(nv, l->v, l->n * sizeof *nv);
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n++] = s;
}

static node *parse_expr(parser *p);
static node *parse_unary(parser *p, bool with_filter);
static node *parse_or(parser *p);

/* ---- expressions ---------------------------------------------------- */

static node *parse_primary(parser *p);

/* call arguments after '(' : positional, then k=v */
static bool parse_args(parser *p, node *call)
{
    nlist pos = { 0 }, kwv = { 0 };
    slist kwn = { 0 };
    token *open = peek(p);
    if (!expect_op(p, "("))
        return false;
    while (!is_op(peek(p), ")")) {
        if (pos.n + kwn.n) {
            if (!expect_op(p, ","))
                return false;
            if (is_op(peek(p), ")"))
                break;
        }
        if (peek(p)->kind == T_EOF || peek(p)->kind == T_VAR_END || peek(p)->kind == T_BLOCK_END) {
            fail(p, open, "'(' is never closed");
            return false;
        }
        if (peek(p)->kind == T_NAME && is_op(peek2(p), "=")) {
            token *k = next(p);
            next(p);
            node *v = parse_expr(p);
            if (!v)
                return false;
            sl_push(p, &kwn, k->s);
            nl_push(p, &kwv, v);
        } else {
            if (kwn.n) {
                fail(p, peek(p), "a positional argument cannot follow keyword arguments");
                return false;
            }
            node *v = parse_expr(p);
            if (!v)
                return false;
            nl_push(p, &pos, v);
        }
    }
    next(p);
    call->kids = pos.v;
    call->nkids = pos.n;
    call->names = kwn.v;
    call->kw = kwv.v;
    call->nnames = kwn.n;
    return true;
}

/* NF_PLAIN_ARGS when a call's arguments bind to `params` in order. */
static void mark_plain_args(node *n, const char *params)
{
    if (tpl_args_in_order(params, n->nkids, n->nnames))
        n->flags |= NF_PLAIN_ARGS;
}

static node *parse_filter(parser *p, node *operand)
{
    token *t = peek(p);
    if (t->kind != T_NAME)
        return fail(p, t, "expected a filter name after '|', found '%s'", describe(t));
    next(p);
    int idx = tpl_filter_find(t->s);
    if (idx < 0)
        return fail(p, t, "unknown filter '%s'", t->s);
    node *f = mk(p, E_FILTER, t);
    f->a = operand;
    f->s = t->s;
    f->op = (uint16_t)idx;
    if (operand && operand->kind == E_NAME &&
        (strcmp(t->s, "default") == 0 || strcmp(t->s, "d") == 0))
        operand->flags |= NF_ALLOW_UNDEF;
    if (is_op(peek(p), "(") && !parse_args(p, f))
        return NULL;
    mark_plain_args(f, tpl_filter_get(idx)->params);
    return f;
}

/* `operand is [not] NAME`, with the test's argument in parentheses or as
 * one bare expression (`is divisibleby 3`); the test is looked up now, so
 * an unknown one is an error at parse time. */
static node *parse_test(parser *p, node *operand)
{
    token *is = next(p); /* 'is' */
    bool neg = false;
    if (is_name(peek(p), "not")) {
        next(p);
        neg = true;
    }
    token *t = peek(p);
    const char *name = NULL;
    if (t->kind == T_NAME)
        name = t->s;
    else if (t->kind == T_OP && (is_op(t, "==") || is_op(t, "!=") || is_op(t, "<") ||
                                 is_op(t, "<=") || is_op(t, ">") || is_op(t, ">=")))
        name = t->s;
    if (!name)
        return fail(p, t, "expected a test name after 'is', found '%s'", describe(t));
    next(p);
    int idx = tpl_test_find(name);
    if (idx < 0)
        return fail(p, t, "unknown test '%s'", name);
    node *n = mk(p, E_TEST, is);
    n->a = operand;
    n->s = name;
    n->op = (uint16_t)idx;
    if (neg)
        n->flags |= NF_NEGATED;
    if (operand && operand->kind == E_NAME &&
        (strcmp(name, "defined") == 0 || strcmp(name, "undefined") == 0))
        operand->flags |= NF_ALLOW_UNDEF;
    if (is_op(peek(p), "(")) {
        if (!parse_args(p, n))
            return NULL;
    } else {
        token *a = peek(p);
        bool arg = a->kind == T_STRING || a->kind == T_INT || a->kind == T_FLOAT ||
                   is_op(a, "[") || is_op(a, "{") ||
                   (a->kind == T_NAME && !is_name(a, "else") && !is_name(a, "or") &&
                    !is_name(a, "and") && !is_name(a, "if") && !is_name(a, "is") &&
                    !is_name(a, "in") && !is_name(a, "not"));
        if (arg) {
            node *v = parse_primary(p);
            if (!v)
                return NULL;
            n->kids = arena_alloc(p->a, sizeof(node *));
            n->kids[0] = v;
            n->nkids = 1;
        }
    }
    mark_plain_args(n, tpl_test_get(idx)->params);
    return n;
}

/* What follows a primary expression, left to right: `.name`, `[key]`,
 * `[a:b:c]` slices and `(args)` calls. */
static node *parse_postfix(parser *p, node *n)
{
    for (;;) {
        token *t = peek(p);
        if (is_op(t, ".")) {
            next(p);
            token *name = peek(p);
            if (name->kind == T_NAME) {
                next(p);
                node *g = mk(p, E_GETATTR, t);
                g->line = n->line;
                g->col = n->col;
                g->a = n;
                g->s = name->s;
                g->slen = name->n;
                g->op = (uint16_t)tpl_loop_attr(name->s);
                tpl_value any_map = { .kind = TPL_MAP };
                if (tpl_has_method(any_map, name->s))
                    g->flags |= NF_MAP_METHOD;
                n = g;
            } else if (name->kind == T_INT) {
                next(p);
                node *g = mk(p, E_GETITEM, t);
                g->line = n->line;
                g->col = n->col;
                g->a = n;
                g->b = mk(p, E_LIT, name);
                g->b->lit = tpl_int(name->i);
                n = g;
            } else {
                return fail(p, name, "expected an attribute name after '.', found '%s'",
                            describe(name));
            }
        } else if (is_op(t, "[")) {
            next(p);
            node *start = NULL, *stop = NULL, *step = NULL;
            bool slice = false;
            if (!is_op(peek(p), ":")) {
                start = parse_expr(p);
                if (!start)
                    return NULL;
            }
            if (is_op(peek(p), ":")) {
                slice = true;
                next(p);
                if (!is_op(peek(p), "]") && !is_op(peek(p), ":")) {
                    stop = parse_expr(p);
                    if (!stop)
                        return NULL;
                }
                if (is_op(peek(p), ":")) {
                    next(p);
                    if (!is_op(peek(p), "]")) {
                        step = parse_expr(p);
                        if (!step)
                            return NULL;
                    }
                }
            }
            if (!expect_op(p, "]"))
                return NULL;
            node *g = mk(p, slice ? E_SLICE : E_GETITEM, t);
            g->line = n->line;
            g->col = n->col;
            g->a = n;
            g->b = start;
            g->c = stop;
            g->d = step;
            n = g;
        } else if (is_op(t, "(")) {
            node *c = mk(p, E_CALL, t);
            c->a = n;
            if (!parse_args(p, c))
                return NULL;
            n = c;
        } else {
            return n;
        }
    }
}

static node *parse_filter_expr(parser *p, node *n)
{
    for (;;) {
        token *t = peek(p);
        if (is_op(t, "|")) {
            next(p);
            n = parse_filter(p, n);
        } else if (is_name(t, "is")) {
            n = parse_test(p, n);
        } else if (is_op(t, "(")) {
            node *c = mk(p, E_CALL, t);
            c->a = n;
            if (!parse_args(p, c))
                return NULL;
            n = c;
        } else {
            return n;
        }
        if (!n)
            return NULL;
    }
}

static node *parse_seq(parser *p, int kind, token *open, const char *close, bool *had_comma)
{
    nlist items = { 0 }, vals = { 0 };
    node *n = mk(p, kind, open);
    while (!is_op(peek(p), close)) {
        if (items.n) {
            if (!expect_op(p, ","))
                return NULL;
            if (had_comma)
                *had_comma = true;
            if (is_op(peek(p), close))
                break;
        }
        token *t = peek(p);
        if (t->kind == T_EOF || t->kind == T_VAR_END || t->kind == T_BLOCK_END)
            return fail(p, open, "'%s' is never closed", open->s);
        node *v = parse_expr(p);
        if (!v)
            return NULL;
        nl_push(p, &items, v);
        if (kind == E_DICT) {
            if (!expect_op(p, ":"))
                return NULL;
            node *w = parse_expr(p);
            if (!w)
                return NULL;
            nl_push(p, &vals, w);
        }
    }
    next(p);
    n->kids = items.v;
    n->nkids = items.n;
    n->kw = vals.v;
    return n;
}

static node *parse_primary(parser *p)
{
    token *t = peek(p);
    node *n;
    switch (t->kind) {
    case T_NAME:
        next(p);
        n = mk(p, E_LIT, t);
        if (!strcmp(t->s, "true") || !strcmp(t->s, "True"))
            n->lit = tpl_bool(true);
        else if (!strcmp(t->s, "false") || !strcmp(t->s, "False"))
            n->lit = tpl_bool(false);
        else if (!strcmp(t->s, "none") || !strcmp(t->s, "None"))
            n->lit = tpl_none();
        else {
            n->kind = E_NAME;
            n->s = t->s;
            n->slen = t->n;
        }
        return n;
    case T_STRING: {
        next(p);
        n = mk(p, E_LIT, t);
        /* adjacent string literals concatenate */
        if (peek(p)->kind == T_STRING) {
            buf b = BUF_INIT;
            buf_put(&b, t->s, t->n);
            while (peek(p)->kind == T_STRING) {
                token *u = next(p);
                buf_put(&b, u->s, u->n);
            }
            n->lit = tpl_str_copy(p->a, b.data, b.len);
            buf_release(&b);
        } else {
            n->lit = tpl_strn(t->s, t->n);
        }
        return n;
    }
    case T_INT:
        next(p);
        n = mk(p, E_LIT, t);
        n->lit = tpl_int(t->i);
        return n;
    case T_FLOAT:
        next(p);
        n = mk(p, E_LIT, t);
        n->lit = tpl_float(t->f);
        return n;
    case T_OP:
        if (is_op(t, "(")) {
            next(p);
            if (is_op(peek(p), ")")) {
                next(p);
                n = mk(p, E_TUPLE, t);
                return n;
            }
            node *e = parse_expr(p);
            if (!e)
                return NULL;
            if (is_op(peek(p), ",")) {
                nlist items = { 0 };
                nl_push(p, &items, e);
                while (is_op(peek(p), ",")) {
                    next(p);
                    if (is_op(peek(p), ")"))
                        break;
                    node *v = parse_expr(p);
                    if (!v)
                        return NULL;
                    nl_push(p, &items, v);
                }
                n = mk(p, E_TUPLE, t);
                n->kids = items.v;
                n->nkids = items.n;
                e = n;
            }
            if (!is_op(peek(p), ")"))
                return fail(p, peek(p), "expected ')' to close the '(' at %d:%d, found '%s'",
                            t->line, t->col, describe(peek(p)));
            next(p);
            return e;
        }
        if (is_op(t, "[")) {
            next(p);
            return parse_seq(p, E_LIST, t, "]", NULL);
        }
        if (is_op(t, "{")) {
            next(p);
            return parse_seq(p, E_DICT, t, "}", NULL);
        }
        break;
    default:
        break;
    }
    return fail(p, t, "expected an expression, found '%s'", describe(t));
}

static node *parse_unary_inner(parser *p, bool with_filter);

/* The parser's own recursion is bounded too (an input of ten thousand
 * '(' would otherwise overflow its stack before anything is built). */
static bool enter(parser *p)
{
    if (p->depth >= MAX_NESTING) {
        fail(p, peek(p), "nested too deeply (more than %d levels)", MAX_NESTING);
        return false;
    }
    p->depth++;
    return true;
}

static node *parse_unary(parser *p, bool with_filter)
{
    if (!enter(p))
        return NULL;
    node *n = parse_unary_inner(p, with_filter);
    p->depth--;
    return n;
}

static node *parse_unary_inner(parser *p, bool with_filter)
{
    token *t = peek(p);
    node *n;
    if (is_op(t, "-") || is_op(t, "+")) {
        next(p);
        node *o = parse_unary(p, false);
        if (!o)
            return NULL;
        n = mk(p, is_op(t, "-") ? E_NEG : E_POS, t);
        n->a = o;
    } else {
        n = parse_primary(p);
        if (!n)
            return NULL;
        n = parse_postfix(p, n);
        if (!n)
            return NULL;
    }
    if (with_filter)
        n = parse_filter_expr(p, n);
    return n;
}

static node *bin(parser *p, token *t, int op, node *a, node *b)
{
    if (!a || !b)
        return NULL;
    node *n = mk(p, E_BIN, t);
    n->op = (uint16_t)op;
    n->a = a;
    n->b = b;
    return n;
}

static node *parse_pow(parser *p)
{
    node *l = parse_unary(p, true);
    while (l && is_op(peek(p), "**")) {
        token *t = next(p);
        l = bin(p, t, BIN_POW, l, parse_unary(p, true));
    }
    return l;
}

static node *parse_math2(parser *p)
{
    node *l = parse_pow(p);
    for (;;) {
        if (!l)
            return NULL;
        token *t = peek(p);
        int op = is_op(t, "*") ? BIN_MUL : is_op(t, "/") ? BIN_DIV : is_op(t, "//") ? BIN_FLOORDIV
               : is_op(t, "%") ? BIN_MOD : -1;
        if (op < 0)
            return l;
        next(p);
        l = bin(p, t, op, l, parse_pow(p));
    }
}

static node *parse_concat(parser *p)
{
    token *t0 = peek(p);
    node *l = parse_math2(p);
    if (!l || !is_op(peek(p), "~"))
        return l;
    nlist items = { 0 };
    nl_push(p, &items, l);
    while (is_op(peek(p), "~")) {
        next(p);
        node *r = parse_math2(p);
        if (!r)
            return NULL;
        nl_push(p, &items, r);
    }
    node *n = mk(p, E_CONCAT, t0);
    n->kids = items.v;
    n->nkids = items.n;
    return n;
}

static node *parse_math1(parser *p)
{
    node *l = parse_concat(p);
    for (;;) {
        if (!l)
            return NULL;
        token *t = peek(p);
        int op = is_op(t, "+") ? BIN_ADD : is_op(t, "-") ? BIN_SUB : -1;
        if (op < 0)
            return l;
        next(p);
        l = bin(p, t, op, l, parse_concat(p));
    }
}

static node *parse_compare(parser *p)
{
    token *t0 = peek(p);
    node *l = parse_math1(p);
    if (!l)
        return NULL;
    nlist rhs = { 0 };
    uint8_t ops[32];
    size_t nops = 0;
    for (;;) {
        token *t = peek(p);
        int op = is_op(t, "==") ? CMP_EQ : is_op(t, "!=") ? CMP_NE : is_op(t, "<") ? CMP_LT
               : is_op(t, "<=") ? CMP_LE : is_op(t, ">") ? CMP_GT : is_op(t, ">=") ? CMP_GE
               : is_name(t, "in") ? CMP_IN : -1;
        if (op < 0 && is_name(t, "not") && is_name(peek2(p), "in")) {
            next(p);
            op = CMP_NOTIN;
        }
        if (op < 0)
            break;
        next(p);
        if (nops == 32)
            return fail(p, t, "too many comparisons in one expression");
        node *r = parse_math1(p);
        if (!r)
            return NULL;
        ops[nops++] = (uint8_t)op;
        nl_push(p, &rhs, r);
    }
    if (!nops)
        return l;
    node *n = mk(p, E_CMP, t0);
    n->a = l;
    n->kids = rhs.v;
    n->nkids = rhs.n;
    n->ops = arena_alloc(p->a, nops);
    memcpy(n->ops, ops, nops);
    return n;
}

static node *parse_not(parser *p)
{
    token *t = peek(p);
    if (is_name(t, "not")) {
        next(p);
        if (!enter(p))
            return NULL;
        node *o = parse_not(p);
        p->depth--;
        if (!o)
            return NULL;
        node *n = mk(p, E_NOT, t);
        n->a = o;
        return n;
    }
    return parse_compare(p);
}

/* `a and b and …` / `a or b or …`: a chain of operands (parsed by
 * `operand`, the next tighter level) joined by the word `op`, left to
 * right. */
static node *parse_chain(parser *p, const char *op, int kind, node *(*operand)(parser *))
{
    node *l = operand(p);
    while (l && is_name(peek(p), op)) {
        token *t = next(p);
        node *r = operand(p);
        if (!r)
            return NULL;
        node *n = mk(p, kind, t);
        n->a = l;
        n->b = r;
        l = n;
    }
    return l;
}

static node *parse_and(parser *p) { return parse_chain(p, "and", E_AND, parse_not); }
static node *parse_or(parser *p) { return parse_chain(p, "or", E_OR, parse_and); }

static node *parse_cond(parser *p)
{
    node *e = parse_or(p);
    while (e && is_name(peek(p), "if")) {
        token *t = next(p);
        node *c = parse_or(p);
        if (!c)
            return NULL;
        node *n = mk(p, E_COND, t);
        n->a = c;
        n->b = e;
        if (is_name(peek(p), "else")) {
            next(p);
            n->c = parse_cond(p);
            if (!n->c)
                return NULL;
        }
        e = n;
    }
    return e;
}

/* Whether expression e nests deeper than MAX_NESTING, walked without
 * recursion (chains like 1+1+…+1 or x|f|f|…|f are built by loops, not by
 * the parser's recursion, and would be rendered by the evaluator's). */
static bool too_deep(parser *p, node *e)
{
    struct item { const node *n; int depth; } stack[64];
    struct item *st = stack; /* in the arena once it outgrows the array */
    size_t sp = 0, cap = 64;
    bool deep = false;
    st[sp++] = (struct item){ e, 1 };
    while (sp && !deep) {
        struct item it = st[--sp];
        if (it.depth > MAX_NESTING) {
            fail(p, &(token){ .line = it.n->line, .col = it.n->col },
                 "expression nested too deeply (more than %d levels)", MAX_NESTING);
            deep = true;
            break;
        }
        const node *n = it.n;
        const node *kids[4] = { n->a, n->b, n->c, n->d };
        size_t nk = n->kids ? n->nkids : 0, nkw = n->kw ? n->nnames : 0;
        if (sp + 4 + nk + nkw > cap) {
            size_t nc = (sp + 4 + nk + nkw) * 2;
            struct item *ns = arena_alloc(p->a, nc * sizeof *ns);
            memcpy(ns, st, sp * sizeof *ns);
            st = ns;
            cap = nc;
        }
        for (size_t k = 0; k < 4; k++)
            if (kids[k])
                st[sp++] = (struct item){ kids[k], it.depth + 1 };
        for (size_t k = 0; k < nk; k++)
            if (n->kids[k])
                st[sp++] = (struct item){ n->kids[k], it.depth + 1 };
        for (size_t k = 0; k < nkw; k++)
            if (n->kw[k])
                st[sp++] = (struct item){ n->kw[k], it.depth + 1 };
    }
    return deep;
}

static node *parse_expr(parser *p)
{
    p->expr_level++;
    node *n = parse_cond(p);
    p->expr_level--;
    if (n && !p->expr_level && too_deep(p, n))
        return NULL;
    return n;
}

/* A tuple without parentheses (`a, b` in `set a, b = …`/`for a, b in`). */
static node *parse_tuple_expr(parser *p)
{
    token *t = peek(p);
    node *e = parse_expr(p);
    if (!e || !is_op(peek(p), ","))
        return e;
    nlist items = { 0 };
    nl_push(p, &items, e);
    while (is_op(peek(p), ",")) {
        next(p);
        token *u = peek(p);
        if (u->kind == T_BLOCK_END || u->kind == T_VAR_END)
            break;
        node *v = parse_expr(p);
        if (!v)
            return NULL;
        nl_push(p, &items, v);
    }
    node *n = mk(p, E_TUPLE, t);
    n->kids = items.v;
    n->nkids = items.n;
    return n;
}

/* ---- statements ------------------------------------------------------ */

static bool expect_block_end(parser *p)
{
    token *t = peek(p);
    if (t->kind != T_BLOCK_END) {
        fail(p, t, "expected '%%}' to end the tag, found '%s'", describe(t));
        return false;
    }
    next(p);
    return true;
}

/* Records a template named by a string literal in extends, include, import
 * or from (one, or each of a list), so the loader can load them all before
 * any render and report a missing one at its line:col. */
static void add_ref(parser *p, node *expr, bool extends, bool optional)
{
    tpl_template *t = p->tpl;
    if (!expr)
        return;
    node *lits[16];
    size_t nl = 0;
    if (expr->kind == E_LIT && expr->lit.kind == TPL_STRING)
        lits[nl++] = expr;
    else if (expr->kind == E_LIST || expr->kind == E_TUPLE) {
        for (size_t i = 0; i < expr->nkids && nl < 16; i++)
            if (expr->kids[i]->kind == E_LIT && expr->kids[i]->lit.kind == TPL_STRING)
                lits[nl++] = expr->kids[i];
        optional = true; /* a list tries names in turn */
    }
    for (size_t k = 0; k < nl; k++)
        VEC_PUSH_IN(p->a, t->refs, t->nrefs, p->refcap, 8,
                    ((tpl_ref){ lits[k]->lit.u.s, lits[k]->line, lits[k]->col, extends, optional }));
}

static node *parse_body(parser *p, const char *const *ends, token **end_tok, token *open);

/* Parses the body up to one of the end tags; *which gets the end tag's name
 * (its tag is consumed up to the name; the caller finishes the tag). */
static node *body_until(parser *p, token *open, const char *const *ends, const char **which)
{
    token *end = NULL;
    node *b = parse_body(p, ends, &end, open);
    if (!b)
        return NULL;
    *which = end->s;
    return b;
}

static bool parse_targets(parser *p, slist *names)
{
    for (;;) {
        token *t = peek(p);
        if (t->kind != T_NAME) {
            fail(p, t, "expected a variable name, found '%s'", describe(t));
            return false;
        }
        next(p);
        sl_push(p, names, t->s);
        if (!is_op(peek(p), ","))
            return true;
        next(p);
    }
}

/* Whether n (not descending into blocks, as Jinja2's find_undeclared)
 * loads the variable `name`. */
static bool mentions(const node *n, const char *name)
{
    if (!n || n->kind == N_BLOCK)
        return false;
    if (n->kind == E_NAME && !strcmp(n->s, name))
        return true;
    if (mentions(n->a, name) || mentions(n->b, name) || mentions(n->c, name) ||
        mentions(n->d, name))
        return true;
    if (n->kind != N_FROM)
        for (size_t i = 0; i < n->nkids; i++)
            if (mentions(n->kids[i], name))
                return true;
    if (n->kw)
        for (size_t i = 0; i < n->nnames; i++)
            if (mentions(n->kw[i], name))
                return true;
    return false;
}

static bool has_scoped_block(const node *n)
{
    if (!n)
        return false;
    if (n->kind == N_BLOCK && (n->flags & NF_SCOPED))
        return true;
    if (has_scoped_block(n->a) || has_scoped_block(n->b) || has_scoped_block(n->c) ||
        has_scoped_block(n->d))
        return true;
    if (n->kind != N_FROM)
        for (size_t i = 0; i < n->nkids; i++)
            if (has_scoped_block(n->kids[i]))
                return true;
    return false;
}

static void mark_macro_uses(node *n)
{
    if (mentions(n->b, "caller"))
        n->flags |= NF_USES_CALLER;
    if (mentions(n->b, "varargs"))
        n->flags |= NF_USES_VARARGS;
    if (mentions(n->b, "kwargs"))
        n->flags |= NF_USES_KWARGS;
}

/* {% for names in expr [if cond] %} body [{% else %} …] {% endfor %}
 * (`recursive` is refused with a message). */
static node *parse_for(parser *p, token *tag)
{
    node *n = mk(p, N_FOR, tag);
    slist names = { 0 };
    if (is_op(peek(p), "(")) {
        next(p);
        if (!parse_targets(p, &names) || !expect_op(p, ")"))
            return NULL;
    } else if (!parse_targets(p, &names)) {
        return NULL;
    }
    n->names = names.v;
    n->nnames = names.n;
    if (!is_name(peek(p), "in"))
        return fail(p, peek(p), "expected 'in' in 'for', found '%s'", describe(peek(p)));
    next(p);
    /* the iterable: no inline-if at the top level (that is the loop filter) */
    n->a = parse_or(p);
    if (!n->a)
        return NULL;
    if (is_op(peek(p), ",")) {
        node *tup = mk(p, E_TUPLE, peek(p));
        nlist items = { 0 };
        nl_push(p, &items, n->a);
        while (is_op(peek(p), ",")) {
            next(p);
            node *v = parse_or(p);
            if (!v)
                return NULL;
            nl_push(p, &items, v);
        }
        tup->kids = items.v;
        tup->nkids = items.n;
        n->a = tup;
    }
    if (is_name(peek(p), "if")) {
        next(p);
        n->d = parse_expr(p);
        if (!n->d)
            return NULL;
    }
    if (is_name(peek(p), "recursive"))
        return fail(p, peek(p), "recursive loops are not supported");
    if (!expect_block_end(p))
        return NULL;
    static const char *const ends[] = { "endfor", "else", NULL };
    const char *which;
    n->b = body_until(p, tag, ends, &which);
    if (!n->b)
        return NULL;
    if (!strcmp(which, "else")) {
        if (!expect_block_end(p))
            return NULL;
        static const char *const ends2[] = { "endfor", NULL };
        n->c = body_until(p, tag, ends2, &which);
        if (!n->c)
            return NULL;
    }
    if (mentions(n->b, "loop") || has_scoped_block(n))
        n->flags |= NF_LOOP_USED;
    return expect_block_end(p) ? n : NULL;
}

static node *parse_if(parser *p, token *tag)
{
    node *n = mk(p, N_IF, tag);
    n->a = parse_expr(p);
    if (!n->a || !expect_block_end(p))
        return NULL;
    static const char *const ends[] = { "endif", "elif", "else", NULL };
    const char *which;
    n->b = body_until(p, tag, ends, &which);
    if (!n->b)
        return NULL;
    node *cur = n;
    while (!strcmp(which, "elif")) {
        token *et = &p->t[p->i - 1];
        node *e = mk(p, N_IF, et);
        e->a = parse_expr(p);
        if (!e->a || !expect_block_end(p))
            return NULL;
        e->b = body_until(p, tag, ends, &which);
        if (!e->b)
            return NULL;
        cur->c = e;
        cur = e;
    }
    if (!strcmp(which, "else")) {
        if (!expect_block_end(p))
            return NULL;
        static const char *const ends2[] = { "endif", NULL };
        cur->c = body_until(p, tag, ends2, &which);
        if (!cur->c)
            return NULL;
    }
    return expect_block_end(p) ? n : NULL;
}

/* filters after `set x |` or in `{% filter a|b %}` */
static bool parse_filter_chain(parser *p, nlist *chain)
{
    for (;;) {
        node *f = parse_filter(p, NULL);
        if (!f)
            return false;
        nl_push(p, chain, f);
        if (!is_op(peek(p), "|"))
            return true;
        next(p);
    }
}

/* {% set a = expr %}, {% set a, b = expr %}, {% set ns.attr = expr %} and
 * the block form {% set a %}…{% endset %}. */
static node *parse_set(parser *p, token *tag)
{
    token *t = peek(p);
    if (is_op(t, "(")) { /* set (a, b) = … */
        next(p);
        slist names = { 0 };
        if (!parse_targets(p, &names) || !expect_op(p, ")") || !expect_op(p, "="))
            return NULL;
        node *n = mk(p, N_SET, tag);
        n->names = names.v;
        n->nnames = names.n;
        if (names.n > 1)
            n->flags |= NF_TUPLE_TARGET;
        n->a = parse_tuple_expr(p);
        return n->a && expect_block_end(p) ? n : NULL;
    }
    if (t->kind != T_NAME)
        return fail(p, t, "expected a variable name after 'set', found '%s'", describe(t));
    /* ns.attr = … */
    if (is_op(peek2(p), ".")) {
        next(p);
        next(p);
        token *attr = peek(p);
        if (attr->kind != T_NAME)
            return fail(p, attr, "expected an attribute name, found '%s'", describe(attr));
        next(p);
        node *n = mk(p, N_SET, tag);
        n->flags |= NF_ATTR_TARGET;
        n->names = arena_alloc(p->a, sizeof(char *));
        n->names[0] = t->s;
        n->nnames = 1;
        n->s = attr->s;
        if (!expect_op(p, "="))
            return NULL;
        n->a = parse_tuple_expr(p);
        return n->a && expect_block_end(p) ? n : NULL;
    }
    slist names = { 0 };
    if (!parse_targets(p, &names))
        return NULL;
    if (is_op(peek(p), "=")) {
        next(p);
        node *n = mk(p, N_SET, tag);
        n->names = names.v;
        n->nnames = names.n;
        if (names.n > 1)
            n->flags |= NF_TUPLE_TARGET;
        n->a = parse_tuple_expr(p);
        return n->a && expect_block_end(p) ? n : NULL;
    }
    if (names.n != 1)
        return fail(p, peek(p), "expected '=' after the names in 'set'");
    node *n = mk(p, N_SET_BLOCK, tag);
    n->names = names.v;
    n->nnames = 1;
    if (is_op(peek(p), "|")) {
        next(p);
        nlist chain = { 0 };
        if (!parse_filter_chain(p, &chain))
            return NULL;
        n->kids = chain.v;
        n->nkids = chain.n;
    }
    if (!expect_block_end(p))
        return NULL;
    static const char *const ends[] = { "endset", NULL };
    const char *which;
    n->b = body_until(p, tag, ends, &which);
    return n->b && expect_block_end(p) ? n : NULL;
}

/* {% block name [scoped] [required] %}…{% endblock [name] %}; a name used
 * twice in one template is an error. */
static node *parse_block(parser *p, token *tag)
{
    token *t = peek(p);
    if (t->kind != T_NAME)
        return fail(p, t, "expected a block name, found '%s'", describe(t));
    next(p);
    node *n = mk(p, N_BLOCK, tag);
    n->s = t->s;
    for (;;) {
        if (is_name(peek(p), "scoped")) {
            next(p);
            n->flags |= NF_SCOPED;
        } else if (is_name(peek(p), "required")) {
            next(p);
        } else {
            break;
        }
    }
    if (!expect_block_end(p))
        return NULL;
    tpl_template *tp = p->tpl;
    for (size_t i = 0; i < tp->nblocks; i++)
        if (!strcmp(tp->blocks[i].name, t->s))
            return fail(p, t, "block '%s' defined twice (first at line %d)", t->s,
                        tp->blocks[i].node->line);
    static const char *const ends[] = { "endblock", NULL };
    const char *which;
    n->b = body_until(p, tag, ends, &which);
    if (!n->b)
        return NULL;
    if (peek(p)->kind == T_NAME) {
        token *en = next(p);
        if (strcmp(en->s, t->s))
            return fail(p, en, "'endblock %s' closes block '%s'", en->s, t->s);
    }
    if (!expect_block_end(p))
        return NULL;
    tpl_block_def *nb = arena_alloc(p->a, (tp->nblocks + 1) * sizeof *nb);
    if (tp->nblocks)
        memcpy(nb, tp->blocks, tp->nblocks * sizeof *nb);
    nb[tp->nblocks].name = t->s;
    nb[tp->nblocks].node = n;
    tp->blocks = nb;
    tp->nblocks++;
    return n;
}

static bool parse_context_mod(parser *p, node *n, bool dflt_with)
{
    if ((is_name(peek(p), "with") || is_name(peek(p), "without")) && is_name(peek2(p), "context")) {
        bool with = is_name(peek(p), "with");
        next(p);
        next(p);
        if (with)
            n->flags |= NF_WITH_CONTEXT;
        else
            n->flags |= NF_NO_CONTEXT;
        return true;
    }
    if (dflt_with)
        n->flags |= NF_WITH_CONTEXT;
    return false;
}

static bool parse_params(parser *p, node *n)
{
    slist names = { 0 };
    nlist defs = { 0 };
    if (!expect_op(p, "("))
        return false;
    while (!is_op(peek(p), ")")) {
        if (names.n && !expect_op(p, ","))
            return false;
        if (is_op(peek(p), ")"))
            break;
        token *t = peek(p);
        if (t->kind != T_NAME) {
            fail(p, t, "expected a parameter name, found '%s'", describe(t));
            return false;
        }
        next(p);
        node *def = NULL;
        if (is_op(peek(p), "=")) {
            next(p);
            def = parse_expr(p);
            if (!def)
                return false;
        } else if (defs.n && defs.v[defs.n - 1]) {
            fail(p, t, "parameter '%s' without a default follows one with a default", t->s);
            return false;
        }
        sl_push(p, &names, t->s);
        nl_push(p, &defs, def);
    }
    next(p);
    n->names = names.v;
    n->nnames = names.n;
    n->kw = defs.v;
    return true;
}

/* One {% … %} tag: dispatches on its name to the statement's parser; an
 * end, else or elif tag met here has no block open to close, and an
 * unknown name is an error. */
static node *parse_stmt(parser *p)
{
    token *open = next(p); /* {% */
    token *tag = peek(p);
    if (tag->kind != T_NAME)
        return fail(p, tag, "expected a tag name after '{%%', found '%s'", describe(tag));
    next(p);
    const char *nm = tag->s;
    if (!strcmp(nm, "if"))
        return parse_if(p, tag);
    if (!strcmp(nm, "for"))
        return parse_for(p, tag);
    if (!strcmp(nm, "set"))
        return parse_set(p, tag);
    if (!strcmp(nm, "block"))
        return parse_block(p, tag);
    if (!strcmp(nm, "extends")) {
        node *n = mk(p, N_EXTENDS, tag);
        n->a = parse_expr(p);
        add_ref(p, n->a, true, false);
        return n->a && expect_block_end(p) ? n : NULL;
    }
    if (!strcmp(nm, "include")) {
        node *n = mk(p, N_INCLUDE, tag);
        n->a = parse_expr(p);
        if (!n->a)
            return NULL;
        if (is_name(peek(p), "ignore") && is_name(peek2(p), "missing")) {
            next(p);
            next(p);
            n->flags |= NF_IGNORE_MISSING;
        }
        parse_context_mod(p, n, true);
        add_ref(p, n->a, false, n->flags & NF_IGNORE_MISSING);
        return expect_block_end(p) ? n : NULL;
    }
    if (!strcmp(nm, "import")) {
        node *n = mk(p, N_IMPORT, tag);
        n->a = parse_expr(p);
        if (!n->a)
            return NULL;
        if (!is_name(peek(p), "as"))
            return fail(p, peek(p), "expected 'as' in 'import', found '%s'", describe(peek(p)));
        next(p);
        token *al = peek(p);
        if (al->kind != T_NAME)
            return fail(p, al, "expected a name after 'as', found '%s'", describe(al));
        next(p);
        n->s = al->s;
        parse_context_mod(p, n, false);
        add_ref(p, n->a, false, false);
        return expect_block_end(p) ? n : NULL;
    }
    if (!strcmp(nm, "from")) {
        node *n = mk(p, N_FROM, tag);
        n->a = parse_expr(p);
        if (!n->a)
            return NULL;
        if (!is_name(peek(p), "import"))
            return fail(p, peek(p), "expected 'import' in 'from', found '%s'", describe(peek(p)));
        next(p);
        slist names = { 0 }, alias = { 0 };
        for (;;) {
            if (parse_context_mod(p, n, false))
                break;
            token *t = peek(p);
            if (t->kind != T_NAME)
                return fail(p, t, "expected a name to import, found '%s'", describe(t));
            next(p);
            const char *as = t->s;
            if (is_name(peek(p), "as")) {
                next(p);
                token *u = peek(p);
                if (u->kind != T_NAME)
                    return fail(p, u, "expected a name after 'as', found '%s'", describe(u));
                next(p);
                as = u->s;
            }
            sl_push(p, &names, t->s);
            sl_push(p, &alias, as);
            if (!is_op(peek(p), ","))
                break;
            next(p);
        }
        parse_context_mod(p, n, false);
        n->names = names.v;
        n->nnames = names.n;
        n->kids = (node **)alias.v; /* aliases, as strings */
        add_ref(p, n->a, false, false);
        return expect_block_end(p) ? n : NULL;
    }
    if (!strcmp(nm, "macro")) {
        token *t = peek(p);
        if (t->kind != T_NAME)
            return fail(p, t, "expected a macro name, found '%s'", describe(t));
        next(p);
        node *n = mk(p, N_MACRO, tag);
        n->s = t->s;
        if (!parse_params(p, n) || !expect_block_end(p))
            return NULL;
        static const char *const ends[] = { "endmacro", NULL };
        const char *which;
        n->b = body_until(p, tag, ends, &which);
        if (!n->b)
            return NULL;
        if (peek(p)->kind == T_NAME)
            next(p);
        mark_macro_uses(n);
        return expect_block_end(p) ? n : NULL;
    }
    if (!strcmp(nm, "call")) {
        node *n = mk(p, N_CALL_BLOCK, tag);
        if (is_op(peek(p), "(")) {
            if (!parse_params(p, n))
                return NULL;
        }
        n->a = parse_expr(p);
        if (!n->a)
            return NULL;
        if (n->a->kind != E_CALL)
            return fail(p, tag, "'call' needs a macro call, e.g. {%% call m() %%}");
        if (!expect_block_end(p))
            return NULL;
        static const char *const ends[] = { "endcall", NULL };
        const char *which;
        n->b = body_until(p, tag, ends, &which);
        if (!n->b)
            return NULL;
        mark_macro_uses(n);
        return expect_block_end(p) ? n : NULL;
    }
    if (!strcmp(nm, "with")) {
        node *n = mk(p, N_WITH, tag);
        slist names = { 0 };
        nlist vals = { 0 };
        while (peek(p)->kind != T_BLOCK_END) {
            if (names.n && !expect_op(p, ","))
                return NULL;
            token *t = peek(p);
            if (t->kind != T_NAME)
                return fail(p, t, "expected a variable name in 'with', found '%s'", describe(t));
            next(p);
            if (!expect_op(p, "="))
                return NULL;
            node *v = parse_expr(p);
            if (!v)
                return NULL;
            sl_push(p, &names, t->s);
            nl_push(p, &vals, v);
        }
        next(p);
        n->names = names.v;
        n->nnames = names.n;
        n->kids = vals.v;
        n->nkids = vals.n;
        static const char *const ends[] = { "endwith", NULL };
        const char *which;
        n->b = body_until(p, tag, ends, &which);
        return n->b && expect_block_end(p) ? n : NULL;
    }
    if (!strcmp(nm, "filter")) {
        node *n = mk(p, N_FILTER_BLOCK, tag);
        nlist chain = { 0 };
        if (!parse_filter_chain(p, &chain) || !expect_block_end(p))
            return NULL;
        n->kids = chain.v;
        n->nkids = chain.n;
        static const char *const ends[] = { "endfilter", NULL };
        const char *which;
        n->b = body_until(p, tag, ends, &which);
        return n->b && expect_block_end(p) ? n : NULL;
    }
    (void)open;
    if (!strncmp(nm, "end", 3) || !strcmp(nm, "else") || !strcmp(nm, "elif")) {
        const char *opener = !strcmp(nm, "else") || !strcmp(nm, "elif") ? "if' or 'for" : nm + 3;
        return fail(p, tag, "'%s' without a matching '%s'", nm, opener);
    }
    return fail(p, tag, "unknown tag '%s'", nm);
}

static node *parse_body_inner(parser *p, const char *const *ends, token **end_tok, token *open);

static node *parse_body(parser *p, const char *const *ends, token **end_tok, token *open)
{
    if (!enter(p))
        return NULL;
    node *b = parse_body_inner(p, ends, end_tok, open);
    p->depth--;
    return b;
}

/* The nodes of a body up to one of the tags named in `ends` (NULL: to the
 * end of the template), which is left in *end_tok; text, {{ … }} and
 * statements in order. An unclosed body is reported at its opening tag. */
static node *parse_body_inner(parser *p, const char *const *ends, token **end_tok, token *open)
{
    nlist kids = { 0 };
    token *body_start = peek(p);
    for (;;) {
        token *t = peek(p);
        switch (t->kind) {
        case T_EOF:
            if (ends) {
                /* the first end name is the one that closes the block */
                const char *want = ends[0];
                fail(p, open, "'%s' opened here is never closed (expected '{%% %s %%}')",
                     open->s, want);
                return NULL;
            }
            goto done;
        case T_TEXT: {
            next(p);
            node *n = mk(p, N_TEXT, t);
            n->s = t->s;
            n->slen = t->n;
            nl_push(p, &kids, n);
            break;
        }
        case T_VAR_BEGIN: {
            next(p);
            node *n = mk(p, N_OUTPUT, t);
            n->a = parse_expr(p);
            if (!n->a)
                return NULL;
            if (peek(p)->kind != T_VAR_END)
                return fail(p, peek(p), "expected '}}' to end the expression, found '%s'",
                            describe(peek(p)));
            next(p);
            nl_push(p, &kids, n);
            break;
        }
        case T_BLOCK_BEGIN: {
            token *tag = peek2(p);
            if (ends && tag->kind == T_NAME) {
                for (size_t i = 0; ends[i]; i++) {
                    if (!strcmp(tag->s, ends[i])) {
                        next(p);
                        next(p);
                        *end_tok = tag;
                        goto done;
                    }
                }
                /* an end tag for something else while a block is open */
                if (!strncmp(tag->s, "end", 3) || !strcmp(tag->s, "else") ||
                    !strcmp(tag->s, "elif")) {
                    const char *known[] = { "endif", "endfor", "endblock", "endmacro", "endcall",
                                            "endset", "endwith", "endfilter", "else", "elif", NULL };
                    bool is_known = false;
                    for (size_t i = 0; known[i]; i++)
                        is_known |= !strcmp(known[i], tag->s);
                    if (is_known)
                        return fail(p, tag,
                                    "unexpected '%s': the innermost open tag is '%s' at line %d "
                                    "(expected '{%% %s %%}')",
                                    tag->s, open->s, open->line, ends[0]);
                }
            }
            node *n = parse_stmt(p);
            if (!n)
                return NULL;
            nl_push(p, &kids, n);
            break;
        }
        default:
            return fail(p, t, "unexpected '%s'", describe(t));
        }
    }
done:;
    node *b = mk(p, N_BODY, body_start);
    b->kids = kids.v;
    b->nkids = kids.n;
    return b;
}

tpl_template *tpl_parse(const char *name, const char *path, const char *src, size_t len,
                        tpl_names *names, diag_list *d)
{
    tpl_template *t = xcalloc(1, sizeof *t);
    t->a = arena_new();
    t->name = xstrdup(name);
    t->path = xstrdup(path);
    token *toks;
    size_t ntoks;
    if (!tpl_lex(t->path, src, len, t->a, names, &toks, &ntoks, d)) {
        tpl_template_free(t);
        return NULL;
    }
    parser p = { .path = t->path, .t = toks, .n = ntoks, .a = t->a, .d = d, .tpl = t };
    t->root = parse_body(&p, NULL, NULL, NULL);
    if (!t->root || p.failed) {
        tpl_template_free(t);
        return NULL;
    }
    return t;
}

void tpl_template_free(tpl_template *t)
{
    if (!t)
        return;
    arena_free(t->a);
    free(t->name);
    free(t->path);
    free(t);
}
