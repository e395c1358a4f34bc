/* fuzz_bibmacro: libFuzzer target over the reckoning of @string macros
 * (bib_check_expansion, bib/budget.c) and libbtparse behind it (issue 34:
 * macros that double made gigabytes from a kilobyte).
 *
 * Input: a program, three bytes an instruction, which becomes a .bib file:
 *   op % 5 == 0   @string{mI = "…"}              (b % 24 letters)
 *   op % 5 == 1   @string{mI = mA # mB}
 *   op % 5 == 2   @STRING(mI = {x} # MA)          (any case, parentheses)
 *   op % 5 == 3   @misc{eI, title = mA # mB}
 *   op % 5 == 4   @misc{eI, note = "q{"}" # mA # 1999}
 * (A, B: earlier macros, from the bytes.) Alongside, it works out every
 * value's size itself and checks, under a small budget, that the reckoning
 * says "too large" exactly when some value or the file's sum is; for a file
 * within it (one input in 16, a fork each), that libbtparse's texts are no
 * longer than reckoned. Seed corpus: tests/fuzz/corpus/bibmacro. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bib/bib.h"
#include "diag/diag.h"
#include "util/arena.h"
#include "util/buf.h"

enum { MAX_OPS = 256 };

static uint64_t add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned runs;
    size_t nops = size / 3 < MAX_OPS ? size / 3 : MAX_OPS;
    uint64_t macro[MAX_OPS], field[MAX_OPS];
    int nmacros = 0, nfields = 0;
    bib_budget bud = bib_default_budget;
    bud.max_value = 4096;
    bud.max_total = 1 << 16;
    bool over = false;
    uint64_t total = 0;
    buf t = BUF_INIT;
    for (size_t i = 0; i < nops && !over; i++) {
        unsigned op = data[3 * i] % 5, x = data[3 * i + 1], y = data[3 * i + 2];
        int a = nmacros ? (int)(x % (unsigned)nmacros) : -1;
        int b = nmacros ? (int)(y % (unsigned)nmacros) : -1;
        uint64_t ma = a < 0 ? 9 : macro[a], mb = b < 0 ? 9 : macro[b]; /* unknown: reckoned 9 */
        uint64_t v;
        bool is_macro = op <= 2;
        switch (op) {
        case 0:
            v = y % 24;
            buf_printf(&t, "@string{m%d = \"", nmacros);
            for (unsigned k = 0; k < y % 24; k++)
                buf_putc(&t, (char)('a' + k));
            buf_puts(&t, "\"}\n");
            break;
        case 1:
            v = add(ma, mb);
            buf_printf(&t, "@string{m%d = m%d # m%d}\n", nmacros, a, b);
            break;
        case 2:
            v = add(1, ma);
            buf_printf(&t, "@STRING(m%d = {x} # M%d)\n", nmacros, a);
            break;
        case 3:
            v = add(ma, mb);
            buf_printf(&t, "@misc{e%d, title = m%d # m%d}\n", nfields, a, b);
            break;
        default:
            v = add(add(4, ma), 4);
            buf_printf(&t, "@misc{e%d, note = \"q{\"}\" # m%d # 1999}\n", nfields, a);
            break;
        }
        /* the oracle: as bib/budget.c reckons, stopping at the first excess */
        if (v > bud.max_value) {
            over = true;
            break;
        }
        total = add(total, v);
        if (total > bud.max_total) {
            over = true;
            break;
        }
        if (is_macro)
            macro[nmacros++] = v;
        else
            field[nfields++] = v;
    }
    diag_list *d = diag_list_new();
    bool ok = bib_check_expansion(t.data, t.len, "fuzz.bib", &bud, d);
    if (ok == over) {
        fprintf(stderr, "reckoned %s, the oracle says %s:\n%s", ok ? "within" : "over",
                over ? "over" : "within", t.data);
        abort();
    }
    if (ok && runs++ % 16 == 0) {
        arena *ar = arena_new();
        bib bb = { 0 };
        bud.max_total = (size_t)-1; /* libbtparse's unknown-macro warnings aside */
        if (bib_load_text_budget(&bb, t.data, t.len, "fuzz.bib", &bud, ar, d)) {
            for (size_t i = 0; i < bb.n; i++) {
                const bib_entry *e = &bb.entries[i];
                int k = atoi(e->key + 1);
                for (size_t f = 0; f < e->nfields; f++)
                    if (k >= 0 && k < nfields && strlen(e->fields[f].text) > field[k] + 4) {
                        fprintf(stderr, "%s: %zu bytes, reckoned %llu:\n%s", e->key,
                                strlen(e->fields[f].text), (unsigned long long)field[k], t.data);
                        abort();
                    }
            }
        }
        bib_free(&bb);
        arena_free(ar);
    }
    diag_list_free(d);
    buf_release(&t);
    return 0;
}
