/* fuzz_tpl: libFuzzer target over the template engine — lexing, parsing and
 * rendering of arbitrary template text, with a few partials it may extend,
 * include or import, and variables of every kind.
 *
 * Input: the template text; a NUL byte splits off a second template that the
 * first can reach as "_x.html". Seed corpus: tests/tpl/cases/ (see
 * tests/fuzz/CMakeLists.txt for the commands). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "diag/diag.h"
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
    const char *text = (const char *)data;
    const char *nul = memchr(text, 0, size);
    size_t len = nul ? (size_t)(nul - text) : size;
    tpl_loader *l = tpl_loader_new(NULL, 0, false);
    for (size_t i = 0; i < sizeof partials / sizeof partials[0]; i++)
        tpl_loader_add(l, partials[i][0], partials[i][1], strlen(partials[i][1]));
    if (nul)
        tpl_loader_add(l, "_x.html", nul + 1, size - len - 1);
    tpl_loader_add(l, "t.html", text, len);
    diag_list *d = diag_list_new();
    const tpl_template *t = tpl_load(l, "t.html", d);
    if (t) {
        arena *scratch = arena_new();
        buf out = BUF_INIT;
        tpl_options opt = { .base_url = "https://example.org/notes/",
                             .max_output = 16 << 20, .max_memory = 256 << 20 };
        tpl_render(t, l, vars, &opt, "fuzz", scratch, &out, d);
        buf_release(&out);
        arena_free(scratch);
    }
    diag_list_free(d);
    tpl_loader_free(l);
    return 0;
}
