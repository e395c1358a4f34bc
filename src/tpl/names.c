/* names: one copy of each name a loader's templates use (see internal.h).
 *
 * Variables, loop targets, macro parameters and attribute names all come
 * out of the lexer through here, so two mentions of `tag` — in a `for` and
 * in an include inside it — are the same pointer and the evaluator's scope
 * lookups compare pointers. The names the evaluator binds itself (loop,
 * super, …) are handed out as its own constants. Each name is preceded by
 * its bound flag (internal.h, tpl_name_bound). A table belongs to one
 * loader and is used under the loader's lock; it is freed with it. */
#include <stdlib.h>
#include <string.h>

#include "tpl/internal.h"
#include "util/hash.h"
#include "util/xalloc.h"

tpl_fixed_name tpl_fixed_names[TPL_FIXED_NAMES] = {
    [TPL_FIXED_LOOP] = { 0, "loop" },       [TPL_FIXED_SUPER] = { 0, "super" },
    [TPL_FIXED_CALLER] = { 0, "caller" },   [TPL_FIXED_VARARGS] = { 0, "varargs" },
    [TPL_FIXED_KWARGS] = { 0, "kwargs" },   [TPL_FIXED_SELF] = { 0, "self" },
    [TPL_FIXED_RANGE] = { 0, "range" },     [TPL_FIXED_DICT] = { 0, "dict" },
    [TPL_FIXED_NAMESPACE] = { 0, "namespace" }, [TPL_FIXED_CYCLER] = { 0, "cycler" },
    [TPL_FIXED_JOINER] = { 0, "joiner" },   [TPL_FIXED_T] = { 0, "t" },
};

struct tpl_names {
    char **slot; /* open addressing, NULL: free */
    size_t cap, n;
    arena *a;    /* the bytes */
};

tpl_names *tpl_names_new(void)
{
    tpl_names *t = xcalloc(1, sizeof *t);
    t->cap = 64;
    t->slot = xcalloc(t->cap, sizeof *t->slot);
    t->a = arena_new();
    return t;
}

void tpl_names_free(tpl_names *t)
{
    if (!t)
        return;
    free(t->slot);
    arena_free(t->a);
    free(t);
}

/* Where s lives or would go. */
static size_t find(const tpl_names *t, const char *s, size_t n)
{
    size_t i = hash_bytes(s, n) & (t->cap - 1);
    while (t->slot[i] && !(strlen(t->slot[i]) == n && !memcmp(t->slot[i], s, n)))
        i = (i + 1) & (t->cap - 1);
    return i;
}

const char *tpl_names_intern(tpl_names *t, const char *s, size_t n)
{
    for (size_t k = 0; k < TPL_FIXED_NAMES; k++)
        if (!strncmp(tpl_fixed_names[k].s, s, n) && !tpl_fixed_names[k].s[n])
            return tpl_fixed_names[k].s;
    size_t i = find(t, s, n);
    if (t->slot[i])
        return t->slot[i];
    if (2 * (t->n + 1) > t->cap) {
        char **old = t->slot;
        size_t oc = t->cap;
        t->cap *= 2;
        t->slot = xcalloc(t->cap, sizeof *t->slot);
        for (size_t k = 0; k < oc; k++)
            if (old[k])
                t->slot[find(t, old[k], strlen(old[k]))] = old[k];
        free(old);
        i = find(t, s, n);
    }
    char *p = arena_alloc(t->a, n + 2); /* the bound flag (tpl_name_bound), then the name */
    p[0] = 0;
    memcpy(p + 1, s, n);
    p[n + 1] = '\0';
    t->slot[i] = p + 1;
    t->n++;
    return t->slot[i];
}

int tpl_bisect_name(const void *table, size_t n, size_t size, const char *name)
{
    const char *base = table;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name, *(const char *const *)(base + mid * size));
        if (!c)
            return (int)mid;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}
