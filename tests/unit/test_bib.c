/* bib: .bib files through sheaf's BibTeX reader — the grammar, macros and
 * their budgets, names split as BibTeX splits them, TeX to Unicode,
 * crossref, and each error word for word at its line and column. */
#include "bib/bib.h"
#include "harness.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"

/* Reads text as "t.bib": the entries in b, every diagnostic (one a line)
 * in *msgs (arena). */
static bool read_text(const char *text, size_t len, bib *b, const char **msgs, arena *a)
{
    diag_list *d = diag_list_new();
    bool ok = bib_load_text(b, text, len, "t.bib", a, d);
    buf all = BUF_INIT;
    for (size_t i = 0; i < diag_count(d); i++) {
        if (i)
            buf_putc(&all, '\n');
        diag_format(diag_get(d, i), &all);
    }
    *msgs = arena_strndup(a, all.data, all.len);
    buf_release(&all);
    diag_list_free(d);
    return ok;
}

/* The diagnostics of text, one a line ("" for none). */
static const char *errors_of(const char *text, arena *a)
{
    bib b = { 0 };
    const char *msgs;
    (void)read_text(text, strlen(text), &b, &msgs, a);
    bib_free(&b);
    return msgs;
}

/* The keys read from text, space-separated. */
static const char *keys_of(const char *text, arena *a)
{
    bib b = { 0 };
    const char *msgs;
    (void)read_text(text, strlen(text), &b, &msgs, a);
    buf k = BUF_INIT;
    for (size_t i = 0; i < b.n; i++)
        buf_printf(&k, "%s%s", i ? " " : "", b.entries[i].key);
    const char *r = arena_strndup(a, k.data, k.len);
    buf_release(&k);
    bib_free(&b);
    return r;
}

/* A name list split: "[given|von|family|jr]" for each name. */
static const char *names_of(const char *tex, arena *a)
{
    size_t n;
    bib_name *v = bib_split_names(a, tex, &n);
    buf o = BUF_INIT;
    for (size_t i = 0; i < n; i++)
        buf_printf(&o, "[%s|%s|%s|%s]", v[i].given, v[i].von, v[i].family, v[i].jr);
    const char *r = arena_strndup(a, o.data, o.len);
    buf_release(&o);
    return r;
}

/* One field of the only entry of text, or "(none)". */
static const char *field_of(const char *text, const char *name, arena *a)
{
    bib b = { 0 };
    const char *msgs;
    (void)read_text(text, strlen(text), &b, &msgs, a);
    const char *v = b.n == 1 ? bib_field_get(&b.entries[0], name) : NULL;
    v = v ? v : "(none)";
    bib_free(&b);
    return v;
}

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

    /* an unbalanced brace: at the value that never closes, naming where
     * it runs to; the entry it swallowed is read after all */
    put_file(path, "@misc{ok, title={Fine}}\n\n@article{bad,\n  author = {Foo, Bar},\n"
                "  title = {Unbalanced {brace,\n  year = 2020\n}\n@misc{after, title={After}}\n");
    bib b = load(path, d, a, &ok);
    OK(!ok);
    EQ_STR(first_message(d, &line), "unbalanced braces: the value of 'title' that starts here never "
                                     "closes (it runs on through the entry at line 8 to the end of "
                                     "the file, line 8)");
    EQ_INT(line, 5);
    EQ_INT(diag_get(d, 0)->col, 11);
    OK(bib_find(&b, "ok") != NULL);
    OK(bib_find(&b, "after") != NULL);
    OK(bib_find(&b, "bad") == NULL);
    bib_free(&b);
    diag_clear(d);

    /* a missing comma: at the field after it */
    put_file(path, "@misc{ok, title={Fine}}\n@article{bad,\n  title = {X}\n  year = 2020\n}\n");
    b = load(path, d, a, &ok);
    OK(!ok);
    EQ_STR(first_message(d, &line), "missing ',' between the fields 'title' and 'year'");
    EQ_INT(line, 4);
    EQ_INT(diag_get(d, 0)->col, 3);
    EQ_INT(b.n, 1);
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

