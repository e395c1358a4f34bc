/* test_bib_csl: .bib entries → CSL-JSON items (src/bib/csl.c): types,
 * names (corporate, particles, Jr, "others"), dates, containers,
 * publisher and place, pages, DOI / URL / arXiv, and the language from
 * langid / language or from CJK characters. Expectations follow Pandoc's
 * `pandoc -f bibtex -t csljson` where it maps the same field. */
#include <stdlib.h>
#include <string.h>

#include "bib/csl.h"
#include "harness.h"

static char got[4096];
static const char *doc_lang = "en-US";

/* The CSL-JSON of the one entry in text, as written (raw) or without the
 * language every entry of no stated language and no CJK has (en-US),
 * which the language test checks. */
static const char *item_raw(const char *text);

static const char *item(const char *text)
{
    static const char en[] = ",\"language\":\"en-US\"}";
    const char *j = item_raw(text);
    size_t n = strlen(j);
    if (n >= sizeof en - 1 && !strcmp(got + n - (sizeof en - 1), en))
        strcpy(got + n - (sizeof en - 1), "}");
    return j;
}

static const char *item_raw(const char *text)
{
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    bib b = { 0 };
    got[0] = 0;
    if (bib_load_text(&b, text, strlen(text), "t.bib", a, d) && b.n == 1) {
        buf out = BUF_INIT;
        bib_csl_json(&b.entries[0], doc_lang, &out);
        snprintf(got, sizeof got, "%s", out.data);
        buf_release(&out);
    } else {
        snprintf(got, sizeof got, "(did not load)");
    }
    bib_free(&b);
    diag_list_free(d);
    arena_free(a);
    return got;
}

TEST(article)
{
    EQ_STR(item("@article{k, author = {Knuth, Donald E.}, title = {Literate Programming},\n"
                "journal = {The Computer Journal}, volume = 27, number = 2, pages = {97--111},\n"
                "year = 1984, month = may, doi = {https://doi.org/10.1093/comjnl/27.2.97}}"),
           "{\"id\":\"k\",\"type\":\"article-journal\",\"title\":\"Literate programming\","
           "\"container-title\":\"The Computer Journal\",\"volume\":\"27\",\"issue\":\"2\","
           "\"page\":\"97-111\",\"DOI\":\"10.1093/comjnl/27.2.97\",\"author\":[{\"family\":\"Knuth\","
           "\"given\":\"Donald E.\"}],\"issued\":{\"date-parts\":[[1984,5]]}}");
}

TEST(names)
{
    /* particles, Jr, a corporate name in braces, "and others" */
    EQ_STR(item("@inproceedings{k, author = {van der Berg, Jan and Smith, Jr., John and\n"
                "{World Health Organization} and others}, title = {T}, booktitle = {Proc. NSDI},\n"
                "series = {NSDI '18}, publisher = {USENIX}, year = 2018}"),
           "{\"id\":\"k\",\"type\":\"paper-conference\",\"title\":\"T\",\"container-title\":\"Proc. "
           "NSDI\",\"collection-title\":\"NSDI '18\",\"publisher\":\"USENIX\",\"author\":["
           "{\"family\":\"Berg\",\"given\":\"Jan\",\"dropping-particle\":\"van der\"},{\"family\":"
           "\"Smith\",\"given\":\"John\",\"suffix\":\"Jr.\"},{\"literal\":\"World Health "
           "Organization\"},{\"literal\":\"others\"}],\"issued\":{\"date-parts\":[[2018]]}}");
}

TEST(capital_particle)
{
    /* BibTeX's von part "López de"; CSL's family "López de Prado" */
    OK(strstr(item("@article{k, author = {L{\\'o}pez de Prado, Marcos}}"),
              "{\"family\":\"López de Prado\",\"given\":\"Marcos\"}") != NULL);
}

