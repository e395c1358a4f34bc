/* cmd_render: `sheaf render TEMPLATE --data FILE.yaml [--templates DIR]` —
 * renders one template with the YAML file's top-level keys as variables and
 * prints the result. For theme authors, and how the template language is
 * tested against Jinja2. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fm/fm.h"
#include "render/build.h"
#include "tpl/tpl.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"

#define USAGE(f) cli_print_usage(f, cli_command_find("render"))

/* One rendering: the template, its loader and variables, and where the
 * result and the problems go. */
typedef struct render_one {
    const tpl_template *t;
    tpl_loader *l;
    tpl_value vars;
    tpl_options opt;
    buf *out;
    diag_list *d;
    bool ok, ran;
} render_one;

/* Renders r; with a site (`-s`), `site` is its value, as in a build. */
static void render_with(render_one *r, const tpl_value *site)
{
    arena *scratch = arena_new();
    const tpl_map *vars = r->vars.kind == TPL_MAP ? r->vars.u.map : NULL;
    if (site) {
        tpl_map *m = tpl_map_new(scratch, (vars ? vars->len : 0) + 1);
        for (size_t i = 0; vars && i < vars->len; i++)
            tpl_map_set(scratch, m, vars->entries[i].key, vars->entries[i].value);
        tpl_map_set_str(scratch, m, "site", *site);
        vars = m;
    }
    r->ok = tpl_render(r->t, r->l, vars, &r->opt, NULL, scratch, r->out, r->d);
    r->ran = true;
    arena_free(scratch);
}

static void on_model(void *ctx, const struct tpl_value *site) { render_with(ctx, site); }

int cli_render(int argc, char **argv)
{
    const char *data = NULL, *dir = NULL, *base_url = "/", *tpath = NULL, *site = NULL;
    cli_opts opts = { cli_command_find("render"), "sheaf render", argc, 1, argv, true };
    const cli_flag *f;
    const char *v;
    int kind, st;
    while ((kind = cli_next_opt(&opts, &f, &v, &st)) != CLI_OPT_END) {
        if (kind == CLI_OPT_EXIT)
            return st;
        if (kind == CLI_OPT_OPERAND) {
            if (tpath)
                return cli_usage_error(opts.c, "expected one TEMPLATE");
            tpath = v;
        } else if (!strcmp(f->long_name, "data")) {
            data = v;
        } else if (!strcmp(f->long_name, "templates")) {
            dir = v;
        } else if (!strcmp(f->long_name, "base-url")) {
            base_url = v;
        } else if (!strcmp(f->long_name, "site")) {
            site = v;
        }
    }
    if (!tpath)
        return cli_usage_error(opts.c, "expected one TEMPLATE");
    if (site && cli_need_site_dir(site))
        return 2;
    diag_list *d = diag_list_new();
    arena *a = arena_new();
    int status = 1;
    tpl_loader *l = NULL;
    buf text = BUF_INIT, out = BUF_INIT, yaml = BUF_INIT;

    /* the template is named by its path relative to the lookup folder */
    char *folder = NULL;
    const char *name = tpath;
    const char *slash = strrchr(tpath, '/');
    if (dir) {
        size_t dl = strlen(dir);
        while (dl > 1 && dir[dl - 1] == '/')
            dl--;
        if (!strncmp(tpath, dir, dl) && tpath[dl] == '/')
            name = tpath + dl + 1;
        else if (slash)
            name = slash + 1;
        folder = xstrdup(dir);
    } else if (slash) {
        folder = xstrndup(tpath, (size_t)(slash - tpath));
        name = slash + 1;
    } else {
        folder = xstrdup(".");
    }

    tpl_value vars = tpl_undefined();
    if (data) {
        /* named on the command line, so a pipe is fine (`--data <(…)`) */
        int fd = open(data, O_RDONLY | O_CLOEXEC);
        bool read = fd >= 0 && fs_read_fd(fd, &yaml);
        int e = errno;
        if (fd >= 0)
            close(fd);
        if (!read) {
            diag_error(d, data, 0, 0, "cannot read: %s", fs_strerror(e));
            goto done;
        }
        if (!fm_parse_yaml(str_make(yaml.data, yaml.len), 1, data, a, &vars, d))
            goto done;
        if (vars.kind != TPL_MAP) {
            diag_error(d, data, 1, 1, "the data file must hold a mapping of variable names");
            goto done;
        }
    }
    if (!fs_read_file(tpath, &text)) {
        diag_error(d, tpath, 0, 0, "cannot read: %s", fs_strerror(errno));
        goto done;
    }
    const char *dirs[1] = { folder };
    l = tpl_loader_new(dirs, 1, true);
    const tpl_template *t = tpl_load(l, name, d);
    if (!t)
        goto done;
    render_one r = { .t = t, .l = l, .vars = vars, .opt = { .base_url = base_url }, .out = &out, .d = d };
    if (site) {
        /* the site read, parsed and modelled as `sheaf check` does it,
         * nothing written; the template renders with its value */
        build_options bo = { .site_dir = site, .write = false, .no_cache = true, .on_model = on_model,
                             .on_model_ctx = &r };
        if (!build_site(&bo, d, NULL) && !r.ran)
            goto done;
    } else {
        render_with(&r, NULL);
    }
    bool ok = r.ran && r.ok;
    if (ok) {
        fwrite(out.data, 1, out.len, stdout);
        status = 0;
    }
done:
    cli_print_diags(d);
    if (status && !diag_error_count(d) && !text.len)
        status = 1;
    diag_list_free(d);
    tpl_loader_free(l);
    arena_free(a);
    buf_release(&text);
    buf_release(&out);
    buf_release(&yaml);
    free(folder);
    return status;
}
