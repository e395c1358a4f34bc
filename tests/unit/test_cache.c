/* test_cache: the build cache on disk (src/cache): hits and misses, damaged
 * and truncated entries, temporary files left by a killed build, the size
 * bound, an unwritable folder, and threads sharing one cache. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "cache/cache.h"
#include "harness.h"
#include "util/fs.h"

static char *tmpdir(void)
{
    char tpl[] = "/tmp/sheaf-cache-XXXXXX";
    char *d = mkdtemp(tpl);
    return d ? strdup(d) : NULL;
}

/* Every regular file below dir whose name does (tmp) or does not start
 * with ".tmp-". */
typedef struct counter {
    size_t entries, tmps;
} counter;

static void count_fn(void *ctx, const char *rel)
{
    counter *c = ctx;
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    if (!strncmp(base, ".tmp-", 5))
        c->tmps++;
    else if (strcmp(base, ".key") && strcmp(base, ".ledger")) /* the cache's secret, its ledger */
        c->entries++;
}

static counter count(const char *site)
{
    counter c = { 0 };
    char *root = fs_join(site, CACHE_DIR);
    fs_walk(root, false, count_fn, &c);
    free(root);
    return c;
}

/* The one entry file of the cache (there must be exactly one). */
typedef struct finder {
    char *path;
    const char *root;
} finder;

static void find_fn(void *ctx, const char *rel)
{
    finder *f = ctx;
    if (!strcmp(rel, "v1/.key"))
        return;
    free(f->path);
    f->path = fs_join(f->root, rel);
}

static char *only_entry(const char *site)
{
    char *root = fs_join(site, CACHE_DIR);
    finder f = { NULL, root };
    fs_walk(root, false, find_fn, &f);
    free(root);
    return f.path;
}

TEST(put_then_get)
{
    char *d = tmpdir();
    cache *c = cache_open(d, 0);
    buf v = BUF_INIT;
    OK(!cache_get(c, "math", "k1", 2, &v));
    cache_put(c, "math", "k1", 2, "value one", 9);
    OK(cache_get(c, "math", "k1", 2, &v));
    EQ_STR(v.data, "value one");
    buf_reset(&v);
    /* another key, another kind: misses */
    OK(!cache_get(c, "math", "k2", 2, &v));
    OK(!cache_get(c, "code", "k1", 2, &v));
    /* an empty value is a value */
    cache_put(c, "code", "", 0, "", 0);
    OK(cache_get(c, "code", "", 0, &v));
    EQ_INT(v.len, 0);
    /* a bad kind is neither stored nor found */
    cache_put(c, "../x", "k", 1, "v", 1);
    OK(!cache_get(c, "../x", "k", 1, &v));
    OK(!cache_get(c, "", "k", 1, &v));
    cache_stats st = cache_get_stats(c);
    EQ_INT(st.hits, 2);
    EQ_INT(st.writes, 2);
    OK(cache_problem(c) == NULL);
    cache_free(c);
    /* a new process (a new cache object) sees the entries */
    c = cache_open(d, 0);
    buf_reset(&v);
    OK(cache_get(c, "math", "k1", 2, &v));
    EQ_STR(v.data, "value one");
    /* writing the same entry again replaces it */
    cache_put(c, "math", "k1", 2, "value two", 9);
    buf_reset(&v);
    OK(cache_get(c, "math", "k1", 2, &v));
    EQ_STR(v.data, "value two");
    EQ_INT(count(d).entries, 2);
    EQ_INT(count(d).tmps, 0);
    cache_free(c);
    buf_release(&v);
    fs_rmtree(d);
    free(d);
}

TEST(damaged_entries_miss)
{
    char *d = tmpdir();
    cache *c = cache_open(d, 0);
    cache_put(c, "math", "key", 3, "0123456789", 10);
    char *path = only_entry(d);
    OK(path != NULL);
    buf data = BUF_INIT, v = BUF_INIT;
    OK(fs_read_file(path, &data));
    /* truncated (a write cut short) */
    OK(fs_write_file(path, data.data, data.len - 3));
    OK(!cache_get(c, "math", "key", 3, &v));
    /* a flipped byte in the value */
    data.data[data.len - 1] ^= 1;
    OK(fs_write_file(path, data.data, data.len));
    OK(!cache_get(c, "math", "key", 3, &v));
    /* not a cache file at all, and an empty one */
    OK(fs_write_file(path, "hello", 5));
    OK(!cache_get(c, "math", "key", 3, &v));
    OK(fs_write_file(path, "", 0));
    OK(!cache_get(c, "math", "key", 3, &v));
    EQ_INT(v.len, 0);
    /* and a put repairs it */
    cache_put(c, "math", "key", 3, "0123456789", 10);
    OK(cache_get(c, "math", "key", 3, &v));
    EQ_STR(v.data, "0123456789");
    free(path);
    buf_release(&data);
    buf_release(&v);
    cache_free(c);
    fs_rmtree(d);
    free(d);
}

