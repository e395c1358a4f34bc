/* cmd_new: `sheaf new site DIR` and `sheaf new post "Title"`.
 *
 * `new site` writes a small working site (site.yaml with every key
 * explained, a first post, an about page, an empty templates/ folder and a
 * .gitignore) that builds with the embedded default theme. It refuses a
 * folder that is not empty, before writing anything.
 *
 * `new post` writes content/posts/YYYY-MM-DD-slug.md (local date and time
 * zone; --section NAME: content/NAME/, a site whose posts are in another
 * section, such as one imported from Hugo with content/post/) from an
 * archetype: the site's templates/new-post.md when there is
 * one, else the built-in one below. An archetype is plain text where
 * `{{ title }}`, `{{ date }}`, `{{ slug }}`, `{{ tags }}`, `{{ draft }}` and
 * `{{ cite }}` are replaced (title escaped for a double-quoted YAML string,
 * tags as a YAML flow list, cite as a citation `[@a; @b]` of the works
 * given with --cite, each checked against the site's bibliography; an
 * archetype without `{{ cite }}` gets the citation at its end); any other
 * `{{ … }}` is an error. It never overwrites. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "bib/bib.h"
#include "site/site.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/text.h"
#include "util/xalloc.h"

#define USAGE(f) cli_print_usage(f, cli_command_find("new"))

static const char builtin_archetype[] = "---\n"
                                        "title: \"{{ title }}\"\n"
                                        "date: {{ date }}\n"
                                        "tags: {{ tags }}\n"
                                        "draft: {{ draft }}\n"
                                        "---\n"
                                        "\n"
                                        "{{ cite }}";

static const char site_yaml[] =
    "# site.yaml: the site's settings. Every key is optional: the commented-out\n"
    "# lines show each key with an example value; remove the '#' to use one.\n"
    "\n"
    "# The site's name, shown in the page header and the feed.\n"
    "title: My notes\n"
    "\n"
    "# One line about the site, for the home page, the feed and search engines.\n"
    "# description: Notes on what I read and build\n"
    "\n"
    "# Where the site is published, ending in '/'. Every link, feed and sitemap\n"
    "# entry is made from it, so a site under a sub-path works too.\n"
    "# `sheaf build --base-url URL` overrides it.\n"
    "# base_url: https://user.github.io/notes/\n"
    "\n"
    "# The author, for the feed and the page footer.\n"
    "# author: Your Name\n"
    "\n"
    "# The language of the content, for <html lang>.\n"
    "# language: en\n"
    "\n"
    "# The icon: an emoji or one to three letters (drawn into favicon.svg), or\n"
    "# a file in static/. Default: the emoji the title starts with.\n"
    "# favicon: \"🌿\"\n"
    "\n"
    "# The search page (/search/) and its index.\n"
    "# search: true\n"
    "\n"
    "# Number every page's headings (1, 1.1, ...), so @sec-... reads\n"
    "# \"Section 1.1\"; a page's own numbered_sections: wins.\n"
    "# numbered_sections: false\n"
    "\n"
    "# A theme in themes/<name>/; the default theme is built into sheaf.\n"
    "# Files in templates/ win over the theme's.\n"
    "# theme: default\n"
    "\n"
    "# URL patterns per content section (:year :month :day :slug).\n"
    "# permalinks:\n"
    "#   posts: /:year/:month/:slug/\n"
    "\n"
    "# Posts per page on the home page, a section's list and a tag's page,\n"
    "# and where each list's later pages go (:num is the number: /page/2/).\n"
    "# paginate: 10\n"
    "# paginate_path: \"page/:num/\"\n"
    "\n"
    "# More files, each an output path and the template that writes it\n"
    "# (feed.json, a JSON Feed, is there by default; false leaves it out).\n"
    "# outputs:\n"
    "#   search.json: search.json\n"
    "\n"
    "# The ways posts are classified: each term gets a page and a feed\n"
    "# (/tags/<tag>/, /categories/<category>/), each taxonomy an index and a\n"
    "# feed of its terms (/tags/atom.xml).\n"
    "# taxonomies: [tags, categories]\n"
    "\n"
    "# Old addresses a site moved from Hugo keeps: every feed also as\n"
    "# <list>/index.xml, and every paginated list also at <list>/page/1/.\n"
    "# feed_copies: [index.xml]\n"
    "# first_page_alias: true\n"
    "\n"
    "# How many related posts (sharing the most terms) page.related lists.\n"
    "# related: 5\n"
    "\n"
    "# Markdown options, with their defaults.\n"
    "# markdown:\n"
    "#   unsafe: true        # raw HTML in Markdown is kept (false: omitted)\n"
    "#   smart: false        # curly quotes, en and em dashes, ellipses\n"
    "#   hard_breaks: false  # a line break inside a paragraph becomes <br>\n"
    "#   highlight: true     # colour fenced code (```python) at build time\n"
    "#   linenos: false      # line numbers on every code block\n"
    "\n"
    "# A broken cross-post link fails the build (error) or only warns (warn).\n"
    "# links: error\n"
    "\n"
    "# Where `sheaf deploy` publishes the site: a folder (relative to this file,\n"
    "# e.g. one nginx serves), or an rsync destination host:path.\n"
    "# deploy:\n"
    "#   target: /var/www/notes\n"
    "\n"
    "# Anything under params is free for templates: {{ site.params.github }}.\n"
    "# params:\n"
    "#   github: your-name\n";

const char *cli_new_site_yaml(void) { return site_yaml; }

static const char about_md[] =
    "---\n"
    "title: About\n"
    "---\n"
    "\n"
    "This site is made with sheaf from the Markdown files in `content/`.\n"
    "Edit `content/about.md` to say who you are.\n";

static const char hello_body[] =
    "Welcome to your new site. Each post is a Markdown file in `content/posts/`\n"
    "whose name starts with its date; create the next one with\n"
    "`sheaf new post \"Title\"`.\n"
    "\n"
    "<!--more-->\n"
    "\n"
    "## Linking posts\n"
    "\n"
    "Link to another page by its file, as on GitHub: see the\n"
    "[about page](../about.md). sheaf checks such links when it builds.\n"
    "\n"
    "## Publishing\n"
    "\n"
    "`sheaf build` writes the site to `public/`; `sheaf deploy` publishes it to\n"
    "the `deploy.target` set in `site.yaml`.\n";

static const char templates_readme[] =
    "Templates placed here override the theme's templates of the same name\n"
    "(base.html, post.html, page.html, index.html, section.html, tag.html,\n"
    "tags.html, term.html, terms.html,\n"
    "archive.html, 404.html): `sheaf theme export post.html` writes the\n"
    "theme's post.html here to edit (`sheaf theme export` writes them all).\n"
    "A new-post.md here is the archetype `sheaf new post` starts from.\n";

static const char gitignore[] = "/public/\n/.sheaf-cache/\n";

/* The local time now, as `YYYY-MM-DDTHH:MM:SS+hh:mm` into out and
 * `YYYY-MM-DD` into day. */
