/* test_ptrmap: addresses → numbers (util/ptrmap.c), through its growth */
#include <stdlib.h>

#include "harness.h"
#include "util/ptrmap.h"

TEST(many)
{
    enum { N = 10000 };
    char *block = calloc(N, 1);
    ptrmap m = PTRMAP_INIT;
    uint64_t v = 7;
    OK(!ptrmap_get(&m, block, &v));
    EQ_INT(v, 7); /* untouched when missing */
    for (size_t i = 0; i < N; i += 2) /* every other byte: neighbouring addresses */
        ptrmap_put(&m, block + i, i * 3);
    EQ_INT(m.n, N / 2);
    OK(m.cap >= 2 * m.n);
    bool all = true;
    for (size_t i = 0; i < N; i++) {
        bool got = ptrmap_get(&m, block + i, &v);
        all = all && (i % 2 ? !got : got && v == i * 3);
    }
    OK(all);
    ptrmap_put(&m, block, 99); /* replaced, not added */
    EQ_INT(m.n, N / 2);
    OK(ptrmap_get(&m, block, &v) && v == 99);
    ptrmap_release(&m);
    EQ_INT(m.cap, 0);
    OK(!ptrmap_get(&m, block, &v));
    OK(!ptrmap_get(NULL, block, &v));
    free(block);
}

int main(void)
{
    RUN(many);
    return harness_done();
}
