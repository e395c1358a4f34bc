/* cmd_theme: `sheaf theme export [NAME…] [-s DIR] [--force]` — writes the
 * built-in default theme's templates (every one, or those named) into the
 * site's templates/, where they win over the theme's, so they can be
 * edited: what docs/theme.md means by "copy one from the theme". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "embed/embed.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* The embedded template NAME names ("post.html", "partials/toc.html", or
 * with templates/ before it), or NULL. */
static const embed_file *find_template(const char *name)
{
    if (!strncmp(name, "templates/", 10))
        name += 10;
    buf path = BUF_INIT;
    buf_printf(&path, "templates/%s", name);
    const embed_file *f = embed_find(path.data);
    buf_release(&path);
    return f;
}

/* Writes one template to site/templates/<name>; refuses to replace a file
 * unless force. */
static bool export_one(const char *site, const embed_file *f, bool force, diag_list *d)
{
    char *path = fs_join(site, f->path); /* f->path starts with templates/ */
    struct stat st;
    bool ok = true;
    if (!force && lstat(path, &st) == 0) {
        diag_error(d, path, 0, 0,
                   "exists: left as it is (it may hold your edits; --force replaces it with the "
                   "theme's)");
        ok = false;
    } else {
        char *dir = xstrdup(path);
        *strrchr(dir, '/') = 0;
        if (!fs_mkdirs(dir) || !fs_write_file(path, f->data, f->len)) {
            diag_error(d, path, 0, 0, "cannot write: %s", strerror(errno));
            ok = false;
        } else {
            printf("%s\n", path);
        }
        free(dir);
    }
    free(path);
    return ok;
}

int cli_theme(int argc, char **argv)
{
    const cli_command *self = cli_command_find("theme");
    const char *site = ".";
    bool force = false, export = false;
    const char **names = xcalloc((size_t)argc + 1, sizeof *names);
    size_t nnames = 0;
    cli_opts o = { self, "sheaf theme", argc, 1, argv, true };
    const cli_flag *f;
    const char *v;
    int kind, status = -1;
    while (status < 0 && (kind = cli_next_opt(&o, &f, &v, &status)) != CLI_OPT_END) {
        if (kind == CLI_OPT_EXIT)
            break;
        if (kind == CLI_OPT_OPERAND) {
            if (export)
                names[nnames++] = v;
            else if (!strcmp(v, "export"))
                export = true;
            else
                status = cli_usage_error(self, "'%s': the theme command is `sheaf theme export [NAME…]`", v);
        } else if (!strcmp(f->long_name, "site")) {
            site = v;
        } else if (!strcmp(f->long_name, "force")) {
            force = true;
        }
    }
    if (status < 0 && !export)
        status = cli_usage_error(self, "theme what? export");
    if (status < 0 && cli_need_site_dir(site))
        status = 2;
    if (status >= 0) {
        free(names);
        return status;
    }
    diag_list *d = diag_list_new();
    bool ok = true;
    if (nnames) {
        for (size_t i = 0; i < nnames; i++) {
            const embed_file *t = find_template(names[i]);
            if (!t) {
                diag_error(d, NULL, 0, 0,
                           "the default theme has no template '%s' (`sheaf theme export` with no name "
                           "writes them all; docs/theme.md lists them)",
                           names[i]);
                ok = false;
            }
        }
        for (size_t i = 0; i < nnames && ok; i++)
            ok = export_one(site, find_template(names[i]), force, d) && ok;
    } else {
        for (size_t i = 0; i < embed_count; i++)
            if (!strncmp(embed_files[i].path, "templates/", 10))
                ok = export_one(site, &embed_files[i], force, d) && ok;
    }
    cli_print_diags(d);
    diag_list_free(d);
    free(names);
    return ok ? 0 : 1;
}
