/* Unit tests for render/session's SHEAF_CHECK_INCREMENTAL: after a fast
 * rebuild the output folder is compared with a full build made in memory;
 * a match goes on quietly, any difference aborts with a report of it. */
#include "harness.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "render/build.h"
#include "util/buf.h"
#include "util/fs.h"

static char root[256];

/* Each test's folder in /tmp: made empty, and removed at its end. */
static bool new_root(void)
{
    snprintf(root, sizeof root, "/tmp/sheaf-test-session-XXXXXX");
    return mkdtemp(root) != NULL;
}

static bool remove_root(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0;
}

static void put(const char *dir, const char *rel, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s/%s", root, dir, rel);
    char *slash = strrchr(path, '/');
    *slash = 0;
    fs_mkdirs(path);
    *slash = '/';
    fs_write_file(path, text, strlen(text));
}

/* The options of a session building root/site into root/out: their paths
 * go to site and out (room for 300 bytes each, to outlive the options). */
static build_options session_options(char *site, char *out)
{
    snprintf(site, 300, "%s/site", root);
    snprintf(out, 300, "%s/out", root);
    return (build_options){ .site_dir = site, .out_dir = out, .write = true, .jobs = 2 };
}

TEST(check_incremental)
{
    OK(new_root());
    put("site", "site.yaml", "title: Checked\n");
    put("site", "content/posts/2024-01-01-a.md", "---\ntitle: A\ntags: [x]\n---\nFirst words.\n");
    put("site", "content/posts/2024-01-02-b.md", "---\ntitle: B\n---\nB links to [a](2024-01-01-a.md).\n");
    char site[300], out[300];
    setenv("SHEAF_CHECK_INCREMENTAL", "1", 1);
    build_options o = session_options(site, out);
    build_session *s = build_session_new(&o);
    diag_list *d = diag_list_new();
    build_stats st, full;
    const char *changed[] = { "content/posts/2024-01-01-a.md" };

    OK(build_session_run(s, NULL, 0, d, &full));
    EQ_INT(diag_count(d), 0);

    /* a body edit: a fast rebuild, which a full build agrees with */
    put("site", changed[0], "---\ntitle: A\ntags: [x]\n---\nSecond words.\n");
    OK(build_session_run(s, changed, 1, d, &st));
    EQ_INT(diag_count(d), 0);
    OK(st.rendered < full.rendered); /* it was the fast path */

    /* the output folder tampered with behind the session's back: the next
     * fast rebuild cannot know, and the check aborts, saying what differs
     * (a file of someone else's beside them, stray.html, is no difference:
     * every build carries it over) */
    fflush(stderr);
    char log[300];
    snprintf(log, sizeof log, "%s/stderr", root);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        put("out", "stray.html", "not sheaf's\n");
        put("out", "tags/index.html", "changed by hand\n");
        put("site", changed[0], "---\ntitle: A\ntags: [x]\n---\nThird words.\n");
        build_session_run(s, changed, 1, d, &st);
        _exit(0); /* not reached when the check works */
    }
    int status = 0;
    OK(waitpid(pid, &status, 0) == pid);
    OK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    buf err = BUF_INIT;
    OK(fs_read_file(log, &err));
    OK(strstr(err.data, "sheaf: SHEAF_CHECK_INCREMENTAL: the fast rebuild's output is not a full "
                        "build's:\n") != NULL);
    OK(strstr(err.data, "tags/index.html: differs from a full build at line 1 (- fast rebuild, + "
                        "full build):\n- changed by hand\n+ <!DOCTYPE html>\n") != NULL);
    OK(strstr(err.data, "stray.html") == NULL);
    buf_release(&err);

    diag_list_free(d);
    build_session_free(s);
    OK(remove_root());
}

static bool file_has(const char *rel, const char *needle)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    buf b = BUF_INIT;
    bool ok = fs_read_file(path, &b) && strstr(b.data, needle);
    buf_release(&b);
    return ok;
}

