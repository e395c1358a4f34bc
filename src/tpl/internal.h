/* tpl internals shared by the lexer, parser, evaluator, filters and loader.
 * Nothing outside src/tpl/ includes this file.
 *
 * A template's source is lexed into a token array, parsed into an AST of
 * `node`s allocated in the template's own arena, and never changed again:
 * rendering only reads it, so any number of threads may render one template. */
#ifndef SHEAF_TPL_INTERNAL_H
#define SHEAF_TPL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

#include "diag/diag.h"
#include "tpl/tpl.h"
#include "value/value.h"
#include "util/arena.h"
#include "util/buf.h"

/* ---- tokens ---------------------------------------------------------- */

typedef enum tok_kind {
    T_EOF,
    T_TEXT,        /* template data between tags (already whitespace-trimmed) */
    T_VAR_BEGIN,   /* {{ */
    T_VAR_END,     /* }} */
    T_BLOCK_BEGIN, /* {% */
    T_BLOCK_END,   /* %} */
    T_NAME,
    T_STRING,      /* s is the decoded string */
    T_INT,
    T_FLOAT,
    T_OP           /* s is the operator text: "==", "(", "|", … */
} tok_kind;

typedef struct token {
    tok_kind kind;
    int line, col;
    const char *s; /* NUL-terminated, in the template arena */
    size_t n;
    int64_t i;
    double f;
} token;

/* A loader's table of names (names.c): each distinct name once, so the
 * evaluator compares names by pointer — every name a render puts in a
 * scope or looks up comes from its loader's table, or is one of the
 * constants below. tpl_names_intern returns the table's copy of s[0..n)
 * (NUL-terminated); for the names the evaluator binds itself, the
 * constants below. */
typedef struct tpl_names tpl_names;
tpl_names *tpl_names_new(void);
void tpl_names_free(tpl_names *t);
const char *tpl_names_intern(tpl_names *t, const char *s, size_t n);

/* The byte before every name tpl_names_intern hands out is its bound flag:
 * set (for good) the first time any render puts the name in a scope
 * (eval.c's frame_set). A name whose flag is clear is in no scope of the
 * render looking it up — that render would have set it, on its own thread
 * — so the lookup goes straight to the variables (`page`, `site`, `t`) and
 * the scopes are not walked. Atomic: other renders set flags meanwhile. */
static inline bool tpl_name_bound(const char *name)
{
    return __atomic_load_n((const unsigned char *)name - 1, __ATOMIC_RELAXED) != 0;
}
static inline void tpl_name_set_bound(const char *name)
{
    if (!tpl_name_bound(name))
        __atomic_store_n((unsigned char *)name - 1, (unsigned char)1, __ATOMIC_RELAXED);
}
/* The names the evaluator binds itself, then those of its built-in
 * objects (self and the global functions, in that order), with their
 * flags: templates name them by these pointers. */
typedef struct tpl_fixed_name {
    unsigned char bound;
    char s[15];
} tpl_fixed_name;
enum { TPL_FIXED_LOOP, TPL_FIXED_SUPER, TPL_FIXED_CALLER, TPL_FIXED_VARARGS, TPL_FIXED_KWARGS,
       TPL_FIXED_SELF, TPL_FIXED_RANGE, TPL_FIXED_DICT, TPL_FIXED_NAMESPACE, TPL_FIXED_CYCLER,
       TPL_FIXED_JOINER, TPL_FIXED_T, TPL_FIXED_NAMES };
extern tpl_fixed_name tpl_fixed_names[TPL_FIXED_NAMES];
#define tpl_name_loop (tpl_fixed_names[TPL_FIXED_LOOP].s)
#define tpl_name_super (tpl_fixed_names[TPL_FIXED_SUPER].s)
#define tpl_name_caller (tpl_fixed_names[TPL_FIXED_CALLER].s)
#define tpl_name_varargs (tpl_fixed_names[TPL_FIXED_VARARGS].s)
#define tpl_name_kwargs (tpl_fixed_names[TPL_FIXED_KWARGS].s)

