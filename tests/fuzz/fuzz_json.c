/* fuzz_json: libFuzzer target over the JSON front matter reader
 * (fm_parse_json_pos) with key positions, and the data file reader
 * (fm_parse_json_value, any value at the top), and what their values reach: the
 * value printer, date reading and each key's record.
 *
 * Input: the front matter text itself (without fences). Seed corpus:
 * tests/fuzz/corpus/json/ (see tests/fuzz/CMakeLists.txt). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "diag/diag.h"
#include "fm/fm.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/date.h"

static void walk(tpl_value v, const fm_key_pos *pos, size_t npos)
{
    sheaf_date dt;
    (void)tpl_value_as_date(v, &dt);
    if (v.kind == TPL_LIST)
        for (size_t i = 0; i < v.u.list->len; i++)
            walk(v.u.list->items[i], pos, npos);
    if (v.kind == TPL_MAP)
        for (size_t i = 0; i < v.u.map->len; i++) {
            tpl_value k = v.u.map->entries[i].key;
            if (k.kind == TPL_STRING)
                (void)fm_key_find(pos, npos, v.u.map, k.u.s);
            walk(v.u.map->entries[i].value, pos, npos);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    diag_list *d = diag_list_new();
    arena *a = arena_new();
    tpl_value v;
    fm_key_pos *pos = NULL;
    size_t npos = 0;
    if (fm_parse_json_pos(str_make((const char *)data, size), 2, "fuzz.md", a, &v, &pos, &npos, d)) {
        buf b = BUF_INIT;
        tpl_value_repr(v, &b);
        buf_release(&b);
        walk(v, pos, npos);
    }
    /* the same text as a data file: any value at the top */
    if (fm_parse_json_value(str_make((const char *)data, size), "data/fuzz.json", a, &v, d)) {
        buf b = BUF_INIT;
        tpl_value_repr(v, &b);
        buf_release(&b);
        walk(v, NULL, 0);
    }
    buf out = BUF_INIT;
    for (size_t i = 0; i < diag_count(d); i++)
        diag_format(diag_get(d, i), &out);
    buf_release(&out);
    arena_free(a);
    diag_list_free(d);
    return 0;
}
