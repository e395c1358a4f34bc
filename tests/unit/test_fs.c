/* test_fs: the one whole-file reader (util/fs.c) reads only regular files
 * and never more than its bound — a link to /dev/zero, a FIFO (which would
 * block a plain open) or a huge sparse file each fail at once with their
 * own words (issue 34, finding 10) — and the containment rule's helper. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "util/buf.h"
#include "util/fs.h"

static char *tmpdir(void)
{
    char tpl[] = "/tmp/sheaf-fs-XXXXXX";
    char *d = mkdtemp(tpl);
    return d ? strdup(d) : NULL;
}

TEST(reads_a_regular_file)
{
    char *d = tmpdir();
    char *p = fs_join(d, "a.txt");
    OK(fs_write_file(p, "hello", 5));
    buf b = BUF_INIT;
    OK(fs_read_file(p, &b));
    EQ_STR(b.data, "hello");
    buf_reset(&b);
    /* exactly the bound is fine, one byte more is not */
    OK(fs_read_file_max(p, 5, &b));
    buf_reset(&b);
    errno = 0;
    OK(!fs_read_file_max(p, 4, &b));
    EQ_INT(errno, FS_ETOOBIG);
    buf_release(&b);
    free(p);
    fs_rmtree(d);
    free(d);
}

TEST(refuses_devices_and_fifos)
{
    char *d = tmpdir();
    buf b = BUF_INIT;
    errno = 0;
    OK(!fs_read_file("/dev/zero", &b));
    EQ_INT(errno, FS_ENOTREG);
    EQ_INT(b.len, 0);
    /* a link to a device is the device */
    char *link = fs_join(d, "zero.yaml");
    OK(symlink("/dev/zero", link) == 0);
    errno = 0;
    OK(!fs_read_file(link, &b));
    EQ_INT(errno, FS_ENOTREG);
    /* a FIFO with no writer: answered at once, not waited on */
    char *fifo = fs_join(d, "fifo.bib");
    OK(mkfifo(fifo, 0644) == 0);
    errno = 0;
    OK(!fs_read_file(fifo, &b));
    EQ_INT(errno, FS_ENOTREG);
    EQ_STR(fs_strerror(FS_ENOTREG),
           "not a regular file (a device, a pipe or a socket; sheaf reads only regular files)");
    errno = 0;
    OK(!fs_read_file(d, &b));
    EQ_INT(errno, EISDIR);
    buf_release(&b);
    free(link);
    free(fifo);
    fs_rmtree(d);
    free(d);
}

TEST(refuses_a_file_over_the_bound_without_reading_it)
{
    char *d = tmpdir();
    char *p = fs_join(d, "big.md");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    OK(fd >= 0);
    OK(ftruncate(fd, (off_t)FS_READ_MAX + 1) == 0); /* sparse: no disk used */
    close(fd);
    buf b = BUF_INIT;
    errno = 0;
    OK(!fs_read_file(p, &b));
    EQ_INT(errno, FS_ETOOBIG);
    EQ_INT(b.len, 0);
    EQ_STR(fs_strerror(FS_ETOOBIG), "larger than 64 MiB, the most sheaf reads of one file");
    buf_release(&b);
    free(p);
    fs_rmtree(d);
    free(d);
}

static void count_visit(void *ctx, const char *rel, fs_kind kind, int err)
{
    (void)err;
    if (kind == FS_FILE)
        buf_printf(ctx, "%s\n", rel);
}

/* A walk that leaves hidden names out leaves editors' droppings out too,
 * the preview server's rule (a full build and a rebuild on save must see
 * the same files). */
TEST(droppings_left_out)
{
    char dir[] = "/tmp/sheaf-test-fs-XXXXXX";
    OK(mkdtemp(dir) != NULL);
    static const char *const names[] = { "a.md", "a.md~", "#a.md#", ".#a.md", ".a.md.swp", "x.swx",
                                         "x.swpx", "4913", "b.swo", "c.md" };
    char path[256];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        int fd = open(path, O_WRONLY | O_CREAT, 0644);
        OK(fd >= 0);
        close(fd);
    }
    buf seen = BUF_INIT;
    OK(fs_visit(dir, true, count_visit, &seen));
    EQ_STR(seen.data, "a.md\nc.md\n");
    OK(fs_left_out("a.md~") && fs_left_out("4913") && !fs_left_out("4913.md") && !fs_left_out("a#b"));
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    buf_release(&seen);
}

static void kind_visit(void *ctx, const char *rel, fs_kind kind, int err)
{
    (void)err;
    buf_printf(ctx, "%s %s\n", kind == FS_FILE ? "file" : kind == FS_LINK ? "link" : "unreadable", rel);
}

/* The walk tells each entry's kind from readdir where it can: files,
 * links (not followed, to a folder or a file alike) and folders (walked
 * into) as before, pipes left out. */
TEST(visit_reports_each_kind)
{
    char dir[] = "/tmp/sheaf-test-fs-XXXXXX";
    OK(mkdtemp(dir) != NULL);
    char path[256], sub[256];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    OK(mkdir(sub, 0755) == 0);
    snprintf(path, sizeof path, "%s/sub/b.md", dir);
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    OK(fd >= 0);
    close(fd);
    snprintf(path, sizeof path, "%s/a.md", dir);
    fd = open(path, O_WRONLY | O_CREAT, 0644);
    OK(fd >= 0);
    close(fd);
    snprintf(path, sizeof path, "%s/c-dir", dir);
    OK(symlink("sub", path) == 0);
    snprintf(path, sizeof path, "%s/d-file", dir);
    OK(symlink("a.md", path) == 0);
    snprintf(path, sizeof path, "%s/e-pipe", dir);
    OK(mkfifo(path, 0644) == 0);
    buf seen = BUF_INIT;
    OK(fs_visit(dir, true, kind_visit, &seen));
    EQ_STR(seen.data, "file a.md\nlink c-dir\nlink d-file\nfile sub/b.md\n");
    buf_release(&seen);
    fs_rmtree(dir);
}

int main(void)
{
    RUN(droppings_left_out);
    RUN(visit_reports_each_kind);
    RUN(reads_a_regular_file);
    RUN(refuses_devices_and_fifos);
    RUN(refuses_a_file_over_the_bound_without_reading_it);
    return harness_done();
}
