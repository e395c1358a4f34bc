/* Unit tests for deploy/: planning and applying a sync between two folders,
 * an interrupted apply, the target safety check, and the rsync command. */
#include "harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deploy/deploy.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/manifest.h"
#include "util/xalloc.h"

static char tmp_root[] = "/tmp/sheaf-test-deploy-XXXXXX";

/* Writes `text` to root/rel, making folders on the way. */
static void put(const char *root, const char *rel, const char *text)
{
    buf p = BUF_INIT;
    buf_printf(&p, "%s/%s", root, rel);
    mkdir(root, 0755);
    for (char *s = p.data + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        mkdir(p.data, 0755);
        *s = '/';
    }
    FILE *f = fopen(p.data, "w");
    OK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    buf_release(&p);
}

/* The contents of root/rel, or "(missing)"; caller frees. */
static char *get(const char *root, const char *rel)
{
    buf p = BUF_INIT, out = BUF_INIT;
    buf_printf(&p, "%s/%s", root, rel);
    FILE *f = fopen(p.data, "r");
    if (!f) {
        buf_puts(&out, "(missing)");
    } else {
        int c;
        while ((c = fgetc(f)) != EOF)
            buf_putc(&out, c);
        fclose(f);
    }
    buf_release(&p);
    return buf_detach(&out, NULL);
}

#define EQ_FILE(root, rel, want)                                                                   \
    do {                                                                                           \
        char *got_ = get(root, rel);                                                               \
        EQ_STR(got_, want);                                                                        \
        free(got_);                                                                                \
    } while (0)

static char *sub(const char *name)
{
    buf b = BUF_INIT;
    buf_printf(&b, "%s/%s", tmp_root, name);
    return buf_detach(&b, NULL);
}

/* Lists every path under root (sorted walk), folders with a trailing '/'. */
static void walk(const char *root, const char *rel, buf *out)
{
    buf p = BUF_INIT;
    buf_printf(&p, "%s%s%s", root, *rel ? "/" : "", rel);
    struct dirent **ents;
    int n = scandir(p.data, &ents, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *nm = ents[i]->d_name;
        if (strcmp(nm, ".") && strcmp(nm, "..")) {
            buf r = BUF_INIT, full = BUF_INIT;
            buf_printf(&r, "%s%s%s", rel, *rel ? "/" : "", nm);
            buf_printf(&full, "%s/%s", root, r.data);
            struct stat st;
            lstat(full.data, &st);
            buf_printf(out, "%s%s\n", r.data, S_ISDIR(st.st_mode) ? "/" : "");
            if (S_ISDIR(st.st_mode))
                walk(root, r.data, out);
            buf_release(&r);
            buf_release(&full);
        }
        free(ents[i]);
    }
    if (n >= 0)
        free(ents);
    buf_release(&p);
}

static char *tree(const char *root)
{
    buf b = BUF_INIT;
    walk(root, "", &b);
    return buf_detach(&b, NULL);
}

TEST(remote_or_local)
{
    OK(deploy_is_remote("host:path"));
    OK(deploy_is_remote("user@example.org:/var/www/notes"));
    OK(deploy_is_remote("rsync://example.org/module/"));
    OK(!deploy_is_remote("/srv/www/notes"));
    OK(!deploy_is_remote("out/dir:with-colon"));
    OK(!deploy_is_remote("./a:b"));
    OK(!deploy_is_remote("public"));
    OK(!deploy_is_remote(":x"));
}

