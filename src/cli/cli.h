/* cli: the sheaf commands. main.c dispatches to one function per command;
 * each parses its own options, runs the pipeline, prints diagnostics and
 * returns the process exit status (0 ok, 1 errors in the input, 2 usage). */
#ifndef SHEAF_CLI_H
#define SHEAF_CLI_H

#include <stdbool.h>

#include "diag/diag.h"

int cli_build(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_serve(int argc, char **argv);
int cli_new(int argc, char **argv);
int cli_deploy(int argc, char **argv);
int cli_render(int argc, char **argv);

struct build_stats;
/* Prints where a build's time went (--stats), on one indented line. */
void cli_print_stats(const struct build_stats *st);

/* Prints every diagnostic to stderr (coloured on a terminal) after sorting. */
void cli_print_diags(diag_list *d);
/* Colour on stderr? (a terminal, and NO_COLOR unset) */
bool cli_color(void);

#endif