/* Lexes src (newlines normalised, one trailing newline dropped as Jinja2
 * does); names go through `names`. Returns false after reporting an error. */
bool tpl_lex(const char *path, const char *src, size_t len, arena *a, tpl_names *names,
             token **toks, size_t *ntoks, diag_list *d);

/* ---- AST ------------------------------------------------------------- */

typedef enum node_kind {
    /* statements */
    N_BODY,     /* kids: statements */
    N_TEXT,     /* s, slen */
    N_OUTPUT,   /* a: expression */
    N_IF,       /* a: cond, b: body, c: else (N_BODY or N_IF for elif) */
    N_FOR,      /* names: targets, a: iterable, b: body, c: else body, d: filter */
    N_SET,      /* names/kids as targets (see parse.c), a: value */
    N_SET_BLOCK,/* names[0]: target, b: body, kids: filters (E_FILTER with a == NULL) */
    N_BLOCK,    /* s: name, b: body, flags: scoped */
    N_EXTENDS,  /* a: name expression */
    N_INCLUDE,  /* a: name(s), flags: ignore missing / without context */
    N_IMPORT,   /* a: name expression, s: alias, flags: with context */
    N_FROM,     /* a: name expression, names: imported, aliases in kwnames */
    N_MACRO,    /* s: name, names: params, kw: defaults (NULL = required), b: body */
    N_CALL_BLOCK,/* a: call expression, names/kw: caller params, b: body */
    N_WITH,     /* names: targets, kids: values, b: body */
    N_FILTER_BLOCK, /* kids: filters (E_FILTER with a == NULL), b: body */

    /* expressions */
    E_LIT,      /* lit */
    E_NAME,     /* s */
    E_GETATTR,  /* a: object, s: attribute, op: tpl_loop_attr(s) */
    E_GETITEM,  /* a: object, b: key */
    E_SLICE,    /* a: object, b: start, c: stop, d: step (each may be NULL) */
    E_CALL,     /* a: callee, kids: positional, names + kw: keywords */
    E_FILTER,   /* a: operand, s: filter, op: filter index, kids/names/kw: args */
    E_TEST,     /* a: operand, s: test, op: test index, kids: args, flags: negated */
    E_BIN,      /* op: BIN_*, a, b */
    E_NEG,      /* a */
    E_POS,      /* a */
    E_NOT,      /* a */
    E_AND,      /* a, b */
    E_OR,       /* a, b */
    E_CMP,      /* a: first operand, kids: operands, ops: operators */
    E_COND,     /* a: condition, b: then, c: else (may be NULL) */
    E_LIST,     /* kids */
    E_TUPLE,    /* kids */
    E_DICT,     /* kids: keys, kw: values */
    E_CONCAT    /* kids */
} node_kind;

enum bin_op { BIN_ADD, BIN_SUB, BIN_MUL, BIN_DIV, BIN_FLOORDIV, BIN_MOD, BIN_POW };
enum cmp_op { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_IN, CMP_NOTIN };

/* flags */
#define NF_ALLOW_UNDEF 0x01  /* E_NAME: an unknown name is undefined, not an error */
#define NF_SCOPED 0x02       /* N_BLOCK */
#define NF_IGNORE_MISSING 0x04 /* N_INCLUDE */
#define NF_NO_CONTEXT 0x08   /* N_INCLUDE without context */
#define NF_WITH_CONTEXT 0x10 /* N_IMPORT / N_FROM with context */
#define NF_NEGATED 0x20      /* E_TEST: is not */
#define NF_ATTR_TARGET 0x40  /* N_SET: target is ns.attr (names[0]=ns, s=attr) */
#define NF_TUPLE_TARGET 0x80 /* N_SET / N_FOR: several names */
/* What Jinja2 declares only when the body mentions it (an included template
 * sees `loop` only then; a macro takes extra arguments only then). */
