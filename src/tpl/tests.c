/* tests: Jinja2's built-in tests (`x is defined`, `n is divisibleby 3`, …)
 * and their table. */
#include <math.h>
#include <string.h>
#include <utf8proc.h>

#include "tpl/builtins.h"

#define TEST_FN(name) \
    static bool t_##name(tpl_render_state *r, const node *at, tpl_value v, const tpl_args *a, bool *out)

TEST_FN(defined) { (void)r; (void)at; (void)a; *out = v.kind != TPL_UNDEFINED; return true; }
TEST_FN(undefined) { (void)r; (void)at; (void)a; *out = v.kind == TPL_UNDEFINED; return true; }
TEST_FN(none) { (void)r; (void)at; (void)a; *out = v.kind == TPL_NONE; return true; }
TEST_FN(boolean) { (void)r; (void)at; (void)a; *out = v.kind == TPL_BOOL; return true; }
TEST_FN(true) { (void)r; (void)at; (void)a; *out = v.kind == TPL_BOOL && v.u.b; return true; }
TEST_FN(false) { (void)r; (void)at; (void)a; *out = v.kind == TPL_BOOL && !v.u.b; return true; }
TEST_FN(integer) { (void)r; (void)at; (void)a; *out = v.kind == TPL_INT; return true; }
TEST_FN(float) { (void)r; (void)at; (void)a; *out = v.kind == TPL_FLOAT; return true; }
TEST_FN(number) { (void)r; (void)at; (void)a; *out = tpl_is_number(v); return true; }
TEST_FN(string) { (void)r; (void)at; (void)a; *out = v.kind == TPL_STRING; return true; }
TEST_FN(mapping) { (void)r; (void)at; (void)a; *out = v.kind == TPL_MAP; return true; }
TEST_FN(sequence)
{
    (void)r; (void)at; (void)a;
    *out = v.kind == TPL_LIST || v.kind == TPL_STRING || v.kind == TPL_MAP;
    return true;
}
TEST_FN(iterable)
{
    (void)r; (void)at; (void)a;
    *out = v.kind == TPL_LIST || v.kind == TPL_STRING || v.kind == TPL_MAP || v.kind == TPL_UNDEFINED;
    return true;
}
TEST_FN(callable) { (void)r; (void)at; (void)a; *out = v.kind == TPL_OBJECT; return true; }
TEST_FN(escaped)
{
    (void)r; (void)at; (void)a;
    *out = v.kind == TPL_STRING && (v.flags & TPL_SAFE);
    return true;
}

static bool int_of(tpl_render_state *r, const node *at, tpl_value v, int64_t *x)
{
    if (v.kind == TPL_INT || v.kind == TPL_BOOL) {
        *x = v.kind == TPL_BOOL ? v.u.b : v.u.i;
        return true;
    }
    return tpl_r_error(r, at, "this test needs an integer");
}

/* `is even` / `is odd`: Python's x % 2 for ints and bools, fmod for floats
 * (so 3.0 is odd and 2.5 neither). */
static bool parity(tpl_render_state *r, const node *at, tpl_value v, bool odd, bool *out)
{
    int64_t x = 0;
    if (v.kind == TPL_FLOAT) {
        double m = fabs(fmod(v.u.f, 2));
        *out = odd ? m == 1 : m == 0;
        return true;
    }
    if (!int_of(r, at, v, &x))
        return false;
    *out = (x % 2 != 0) == odd;
    return true;
}

TEST_FN(even) { (void)a; return parity(r, at, v, false, out); }
TEST_FN(odd) { (void)a; return parity(r, at, v, true, out); }

TEST_FN(divisibleby)
{
    int64_t x = 0, y = 0;
    if (!a->given[0])
        return tpl_r_error(r, at, "divisibleby needs a number");
    if ((v.kind == TPL_FLOAT || a->v[0].kind == TPL_FLOAT) && tpl_is_number(v) &&
        tpl_is_number(a->v[0])) {
        double fy = tpl_as_double(a->v[0]);
        if (fy == 0)
            return tpl_r_error(r, at, "divisibleby(0)");
        *out = fmod(tpl_as_double(v), fy) == 0;
        return true;
    }
    if (!int_of(r, at, v, &x) || !int_of(r, at, a->v[0], &y))
        return false;
    if (y == 0)
        return tpl_r_error(r, at, "divisibleby(0)");
    *out = x % y == 0;
    return true;
}

static bool cmp_test(tpl_render_state *r, const node *at, tpl_value v, const tpl_args *a, int op,
                     bool *out)
{
    if (!a->given[0])
        return tpl_r_error(r, at, "this test needs a value to compare with");
    if (op == 0) {
        *out = tpl_value_equal(v, a->v[0]);
        return true;
    }
    if (op == 1) {
        *out = !tpl_value_equal(v, a->v[0]);
        return true;
    }
    bool err = false;
    int c = tpl_compare(v, a->v[0], false, &err);
    if (err)
        return tpl_r_error(r, at, "these values do not compare");
    *out = op == 2 ? c < 0 : op == 3 ? c <= 0 : op == 4 ? c > 0 : c >= 0;
    return true;
}