static void make_trees(const char *src, const char *dst)
{
    put(src, "index.html", "new index");
    put(src, "same.txt", "same");
    put(src, "posts/a/index.html", "post a");
    put(src, "css/site.css", "body{}");
    put(src, "page", "now a file");
    put(src, "img/x.png", "png");

    put(dst, "index.html", "old index"); /* same size, other bytes */
    put(dst, "same.txt", "same");
    put(dst, "stale.html", "stale");
    put(dst, "posts/gone/index.html", "gone");
    put(dst, "posts/gone/deep/x.txt", "x");
    put(dst, "page/index.html", "was a folder");
    put(dst, "img", "was a file");
    put(dst, ".git/HEAD", "ref: refs/heads/gh-pages");
    /* what an earlier deploy wrote: everything but .git */
    char *const mine[] = { "index.html", "same.txt", "stale.html", "posts/gone/index.html",
                           "posts/gone/deep/x.txt", "page/index.html", "img" };
    OK(manifest_write(dst, mine, sizeof mine / sizeof *mine));
}

/* Whether a listing of a tree shows a temporary file of sheaf's. */
static bool has_temp(const char *t)
{
    for (const char *s = t; (s = strstr(s, ".sheaf-")); s++)
        if (strncmp(s, ".sheaf-manifest\n", 16) != 0)
            return true;
    return false;
}

TEST(plan_and_apply)
{
    char *src = sub("p-src"), *dst = sub("p-dst");
    make_trees(src, dst);
    diag_list *d = diag_list_new();
    deploy_plan p = DEPLOY_PLAN_INIT;
    OK(deploy_plan_make(src, dst, false, &p, d));
    buf b = BUF_INIT;
    deploy_plan_list(&p, &b);
    EQ_STR(b.data, "+ css/site.css (new)\n"
                   "+ img/x.png (new)\n"
                   "~ index.html (changed)\n"
                   "~ page (changed: was a folder of sheaf's)\n"
                   "+ posts/a/index.html (new)\n"
                   "- img (deployed by sheaf, now a folder)\n"
                   "- posts/gone/deep/x.txt (deployed by sheaf, no longer built)\n"
                   "- posts/gone/deep/ (a folder left empty)\n"
                   "- posts/gone/index.html (deployed by sheaf, no longer built)\n"
                   "- posts/gone/ (a folder left empty)\n"
                   "= .git/ (not written by sheaf: kept)\n"
                   "- stale.html (deployed by sheaf, no longer built)\n");
    buf_reset(&b);
    deploy_plan_summary(&p, "out", false, &b);
    EQ_STR(b.data, "deployed to out: 3 added, 2 changed, 6 removed");
    EQ_INT(p.unchanged, 1);

    OK(deploy_apply(src, dst, &p, 0, d));
    EQ_INT(diag_count(d), 0);
    char *t = tree(dst);
    EQ_STR(t, ".git/\n.git/HEAD\n.sheaf-manifest\ncss/\ncss/site.css\nimg/\nimg/x.png\nindex.html\n"
              "page\nposts/\nposts/a/\nposts/a/index.html\nsame.txt\n");
    free(t);
    EQ_FILE(dst, "index.html", "new index");
    EQ_FILE(dst, "page", "now a file");
    EQ_FILE(dst, ".git/HEAD", "ref: refs/heads/gh-pages");
    struct stat st;
    OK(stat(dst, &st) == 0);
    buf_reset(&b);
    buf_printf(&b, "%s/css/site.css", dst);
    OK(stat(b.data, &st) == 0 && (st.st_mode & 0777) == 0644);

    /* The manifest lists what the deploy wrote, nothing else. */
    manifest m;
    OK(manifest_read(dst, &m));
    EQ_INT(m.n, 6);
    OK(manifest_has(&m, "page") && manifest_has(&m, "img/x.png") && !manifest_has(&m, ".git/HEAD"));
    manifest_free(&m);

    /* A second plan finds nothing to do (and keeps .git). */
    deploy_plan_free(&p);
    OK(deploy_plan_make(src, dst, false, &p, d));
    EQ_INT(p.len, 1);
    EQ_INT(p.items[0].action, DEPLOY_KEEP);
    EQ_INT(p.unchanged, 6);
    buf_reset(&b);
    deploy_plan_summary(&p, "out", true, &b);
    EQ_STR(b.data, "would deploy to out: 0 added, 0 changed, 0 removed");

    deploy_plan_free(&p);
    buf_release(&b);
    diag_list_free(d);
    free(src);
    free(dst);
}

