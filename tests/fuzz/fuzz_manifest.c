/* fuzz_manifest: libFuzzer target over the reader of an output folder's
 * manifest (util/manifest.c): its paths, escapes and the generation lines
 * (\generation, \changed, \user, \base, \folder, \own). The file is not
 * signed: anyone who can write the output folder can write it, and a
 * build reads it before trusting anything it says. What is read is
 * formatted again and read back: the same paths and records.
 *
 * Input: a manifest file's bytes. Seed corpus: tests/fuzz/corpus/manifest
 * (manifests written by builds of a small site: a first build, a whole
 * tree with \own lines, a tree made from its spare with \folder lines). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/fs.h"
#include "util/manifest.h"

static char dir[] = "/tmp/sheaf-fuzz-manifest-XXXXXX";

static void cleanup(void)
{
    char *p = fs_join(dir, MANIFEST_NAME);
    unlink(p);
    free(p);
    rmdir(dir);
}

static void put(const char *d, const uint8_t *data, size_t size)
{
    char *p = fs_join(d, MANIFEST_NAME);
    if (!fs_write_file(p, (const char *)data, size))
        abort();
    free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool made;
    if (!made) {
        if (!mkdtemp(dir))
            abort();
        atexit(cleanup);
        made = true;
    }
    if (size > 1 << 20)
        return 0;
    put(dir, data, size);
    manifest m;
    if (!manifest_read(dir, &m)) {
        manifest_free(&m);
        return 0;
    }
    for (size_t i = 0; i < m.n; i++)
        if (!manifest_has(&m, m.list[i]))
            abort();
    /* formatted again (a generation line only when there was one) and read back */
    manifest_gen g = { .generation = m.generation,
                       .spare = m.spare,
                       .changed = m.changed,
                       .nchanged = m.nchanged,
                       .user = m.user,
                       .nuser = m.nuser,
                       .base = m.base,
                       .folders = m.folders,
                       .nfolders = m.nfolders,
                       .own = m.own,
                       .nown = m.nown };
    buf b = BUF_INIT;
    manifest_format_gen(m.list, m.n, &g, &b);
    put(dir, (const uint8_t *)b.data, b.len);
    manifest r;
    if (!manifest_read(dir, &r) || r.n != m.n)
        abort();
    for (size_t i = 0; i < m.n; i++)
        if (!manifest_has(&r, m.list[i]))
            abort();
    if (m.generation && (r.nfolders != m.nfolders || r.nown != m.nown || r.nuser != m.nuser ||
                         r.nchanged != m.nchanged || r.base != m.base))
        abort();
    for (size_t i = 0; m.generation && i < m.nown; i++)
        if (strcmp(r.own[i].path, m.own[i].path) || r.own[i].stamp != m.own[i].stamp ||
            r.own[i].direct != m.own[i].direct)
            abort();
    manifest_free(&r);
    buf_release(&b);
    manifest_free(&m);
    return 0;
}
