/* cmd_serve: `sheaf serve` — build into a private temporary folder with
 * base_url set to the server's own address, serve it (serve/serve.h), and
 * rebuild what changed whenever the watcher (serve/watch.h) reports a
 * quiet moment after edits. The loop is kept thin: it only waits, builds,
 * prints and reports to the server. SIGINT and SIGTERM arrive through a
 * signalfd (blocked in every thread), so they end the wait cleanly: the
 * server stops, connections close, and the temporary folder is removed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "render/build.h"
#include "serve/serve.h"
#include "serve/watch.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"

#define USAGE(f) cli_print_usage(f, cli_command_find("serve"))

extern char **environ;

static double ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Opens url in the desktop's browser, without waiting for it. */
static void open_browser(const char *url)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = { (char *)"xdg-open", (char *)url, NULL };
    pid_t pid;
    if (posix_spawnp(&pid, "xdg-open", &fa, NULL, argv, environ) != 0) {
        diag_list *d = diag_list_new();
        diag_warning(d, NULL, 0, 0, "cannot open a browser (xdg-open); visit %s", url);
        cli_print_diags(d);
        diag_list_free(d);
    }
    posix_spawn_file_actions_destroy(&fa);
}

/* Describes what changed, for the rebuild line: "content/a.md (+2 more)". */
static void describe(const watch_changes *c, buf *out)
{
    if (c->full || c->n == 0) {
        buf_puts(out, "full rebuild");
        return;
    }
    buf_puts(out, c->paths[0]);
    if (c->n > 1)
        buf_printf(out, " (+%zu more)", c->n - 1);
}

static bool parse_port(const char *s, int *port)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > 65535)
        return false;
    *port = (int)v;
    return true;
}

/* The whole of `sheaf serve` once its options are parsed: a private
 * output folder, the first build, the server and the watcher, then the
 * loop (wait for a quiet moment after edits or a signal, rebuild through
 * the build session, report to the server), and the clean-up. Returns the
 * exit status. */
/* The server's output lock, for build_session_finish's commit. */
static void commit_lock(void *ctx, bool take)
{
    if (take)
        serve_server_lock_output(ctx);
    else
        serve_server_unlock_output(ctx);
}

/* Arms the timer for `when` (Unix seconds; 0: disarms it), a tenth of a
 * second late: time(), the build's clock, may lag the timer's clock by a
 * tick, and a run a moment early would find nothing due yet. */
static void arm_timer(int tfd, long long when)
{
    struct itimerspec it = { { 0, 0 }, { (time_t)when, when ? 100000000 : 0 } };
    if (tfd >= 0)
        timerfd_settime(tfd, TFD_TIMER_ABSTIME, &it, NULL);
}