TEST(missing_target_is_created)
{
    char *src = sub("m-src"), *dst = sub("m-dst");
    put(src, "a/b.html", "b");
    diag_list *d = diag_list_new();
    deploy_plan p = DEPLOY_PLAN_INIT;
    OK(deploy_plan_make(src, dst, false, &p, d));
    EQ_INT(p.added, 1);
    OK(deploy_apply(src, dst, &p, 0, d));
    EQ_FILE(dst, "a/b.html", "b");
    deploy_plan_free(&p);

    /* The target's parent must exist. */
    char *deep = sub("no/such/parent");
    OK(deploy_plan_make(src, deep, false, &p, d));
    OK(!deploy_apply(src, deep, &p, 0, d));
    buf b = BUF_INIT;
    diag_format(diag_get(d, 0), &b);
    buf e = BUF_INIT;
    buf_printf(&e, "sheaf: error: cannot create deploy target '%s': No such file or directory",
               deep);
    EQ_STR(b.data, e.data);
    buf_release(&b);
    buf_release(&e);
    deploy_plan_free(&p);
    diag_list_free(d);
    free(src);
    free(dst);
    free(deep);
}

TEST(interrupted_apply_leaves_complete_files)
{
    char *src = sub("i-src"), *dst = sub("i-dst");
    make_trees(src, dst);
    diag_list *d = diag_list_new();
    deploy_plan p = DEPLOY_PLAN_INIT;
    OK(deploy_plan_make(src, dst, false, &p, d));
    for (size_t stop = 1; stop < p.len; stop++) {
        OK(deploy_apply(src, dst, &p, stop, d));
        /* Every file is an old or a new one, whole; no temporary file. */
        char *t = tree(dst);
        OK(!has_temp(t));
        free(t);
        char *idx = get(dst, "index.html");
        OK(!strcmp(idx, "old index") || !strcmp(idx, "new index"));
        free(idx);
    }
    /* A temporary file left by a killed deploy is stale to the next one. */
    put(dst, "posts/.index.html.sheaf-abc123", "partial");
    deploy_plan_free(&p);
    OK(deploy_plan_make(src, dst, false, &p, d));
    OK(deploy_apply(src, dst, &p, 0, d));
    EQ_FILE(dst, "posts/.index.html.sheaf-abc123", "(missing)");
    deploy_plan_free(&p);
    OK(deploy_plan_make(src, dst, false, &p, d));
    EQ_INT(p.len, 1); /* .git, kept */
    EQ_INT(diag_count(d), 0);
    deploy_plan_free(&p);
    diag_list_free(d);
    free(src);
    free(dst);
}

TEST(symlinks_in_target_are_not_followed)
{
    char *src = sub("l-src"), *dst = sub("l-dst"), *outside = sub("l-outside");
    put(src, "keep/index.html", "new");
    put(outside, "precious.txt", "precious");
    mkdir(dst, 0755);
    buf b = BUF_INIT;
    buf_printf(&b, "%s/keep", dst);
    OK(symlink(outside, b.data) == 0);
    buf_reset(&b);
    buf_printf(&b, "%s/gone", dst);
    OK(symlink(outside, b.data) == 0);
    char *const mine[] = { "keep", "gone" }; /* as if an earlier deploy had made them */
    OK(manifest_write(dst, mine, 2));
    diag_list *d = diag_list_new();
    deploy_plan p = DEPLOY_PLAN_INIT;
    OK(deploy_plan_make(src, dst, false, &p, d));
    OK(deploy_apply(src, dst, &p, 0, d));
    EQ_FILE(dst, "keep/index.html", "new");
    EQ_FILE(outside, "precious.txt", "precious");
    EQ_FILE(outside, "index.html", "(missing)");
    buf_reset(&b);
    buf_printf(&b, "%s/gone", dst);
    struct stat st;
    OK(lstat(b.data, &st) != 0);
    buf_release(&b);
    deploy_plan_free(&p);
    diag_list_free(d);
    free(src);
    free(dst);
    free(outside);
}

