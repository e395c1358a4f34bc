/* main: `sheaf <command> …` — dispatch only; every command lives in its own
 * file of src/cli/ over the static libraries the tests link too. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

#ifndef SHEAF_VERSION
#define SHEAF_VERSION "0.0.0"
#endif

static const char usage[] =
    "usage: sheaf <command> [options]\n"
    "\n"
    "A static blog and site generator: Markdown with YAML front matter in,\n"
    "a fast, checked static site out.\n"
    "\n"
    "Commands:\n"
    "  build    build the site into public/\n"
    "  serve    build, serve on 127.0.0.1:8000 and rebuild as files change\n"
    "  check    build in memory and report every problem; write nothing\n"
    "  new      create a site (new site DIR) or a post (new post \"Title\")\n"
    "  deploy   build, then sync the output to site.yaml's deploy target\n"
    "  render   render one template with YAML data to stdout\n"
    "\n"
    "Options:\n"
    "  -h, --help     show this help (or `sheaf <command> --help`)\n"
    "  -V, --version  print the version\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
        printf("sheaf %s\n", SHEAF_VERSION);
        return 0;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        { "build", cli_build }, { "check", cli_check },   { "serve", cli_serve },
        { "new", cli_new },     { "deploy", cli_deploy }, { "render", cli_render },
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(cmd, cmds[i].name))
            return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "sheaf: unknown command '%s' (try `sheaf --help`)\n", cmd);
    return 2;
}
