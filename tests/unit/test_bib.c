/* bib: .bib files through libbtparse — names, TeX to Unicode, macros,
 * crossref, and each kind of error at its line. */
#include "bib/bib.h"
#include "harness.h"

#include <stdlib.h>
#include <unistd.h>

static bib load(const char *file, diag_list *d, arena *a, bool *ok)
{
    bib b = { 0 };
    *ok = bib_load(&b, file, file, "site.yaml", 3, 15, a, d);
    *ok &= bib_resolve_crossrefs(&b, a, d);
    return b;
}

static const char *first_message(diag_list *d, int *line)
{
    if (!diag_count(d))
        return "";
    *line = diag_get(d, 0)->line;
    return diag_get(d, 0)->message;
}

TEST(tex_to_text)
{
    arena *a = arena_new();
#define T(in, out) EQ_STR(bib_tex_to_text(a, in, strlen(in)), out)
    T("M{\\\"u}ller", "Müller");
    T("M\\\"{u}ller", "Müller");
    T("M\\\"uller", "Müller");
    T("{SGD}", "SGD");
    T("Fran\\c{c}ois", "François");
    T("Ren{\\'e}e", "Renée");
    T("S{\\o}ren {\\O}", "Søren Ø");
    T("Stra\\ss e", "Straße");
    T("\\'{\\i}", "í");
    T("5330--5340", "5330–5340");
    T("a --- b", "a — b");
    T("``quoted''", "“quoted”");
    T("A~B", "A\u00a0B");
    T("\\emph{Deep} \\textbf{nets}", "Deep nets");
    T("R\\&D 50\\% \\$5", "R&D 50% $5");
    T("$O(n)$ time", "O(n) time");
    T("分布式  训练\n x", "分布式 训练 x");
    T("\\url{x}", "x");
    T("\\v{S}koda \\u{g} \\H{o} \\k{a} \\={a} \\.{z} \\r{u} \\`{a} \\^{o} \\~{n}", "Škoda ğ ő ą ā ż ů à ô ñ");
    T("", "");
    T("\\", "");
    /* the logos are their names (a control word eats the space after it) */
    T("The {\\TeX}book, {\\LaTeX} and \\BibTeX\\ files", "The TeXbook, LaTeX and BibTeX files");
    T("\\LaTeXe", "LaTeX2ε");
    /* a sort key goes with its argument; other commands keep theirs */
    T("\\noopsort{a{b}}Vol.~A \\SortNoop{1}x", "Vol.\u00a0A x");
    T("\\unknown{kept}", "kept");
    T("29th $\\{$USENIX$\\}$ Security", "29th USENIX Security"); /* Google Scholar's export */
    T("a \\{b\\} $x$", "a {b} x");
    T("\\textquoteleft x\\textquoteright{} \\textellipsis", "‘x’ …");
#undef T
    arena_free(a);
}

