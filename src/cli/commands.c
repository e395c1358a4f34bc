/* commands: the one table of sheaf's commands and their options.
 *
 * `sheaf --help`, each command's --help, `sheaf completion` and the tests
 * read it: tests/cli/flags.py checks that every command (cmd_*.c) acts on
 * every flag written here, and test_cli that each man page (man/man1/)
 * lists the same flags. A new flag is a row here, its handling in the
 * command's file, a paragraph in its man page and a scenario in flags.py. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/text.h"

#define HELP_FLAG { 'h', "help", NULL, "show this help", CLI_VALUE_NONE }
#define SITE_FLAG { 's', "site", "DIR", "the site folder (default: .)", CLI_VALUE_DIR }
#define JOBS_FLAG { 'j', "jobs", "N", "worker threads (default: one per core)", CLI_VALUE_NONE }

static const cli_flag build_flags[] = {
    SITE_FLAG,
    { 'o', "output", "DIR", "the output folder (default: DIR/public)", CLI_VALUE_DIR },
    { 0, "force", NULL,
      "write into an output folder sheaf did not make (non-empty,\n"
      "no .sheaf-manifest), replacing its files where the build\n"
      "writes; its other files stay",
      CLI_VALUE_NONE },
    { 0, "base-url", "URL", "override base_url from site.yaml", CLI_VALUE_NONE },
    { 'D', "drafts", NULL, "build drafts too", CLI_VALUE_NONE },
    { 0, "future", NULL, "build posts dated after now too (scheduled posts)", CLI_VALUE_NONE },
    JOBS_FLAG,
    { 0, "no-cache", NULL, "neither read nor write the build cache (.sheaf-cache/)", CLI_VALUE_NONE },
    { 0, "stats", NULL,
      "print where the time went: config, load, markdown, model,\n"
      "render+write, swap, links, values, record, jobs, folders,\n"
      "walk, manifest (the last seven inside model, render+write\n"
      "and swap; and math: formulas, KaTeX engines; diagrams:\n"
      "laid out by Graphviz or from the cache)",
      CLI_VALUE_NONE },
    { 'q', "quiet", NULL, "print nothing but problems", CLI_VALUE_NONE },
    HELP_FLAG,
    { 0 },
};

static const cli_flag check_flags[] = {
    SITE_FLAG,
    { 'D', "drafts", NULL, "check drafts too", CLI_VALUE_NONE },
    { 0, "future", NULL, "check posts dated after now too", CLI_VALUE_NONE },
    JOBS_FLAG,
    { 0, "no-cache", NULL, "do not read the build cache (.sheaf-cache/; check never writes it)",
      CLI_VALUE_NONE },
    { 'q', "quiet", NULL, "print nothing but problems (no summary line)", CLI_VALUE_NONE },
    HELP_FLAG,
    { 0 },
};

static const cli_flag serve_flags[] = {
    SITE_FLAG,
    { 'p', "port", "N", "the port to listen on (default: 8000; 0 picks a free one)", CLI_VALUE_NONE },
    { 'b', "bind", "ADDR",
      "the address to listen on (default: 127.0.0.1; ::1 for IPv6);\n"
      "requests must name localhost, an IP address or ADDR\n"
      "(0.0.0.0 or :: answers any name)",
      CLI_VALUE_NONE },
    { 'D', "drafts", NULL, "build drafts too", CLI_VALUE_NONE },
    { 0, "future", NULL, "build posts dated after now too (without it, each is\nbuilt when it comes due)", CLI_VALUE_NONE },
    { 'O', "open", NULL, "open the site in the default browser", CLI_VALUE_NONE },
    { 0, "no-cache", NULL, "neither read nor write the build cache (.sheaf-cache/)", CLI_VALUE_NONE },
    { 0, "stats", NULL,
      "after each rebuild, print where its time went: config, load,\n"
      "markdown, model, render+write, swap (and math)",
      CLI_VALUE_NONE },
    HELP_FLAG,
    { 0 },
};

static const cli_flag new_flags[] = {
    { 0, "tags", "a,b", "the post's tags", CLI_VALUE_NONE },
    { 0, "draft", NULL, "mark the post as a draft (built only with --drafts)", CLI_VALUE_NONE },
    { 0, "cite", "key,…", "cite these works of the site's bibliography (checked)", CLI_VALUE_NONE },
    { 0, "section", "NAME", "write it into content/NAME/, that section (default: posts)", CLI_VALUE_NONE },
    SITE_FLAG,
    HELP_FLAG,
    { 0 },
};

static const cli_flag deploy_flags[] = {
    SITE_FLAG,
    { 'n', "dry-run", NULL,
      "list what would be added, changed, removed and kept, and why;\n"
      "change nothing",
      CLI_VALUE_NONE },
    { 0, "force", NULL,
      "deploy into a local folder sheaf did not deploy to (non-empty,\n"
      "no .sheaf-manifest), replacing its files where the deploy\n"
      "writes; its other files stay",
      CLI_VALUE_NONE },
    { 0, "base-url", "URL", "override base_url from site.yaml", CLI_VALUE_NONE },
    { 'q', "quiet", NULL, "print nothing but errors", CLI_VALUE_NONE },
    HELP_FLAG,
    { 0 },
};

static const cli_flag render_flags[] = {
    { 'd', "data", "FILE", "YAML file whose top-level keys become variables", CLI_VALUE_FILE },
    { 't', "templates", "DIR", "folder to look templates up in", CLI_VALUE_DIR },
    { 0, "base-url", "URL", "base URL for absolute_url / relative_url (default: /)", CLI_VALUE_NONE },
    { 's', "site", "DIR", "read this site (as check does) and give the template\nits `site` value", CLI_VALUE_DIR },
    HELP_FLAG,
    { 0 },
};

static const cli_flag import_flags[] = {
    { 0, "force", NULL, "empty DEST first when it is not empty (a second import)", CLI_VALUE_NONE },
    { 'q', "quiet", NULL, "print nothing but problems (the report is still written)", CLI_VALUE_NONE },
    HELP_FLAG,
    { 0 },
};

static const cli_word import_words[] = {
    { "jekyll", "SRC DEST", "make a sheaf site in DEST from the Jekyll site in SRC", CLI_VALUE_DIR },
    { "hugo", "SRC DEST", "make a sheaf site in DEST from the Hugo site in SRC", CLI_VALUE_DIR },
    { 0 },
};

static const cli_flag theme_flags[] = {
    SITE_FLAG,
    { 0, "force", NULL, "replace templates/ files that are there already", CLI_VALUE_NONE },
    HELP_FLAG,
    { 0 },
};

static const cli_word theme_words[] = {
    { "export", "[NAME…]", "write the default theme's templates (or those named) into\nthe site's templates/",
      CLI_VALUE_NONE },
    { 0 },
};

static const cli_flag completion_flags[] = {
    HELP_FLAG,
    { 0 },
};

static const cli_word new_words[] = {
    { "site", "DIR", "create a working site in DIR (new or empty)", CLI_VALUE_DIR },
    { "post", "TITLE", "create content/posts/YYYY-MM-DD-slug.md and print its path", CLI_VALUE_NONE },
    { 0 },
};

static const cli_word completion_words[] = {
    { "bash", NULL, "the script for bash", CLI_VALUE_NONE },
    { "zsh", NULL, "the script for zsh", CLI_VALUE_NONE },
    { "fish", NULL, "the script for fish", CLI_VALUE_NONE },
    { 0 },
};

const cli_command cli_commands[] = {
    { "build", "build the site into public/",
      "sheaf build [-s DIR] [-o DIR] [--force] [--base-url URL] [--drafts] [--future] [-j N] [--no-cache] [--stats] [-q]",
      "Builds the site in DIR (content/, templates/, static/, site.yaml) into the\n"
      "output folder. The new output replaces the old one only when the whole build\n"
      "succeeded; files whose bytes did not change are kept as they were. sheaf\n"
      "removes only files it wrote (listed in .sheaf-manifest in the output folder).\n",
      NULL, CLI_VALUE_NONE, build_flags, cli_build },
    { "serve", "build, serve on 127.0.0.1:8000 and rebuild as files change",
      "sheaf serve [-s DIR] [--port 8000] [--bind 127.0.0.1] [--drafts] [--future] [--open] [--no-cache] [--stats]",
      "Builds the site into a temporary folder, serves it, and rebuilds what\n"
      "changed whenever a file under content/, templates/, themes/, static/,\n"
      "i18n/ or data/, site.yaml, or a .bib file beside it is saved. Open pages\n"
      "reload by themselves; a failed build is shown over the page until the\n"
      "next good one.\n",
      NULL, CLI_VALUE_NONE, serve_flags, cli_serve },
    { "check", "build in memory and report every problem; write nothing",
      "sheaf check [-s DIR] [--drafts] [--future] [-j N] [--no-cache] [-q]",
      "Reads, parses and renders the whole site in memory and reports every problem\n"
      "(front matter, broken links and anchors, templates) sorted by file and line.\n"
      "Writes nothing. Exit status 1 when there is an error.\n",
      NULL, CLI_VALUE_NONE, check_flags, cli_check },
    { "new", "create a site (new site DIR) or a post (new post \"Title\")",
      "sheaf new site DIR\n"
      "       sheaf new post \"Title\" [--tags a,b] [--cite key,…] [--draft] [--section NAME] [-s DIR]",
      NULL, new_words, CLI_VALUE_NONE, new_flags, cli_new },
    { "deploy", "build, then sync the output to site.yaml's deploy target",
      "sheaf deploy [-s DIR] [--dry-run] [--force] [--base-url URL] [-q]",
      "Builds the site into a fresh folder, then syncs it to deploy.target in\n"
      "site.yaml: a local folder (relative to the site) or an rsync destination\n"
      "host:path. Files sheaf deployed before and no longer produces are removed\n"
      "from a local target (they are listed in its .sheaf-manifest); nothing else.\n",
      NULL, CLI_VALUE_NONE, deploy_flags, cli_deploy },
    { "render", "render one template with YAML data to stdout",
      "sheaf render TEMPLATE [--data FILE.yaml] [--templates DIR] [--base-url URL] [-s DIR]",
      "Renders one template with the variables in FILE.yaml (a YAML mapping) and\n"
      "prints the result to stdout. Templates it extends, includes or imports are\n"
      "looked up in DIR (default: TEMPLATE's folder), then in the built-in theme.\n",
      NULL, CLI_VALUE_FILE, render_flags, cli_render },
    { "import", "make a sheaf site from a Jekyll or Hugo site",
      "sheaf import jekyll|hugo SRC DEST [--force] [-q]",
      "Reads the Jekyll or Hugo site in SRC (never writing there) and writes a sheaf\n"
      "site to DEST: posts, pages, drafts and files in sheaf's layout, site.yaml from\n"
      "the site's settings, front matter in sheaf's keys, links made checkable, and an\n"
      "alias wherever a page's old URL differs from sheaf's. Prints a report of what\n"
      "it converted and what it could not (at SRC file:line), also written to\n"
      "DEST/import-report.md. DEST must be missing or empty, unless --force.\n",
      import_words, CLI_VALUE_NONE, import_flags, cli_import },
    { "theme", "copy the default theme's templates into templates/ to edit them",
      "sheaf theme export [NAME…] [-s DIR] [--force]",
      "Writes the templates of the default theme built into sheaf (all of them,\n"
      "or the ones named, such as post.html or partials/toc.html) into the site's\n"
      "templates/, where they win over the theme's: edit the copies. Files there\n"
      "already are left alone unless --force. Prints each path written.\n",
      theme_words, CLI_VALUE_NONE, theme_flags, cli_theme },
    { "completion", "print a completion script for bash, zsh or fish",
      "sheaf completion bash|zsh|fish",
      "Prints a script that completes sheaf's commands and options in that shell.\n"
      "Load it with `source <(sheaf completion bash)` (zsh: likewise;\n"
      "fish: `sheaf completion fish | source`), e.g. in the shell's start-up file.\n",
      completion_words, CLI_VALUE_NONE, completion_flags, cli_completion },
    { 0 },
};

const cli_command *cli_command_find(const char *name)
{
    for (const cli_command *c = cli_commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

/* "  -s, --site DIR" / "      --stats" / "  site DIR": the left column. */
static int flag_label(char *out, size_t n, const cli_flag *f)
{
    char s[8] = "    ";
    if (f->short_name)
        snprintf(s, sizeof s, "-%c, ", f->short_name);
    return snprintf(out, n, "  %s--%s%s%s", s, f->long_name, f->arg ? " " : "", f->arg ? f->arg : "");
}