static void local_now(buf *out, buf *day)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    long off = tm.tm_gmtoff / 60;
    char sign = off < 0 ? '-' : '+';
    if (off < 0)
        off = -off;
    buf_printf(day, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
    buf_printf(out, "%sT%02d:%02d:%02d%c%02ld:%02ld", day->data, tm.tm_hour, tm.tm_min,
               tm.tm_sec, sign, off / 60, off % 60);
}

/* Appends s escaped for a double-quoted YAML scalar. */
static void yaml_escape(buf *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            buf_printf(out, "\\%c", c);
        else if (c == '\n')
            buf_puts(out, "\\n");
        else if (c == '\t')
            buf_puts(out, "\\t");
        else if (c < 0x20)
            buf_printf(out, "\\x%02x", c);
        else
            buf_putc(out, (char)c);
    }
}

/* The values an archetype may use. */
typedef struct post_vars {
    const char *title, *date, *slug, *tags, *draft, *cite;
} post_vars;

/* Appends the archetype text with its placeholders replaced; reports an
 * unknown one at path:line:col; *cite_used says whether it had a
 * {{ cite }}. Returns false on error. */
static bool fill_archetype(const char *text, const char *path, const post_vars *v, buf *out,
                           bool *cite_used, diag_list *d)
{
    *cite_used = false;
    int line = 1, col = 1;
    bool ok = true;
    for (const char *p = text; *p;) {
        if (p[0] == '{' && p[1] == '{') {
            const char *end = strstr(p + 2, "}}");
            const char *a = p + 2, *b = end;
            if (end) {
                while (a < b && (*a == ' ' || *a == '\t'))
                    a++;
                while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
                    b--;
            }
            size_t n = end ? (size_t)(b - a) : 0;
            const char *val = NULL;
            if (!end)
                val = NULL;
            else if (n == 5 && !memcmp(a, "title", 5))
                val = v->title;
            else if (n == 4 && !memcmp(a, "date", 4))
                val = v->date;
            else if (n == 4 && !memcmp(a, "slug", 4))
                val = v->slug;
            else if (n == 4 && !memcmp(a, "tags", 4))
                val = v->tags;
            else if (n == 5 && !memcmp(a, "draft", 5))
                val = v->draft;
            else if (n == 4 && !memcmp(a, "cite", 4))
                val = v->cite, *cite_used = true;
            if (!val) {
                diag_error(d, path, line, col,
                           "unknown placeholder '%.*s': an archetype may use {{ title }}, "
                           "{{ date }}, {{ slug }}, {{ tags }}, {{ draft }} and {{ cite }}",
                           end ? (int)(end + 2 - p) : 2, p);
                ok = false;
                if (!end)
                    break;
            } else {
                buf_puts(out, val);
            }
            col += (int)(end + 2 - p);
            p = end + 2;
            continue;
        }
        if (*p == '\n')
            line++, col = 1;
        else if (((unsigned char)*p & 0xc0) != 0x80)
            col++;
        buf_putc(out, *p++);
    }
    return ok;
}

