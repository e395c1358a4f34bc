/* deploy_rsync: syncing a fresh build to a remote `host:path` with rsync.
 *
 * The options, and why:
 *   -r -l       the whole tree, symbolic links as links;
 *   -c          compare by checksum: the build folder is fresh, so every
 *               mtime is new and rsync's size+mtime check would resend all;
 *   (no -t)     unchanged files keep their mtime on the server (caches,
 *               ETags), changed ones get the time they arrived;
 *   --delete    remove what the build no longer produces;
 *   --delay-updates  put all updated files in place at the end, so readers
 *               see the old or the new site, rarely a mix;
 *   -p --chmod=D755,F644  a web root readable by the server whatever the
 *               local umask;
 *   --exclude=/.git  never touch a checkout's .git at the target's top;
 *   --itemize-changes --stats  one line per change, then the counts: the
 *               proof that rsync did transfer (below);
 *   --          before SRC and TARGET, so neither can be read as an option.
 * rsync runs without a shell (posix_spawnp); its stderr is captured for the
 * error message, its stdout (the list of changes) passed on.
 *
 * A target rsync would read as something else is refused before it runs: a
 * host starting with '-' (rsync hands it to ssh, which would take it as an
 * option: `-oProxyCommand=…:x`) and control characters; a remote path
 * starting with '-' is passed as ./-path. Exit status 0 alone is not
 * trusted (a target read as an option once made rsync list the source and
 * exit 0): the output must be itemized changes followed by rsync's
 * "Number of files:" summary, or the deploy is an error. */
#include "deploy/deploy.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/xalloc.h"

extern char **environ;

char **deploy_rsync_argv(const char *rsync, const char *src, const char *target, bool dry_run)
{
    const char *fixed[] = { "-rlc", "--delete", "--delay-updates", "-p", "--chmod=D755,F644",
                            "--exclude=/.git", "--itemize-changes", "--stats" };
    size_t nfixed = sizeof fixed / sizeof fixed[0];
    char **argv = xcalloc(nfixed + 6, sizeof *argv);
    size_t n = 0;
    argv[n++] = xstrdup(rsync ? rsync : "rsync");
    for (size_t i = 0; i < nfixed; i++)
        argv[n++] = xstrdup(fixed[i]);
    if (dry_run)
        argv[n++] = xstrdup("--dry-run");
    argv[n++] = xstrdup("--");
    /* A trailing '/' copies the folder's contents, not the folder. */
    size_t sl = strlen(src);
    char *s = xmalloc(sl + 2);
    memcpy(s, src, sl);
    s[sl] = '/';
    s[sl + 1] = '\0';
    if (sl && src[sl - 1] == '/')
        s[sl] = '\0';
    argv[n++] = s;
    /* host:-path → host:./-path (the remote rsync reads its paths too) */
    const char *colon = strncmp(target, "rsync://", 8) ? strchr(target, ':') : NULL;
    const char *path = colon ? colon + 1 + (colon[1] == ':') : NULL;
    if (path && path[0] == '-') {
        buf t = BUF_INIT;
        buf_printf(&t, "%.*s./%s", (int)(path - target), target, path);
        argv[n++] = buf_detach(&t, NULL);
    } else {
        argv[n++] = xstrdup(target);
    }
    argv[n] = NULL;
    return argv;
}

const char *deploy_rsync_target_problem(const char *target)
{
    for (const char *p = target; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return "it holds a control character";
    if (target[0] == '-')
        return "it starts with '-', which rsync and ssh read as an option";
    const char *host = target;
    if (!strncmp(target, "rsync://", 8))
        host += 8;
    const char *at = strchr(host, '@'), *colon = strchr(host, ':');
    if (at && (!colon || at < colon))
        host = at + 1;
    if (host[0] == '-')
        return "its host starts with '-', which ssh reads as an option";
    return NULL;
}

/* Whether rsync's stdout (from `from` on) is what --itemize-changes
 * --stats make — change lines, then the summary — and not, say, a listing
 * of the source; cuts the summary off `out` (the change lines stay). */
static bool transferred(buf *out, size_t from)
{
    const char *p = out->data + from, *end = out->data + out->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (n >= 16 && !strncmp(p, "Number of files:", 16)) {
            size_t at = (size_t)(p - out->data);
            while (at > from && out->data[at - 1] == '\n' && (at - 1 == from || out->data[at - 2] == '\n'))
                at--; /* the blank line before it */
            buf_truncate(out, at);
            return true;
        }
        bool change = n == 0 || (n > 18 && !strncmp(p, "created directory ", 18)) ||
                      (n > 10 && !strncmp(p, "*deleting ", 10)) ||
                      (n > 12 && strchr("<>ch.*", p[0]) && strchr("fdLDS", p[1]) && p[1]);
        if (!change)
            return false;
        p = nl ? nl + 1 : end;
    }
    return false;
}

