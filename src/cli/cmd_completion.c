/* cmd_completion: `sheaf completion bash|zsh|fish` prints a script that
 * completes sheaf's commands, their words (`new site|post`) and options in
 * that shell, made from the command table (commands.c), so it cannot
 * forget a flag that --help shows. Option values complete as folders (DIR),
 * files (FILE) or not at all, as the table says. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* ---- bash ---- */

static void bash_words(FILE *f, const cli_command *c)
{
    const char *sep = "";
    for (const cli_word *w = c->words; w && w->name; w++, sep = " ")
        fprintf(f, "%s%s", sep, w->name);
}

static void bash_flags(FILE *f, const cli_command *c)
{
    const char *sep = "";
    for (const cli_flag *fl = c->flags; fl->long_name; fl++, sep = " ") {
        if (fl->short_name)
            fprintf(f, "%s-%c", sep, fl->short_name), sep = " ";
        fprintf(f, "%s--%s", sep, fl->long_name);
    }
}

/* The case patterns of c's flags whose value completes as v: "-s|--site". */
static bool bash_value_flags(FILE *f, const cli_command *c, int v)
{
    bool any = false;
    for (const cli_flag *fl = c->flags; fl->long_name; fl++) {
        if (!fl->arg || fl->value != v)
            continue;
        if (fl->short_name)
            fprintf(f, "%s-%c", any ? "|" : "", fl->short_name), any = true;
        fprintf(f, "%s--%s", any ? "|" : "", fl->long_name);
        any = true;
    }
    return any;
}

static const char *bash_compgen(int v) { return v == CLI_VALUE_DIR ? "-d" : v == CLI_VALUE_FILE ? "-f" : NULL; }

static void print_bash(FILE *f)
{
    fputs("# bash completion for sheaf (made by `sheaf completion bash`)\n"
          "_sheaf() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    COMPREPLY=()\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W \"",
          f);
    for (const cli_command *c = cli_commands; c->name; c++)
        fprintf(f, "%s ", c->name);
    fputs("--help --version\" -- \"$cur\"))\n"
          "        return\n"
          "    fi\n"
          "    case ${COMP_WORDS[1]} in\n",
          f);
    for (const cli_command *c = cli_commands; c->name; c++) {
        fprintf(f, "    %s)\n", c->name);
        bool vals = false;
        for (int v = CLI_VALUE_NONE; v <= CLI_VALUE_FILE; v++) {
            /* a flag that takes a value: complete the value, not a flag */
            bool head = false;
            for (const cli_flag *fl = c->flags; fl->long_name; fl++)
                head = head || (fl->arg && fl->value == v);
            if (!head)
                continue;
            if (!vals)
                fputs("        case $prev in\n", f);
            vals = true;
            fputs("        ", f);
            bash_value_flags(f, c, v);
            const char *g = bash_compgen(v);
            if (g)
                fprintf(f, ") COMPREPLY=($(compgen %s -- \"$cur\")); return ;;\n", g);
            else
                fputs(") return ;;\n", f);
        }
        if (vals)
            fputs("        esac\n", f);
        if (c->words) {
            fputs("        if [ \"$COMP_CWORD\" -eq 2 ]; then\n"
                  "            COMPREPLY=($(compgen -W \"",
                  f);
            bash_words(f, c);
            fputs("\" -- \"$cur\"))\n"
                  "            return\n"
                  "        fi\n",
                  f);
            for (const cli_word *w = c->words; w->name; w++)
                if (bash_compgen(w->value))
                    fprintf(f, "        if [ \"$COMP_CWORD\" -eq 3 ] && [ \"$prev\" = %s ]; then\n"
                               "            COMPREPLY=($(compgen %s -- \"$cur\"))\n"
                               "            return\n"
                               "        fi\n",
                            w->name, bash_compgen(w->value));
        }
        fputs("        case $cur in\n"
              "        -*) COMPREPLY=($(compgen -W \"",
              f);
        bash_flags(f, c);
        fputs("\" -- \"$cur\")) ;;\n", f);
        if (bash_compgen(c->operand))
            fprintf(f, "        *) COMPREPLY=($(compgen %s -- \"$cur\")) ;;\n", bash_compgen(c->operand));
        fputs("        esac\n"
              "        ;;\n",
              f);
    }
    fputs("    esac\n"
          "}\n"
          "complete -o filenames -F _sheaf sheaf\n",
          f);
}

/* ---- zsh ---- */

/* s inside a zsh single-quoted word: ' closed and reopened, and the
 * characters _arguments reads in that place (`special`) escaped. */
static void zsh_text(FILE *f, const char *s, const char *special)
{
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else if (*s == '\n')
            fputc(' ', f);
        else if (strchr(special, *s))
            fprintf(f, "\\%c", *s);
        else
            fputc(*s, f);
    }
}

static const char *zsh_action(int v) { return v == CLI_VALUE_DIR ? "_files -/" : v == CLI_VALUE_FILE ? "_files" : " "; }

