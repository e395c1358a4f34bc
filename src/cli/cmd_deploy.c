/* cmd_deploy: `sheaf deploy` — build the site into a fresh folder, then
 * sync that folder to `deploy.target` from site.yaml (a local folder, or an
 * rsync destination host:path). A failed build deploys nothing. The output
 * always holds a `.nojekyll` file so GitHub Pages serves it as it is. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "deploy/deploy.h"
#include "render/build.h"
#include "site/site.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"

#define USAGE(f) cli_print_usage(f, cli_command_find("deploy"))

static char *join2(const char *dir, const char *rel)
{
    buf b = BUF_INIT;
    if (rel[0] != '/' && dir && strcmp(dir, "."))
        buf_printf(&b, "%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/");
    buf_puts(&b, rel);
    return buf_detach(&b, NULL);
}

/* Adds an empty .nojekyll to the output unless the site made one. */
static bool add_nojekyll(const char *out_dir, diag_list *d)
{
    char *p = join2(out_dir, ".nojekyll");
    struct stat st;
    bool ok = true;
    if (stat(p, &st) != 0) {
        FILE *f = fopen(p, "w");
        if (!f || fclose(f) != 0) {
            diag_error(d, p, 0, 0, "cannot create: %s", strerror(errno));
            ok = false;
        }
    }
    free(p);
    return ok;
}

/* Builds and syncs; returns true on success. */
static bool run_deploy(const char *site, const char *base_url, bool dry_run, bool force,
                       bool quiet, diag_list *d)
{
    char *site_yaml = join2(site, "site.yaml");
    /* deploy.target as the build reads it, with the same checks and messages */
    arena *a = arena_new();
    site_config cfg;
    bool ok = site_config_load(site, base_url, a, &cfg, d);
    if (ok)
        cli_warn_no_host(site, base_url, d);
    buf target = BUF_INIT;
    if (ok && cfg.deploy_target)
        buf_puts(&target, cfg.deploy_target);
    arena_free(a);
    if (ok && target.len == 0) {
        diag_error(d, site_yaml, 0, 0,
                   "no deploy target: set deploy.target in site.yaml to a folder or to an "
                   "rsync destination host:path");
        ok = false;
    }
    bool remote = ok && deploy_is_remote(target.data);
    char *dest = ok ? (remote ? xstrdup(target.data) : join2(site, target.data)) : NULL;

    buf tmp = BUF_INIT;
    bool have_tmp = ok && cli_scratch_dir("deploy", site, &tmp, d);
    ok = ok && have_tmp;
    char *out_dir = have_tmp ? join2(tmp.data, "public") : NULL;
    if (ok && !remote)
        ok = deploy_check_target(site, tmp.data, dest, d);
    if (ok) {
        build_options bo = { 0 };
        bo.site_dir = site;
        bo.out_dir = out_dir;
        bo.base_url = base_url;
        bo.write = true;
        if (!build_site(&bo, d, NULL)) {
            cli_print_diags(d); /* the build's own errors first */
            diag_clear(d);
            diag_error(d, NULL, 0, 0, "the build failed, so nothing was deployed");
            ok = false;
        }
    }
    if (ok)
        ok = add_nojekyll(out_dir, d);
    buf msg = BUF_INIT;
    if (ok && remote) {
        ok = deploy_rsync(NULL, out_dir, dest, dry_run, &msg, d);
        if (ok && !quiet) {
            fputs(msg.data, stdout);
            printf("%s to %s with rsync\n", dry_run ? "would deploy" : "deployed", dest);
        }
    } else if (ok) {
        deploy_plan p = DEPLOY_PLAN_INIT;
        ok = deploy_plan_make(out_dir, dest, force, &p, d);
        if (ok && dry_run)
            deploy_plan_list(&p, &msg);
        if (ok && !dry_run)
            ok = deploy_apply(out_dir, dest, &p, 0, d);
        if (ok) {
            deploy_plan_summary(&p, dest, dry_run, &msg);
            if (!quiet)
                printf("%s\n", msg.data);
        }
        deploy_plan_free(&p);
    }
    if (have_tmp)
        fs_rmtree(tmp.data);
    buf_release(&msg);
    buf_release(&tmp);
    buf_release(&target);
    free(out_dir);
    free(dest);
    free(site_yaml);
    return ok;
}

/* `sheaf deploy [-s DIR] [--dry-run] [--base-url URL] [-q]`: argv[0] is
 * "deploy". Returns the exit status (0 ok, 1 errors, 2 usage). */
int cli_deploy(int argc, char **argv)
{
    const char *site = ".", *base_url = NULL;
    bool dry_run = false, quiet = false, force = false;
    cli_opts o = { cli_command_find("deploy"), "sheaf deploy", argc, 1, argv, false };
    const cli_flag *f;
    const char *v;
    int kind, status;
    while ((kind = cli_next_opt(&o, &f, &v, &status)) != CLI_OPT_END) {
        if (kind == CLI_OPT_EXIT)
            return status;
        if (!strcmp(f->long_name, "site"))
            site = v;
        else if (!strcmp(f->long_name, "base-url"))
            base_url = v;
        else if (!strcmp(f->long_name, "dry-run"))
            dry_run = true;
        else if (!strcmp(f->long_name, "force"))
            force = true;
        else if (!strcmp(f->long_name, "quiet"))
            quiet = true;
    }
    if (cli_need_site_dir(site))
        return 2;
    diag_list *d = diag_list_new();
    bool ok = run_deploy(site, base_url, dry_run, force, quiet, d);
    cli_print_diags(d);
    diag_list_free(d);
    return ok ? 0 : 1;
}