static int serve(const char *site, const char *bind_addr, int port, bool drafts, bool future, bool no_cache,
                 bool open_it, bool stats)
{
    int status = 1;
    diag_list *d = diag_list_new();
    struct stat st;
    if (stat(site, &st) != 0 || !S_ISDIR(st.st_mode)) {
        diag_error(d, site, 0, 0, "not a site folder: %s",
                   errno == ENOENT ? "no such folder" : strerror(errno));
        cli_print_diags(d);
        diag_list_free(d);
        return 1;
    }
    char *site_abs = realpath(site, NULL);

    /* Blocked here, before any thread exists, so every thread inherits it
     * and the signals queue for the signalfd. */
    sigset_t sigs, old;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, &old);
    signal(SIGPIPE, SIG_IGN);
    int sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);

    buf tmp = BUF_INIT, out = BUF_INIT;
    bool have_tmp = cli_scratch_dir("serve", site, &tmp, d);
    char *url = NULL;
    build_session *bs = NULL;
    watch *w = NULL;
    serve_server *srv = NULL;
    int fd = -1;
    if (!have_tmp)
        goto done;
    buf_printf(&out, "%s/public", tmp.data);

    fd = serve_listen(bind_addr, port, &url, d);
    if (fd < 0)
        goto done;
    w = watch_new(site, d);
    if (!w)
        goto done;

    build_options bo = { 0 };
    bo.site_dir = site;
    bo.out_dir = out.data;
    bo.base_url = url;
    bo.drafts = drafts;
    bo.future = future;
    bo.no_cache = no_cache;
    bo.write = true;
    bo.defer_index = true; /* the edited page first, the search index after */
    bs = build_session_new(&bo);

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    build_stats bst = { 0 };
    bool ok = build_session_run(bs, NULL, 0, d, &bst);
    cli_print_diags(d);
    if (ok)
        printf("Built %zu pages in %.0f ms\n", bst.pages, ms_since(&t0));
    else
        printf("Build failed in %.0f ms (%zu error%s); serving an error page until it is fixed\n",
               ms_since(&t0), diag_error_count(d), diag_error_count(d) == 1 ? "" : "s");

    srv = serve_server_start(out.data, fd, bind_addr, d);
    fd = -1; /* the server owns it, even when starting failed */
    if (!srv)
        goto done;
    build_session_set_commit_lock(bs, commit_lock, srv);
    serve_server_set_site(srv, site);
    serve_server_report(srv, ok, d, NULL, 0);
    diag_clear(d);
    printf("Serving %s at %s (Ctrl-C to stop)\n", site_abs ? site_abs : site, url);
    fflush(stdout);
    if (open_it)
        open_browser(url);

    /* The watcher stops waiting for a signal or for the clock: a scheduled
     * post coming due (or a page expiring) makes a full run, on the
     * session's caches. One epoll fd stands for both. */
    int tfd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
    int efd = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN };
    if (efd >= 0 && tfd >= 0 && epoll_ctl(efd, EPOLL_CTL_ADD, tfd, &ev) == 0 &&
        epoll_ctl(efd, EPOLL_CTL_ADD, sfd, &ev) == 0) {
        arm_timer(tfd, bst.next_change);
    } else {
        if (efd >= 0)
            close(efd);
        efd = -1; /* no timer: rebuilt on the next edit */
    }
    watch_changes ch = WATCH_CHANGES_INIT;
    for (;;) {
        watch_result r = watch_wait(w, efd >= 0 ? efd : sfd, 30, &ch, d);
        uint64_t ticks;
        if (r == WATCH_STOP && tfd >= 0 && read(tfd, &ticks, sizeof ticks) == (ssize_t)sizeof ticks) {
            clock_gettime(CLOCK_MONOTONIC, &t0);
            serve_server_lock_output(srv);
            ok = build_session_rerun(bs, d, &bst);
            serve_server_unlock_output(srv);
            cli_print_diags(d);
            if (ok)
                printf("Rebuilt in %.0f ms: a scheduled post came due or a page expired\n", ms_since(&t0));
            else
                printf("Rebuild failed (%zu error%s); still serving the last good build\n",
                       diag_error_count(d), diag_error_count(d) == 1 ? "" : "s");
            fflush(stdout);
            serve_server_report(srv, ok, d, NULL, 0);
            diag_clear(d);
            arm_timer(tfd, bst.next_change);
            continue;
        }
        if (r == WATCH_STOP)
            break;
        if (r == WATCH_ERROR) {
            watch_changes_free(&ch);
            goto done;
        }
        const char *const *paths = ch.full ? NULL : (const char *const *)ch.paths;
        size_t n = ch.full ? 0 : ch.n;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        serve_server_lock_output(srv);
        ok = build_session_run(bs, ch.full ? NULL : paths, n, d, &bst);
        serve_server_unlock_output(srv);
        double ms = ms_since(&t0);
        buf what = BUF_INIT;
        describe(&ch, &what);
        cli_print_diags(d);
        size_t nerr = diag_error_count(d);
        if (ok)
            printf("Rebuilt in %.0f ms: %s\n", ms, what.data);
        else
            printf("Rebuild failed in %.0f ms (%zu error%s): %s; still serving the last good "
                   "build\n",
                   ms, nerr, nerr == 1 ? "" : "s", what.data);
        if (stats)
            cli_print_stats(&bst);
        fflush(stdout);
        serve_server_report(srv, ok, d, paths, n);
        diag_clear(d);
        buf_release(&what);
        if (ok) {
            /* the browser reloads the page meanwhile; then what no page
             * shows (the search index), which reads every page: rendered
             * while requests are answered, committed under the output
             * lock like every other write (build_session_set_commit_lock) */
            bool done = build_session_finish(bs, d);
            if (!done) {
                cli_print_diags(d);
                printf("Rebuild failed (%zu error%s) writing the search index; still serving the "
                       "last good one\n",
                       diag_error_count(d), diag_error_count(d) == 1 ? "" : "s");
                fflush(stdout);
                serve_server_report(srv, false, d, NULL, 0);
            }
            diag_clear(d);
        }
        arm_timer(tfd, bst.next_change);
    }
    watch_changes_free(&ch);
    if (efd >= 0)
        close(efd);
    if (tfd >= 0)
        close(tfd);
    printf("Stopped.\n");
    status = 0;
done:
    cli_print_diags(d);
    serve_server_stop(srv);
    if (fd >= 0)
        close(fd);
    build_session_free(bs);
    watch_free(w);
    if (have_tmp)
        fs_rmtree(tmp.data);
    if (sfd >= 0) {
        /* Take the signals that stopped us, so unblocking them below does
         * not deliver them again. */
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
            ;
        close(sfd);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    buf_release(&tmp);
    buf_release(&out);
    free(url);
    free(site_abs);
    diag_list_free(d);
    return status;
}

/* `sheaf serve [-s DIR] [--port N] [--bind ADDR] [--drafts] [--future] [--open] [--no-cache] [--stats]`:
 * argv[0] is "serve". Returns the exit status (0 after Ctrl-C, 1 errors,
 * 2 usage). */
int cli_serve(int argc, char **argv)
{
    const char *site = ".", *bind_addr = "127.0.0.1";
    int port = 8000;
    bool drafts = false, future = false, no_cache = false, open_it = false, stats = false;
    cli_opts o = { cli_command_find("serve"), "sheaf serve", argc, 1, argv, false };
    const cli_flag *f;
    const char *v;
    int kind, status;
    while ((kind = cli_next_opt(&o, &f, &v, &status)) != CLI_OPT_END) {
        if (kind == CLI_OPT_EXIT)
            return status;
        if (!strcmp(f->long_name, "site"))
            site = v;
        else if (!strcmp(f->long_name, "bind"))
            bind_addr = v;
        else if (!strcmp(f->long_name, "drafts"))
            drafts = true;
        else if (!strcmp(f->long_name, "future"))
            future = true;
        else if (!strcmp(f->long_name, "no-cache"))
            no_cache = true;
        else if (!strcmp(f->long_name, "open"))
            open_it = true;
        else if (!strcmp(f->long_name, "stats"))
            stats = true;
        else if (!strcmp(f->long_name, "port") && !parse_port(v, &port)) {
            return cli_usage_error(o.c, "--port wants a number from 0 to 65535, not '%s'", v);
        }
    }
    if (cli_need_site_dir(site))
        return 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    return serve(site, bind_addr, port, drafts, future, no_cache, open_it, stats);
}
