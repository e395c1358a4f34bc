/* test_csl: citeproc-js in Duktape (src/js/csl.c) — one document's
 * clusters and bibliography in an author-date and a numeric style,
 * disambiguation across the document, locators, prefixes and
 * suppress-author, GB/T 7714's per-item language (等 / et al.), a missing
 * locale, a broken style, and the budget. Styles and locales come from
 * Debian's citation-style-language-styles and -locales (scripts/deps.sh). */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "js/csl.h"
#include "util/fs.h"

#define CSL_DIR "/usr/share/citation-style-language/"

static char *read_or_null(const char *path)
{
    buf b = BUF_INIT;
    if (!fs_read_file(path, &b)) {
        buf_release(&b);
        return NULL;
    }
    return buf_detach(&b, NULL);
}

/* locales read once, kept until the end (they must outlive the engine) */
static struct {
    char lang[16];
    char *xml;
} locales[16];

static const char *refuse_fr; /* a locale the test pretends is missing */

static const char *locale(void *ud, const char *lang, size_t *len)
{
    (void)ud;
    if (refuse_fr && !strcmp(lang, refuse_fr))
        return NULL;
    for (size_t i = 0; i < 16; i++) {
        if (!locales[i].xml) {
            char path[128];
            snprintf(path, sizeof path, CSL_DIR "locales/locales-%s.xml", lang);
            locales[i].xml = read_or_null(path);
            if (!locales[i].xml)
                return NULL;
            snprintf(locales[i].lang, sizeof locales[i].lang, "%s", lang);
        }
        if (!strcmp(locales[i].lang, lang)) {
            *len = strlen(locales[i].xml);
            return locales[i].xml;
        }
    }
    return NULL;
}

static const char items[] =
    "[{\"id\":\"knuth84\",\"type\":\"article-journal\",\"title\":\"Literate programming\","
    "\"author\":[{\"family\":\"Knuth\",\"given\":\"Donald E.\"}],\"container-title\":\"The "
    "Computer Journal\",\"volume\":\"27\",\"issue\":\"2\",\"page\":\"97-111\","
    "\"issued\":{\"date-parts\":[[1984]]}},"
    "{\"id\":\"vaswani\",\"type\":\"paper-conference\",\"language\":\"en\",\"title\":\"Attention is all "
    "you need\",\"author\":[{\"family\":\"Vaswani\",\"given\":\"Ashish\"},{\"family\":\"Shazeer\","
    "\"given\":\"Noam\"},{\"family\":\"Parmar\",\"given\":\"Niki\"},{\"family\":\"Uszkoreit\","
    "\"given\":\"Jakob\"}],\"container-title\":\"Advances in Neural Information Processing "
    "Systems\",\"issued\":{\"date-parts\":[[2017]]}},"
    "{\"id\":\"lian-a\",\"type\":\"article-journal\",\"title\":\"Alpha\",\"author\":[{\"family\":"
    "\"Lian\",\"given\":\"Xiangru\"}],\"container-title\":\"J\",\"issued\":{\"date-parts\":[[2017]]}},"
    "{\"id\":\"lian-b\",\"type\":\"article-journal\",\"title\":\"Beta\",\"author\":[{\"family\":"
    "\"Lian\",\"given\":\"Xiangru\"}],\"container-title\":\"J\",\"issued\":{\"date-parts\":[[2017]]}},"
    "{\"id\":\"zhang\",\"type\":\"article-journal\",\"language\":\"zh-CN\",\"title\":\"深度学习研究综述\","
    "\"author\":[{\"family\":\"张\",\"given\":\"三\"},{\"family\":\"李\",\"given\":\"四\"},"
    "{\"family\":\"王\",\"given\":\"五\"},{\"family\":\"赵\",\"given\":\"六\"}],"
    "\"container-title\":\"计算机学报\",\"volume\":\"40\",\"issue\":\"1\",\"page\":\"1-23\","
    "\"issued\":{\"date-parts\":[[2017]]}}]";

/* The request for style `name` (its file's text, JSON-quoted here by
 * hand: a style has no control characters but new lines and tabs). */