/* Every form of BibTeX's names, as BibTeX's x_format_name cuts them. */
TEST(names)
{
    arena *a = arena_new();
#define N(in, out) EQ_STR(names_of(in, a), out)
    /* First von Last */
    N("Donald E. Knuth", "[Donald E.||Knuth|]");
    N("Ludwig van Beethoven", "[Ludwig|van|Beethoven|]");
    N("Charles Louis Xavier Joseph de la Vall{\\'e}e Poussin",
      "[Charles Louis Xavier Joseph|de la|Vallée Poussin|]");
    N("Jean de La Fontaine", "[Jean|de|La Fontaine|]");
    /* von runs to the last lower-case token before the last one */
    N("A b C d E", "[A|b C d|E|]");
    N("jean de la fontaine", "[|jean de la|fontaine|]");
    /* a single token is the family, lower case or not */
    N("Plato", "[||Plato|]");
    N("{The Sheaf Team}", "[||The Sheaf Team|]");
    N("others", "[||others|]");
    /* with no von, Last takes what '-' joins to it; '-' and '~' split tokens */
    N("John Smith-Jones", "[John||Smith-Jones|]");
    N("Jean-Paul Sartre", "[Jean-Paul||Sartre|]");
    N("Jean-paul Sartre", "[Jean|paul|Sartre|]");
    N("Jan~Berg", "[Jan||Berg|]");
    N("Jean~de~la~Fontaine", "[Jean|de\u00a0la|Fontaine|]"); /* a tie stays, as a no-break space */
    N("J.-P. Sartre", "[J.-P.||Sartre|]");
    /* von Last, First */
    N("van Beethoven, Ludwig", "[Ludwig|van|Beethoven|]");
    N("van der Berg, Jan", "[Jan|van der|Berg|]");
    N("De la Fontaine, Jean", "[Jean|De la|Fontaine|]");
    N("de la, Jean", "[Jean|de|la|]");
    N("王, 小明", "[小明||王|]");
    /* von Last, Jr, First */
    N("Ford, Jr., Henry", "[Henry||Ford|Jr.]");
    N("van der Berg, III, Jan", "[Jan|van der|Berg|III]");
    N("Smith,, John", "[John||Smith|]");
    N("Smith, Jr.,", "[||Smith|Jr.]");
    /* a third comma is a space */
    N("Smith, John, Jr., Extra", "[Jr. Extra||Smith|John]");
    N("Smith Zhang,", "[||Smith Zhang|]");
    N(", Foo", "[||Foo|]");
    /* lower case: the first letter outside braces; a special character's
     * letter; a plain group has none; any cased Unicode letter */
    N("{\\\"u}ber Foo", "[|über|Foo|]");
    N("{\\ss}eta Alpha", "[|ßeta|Alpha|]");
    N("{\\O}stergaard Bo", "[Østergaard||Bo|]");
    N("Tom {\\v{s}}koda Zed", "[Tom|škoda|Zed|]");
    N("Tom {\\v{S}}koda Zed", "[Tom Škoda||Zed|]");
    N("{\\relax Ch}ristian Xu", "[Christian||Xu|]");
    N("Maria {de la} Cruz", "[Maria de la||Cruz|]");
    N("{von} Neumann, John", "[John||von Neumann|]");
    N("Bo 3rd Zed", "[Bo|3rd|Zed|]");
    N("Émile Zola", "[Émile||Zola|]");
    N("Ana émile Zola", "[Ana|émile|Zola|]");
    N("Ana 王 Zola", "[Ana 王||Zola|]");
    N("{\\relax{}x}oo Bar", "[|xoo|Bar|]");      /* in a special character, past inner groups */
    N("{\\relax 1} Bar", "[1||Bar|]");           /* a special character with no letter */
    N("{A{b}c}d Bar", "[|Abcd|Bar|]");            /* a plain group has no letter of the token's */
    N("Ab \xff\xfez Cd", "[Ab|\xff\xfez|Cd|]");    /* bytes that are no character */
    /* lists: ' and ' at brace depth 0, any case; empty names left out */
    N("Lian, Xiangru and Zhang, Ce", "[Xiangru||Lian|][Ce||Zhang|]");
    N("A AND B aNd C", "[||A|][||B|][||C|]");
    N("{Barnes and Noble} and Lee", "[||Barnes and Noble|][||Lee|]");
    N("Foo and others", "[||Foo|][||others|]");
    N("A and and B", "[||A|][||B|]");
    N("A and - and B", "[||A|][||B|]");
    N("and Foo", "[|and|Foo|]");
    N("Foo and", "[Foo||and|]");
    N("Band Anderson and Sand", "[Band||Anderson|][||Sand|]");
    N("  Spaced \n  Out\tName  ", "[Spaced Out||Name|]");
    N("", "");
    N("{}", "");
#undef N
    /* full: given von family, jr */
    size_t n;
    bib_name *v = bib_split_names(a, "van der Berg, Jr., Jan and Plato", &n);
    EQ_INT(n, 2);
    if (n == 2) {
        EQ_STR(v[0].full, "Jan van der Berg, Jr.");
        EQ_STR(v[1].full, "Plato");
    }
    arena_free(a);
}