static int word_label(char *out, size_t n, const cli_word *w)
{
    return snprintf(out, n, "  %s%s%s", w->name, w->arg ? " " : "", w->arg ? w->arg : "");
}

/* Columns a label takes on a terminal: one per UTF-8 character (the
 * labels hold no wide or combining characters; "key,…" is 5, not 7). */
static int display_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* One row of the option list: the label, then the help, whose later lines
 * (a help may hold '\n') start under its first. */
static void print_row(FILE *f, int width, const char *label, const char *help)
{
    fprintf(f, "%s%*s  ", label, width - display_width(label), "");
    for (const char *p = help; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fprintf(f, "%*s", width + 2, "");
    }
    fputc('\n', f);
}

void cli_print_usage(FILE *f, const cli_command *c)
{
    fprintf(f, "usage: %s\n\n", c->usage);
    if (c->about)
        fprintf(f, "%s\n", c->about);
    char label[96];
    int width = 0;
    for (const cli_word *w = c->words; w && w->name; w++) {
        word_label(label, sizeof label, w);
        int k = display_width(label);
        width = k > width ? k : width;
    }
    for (const cli_flag *fl = c->flags; fl->long_name; fl++) {
        flag_label(label, sizeof label, fl);
        int k = display_width(label);
        width = k > width ? k : width;
    }
    for (const cli_word *w = c->words; w && w->name; w++) {
        word_label(label, sizeof label, w);
        print_row(f, width, label, w->help);
    }
    for (const cli_flag *fl = c->flags; fl->long_name; fl++) {
        flag_label(label, sizeof label, fl);
        print_row(f, width, label, fl->help);
    }
}