/* The next item of a comma-separated list ("a, b c,d") at *s, blanks
 * around it trimmed, into [*a, *b) (maybe empty); moves *s past it.
 * False at the end of the list. */
static bool next_item(const char **s, const char **a, const char **b)
{
    if (!**s)
        return false;
    const char *e = strchr(*s, ',');
    if (!e)
        e = *s + strlen(*s);
    *a = *s;
    *b = e;
    while (*a < *b && (**a == ' ' || **a == '\t'))
        (*a)++;
    while (*b > *a && ((*b)[-1] == ' ' || (*b)[-1] == '\t'))
        (*b)--;
    *s = *e ? e + 1 : e;
    return true;
}

/* mkdir -p; false (errno set) on failure. */
static bool make_dirs(const char *path)
{
    char *p = xstrdup(path);
    bool ok = true;
    for (char *s = p + 1; ok; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        struct stat st;
        if (mkdir(p, 0755) != 0 && !(errno == EEXIST && stat(p, &st) == 0 && S_ISDIR(st.st_mode)))
            ok = false;
        *s = c;
        if (!c)
            break;
    }
    free(p);
    return ok;
}

/* Writes text to a new file at path (never overwriting). */
static bool write_new(const char *path, const char *text, size_t n, diag_list *d)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (errno == EEXIST)
            diag_error(d, path, 0, 0,
                       "already exists: sheaf does not overwrite it; choose another title "
                       "or edit that file");
        else
            diag_error(d, path, 0, 0, "cannot create: %s", strerror(errno));
        return false;
    }
    bool ok = true;
    for (size_t w = 0; ok && w < n;) {
        ssize_t k = write(fd, text + w, n - w);
        if (k < 0)
            ok = false;
        else
            w += (size_t)k;
    }
    if (close(fd) != 0)
        ok = false;
    if (!ok) {
        diag_error(d, path, 0, 0, "cannot write: %s", strerror(errno));
        unlink(path);
    }
    return ok;
}