TEST(trim_bounds_the_size)
{
    char *d = tmpdir();
    char big[1000];
    memset(big, 'x', sizeof big);
    /* limit 10 KB: twenty entries of ~1 KB are too many */
    cache *c = cache_open(d, 10000);
    for (int i = 0; i < 20; i++) {
        char k[16];
        snprintf(k, sizeof k, "old%d", i);
        cache_put(c, "code", k, strlen(k), big, sizeof big);
    }
    cache_free(c);
    /* a later process uses two old entries and writes two new ones */
    c = cache_open(d, 10000);
    buf v = BUF_INIT;
    OK(cache_get(c, "code", "old3", 4, &v));
    OK(cache_get(c, "code", "old17", 5, &v));
    /* and one it kept elsewhere, counted by the id a record keeps (as a
     * variant kept in the output: site/imgrec.c) */
    cache_touch_id(c, cache_use_id("code", "old9", 4));
    cache_put(c, "code", "new1", 4, big, sizeof big);
    cache_put(c, "code", "new2", 4, big, sizeof big);
    size_t removed = cache_trim(c);
    OK(removed >= 15);
    counter n = count(d);
    OK(n.entries * (sizeof big + 30) <= 10000 / 4 * 3);
    /* what this process used is kept */
    buf_reset(&v);
    OK(cache_get(c, "code", "old3", 4, &v));
    OK(cache_get(c, "code", "old17", 5, &v));
    OK(cache_get(c, "code", "old9", 4, &v));
    OK(cache_get(c, "code", "new1", 4, &v));
    OK(cache_get(c, "code", "new2", 4, &v));
    /* nothing written since: no second walk */
    EQ_INT(cache_trim(c), 0);
    cache_free(c);
    buf_release(&v);
    fs_rmtree(d);
    free(d);
}

/* What a build used is never removed by its own trim, even when it alone
 * is over the limit: the limit bounds what the site no longer uses. */
TEST(trim_never_removes_what_was_used)
{
    char *d = tmpdir();
    char big[1000];
    memset(big, 'x', sizeof big);
    cache *c = cache_open(d, 10000);
    cache_put(c, "code", "gone", 4, big, sizeof big);
    cache_free(c);
    /* a later build reads eight, writes eight and touches one more: about
     * 17 KB used, under a 10 KB limit */
    c = cache_open(d, 10000);
    for (int i = 0; i < 9; i++) {
        char k[16];
        snprintf(k, sizeof k, "old%d", i);
        cache_put(c, "code", k, strlen(k), big, sizeof big);
    }
    cache_free(c);
    c = cache_open(d, 10000);
    buf v = BUF_INIT;
    for (int i = 0; i < 8; i++) {
        char k[16];
        snprintf(k, sizeof k, "old%d", i);
        OK(cache_get(c, "code", k, strlen(k), &v));
        snprintf(k, sizeof k, "new%d", i);
        cache_put(c, "code", k, strlen(k), big, sizeof big);
    }
    cache_touch(c, "code", "old8", 4);
    EQ_INT(cache_trim_now(c), 1); /* only "gone" */
    OK(cache_get_stats(c).kept_over > 5000);
    cache_free(c);
    c = cache_open(d, 10000);
    EQ_INT(count(d).entries, 17);
    OK(!cache_get(c, "code", "gone", 4, &v));
    for (int i = 0; i < 9; i++) {
        char k[16];
        snprintf(k, sizeof k, "old%d", i);
        OK(cache_get(c, "code", k, strlen(k), &v));
        snprintf(k, sizeof k, "new%d", i);
        OK(i == 8 || cache_get(c, "code", k, strlen(k), &v));
    }
    /* a later build that uses none of it keeps nothing over */
    cache_free(c);
    c = cache_open(d, 10000);
    cache_put(c, "code", "last", 4, big, sizeof big);
    OK(cache_trim_now(c) >= 10);
    EQ_INT(cache_get_stats(c).kept_over, 0);
    OK(count(d).entries * (sizeof big + 30) <= 10000 / 4 * 3);
    buf_release(&v);
    cache_free(c);
    fs_rmtree(d);
    free(d);
}