TEST(entries)
{
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    bool ok;
    bib b = load("bib/refs.bib", d, a, &ok);
    OK(ok);
    EQ_INT(diag_count(d), 0);
    EQ_INT(b.n, 4);
    const bib_entry *e = bib_find(&b, "lian2017");
    OK(e != NULL);
    if (e) {
        EQ_STR(e->type, "inproceedings");
        EQ_INT(e->line, 4);
        EQ_STR(bib_field_get(e, "booktitle"), "Advances in Neural Information Processing Systems");
        EQ_STR(bib_field_get(e, "title"),
               "Can Decentralized Algorithms Outperform Centralized Algorithms? A Case Study for SGD");
        EQ_STR(bib_field_get(e, "pages"), "5330–5340");
        EQ_STR(bib_field_get(e, "archiveprefix"), "arXiv");
        EQ_INT(e->nauthors, 5);
        if (e->nauthors == 5) {
            EQ_STR(e->authors[0].family, "Lian");
            EQ_STR(e->authors[0].given, "Xiangru");
            EQ_STR(e->authors[2].family, "Müller");
            EQ_STR(e->authors[3].von, "van der");
            EQ_STR(e->authors[3].family, "Berg");
            EQ_STR(e->authors[3].full, "Jan van der Berg");
            EQ_STR(e->authors[4].jr, "Jr.");
            EQ_STR(e->authors[4].full, "John Smith, Jr.");
        }
    }
    e = bib_find(&b, "wang2023");
    OK(e != NULL);
    if (e) {
        EQ_STR(e->authors[0].family, "王");
        EQ_STR(e->authors[0].given, "小明");
        EQ_STR(e->authors[1].full, "Søren Østergaard");
        EQ_STR(e->authors[2].full, "Renée François");
        EQ_STR(bib_field_get(e, "title"), "分布式训练 “at scale” — a survey");
        EQ_STR(bib_field_get(e, "journal"), "Journal of LaTeX Studies & Friends");
        EQ_STR(bib_field_get(e, "doi"), "10.1000/xyz123");
    }
    e = bib_find(&b, "child2020");
    OK(e != NULL);
    if (e) {
        EQ_STR(bib_field_get(e, "booktitle"), "Proceedings of Machine Learning and Systems");
        EQ_STR(bib_field_get(e, "year"), "2020");
        EQ_STR(bib_field_get(e, "title"), "A Child Entry");
        EQ_INT(e->nauthors, 1);
        EQ_STR(e->authors[0].family, "The Sheaf Team");
        EQ_INT(e->neditors, 2);
    }
    OK(bib_find(&b, "nope") == NULL);
    EQ_STR(bib_suggest(&b, "lian2018"), "lian2017");
    OK(bib_suggest(&b, "zzzzzzzzzz") == NULL);
    bib_free(&b);
    diag_list_free(d);
    arena_free(a);
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

TEST(errors)
{
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    bool ok;
    int line = 0;
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[512];
    snprintf(path, sizeof path, "%s/sheaf-test-bib-%d.bib", dir, (int)getpid());

    /* an unbalanced brace: where the value starts */
    put_file(path, "@misc{ok, title={Fine}}\n\n@article{bad,\n  author = {Foo, Bar},\n"
                "  title = {Unbalanced {brace,\n  year = 2020\n}\n@misc{after, title={After}}\n");
    bib b = load(path, d, a, &ok);
    OK(!ok);
    OK(strstr(first_message(d, &line), "unbalanced") != NULL);
    EQ_INT(line, 5);
    OK(bib_find(&b, "ok") != NULL);
    bib_free(&b);
    diag_clear(d);

    /* a syntax error: where its entry starts */
    put_file(path, "@misc{ok, title={Fine}}\n@article{bad,\n  title = {X}\n  year = 2020\n}\n");
    b = load(path, d, a, &ok);
    OK(!ok);
    OK(strstr(first_message(d, &line), "syntax error") != NULL);
    EQ_INT(line, 2);
    bib_free(&b);
    diag_clear(d);

    /* a duplicate key: both places */
    put_file(path, "@misc{k, title={A}}\n\n@misc{k, title={B}}\n");
    b = load(path, d, a, &ok);
    OK(!ok);
    OK(strstr(first_message(d, &line), "duplicate key 'k': already defined at ") != NULL);
    OK(strstr(first_message(d, &line), ":1 ") != NULL);
    EQ_INT(line, 3);
    bib_free(&b);
    diag_clear(d);

    /* an unknown crossref */
    put_file(path, "@misc{k, title={A}, crossref={gone}}\n");
    b = load(path, d, a, &ok);
    OK(!ok);
    OK(strstr(first_message(d, &line), "crossref 'gone'") != NULL);
    bib_free(&b);
    diag_clear(d);

    /* not UTF-8 */
    put_file(path, "@misc{k, title={M\xfcller}}\n");
    b = load(path, d, a, &ok);
    OK(!ok);
    OK(strstr(first_message(d, &line), "UTF-8") != NULL);
    bib_free(&b);
    diag_clear(d);

    /* libbtparse dereferences NULL on a broken @string used by another:
     * the parse runs in a child, so this is an error, not a crash */
    put_file(path, "@misc{before, title={B}}\n@string{a =$\"x\"}\n"
                   "@string{b = a # \"''''oi exa\"q\" # 11}\n@misc{after, title={A}}\n");
    b = load(path, d, a, &ok);
    OK(!ok);
    OK(strstr(first_message(d, &line), "libbtparse) crashed (") != NULL);
    EQ_INT(line, 3);
    OK(bib_find(&b, "before") != NULL);
    bib_free(&b);
    diag_clear(d);

    /* ...and calls exit() on others */
    put_file(path, "@string{attttttttttttttttttttttttt0ttttttttttttttt = \"x\"}\n"
                   "@string{b = a # \" y \" # a}\n@tttttttttttttttTtt0ttttttttttttttt = \"x\"}\n"
                   "@string{b = a # \" y \" # a}\n@mi\"q\" # 24}\n");
    b = load(path, d, a, &ok);
    OK(!ok);
    OK(strstr(first_message(d, &line), "libbtparse) gave up") != NULL);
    bib_free(&b);
    diag_clear(d);

    /* a missing file: at the key that names it */
    unlink(path);
    b = load(path, d, a, &ok);
    OK(!ok);
    EQ_STR(diag_get(d, 0)->path, "site.yaml");
    EQ_INT(diag_get(d, 0)->line, 3);
    EQ_INT(diag_get(d, 0)->col, 15);
    bib_free(&b);

    diag_list_free(d);
    arena_free(a);
}

int main(void)
{
    RUN(tex_to_text);
    RUN(entries);
    RUN(errors);
    return harness_done();
}
