/* Unit tests for site/config: defaults, every key's value, base_url split
 * into origin and path, the command-line override, and the diagnostics for
 * bad files (the exact texts are in tests/sites/config-errors). */
#include "harness.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "diag/diag.h"
#include "site/keys.h"
#include "site/site.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/fs.h"

static char dir[64];

/* Writes dir/site.yaml (or removes it when text is NULL), loads it. */
static bool load(const char *text, const char *override, arena *a, site_config *c, diag_list *d)
{
    char path[128];
    snprintf(path, sizeof path, "%s/site.yaml", dir);
    unlink(path);
    if (text) {
        FILE *f = fopen(path, "w");
        if (!f)
            return false;
        fputs(text, f);
        fclose(f);
    }
    return site_config_load(dir, override, a, c, d);
}

static const diag *first(diag_list *d) { return diag_count(d) ? diag_get(d, 0) : NULL; }

TEST(defaults_without_site_yaml)
{
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    site_config c;
    OK(load(NULL, NULL, a, &c, d));
    EQ_INT(diag_count(d), 0);
    EQ_STR(c.title, "My notes");
    EQ_STR(c.language, "en");
    EQ_STR(c.theme, "default");
    EQ_INT(c.paginate, 10);
    EQ_STR(c.paginate_path, "page/:num/");
    OK(c.markdown.unsafe);
    OK(!c.markdown.smart);
    EQ_INT(c.markdown.off, 0); /* every extension on */
    OK(!c.links_warn);
    EQ_STR(c.base_url, "/");
    EQ_STR(c.base_path, "/");
    EQ_STR(c.origin, "");
    OK(c.deploy_target == NULL);
    EQ_INT(c.npermalinks, 0);
    EQ_INT(c.params.kind, TPL_MAP);
    diag_list_free(d);
    arena_free(a);
}

TEST(every_key)
{
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    site_config c;
    OK(load("title: \"☀️ Hello World.\"\n"
            "description: Notes\n"
            "author: A. Researcher\n"
            "language: zh-CN\n"
            "theme: plain\n"
            "base_url: https://user.github.io/notes\n"
            "paginate: 3\n"
            "links: warn\n"
            "markdown: {unsafe: false, smart: true, hard_breaks: true, tables: false,\n"
            "           footnotes: false, strikethrough: true}\n"
            "permalinks:\n  posts: /:year/:slug/\n  notes: /n/:slug/\n"
            "deploy:\n  target: host:/srv/www\n"
            "params: {mastodon: '@me'}\n"
            "empty:\n",
            NULL, a, &c, d));
    /* 'empty' is unknown: a warning, not an error */
    EQ_INT(diag_error_count(d), 0);
    EQ_INT(diag_warning_count(d), 1);
    EQ_STR(c.title, "☀️ Hello World.");
    EQ_STR(c.description, "Notes");
    EQ_STR(c.author, "A. Researcher");
    EQ_STR(c.language, "zh-CN");
    EQ_STR(c.theme, "plain");
    EQ_STR(c.base_url, "https://user.github.io/notes/");
    EQ_STR(c.origin, "https://user.github.io");
    EQ_STR(c.base_path, "/notes/");
    EQ_INT(c.paginate, 3);
    OK(c.links_warn);
    OK(!c.markdown.unsafe);
    OK(c.markdown.smart);
    OK(c.markdown.hard_breaks);
    EQ_INT(c.markdown.off, md_extension_bit("tables") | md_extension_bit("footnotes"));
    EQ_INT(c.npermalinks, 2);
    EQ_STR(c.permalinks[0].section, "posts");
    EQ_STR(c.permalinks[0].pattern, "/:year/:slug/");
    EQ_STR(c.permalinks[1].section, "notes");
    EQ_STR(c.deploy_target, "host:/srv/www");
    EQ_STR(tpl_map_get_cstr(c.params.u.map, "mastodon").u.s, "@me");
    diag_list_free(d);
    arena_free(a);
}