static size_t walks_after(const char *d, size_t limit, const char *prefix, int n)
{
    char big[1000];
    memset(big, 'x', sizeof big);
    cache *c = cache_open(d, limit);
    for (int i = 0; i < n; i++) {
        char k[32];
        snprintf(k, sizeof k, "%s%d", prefix, i);
        cache_put(c, "code", k, strlen(k), big, sizeof big);
    }
    cache_trim(c);
    cache_trim(c); /* nothing more written: nothing to do */
    size_t w = cache_get_stats(c).walks;
    cache_free(c);
    return w;
}

/* A build walks the cache only when the builds since the last walk wrote
 * more than an eighth of the limit, or of the size the last walk left when
 * that is larger, counted in the ledger; a ledger that is missing or
 * damaged makes a walk, never a wrong entry. */
TEST(trim_walks_when_enough_was_written)
{
    char *d = tmpdir();
    size_t limit = 80000; /* an eighth: 10,000 bytes, about nine entries */
    EQ_INT(walks_after(d, limit, "a", 3), 0); /* a new cache: the ledger starts at 0 */
    EQ_INT(walks_after(d, limit, "b", 3), 0);
    char *ledger = fs_join(d, CACHE_DIR "/v1/.ledger");
    buf v = BUF_INIT;
    OK(fs_read_file(ledger, &v));
    EQ_STR(v.data, "6276 0\n"); /* six entries of 1046 bytes (header 44, key 2) */
    EQ_INT(walks_after(d, limit, "c", 4), 1);
    buf_reset(&v);
    OK(fs_read_file(ledger, &v));
    EQ_STR(v.data, "0 10460\n"); /* what the walk left: ten entries, under the limit */
    EQ_INT(walks_after(d, limit, "d", 1), 0);
    /* damaged, or gone (a cache from before the ledger): a walk */
    OK(fs_write_file(ledger, "12x\n", 4));
    EQ_INT(walks_after(d, limit, "e", 1), 1);
    OK(fs_write_file(ledger, "12 \n", 4));
    EQ_INT(walks_after(d, limit, "e", 1), 1);
    const char *bad[] = { " 12 5\n", "12 5 5\n", "12  5\n", "12 5", "184467440737095516160 0\n",
                          "0 184467440737095516160\n" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        OK(fs_write_file(ledger, bad[i], strlen(bad[i])));
        EQ_INT(walks_after(d, limit, "e", 1), 1);
    }
    OK(unlink(ledger) == 0);
    EQ_INT(walks_after(d, limit, "f", 1), 1);
    /* a cache ten times its limit (what a big site's builds use): a walk
     * only after an eighth of its size is written, not of the limit's */
    OK(fs_write_file(ledger, "0 800000\n", 9));
    EQ_INT(walks_after(d, limit, "h", 12), 0);
    OK(fs_write_file(ledger, "0 0\n", 4));
    EQ_INT(walks_after(d, limit, "i", 12), 1);
    /* the ledger of a sheaf before the size: the limit's eighth */
    OK(fs_write_file(ledger, "8000\n", 5));
    EQ_INT(walks_after(d, limit, "j", 1), 0);
    EQ_INT(walks_after(d, limit, "k", 1), 1);
    /* nothing written: no walk, whatever the ledger says */
    OK(fs_write_file(ledger, "99999999\n", 9));
    EQ_INT(walks_after(d, limit, "g", 0), 0);
    /* every entry is still there */
    cache *c = cache_open(d, limit);
    const char *keys[] = { "a0", "b2", "c3", "d0", "e0", "f0", "h11", "i11", "k0" };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        OK(cache_get(c, "code", keys[i], strlen(keys[i]), &v));
    cache_free(c);
    buf_release(&v);
    free(ledger);
    fs_rmtree(d);
    free(d);
}

