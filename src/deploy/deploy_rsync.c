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
 *   --exclude=/.git  never touch a checkout's .git at the target's top.
 * rsync runs without a shell (posix_spawnp); its stderr is captured for the
 * error message, its stdout (the --dry-run listing) passed on. */
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
                            "--exclude=/.git" };
    size_t nfixed = sizeof fixed / sizeof fixed[0];
    char **argv = xcalloc(nfixed + 6, sizeof *argv);
    size_t n = 0;
    argv[n++] = xstrdup(rsync ? rsync : "rsync");
    for (size_t i = 0; i < nfixed; i++)
        argv[n++] = xstrdup(fixed[i]);
    if (dry_run) {
        argv[n++] = xstrdup("--dry-run");
        argv[n++] = xstrdup("--itemize-changes");
    }
    /* A trailing '/' copies the folder's contents, not the folder. */
    size_t sl = strlen(src);
    char *s = xmalloc(sl + 2);
    memcpy(s, src, sl);
    s[sl] = '/';
    s[sl + 1] = '\0';
    if (sl && src[sl - 1] == '/')
        s[sl] = '\0';
    argv[n++] = s;
    argv[n++] = xstrdup(target);
    argv[n] = NULL;
    return argv;
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
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
            ok = true;
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