/* The grammar: entries in braces or parentheses, values and their pieces,
 * macros, comments. */
TEST(grammar)
{
    arena *a = arena_new();
    /* types and field names in any case, keys as written */
    bib b = { 0 };
    const char *msgs;
    const char *two = "@ARTICLE{Key1, TITLE = {T}}\n@Misc(key1, Note = \"N\")\n";
    OK(read_text(two, strlen(two), &b, &msgs, a));
    EQ_STR(msgs, "");
    EQ_INT(b.n, 2);
    if (b.n == 2) {
        EQ_STR(b.entries[0].type, "article");
        EQ_STR(b.entries[0].key, "Key1");
        EQ_STR(b.entries[0].fields[0].name, "title");
        EQ_STR(b.entries[1].type, "misc");
        EQ_STR(b.entries[1].key, "key1");
        EQ_STR(bib_field_get(&b.entries[1], "note"), "N");
        EQ_INT(b.entries[1].line, 2);
    }
    bib_free(&b);
    /* pieces joined by #: braces, quotes, numbers, macros; white space
     * collapsed over the whole value as BibTeX does */
    EQ_STR(field_of("@string{pre = \"Pre \"}\n@misc{k, t = pre # { A {B} \"q\"} # \" x{\"}y\" # 2020}", "t", a),
           "Pre A B \"q\" x\"y2020");
    EQ_STR(field_of("@misc{k, t = {  a \n\t b  } # {  } # \"c\"}", "t", a), "a b c");
    EQ_STR(field_of("@string{s = \" x \"}\n@misc{k, t = \"a\" # s # \"b\"}", "t", a), "axb");
    /* macros: any case, usable after their definition, redefined as BibTeX
     * does; months as BibTeX's styles define them, until redefined */
    EQ_STR(field_of("@STRING{NeurIPS = {Neural}}\n@misc{k, t = neurips # { } # NEURIPS}", "t", a),
           "Neural Neural");
    EQ_STR(field_of("@string{a = {1}}\n@string{a = a # {2}}\n@misc{k, t = a}", "t", a), "12");
    EQ_STR(field_of("@misc{k, month = jan # {, } # DEC}", "month", a), "January, December");
    EQ_STR(field_of("@string{jan = {Jan.}}\n@misc{k, month = jan}", "month", a), "Jan.");
    EQ_STR(field_of("@string(a = {A}, b = a # {B},)\n@misc{k, t = b}", "t", a), "AB");
    /* a trailing comma; a key with no fields; white space anywhere */
    EQ_STR(field_of("@misc{k, t = {T},\n}", "t", a), "T");
    EQ_STR(keys_of("@misc{k}\n@misc ( j , ) @ book\n { i ,\n t\n =\n {x}\n }", a), "k j i");
    /* skipped: @comment (braces balanced), @preamble, % lines, text */
    EQ_STR(keys_of("% @misc{commented, t={x}}\nText, and mail@example.org (here).\n"
                   "@comment{ @misc{inside, t={x}} }\n@Comment(a (b) c)\n"
                   "@preamble{ \"\\newcommand{\\noopsort}[1]{}\" # undefined }\n@misc{k, t = {x}}\n",
                   a),
           "k");
    EQ_STR(errors_of("@preamble{\"a\" # {b}}\n@comment{x}\n@misc{k, t = {x}}", a), "");
    /* a value may hold an '@' line: only a broken entry makes it a runaway */
    EQ_STR(field_of("@misc{k, abstract = {see\n@misc{x, y}\n}}", "abstract", a), "see @miscx, y");
    arena_free(a);
}