static void print_zsh(FILE *f)
{
    fputs("#compdef sheaf\n"
          "# zsh completion for sheaf (made by `sheaf completion zsh`)\n"
          "_sheaf() {\n"
          "    local -a commands\n"
          "    commands=(\n",
          f);
    for (const cli_command *c = cli_commands; c->name; c++) {
        fprintf(f, "        '%s:", c->name);
        zsh_text(f, c->summary, "");
        fputs("'\n", f);
    }
    fputs("    )\n"
          "    local state\n"
          "    _arguments -C '(- 1 *)'{-h,--help}'[show the help]' '(- 1 *)'{-V,--version}'[print the version]' \\\n"
          "        '1: :->command' '*:: :->args'\n"
          "    case $state in\n"
          "    command) _describe -t commands 'sheaf command' commands ;;\n"
          "    args)\n"
          "        case $words[1] in\n",
          f);
    for (const cli_command *c = cli_commands; c->name; c++) {
        fprintf(f, "        %s)\n            _arguments -s", c->name);
        for (const cli_flag *fl = c->flags; fl->long_name; fl++) {
            fputs(" \\\n                '", f);
            if (fl->short_name)
                fprintf(f, "(-%c --%s)'{-%c,--%s}'", fl->short_name, fl->long_name, fl->short_name,
                        fl->long_name);
            else
                fprintf(f, "--%s", fl->long_name);
            fputc('[', f);
            zsh_text(f, fl->help, "[]");
            fputc(']', f);
            if (fl->arg) {
                fputc(':', f);
                zsh_text(f, fl->arg, ":");
                fprintf(f, ":%s", zsh_action(fl->value));
            }
            fputc('\'', f);
        }
        if (c->words) {
            fputs(" \\\n                '1:what:(", f);
            for (const cli_word *w = c->words; w->name; w++)
                fprintf(f, "%s%s", w == c->words ? "" : " ", w->name);
            fputs(")'", f);
        } else if (c->operand != CLI_VALUE_NONE) {
            fprintf(f, " \\\n                '1: :%s'", zsh_action(c->operand));
        }
        fputs("\n            ;;\n", f);
    }
    fputs("        esac\n"
          "        ;;\n"
          "    esac\n"
          "}\n"
          "if [ \"$funcstack[1]\" = _sheaf ]; then\n"
          "    _sheaf \"$@\"\n"
          "else\n"
          "    compdef _sheaf sheaf\n"
          "fi\n",
          f);
}

/* ---- fish ---- */

static void fish_text(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'' || *s == '\\')
            fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('\'', f);
}

static void print_fish(FILE *f)
{
    fputs("# fish completion for sheaf (made by `sheaf completion fish`)\n"
          "complete -c sheaf -f\n"
          "complete -c sheaf -n __fish_use_subcommand -s h -l help -d 'show the help'\n"
          "complete -c sheaf -n __fish_use_subcommand -s V -l version -d 'print the version'\n",
          f);
    for (const cli_command *c = cli_commands; c->name; c++) {
        fprintf(f, "complete -c sheaf -n __fish_use_subcommand -a %s -d ", c->name);
        fish_text(f, c->summary);
        fputc('\n', f);
    }
    for (const cli_command *c = cli_commands; c->name; c++) {
        for (const cli_flag *fl = c->flags; fl->long_name; fl++) {
            fprintf(f, "complete -c sheaf -n '__fish_seen_subcommand_from %s'", c->name);
            if (fl->short_name)
                fprintf(f, " -s %c", fl->short_name);
            fprintf(f, " -l %s", fl->long_name);
            if (fl->arg)
                fputs(fl->value == CLI_VALUE_DIR    ? " -x -a '(__fish_complete_directories)'"
                      : fl->value == CLI_VALUE_FILE ? " -r -F"
                                                    : " -x",
                      f);
            fputs(" -d ", f);
            fish_text(f, fl->help);
            fputc('\n', f);
        }
        if (c->words) {
            for (const cli_word *w = c->words; w->name; w++) {
                fprintf(f, "complete -c sheaf -n '__fish_seen_subcommand_from %s; and not __fish_seen_subcommand_from",
                        c->name);
                for (const cli_word *x = c->words; x->name; x++)
                    fprintf(f, " %s", x->name);
                fprintf(f, "' -a %s -d ", w->name);
                fish_text(f, w->help);
                fputc('\n', f);
                if (w->value == CLI_VALUE_DIR)
                    fprintf(f, "complete -c sheaf -n '__fish_seen_subcommand_from %s; and __fish_seen_subcommand_from %s' -a '(__fish_complete_directories)'\n",
                            c->name, w->name);
            }
        } else if (c->operand == CLI_VALUE_FILE) {
            fprintf(f, "complete -c sheaf -n '__fish_seen_subcommand_from %s' -F\n", c->name);
        } else if (c->operand == CLI_VALUE_DIR) {
            fprintf(f, "complete -c sheaf -n '__fish_seen_subcommand_from %s' -a '(__fish_complete_directories)'\n",
                    c->name);
        }
    }
}

int cli_completion(int argc, char **argv)
{
    const cli_command *self = cli_command_find("completion");
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        cli_print_usage(stdout, self);
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "bash"))
        print_bash(stdout);
    else if (argc == 2 && !strcmp(argv[1], "zsh"))
        print_zsh(stdout);
    else if (argc == 2 && !strcmp(argv[1], "fish"))
        print_fish(stdout);
    else {
        return cli_usage_error(self, "name a shell: bash, zsh or fish");
    }
    return 0;
}