static const char *first_message(diag_list *d, buf *b);

TEST(files_sheaf_did_not_write)
{
    char *src = sub("f-src"), *dst = sub("f-dst");
    put(src, "index.html", "new");
    put(src, "about/index.html", "about");
    put(dst, "index.html", "someone's");
    put(dst, "CNAME", "example.org");
    put(dst, "notes/x.txt", "mine");
    diag_list *d = diag_list_new();
    deploy_plan p = DEPLOY_PLAN_INIT;
    buf b = BUF_INIT, e = BUF_INIT;
    /* not empty, no manifest: refused */
    OK(!deploy_plan_make(src, dst, false, &p, d));
    buf_printf(&e, "sheaf: error: deploy target '%s' is not empty and has no .sheaf-manifest, so "
                   "sheaf did not deploy there, and sheaf removes only files it wrote: choose a "
                   "new or empty folder (a .git in it is fine), or deploy with --force to write "
                   "into it (its other files are then left as they are)",
               dst);
    EQ_STR(first_message(d, &b), e.data);
    deploy_plan_free(&p);
    /* --force: the deploy's files replace theirs, the rest stays */
    OK(deploy_plan_make(src, dst, true, &p, d));
    buf_reset(&b);
    deploy_plan_list(&p, &b);
    EQ_STR(b.data, "+ about/index.html (new)\n"
                   "~ index.html (replaces a file sheaf did not write (--force))\n"
                   "= CNAME (not written by sheaf: kept)\n"
                   "= notes/ (not written by sheaf: kept)\n");
    OK(deploy_apply(src, dst, &p, 0, d));
    deploy_plan_free(&p);
    EQ_FILE(dst, "index.html", "new");
    EQ_FILE(dst, "CNAME", "example.org");
    EQ_FILE(dst, "notes/x.txt", "mine");
    /* later deploys need no --force; what sheaf no longer builds goes */
    char *gone = sub("f-src/about");
    fs_rmtree(gone);
    free(gone);
    OK(deploy_plan_make(src, dst, false, &p, d));
    OK(deploy_apply(src, dst, &p, 0, d));
    EQ_FILE(dst, "about/index.html", "(missing)");
    EQ_FILE(dst, "CNAME", "example.org");
    deploy_plan_free(&p);
    /* a file of someone else's where the deploy writes: an error */
    put(src, "CNAME", "example.net");
    OK(!deploy_plan_make(src, dst, false, &p, d));
    buf_reset(&e);
    buf_printf(&e, "%s/CNAME: error: this file is in the way of the deploy and sheaf did not write "
                   "it (it is not in the target's .sheaf-manifest): move it away, or deploy with "
                   "--force to replace it",
               dst);
    EQ_STR(first_message(d, &b), e.data);
    deploy_plan_free(&p);
    buf_release(&b);
    buf_release(&e);
    diag_list_free(d);
    free(src);
    free(dst);
}

static const char *first_message(diag_list *d, buf *b)
{
    buf_reset(b);
    if (diag_count(d))
        diag_format(diag_get(d, 0), b);
    diag_clear(d);
    return b->data;
}