/* Every error, word for word, where it is; the reader goes on at the next
 * '@' that starts a line, and keeps what parsed. */
TEST(syntax_errors)
{
    arena *a = arena_new();
#define E(in, out) EQ_STR(errors_of(in, a), out)
    E("@misc{a, t = {x}\n  year = 2020}",
      "t.bib:2:3: error: missing ',' between the fields 't' and 'year'");
    E("@misc{a, t = {x} year}",
      "t.bib:1:18: error: expected ',' or '}' after the value of 't', found 'year'");
    E("@misc(a, t = {x}}\n",
      "t.bib:1:17: error: expected ',' or ')' after the value of 't', found '}'");
    E("@misc{a, t = {x}\n@misc{b, t = {y}}",
      "t.bib:1:17: error: entry 'a' is not closed: expected ',' or '}' after the value of 't', "
      "before the next entry (line 2)");
    E("@misc{a, t = {x},\n",
      "t.bib:1:18: error: entry 'a' is not closed: expected '}' after the value of 't', before the "
      "end of the file");
    E("@misc{a",
      "t.bib:1:8: error: entry 'a' is not closed: expected ',' or '}' after the key 'a', before the end "
      "of the file");
    E("@misc{a b}", "t.bib:1:9: error: expected ',' or '}' after the key 'a', found 'b'");
    E("@misc{, t = {x}}", "t.bib:1:7: error: expected the key of this @misc after its '{', found ','");
    E("@misc{t = {x}}",
      "t.bib:1:7: error: missing key: 't' is followed by '=' (an entry starts with its key: @misc{KEY, t "
      "= …})");
    E("@misc{a, = {x}}", "t.bib:1:10: error: expected a field name or '}' in entry 'a', found '='");
    E("@misc{a, t {x}}", "t.bib:1:12: error: expected '=' after the field name 't', found '{'");
    E("@misc{a, t = , u = {x}}",
      "t.bib:1:14: error: expected the value of 't' ({…}, \"…\", a number or an @string name), found ','");
    E("@misc{a, t = {x} # }", "t.bib:1:20: error: expected a value after '#' in 't', found '}'");
    E("@misc{a, t = \"x}y\"}",
      "t.bib:1:16: error: unbalanced braces: this '}' in the quoted value of 't' closes no '{'");
    E("@misc{a, t = \"x\ny",
      "t.bib:1:14: error: unbalanced quotes: the value of 't' that starts here never closes (it runs "
      "on to the end of the file, line 2)");
    E("@misc{a, t = \"{x\"",
      "t.bib:1:14: error: unbalanced braces: the value of 't' that starts here never closes (it runs "
      "on to the end of the file, line 1)");
    E("@misc{a, t = {x}, T = {y}, u = {z}, t = {w}}",
      "t.bib:1:19: error: duplicate field 't' in entry 'a' (the first is at line 1)\n"
      "t.bib:1:37: error: duplicate field 't' in entry 'a' (the first is at line 1)");
    E("@misc{a, t = nosuch # {x} # other}",
      "t.bib:1:14: error: unknown @string macro 'nosuch' in the value of 't' (an @string must come "
      "before the entries that use it; a text value needs {…} or \"…\")\n"
      "t.bib:1:29: error: unknown @string macro 'other' in the value of 't' (an @string must come "
      "before the entries that use it; a text value needs {…} or \"…\")");
    E("@misc{a, t = late}\n@string{late = {x}}",
      "t.bib:1:14: error: unknown @string macro 'late' in the value of 't' (an @string must come "
      "before the entries that use it; a text value needs {…} or \"…\")");
    /* a broken @string is reported once, not at each use */
    E("@string{b = nosuch}\n@string{c = b # b}\n@misc{a, t = c}",
      "t.bib:1:13: error: unknown @string macro 'nosuch' in the value of @string 'b' (an @string must "
      "come before the entries that use it; a text value needs {…} or \"…\")");
    E("@string{a = }",
      "t.bib:1:13: error: expected the value of @string 'a' ({…}, \"…\", a number or an @string "
      "name), found '}'");
    E("@preamble{ , }",
      "t.bib:1:12: error: expected the value of this @preamble ({…}, \"…\", a number or an @string "
      "name), found ','");
    E("@preamble{\"x\"\n@misc{k}",
      "t.bib:1:14: error: this entry is not closed: expected '}' after the value of this @preamble, "
      "before the next entry (line 2)");
    E("@misc{a,\n@misc{b}",
      "t.bib:1:9: error: entry 'a' is not closed: expected '}' after the key 'a', before the next "
      "entry (line 2)");
    /* after an error, an '@' inside a line is no place to go on */
    E("@misc{a b} x @misc{c}\n@misc{d, t = and}",
      "t.bib:1:9: error: expected ',' or '}' after the key 'a', found 'b'\n"
      "t.bib:2:14: error: unknown @string macro 'and' in the value of 't' (an @string must come before "
      "the entries that use it; a text value needs {…} or \"…\")");
    EQ_STR(field_of("@misc{k, email = {me@example.org}}", "email", a), "me@example.org");
    /* an '@' starting a line inside a value, but not an entry */
    EQ_STR(field_of("@misc{k, t = {a\n@\n@ {\n  @x y\n}}}", "t", a), "a @ @ @x y");
    /* a duplicate among many fields */
    buf wide = BUF_INIT;
    buf_puts(&wide, "@misc{w");
    for (int i = 0; i < 20; i++)
        buf_printf(&wide, ", f%d = {%d}", i, i);
    buf_puts(&wide, ", f7 = {again}}");
    E(wide.data, "t.bib:1:230: error: duplicate field 'f7' in entry 'w' (the first is at line 1)");
    buf_release(&wide);
    E("@string{= {x}}", "t.bib:1:9: error: expected a macro name in this @string, found '='");
    E("@string{a {x}}", "t.bib:1:11: error: expected '=' after the @string name 'a', found '{'");
    E("@string{a = {x} b}", "t.bib:1:17: error: expected '}' after the value of @string 'a', found 'b'");
    E("@string{a = {x}\n@misc{k}",
      "t.bib:1:16: error: this entry is not closed: expected '}' after the value of @string 'a', "
      "before the next entry (line 2)");
    E("@preamble{\"x\" \"y\"}",
      "t.bib:1:15: error: expected '}' after the value of this @preamble, found '\"'");
    E("@comment{ {x }\n@misc{k}",
      "t.bib:1:9: error: unbalanced braces: this @comment never closes (it runs on to the end of the "
      "file, line 2)");
    E("@ {x}", "t.bib:1:2: error: expected an entry type after '@' (like @article{key, …}), found '{'");
    E("@misc k\n", "t.bib:1:7: error: expected '{' or '(' after '@misc', found 'k'");
    E("@misc\n@book{k}", "t.bib:1:6: error: expected '{' or '(' after '@misc', found the next entry (line 2)");
    E("@misc{a, t = {x}\x01}",
      "t.bib:1:17: error: expected ',' or '}' after the value of 't', found a control character (0x01)");
    E("@misc{a, t = {x} 分布式训练分布式训练分布式训练分布式训练}",
      "t.bib:1:18: error: expected ',' or '}' after the value of 't', found '分布式训练分布式训练分布式…'");
    /* an '@' inside a line is text between entries */
    E("write to me@example.org, or @ home\n", "");
    /* a value that swallows the next entry, then breaks: said at the value;
     * the swallowed entry is read */
    bib b = { 0 };
    const char *msgs;
    const char *swallow = "@misc{a, t = {Unbalanced {brace}\n@misc{b, t = {B}}}\n@misc{c, t = {C}}\n";
    OK(!read_text(swallow, strlen(swallow), &b, &msgs, a));
    EQ_STR(msgs, "t.bib:1:14: error: unbalanced braces or quotes: the value of 't' that starts here runs "
                 "on into the entry at line 2 (then, at line 2, col 19: entry 'a' is not closed: "
                 "expected ',' or '}' after the value of 't', before the next entry (line 3))");
    EQ_INT(b.n, 2);
    OK(bib_find(&b, "b") && bib_find(&b, "c"));
    bib_free(&b);
    /* one run shows every broken entry, and keeps the others */
    const char *many = "@misc{ok1, t={1}}\n@misc{bad1, t={x}\n  u={y}}\n@misc{ok2, t={2}}\n"
                       "@misc{bad2, t=}\n@misc{ok3, t=\"3\"}\n@misc{bad3, t={x}, t={y}}\n@misc{ok4}\n";
    OK(!read_text(many, strlen(many), &b, &msgs, a));
    EQ_STR(msgs, "t.bib:3:3: error: missing ',' between the fields 't' and 'u'\n"
                 "t.bib:5:15: error: expected the value of 't' ({…}, \"…\", a number or an @string "
                 "name), found '}'\n"
                 "t.bib:7:20: error: duplicate field 't' in entry 'bad3' (the first is at line 7)");
    EQ_STR(keys_of(many, a), "ok1 ok2 ok3 ok4");
    bib_free(&b);
    /* after 100 errors, one more says so and the rest is not read */
    buf lots = BUF_INIT;
    for (int i = 0; i < 150; i++)
        buf_printf(&lots, "@misc{k%d, t = nosuch}\n", i);
    buf_puts(&lots, "@misc{last, t = {x}}\n");
    OK(!read_text(lots.data, lots.len, &b, &msgs, a));
    const char *tail = strrchr(msgs, '\n');
    EQ_STR(tail ? tail + 1 : msgs,
           "t.bib:101:17: error: more than 100 errors in this file: the rest of it is not read");
    OK(bib_find(&b, "last") == NULL);
    bib_free(&b);
    buf_release(&lots);
#undef E
    arena_free(a);
}

