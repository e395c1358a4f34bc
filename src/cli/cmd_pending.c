/* Commands whose implementation has not landed yet say so plainly. Each
 * moves to its own file (cmd_<name>.c) when it is written. */
#include <stdio.h>

#include "cli/cli.h"

#define PENDING(fn, name)                                                        \
    int fn(int argc, char **argv)                                                \
    {                                                                            \
        (void)argc;                                                              \
        (void)argv;                                                              \
        fprintf(stderr, "sheaf: '%s' is not available in this build yet\n", name); \
        return 2;                                                                \
    }

#ifndef HAVE_CLI_BUILD
PENDING(cli_build, "build")
PENDING(cli_check, "check")
#endif
#ifndef HAVE_CLI_SERVE
PENDING(cli_serve, "serve")
#endif
#ifndef HAVE_CLI_NEW
PENDING(cli_new, "new")
#endif
#ifndef HAVE_CLI_DEPLOY
PENDING(cli_deploy, "deploy")
#endif
#ifndef HAVE_CLI_RENDER
PENDING(cli_render, "render")
#endif