TEST(base_url_forms_and_override)
{
    static const struct { const char *in, *url, *origin, *path; } cases[] = {
        { "https://example.org", "https://example.org/", "https://example.org", "/" },
        { "https://example.org/", "https://example.org/", "https://example.org", "/" },
        { "http://localhost:8000/a/b", "http://localhost:8000/a/b/", "http://localhost:8000", "/a/b/" },
        { "/notes", "/notes/", "", "/notes/" },
        { "notes/", "/notes/", "", "/notes/" },
        { "", "/", "", "/" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        arena *a = arena_new();
        diag_list *d = diag_list_new();
        site_config c;
        char text[128];
        snprintf(text, sizeof text, "base_url: \"%s\"\n", cases[i].in);
        OK(load(text, NULL, a, &c, d));
        EQ_STR(c.base_url, cases[i].url);
        EQ_STR(c.origin, cases[i].origin);
        EQ_STR(c.base_path, cases[i].path);
        diag_list_free(d);
        arena_free(a);
    }
    /* the command line wins, also over a file that failed */
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    site_config c;
    OK(!load("base_url: https://example.org/\npaginate: 0\n", "http://127.0.0.1:8000/", a, &c, d));
    EQ_STR(c.base_url, "http://127.0.0.1:8000/");
    EQ_STR(c.base_path, "/");
    diag_list_free(d);
    arena_free(a);
}

TEST(errors_carry_positions)
{
    static const struct { const char *text; int line, col; const char *msg; } cases[] = {
        { "title: [a, b]\n", 1, 8, "'title' must be a string" },
        { "paginate: 0\n", 1, 11, "'paginate' must be a whole number of posts per page (1 or more)" },
        { "paginate: ten\n", 1, 11, "'paginate' must be a whole number of posts per page (1 or more)" },
        { "links: strict\n", 1, 8, "'links' must be 'error' or 'warn'" },
        { "markdown:\n  smart: yes please\n", 2, 3, "'markdown.smart' must be true or false" },
        { "permalinks:\n  posts: x/:slug\n", 2, 3,
          "'permalinks.posts' must be a pattern starting with '/' (like /:year/:month/:slug/)" },
        { "deploy: here\n", 1, 9, "'deploy' must be a mapping (deploy: {target: …})" },
        { "- a\n- b\n", 1, 1, "site.yaml must be a mapping of keys (title: …, base_url: …)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        arena *a = arena_new();
        diag_list *d = diag_list_new();
        site_config c;
        OK(!load(cases[i].text, NULL, a, &c, d));
        const diag *e = first(d);
        OK(e != NULL);
        if (e) {
            EQ_INT(e->level, DIAG_ERROR);
            EQ_INT(e->line, cases[i].line);
            EQ_INT(e->col, cases[i].col);
            EQ_STR(e->message, cases[i].msg);
        }
        /* a failed file still leaves usable defaults */
        EQ_STR(c.base_path, "/");
        diag_list_free(d);
        arena_free(a);
    }
}

TEST(malformed_yaml_is_an_error)
{
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    site_config c;
    OK(!load("title: ok\nparams: [unclosed\n", NULL, a, &c, d));
    OK(diag_error_count(d) >= 1);
    const diag *e = first(d);
    OK(e && e->line >= 2);
    diag_list_free(d);
    arena_free(a);
}

/* Issue 19: a list of names with KEY_UNIQUE (tags) keeps the first of each
 * in order and drops empty ones; duplicates were dropped with a search per
 * name, and 100,000 tags took about a minute (now milliseconds). */
typedef struct names_out {
    const char **names;
    size_t n;
} names_out;

TEST(unique_names_with_a_set)
{
    static const key_def defs[] = {
        { .name = "tags", .type = KEY_NAMES, .at = offsetof(names_out, names),
          .set = offsetof(names_out, n), .want = "a list of tag names", .flags = KEY_UNIQUE },
    };
    static const key_table table = { .prefix = "", .keys = defs, .n = 1 };
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    buf y = BUF_INIT;
    buf_puts(&y, "tags: [b, a, b, '', 3, a, c, '3'");
    for (int i = 0; i < 100000; i++)
        buf_printf(&y, ", t%d", i);
    buf_puts(&y, ", t5, b, t99999]\n");
    tpl_value v;
    fm_key_pos *pos;
    size_t npos;
    OK(fm_parse_yaml_pos(str_make(y.data, y.len), 1, "p.md", a, &v, &pos, &npos, d));
    names_out out = { 0 };
    key_reader r = { .path = "p.md", .a = a, .d = d, .pos = pos, .npos = npos, .out = &out,
                     .ok = true };
    site_keys_read(&table, v.u.map, &r);
    OK(r.ok);
    EQ_INT(out.n, 4 + 100000);
    if (out.n == 4 + 100000) {
        EQ_STR(out.names[0], "b");
        EQ_STR(out.names[1], "a");
        EQ_STR(out.names[2], "3");
        EQ_STR(out.names[3], "c");
        EQ_STR(out.names[4], "t0");
        EQ_STR(out.names[5], "t1");
        EQ_STR(out.names[4 + 99999], "t99999");
    }
    buf_release(&y);
    diag_list_free(d);
    arena_free(a);
}

/* A page's few names are made unique without a set (an allocation per
 * page): the same rule — the first of each, in order, no empty one, a
 * number and its text one name — for a list of up to 16 and one longer. */
TEST(unique_names_few)
{
    static const key_def defs[] = {
        { .name = "tags", .type = KEY_NAMES, .at = offsetof(names_out, names),
          .set = offsetof(names_out, n), .want = "a list of tag names", .flags = KEY_UNIQUE },
    };
    static const key_table table = { .prefix = "", .keys = defs, .n = 1 };
    static const char *const lists[] = { "tags: [b, a, b, '', 3, a, c, '3']\n",
                                         "tags: [b, a, b, '', 3, a, c, '3', b, b, b, b, b, b, b, b, b, c]\n",
                                         "TAGS: b\n" };
    static const size_t want[] = { 4, 4, 1 };
    for (size_t l = 0; l < sizeof lists / sizeof *lists; l++) {
        arena *a = arena_new();
        diag_list *d = diag_list_new();
        tpl_value v;
        fm_key_pos *pos;
        size_t npos;
        OK(fm_parse_yaml_pos(str_make(lists[l], strlen(lists[l])), 1, "p.md", a, &v, &pos, &npos, d));
        names_out out = { 0 };
        key_reader r = { .path = "p.md", .a = a, .d = d, .pos = pos, .npos = npos, .out = &out,
                         .ok = true };
        /* (the page table reads keys in any case; this one as written) */
        key_table t = table;
        t.any_case = l == 2;
        site_keys_read(&t, v.u.map, &r);
        OK(r.ok);
        EQ_INT(out.n, want[l]);
        if (out.n == 4) {
            EQ_STR(out.names[0], "b");
            EQ_STR(out.names[1], "a");
            EQ_STR(out.names[2], "3");
            EQ_STR(out.names[3], "c");
        } else if (out.n == 1) {
            EQ_STR(out.names[0], "b");
        }
        diag_list_free(d);
        arena_free(a);
    }
}

/* paginate_path: :num once, relative, a folder, a valid output path for
 * any number; a bad one is an error at its value and the default stands */
TEST(paginate_path_rule)
{
    arena *a = arena_new();
    static const char *const good[] = { "page/:num/", "page:num/", "p/:num/", ":num/", "a/b-:num/c/",
                                        "pages_:num/" };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        const char *why = site_paginate_path_problem(a, good[i], strlen(good[i]));
        if (why)
            fprintf(stderr, "%s: %s\n", good[i], why);
        OK(why == NULL);
    }
    static const char *const bad[] = { "", "/", "/page:num/", "page:num", "page/", ":num/:num/", ":number/",
                                       "p/:year/:num/", "../:num/", "./:num/", "a//:num/", "p\x01/:num/",
                                       "p\x7f:num/" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        OK(site_paginate_path_problem(a, bad[i], strlen(bad[i])) != NULL);
    OK(site_paginate_path_problem(a, "p\0/:num/", 9) != NULL); /* a NUL byte */
    buf longname = BUF_INIT; /* a part too long once the number is in */
    for (int i = 0; i < 250; i++)
        buf_putc(&longname, 'x');
    buf_puts(&longname, ":num/");
    OK(site_paginate_path_problem(a, longname.data, longname.len) != NULL);
    buf_release(&longname);

    diag_list *d = diag_list_new();
    site_config c;
    OK(load("title: T\npaginate_path: \"p/:num/\"\n", NULL, a, &c, d));
    EQ_STR(c.paginate_path, "p/:num/");
    OK(!load("title: T\npaginate_path: \"p/\\0:num/\"\n", NULL, a, &c, d)); /* NUL: the string's errors */
    EQ_INT(diag_error_count(d), 2);
    EQ_STR(c.paginate_path, "page/:num/");
    diag_list_free(d);
    arena_free(a);
}

/* The first column of the Markdown table that follows `header` in doc
 * ("| `title` | …" → "title"), each name with `prefix` before it, one a
 * line in out. */
static void table_keys(const char *doc, const char *header, const char *prefix, buf *out)
{
    const char *p = strstr(doc, header);
    if (!p) {
        FAILF("docs/configuration.md: no table headed '%s'", header);
        return;
    }
    p = strchr(p, '\n'); /* the header row */
    p = p ? strchr(p + 1, '\n') : NULL; /* the |---| row */
    while (p && p[1] == '|') {
        p += 2;
        while (*p == ' ')
            p++;
        if (*p == '`') {
            const char *e = strchr(p + 1, '`');
            buf_printf(out, "%s%.*s\n", prefix, (int)(e - p - 1), p + 1);
        }
        p = strchr(p, '\n');
    }
}

static void add_key(const char *name, void *ctx)
{
    if (strncmp(name, "deploy.", 7)) /* deploy's one key is in its row */
        buf_printf(ctx, "%s\n", name);
}

/* docs/configuration.md's key tables list every key the code reads, and no
 * other: its table of site.yaml's keys, then the markdown table's. */
TEST(docs_list_every_key)
{
    buf doc = BUF_INIT, documented = BUF_INIT, known = BUF_INIT;
    OK(fs_read_file("../docs/configuration.md", &doc));
    table_keys(doc.data, "| key           | type            | default     | meaning |", "", &documented);
    table_keys(doc.data, "| key               | default | meaning |", "markdown.", &documented);
    table_keys(doc.data, "| images key     | default | meaning |", "images.", &documented);
    site_config_each_key(add_key, &known);
    /* compared as sets: every line of one is a line of the other */
    for (int pass = 0; pass < 2; pass++) {
        const buf *a = pass ? &documented : &known, *b = pass ? &known : &documented;
        for (const char *line = a->data; line && *line;) {
            const char *nl = strchr(line, '\n');
            char want[96];
            snprintf(want, sizeof want, "\n%.*s\n", (int)(nl - line), line);
            buf bb = BUF_INIT;
            buf_printf(&bb, "\n%s", b->data);
            if (!strstr(bb.data, want))
                FAILF(pass ? "docs/configuration.md lists '%.*s', which site.yaml does not take"
                           : "site.yaml takes '%.*s', which docs/configuration.md's key tables do not list",
                      (int)(nl - line), line);
            buf_release(&bb);
            line = nl + 1;
        }
    }
    OK(strstr(doc.data, "| `deploy`      | map             | none        | `target`:") != NULL);
    buf_release(&doc);
    buf_release(&documented);
    buf_release(&known);
}

/* The site.yaml `sheaf new site` writes names only keys site.yaml takes,
 * and its markdown block, which says it shows the defaults, shows them: the
 * key table (config_keys) is what the scaffold's text follows. */
TEST(scaffold_agrees_with_the_key_table)
{
    const char *text = strstr(cli_new_site_yaml(), "\n\n"); /* after the opening prose */
    OK(text != NULL);
    buf all = BUF_INIT, md = BUF_INIT;
    bool in_md = false;
    int lines = 0;
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) : strlen(l);
        bool nested = n > 4 && !strncmp(l, "#   ", 4);
        const char *k = l + (nested ? 4 : 2);
        size_t kl = 0;
        while (k + kl < l + n && (k[kl] == '_' || k[kl] == '.' || (k[kl] >= 'a' && k[kl] <= 'z')))
            kl++;
        if (n > 2 && l[0] == '#' && l[1] == ' ' && (nested || k[0] != ' ') && kl && k[kl] == ':') {
            const char *v = k + kl + 1, *end = l + n, *hash = strstr(v, "  #");
            if (hash && hash < end)
                end = hash;
            while (end > v && end[-1] == ' ')
                end--;
            buf_printf(&all, "%s%.*s\n", nested ? "  " : "", (int)(end - k), k);
            if (!nested)
                in_md = kl == 8 && !strncmp(k, "markdown", 8);
            else if (in_md)
                buf_printf(&md, "  %.*s\n", (int)(end - k), k);
            lines++;
        } else if (!strncmp(l, "title:", 6)) {
            buf_printf(&all, "%.*s\n", (int)n, l);
        }
        l = nl ? nl + 1 : l + n;
    }
    OK(lines > 20 && md.len > 0);
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    site_config c, defaults, shown;
    OK(load(all.data, NULL, a, &c, d));
    for (size_t i = 0; i < diag_count(d); i++)
        FAILF("the scaffold's keys, uncommented: %s", diag_get(d, i)->message);
    OK(load(NULL, NULL, a, &defaults, d));
    buf yaml = BUF_INIT;
    buf_printf(&yaml, "markdown:\n%s", md.data);
    OK(load(yaml.data, NULL, a, &shown, d));
    EQ_INT(diag_count(d), 0);
    EQ_INT(shown.markdown.unsafe, defaults.markdown.unsafe);
    EQ_INT(shown.markdown.smart, defaults.markdown.smart);
    EQ_INT(shown.markdown.hard_breaks, defaults.markdown.hard_breaks);
    EQ_INT(shown.markdown.linenos, defaults.markdown.linenos);
    EQ_INT(shown.markdown.off, defaults.markdown.off);
    buf_release(&yaml);
    buf_release(&all);
    buf_release(&md);
    diag_list_free(d);
    arena_free(a);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/sheaf-test-config-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    RUN(defaults_without_site_yaml);
    RUN(scaffold_agrees_with_the_key_table);
    RUN(every_key);
    RUN(base_url_forms_and_override);
    RUN(errors_carry_positions);
    RUN(malformed_yaml_is_an_error);
    RUN(unique_names_with_a_set);
    RUN(unique_names_few);
    RUN(paginate_path_rule);
    RUN(docs_list_every_key);
    char path[128];
    snprintf(path, sizeof path, "%s/site.yaml", dir);
    unlink(path);
    rmdir(dir);
    return harness_done();
}
