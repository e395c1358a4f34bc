/* main: `sheaf <command> …` — dispatch only, through the command table
 * (commands.c); every command lives in its own file of src/cli/ over the
 * static libraries the tests link too. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_print_main_usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        cli_print_main_usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
        cli_print_version(stdout);
        return 0;
    }
    const cli_command *c = cli_command_find(cmd);
    if (c)
        return c->run(argc - 1, argv + 1);
    fprintf(stderr, "sheaf: unknown command '%s' (try `sheaf --help`)\n", cmd);
    return 2;
}