#define NF_LOOP_USED 0x100     /* N_FOR: the body uses `loop` (or has a scoped block) */
#define NF_USES_CALLER 0x200   /* N_MACRO / N_CALL_BLOCK */
#define NF_USES_VARARGS 0x400
#define NF_USES_KWARGS 0x800
/* E_FILTER / E_TEST: positional arguments only, no more than the parameters,
 * none of them * or ** — they bind in order, nothing to check */
#define NF_PLAIN_ARGS 0x1000
/* E_GETATTR: the name is a method of maps (`d.items`), which Jinja2's
 * getattr takes before a key of that name; decided when parsed, as the
 * table of methods is fixed */
#define NF_MAP_METHOD 0x2000

typedef struct node node;
struct node {
    uint8_t kind;
    uint16_t flags;
    uint16_t op;
    /* E_GETATTR, E_NAME: where the name was last found in a map */
    tpl_map_hint hint;
    int line, col;
    const char *path; /* the template's path, for errors */
    const char *s;
    size_t slen;
    tpl_value lit;
    node *a, *b, *c, *d;
    node **kids;
    size_t nkids;
    const char **names; /* targets, params, keyword names */
    size_t nnames;
    node **kw;          /* values matching names (keywords, defaults) */
    uint8_t *ops;       /* E_CMP operators */
};

/* ---- templates and the loader ----------------------------------------- */

typedef struct tpl_block_def {
    const char *name;
    const node *node;
} tpl_block_def;

/* A template named by a string literal in extends, include, import or
 * from, where it is named. */
typedef struct tpl_ref {
    const char *name;
    int line, col;
    bool extends;
    bool optional; /* include … ignore missing, or one of a list */
} tpl_ref;

struct tpl_template {
    char *name;  /* as looked up, e.g. "post.html" */
    char *path;  /* as shown in errors, e.g. "templates/post.html" */
    arena *a;    /* owns the AST and the source copy */
    node *root;  /* N_BODY */
    tpl_block_def *blocks;
    size_t nblocks;
    tpl_ref *refs; /* names used statically by extends/include/import/from */
    size_t nrefs;
    /* The length of the output its last render wrote (tpl_render reserves
     * that much at once, instead of growing the buffer step by step through
     * a page); a hint, shared by the threads that render it. */
    _Atomic size_t out_hint;
};

/* Parses one template, its names interned in `names`. Returns NULL after
 * reporting an error. */
tpl_template *tpl_parse(const char *name, const char *path, const char *src, size_t len,
                        tpl_names *names, diag_list *d);
void tpl_template_free(tpl_template *t);

/* Loads a template while rendering (dynamic names); NULL when missing
 * (nothing reported: the caller reports with its own position). `tried`
 * gets the places looked at. */
const tpl_template *tpl_loader_get(tpl_loader *l, const char *name, buf *tried, diag_list *d);

/* ---- filters and tests ------------------------------------------------ */

typedef struct tpl_render_state tpl_render_state;

/* Arguments as bound by name to a filter's parameter list. */
typedef struct tpl_args {
    tpl_value v[8];
    bool given[8];
} tpl_args;

typedef bool (*tpl_filter_fn)(tpl_render_state *r, const node *at, tpl_value v, const tpl_args *a,
                              tpl_value *out);
typedef bool (*tpl_test_fn)(tpl_render_state *r, const node *at, tpl_value v, const tpl_args *a,
                            bool *out);

typedef struct tpl_filter_def {
    const char *name;
    const char *params; /* comma-separated parameter names, e.g. "length,killwords,end,leeway" */
    tpl_filter_fn fn;
} tpl_filter_def;

typedef struct tpl_test_def {
    const char *name;
    const char *params;
    tpl_test_fn fn;
} tpl_test_def;

/* Whether npos positional and nkw keyword arguments bind to the
 * comma-separated `params` simply in order: no keywords, no * or **
 * parameter, no more arguments than parameters (NF_PLAIN_ARGS). */
bool tpl_args_in_order(const char *params, size_t npos, size_t nkw);

/* The tables of filters (filters.c) and tests (tests.c), each sorted by
 * name (test_tables checks it): a name's index or -1, a row, the count. */