/* Whether the session's output folder `out` (default root/out) holds what a
 * fresh build of the site writes, byte for byte, its manifest too. */
static bool same_as_fresh(const char *site, const char *out)
{
    char dflt[320];
    snprintf(dflt, sizeof dflt, "%s/out", root);
    if (!out)
        out = dflt;
    char fresh[300], cmd[1000];
    snprintf(fresh, sizeof fresh, "%s/fresh", root);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fresh);
    if (system(cmd) != 0)
        return false;
    build_options o = { .site_dir = site, .out_dir = fresh, .write = true, .jobs = 2 };
    diag_list *d = diag_list_new();
    bool ok = build_site(&o, d, NULL) && diag_count(d) == 0;
    diag_list_free(d);
    snprintf(cmd, sizeof cmd, "diff -r '%s' '%s' >&2", out, fresh);
    return ok && system(cmd) == 0;
}

/* Editing a shortcode's template, or what it includes, writes again the
 * Markdown of exactly the pages using it; the site's values too. Every
 * run's output is a full build's (the session keeps the others' HTML). */
TEST(shortcode_edits)
{
    OK(new_root());
    put("site", "site.yaml", "title: One\n");
    put("site", "templates/shortcodes/badge.html",
        "<span class=\"badge\">{{ args[0] }}{% include \"partials/mark.html\" %}</span>");
    put("site", "templates/partials/mark.html", "!");
    put("site", "templates/shortcodes/title.html", "<b>{{ site.title }}/{{ page.title }}</b>");
    put("site", "content/posts/2024-01-01-a.md", "---\ntitle: A\n---\nA {{< badge new >}}.\n");
    put("site", "content/posts/2024-01-02-b.md", "---\ntitle: B\n---\nB {{< title >}}.\n");
    put("site", "content/posts/2024-01-03-c.md", "---\ntitle: C\n---\nC plain.\n");
    char site[300], out[300];
    build_options o = session_options(site, out);
    build_session *s = build_session_new(&o);
    diag_list *d = diag_list_new();
    build_stats st;
    OK(build_session_run(s, NULL, 0, d, &st));
    EQ_INT(diag_count(d), 0);
    EQ_INT(st.markdown, 3);
    OK(file_has("out/posts/a/index.html", "<span class=\"badge\">new!</span>"));
    OK(file_has("out/posts/b/index.html", "<b>One/B</b>"));

    const char *t1[] = { "templates/shortcodes/badge.html" };
    put("site", t1[0], "<em class=\"badge\">{{ args[0] }}{% include \"partials/mark.html\" %}</em>");
    OK(build_session_run(s, t1, 1, d, &st));
    EQ_INT(diag_count(d), 0);
    EQ_INT(st.markdown, 1);
    OK(file_has("out/posts/a/index.html", "<em class=\"badge\">new!</em>"));
    OK(same_as_fresh(site, NULL));

    const char *t2[] = { "templates/partials/mark.html" };
    put("site", t2[0], "?");
    OK(build_session_run(s, t2, 1, d, &st));
    EQ_INT(st.markdown, 1);
    OK(file_has("out/posts/a/index.html", "<em class=\"badge\">new?</em>"));
    OK(same_as_fresh(site, NULL));

    const char *t3[] = { "site.yaml" };
    put("site", t3[0], "title: Two\n");
    OK(build_session_run(s, t3, 1, d, &st));
    OK(file_has("out/posts/b/index.html", "<b>Two/B</b>"));
    OK(same_as_fresh(site, NULL));

    /* a data file a shortcode reads: that page's Markdown again */
    put("site", "templates/shortcodes/who.html", "<i>{{ site.data.people.lead }}</i>");
    put("site", "data/people.yaml", "lead: Ann\n");
    put("site", "content/posts/2024-01-03-c.md", "---\ntitle: C\n---\nC {{< who >}}.\n");
    const char *t4[] = { "templates/shortcodes/who.html", "data/people.yaml", "content/posts/2024-01-03-c.md" };
    OK(build_session_run(s, t4, 3, d, &st));
    OK(file_has("out/posts/c/index.html", "<i>Ann</i>"));
    put("site", "data/people.yaml", "lead: Bo\n");
    OK(build_session_run(s, t4 + 1, 1, d, &st));
    EQ_INT(diag_count(d), 0);
    OK(file_has("out/posts/c/index.html", "<i>Bo</i>"));
    OK(same_as_fresh(site, NULL));

    /* a body edit of a page using one: the fast path, checked */
    setenv("SHEAF_CHECK_INCREMENTAL", "1", 1);
    build_session_free(s);
    s = build_session_new(&o);
    OK(build_session_run(s, NULL, 0, d, &st));
    const char *p1[] = { "content/posts/2024-01-01-a.md" };
    put("site", p1[0], "---\ntitle: A\n---\nA {{< badge newer >}}.\n");
    OK(build_session_run(s, p1, 1, d, &st));
    OK(file_has("out/posts/a/index.html", "<em class=\"badge\">newer?</em>"));
    EQ_INT(diag_count(d), 0);
    unsetenv("SHEAF_CHECK_INCREMENTAL");

    diag_list_free(d);
    build_session_free(s);
    OK(remove_root());
}

