/* test_tables: the hand-kept tables that are searched by bisection stay
 * sorted (a row out of order would make its name, or another, silently
 * unknown), and the evaluator's quick check for map methods knows every
 * map method. The generated tables (util/entities.c, tpl/casemap.c) are
 * sorted by their generators. */
#include "harness.h"

#include "tpl/internal.h"

/* Rows i-1, i in byte order, and each one found where it is. */
#define CHECK_SORTED(what, count, name_of, find)                                      \
    for (size_t i = 0; i < (count); i++) {                                            \
        const char *cur = (name_of);                                                  \
        if ((size_t)(find) != i)                                                      \
            FAILF("%s '%s' (row %zu) is not found by bisection", what, cur, i);      \
        if (i > 0) {                                                                  \
            size_t k = i;                                                             \
            i--;                                                                      \
            const char *prev = (name_of);                                             \
            i = k;                                                                    \
            if (strcmp(prev, cur) >= 0)                                               \
                FAILF("%s: '%s' before '%s': the table must be sorted", what, prev, cur); \
        }                                                                             \
    }

TEST(filters_sorted)
{
    OK(tpl_filter_count() > 50);
    CHECK_SORTED("filter", tpl_filter_count(), tpl_filter_get((int)i)->name,
                 tpl_filter_find(tpl_filter_get((int)i)->name));
    EQ_INT(tpl_filter_find("no-such-filter"), -1);
}

TEST(tests_sorted)
{
    OK(tpl_test_count() > 30);
    CHECK_SORTED("test", tpl_test_count(), tpl_test_get((int)i)->name,
                 tpl_test_find(tpl_test_get((int)i)->name));
    EQ_INT(tpl_test_find("zzz"), -1);
}

TEST(methods_sorted_and_maps_seen)
{
    static const char *const sorted[] = { "a", "b", "c" };
    EQ_INT(tpl_bisect_name(sorted, 3, sizeof sorted[0], "c"), 2);
    EQ_INT(tpl_bisect_name(sorted, 3, sizeof sorted[0], "bb"), -1);
    EQ_INT(tpl_bisect_name(sorted, 0, sizeof sorted[0], "a"), -1);
    size_t n = tpl_method_count(), maps = 0;
    OK(n > 15);
    CHECK_SORTED("method", n, tpl_method_get(i)->name,
                 tpl_bisect_name(tpl_method_get(0), n, sizeof(tpl_method_def), tpl_method_get(i)->name));
    unsigned initials = 0;
    for (size_t i = 0; i < n; i++) {
        const tpl_method_def *m = tpl_method_get(i);
        tpl_value v = { .kind = TPL_MAP };
        if (!(m->kinds & (1u << TPL_MAP)))
            continue;
        maps++;
        initials |= 1u << (m->name[0] - 'a');
        if (!tpl_may_have_method(v, m->name) || !tpl_has_method(v, m->name))
            FAILF("map method '%s' is not seen (TPL_MAP_METHOD_INITIALS)", m->name);
    }
    EQ_INT(maps, 4);
    /* no letter more than the map methods need: every attribute of a map
     * starting with one is looked up in the table first */
    EQ_INT(initials, TPL_MAP_METHOD_INITIALS);
    tpl_value s = { .kind = TPL_STRING }, l = { .kind = TPL_LIST }, m = { .kind = TPL_MAP };
    OK(tpl_has_method(s, "split") && !tpl_has_method(l, "split") && !tpl_has_method(m, "split"));
    OK(tpl_has_method(l, "count") && tpl_has_method(s, "count") && !tpl_has_method(m, "count"));
    OK(tpl_has_method(m, "items") && !tpl_has_method(s, "items"));
    OK(!tpl_has_method(m, "title") && !tpl_has_method(m, "Get") && !tpl_has_method(m, ""));
}

int main(void)
{
    RUN(filters_sorted);
    RUN(tests_sorted);
    RUN(methods_sorted_and_maps_seen);
    return harness_done();
}
