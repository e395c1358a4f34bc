/* mdheads: site_md_heads_check, the entry point of fuzz_mdheads, reads
 * the entries of heads that builds wrote (the fuzz target's seeds,
 * tests/fuzz/corpus/mdheads) as a build does: every head of each whole,
 * none of one cut short, one longer or of another format, and a head
 * whose value is damaged counted apart from the others. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "site/mdcache.h"
#include "util/arena.h"
#include "util/fs.h"

#define CORPUS "fuzz/corpus/mdheads"
#define MAGIC_LEN 6 /* "SHMH1\n" */

typedef void (*seed_fn)(const char *name, const buf *b);

/* Calls fn on every seed; how many there were. */
static int each_seed(seed_fn fn)
{
    DIR *d = opendir(CORPUS);
    OK(d != NULL);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", CORPUS, e->d_name);
        buf b = BUF_INIT;
        OK(fs_read_file(path, &b));
        fn(e->d_name, &b);
        buf_release(&b);
        n++;
    }
    closedir(d);
    return n;
}

static int check(const void *v, size_t n)
{
    arena *a = arena_new();
    int got = site_md_heads_check(v, n, a);
    arena_free(a);
    return got;
}

/* The count after the magic (a seed holds fewer than 128: one byte). */
static int count_of(const buf *b)
{
    return b->len > MAGIC_LEN && !((unsigned char)b->data[MAGIC_LEN] & 0x80) ? b->data[MAGIC_LEN] : -1;
}

static void whole(const char *name, const buf *b)
{
    int want = count_of(b);
    int got = check(b->data, b->len);
    if (want <= 0 || got != want)
        FAILF("%s: %d heads of %d read back", name, got, want);
}

TEST(seeds_read_back_whole) { OK(each_seed(whole) >= 10); }

static void broken(const char *name, const buf *b)
{
    for (size_t n = 0; n < b->len; n++)
        if (check(b->data, n) != -1) {
            FAILF("%s: cut to %zu bytes of %zu, read as heads", name, n, b->len);
            break;
        }
    buf c = BUF_INIT;
    buf_put(&c, b->data, b->len);
    buf_put(&c, "", 1);
    if (check(c.data, c.len) != -1)
        FAILF("%s: a byte after the last head, read as heads", name);
    buf_reset(&c);
    buf_put(&c, b->data, b->len);
    c.data[4] = '2'; /* another format of heads */
    if (check(c.data, c.len) != -1)
        FAILF("%s: SHMH2, read as heads", name);
    buf_release(&c);
}

TEST(cut_longer_or_other_not_heads) { OK(each_seed(broken) > 0); }

static void damaged(const char *name, const buf *b)
{
    int want = count_of(b);
    buf c = BUF_INIT;
    buf_put(&c, b->data, b->len);
    char *v = memmem(c.data, c.len, "SHM5", 4); /* the first head's value */
    OK(v != NULL);
    if (v) {
        v[3] = 'X';
        int got = check(c.data, c.len);
        if (got != want - 1)
            FAILF("%s: a head's value damaged, %d of %d read back", name, got, want);
    }
    buf_release(&c);
}

TEST(damaged_value_counted_apart) { OK(each_seed(damaged) > 0); }

int main(void)
{
    RUN(seeds_read_back_whole);
    RUN(cut_longer_or_other_not_heads);
    RUN(damaged_value_counted_apart);
    return harness_done();
}