/* A link with no text to another note's figure shows that note's title
 * and the figure's number: editing either (the figures' order, the
 * title, the linking note itself) writes what a full build writes. */
TEST(label_edits)
{
    OK(new_root());
    setenv("SHEAF_CHECK_INCREMENTAL", "1", 1);
    put("site", "site.yaml", "title: Labels\n");
    put("site", "content/posts/2024-01-01-a.md",
        "---\ntitle: A\n---\n![one](x.svg){#fig-one}\n\n![two](x.svg){#fig-two}\n");
    /* a real image: a corrupt one is an error now that images are sized */
    put("site", "content/posts/x.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 4 2\"/>");
    put("site", "content/posts/2024-01-02-b.md", "---\ntitle: B\n---\nSee [](2024-01-01-a.md#fig-two).\n");
    char site[300], out[300];
    build_options o = session_options(site, out);
    build_session *s = build_session_new(&o);
    diag_list *d = diag_list_new();
    build_stats st;
    OK(build_session_run(s, NULL, 0, d, &st));
    EQ_INT(diag_count(d), 0);
    OK(file_has("out/posts/b/index.html", ">Figure\u00a02 in <em>A</em></a>"));
    const char *a1[] = { "content/posts/2024-01-01-a.md" };
    put("site", a1[0], "---\ntitle: A\n---\n![two](x.svg){#fig-two}\n\n![one](x.svg){#fig-one}\n");
    OK(build_session_run(s, a1, 1, d, &st));
    EQ_INT(diag_count(d), 0);
    OK(file_has("out/posts/b/index.html", ">Figure\u00a01 in <em>A</em></a>"));
    OK(same_as_fresh(site, NULL));
    put("site", a1[0], "---\ntitle: Renamed\n---\n![two](x.svg){#fig-two}\n\n![one](x.svg){#fig-one}\n");
    OK(build_session_run(s, a1, 1, d, &st));
    OK(file_has("out/posts/b/index.html", ">Figure\u00a01 in <em>Renamed</em></a>"));
    OK(same_as_fresh(site, NULL));
    const char *b1[] = { "content/posts/2024-01-02-b.md" };
    put("site", b1[0], "---\ntitle: B\n---\nNow see [](2024-01-01-a.md#fig-two).\n");
    OK(build_session_run(s, b1, 1, d, &st));
    OK(file_has("out/posts/b/index.html", "Now see <a href=\"/posts/a/#fig-two\">Figure\u00a01 in <em>Renamed</em></a>"));
    OK(same_as_fresh(site, NULL));
    EQ_INT(diag_count(d), 0);
    unsetenv("SHEAF_CHECK_INCREMENTAL");
    diag_list_free(d);
    build_session_free(s);
    OK(remove_root());
}