static char *join2(const char *dir, const char *rel)
{
    buf b = BUF_INIT;
    if (dir && strcmp(dir, "."))
        buf_printf(&b, "%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/");
    buf_puts(&b, rel);
    return buf_detach(&b, NULL);
}

/* Why s cannot be a title or tag of a new post (NULL when it can): it must
 * be UTF-8 without control characters (C0, DEL, C1), which YAML, XML
 * feeds and file names cannot all carry. */
static const char *bad_text(const char *s, buf *why)
{
    size_t n = strlen(s), bad = text_utf8_check(s, n);
    if (bad != (size_t)-1) {
        buf_printf(why, "is not valid UTF-8 (byte 0x%02x at offset %zu)", (unsigned char)s[bad], bad);
        return why->data;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        unsigned cp = c == 0xc2 && i + 1 < n ? (unsigned char)s[i + 1] : c;
        if (c < 0x20 || c == 0x7f || (c == 0xc2 && cp >= 0x80 && cp <= 0x9f)) {
            buf_printf(why, "holds a control character (U+%04X at offset %zu)", cp, i);
            return why->data;
        }
    }
    return NULL;
}

/* The new post as `sheaf build` will read it, before it is written: its
 * front matter parsed back by the page loader (YAML, key types, a date),
 * so a title or an archetype that would not build is an error now and no
 * file is left behind. `path` (for messages) is where it would be written,
 * `rel` the same relative to the site. */
static bool builds(const char *site_dir, const char *section, const char *path, const char *rel,
                   const char *text, size_t len, diag_list *d)
{
    site s = { 0 };
    s.dir = site_dir;
    s.a = arena_new();
    page p = { 0 };
    p.src = path;
    p.rel = rel + strlen("content/");
    p.dir = section;
    p.is_post = true;
    p.prev = p.next = -1;
    bool ok = site_reparse_page(&s, &p, text, len, s.a, d);
    arena_free(s.a);
    return ok;
}

/* A key as a citation writes it: `@key`, or `@{key}` when it holds what
 * ends a key (spaces, brackets, `;`, `,`, `@`) or ends in punctuation. */
static void put_cite_key(buf *out, const char *key)
{
    size_t n = strlen(key);
    char last = n ? key[n - 1] : 0;
    bool braces = !((last >= 'a' && last <= 'z') || (last >= 'A' && last <= 'Z') ||
                    (last >= '0' && last <= '9') || last == '_' || (last & 0x80));
    for (size_t i = 0; i < n && !braces; i++)
        braces = strchr(" \t\n[]{};,@\"'", key[i]) != NULL;
    buf_printf(out, braces ? "@{%s}" : "@%s", key);
}

/* `--cite a,b`: every key checked against the site's bibliography (a
 * did-you-mean for an unknown one), then `[@a; @b]` into out. */
