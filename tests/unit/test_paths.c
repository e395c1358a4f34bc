/* Unit tests for the output-path rule (util/outpath), the slug length rule
 * (util/text) and the folder walk (util/fs) — issue 19. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/fs.h"
#include "util/outpath.h"
#include "util/text.h"

static const char *problem(const char *s) { return outpath_problem(s, strlen(s)); }

TEST(outpath_accepts)
{
    OK(!problem("index.html"));
    OK(!problem("posts/a/index.html"));
    OK(!problem("a..b/...x/.hidden/x..html"));
    OK(!problem("日本語/caf\xc3\xa9.png"));
    char name[OUTPATH_NAME_MAX + 1];
    memset(name, 'x', OUTPATH_NAME_MAX);
    name[OUTPATH_NAME_MAX] = 0;
    OK(!problem(name));
}

TEST(outpath_refuses)
{
    EQ_STR(problem(""), "is empty");
    EQ_STR(problem("/etc/passwd"), "is absolute (it starts with '/')");
    EQ_STR(problem(".."), "has a '..' part");
    EQ_STR(problem("../x"), "has a '..' part");
    EQ_STR(problem("a/../../x"), "has a '..' part");
    EQ_STR(problem("a/.."), "has a '..' part");
    EQ_STR(problem("./x"), "has a '.' part");
    EQ_STR(problem("a/./x"), "has a '.' part");
    EQ_STR(problem("a//x"), "has an empty part ('//')");
    EQ_STR(problem("a/"), "ends in '/' (a folder, not a file)");
    EQ_STR(outpath_problem("a\0/../x", 7), "holds a NUL byte");
    EQ_STR(problem("a\x07"), "holds a control character");
    EQ_STR(problem("a\nb"), "holds a control character");
    EQ_STR(problem("a\x7f"), "holds a control character");
    EQ_STR(problem("a\xc2\x85"), "holds a control character"); /* U+0085, C1 */
    char name[OUTPATH_NAME_MAX + 2];
    memset(name, 'x', OUTPATH_NAME_MAX + 1);
    name[OUTPATH_NAME_MAX + 1] = 0;
    EQ_STR(problem(name), "has a part longer than 255 bytes");
    char *big = malloc(OUTPATH_MAX + 2);
    for (size_t i = 0; i < OUTPATH_MAX + 1; i++)
        big[i] = i % 2 ? '/' : 'x';
    big[OUTPATH_MAX + 1] = 0;
    EQ_STR(problem(big), "is longer than 3072 bytes");
    free(big);
}

TEST(outpath_quoting)
{
    buf b = BUF_INIT;
    outpath_quote(&b, "a\x07\n\\b\xc3\xa9\xff\x7f\xc2\x85", 11);
    EQ_STR(b.data, "a\\x07\\x0a\\\\b\xc3\xa9\\xff\\x7f\\xc2\\x85");
    buf_release(&b);
}

static const char *slug(buf *b, const char *s)
{
    buf_reset(b);
    text_slugify(b, s, strlen(s));
    return b->data;
}

/* FNV-1a of s, its low 32 bits as 8 hex digits (what the rule appends) */
static void hex_hash(char out[9], const char *s, size_t n)
{
    unsigned long long h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    snprintf(out, 9, "%08llx", h & 0xffffffffull);
}

/* A path names a file when its last part has an extension; a folder's
 * file is its index.html. */
TEST(outpath_files)
{
#define FILE_OF(in, want)                        \
    do {                                         \
        buf b = BUF_INIT;                        \
        outpath_file(&b, in, strlen(in));        \
        EQ_STR(b.data, want);                    \
        buf_release(&b);                         \
    } while (0)
    FILE_OF("", "index.html");
    FILE_OF("about/", "about/index.html");
    FILE_OF("about", "about/index.html");
    FILE_OF("old.html", "old.html");
    FILE_OF("2019/01/old.html", "2019/01/old.html");
    FILE_OF(".well-known/security.txt", ".well-known/security.txt");
    FILE_OF(".well-known", ".well-known/index.html");
    FILE_OF("v1.2/", "v1.2/index.html");
    FILE_OF("a.", "a./index.html");
    OK(outpath_names_file("feed.json", 9));
    OK(!outpath_names_file("feed.json/", 10));
    OK(!outpath_names_file("x/.htaccess", 11));
#undef FILE_OF
}