/* Fast rebuilds leave the edited page's old text and HTML in the model's
 * arena; once that passes the limit (8 MB for a small site), the next
 * rebuild is a full one, and the one after is fast again: memory stays
 * bounded over any number of saves, the output always a full build's. */
TEST(garbage_bounded)
{
    OK(new_root());
    put("site", "site.yaml", "title: Saved often\n");
    put("site", "content/posts/2024-01-02-b.md", "---\ntitle: B\n---\nA small post.\n");
    buf body = BUF_INIT;
    while (body.len < 256 * 1024)
        buf_puts(&body, "Words of a long post that is saved again and again, a paragraph at "
                        "a time, with nothing in it but plain text.\n\n");
    const char *changed[] = { "content/posts/2024-01-01-a.md" };
    char site[300], out[300];
    setenv("SHEAF_CHECK_INCREMENTAL", "1", 1);
    build_options o = session_options(site, out);
    build_session *s = build_session_new(&o);
    diag_list *d = diag_list_new();
    build_stats st, full;
    buf text = BUF_INIT;
    buf_printf(&text, "---\ntitle: A\n---\n%sSave 0.\n", body.data);
    put("site", changed[0], text.data);
    OK(build_session_run(s, NULL, 0, d, &full));
    int fast = 0, slow = 0, fast_after_slow = 0;
    for (int i = 1; i <= 48; i++) {
        buf_reset(&text);
        buf_printf(&text, "---\ntitle: A\n---\n%sSave %d.\n", body.data, i);
        put("site", changed[0], text.data);
        OK(build_session_run(s, changed, 1, d, &st));
        if (st.rendered < full.rendered) {
            fast++;
            fast_after_slow += slow > 0;
        } else {
            slow++;
        }
    }
    EQ_INT(diag_count(d), 0);
    OK(slow >= 2);            /* the arena was renewed, more than once */
    OK(fast >= 40);           /* and most saves still took the fast path */
    OK(fast_after_slow > 0);  /* which comes back after a full rebuild */
    buf_release(&text);
    buf_release(&body);
    diag_list_free(d);
    build_session_free(s);
    OK(remove_root());
}

/* Sections and their _index.md in a build session (issue 15): an edit of
 * an _index.md, of a note's body or title, of its tags, each leaves the
 * output a fresh build's (fast rebuilds are also checked by
 * SHEAF_CHECK_INCREMENTAL). */