static bool make_cites(const char *site_dir, const char *keys, buf *out, diag_list *d)
{
    site s = { 0 };
    s.dir = site_dir;
    s.a = arena_new();
    bool ok = site_config_load(site_dir, NULL, s.a, &s.cfg, d);
    if (ok && !s.cfg.nbibliography) {
        diag_error(d, NULL, 0, 0,
                   "--cite needs a bibliography: add `bibliography: refs.bib` to site.yaml "
                   "(see docs/citations.md), so no post was written");
        ok = false;
    }
    ok = ok && site_load_bibliography(&s, d);
    const char *k = keys, *a, *b;
    while (ok && next_item(&k, &a, &b)) {
        if (b > a && *a == '@') /* `--cite @key` works too */
            a++;
        if (b > a) {
            char *key = xstrndup(a, (size_t)(b - a));
            if (!bib_find(s.bib, key)) {
                const char *near = bib_suggest(s.bib, key);
                diag_error(d, NULL, 0, 0,
                           "--cite: no entry '%s' in the site's bibliography%s%s%s, so no post "
                           "was written",
                           key, near ? " (did you mean '" : "", near ? near : "",
                           near ? "'?)" : "");
                ok = false;
            } else {
                buf_puts(out, out->len ? "; " : "[");
                put_cite_key(out, key);
            }
            free(key);
        }
    }
    if (ok && out->len)
        buf_puts(out, "]\n");
    site_free(&s);
    return ok;
}

/* Creates the post file from the archetype; on success appends its path to
 * out_path. */
static bool create_post(const char *site, const char *section, const char *title, const char *tags_arg,
                        const char *cite_arg, bool draft, buf *out_path, diag_list *d)
{
    buf date = BUF_INIT, day = BUF_INIT, slug = BUF_INIT, etitle = BUF_INIT, tags = BUF_INIT;
    buf arch = BUF_INIT, text = BUF_INIT, rel = BUF_INIT, why = BUF_INIT;
    if (bad_text(title, &why)) {
        diag_error(d, NULL, 0, 0, "the title %s, so no post was written", why.data);
        buf_release(&why);
        return false;
    }
    if (tags_arg && bad_text(tags_arg, &why)) {
        diag_error(d, NULL, 0, 0, "--tags %s, so no post was written", why.data);
        buf_release(&why);
        return false;
    }
    /* a site has content/ (the build's rule): `-s typo` must not start a
     * new tree beside the site */
    char *content = join2(site, "content");
    bool is_site = fs_is_dir(content);
    if (!is_site)
        diag_error(d, NULL, 0, 0,
                   "%s%s has no content/ folder, so it is not a site (`sheaf new site DIR` starts one, "
                   "-s DIR names one elsewhere); no post was written",
                   strcmp(site, ".") ? "" : "the current folder", strcmp(site, ".") ? site : "");
    free(content);
    if (!is_site)
        return false;
    /* the build's rules for a section (site/sections.c): its name, and its
     * folder in the output not one sheaf fills itself */
    const char *bad = site_section_name_problem(section);
    if (!bad && bad_text(section, &why))
        bad = why.data;
    site_config cfg = { 0 };
    arena *ca = arena_new();
    diag_list *quiet = diag_list_new();
    if (!bad && site_config_load(site, NULL, ca, &cfg, quiet)) {
        const char *out = site_section_folder(section, ca);
        const char *gen = site_generated_in_folder(out);
        if (gen)
            bad = arena_printf(ca, "sheaf writes /%s/ itself (%s)", out, gen);
        if (!bad && site_has_taxonomy(&cfg, out))
            bad = arena_printf(ca, "/%s/ is the index of the taxonomy '%s'", out, out);
        const char *folder = site_paginate_folder(&cfg, ca);
        if (!bad && folder && !strcmp(out, folder))
            bad = arena_printf(ca, "/%s/ holds the home page's later pages", folder);
    }
    diag_list_free(quiet);
    if (bad) {
        diag_error(d, NULL, 0, 0, "--section '%s': %s, so no post was written", section, bad);
        arena_free(ca);
        buf_release(&why);
        return false;
    }
    arena_free(ca);
    buf cites = BUF_INIT;
    if (cite_arg && !make_cites(site, cite_arg, &cites, d)) {
        buf_release(&cites);
        return false;
    }
    local_now(&date, &day);
    text_slugify(&slug, title, strlen(title));
    if (slug.len == 0)
        buf_puts(&slug, "post"); /* a title of only punctuation or symbols */
    yaml_escape(&etitle, title);
    buf_putc(&tags, '[');
    const char *s = tags_arg ? tags_arg : "", *a, *b;
    while (next_item(&s, &a, &b)) {
        if (b > a) {
            char *one = xstrndup(a, (size_t)(b - a));
            buf_printf(&tags, "%s\"", tags.len > 1 ? ", " : "");
            yaml_escape(&tags, one);
            buf_putc(&tags, '"');
            free(one);
        }
    }
    buf_putc(&tags, ']');

    char *arch_path = join2(site, "templates/new-post.md");
    const char *arch_name = "(built-in archetype)";
    char *site_real = fs_resolve(site); /* a link out of the site is no archetype */
    bool own = fs_read_file_within(site_real, arch_path, FS_READ_MAX, &arch);
    free(site_real);
    if (own)
        arch_name = arch_path;
    else
        buf_puts(&arch, builtin_archetype);
    post_vars v = { etitle.data, date.data, slug.data, tags.data, draft ? "true" : "false",
                    cites.len ? cites.data : "" };
    bool cite_used;
    bool ok = fill_archetype(arch.data, arch_name, &v, &text, &cite_used, d);
    if (ok && cites.len && !cite_used) { /* no {{ cite }}: at the end */
        if (text.len && text.data[text.len - 1] != '\n')
            buf_putc(&text, '\n');
        buf_printf(&text, "\n%s", cites.data);
    }
    if (ok) {
        buf_printf(&rel, "content/%s/%s-%s.md", section, day.data, slug.data);
        char *path = join2(site, rel.data);
        char *dir = join2(site, rel.data);
        *strrchr(dir, '/') = 0; /* content/<section> */
        if (!builds(site, section, path, rel.data, text.data, text.len, d)) {
            diag_error(d, arch_name, 0, 0,
                       "the new post would not build (see above), so %s was not written", path);
            ok = false;
        } else if (!make_dirs(dir)) {
            diag_error(d, dir, 0, 0, "cannot create folder: %s", strerror(errno));
            ok = false;
        } else {
            ok = write_new(path, text.data, text.len, d);
        }
        if (ok)
            buf_puts(out_path, path);
        free(path);
        free(dir);
    }
    free(arch_path);
    buf_release(&date);
    buf_release(&day);
    buf_release(&slug);
    buf_release(&etitle);
    buf_release(&tags);
    buf_release(&arch);
    buf_release(&text);
    buf_release(&rel);
    buf_release(&cites);
    return ok;
}

