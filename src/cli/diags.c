/* diags: printing diagnostics for every command. */
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"

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