int tpl_filter_find(const char *name);
int tpl_test_find(const char *name);
const tpl_filter_def *tpl_filter_get(int i);
const tpl_test_def *tpl_test_get(int i);
size_t tpl_filter_count(void);
size_t tpl_test_count(void);

/* Evaluator services the filters use. */
arena *tpl_r_arena(tpl_render_state *r);
/* The render's base URL, split once: "https://x.io/notes/" has origin
 * "https://x.io" (origin_len bytes of url) and path "/notes/"; "/" and a
 * bare path have no origin. */
typedef struct tpl_base {
    const char *url;
    size_t origin_len;
    const char *path;
    size_t path_len;
} tpl_base;
void tpl_split_base(const char *base_url, tpl_base *out);
const tpl_base *tpl_r_base(tpl_render_state *r);
/* A buffer to build a filter's result in, empty, with the capacity of one
 * given back before (no malloc once a render is under way); give it back
 * with tpl_r_give_buf once its bytes are copied (it is BUF_INIT after). */
buf tpl_r_take_buf(tpl_render_state *r);
void tpl_r_give_buf(tpl_render_state *r, buf *b);
bool tpl_r_error(tpl_render_state *r, const node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Applies filter/test `idx` with positional args (used by map/select). */
bool tpl_r_apply_filter(tpl_render_state *r, const node *at, int idx, tpl_value v,
                        const tpl_value *pos, size_t npos, tpl_value *out);
bool tpl_r_apply_test(tpl_render_state *r, const node *at, int idx, tpl_value v,
                      const tpl_value *pos, size_t npos, bool *out);
/* Which attribute of `loop` a name is (0: none); E_GETATTR keeps it in op. */
int tpl_loop_attr(const char *name);
/* Attribute lookup as `v.name` (maps: the key), then `v[name]`. */
tpl_value tpl_getattr(tpl_value v, const char *name, size_t n);
/* `v.a.b` with a dotted path, as the attribute= arguments of filters take it. */
tpl_value tpl_getattr_path(tpl_value v, const char *path);

/* Python's full case mapping of cp where it differs from libutf8proc's
 * (mode 0 lower, 1 upper, 2 title); NULL when they agree. casemap.c. */
const char *tpl_case_special(int32_t cp, int mode);

/* The bounds of a render (docs/templates.md, "Limits"): past them it is an
 * error at the template's line, not an attempt that exhausts memory.
 * TPL_MAX_STRING and TPL_MAX_LIST bound every string and list a template
 * builds (repetition with `*`, `~`, filters' widths and counts, str() of a
 * nested list); TPL_MAX_OUTPUT what one render writes (a page, or a
 * captured block or macro call); TPL_MAX_MEMORY what one render allocates
 * (tpl_options can set smaller ones). Sizes and counts computed from a
 * template's numbers go through util/ckd.h. */
#define TPL_MAX_STRING ((unsigned)TPL_VALUE_TEXT_MAX) /* bytes: 64 MiB */
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define TPL_MAX_LIST (1u << 24)             /* items */
#else /* the fuzz targets: bounds a fuzzer reaches in milliseconds */
#define TPL_MAX_LIST (1u << 16)
#endif
#define TPL_MAX_OUTPUT ((size_t)1 << 28)    /* bytes: 256 MiB */
#define TPL_MAX_MEMORY ((size_t)1 << 30)    /* bytes: 1 GiB */
/* Time: a render's steps — each loop iteration (a filtered loop's test of
 * each item too), each macro call, and for each filter and `in` the items
 * (or 64 bytes of text) it goes through. 2^25 take 1 to 3 s. The renders of
 * one build (tpl_options.budget) take at most TPL_MAX_BUILD_STEPS together;
 * the renders running at once in the process at most TPL_MAX_MEMORY of
 * memory together (with -j4, four renders would otherwise hold 4 GiB). */
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define TPL_MAX_STEPS ((uint64_t)1 << 25)
#else
#define TPL_MAX_STEPS ((uint64_t)1 << 20)
#endif
#define TPL_MAX_BUILD_STEPS ((uint64_t)1 << 30)

/* Whether a string of n bytes (a list of n items) may be built as `what`
 * (e.g. "string repetition"); if not, reports "WHAT too large (N bytes; at
 * most M)" at `at` and returns false. n == UINT64_MAX stands for a size
 * that overflowed (ckd_mul_sat). */
bool tpl_r_string_fits(tpl_render_state *r, const node *at, const char *what, uint64_t n);
bool tpl_r_list_fits(tpl_render_state *r, const node *at, const char *what, uint64_t n);
/* Whether v, when a string, has no more characters than a list may have
 * items (so tpl_iterable may make it a list); reports if not. */
bool tpl_r_chars_fit(tpl_render_state *r, const node *at, tpl_value v);
/* Whether the render is still within its memory bound (reports if not). */
bool tpl_r_memory_ok(tpl_render_state *r, const node *at);

/* ---- value helpers (valueops.c, methods.c) ---------------------------- */

/* str(v) into the arena; keeps the safe flag of strings (which are
 * returned as they are, inline: every string filter starts with this). */
tpl_value tpl_to_string_other(arena *a, tpl_value v);
static inline tpl_value tpl_to_string(arena *a, tpl_value v)
{
    return v.kind == TPL_STRING ? v : tpl_to_string_other(a, v);
}
/* Number of items (list, map, string characters); -1 when not sized. */
long tpl_length(tpl_value v);
/* Iterable as a list: list → itself, map → keys, string → characters,
 * undefined → empty. NULL when not iterable. */
const tpl_list *tpl_iterable(arena *a, tpl_value v);
/* Python ordering; *err set when the types do not compare. */
int tpl_compare(tpl_value a, tpl_value b, bool case_insensitive, bool *err);
bool tpl_is_number(tpl_value v);
double tpl_as_double(tpl_value v);
/* Appends s with & < > " ' as XML's entities (&quot; &apos;: xml_escape). */
void tpl_escape_xml(buf *out, const char *s, size_t n);
/* Escaped copy of a value as markup (for Markup + str and join). */
tpl_value tpl_escape_value(arena *a, tpl_value v);
/* A method of a string, list or map called as v.name(args). */
bool tpl_call_method(tpl_render_state *r, const node *at, tpl_value self, const char *name,
                     const tpl_value *pos, size_t npos, const char **kwn, const tpl_value *kwv,
                     size_t nkw, tpl_value *out);
bool tpl_has_method(tpl_value v, const char *name);
/* The table of methods (methods.c): a name and the kinds of value that have
 * it (bits 1 << TPL_STRING, …). */
typedef struct tpl_method_def {
    const char *name;
    unsigned kinds;
    int id;
} tpl_method_def;
size_t tpl_method_count(void);
const tpl_method_def *tpl_method_get(size_t i);
/* The first letters of the map methods (get, items, keys, values), a bit
 * per letter from 'a': what tpl_may_have_method tests. test_tables checks
 * it against the table, so a new map method cannot go unseen. */
#define TPL_MAP_METHOD_INITIALS \
    ((1u << ('g' - 'a')) | (1u << ('i' - 'a')) | (1u << ('k' - 'a')) | (1u << ('v' - 'a')))
/* The quick part of tpl_has_method: false when it surely is false (only a
 * few names can be a map's method; attributes of maps are looked up on
 * every page). */
static inline bool tpl_may_have_method(tpl_value v, const char *name)
{
    unsigned c = (unsigned char)name[0] - 'a';
    return v.kind != TPL_MAP || (c < 26 && (TPL_MAP_METHOD_INITIALS >> c & 1));
}

/* The index of `name` in a table of `n` rows of `size` bytes, each starting
 * with its name (const char *), sorted by name in byte order; -1 when it is
 * not there. The one bisection of the filters', tests' and methods' tables
 * (names.c). */
int tpl_bisect_name(const void *table, size_t n, size_t size, const char *name);

#endif
