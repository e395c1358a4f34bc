/* fuzz_page: libFuzzer target over the page pipeline as `sheaf check` runs
 * it — front matter (split, YAML, every key read and checked), Markdown,
 * cross-post links and their anchors, tags, the site model and every
 * template of the default theme — on a small site whose pages come from
 * the input. Nothing is written (`write = false`).
 *
 * Input: up to three pages separated by NUL bytes: a post that the others
 * may link to as 2024-01-01-a.md, a second post (2024-01-02-b.md) and a
 * page (about.md). Seed corpus: tests/fuzz/corpus/page/ (see
 * tests/fuzz/CMakeLists.txt).
 *
 * The templates and theme strings are parsed by the first run and kept
 * for the next (build_site_kept): the site's theme never changes here, and
 * parsing the default theme's templates and strings again was two thirds of
 * each run. The KaTeX engine is kept too: loading it again was most of a
 * run with a formula. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag/diag.h"
#include "render/build.h"
#include "util/buf.h"

static char root[128];
static build_kept *kept; /* the theme, parsed once */

static void put(const char *rel, const char *data, size_t n)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (n && fwrite(data, 1, n, f) != n)
        abort();
    fclose(f);
}

static const char *const names[] = { "content/posts/2024-01-01-a.md",
                                     "content/posts/2024-01-02-b.md", "content/about.md" };

/* At exit: the site goes (the build writes nothing else there). */
static void remove_site(void)
{
    static const char *const rest[] = { "site.yaml", "content/posts", "content", "" };
    char path[160];
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", root, names[i]);
        remove(path);
    }
    for (size_t i = 0; i < sizeof rest / sizeof *rest; i++) {
        snprintf(path, sizeof path, "%s/%s", root, rest[i]);
        remove(path);
    }
}

/* The site lives in TMPDIR, else in /dev/shm when there is one: three
 * files are rewritten on each run, and a disk's file system made that a
 * tenth of the run. */
static void init(void)
{
    const char *t = getenv("TMPDIR");
    struct stat st;
    if (!t || !*t)
        t = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0
                ? "/dev/shm"
                : "/tmp";
    snprintf(root, sizeof root, "%s/sheaf-fuzz-page-XXXXXX", t);
    if (strlen(t) > 64 || !mkdtemp(root))
        abort();
    atexit(remove_site);
    char dir[160];
    snprintf(dir, sizeof dir, "%s/content", root);
    mkdir(dir, 0700);
    snprintf(dir, sizeof dir, "%s/content/posts", root);
    mkdir(dir, 0700);
    static const char cfg[] = "title: Fuzz\nbase_url: https://example.org/notes/\npaginate: 2\n"
                              "links: error\n";
    put("site.yaml", cfg, sizeof cfg - 1);
}

static void free_kept(void) { build_kept_free(kept); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!root[0])
        init();
    if (!kept) {
        kept = build_kept_new();
        atexit(free_kept); /* what the theme holds is not counted as a leak */
    }
    if (size > 1 << 16)
        return 0;
    const char *p = (const char *)data, *end = p + size;
    for (size_t i = 0; i < 3; i++) {
        const char *nul = memchr(p, 0, (size_t)(end - p));
        const char *e = nul ? nul : end;
        put(names[i], p, (size_t)(e - p));
        p = nul ? nul + 1 : end;
    }
    build_options o = { .site_dir = root, .write = false, .jobs = 1 };
    diag_list *d = diag_list_new();
    (void)build_site_kept(&o, kept, d, NULL);
    buf b = BUF_INIT;
    for (size_t i = 0; i < diag_count(d); i++)
        diag_format(diag_get(d, i), &b);
    buf_release(&b);
    diag_list_free(d);
    return 0;
}