TEST(sections_incremental)
{
    OK(new_root());
    put("site", "site.yaml", "title: Sectioned\npaginate: 1\ntaxonomies: [tags, categories, series]\n"
                             "first_page_alias: true\nfeed_copies: [index.xml]\npaginate_path: \"p:num/\"\n");
    put("site", "content/_index.md", "---\ntitle: Home\n---\nHello.\n");
    put("site", "content/notes/_index.md", "---\ntitle: Notes\n---\nIntro one.\n");
    put("site", "content/notes/2024-01-01-a.md", "---\ntitle: A\ntags: [x]\n---\nFirst.\n");
    put("site", "content/notes/2024-01-02-b.md", "---\ntitle: B\n---\nSee [a](2024-01-01-a.md).\n");
    put("site", "content/posts/2024-01-03-c.md", "---\ntitle: C\ntags: [x]\n---\nA post.\n");
    char site[300], out[300];
    setenv("SHEAF_CHECK_INCREMENTAL", "1", 1);
    build_options o = session_options(site, out);
    build_session *s = build_session_new(&o);
    diag_list *d = diag_list_new();
    build_stats st, full;
    OK(build_session_run(s, NULL, 0, d, &full));
    EQ_INT(diag_count(d), 0);
    OK(same_as_fresh(site, out));
    OK(file_has("out/notes/p1/index.html", "<meta http-equiv=\"refresh\""));
    OK(file_has("out/notes/p2/index.html", "<h1")); /* paginate_path */
    OK(file_has("out/p3/index.html", "<h1"));
    OK(file_has("out/tags/index.xml", "<entry>\n<title>x</title>"));

    const char *idx[] = { "content/notes/_index.md" };
    put("site", idx[0], "---\ntitle: Field notes\n---\nIntro two.\n");
    OK(build_session_run(s, idx, 1, d, &st));
    EQ_INT(diag_count(d), 0);
    OK(same_as_fresh(site, out));

    const char *home[] = { "content/_index.md" };
    put("site", home[0], "---\ntitle: Home\n---\nHello again.\n");
    OK(build_session_run(s, home, 1, d, &st));
    OK(same_as_fresh(site, out));

    const char *note[] = { "content/notes/2024-01-01-a.md" };
    put("site", note[0], "---\ntitle: A\ntags: [x]\n---\nFirst, edited.\n");
    OK(build_session_run(s, note, 1, d, &st));
    OK(st.rendered < full.rendered); /* the fast path */
    OK(same_as_fresh(site, out));
    put("site", note[0], "---\ntitle: A renamed\ntags: [x]\n---\nFirst, edited.\n");
    OK(build_session_run(s, note, 1, d, &st));
    OK(same_as_fresh(site, out));
    put("site", note[0], "---\ntitle: A renamed\ntags: [x, y]\n---\nFirst, edited.\n");
    OK(build_session_run(s, note, 1, d, &st));
    OK(same_as_fresh(site, out));
    /* a term of another taxonomy: its pages change, so not the fast path */
    put("site", note[0], "---\ntitle: A renamed\ntags: [x, y]\nseries: one\n---\nFirst, edited.\n");
    OK(build_session_run(s, note, 1, d, &st));
    OK(same_as_fresh(site, out));
    put("site", note[0], "---\ntitle: A renamed\ntags: [x, y]\nseries: two\ncategories: c\n---\nFirst, edited.\n");
    OK(build_session_run(s, note, 1, d, &st));
    OK(same_as_fresh(site, out));
    OK(st.rendered > full.rendered); /* a full run, with the new terms' pages, feeds and indexes */
    OK(file_has("out/series/atom.xml", "<entry>\n<title>two</title>")); /* the feed of the terms */
    EQ_INT(diag_count(d), 0);
    /* one more post: one more page of the home page's list, at paginate_path */
    const char *more[] = { "content/posts/2024-01-04-d.md" };
    put("site", more[0], "---\ntitle: D\ntags: [x]\n---\nAnother post.\n");
    OK(build_session_run(s, more, 1, d, &st));
    OK(same_as_fresh(site, out));
    OK(file_has("out/p4/index.html", "<h1"));
    EQ_INT(diag_count(d), 0);
    /* paginate_path changed in site.yaml: the lists' later pages move (the
     * old ones are removed, as a fresh build has none) */
    const char *cfg[] = { "site.yaml" };
    put("site", cfg[0], "title: Sectioned\npaginate: 1\ntaxonomies: [tags, categories, series]\n"
                        "first_page_alias: true\nfeed_copies: [index.xml]\npaginate_path: \"n/:num/\"\n");
    OK(build_session_run(s, cfg, 1, d, &st));
    OK(same_as_fresh(site, out));
    OK(file_has("out/n/4/index.html", "<h1"));
    OK(file_has("out/notes/n/1/index.html", "<meta http-equiv=\"refresh\""));
    char gone[600];
    snprintf(gone, sizeof gone, "%s/out/p4/index.html", root);
    OK(access(gone, F_OK) != 0);
    EQ_INT(diag_count(d), 0);

    diag_list_free(d);
    build_session_free(s);
    OK(remove_root());
}

/* The search index after edits: a page's keys are made with its Markdown
 * and kept by the session, so an edited body, title or heading, a kept
 * page and search switched on later each give a fresh build's index. */