/* `sheaf new post "Title" [--tags a,b] [--cite a,b] [--draft] [--section NAME]
 * [-s DIR]`: argv[1] is "post". Parses the options, then create_post.
 * Returns the exit status. */
static int new_post(int argc, char **argv)
{
    const char *site = ".", *title = NULL, *tags = NULL, *section = "posts";
    buf cite = BUF_INIT; /* every --cite, joined by commas */
    bool draft = false;
    cli_opts o = { cli_command_find("new"), "sheaf new post", argc, 2, argv, true };
    const cli_flag *f;
    const char *v;
    int kind, status = -1;
    while (status < 0 && (kind = cli_next_opt(&o, &f, &v, &status)) != CLI_OPT_END) {
        if (kind == CLI_OPT_EXIT) {
            break; /* status set */
        } else if (kind == CLI_OPT_OPERAND) {
            if (title) {
                status = cli_usage_error(o.c, "give one title, in quotes");
            }
            title = v;
        } else if (!strcmp(f->long_name, "site")) {
            site = v;
        } else if (!strcmp(f->long_name, "tags")) {
            tags = v;
        } else if (!strcmp(f->long_name, "draft")) {
            draft = true;
        } else if (!strcmp(f->long_name, "cite")) {
            buf_printf(&cite, "%s%s", cite.len ? "," : "", v);
        } else if (!strcmp(f->long_name, "section")) {
            section = v;
        }
    }

    if (status < 0 && (!title || !*title)) {
        status = cli_usage_error(o.c, "a title is needed");
    }
    if (status < 0)
        status = cli_need_site_dir(site) ? 2 : -1;
    if (status < 0) {
        diag_list *d = diag_list_new();
        buf path = BUF_INIT;
        bool ok = create_post(site, section, title, tags, cite.len ? cite.data : NULL, draft, &path, d);
        cli_print_diags(d);
        if (ok)
            printf("%s\n", path.data);
        buf_release(&path);
        diag_list_free(d);
        status = ok ? 0 : 1;
    }
    buf_release(&cite);
    return status;
}