static void request(buf *q, const char *name, const char *lang, const char *clusters, bool layouts)
{
    char path[160];
    snprintf(path, sizeof path, CSL_DIR "styles/%s.csl", name);
    char *style = read_or_null(path);
    if (!style) {
        style = strdup("<not a style");
    }
    buf_puts(q, "{\"style\":\"");
    for (const char *s = style; *s; s++) {
        if (*s == '"' || *s == '\\')
            buf_printf(q, "\\%c", *s);
        else if (*s == '\n')
            buf_puts(q, "\\n");
        else if (*s == '\t' || *s == '\r')
            buf_putc(q, ' ');
        else
            buf_putc(q, *s);
    }
    free(style);
    buf_printf(q, "\",\"key\":\"%s\",\"lang\":\"%s\",\"items\":%s,\"clusters\":%s,\"item_layouts\":%s}",
               name, lang, items, clusters, layouts ? "true" : "false");
}

static bool render(js_csl *k, const char *name, const char *lang, const char *clusters, bool layouts,
                   buf *out, buf *err)
{
    buf q = BUF_INIT;
    request(&q, name, lang, clusters, layouts);
    bool ok = js_csl_render(k, q.data, q.len, out, err);
    buf_release(&q);
    return ok;
}

/* One engine for the tests that do not spend it: building apa's processor
 * alone takes seconds of CPU. */
static js_csl *shared;

static js_csl *new_engine(void)
{
    buf err = BUF_INIT;
    js_csl *k = js_csl_new(locale, NULL, &err);
    if (!k)
        FAILF("js_csl_new: %s", err.data);
    buf_release(&err);
    return k;
}

static js_csl *engine(void)
{
    if (!shared)
        shared = new_engine();
    return shared;
}

TEST(version)
{
    OK(!strncmp(js_csl_version(), "citeproc-js-1.4.61-", 19));
    OK(strstr(js_csl_version(), "/duktape-") != NULL);
}

TEST(author_date)
{
    js_csl *k = engine();
    if (!k)
        return;
    buf out = BUF_INIT, err = BUF_INIT;
    OK(render(k, "apa", "en-US",
              "[[{\"id\":\"knuth84\",\"locator\":\"12\",\"label\":\"page\"},{\"id\":\"vaswani\"}],"
              "[{\"id\":\"lian-a\",\"prefix\":\"see \"}],[{\"id\":\"lian-b\",\"suppress-author\":true}]]",
              false, &out, &err));
    EQ_STR(err.data, "");
    /* the clusters; 2017a/2017b across the document */
    OK(strstr(out.data, "\"(Knuth, 1984, p. 12; Vaswani et al., 2017)\"") != NULL);
    OK(strstr(out.data, "\"(see Lian, 2017a)\"") != NULL);
    OK(strstr(out.data, "\"(2017b)\"") != NULL);
    /* the bibliography: by author, each with its key */
    const char *kn = strstr(out.data, "[\"knuth84\",\"");
    const char *la = strstr(out.data, "[\"lian-a\",\"");
    const char *va = strstr(out.data, "[\"vaswani\",\"");
    OK(kn && la && va && kn < la && la < va);
    OK(strstr(out.data, "Knuth, D. E. (1984). Literate programming. <i>The Computer Journal</i>, "
                        "<i>27</i>(2), 97–111.") != NULL);
    OK(strstr(out.data, "\"numeric\":false") != NULL);
    /* a second document with the same processor starts afresh */
    buf_reset(&out);
    OK(render(k, "apa", "en-US", "[[{\"id\":\"lian-b\"}]]", false, &out, &err));
    OK(strstr(out.data, "\"(Lian, 2017)\"") != NULL);
    OK(strstr(out.data, "lian-a") == NULL);
    buf_release(&out);
    buf_release(&err);
}

