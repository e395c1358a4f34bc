/* fuzz_tpl: libFuzzer target over the template engine with its data —
 * lexing, parsing and rendering of arbitrary template text, with a few
 * partials it may extend, include or import, variables of every kind, and
 * more variables read from YAML in the input (so aliases, big numbers and
 * odd keys reach the template). Renders are bounded smaller than a page's
 * (4 MiB of output, 64 MiB of memory; strings of 1 MiB and lists of 65,536 items in a fuzzing build) to stay within libFuzzer's limits.
 *
 * Input: the template text; a NUL byte splits off a second template that the
 * first can reach as "_x.html"; a second NUL byte splits off YAML whose
 * top-level keys are added to the variables. Seed corpus: tests/fuzz/corpus/tpl/
 * (tests/tpl/cases with their data, and the bounds of issue 19; see
 * tests/fuzz/CMakeLists.txt). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "diag/diag.h"
#include "fm/fm.h"
#include "tpl/tpl.h"
#include "util/arena.h"
#include "util/buf.h"

static arena *data_arena;
static tpl_map *vars;

static const char *const partials[][2] = {
    { "_base.html", "<t>{% block title %}T{% endblock %}</t>{% block content %}C{% endblock %}"
                    "{% block footer %}{{ super is defined }}{% endblock %}" },
    { "_mid.html", "{% extends '_base.html' %}{% block title %}M{{ super() }}{% endblock %}" },
    { "_partial.html", "[{{ who }}{% if loop is defined %}{{ loop.index }}{% endif %}]" },
    { "_macros.html", "{% macro greet(name, g='Hi') %}{{ g }} {{ name }}{{ caller() if caller }}"
                      "{% endmacro %}{% set value = 42 %}" },
};

static void init(void)
{
    arena *a = data_arena = arena_new();
    vars = tpl_map_new(a, 16);
    tpl_map_set_str(a, vars, "who", tpl_str("<Zoë & 'co'>"));
    tpl_map_set_str(a, vars, "n", tpl_int(42));
    tpl_map_set_str(a, vars, "neg", tpl_int(-7));
    tpl_map_set_str(a, vars, "big", tpl_int(INT64_MAX));
    tpl_map_set_str(a, vars, "f", tpl_float(2.5));
    tpl_map_set_str(a, vars, "none", tpl_none());
    tpl_map_set_str(a, vars, "yes", tpl_bool(true));
    tpl_map_set_str(a, vars, "date", tpl_date(1710728430, 480, 0x02 | 0x04));
    tpl_list *items = tpl_list_new(a, 4);
    items->items[0] = tpl_str("b");
    items->items[1] = tpl_int(3);
    items->items[2] = tpl_str("分布式");
    items->items[3] = tpl_none();
    tpl_map_set_str(a, vars, "items", tpl_list_value(items));
    tpl_list *users = tpl_list_new(a, 3);
    for (size_t i = 0; i < 3; i++) {
        tpl_map *u = tpl_map_new(a, 3);
        static const char *const names[] = { "Ann", "bob", "Cy" };
        tpl_map_set_str(a, u, "name", tpl_str(names[i]));
        tpl_map_set_str(a, u, "age", tpl_int(20 + (int64_t)(i % 2) * 10));
        tpl_map_set_str(a, u, "tags", tpl_list_value(items));
        tpl_map_seal(a, u);
        users->items[i] = tpl_map_value(u);
    }
    tpl_map_set_str(a, vars, "users", tpl_list_value(users));
    tpl_map_seal(a, vars);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!vars)
        init();
    if (size > 1 << 16)
        return 0;
    const char *text = (const char *)data, *end = text + size;
    const char *nul = memchr(text, 0, size);
    size_t len = nul ? (size_t)(nul - text) : size;
    const char *x = nul ? nul + 1 : end;
    const char *nul2 = nul ? memchr(x, 0, (size_t)(end - x)) : NULL;
    const char *yaml = nul2 ? nul2 + 1 : end;
    tpl_loader *l = tpl_loader_new(NULL, 0, false);
    for (size_t i = 0; i < sizeof partials / sizeof partials[0]; i++)
        tpl_loader_add(l, partials[i][0], partials[i][1], strlen(partials[i][1]));
    if (nul)
        tpl_loader_add(l, "_x.html", x, (size_t)((nul2 ? nul2 : end) - x));
    tpl_loader_add(l, "t.html", text, len);
    diag_list *d = diag_list_new();
    const tpl_template *t = tpl_load(l, "t.html", d);
    if (t) {
        arena *scratch = arena_new();
        const tpl_map *v = vars;
        tpl_value extra;
        if (yaml < end && fm_parse_yaml(str_make(yaml, (size_t)(end - yaml)), 1, "data.yaml",
                                        scratch, &extra, d) &&
            extra.kind == TPL_MAP) {
            tpl_map *m = tpl_map_new(scratch, vars->len + extra.u.map->len);
            for (size_t i = 0; i < vars->len; i++)
                tpl_map_set(scratch, m, vars->entries[i].key, vars->entries[i].value);
            for (size_t i = 0; i < extra.u.map->len; i++)
                tpl_map_set(scratch, m, extra.u.map->entries[i].key, extra.u.map->entries[i].value);
            tpl_map_seal(scratch, m);
            v = m;
        }
        buf out = BUF_INIT;
        tpl_options opt = { .base_url = "https://example.org/notes/",
                             .max_output = 4 << 20, .max_memory = 64 << 20 };
        tpl_render(t, l, v, &opt, "fuzz", scratch, &out, d);
        buf_release(&out);
        arena_free(scratch);
    }
    diag_list_free(d);
    tpl_loader_free(l);
    return 0;
}