static bool dir_is_empty(const char *dir, bool *exists)
{
    struct stat st;
    *exists = stat(dir, &st) == 0;
    if (!*exists)
        return true;
    if (!S_ISDIR(st.st_mode))
        return false;
    bool empty = true;
    DIR *dp = opendir(dir);
    if (!dp)
        return false;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            empty = false;
    closedir(dp);
    return empty;
}

/* `sheaf new site DIR`: argv[1] is "site". Refuses a folder that is not
 * empty before writing anything, then writes site.yaml, a first post, an
 * about page, templates/ and .gitignore. Returns the exit status. */
static int new_site(int argc, char **argv)
{
    const char *dir = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            USAGE(stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error(cli_command_find("new"), "unknown option '%s' (new site takes only DIR)",
                                   argv[i]);
        } else if (!dir) {
            dir = argv[i];
        } else {
            return cli_usage_error(cli_command_find("new"), "give one folder");
        }
    }
    if (!dir || !*dir) {
        return cli_usage_error(cli_command_find("new"), "a folder is needed");
    }
    diag_list *d = diag_list_new();
    bool exists, ok = true;
    if (!dir_is_empty(dir, &exists)) {
        diag_error(d, dir, 0, 0,
                   "folder is not empty: `sheaf new site` creates a site only in a new or "
                   "empty folder, so nothing was written");
        ok = false;
    }
    char *posts = join2(dir, "content/posts"), *tdir = join2(dir, "templates");
    if (ok && (!make_dirs(posts) || !make_dirs(tdir))) {
        diag_error(d, dir, 0, 0, "cannot create folder: %s", strerror(errno));
        ok = false;
    }
    static const struct {
        const char *rel, *text;
    } files[] = {
        { "site.yaml", site_yaml },
        { "content/about.md", about_md },
        { "templates/README.md", templates_readme },
        { ".gitignore", gitignore },
    };
    for (size_t i = 0; ok && i < sizeof files / sizeof files[0]; i++) {
        char *p = join2(dir, files[i].rel);
        ok = write_new(p, files[i].text, strlen(files[i].text), d);
        free(p);
    }
    buf path = BUF_INIT;
    if (ok && (ok = create_post(dir, "posts", "Hello, world", "hello", NULL, false, &path, d))) {
        FILE *f = fopen(path.data, "a");
        if (!f || fputs(hello_body, f) < 0 || fclose(f) != 0) {
            diag_error(d, path.data, 0, 0, "cannot write: %s", strerror(errno));
            ok = false;
        }
    }
    cli_print_diags(d);
    if (ok)
        printf("Created a site in %s: build it with `sheaf build -s %s`, add a post with "
               "`sheaf new post -s %s \"Title\"`\n",
               dir, dir, dir);
    buf_release(&path);
    free(posts);
    free(tdir);
    diag_list_free(d);
    return ok ? 0 : 1;
}

/* `sheaf new site|post …`: argv[0] is "new". Returns the exit status. */
int cli_new(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "site"))
        return new_site(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "post"))
        return new_post(argc, argv);
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        USAGE(stdout);
        return 0;
    }
    if (argc < 2)
        return cli_usage_error(cli_command_find("new"), "new what? site or post");
    return cli_usage_error(cli_command_find("new"), "'%s': new makes a site or a post", argv[1]);
}
