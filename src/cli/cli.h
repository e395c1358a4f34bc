/* cli: the sheaf commands. main.c dispatches to one function per command;
 * each parses its own options, runs the pipeline, prints diagnostics and
 * returns the process exit status (0 ok, 1 errors in the input, 2 usage). */
#ifndef SHEAF_CLI_H
#define SHEAF_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "diag/diag.h"

int cli_build(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_serve(int argc, char **argv);
int cli_new(int argc, char **argv);
int cli_deploy(int argc, char **argv);
int cli_render(int argc, char **argv);
int cli_completion(int argc, char **argv);
int cli_import(int argc, char **argv);
int cli_theme(int argc, char **argv);

/* ---- the command table (commands.c) ------------------------------------ */

/* What completes an option's value or a command's operand. */
enum { CLI_VALUE_NONE, CLI_VALUE_DIR, CLI_VALUE_FILE };

typedef struct cli_flag {
    char short_name;       /* 'o' for -o; 0: none */
    const char *long_name; /* "output" for --output; NULL ends a list */
    const char *arg;       /* the value's name in the help ("DIR"); NULL: takes none */
    const char *help;      /* one line */
    int value;             /* CLI_VALUE_*: what completes the value */
} cli_flag;

/* A word that follows the command (`sheaf new site DIR`). */
typedef struct cli_word {
    const char *name;      /* NULL ends a list */
    const char *arg;       /* the operand after it, or NULL */
    const char *help;
    int value;             /* CLI_VALUE_*: what completes that operand */
} cli_word;

typedef struct cli_command {
    const char *name;      /* NULL ends the table */
    const char *summary;   /* its line in `sheaf --help` */
    const char *usage;     /* after "usage: " in its --help */
    const char *about;     /* the paragraph under that, or NULL */
    const cli_word *words; /* the words it takes first (new: site, post), or NULL */
    int operand;           /* CLI_VALUE_*: what completes its operand (render: a file) */
    const cli_flag *flags;
    int (*run)(int argc, char **argv); /* argv[0] is the command's name */
} cli_command;

/* Every command, in the order `sheaf --help` lists them. */
extern const cli_command cli_commands[];
const cli_command *cli_command_find(const char *name);
/* A command's --help: the usage line, the paragraph, and one aligned line
 * per word and flag. */
void cli_print_usage(FILE *f, const cli_command *c);
/* `sheaf --version`: the version, the git commit, the target and how it
 * is linked, and the KaTeX and highlight.js compiled in (version.c). */
void cli_print_version(FILE *f);
struct buf;
/* Makes the private build folder of a command (`name`: "serve", "deploy")
 * into out: $TMPDIR/sheaf-NAME-XXXXXX, else, where that cannot be made
 * (no /tmp in a container), SITE/.sheaf-NAME-XXXXXX. The caller removes it.
 * False, with an error in d, when neither can be made (scratch.c). */
bool cli_scratch_dir(const char *name, const char *site, struct buf *out, diag_list *d);
/* The site.yaml `sheaf new site` writes (cmd_new.c). */
const char *cli_new_site_yaml(void);
/* `sheaf --help`. */
void cli_print_main_usage(FILE *f);
/* The command (or help, version) a mistyped one is closest to, or NULL
 * when none is near. */
const char *cli_did_you_mean_command(const char *typed);
/* " (did you mean '--drafts'?)" for a mistyped flag of c, or "". */
const char *cli_did_you_mean_flag(const cli_command *c, const char *typed);

/* Reading a command's options by its table, one at a time, the way sheaf's
 * own parsers read them: `-x V`, `--name V`, `--name=V`, each flag a word
 * of its own (no bundling, no abbreviations); `-` alone is an operand.
 * Every command reads its options this way. */
typedef struct cli_opts {
    const cli_command *c;
    const char *who;       /* for messages: "sheaf serve" */
    int argc, i;           /* argv[i] is the next word */
    char **argv;
    bool operands;         /* false: a word that is not a flag is an unknown option */
} cli_opts;
enum { CLI_OPT_END, CLI_OPT_FLAG, CLI_OPT_OPERAND, CLI_OPT_EXIT };
/* The next word: CLI_OPT_FLAG (*f, and *value when it takes one),
 * CLI_OPT_OPERAND (*value), CLI_OPT_END, or CLI_OPT_EXIT with *status —
 * after --help (usage on stdout, 0) or a bad option (message and usage on
 * stderr, 2). */
int cli_next_opt(cli_opts *o, const cli_flag **f, const char **value, int *status);

struct build_stats;
/* Prints where a build's time went (--stats), on one indented line. */
void cli_print_stats(const struct build_stats *st);
/* Appends what the build left out for its date to a summary line:
 * "; 2 scheduled, 1 expired", or nothing. */
void cli_held_summary(struct buf *out, const struct build_stats *st);

/* Prints every diagnostic to stderr (coloured on a terminal) after sorting. */
void cli_print_diags(diag_list *d);
/* A usage error: prints "sheaf: error: <message>", then c's usage line and
 * where its help is (c NULL: where the list of commands is); returns 2, the
 * exit status of every usage error. Every command reports a bad command
 * line through it. */
int cli_usage_error(const struct cli_command *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* 0 when the site folder `dir` (from -s, or ".") exists; otherwise prints
 * "sheaf: error: DIR: no such folder …" and returns 2, a usage error: what
 * every command does with a -s it cannot use. */
int cli_need_site_dir(const char *dir);
/* `build`, `check` and `deploy`: one warning in d when the site's base_url (or the
 * --base-url given, may be NULL) has no scheme and host, which feeds and
 * sitemaps need. Problems of site.yaml itself are left to the build. */
void cli_warn_no_host(const char *site_dir, const char *base_url, diag_list *d);
/* Colour on stderr? (a terminal, and NO_COLOR unset) */
bool cli_color(void);

#endif