TEST_FN(eq) { return cmp_test(r, at, v, a, 0, out); }
TEST_FN(ne) { return cmp_test(r, at, v, a, 1, out); }
TEST_FN(lt) { return cmp_test(r, at, v, a, 2, out); }
TEST_FN(le) { return cmp_test(r, at, v, a, 3, out); }
TEST_FN(gt) { return cmp_test(r, at, v, a, 4, out); }
TEST_FN(ge) { return cmp_test(r, at, v, a, 5, out); }

TEST_FN(in)
{
    if (!a->given[0])
        return tpl_r_error(r, at, "'in' test needs a container");
    tpl_value h = a->v[0];
    if (h.kind == TPL_STRING) {
        if (v.kind != TPL_STRING)
            return tpl_r_error(r, at, "'in <string>' needs a string");
        *out = v.len == 0 || memmem(h.u.s, h.len, v.u.s, v.len) != NULL;
    } else if (h.kind == TPL_LIST) {
        *out = false;
        for (size_t i = 0; i < h.u.list->len && !*out; i++)
            *out = tpl_value_equal(h.u.list->items[i], v);
    } else if (h.kind == TPL_MAP) {
        *out = tpl_map_get_value(h.u.map, v).kind != TPL_UNDEFINED;
    } else {
        return tpl_r_error(r, at, "'in' test needs a string, list or map");
    }
    return true;
}

TEST_FN(sameas)
{
    if (!a->given[0])
        return tpl_r_error(r, at, "sameas needs a value");
    tpl_value o = a->v[0];
    if (v.kind != o.kind)
        *out = false;
    else if (v.kind == TPL_NONE || v.kind == TPL_UNDEFINED)
        *out = true;
    else if (v.kind == TPL_BOOL)
        *out = v.u.b == o.u.b;
    else if (v.kind == TPL_INT)
        *out = v.u.i == o.u.i && v.u.i >= -5 && v.u.i <= 256;
    else
        *out = v.u.obj == o.u.obj && v.len == o.len;
    return true;
}

static bool case_test(tpl_value v, bool lower)
{
    if (v.kind != TPL_STRING)
        return false;
    bool cased = false;
    for (size_t i = 0; i < v.len;) {
        int32_t cp;
        i += next_cp(v.u.s, v.len, i, &cp);
        if (utf8proc_tolower(cp) != cp || utf8proc_toupper(cp) != cp) {
            cased = true;
            if (lower ? utf8proc_tolower(cp) != cp : utf8proc_toupper(cp) != cp)
                return false;
        }
    }
    return cased;
}

TEST_FN(lower) { (void)r; (void)at; (void)a; *out = case_test(v, true); return true; }
TEST_FN(upper) { (void)r; (void)at; (void)a; *out = case_test(v, false); return true; }

TEST_FN(filter)
{
    (void)r; (void)at;
    *out = v.kind == TPL_STRING && tpl_filter_find(v.u.s) >= 0;
    (void)a;
    return true;
}

TEST_FN(test)
{
    (void)r; (void)at;
    *out = v.kind == TPL_STRING && tpl_test_find(v.u.s) >= 0;
    (void)a;
    return true;
}

/* Every test, as the filters' table: SORTED by name in byte order
 * (tpl_test_find bisects it; tests/unit/test_tables.c checks the order). */
static const tpl_test_def tests[] = {
    { "!=", "value", t_ne },
    { "<", "value", t_lt },
    { "<=", "value", t_le },
    { "==", "value", t_eq },
    { ">", "value", t_gt },
    { ">=", "value", t_ge },
    { "boolean", "", t_boolean },
    { "callable", "", t_callable },
    { "defined", "", t_defined },
    { "divisibleby", "num", t_divisibleby },
    { "eq", "value", t_eq },
    { "equalto", "value", t_eq },
    { "escaped", "", t_escaped },
    { "even", "", t_even },
    { "false", "", t_false },
    { "filter", "", t_filter },
    { "float", "", t_float },
    { "ge", "value", t_ge },
    { "greaterthan", "value", t_gt },
    { "gt", "value", t_gt },
    { "in", "seq", t_in },
    { "integer", "", t_integer },
    { "iterable", "", t_iterable },
    { "le", "value", t_le },
    { "lessthan", "value", t_lt },
    { "lower", "", t_lower },
    { "lt", "value", t_lt },
    { "mapping", "", t_mapping },
    { "ne", "value", t_ne },
    { "none", "", t_none },
    { "number", "", t_number },
    { "odd", "", t_odd },
    { "sameas", "other", t_sameas },
    { "sequence", "", t_sequence },
    { "string", "", t_string },
    { "test", "", t_test },
    { "true", "", t_true },
    { "undefined", "", t_undefined },
    { "upper", "", t_upper },
};

int tpl_test_find(const char *name)
{
    return tpl_bisect_name(tests, tpl_test_count(), sizeof tests[0], name);
}

size_t tpl_test_count(void) { return sizeof tests / sizeof tests[0]; }
const tpl_test_def *tpl_test_get(int i) { return &tests[i]; }