TEST(search_index_edits)
{
    OK(new_root());
    put("site", "site.yaml", "title: One\nsearch: false\n");
    put("site", "content/posts/2024-01-01-a.md", "---\ntitle: Alpha\n---\nGradient descent.\n\n## Results\n\nFast.\n");
    put("site", "content/posts/2024-01-02-b.md", "---\ntitle: Beta\n---\n梯度下降 notes.\n");
    char site[300], out[300];
    build_options o = session_options(site, out);
    setenv("SHEAF_CHECK_INCREMENTAL", "1", 1);
    build_session *s = build_session_new(&o);
    diag_list *d = diag_list_new();
    build_stats st;
    OK(build_session_run(s, NULL, 0, d, &st));
    EQ_INT(diag_count(d), 0);

    /* on: the kept Markdown has no keys yet */
    const char *cfg[] = { "site.yaml" };
    put("site", cfg[0], "title: One\nsearch: true\n");
    OK(build_session_run(s, cfg, 1, d, &st));
    EQ_INT(diag_count(d), 0);
    OK(file_has("out/search/seg/0.json", "gradient"));
    OK(file_has("out/search/seg/0.json", "梯度"));
    OK(same_as_fresh(site, NULL));

    /* a body edit (the fast path): the new word in, the old one out */
    const char *a[] = { "content/posts/2024-01-01-a.md" };
    put("site", a[0], "---\ntitle: Alpha\n---\nMomentum descent.\n\n## Results\n\nFast.\n");
    OK(build_session_run(s, a, 1, d, &st));
    EQ_INT(diag_count(d), 0);
    OK(file_has("out/search/seg/0.json", "momentum"));
    OK(!file_has("out/search/seg/0.json", "gradient"));
    OK(same_as_fresh(site, NULL));

    /* a title edit, then a new heading */
    put("site", a[0], "---\ntitle: Adagrad\n---\nMomentum descent.\n\n## Results\n\nFast.\n");
    OK(build_session_run(s, a, 1, d, &st));
    OK(file_has("out/search/seg/0.json", "adagrad"));
    OK(same_as_fresh(site, NULL));
    put("site", a[0], "---\ntitle: Adagrad\n---\nMomentum descent.\n\n## Ablations\n\nFast.\n");
    OK(build_session_run(s, a, 1, d, &st));
    EQ_INT(diag_count(d), 0);
    OK(file_has("out/search/seg/0.json", "ablations"));
    OK(same_as_fresh(site, NULL));
    unsetenv("SHEAF_CHECK_INCREMENTAL");

    diag_list_free(d);
    build_session_free(s);
    OK(remove_root());
}

/* A citing post retitled: the fast path, and the page of each paper it
 * cites lists it by its new title (they listed the old one until
 * 2026-11-27). The post has no neighbours and no links, so nothing else
 * refers to it. */
TEST(citations_incremental)
{
    OK(new_root());
    put("site", "site.yaml", "title: Cited\nbibliography: refs.bib\n");
    put("site", "refs.bib", "@article{lian2017,\n  author = {Lian, Xiangru},\n  title = {Can "
                            "Decentralized Algorithms Outperform Centralized Ones?},\n  journal = "
                            "{NeurIPS},\n  year = 2017\n}\n");
    const char *post[] = { "content/posts/2024-01-01-a.md" };
    put("site", post[0], "---\ntitle: Gossip\n---\nDecentralized SGD works [@lian2017].\n");
    char site[300], out[300];
    build_options o = session_options(site, out);
    build_session *s = build_session_new(&o);
    diag_list *d = diag_list_new();
    build_stats st, full;
    OK(build_session_run(s, NULL, 0, d, &full));
    EQ_INT(diag_count(d), 0);
    OK(file_has("out/papers/lian2017/index.html", ">Gossip</a>"));

    put("site", post[0], "---\ntitle: Gossip, retitled\n---\nDecentralized SGD works [@lian2017].\n");
    OK(build_session_run(s, post, 1, d, &st));
    EQ_INT(diag_count(d), 0);
    OK(st.rendered < full.rendered); /* the fast path */
    OK(file_has("out/papers/lian2017/index.html", ">Gossip, retitled</a>"));
    OK(same_as_fresh(site, out));

    diag_list_free(d);
    build_session_free(s);
    OK(remove_root());
}