void deploy_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

/* Reads both pipes until both close. */
static void drain(int fo, int fe, buf *out, buf *err)
{
    struct pollfd pf[2] = { { fo, POLLIN, 0 }, { fe, POLLIN, 0 } };
    char chunk[4096];
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (pf[i].fd < 0 || !pf[i].revents)
                continue;
            ssize_t n = read(pf[i].fd, chunk, sizeof chunk);
            if (n > 0) {
                buf_put(i == 0 ? out : err, chunk, (size_t)n);
            } else if (n == 0 || errno != EINTR) {
                close(pf[i].fd);
                pf[i].fd = -1;
                open_fds--;
            }
        }
    }
}

bool deploy_rsync(const char *rsync, const char *src, const char *target, bool dry_run, buf *out,
                  diag_list *d)
{
    const char *why = deploy_rsync_target_problem(target);
    if (why) {
        buf q = BUF_INIT;
        for (const char *p = target; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                buf_printf(&q, "\\x%02x", (unsigned char)*p);
            else
                buf_putc(&q, *p);
        diag_error(d, NULL, 0, 0, "refusing to deploy to '%s': %s", q.data, why);
        buf_release(&q);
        return false;
    }
    size_t from = out->len;
    char **argv = deploy_rsync_argv(rsync, src, target, dry_run);
    int po[2], pe[2];
    if (pipe2(po, O_CLOEXEC) != 0) {
        diag_error(d, NULL, 0, 0, "cannot run rsync: %s", strerror(errno));
        deploy_argv_free(argv);
        return false;
    }
    if (pipe2(pe, O_CLOEXEC) != 0) {
        diag_error(d, NULL, 0, 0, "cannot run rsync: %s", strerror(errno));
        close(po[0]);
        close(po[1]);
        deploy_argv_free(argv);
        return false;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]);
    close(pe[1]);
    bool ok = false;
    buf err = BUF_INIT;
    if (rc != 0) {
        close(po[0]);
        close(pe[0]);
        if (rc == ENOENT)
            diag_error(d, NULL, 0, 0,
                       "cannot deploy to '%s': rsync is not installed (install the rsync "
                       "package, or deploy to a local folder)",
                       target);
        else
            diag_error(d, NULL, 0, 0, "cannot run rsync: %s", strerror(rc));
    } else {
        drain(po[0], pe[0], out, &err);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        /* Keep rsync's own words, on one line. */
        while (err.len && (err.data[err.len - 1] == '\n' || err.data[err.len - 1] == ' '))
            buf_truncate(&err, err.len - 1);
        for (size_t i = 0; i < err.len; i++)
            if (err.data[i] == '\n')
                err.data[i] = ' ';
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            ok = transferred(out, from);
            if (!ok)
                diag_error(d, NULL, 0, 0,
                           "rsync to '%s' exited 0 but did not report a transfer (no itemized changes "
                           "and summary), so nothing is known to be deployed",
                           target);
        }
        else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            diag_error(d, NULL, 0, 0,
                       "cannot deploy to '%s': rsync is not installed (install the rsync "
                       "package, or deploy to a local folder)",
                       target);
        else if (WIFEXITED(status))
            diag_error(d, NULL, 0, 0, "rsync to '%s' failed (exit status %d): %s", target,
                       WEXITSTATUS(status), err.len ? err.data : "no message");
        else
            diag_error(d, NULL, 0, 0, "rsync to '%s' was killed by signal %d", target,
                       WTERMSIG(status));
    }
    buf_release(&err);
    deploy_argv_free(argv);
    return ok;
}