TEST(target_safety)
{
    char *site = sub("site"), *build = sub("build");
    put(site, "site.yaml", "title: x\n");
    mkdir(build, 0755);
    diag_list *d = diag_list_new();
    buf b = BUF_INIT;
    OK(!deploy_check_target(site, build, site, d));
    buf e = BUF_INIT;
    buf_printf(&e, "sheaf: error: deploy target '%s' is the site folder or a folder above it: "
                   "syncing there would delete the site's own files; choose a folder of its own",
               site);
    EQ_STR(first_message(d, &b), e.data);
    OK(!deploy_check_target(site, build, tmp_root, d));
    diag_clear(d);
    OK(!deploy_check_target(site, build, "/", d));
    diag_clear(d);
    buf t = BUF_INIT;
    buf_printf(&t, "%s/../site/.", build);
    OK(!deploy_check_target(site, build, t.data, d));
    diag_clear(d);
    OK(!deploy_check_target(site, build, build, d));
    buf_reset(&e);
    buf_printf(&e, "sheaf: error: deploy target '%s' overlaps the build folder '%s'; choose "
                   "another folder",
               build, build);
    EQ_STR(first_message(d, &b), e.data);
    buf_reset(&t);
    buf_printf(&t, "%s/sub/new", build);
    OK(!deploy_check_target(site, build, t.data, d));
    diag_clear(d);
    buf_reset(&t);
    buf_printf(&t, "%s/content/www", site);
    OK(!deploy_check_target(site, build, t.data, d));
    buf_reset(&e);
    buf_printf(&e, "sheaf: error: deploy target '%s' is inside the site's content/ folder: the "
                   "next build would read the deployed files as sources; choose a folder "
                   "outside content/, static/, templates/, themes/ and data/",
               t.data);
    EQ_STR(first_message(d, &b), e.data);
    /* content/ a link to a folder elsewhere in the site (issue 34,
     * finding 2): a target there is inside the sources, whatever its name */
    diag_clear(d);
    buf_reset(&t);
    buf_printf(&t, "%s/src/content", site);
    OK(fs_mkdirs(t.data));
    buf l = BUF_INIT;
    buf_printf(&l, "%s/content", site);
    fs_rmtree(l.data);
    OK(symlink("src/content", l.data) == 0);
    OK(!deploy_check_target(site, build, t.data, d));
    buf_reset(&e);
    buf_printf(&e, "sheaf: error: deploy target '%s' is inside the site's content/ folder: the "
                   "next build would read the deployed files as sources; choose a folder "
                   "outside content/, static/, templates/, themes/ and data/",
               t.data);
    EQ_STR(first_message(d, &b), e.data);
    unlink(l.data);
    buf_release(&l);
    diag_clear(d);
    /* Fine: a folder of its own, even inside the site (like public/). */
    buf_reset(&t);
    buf_printf(&t, "%s/public", site);
    OK(deploy_check_target(site, build, t.data, d));
    OK(deploy_check_target(site, build, "/srv/www/notes-that-do-not-exist", d));
    EQ_INT(diag_count(d), 0);
    buf_release(&t);
    buf_release(&e);
    buf_release(&b);
    diag_list_free(d);
    free(site);
    free(build);
}

TEST(rsync_command)
{
    char **argv = deploy_rsync_argv(NULL, "/tmp/b", "host:/srv/www", false);
    buf b = BUF_INIT;
    for (char **a = argv; *a; a++)
        buf_printf(&b, "%s|", *a);
    EQ_STR(b.data, "rsync|-rlc|--delete|--delay-updates|-p|--chmod=D755,F644|--exclude=/.git|"
                   "--itemize-changes|--stats|--|/tmp/b/|host:/srv/www|");
    deploy_argv_free(argv);
    argv = deploy_rsync_argv("/usr/bin/rsync", "/tmp/b/", "h:x", true);
    buf_reset(&b);
    for (char **a = argv; *a; a++)
        buf_printf(&b, "%s|", *a);
    EQ_STR(b.data, "/usr/bin/rsync|-rlc|--delete|--delay-updates|-p|--chmod=D755,F644|"
                   "--exclude=/.git|--itemize-changes|--stats|--dry-run|--|/tmp/b/|h:x|");
    deploy_argv_free(argv);
    /* issue 19: no value can be an option: a source and a remote path
     * starting with '-' */
    argv = deploy_rsync_argv(NULL, "-b", "h:-x", false);
    buf_reset(&b);
    for (char **a = argv; *a; a++)
        buf_printf(&b, "%s|", *a);
    EQ_STR(b.data, "rsync|-rlc|--delete|--delay-updates|-p|--chmod=D755,F644|--exclude=/.git|"
                   "--itemize-changes|--stats|--|-b/|h:./-x|");
    deploy_argv_free(argv);
    argv = deploy_rsync_argv(NULL, "/b", "u@h::-m", false);
    EQ_STR(argv[11], "u@h::./-m");
    deploy_argv_free(argv);
    buf_release(&b);
}

