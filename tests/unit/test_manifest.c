/* Unit tests for util/manifest.c: reading `.sheaf-manifest` back — paths
 * with and without escapes, the generation lines, what is not trusted to
 * name a file of sheaf's, a NUL that ends the list — and a round trip
 * through manifest_format_gen. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/fs.h"
#include "util/manifest.h"

static char dir[] = "/tmp/sheaf-test-manifest-XXXXXX";

#define HEAD "# sheaf: the files it wrote in this folder, which it alone may remove\n"

/* Writes `len` bytes of text as dir's manifest. */
static void put(const char *text, size_t len)
{
    char *p = fs_join(dir, MANIFEST_NAME);
    OK(fs_write_file(p, text, len));
    free(p);
}

TEST(paths_and_escapes)
{
    static const char text[] = HEAD "a/index.html\n"
                                    "b\\\\c.html\n"      /* b\c.html */
                                    "line\\nbreak\n"     /* a newline in the name */
                                    "bad\\tescape\n"     /* not an escape: ignored */
                                    "../up.html\n"       /* not a plain path: ignored */
                                    "x//y\n"             /* an empty component: ignored */
                                    "/abs\n"             /* absolute: ignored */
                                    "a/index.html\n"     /* repeated: once */
                                    "z/last.html";       /* no newline at the end */
    put(text, sizeof text - 1);
    manifest m;
    OK(manifest_read(dir, &m));
    EQ_INT(m.n, 4);
    OK(manifest_has(&m, "a/index.html"));
    OK(manifest_has(&m, "b\\c.html"));
    OK(manifest_has(&m, "line\nbreak"));
    OK(manifest_has(&m, "z/last.html"));
    OK(!manifest_has(&m, "bad\\tescape") && !manifest_has(&m, "badtescape"));
    OK(!manifest_has(&m, "../up.html") && !manifest_has(&m, "x//y") && !manifest_has(&m, "/abs"));
    EQ_STR(m.list[1], "b\\c.html");
    OK(m.sorted); /* (the repeated line is not a path more) */
    manifest_free(&m);
}

TEST(generation_lines)
{
    static const char text[] = HEAD "\\generation 7 00000000000000ff\n"
                                    "\\changed posts/a\\\\b/index.html\n"
                                    "\\user CNAME\n"
                                    "\\base 0123456789abcdef\n"
                                    "\\folder 00000000000000aa + posts\n"
                                    "\\folder 00000000000000bb - new\\nline\n"
                                    "\\folder nothex000000000 + bad\n"
                                    "\\own 00000000000000cc + posts\n"
                                    "\\own 00000000000000dd * star\n"  /* neither '+' nor '-' */
                                    "\\own 00000000000000ee -tight\n"  /* no space before the path */
                                    "\\own 00000000000000ff - ../up\n" /* not a plain path */
                                    "\\\\lead.html\n" /* a path that starts with '\' */
                                    "index.html\n"
                                    "posts/a\\\\b/index.html\n";
    put(text, sizeof text - 1);
    manifest m;
    OK(manifest_read(dir, &m));
    EQ_INT(m.generation, 7);
    EQ_INT(m.spare, 0xff);
    EQ_INT(m.base, 0x0123456789abcdefu);
    EQ_INT(m.nchanged, 1);
    EQ_STR(m.changed[0], "posts/a\\b/index.html");
    EQ_INT(m.nuser, 1);
    EQ_STR(m.user[0], "CNAME");
    EQ_INT(m.nfolders, 2);
    EQ_STR(m.folders[0].path, "posts");
    OK(m.folders[0].direct && m.folders[0].stamp == 0xaa);
    EQ_STR(m.folders[1].path, "new\nline");
    OK(!m.folders[1].direct && m.folders[1].stamp == 0xbb);
    EQ_INT(m.nown, 1);
    EQ_STR(m.own[0].path, "posts");
    OK(m.own[0].direct && m.own[0].stamp == 0xcc);
    EQ_INT(m.n, 3);
    OK(manifest_has(&m, "\\lead.html"));
    OK(manifest_has(&m, "index.html"));
    OK(manifest_has(&m, "posts/a\\b/index.html"));
    OK(!manifest_has(&m, "CNAME") && !manifest_has(&m, "posts"));
    OK(m.sorted);
    manifest_free(&m);
}

