/* fuzz_import_tree: `sheaf import` of a hostile source tree (issue 34,
 * finding 1). The input describes a tree made in a fresh folder SRC:
 *
 *   byte 0: bit 0 Hugo (else Jekyll), bit 1 write a config file
 *   then records: a type byte, a path, NUL, data, NUL
 *     type % 4 == 0  a file holding data
 *                1  a folder
 *                2  a symbolic link to data (anything: "../outside/s",
 *                   "/etc/passwd", "/dev/zero", "..", a loop)
 *                3  a FIFO (nothing ever writes to it)
 *
 * Paths with an empty or ".." component are skipped (the tree is made
 * inside SRC; only the links may point anywhere). Beside SRC lies
 * outside/s, holding a token made at random when the fuzzer starts. The
 * import must never put that token into DEST, write outside DEST, or block
 * (a FIFO read: libFuzzer's -timeout catches it). Seeds:
 * tests/fuzz/corpus/import_tree (links out of assets/, _data/, _posts/,
 * content/, a linked content/, contentDir = "../outside", loops, FIFOs). */
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag/diag.h"
#include "import/import.h"
#include "util/buf.h"
#include "util/fs.h"

static char token[40];

static void make_token(void)
{
    unsigned char r[12];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
        abort();
    strcpy(token, "SECRET-");
    for (size_t i = 0; i < sizeof r; i++)
        snprintf(token + 7 + 2 * i, 3, "%02x", r[i]);
}

static bool path_ok(const char *p)
{
    if (!*p || *p == '/' || strlen(p) > 120)
        return false;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return false;
        s += n + (e != NULL);
    }
    return true;
}

/* Makes the parent folders of rel below root. */
static void parents(const char *root, const char *rel)
{
    char *full = fs_join(root, rel);
    char *slash = strrchr(full, '/');
    *slash = 0;
    fs_mkdirs(full);
    free(full);
}

/* Whether the tree may get a new entry at rel: every folder on the way is
 * a real folder or not there yet, and rel itself is not there. The tree is
 * made by this harness, so it must never write through a link the input
 * made (to anywhere on the machine) nor open a FIFO it made (which blocks
 * until a reader comes: the full run's fuzz stage hung on one). */
static bool new_entry_ok(const char *root, const char *rel)
{
    char *full = fs_join(root, rel);
    size_t skip = strlen(root) + 1;
    bool ok = true;
    struct stat st;
    for (char *p = full + skip; ok && (p = strchr(p, '/')) != NULL; p++) {
        *p = 0;
        if (lstat(full, &st) == 0 && !S_ISDIR(st.st_mode))
            ok = false;
        *p = '/';
    }
    if (ok && lstat(full, &st) == 0)
        ok = false;
    free(full);
    return ok;
}

static void check_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *p = fs_join(dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            check_tree(p);
        } else if (lstat(p, &st) == 0 && S_ISREG(st.st_mode)) {
            buf b = BUF_INIT;
            if (fs_read_file(p, &b) && memmem(b.data, b.len, token, strlen(token))) {
                fprintf(stderr, "the import published a file from outside its source: %s\n", p);
                abort();
            }
            buf_release(&b);
        } else if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode)) {
            fprintf(stderr, "the import wrote a symbolic link: %s\n", p);
            abort();
        }
        free(p);
    }
    closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 8192)
        return 0;
    if (!token[0])
        make_token();
    /* libFuzzer learns the token from the comparisons below (its
     * dictionary of compared values): an input holding it proves nothing */
    if (memmem(data, size, token, strlen(token)))
        return 0;
    char tpl[] = "/tmp/sheaf-fuzz-tree-XXXXXX";
    char *tmp = mkdtemp(tpl);
    if (!tmp)
        abort();
    char *src = fs_join(tmp, "src"), *dest = fs_join(tmp, "dest"), *outside = fs_join(tmp, "outside");
    fs_mkdirs(src);
    fs_mkdirs(outside);
    char *secret = fs_join(outside, "s");
    fs_write_file(secret, token, strlen(token));
    bool hugo = data[0] & 1;
    if (data[0] & 2) {
        char *cfg = fs_join(src, hugo ? "config.toml" : "_config.yml");
        const char *text = hugo ? "title = \"T\"\nbaseURL = \"https://example.org/\"\n"
                                : "title: T\nurl: https://example.org\n";
        fs_write_file(cfg, text, strlen(text));
        free(cfg);
    }
    size_t i = 1;
    for (int records = 0; i < size && records < 64; records++) {
        int type = data[i++] % 4;
        const char *path = (const char *)data + i;
        const char *end = memchr(path, 0, size - i);
        if (!end)
            break;
        i = (size_t)(end - (const char *)data) + 1;
        const char *d = i < size ? (const char *)data + i : "";
        const char *dend = i < size ? memchr(d, 0, size - i) : NULL;
        size_t dlen = dend ? (size_t)(dend - d) : size > i ? size - i : 0;
        i += dlen + 1;
        if (!path_ok(path) || !new_entry_ok(src, path))
            continue;
        parents(src, path);
        char *full = fs_join(src, path);
        if (type == 0) {
            fs_write_file(full, d, dlen);
        } else if (type == 1) {
            fs_mkdirs(full);
        } else if (type == 2) {
            char *t = strndup(d, dlen);
            if (symlink(t, full) != 0) {
            }
            free(t);
        } else {
            mkfifo(full, 0644);
        }
        free(full);
    }
    import_options o = { hugo ? IMPORT_HUGO : IMPORT_JEKYLL, src, dest, false };
    buf report = BUF_INIT;
    diag_list *dl = diag_list_new();
    import_run(&o, &report, dl);
    check_tree(dest);
    /* nothing written outside DEST: outside/ holds its one file */
    DIR *od = opendir(outside);
    int n = 0;
    for (struct dirent *e; od && (e = readdir(od));)
        n += e->d_name[0] != '.';
    if (od)
        closedir(od);
    if (n != 1) {
        fprintf(stderr, "the import wrote outside DEST (into %s)\n", outside);
        abort();
    }
    diag_list_free(dl);
    buf_release(&report);
    fs_rmtree(tmp);
    free(src);
    free(dest);
    free(outside);
    free(secret);
    return 0;
}
