/* test_fsmap: the read-only mapping a notebook is read through
 * (util/fsmap.c): the file's bytes, the bound, the containment rule, pages
 * given back reading the same, and a file cut shorter while mapped reading
 * as zeros with `cut` set instead of killing the process with SIGBUS. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "util/fs.h"
#include "util/fsmap.h"

static char *tmpdir(void)
{
    char tpl[] = "/tmp/sheaf-fsmap-XXXXXX";
    char *d = mkdtemp(tpl);
    return d ? strdup(d) : NULL;
}

TEST(maps_a_file_and_its_bound)
{
    char *d = tmpdir();
    char *p = fs_join(d, "a.ipynb");
    OK(fs_write_file(p, "{\"cells\": []}", 13));
    fs_map m;
    OK(fs_map_within(d, p, 13, &m));
    EQ_INT((int)m.len, 13);
    OK(!memcmp(m.data, "{\"cells\": []}", 13));
    fs_map_free(&m);
    errno = 0;
    OK(!fs_map_within(d, p, 12, &m));
    EQ_INT(errno, FS_ETOOBIG);
    char *out = tmpdir();
    errno = 0;
    OK(!fs_map_within(out, p, 100, &m));
    EQ_INT(errno, FS_EOUTSIDE);
    errno = 0;
    OK(!fs_map_within(NULL, d, 100, &m));
    EQ_INT(errno, EISDIR);
    /* an empty file maps as "" */
    OK(fs_write_file(p, "", 0));
    OK(fs_map_within(d, p, 100, &m));
    EQ_INT((int)m.len, 0);
    EQ_STR(m.data, "");
    fs_map_free(&m);
    free(p);
    fs_rmtree(d);
    fs_rmtree(out);
    free(d);
    free(out);
}

TEST(pages_given_back_read_the_same)
{
    char *d = tmpdir();
    char *p = fs_join(d, "big");
    size_t n = 3 << 20;
    char *bytes = malloc(n);
    for (size_t i = 0; i < n; i++)
        bytes[i] = (char)('a' + i % 26);
    OK(fs_write_file(p, bytes, n));
    fs_map m;
    OK(fs_map_within(NULL, p, n, &m));
    OK(!memcmp(m.data, bytes, n));
    fs_map_drop(&m, 1, n - 2);
    fs_map_drop(&m, 0, n);
    fs_map_drop(&m, n, 5); /* past the end: nothing */
    OK(!memcmp(m.data, bytes, n));
    fs_map_free(&m);
    free(bytes);
    free(p);
    fs_rmtree(d);
    free(d);
}

TEST(a_file_cut_shorter_reads_as_zeros_when_guarded)
{
    char *d = tmpdir();
    char *p = fs_join(d, "cut");
    size_t n = 64 * 1024;
    char *bytes = malloc(n);
    memset(bytes, 'x', n);
    OK(fs_write_file(p, bytes, n));
    fs_map m;
    OK(fs_map_within(NULL, p, n, &m));
    OK(truncate(p, 100) == 0); /* as a writer that truncates, then writes */
    fs_map_guard(&m);
    EQ_INT(m.data[50], 'x');
    EQ_INT(m.cut, 0);
    EQ_INT(m.data[n - 1], 0); /* a SIGBUS unguarded */
    EQ_INT(m.cut, 1);
    EQ_INT(m.data[n / 2], 0);
    fs_map_unguard();
    fs_map_free(&m);
    free(bytes);
    free(p);
    fs_rmtree(d);
    free(d);
}

int main(void)
{
    RUN(maps_a_file_and_its_bound);
    RUN(pages_given_back_read_the_same);
    RUN(a_file_cut_shorter_reads_as_zeros_when_guarded);
    return harness_done();
}