TEST(types_and_publishers)
{
    EQ_STR(item("@phdthesis{k, author = {Lian, Xiangru}, title = {T}, school = {University of "
                "Rochester}, address = {Rochester, NY}, year = 2019}"),
           "{\"id\":\"k\",\"type\":\"thesis\",\"title\":\"T\",\"publisher-place\":\"Rochester, NY\","
           "\"genre\":\"PhD thesis\",\"publisher\":\"University of Rochester\",\"author\":[{\"family\":"
           "\"Lian\",\"given\":\"Xiangru\"}],\"issued\":{\"date-parts\":[[2019]]}}");
    EQ_STR(item("@techreport{k, title = {R}, institution = {ACME}, number = {TR-12}, type = {Memo}}"),
           "{\"id\":\"k\",\"type\":\"report\",\"title\":\"R\",\"number\":\"TR-12\",\"genre\":\"Memo\","
           "\"publisher\":\"ACME\"}");
    EQ_STR(item("@incollection{k, title = {C}, booktitle = {B}, editor = {Smith, A.}, edition = 2,\n"
                "pages = {10--20}}"),
           "{\"id\":\"k\",\"type\":\"chapter\",\"title\":\"C\",\"container-title\":\"B\",\"edition\":"
           "\"2\",\"page\":\"10-20\",\"editor\":[{\"family\":\"Smith\",\"given\":\"A.\"}]}");
    /* an unknown type has none (styles then take their general branch) */
    EQ_STR(item("@dataset{k, title = {D}}"), "{\"id\":\"k\",\"type\":\"\",\"title\":\"D\"}");
}

TEST(urls)
{
    EQ_STR(item("@misc{k, title = {A}, eprint = {1706.03762}, archivePrefix = {arXiv}, year = 2017}"),
           "{\"id\":\"k\",\"type\":\"\",\"title\":\"A\",\"URL\":\"https://arxiv.org/abs/1706.03762\","
           "\"issued\":{\"date-parts\":[[2017]]}}");
    EQ_STR(item("@online{k, title = {B}, url = {https://x.org/?a=\"b\"}, urldate = {2020-01-02}}"),
           "{\"id\":\"k\",\"type\":\"webpage\",\"title\":\"B\",\"URL\":\"https://x.org/?a=\\\"b\\\"\","
           "\"accessed\":{\"date-parts\":[[2020,1,2]]}}");
}

TEST(dates)
{
    EQ_STR(item("@article{k, date = {2017-03-05}}"),
           "{\"id\":\"k\",\"type\":\"article-journal\",\"issued\":{\"date-parts\":[[2017,3,5]]}}");
    EQ_STR(item("@article{k, date = {2017/2018}}"),
           "{\"id\":\"k\",\"type\":\"article-journal\",\"issued\":{\"date-parts\":[[2017],[2018]]}}");
    EQ_STR(item("@article{k, year = {in press}}"),
           "{\"id\":\"k\",\"type\":\"article-journal\",\"issued\":{\"literal\":\"in press\"}}");
    EQ_STR(item("@article{k, year = 1999, month = {12}}"),
           "{\"id\":\"k\",\"type\":\"article-journal\",\"issued\":{\"date-parts\":[[1999,12]]}}");
    /* no year: no issued (the style says n.d.) */
    EQ_STR(item("@article{k, title = {X}}"), "{\"id\":\"k\",\"type\":\"article-journal\",\"title\":\"X\"}");
}

TEST(language)
{
    EQ_STR(item("@book{k, title = {Libro}, langid = {italian}}"),
           "{\"id\":\"k\",\"type\":\"book\",\"title\":\"Libro\",\"language\":\"it-IT\"}");
    EQ_STR(item("@book{k, title = {B}, language = {zh-TW}}"),
           "{\"id\":\"k\",\"type\":\"book\",\"title\":\"B\",\"language\":\"zh-TW\"}");
    EQ_STR(item("@article{k, author = {张三 and 李四}, title = {深度学习}}"),
           "{\"id\":\"k\",\"type\":\"article-journal\",\"title\":\"深度学习\",\"author\":[{\"family\":"
           "\"张三\"},{\"family\":\"李四\"}],\"language\":\"zh-CN\"}");
    /* Han in a name alone is enough; kana says Japanese, Hangul Korean */
    EQ_STR(item("@article{k, author = {王, 五}, title = {Deep learning}}"),
           "{\"id\":\"k\",\"type\":\"article-journal\",\"title\":\"Deep learning\",\"author\":[{\"family\":"
           "\"王\",\"given\":\"五\"}],\"language\":\"zh-CN\"}");
    OK(strstr(item("@article{k, title = {日本語のテキスト}}"), "\"language\":\"ja-JP\"") != NULL);
    OK(strstr(item("@article{k, title = {한국어 제목}}"), "\"language\":\"ko-KR\"") != NULL);
    /* neither stated nor CJK: English (a GB/T list gives it "et al.") */
    EQ_STR(item_raw("@article{k, title = {Über Müller}}"),
           "{\"id\":\"k\",\"type\":\"article-journal\",\"title\":\"Über müller\",\"language\":\"en-US\"}");
    /* a language written but not understood: none */
    OK(strstr(item("@article{k, title = {X}, langid = {elvish!}}"), "language") == NULL);
}