/* issue 19: targets rsync (or the ssh it runs) would read as options */
TEST(rsync_refused_targets)
{
    OK(deploy_rsync_target_problem("host:/srv") == NULL);
    OK(deploy_rsync_target_problem("user@host:-x") == NULL); /* passed as ./-x */
    OK(deploy_rsync_target_problem("rsync://host/m/") == NULL);
    EQ_STR(deploy_rsync_target_problem("--list-only:x"),
           "it starts with '-', which rsync and ssh read as an option");
    EQ_STR(deploy_rsync_target_problem("u@-oProxyCommand=x:y"),
           "its host starts with '-', which ssh reads as an option");
    EQ_STR(deploy_rsync_target_problem("rsync://-x/m"),
           "its host starts with '-', which ssh reads as an option");
    EQ_STR(deploy_rsync_target_problem("h:/a\nb"), "it holds a control character");
    char *src = sub("t-src");
    put(src, "index.html", "hi");
    diag_list *d = diag_list_new();
    buf out = BUF_INIT, b = BUF_INIT;
    OK(!deploy_rsync(NULL, src, "-e:x", false, &out, d));
    EQ_STR(first_message(d, &b), "sheaf: error: refusing to deploy to '-e:x': it starts with '-', "
                                 "which rsync and ssh read as an option");
    diag_clear(d);
    OK(!deploy_rsync(NULL, src, "h:a\x07", false, &out, d));
    EQ_STR(first_message(d, &b), "sheaf: error: refusing to deploy to 'h:a\\x07': it holds a "
                                 "control character");
    buf_release(&out);
    buf_release(&b);
    diag_list_free(d);
    free(src);
}

/* issue 19: exit status 0 is not enough: an rsync that lists the source
 * (what a target read as an option once did) is not a deploy */
TEST(rsync_must_report_a_transfer)
{
    char *src = sub("f-src"), *fake = sub("fake-rsync.sh"), *fake2 = sub("fake-rsync2.sh");
    put(src, "index.html", "hi");
    put(tmp_root, "fake-rsync.sh",
        "#!/bin/sh\necho 'drwxr-xr-x          4,096 2026/11/24 00:59:51 .'\n"
        "echo '-rw-r--r--              2 2026/11/24 00:59:51 index.html'\nexit 0\n");
    put(tmp_root, "fake-rsync2.sh",
        "#!/bin/sh\necho '-rw-r--r--              2 2026/11/24 00:59:51 index.html'\necho\n"
        "echo 'Number of files: 1 (reg: 1)'\nexit 0\n");
    chmod(fake, 0755);
    chmod(fake2, 0755);
    diag_list *d = diag_list_new();
    buf out = BUF_INIT, b = BUF_INIT;
    const char *want = "sheaf: error: rsync to 'host:/x' exited 0 but did not report a transfer (no "
                       "itemized changes and summary), so nothing is known to be deployed";
    OK(!deploy_rsync(fake, src, "host:/x", false, &out, d));
    EQ_STR(first_message(d, &b), want);
    diag_clear(d);
    OK(!deploy_rsync(fake2, src, "host:/x", false, &out, d));
    EQ_STR(first_message(d, &b), want);
    buf_release(&out);
    buf_release(&b);
    diag_list_free(d);
    free(src);
    free(fake);
    free(fake2);
}

