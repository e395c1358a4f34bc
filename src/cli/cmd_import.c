/* cmd_import: `sheaf import jekyll|hugo SRC DEST [--force] [-q]` — parses
 * the words and flags, runs the import (src/import/), prints its
 * diagnostics and the report. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "import/import.h"
#include "util/buf.h"

#define USAGE(f) cli_print_usage(f, cli_command_find("import"))

int cli_import(int argc, char **argv)
{
    import_options io = { IMPORT_JEKYLL, NULL, NULL, false };
    bool quiet = false, kind = false;
    cli_opts o = { cli_command_find("import"), "sheaf import", argc, 1, argv, true };
    const cli_flag *f;
    const char *v;
    int k, status;
    while ((k = cli_next_opt(&o, &f, &v, &status)) != CLI_OPT_END) {
        if (k == CLI_OPT_EXIT)
            return status;
        if (k == CLI_OPT_FLAG) {
            if (!strcmp(f->long_name, "force"))
                io.force = true;
            else if (!strcmp(f->long_name, "quiet"))
                quiet = true;
            continue;
        }
        if (!kind) {
            if (strcmp(v, "jekyll") && strcmp(v, "hugo")) {
                return cli_usage_error(o.c, "'%s': import from jekyll or hugo", v);
            }
            io.kind = strcmp(v, "jekyll") ? IMPORT_HUGO : IMPORT_JEKYLL;
            kind = true;
        } else if (!io.src) {
            io.src = v;
        } else if (!io.dest) {
            io.dest = v;
        } else {
            return cli_usage_error(o.c, "one SRC and one DEST ('%s' is one too many)", v);
        }
    }
    if (!kind || !io.src || !io.dest) {
        return cli_usage_error(o.c, "give jekyll or hugo, the site to read and the folder to write");
    }
    diag_list *d = diag_list_new();
    buf report = BUF_INIT;
    bool ok = import_run(&io, &report, d);
    cli_print_diags(d);
    if (!quiet)
        fputs(report.data, stdout); /* empty when nothing was written */
    buf_release(&report);
    diag_list_free(d);
    return ok ? 0 : 1;
}
