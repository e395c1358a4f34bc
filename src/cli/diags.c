/* diags: printing diagnostics for every command. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "site/site.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/fs.h"

bool cli_color(void)
{
    const char *nc = getenv("NO_COLOR");
    return isatty(2) && !(nc && *nc);
}

void cli_print_diags(diag_list *d)
{
    diag_sort(d);
    diag_print(d, stderr, cli_color());
}

int cli_usage_error(const cli_command *c, const char *fmt, ...)
{
    buf msg = BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    diag_list *d = diag_list_new();
    diag_error(d, NULL, 0, 0, "%s", msg.data);
    cli_print_diags(d);
    diag_list_free(d);
    buf_release(&msg);
    if (c)
        fprintf(stderr, "usage: %s\n(`sheaf %s --help` describes every option)\n", c->usage, c->name);
    else
        fputs("(`sheaf --help` lists the commands)\n", stderr);
    return 2;
}

int cli_need_site_dir(const char *dir)
{
    if (fs_is_dir(dir))
        return 0;
    diag_list *d = diag_list_new();
    diag_error(d, NULL, 0, 0, "%s: no such folder (give the site folder with -s DIR)", dir);
    cli_print_diags(d);
    diag_list_free(d);
    return 2;
}

void cli_warn_no_host(const char *site_dir, const char *base_url, diag_list *d)
{
    arena *a = arena_new();
    diag_list *scratch = diag_list_new(); /* the build reports the file's problems */
    site_config cfg;
    if (site_config_load(site_dir, base_url, a, &cfg, scratch) && !*cfg.origin) {
        int line, col;
        site_config_key_place(&cfg, "base_url", &line, &col);
        char *path = strcmp(site_dir, ".") ? fs_join(site_dir, "site.yaml") : NULL;
        diag_warning(d, path ? path : "site.yaml", line, col,
                     "base_url has no scheme and host: the feed, the sitemap and link previews "
                     "need absolute URLs; set base_url: https://… (or build with --base-url)");
        free(path);
    }
    diag_list_free(scratch);
    arena_free(a);
}