TEST(rsync_errors)
{
    char *src = sub("r-src");
    put(src, "index.html", "hi");
    diag_list *d = diag_list_new();
    buf out = BUF_INIT, b = BUF_INIT;
    OK(!deploy_rsync("/nonexistent/rsync", src, "host:/x", false, &out, d));
    EQ_STR(first_message(d, &b), "sheaf: error: cannot deploy to 'host:/x': rsync is not "
                                 "installed (install the rsync package, or deploy to a local "
                                 "folder)");
    /* An unreachable host, without waiting on DNS: the remote shell fails. */
    setenv("RSYNC_RSH", "false", 1);
    OK(!deploy_rsync(NULL, src, "nosuchhost.invalid:/x", false, &out, d));
    const char *msg = first_message(d, &b);
    const char *want = "sheaf: error: rsync to 'nosuchhost.invalid:/x' failed (exit status ";
    OK(!strncmp(msg, want, strlen(want)));
    /* rsync's own words; which of its two first lines comes out is a race
     * (a closed connection, or a broken pipe), the protocol error is not */
    OK(strstr(msg, "error in rsync protocol data stream") != NULL);
    unsetenv("RSYNC_RSH");
    buf_release(&out);
    buf_release(&b);
    diag_list_free(d);
    free(src);
}

TEST(rsync_through_a_local_shell)
{
    /* A "remote shell" that runs the command here stands in for ssh. */
    char *src = sub("s-src"), *dst = sub("s-dst"), *rsh = sub("rsh.sh");
    put(src, "index.html", "hi");
    put(src, "posts/a/index.html", "a");
    put(dst, "stale.html", "stale");
    put(dst, ".git/HEAD", "head");
    put(tmp_root, "rsh.sh", "#!/bin/sh\nshift\nexec \"$@\"\n");
    chmod(rsh, 0755);
    setenv("RSYNC_RSH", rsh, 1);
    diag_list *d = diag_list_new();
    buf out = BUF_INIT, target = BUF_INIT;
    buf_printf(&target, "localhost:%s", dst);
    OK(deploy_rsync(NULL, src, target.data, true, &out, d));
    OK(strstr(out.data, "*deleting   stale.html") != NULL);
    EQ_FILE(dst, "stale.html", "stale");
    buf_reset(&out);
    OK(deploy_rsync(NULL, src, target.data, false, &out, d));
    EQ_INT(diag_count(d), 0);
    /* the changes, not rsync's summary */
    OK(strstr(out.data, "<f+++++++++ posts/a/index.html\n") != NULL);
    OK(strstr(out.data, "Number of files") == NULL);
    char *t = tree(dst);
    EQ_STR(t, ".git/\n.git/HEAD\nindex.html\nposts/\nposts/a/\nposts/a/index.html\n");
    free(t);
    /* a remote path starting with '-' is a path (./-dst), not an option */
    char cwd[4096];
    OK(getcwd(cwd, sizeof cwd) != NULL);
    OK(chdir(tmp_root) == 0);
    OK(deploy_rsync(NULL, src, "localhost:-dst", false, &out, d));
    EQ_INT(diag_count(d), 0);
    char *dash = sub("-dst");
    t = tree(dash);
    EQ_STR(t, "index.html\nposts/\nposts/a/\nposts/a/index.html\n");
    free(t);
    free(dash);
    OK(chdir(cwd) == 0);
    unsetenv("RSYNC_RSH");
    buf_release(&out);
    buf_release(&target);
    diag_list_free(d);
    free(src);
    free(dst);
    free(rsh);
}

int main(void)
{
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(remote_or_local);
    RUN(plan_and_apply);
    RUN(missing_target_is_created);
    RUN(interrupted_apply_leaves_complete_files);
    RUN(symlinks_in_target_are_not_followed);
    RUN(files_sheaf_did_not_write);
    RUN(target_safety);
    RUN(rsync_command);
    RUN(rsync_refused_targets);
    RUN(rsync_must_report_a_transfer);
    RUN(rsync_errors);
    RUN(rsync_through_a_local_shell);
    fs_rmtree(tmp_root);
    return harness_done();
}
