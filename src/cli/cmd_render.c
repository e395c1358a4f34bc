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
#include "tpl/tpl.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"

#define USAGE(f) cli_print_usage(f, cli_command_find("render"))

int cli_render(int argc, char **argv)
{
    const char *data = NULL, *dir = NULL, *base_url = "/", *tpath = NULL;
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
        }
    }
    if (!tpath)
        return cli_usage_error(opts.c, "expected one TEMPLATE");
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
    tpl_options opt = { .base_url = base_url };
    arena *scratch = arena_new();
    bool ok = tpl_render(t, l, vars.kind == TPL_MAP ? vars.u.map : NULL, &opt, NULL, scratch, &out, d);
    arena_free(scratch);
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