/* The title as CSL wants it (sentence case) from a title-cased .bib title,
 * as Pandoc gives it; braces, other capitals, math and numbers stay. */
static const char *title(const char *tex)
{
    static char t[512];
    char text[512];
    snprintf(text, sizeof text, "@article{k, title = {%s}}", tex);
    const char *j = item(text), *p = strstr(j, "\"title\":\"");
    snprintf(t, sizeof t, "%s", p ? p + 9 : "(none)");
    char *q = strchr(t, '"');
    if (q)
        *q = 0;
    return t;
}

TEST(sentence_case)
{
    EQ_STR(title("Deep Learning: A Review of {Bayesian} Methods for the {SGD} Era and InBook "
                 "X-Ray Real-Time"),
           "Deep learning: A review of Bayesian methods for the SGD era and InBook x-ray real-time");
    EQ_STR(title("{ImageNet} Classification with Deep Nets"), "ImageNet classification with deep nets");
    EQ_STR(title("3rd International Conference"), "3rd international conference");
    EQ_STR(title("{T}he {A}rt of Y2K iPhone 3D (Deep Nets) M{\\\"u}ller"),
           "The Art of Y2K iPhone 3D (deep nets) Müller");
    /* not English: as written */
    OK(strstr(item("@book{k, title = {Il Nome Della Rosa}, langid = {italian}}"),
              "\"title\":\"Il Nome Della Rosa\"") != NULL);
    /* booktitle as the container and series too; journals stay */
    const char *j = item("@inproceedings{k, title = {A}, booktitle = {Proceedings of the Big Conference},\n"
                         "series = {Lecture Notes In Stuff}}");
    OK(strstr(j, "\"container-title\":\"Proceedings of the big conference\"") != NULL);
    OK(strstr(j, "\"collection-title\":\"Lecture notes in stuff\"") != NULL);
    OK(strstr(item("@article{k, journal = {The Computer Journal}}"), "\"The Computer Journal\"") != NULL);
    /* a document in another language: an entry is English by its langid,
     * or by having no CJK (none stated); Chinese ones stay as written;
     * a langid not understood leaves it to the document's language */
    doc_lang = "zh-CN";
    EQ_STR(title("A Thesis"), "A thesis");
    OK(strstr(item("@article{k, title = {A Thesis}, langid = {english}}"), "\"A thesis\"") != NULL);
    OK(strstr(item("@article{k, title = {A Thesis 王}}"), "\"A Thesis 王\"") != NULL);
    OK(strstr(item("@article{k, title = {A Thesis}, langid = {elvish!}}"), "\"A Thesis\"") != NULL);
    doc_lang = "en-US";
}

/* TeX math in a title: CSL rich text as Pandoc writes it (letters in
 * italics, ^ and _ raised and lowered, Greek letters), kept out of a
 * style's title case; a lone or escaped $ is text. */
TEST(math)
{
    const char *j = item("@article{k, title = {Convergence Rate {$O(1/k^2)$} of {$\\alpha_{t+1}$} Steps, \\$5 or $x}}");
    EQ_STR(strstr(j, "\"title\":"),
           "\"title\":\"Convergence rate <span class=\\\"nocase\\\"><i>O</i>(1/<i>k</i><sup>2</sup>)</span> of "
           "<span class=\\\"nocase\\\">\u03b1<sub><i>t</i>+1</sub></span> steps, $5 or x\"}");
    /* (a lone $ goes, as bib_tex_to_text drops it) not English: not
     * re-cased, math still rendered */
    j = item("@book{k, title = {Il Tasso $r$}, langid = {italian}}");
    OK(strstr(j, "\"title\":\"Il Tasso <span class=\\\"nocase\\\"><i>r</i></span>\"") != NULL);
}

int main(void)
{
    RUN(article);
    RUN(names);
    RUN(capital_particle);
    RUN(types_and_publishers);
    RUN(urls);
    RUN(dates);
    RUN(language);
    RUN(sentence_case);
    RUN(math);
    return harness_done();
}
