/* main: `sheaf <command> …` — dispatch only, through the command table
 * (commands.c); every command lives in its own file of src/cli/ over the
 * static libraries the tests link too. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* "unknown command 'biuld' (did you mean `build`?)": exit 2. */
static int unknown_command(const char *cmd)
{
    const char *near = cli_did_you_mean_command(cmd);
    if (near)
        return cli_usage_error(NULL, "unknown command '%s' (did you mean `%s`?)", cmd, near);
    return cli_usage_error(NULL, "unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_print_main_usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") && argc > 2) { /* `sheaf help build`: as `sheaf build --help` */
        const cli_command *c = cli_command_find(argv[2]);
        if (!c)
            return unknown_command(argv[2]);
        cli_print_usage(stdout, c);
        return 0;
    }
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        cli_print_main_usage(stdout);
        return 0;
    }
    /* `sheaf version` is `sheaf --version` */
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        cli_print_version(stdout);
        return 0;
    }
    const cli_command *c = cli_command_find(cmd);
    if (c)
        return c->run(argc - 1, argv + 1);
    return unknown_command(cmd);
}