/* Macro expansion is bounded: a value's size, a file's total, and the
 * doubling macros of issue 34 stop at once with an error at the use. */
TEST(budgets)
{
    arena *a = arena_new();
    /* 30 levels of m_i = m_{i-1} # m_{i-1} (2^30 × 8 bytes expanded) */
    buf bomb = BUF_INIT;
    buf_puts(&bomb, "@string{m0=\"xxxxxxxx\"}\n");
    for (int i = 1; i < 30; i++)
        buf_printf(&bomb, "@string{m%d=m%d#m%d}\n", i, i - 1, i - 1);
    buf_puts(&bomb, "@misc{k, title = m29}\n@misc{after, title = {read after the m29 bomb}}\n");
    EQ_INT(bomb.len, 673);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bib b = { 0 };
    const char *msgs;
    OK(!read_text(bomb.data, bomb.len, &b, &msgs, a));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    OK(secs < 0.5);
    EQ_STR(msgs, "t.bib:19:17: error: the value of @string 'm18' would be 2097152 bytes with @string "
                 "'m17' expanded here: a value may hold at most 1 MiB (1048576 bytes)");
    EQ_STR(keys_of(bomb.data, a), "after"); /* k used the broken macro */
    bib_free(&b);
    buf_release(&bomb);
    /* exactly 1 MiB is fine */
    buf v = BUF_INIT;
    buf_puts(&v, "@string{m0=\"xxxxxxxx\"}\n");
    for (int i = 1; i <= 17; i++)
        buf_printf(&v, "@string{m%d=m%d#m%d}\n", i, i - 1, i - 1);
    buf_puts(&v, "@misc{k,t=m17}\n");
    OK(read_text(v.data, v.len, &b, &msgs, a));
    EQ_INT(b.n, 1);
    if (b.n)
        EQ_INT(strlen(bib_field_get(&b.entries[0], "t")), BIB_VALUE_MAX);
    bib_free(&b);
    /* the file's total: 62 more copies of the 1 MiB macro fit, the 63rd
     * does not (the doubling took 2 MiB), and the rest is not read */
    buf_truncate(&v, v.len - strlen("@misc{k,t=m17}\n"));
    for (int i = 1; i <= 63; i++)
        buf_printf(&v, "@string{c%d = m17}\n", i);
    buf_puts(&v, "@misc{late,t={x}}\n");
    OK(!read_text(v.data, v.len, &b, &msgs, a));
    EQ_STR(msgs, "t.bib:81:15: error: expanding @string 'm17' here takes this file's macro expansions "
                 "past 64 MiB (67108864 bytes): the rest of the file is not read");
    EQ_INT(b.n, 0);
    bib_free(&b);
    buf_release(&v);
    arena_free(a);
}

int main(void)
{
    RUN(tex_to_text);
    RUN(entries);
    RUN(errors);
    RUN(names);
    RUN(grammar);
    RUN(syntax_errors);
    RUN(budgets);
    return harness_done();
}