TEST(stale_temporary_files_go)
{
    char *d = tmpdir();
    cache *c = cache_open(d, 0);
    cache_put(c, "math", "k", 1, "v", 1);
    char *path = only_entry(d);
    /* what a build killed between write and rename leaves: an old one and
     * a fresh one (maybe another build's, still writing) */
    char *slash = strrchr(path, '/');
    *slash = '\0';
    char *old = fs_join(path, ".tmp-0123-99-0"), *fresh = fs_join(path, ".tmp-4567-99-1");
    OK(fs_write_file(old, "SHC1", 4));
    OK(fs_write_file(fresh, "SHC1", 4));
    struct timeval tv[2] = { { time(NULL) - 3600, 0 }, { time(NULL) - 3600, 0 } };
    OK(utimes(old, tv) == 0);
    /* a file sheaf did not make is never touched */
    char *other = fs_join(path, "notes.txt");
    OK(fs_write_file(other, "mine", 4));
    EQ_INT(cache_trim_now(c), 1);
    OK(access(old, F_OK) != 0);
    OK(access(fresh, F_OK) == 0);
    OK(access(other, F_OK) == 0);
    buf v = BUF_INIT;
    OK(cache_get(c, "math", "k", 1, &v));
    buf_release(&v);
    free(old);
    free(fresh);
    free(other);
    free(path);
    cache_free(c);
    fs_rmtree(d);
    free(d);
}

TEST(unwritable_is_a_problem_not_a_failure)
{
    char *d = tmpdir();
    /* .sheaf-cache is a file: nothing can be made below it */
    char *f = fs_join(d, CACHE_DIR);
    OK(fs_write_file(f, "x", 1));
    cache *c = cache_open(d, 0);
    cache_put(c, "math", "k", 1, "v", 1);
    const char *p = cache_problem(c);
    OK(p != NULL);
    OK(p && strstr(p, "cannot make ") == p);
    OK(p && strstr(p, ".sheaf-cache/v1: Not a directory"));
    buf v = BUF_INIT;
    OK(!cache_get(c, "math", "k", 1, &v));
    /* later writes are not tried (the problem stays the first one) */
    cache_put(c, "code", "k", 1, "v", 1);
    EQ_STR(cache_problem(c), p);
    EQ_INT(cache_get_stats(c).writes, 0);
    EQ_INT(cache_trim(c), 0);
    cache_free(c);
    /* NULL: no cache at all */
    cache_put(NULL, "math", "k", 1, "v", 1);
    OK(!cache_get(NULL, "math", "k", 1, &v));
    OK(cache_problem(NULL) == NULL);
    buf_release(&v);
    free(f);
    fs_rmtree(d);
    free(d);
}

/* Threads writing and reading the same keys at once. */
typedef struct shared {
    cache *c;
    int id;
    int bad;
} shared;

static void *worker(void *arg)
{
    shared *s = arg;
    buf v = BUF_INIT;
    for (int round = 0; round < 50; round++) {
        for (int i = 0; i < 20; i++) {
            char k[16], want[32];
            snprintf(k, sizeof k, "key%d", i);
            snprintf(want, sizeof want, "value of key%d", i);
            buf_reset(&v);
            if (cache_get(s->c, "math", k, strlen(k), &v)) {
                if (strcmp(v.data, want))
                    s->bad++;
            } else {
                cache_put(s->c, "math", k, strlen(k), want, strlen(want));
            }
        }
    }
    buf_release(&v);
    return NULL;
}

TEST(threads_share_a_cache)
{
    char *d = tmpdir();
    cache *c = cache_open(d, 0);
    pthread_t th[4];
    shared sh[4];
    for (int i = 0; i < 4; i++) {
        sh[i] = (shared){ c, i, 0 };
        pthread_create(&th[i], NULL, worker, &sh[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        EQ_INT(sh[i].bad, 0);
    }
    EQ_INT(count(d).entries, 20);
    EQ_INT(count(d).tmps, 0);
    OK(cache_problem(c) == NULL);
    cache_free(c);
    fs_rmtree(d);
    free(d);
}

int main(void)
{
    RUN(put_then_get);
    RUN(damaged_entries_miss);
    RUN(trim_bounds_the_size);
    RUN(trim_never_removes_what_was_used);
    RUN(trim_walks_when_enough_was_written);
    RUN(stale_temporary_files_go);
    RUN(unwritable_is_a_problem_not_a_failure);
    RUN(threads_share_a_cache);
    return harness_done();
}