TEST(nul_ends_the_list)
{
    static const char text[] = HEAD "a.html\nb\0hidden.html\nc.html\n";
    put(text, sizeof text - 1);
    manifest m;
    OK(manifest_read(dir, &m));
    EQ_INT(m.n, 2);
    OK(manifest_has(&m, "a.html") && manifest_has(&m, "b"));
    OK(!manifest_has(&m, "c.html") && !manifest_has(&m, "hidden.html"));
    manifest_free(&m);
}

TEST(round_trip)
{
    char *paths[] = { "z.html", "a\\b.html", "n\nl.html", "posts/x/index.html" };
    char *changed[] = { "posts/x/index.html" };
    manifest_folder folders[] = { { "posts", 0x1234, true }, { "posts/x", 0, false } };
    manifest_folder own[] = { { "posts", 0x5678, false }, { "posts/x", 0x9abc, true }, { "tags", 0, false } };
    manifest_gen g = { .generation = 3, .spare = 0xabc, .changed = changed, .nchanged = 1, .base = 0x99,
                       .folders = folders, .nfolders = 2, .own = own, .nown = 3 };
    buf b = BUF_INIT;
    manifest_format_gen(paths, 4, &g, &b);
    put(b.data, b.len);
    manifest m;
    OK(manifest_read(dir, &m));
    EQ_INT(m.n, 4);
    for (size_t i = 0; i < 4; i++)
        OK(manifest_has(&m, paths[i]));
    OK(m.sorted);
    EQ_INT(m.generation, 3);
    EQ_INT(m.spare, 0xabc);
    EQ_INT(m.base, 0x99);
    EQ_INT(m.nfolders, 2);
    EQ_STR(m.folders[1].path, "posts/x");
    EQ_INT(m.folders[0].stamp, 0x1234);
    OK(m.folders[0].direct && !m.folders[1].direct);
    /* the tree's own folders, apart from the records of the tree it replaced */
    EQ_INT(m.nown, 3);
    EQ_STR(m.own[1].path, "posts/x");
    EQ_INT(m.own[1].stamp, 0x9abc);
    OK(!m.own[0].direct && m.own[1].direct);
    EQ_INT(m.own[2].stamp, 0);
    EQ_INT(m.nchanged, 1);
    manifest_free(&m);
    buf_release(&b);
}

/* The paths of a manifest read back, formatted again as its own (`same`):
 * the bytes are those formatting them one by one makes; a manifest whose
 * path lines are not all plain (an escape, a line of another kind or a
 * repeated path among them) is not copied but formatted. */
static void copy_or_format(const char *text, bool plain)
{
    put(text, strlen(text));
    manifest m;
    OK(manifest_read(dir, &m));
    EQ_INT(m.plain_tail, plain);
    manifest_gen g = { 0 };
    g.sorted = m.sorted;
    g.same = &m;
    buf copied = BUF_INIT, formatted = BUF_INIT;
    manifest_format_gen(m.list, m.n, &g, &copied);
    g.same = NULL;
    manifest_format_gen(m.list, m.n, &g, &formatted);
    EQ_INT(copied.len, formatted.len);
    OK(!memcmp(copied.data, formatted.data, formatted.len));
    manifest_free(&m);
    buf_release(&copied);
    buf_release(&formatted);
}

TEST(paths_copied_when_plain)
{
    copy_or_format(HEAD "\\generation 2 00000000000000ab\n\\folder 0000000000001234 + posts\n"
                        "a.html\nposts/x/index.html\nz.html\n", true);
    copy_or_format(HEAD "a.html\nb\\\\c.html\nz.html\n", false);       /* an escape */
    copy_or_format(HEAD "a.html\n\\generation 9 0000000000000001\nz.html\n", false); /* another line */
    copy_or_format(HEAD "a.html\nb.html\nb.html\nz.html\n", false);      /* repeated */
    copy_or_format(HEAD "a.html\nz.html", false);                            /* no last newline */
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    RUN(paths_and_escapes);
    RUN(generation_lines);
    RUN(nul_ends_the_list);
    RUN(round_trip);
    RUN(paths_copied_when_plain);
    char *p = fs_join(dir, MANIFEST_NAME);
    unlink(p);
    free(p);
    rmdir(dir);
    return harness_done();
}