void cli_print_main_usage(FILE *f)
{
    fputs("usage: sheaf <command> [options]\n"
          "\n"
          "A static blog and site generator: Markdown with YAML front matter in,\n"
          "a fast, checked static site out.\n"
          "\n"
          "Commands:\n",
          f);
    for (const cli_command *c = cli_commands; c->name; c++)
        fprintf(f, "  %-11s %s\n", c->name, c->summary);
    fputs("\n"
          "Options:\n"
          "  -h, --help     show this help (`sheaf help <command>` or\n"
          "                 `sheaf <command> --help`: a command's)\n"
          "  -V, --version  print the version (also `sheaf version`)\n",
          f);
}

/* Edits (insert, delete, change, swap two neighbours) from a to b, up to
 * 9: a name is mistyped by one or two. */
/* The closest of names[] to `typed`, when it is near enough to be a typo
 * (text_close_enough), else NULL. */
static const char *closest(const char *typed, const char *const *names, size_t n)
{
    text_near near = TEXT_NEAR(typed);
    for (size_t i = 0; i < n; i++)
        text_near_try(&near, names[i]);
    return text_near_best(&near);
}

const char *cli_did_you_mean_command(const char *typed)
{
    const char *names[32];
    size_t n = 0;
    for (const cli_command *c = cli_commands; c->name && n < 30; c++)
        names[n++] = c->name;
    names[n++] = "help";
    names[n++] = "version";
    return closest(typed, names, n);
}

