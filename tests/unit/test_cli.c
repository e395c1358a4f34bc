/* test_cli: the command table (src/cli/commands.c) against what it
 * describes — every man page lists the same flags as the table, and the
 * completion scripts offer them all. That every command acts on every flag
 * of the table is tests/cli/flags.py (ctest cli/flags). */
#include "harness.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/buf.h"
#include "util/fs.h"

/* Runs a command's function with stdout and stderr sent to `to` (a file
 * name, or /dev/null); returns its exit status. */
static int run_quiet(const cli_command *c, int argc, char **argv, const char *to)
{
    fflush(stdout);
    fflush(stderr);
    int o = dup(1), e = dup(2);
    int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    int rc = c->run(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(o, 1);
    dup2(e, 2);
    close(o);
    close(e);
    return rc;
}

/* The text of the OPTIONS section of a man page, or "" when it has none. */
static void options_section(const char *page, buf *out)
{
    const char *s = strstr(page, "\n.SH OPTIONS\n");
    if (!s)
        return;
    s += 13;
    const char *e = strstr(s, "\n.SH ");
    buf_put(out, s, e ? (size_t)(e - s) : strlen(s));
}

TEST(man_pages_list_the_flags)
{
    buf main_page = BUF_INIT;
    OK(fs_read_file("../man/man1/sheaf.1", &main_page));
    for (const cli_command *c = cli_commands; c->name; c++) {
        char path[128], see[64], item[64];
        snprintf(path, sizeof path, "../man/man1/sheaf-%s.1", c->name);
        snprintf(see, sizeof see, ".BR sheaf\\-%s (1)", c->name);
        snprintf(item, sizeof item, ".TP\n.B %s\n", c->name);
        if (!strstr(main_page.data, see) || !strstr(main_page.data, item))
            FAILF("man/man1/sheaf.1 does not list the command '%s' (.TP .B %s, .BR sheaf\\-%s (1))",
                  c->name, c->name, c->name);
        buf page = BUF_INIT, opts = BUF_INIT;
        if (!fs_read_file(path, &page)) {
            FAILF("%s: missing", path);
            continue;
        }
        options_section(page.data, &opts);
        /* the table's flags are in the page… */
        for (const cli_flag *f = c->flags; f->long_name; f++) {
            buf want = BUF_INIT;
            for (const char *p = f->long_name; *p; p++)
                buf_puts(&want, *p == '-' ? "\\-" : (char[2]){ *p, 0 });
            buf flag = BUF_INIT;
            buf_printf(&flag, "\\-\\-%s", want.data);
            const char *at = strstr(opts.data, flag.data);
            char next = at ? at[flag.len] : 0;
            if (!at || (next != ' ' && next != '\n' && next != '"'))
                FAILF("%s: no --%s in OPTIONS", path, f->long_name);
            if (f->short_name) {
                char s[8];
                snprintf(s, sizeof s, "\\-%c ", f->short_name);
                if (!strstr(opts.data, s))
                    FAILF("%s: no -%c in OPTIONS", path, f->short_name);
            }
            buf_release(&want);
            buf_release(&flag);
        }
        /* …and the flags the page describes (the line after each .TP) are
         * in the table */
        for (const char *p = opts.data; (p = strstr(p, ".TP\n")); ) {
            p += 4;
            const char *eol = strchr(p, '\n');
            for (const char *q = p; (q = strstr(q, "\\-\\-")) && (!eol || q < eol);) {
                q += 4;
                buf name = BUF_INIT;
                for (;;) {
                    if (q[0] == '\\' && q[1] == '-') {
                        buf_putc(&name, '-');
                        q += 2;
                    } else if (*q >= 'a' && *q <= 'z') {
                        buf_putc(&name, *q++);
                    } else {
                        break;
                    }
                }
                bool known = false;
                for (const cli_flag *f = c->flags; f->long_name && !known; f++)
                    known = !strcmp(f->long_name, name.data);
                if (!known)
                    FAILF("%s: --%s in OPTIONS is not in the command table", path, name.data);
                buf_release(&name);
            }
        }
        buf_release(&page);
        buf_release(&opts);
    }
    buf_release(&main_page);
}

TEST(completion_offers_every_flag)
{
    const cli_command *comp = cli_command_find("completion");
    OK(comp != NULL);
    static const char *const shells[] = { "bash", "zsh", "fish" };
    char tmp[] = "/tmp/sheaf-test-cli-XXXXXX";
    int fd = mkstemp(tmp);
    OK(fd >= 0);
    close(fd);
    for (size_t i = 0; i < 3; i++) {
        char *argv[] = { "completion", (char *)shells[i], NULL };
        EQ_INT(run_quiet(comp, 2, argv, tmp), 0);
        buf out = BUF_INIT;
        OK(fs_read_file(tmp, &out));
        for (const cli_command *c = cli_commands; c->name; c++) {
            if (!strstr(out.data, c->name))
                FAILF("sheaf completion %s: no command %s", shells[i], c->name);
            for (const cli_flag *f = c->flags; f->long_name; f++) {
                char want[64];
                snprintf(want, sizeof want, !strcmp(shells[i], "fish") ? "-l %s" : "--%s", f->long_name);
                if (!strstr(out.data, want))
                    FAILF("sheaf completion %s: no %s", shells[i], want);
            }
        }
        buf_release(&out);
    }
    char *bad[] = { "completion", "tcsh", NULL };
    EQ_INT(run_quiet(comp, 2, bad, "/dev/null"), 2);
    unlink(tmp);
}

TEST(commands_are_found)
{
    for (const cli_command *c = cli_commands; c->name; c++)
        OK(cli_command_find(c->name) == c);
    OK(cli_command_find("nope") == NULL);
}

int main(void)
{
    RUN(man_pages_list_the_flags);
    RUN(completion_offers_every_flag);
    RUN(commands_are_found);
    return harness_done();
}
