/* fuzz_fm: libFuzzer target over a page's source as the loader reads it —
 * splitting off the front matter, parsing it as YAML with key positions —
 * and over the value printer and date parser the results reach.
 *
 * Input: a whole file. Seed corpus: the pages under tests/sites/ and
 * content/ (see tests/fuzz/CMakeLists.txt for the commands). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "diag/diag.h"
#include "fm/fm.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/date.h"
#include "util/text.h"
#include "tpl/tpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    const char *text = (const char *)data;
    diag_list *d = diag_list_new();
    arena *a = arena_new();
    (void)text_utf8_check(text, size);
    fm_split sp;
    if (fm_split_source(str_make(text, size), "fuzz.md", &sp, d) && sp.has_front_matter) {
        tpl_value v;
        fm_key_pos *pos = NULL;
        size_t npos = 0;
        if (fm_parse_head(&sp, "fuzz.md", a, &v, &pos, &npos, d)) {
            buf b = BUF_INIT;
            tpl_value_repr(v, &b);
            buf_release(&b);
            if (v.kind == TPL_MAP)
                for (size_t i = 0; i < v.u.map->len; i++) {
                    sheaf_date dt;
                    (void)tpl_value_as_date(v.u.map->entries[i].value, &dt);
                }
        }
    }
    buf out = BUF_INIT;
    for (size_t i = 0; i < diag_count(d); i++)
        diag_format(diag_get(d, i), &out);
    buf_release(&out);
    arena_free(a);
    diag_list_free(d);
    return 0;
}