TEST(numeric)
{
    js_csl *k = engine();
    if (!k)
        return;
    buf out = BUF_INIT, err = BUF_INIT;
    OK(render(k, "ieee", "en-US",
              "[[{\"id\":\"vaswani\"}],[{\"id\":\"knuth84\",\"locator\":\"4\",\"label\":\"page\"}],"
              "[{\"id\":\"vaswani\"},{\"id\":\"knuth84\"}]]",
              false, &out, &err));
    EQ_STR(err.data, "");
    /* numbered in order of first citation */
    OK(strstr(out.data, "\"clusters\":[\"[1]\",\"[2, p. 4]\",\"[1], [2]\"]") != NULL);
    const char *va = strstr(out.data, "[\"vaswani\",\""), *kn = strstr(out.data, "[\"knuth84\",\"");
    OK(va && kn && va < kn);
    OK(strstr(out.data, "\"numeric\":true") != NULL);
    buf_release(&out);
    buf_release(&err);
}

TEST(gbt_languages)
{
    js_csl *k = engine();
    if (!k)
        return;
    buf out = BUF_INIT, err = BUF_INIT;
    const char *cl = "[[{\"id\":\"vaswani\"},{\"id\":\"zhang\"}]]";
    OK(render(k, "china-national-standard-gb-t-7714-2015-numeric", "zh-CN", cl, true, &out, &err));
    EQ_STR(err.data, "");
    OK(strstr(out.data, "VASWANI A, SHAZEER N, PARMAR N, et al. Attention is all you need[C]") != NULL);
    OK(strstr(out.data, "张三, 李四, 王五, 等. 深度学习研究综述[J]. 计算机学报, 2017, 40(1): 1-23.") != NULL);
    /* without the per-item layouts the style's own locale names both */
    buf_reset(&out);
    OK(render(k, "china-national-standard-gb-t-7714-2015-numeric", "zh-CN", cl, false, &out, &err));
    OK(strstr(out.data, "PARMAR N, 等. Attention") != NULL);
    buf_release(&out);
    buf_release(&err);
}

TEST(errors)
{
    js_csl *k = engine();
    if (!k)
        return;
    buf out = BUF_INIT, err = BUF_INIT;
    refuse_fr = "fr-FR";
    OK(!render(k, "apa", "fr-FR", "[[{\"id\":\"knuth84\"}]]", false, &out, &err));
    EQ_STR(err.data, "citeproc-js: no locale 'fr-FR' for this style");
    refuse_fr = NULL;
    buf_reset(&err);
    OK(!render(k, "no-such-style", "en-US", "[[{\"id\":\"knuth84\"}]]", false, &out, &err));
    OK(!strncmp(err.data, "citeproc-js", 11));
    EQ_STR(out.data, "");
    /* the engine is still good after a thrown error */
    buf_reset(&err);
    OK(render(k, "apa", "en-US", "[[{\"id\":\"knuth84\"}]]", false, &out, &err));
    OK(strstr(out.data, "\"(Knuth, 1984)\"") != NULL);
    buf_release(&out);
    buf_release(&err);
}

TEST(budget)
{
    js_csl *k = new_engine();
    if (!k)
        return;
    buf out = BUF_INIT, err = BUF_INIT;
    js_csl_set_budget(k, 64u << 20, 1); /* a new processor takes far longer */
    OK(!render(k, "apa", "en-US", "[[{\"id\":\"knuth84\"}]]", false, &out, &err));
    EQ_STR(err.data, "formatting the citations took more than the 1 ms of CPU time they may take");
    OK(js_csl_spent(k));
    js_csl_free(k);
    k = new_engine();
    buf_reset(&err);
    js_csl_set_budget(k, 1u << 20, 60000);
    OK(!render(k, "apa", "en-US", "[[{\"id\":\"knuth84\"}]]", false, &out, &err));
    EQ_STR(err.data, "formatting the citations needed more than the 1 MB of memory they may use");
    buf_release(&out);
    buf_release(&err);
    js_csl_free(k);
}

int main(void)
{
    RUN(version);
    RUN(author_date);
    RUN(numeric);
    RUN(gbt_languages);
    RUN(errors);
    RUN(budget);
    js_csl_free(shared);
    for (size_t i = 0; i < 16; i++)
        free(locales[i].xml);
    return harness_done();
}