const char *cli_did_you_mean_flag(const cli_command *c, const char *typed)
{
    static char out[80];
    char spelled[32][40];
    const char *names[32];
    size_t n = 0;
    const char *t = typed;
    while (*t == '-')
        t++;
    for (const cli_flag *f = c->flags; f->long_name && n < 32; f++) {
        snprintf(spelled[n], sizeof spelled[n], "--%s", f->long_name);
        names[n] = spelled[n];
        n++;
    }
    char with_dashes[48];
    snprintf(with_dashes, sizeof with_dashes, "--%s", t);
    const char *best = closest(with_dashes, names, n);
    if (!best)
        return "";
    snprintf(out, sizeof out, " (did you mean '%s'?)", best);
    return out;
}

int cli_next_opt(cli_opts *o, const cli_flag **f, const char **value, int *status)
{
    *f = NULL;
    *value = NULL;
    if (o->i >= o->argc)
        return CLI_OPT_END;
    const char *a = o->argv[o->i++];
    if ((a[0] != '-' || !a[1]) && o->operands) {
        *value = a;
        return CLI_OPT_OPERAND;
    }
    const char *eq = NULL;
    for (const cli_flag *fl = o->c->flags; fl->long_name && a[0] == '-'; fl++) {
        size_t n = strlen(fl->long_name);
        bool is_long = a[1] == '-' && !strncmp(a + 2, fl->long_name, n);
        bool is_short = fl->short_name && a[1] == fl->short_name;
        if (is_long && a[2 + n] == '=' && fl->arg)
            eq = a + 3 + n;
        else if (is_short && a[2] && fl->arg) /* -j1, as -j 1 */
            eq = a + 2;
        else if (!(is_long && !a[2 + n]) && !(is_short && !a[2]))
            continue;
        *f = fl;
        if (!strcmp(fl->long_name, "help")) {
            cli_print_usage(stdout, o->c);
            *status = 0;
            return CLI_OPT_EXIT;
        }
        if (fl->arg && !eq) {
            if (o->i >= o->argc) {
                *status = cli_usage_error(o->c, "'%s' needs a value (%s)", a, fl->arg);
                return CLI_OPT_EXIT;
            }
            eq = o->argv[o->i++];
        }
        *value = eq;
        return CLI_OPT_FLAG;
    }
    if (a[0] != '-' || !a[1])
        *status = cli_usage_error(o->c, "unexpected argument '%s'", a);
    else
        *status = cli_usage_error(o->c, "unknown option '%s'%s", a, cli_did_you_mean_flag(o->c, a));
    return CLI_OPT_EXIT;
}