/* A session keeps each page's rendered Markdown between runs: an edit of
 * the .bib or of site.yaml's citation_style (each a full run, no page's
 * bytes changed) renders the citing pages again, as a fresh build does. */
/* A run of session s for the files changed[0..n) (NULL: all) that
 * succeeds and says nothing. */
static bool run_quietly(build_session *s, const char *const *changed, size_t n, diag_list *d)
{
    build_stats st;
    return build_session_run(s, changed, n, d, &st) && diag_count(d) == 0;
}

TEST(citations_config_edits)
{
    OK(new_root());
    put("site", "site.yaml", "title: Cites\nbibliography: refs.bib\n");
    put("site", "refs.bib", "@article{lian2017, author = {Lian, Xiangru}, title = {Gossip}, year = {2017}}\n");
    const char *post[] = { "content/posts/2024-01-01-a.md", "content/posts/2024-01-02-b.md" };
    put("site", post[0], "---\ntitle: A\n---\nAs shown [@lian2017].\n");
    put("site", post[1], "---\ntitle: B\n---\nNo citation.\n");
    char site[300], out[300];
    build_options o = session_options(site, out);
    build_session *s = build_session_new(&o);
    diag_list *d = diag_list_new();
    OK(run_quietly(s, NULL, 0, d));
    OK(file_has("out/posts/a/index.html", "(Lian 2017)"));

    const char *bib[] = { "refs.bib" };
    put("site", bib[0], "@article{lian2017, author = {Zhang, Ce}, title = {Gossip}, year = {2017}}\n");
    OK(run_quietly(s, bib, 1, d));
    OK(file_has("out/posts/a/index.html", "(Zhang 2017)"));
    OK(same_as_fresh(site, out));

    const char *cfg[] = { "site.yaml" };
    put("site", cfg[0], "title: Cites\nbibliography: refs.bib\ncitation_style: numeric\n");
    OK(run_quietly(s, cfg, 1, d));
    OK(file_has("out/posts/a/index.html", ">[1]<"));
    OK(same_as_fresh(site, out));

    /* and a fast rebuild after them (a page without citations edited) */
    setenv("SHEAF_CHECK_INCREMENTAL", "1", 1);
    put("site", post[1], "---\ntitle: B, retitled\n---\nNo citation.\n");
    OK(run_quietly(s, &post[1], 1, d));
    OK(same_as_fresh(site, out));

    diag_list_free(d);
    build_session_free(s);
    OK(remove_root());
}

/* A page's parse depends on the configuration (which front-matter keys
 * are taxonomies): after an edit of site.yaml the session parses every
 * page again, and writes what a fresh build writes. */
TEST(config_edits_reparse)
{
    OK(new_root());
    put("site", "site.yaml", "title: Terms\ntaxonomies: [tags, categories]\n");
    put("site", "content/posts/2024-01-01-a.md", "---\ntitle: A\ntags: [x]\ncategories: [c]\n---\nA.\n");
    char site[300], out[300];
    build_options o = session_options(site, out);
    build_session *s = build_session_new(&o);
    diag_list *d = diag_list_new();
    OK(run_quietly(s, NULL, 0, d));
    OK(file_has("out/categories/c/index.html", "<title>"));
    const char *cfg[] = { "site.yaml" };
    put("site", cfg[0], "title: Terms\ntaxonomies: [tags]\n");
    OK(run_quietly(s, cfg, 1, d));
    OK(same_as_fresh(site, out));
    put("site", cfg[0], "title: Terms\ntaxonomies: [categories, tags]\n");
    OK(run_quietly(s, cfg, 1, d));
    OK(same_as_fresh(site, out));
    diag_list_free(d);
    build_session_free(s);
    OK(remove_root());
}

int main(void)
{
    RUN(check_incremental);
    RUN(shortcode_edits);
    RUN(label_edits);
    RUN(garbage_bounded);
    RUN(sections_incremental);
    RUN(search_index_edits);
    RUN(citations_incremental);
    RUN(citations_config_edits);
    RUN(config_edits_reparse);
    return harness_done();
}