TEST(slug_length)
{
    buf b = BUF_INIT, want = BUF_INIT, full = BUF_INIT;
    /* at the limit: kept as is */
    for (int i = 0; i < TEXT_SLUG_MAX; i++)
        buf_putc(&full, 'a');
    EQ_STR(slug(&b, full.data), full.data);
    /* one byte over: cut with a hash of the whole */
    buf_putc(&full, 'b');
    char h[9];
    hex_hash(h, full.data, full.len);
    buf_put(&want, full.data, TEXT_SLUG_MAX - 9);
    buf_printf(&want, "-%s", h);
    EQ_STR(slug(&b, full.data), want.data);
    EQ_INT(b.len, TEXT_SLUG_MAX);
    /* slugging a shortened slug again changes nothing */
    buf again = BUF_INIT;
    text_slugify(&again, b.data, b.len);
    EQ_STR(again.data, b.data);
    /* a cut right after a '-': no "--" before the hash */
    buf_reset(&full);
    for (int i = 0; i < TEXT_SLUG_MAX - 10; i++)
        buf_putc(&full, 'a');
    buf_puts(&full, " bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
    slug(&b, full.data);
    EQ_INT(b.len, TEXT_SLUG_MAX - 1);
    OK(!strstr(b.data, "--"));
    /* the cut falls between characters: é is two bytes */
    buf_reset(&full);
    for (int i = 0; i < 150; i++)
        buf_puts(&full, "\xc3\xa9");
    slug(&b, full.data);
    OK(text_utf8_check(b.data, b.len) == (size_t)-1);
    OK(b.len <= TEXT_SLUG_MAX);
    /* two long slugs that share their first 191 bytes stay apart */
    buf other = BUF_INIT;
    buf_reset(&full);
    for (int i = 0; i < 250; i++)
        buf_putc(&full, 'x');
    text_slugify(&other, full.data, full.len);
    buf_putc(&full, 'y');
    slug(&b, full.data);
    OK(strcmp(b.data, other.data) != 0);
    buf_release(&other);
    buf_release(&again);
    buf_release(&b);
    buf_release(&want);
    buf_release(&full);
}

static void count(void *ctx, const char *rel)
{
    (void)rel;
    (*(int *)ctx)++;
}

/* An empty folder: the walk sorts no names (qsort(NULL, 0) is undefined
 * behaviour, which the sanitizer build reports). */
TEST(walk_empty_folder)
{
    char dir[] = "/tmp/sheaf-paths-XXXXXX";
    OK(mkdtemp(dir) != NULL);
    char *sub = fs_join(dir, "empty");
    OK(mkdir(sub, 0755) == 0);
    int n = 0;
    OK(fs_walk(dir, true, count, &n));
    OK(fs_walk(sub, true, count, &n));
    EQ_INT(n, 0);
    rmdir(sub);
    rmdir(dir);
    free(sub);
}

typedef struct seen {
    buf b;
} seen;

static void visit(void *ctx, const char *rel, fs_kind kind, int err)
{
    seen *s = ctx;
    const char *k = kind == FS_FILE ? "file" : kind == FS_LINK ? "link" : "unreadable";
    size_t n = strlen(rel);
    /* long names shown by their length */
    if (n > 40)
        buf_printf(&s->b, "%s …%zu bytes (%s)\n", k, n, strerror(err));
    else
        buf_printf(&s->b, "%s %s%s%s\n", k, rel, err ? ": " : "", err ? strerror(err) : "");
}

/* fs_visit reports links without following them, and names what it cannot
 * read (a folder whose path is too long here: root can read anything, so
 * permissions are tried only when not root). */
TEST(visit_links_and_unreadable)
{
    char dir[] = "/tmp/sheaf-visit-XXXXXX";
    OK(mkdtemp(dir) != NULL);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    OK(mkdirat(fd, "a", 0755) == 0);
    OK(symlinkat("/usr", fd, "a/usr") == 0);
    OK(symlinkat("/nowhere", fd, "b") == 0);
    close(openat(fd, "c.md", O_WRONLY | O_CREAT, 0644));
    /* deep/<250 x>/<250 x>/… past PATH_MAX */
    OK(mkdirat(fd, "deep", 0755) == 0);
    int at = openat(fd, "deep", O_RDONLY | O_DIRECTORY);
    char name[251];
    memset(name, 'x', 250);
    name[250] = 0;
    for (int i = 0; i < 17; i++) {
        OK(mkdirat(at, name, 0755) == 0);
        int next = openat(at, name, O_RDONLY | O_DIRECTORY);
        close(at);
        at = next;
    }
    close(at);
    seen s = { BUF_INIT };
    OK(!fs_visit(dir, true, visit, &s));
    EQ_STR(s.b.data, "link a/usr\n"
                     "link b\n"
                     "file c.md\n"
                     "unreadable …4271 bytes (File name too long)\n");
    if (geteuid() != 0) {
        OK(mkdirat(fd, "a/locked", 0) == 0);
        buf_reset(&s.b);
        OK(!fs_visit(dir, true, visit, &s));
        OK(strstr(s.b.data, "unreadable a/locked: Permission denied\n") != NULL);
        char *locked = fs_join(dir, "a/locked");
        chmod(locked, 0755);
        free(locked);
    }
    buf_release(&s.b);
    close(fd);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    OK(system(cmd) == 0);
}

int main(void)
{
    RUN(outpath_accepts);
    RUN(outpath_refuses);
    RUN(outpath_quoting);
    RUN(outpath_files);
    RUN(slug_length);
    RUN(walk_empty_folder);
    RUN(visit_links_and_unreadable);
    return harness_done();
}
