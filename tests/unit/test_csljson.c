/* csljson: CSL-JSON bibliographies (Zotero, Better BibTeX) read into the
 * .bib entry model — each type, name, date and field mapping, the item
 * kept whole for the CSL path, and each error word for word at its line
 * and column (site_bib_load_csljson: fm/json.c's reader, bib/csljson.c's
 * checks). */
#include "bib/csl.h"
#include "bib/csljson.h"
#include "harness.h"
#include "site/site.h"

#include "util/buf.h"

/* Reads text as "r.json" into b (which may hold entries already); every
 * diagnostic, one a line, in *msgs. */
static bool load(bib *b, const char *text, const char **msgs, arena *a)
{
    diag_list *d = diag_list_new();
    bool ok = site_bib_load_csljson(b, text, strlen(text), "r.json", a, d);
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

static const char *errors_of(const char *text, arena *a)
{
    bib b = { 0 };
    const char *msgs;
    bool ok = load(&b, text, &msgs, a);
    OK(ok == !*msgs);
    bib_free(&b);
    return msgs;
}

/* "name=text;…" for every field of e, in order. */
static const char *fields_of(const bib_entry *e, arena *a)
{
    buf out = BUF_INIT;
    for (size_t i = 0; i < e->nfields; i++)
        buf_printf(&out, "%s%s=%s", i ? ";" : "", e->fields[i].name, e->fields[i].text);
    const char *r = arena_strndup(a, out.data, out.len);
    buf_release(&out);
    return r;
}

static const char *names_of(const bib_name *v, size_t n, arena *a)
{
    buf out = BUF_INIT;
    for (size_t i = 0; i < n; i++)
        buf_printf(&out, "[%s|%s|%s|%s|%s]", v[i].given, v[i].von, v[i].family, v[i].jr, v[i].full);
    const char *r = arena_strndup(a, out.data, out.len);
    buf_release(&out);
    return r;
}

TEST(mapping)
{
    arena *a = arena_new();
    bib b = { 0 };
    const char *msgs;
    const char *text =
        "[\n"
        " {\"id\": \"lian2017\", \"type\": \"paper-conference\", \"title\": \"Can Decentralized Algorithms\",\n"
        "  \"container-title\": \"NeurIPS\", \"page\": \"5330-5340\", \"publisher\": \"Curran\",\n"
        "  \"publisher-place\": \"Long Beach\", \"DOI\": \"10.5555/1\", \"URL\": \"https://x.org/\",\n"
        "  \"author\": [{\"family\": \"Lian\", \"given\": \"Xiangru\"},\n"
        "             {\"family\": \"Beethoven\", \"given\": \"Ludwig\", \"non-dropping-particle\": \"van\"},\n"
        "             {\"family\": \"King\", \"given\": \"Martin Luther\", \"suffix\": \"Jr.\"},\n"
        "             {\"literal\": \"World Health Organization\"}],\n"
        "  \"issued\": {\"date-parts\": [[2017, 12, 4]]}, \"accessed\": {\"date-parts\": [[\"2024\", \"3\", \"18\"]]}},\n"
        " {\"id\": 42, \"type\": \"article-journal\", \"container-title\": \"Nature\", \"volume\": 7,\n"
        "  \"issue\": \"2\", \"issued\": {\"raw\": \"2020-05\"}, \"language\": \"zh-CN\",\n"
        "  \"editor\": [{\"family\": \"Poussin\", \"given\": \"Charles\", \"dropping-particle\": \"de la\"}],\n"
        "  \"custom\": {\"anything\": [1, 2.5, true, null]}},\n"
        " {\"id\": \"ma\", \"type\": \"thesis\", \"genre\": \"Master's thesis\", \"publisher\": \"MIT\",\n"
        "  \"issued\": {\"literal\": \"in press\"}, \"accessed\": {\"raw\": \"2021\"}},\n"
        " {\"id\": \"phd\", \"type\": \"thesis\", \"publisher\": \"ETH\", \"issued\": {\"date-parts\": [[2019, 13]]}},\n"
        " {\"id\": \"rep\", \"type\": \"report\", \"publisher\": \"WHO\", \"number\": \"TR-1\"},\n"
        " {\"id\": \"x\", \"type\": \"interview\", \"title\": \"\", \"note\": null},\n"
        " {\"id\": \"tex\", \"type\": \"book\", \"title\": \"50% {of} a_b & #1 $2 ~x^2 \\\\ end\"}\n"
        "]\n";
    OK(load(&b, text, &msgs, a));
    EQ_STR(msgs, "");
    EQ_INT((long)b.n, 7);
    const bib_entry *e = bib_find(&b, "lian2017");
    OK(e != NULL);
    EQ_STR(e->type, "inproceedings");
    EQ_STR(e->src, "r.json");
    EQ_INT(e->line, 2);
    EQ_STR(fields_of(e, a),
           "title=Can Decentralized Algorithms;address=Long Beach;pages=5330-5340;doi=10.5555/1;"
           "url=https://x.org/;booktitle=NeurIPS;publisher=Curran;year=2017;month=December;"
           "urldate=2024-03-18;author=Lian, Xiangru and van Beethoven, Ludwig and King, Jr., Martin Luther and "
           "World Health Organization");
    /* raw: the field as BibTeX holds it, for /papers/' BibTeX */
    EQ_STR(e->fields[e->nfields - 1].raw,
           "{Lian}, Xiangru and van {Beethoven}, Ludwig and {King}, Jr., Martin Luther and "
           "{World Health Organization}");
    EQ_STR(names_of(e->authors, e->nauthors, a),
           "[Xiangru||Lian||Xiangru Lian][Ludwig|van|Beethoven||Ludwig van Beethoven]"
           "[Martin Luther||King|Jr.|Martin Luther King, Jr.]"
           "[||World Health Organization||World Health Organization]");
    /* the item, whole, for citeproc-js */
    buf out = BUF_INIT;
    bib_csl_json(e, "en-US", &out);
    OK(strstr(out.data, "{\"id\":\"lian2017\",\"type\":\"paper-conference\",\"title\":") == out.data);
    OK(strstr(out.data, "\"issued\":{\"date-parts\":[[2017,12,4]]}") != NULL);
    buf_reset(&out);

    e = bib_find(&b, "42"); /* a number id is the key "42" */
    OK(e != NULL);
    EQ_STR(e->type, "article");
    EQ_STR(fields_of(e, a), "volume=7;langid=zh-CN;journal=Nature;number=2;year=2020;month=May;"
                            "editor=de la Poussin, Charles");
    EQ_STR(names_of(e->editors, e->neditors, a), "[Charles|de la|Poussin||Charles de la Poussin]");
    EQ_STR(bib_csl_language(e), "zh-CN");
    bib_csl_json(e, "en-US", &out);
    EQ_STR(out.data,
           "{\"id\":\"42\",\"type\":\"article-journal\",\"container-title\":\"Nature\",\"volume\":7,"
           "\"issue\":\"2\",\"issued\":{\"raw\":\"2020-05\"},\"language\":\"zh-CN\","
           "\"editor\":[{\"family\":\"Poussin\",\"given\":\"Charles\",\"dropping-particle\":\"de la\"}],"
           "\"custom\":{\"anything\":[1,2.5,true,null]}}");
    buf_release(&out);

    e = bib_find(&b, "ma");
    EQ_STR(e->type, "mastersthesis");
    EQ_STR(fields_of(e, a), "type=Master's thesis;school=MIT;year=in press;urldate=2021");
    e = bib_find(&b, "phd");
    EQ_STR(e->type, "phdthesis");
    EQ_STR(fields_of(e, a), "school=ETH;year=2019"); /* no month 13 */
    e = bib_find(&b, "rep");
    EQ_STR(e->type, "techreport");
    EQ_STR(fields_of(e, a), "number=TR-1;institution=WHO");
    e = bib_find(&b, "x");
    EQ_STR(e->type, "misc");
    EQ_STR(fields_of(e, a), "");
    e = bib_find(&b, "tex");
    EQ_STR(e->fields[0].text, "50% {of} a_b & #1 $2 ~x^2 \\ end");
    EQ_STR(e->fields[0].raw,
           "50\\% \\{of\\} a\\_b \\& \\#1 \\$2 \\textasciitilde{}x\\textasciicircum{}2 "
           "\\textbackslash{} end");
    bib_free(&b);
    arena_free(a);
}

TEST(other_types)
{
    arena *a = arena_new();
    static const char *const pairs[][2] = {
        { "article-magazine", "article" }, { "article-newspaper", "article" }, { "chapter", "incollection" },
        { "book", "book" }, { "webpage", "online" }, { "post", "online" }, { "post-weblog", "online" },
        { "manuscript", "unpublished" }, { "patent", "patent" }, { "dataset", "dataset" },
        { "software", "software" },
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        bib b = { 0 };
        const char *msgs;
        const char *text = arena_printf(a, "[{\"id\": \"k\", \"type\": \"%s\", \"container-title\": \"C\"}]", pairs[i][0]);
        OK(load(&b, text, &msgs, a));
        EQ_STR(b.entries[0].type, pairs[i][1]);
        EQ_STR(fields_of(&b.entries[0], a), !strcmp(pairs[i][1], "article") ? "journal=C" : "booktitle=C");
        bib_free(&b);
    }
    arena_free(a);
}

TEST(errors)
{
    arena *a = arena_new();
    /* the JSON itself: fm/json.c's messages */
    EQ_STR(errors_of("[{\"id\": \"a\",}]", a),
           "r.json:1:13: error: JSON: expected a key in double quotes, found '}' (JSON has no trailing commas)");
    EQ_STR(errors_of("[{\"id\": \"a\"", a),
           "r.json:1:12: error: JSON: expected ',' or '}' after the value of \"id\", found the end of the file");
    EQ_STR(errors_of("[", a), "r.json:1:2: error: JSON: expected a value, found the end of the file");
    EQ_STR(errors_of("", a), "r.json:1:1: error: JSON: no value: the file is empty");
    /* the shape */
    EQ_STR(errors_of("{\"items\": []}", a),
           "r.json:1:1: error: a CSL-JSON bibliography is a list of items ([{\"id\": \"key\", \"type\": …}, …]), "
           "found an object");
    EQ_STR(errors_of("[\n  {\"id\": \"a\", \"type\": \"book\"},\n  \"b\"\n]", a),
           "r.json:3:3: error: item 2 must be an object ({\"id\": …, \"type\": …}), found a string");
    EQ_STR(errors_of("[\n {\"type\": \"book\"}]", a),
           "r.json:2:2: error: item 1 has no \"id\": each item needs one, its citation key");
    EQ_STR(errors_of("[{\"id\": [1], \"type\": \"book\"}]", a),
           "r.json:1:9: error: \"id\" must be a string (or a whole number), found a list");
    EQ_STR(errors_of("[{\"id\": \"\", \"type\": \"book\"}]", a),
           "r.json:1:9: error: \"id\" is empty: each item needs one, its citation key");
    EQ_STR(errors_of("[{\"id\": \"a\"}]", a),
           "r.json:1:2: error: item 1 has no \"type\" (\"article-journal\", \"book\", …)");
    EQ_STR(errors_of("[{\"id\": \"a\", \"type\": 3}]", a),
           "r.json:1:22: error: \"type\" must be a CSL type (\"article-journal\", \"book\", …), found a number");
    EQ_STR(errors_of("[{\"id\": \"a\", \"type\": \"\"}]", a),
           "r.json:1:22: error: \"type\" must be a CSL type (\"article-journal\", \"book\", …), found an empty string");
    /* variables */
    EQ_STR(errors_of("[{\"id\": \"a\", \"type\": \"book\", \"title\": [\"x\"]}]", a),
           "r.json:1:39: error: \"title\" must be a string (or a number), found a list");
    EQ_STR(errors_of("[{\"id\": \"a\", \"type\": \"book\", \"author\": \"Knuth\"}]", a),
           "r.json:1:40: error: \"author\" must be a list of names ([{\"family\": …, \"given\": …}]), found a string");
    EQ_STR(errors_of("[{\"id\": \"a\", \"type\": \"book\", \"translator\": [{\"family\": \"K\"}, \"Knuth\"]}]", a),
           "r.json:1:62: error: name 2 of \"translator\" must be an object ({\"family\": …, \"given\": …} or "
           "{\"literal\": …}), found a string");
    EQ_STR(errors_of("[{\"id\": \"a\", \"type\": \"book\", \"author\": [{\"family\": \"K\"}, {}]}]", a),
           "r.json:1:58: error: name 2 of \"author\" has no \"family\", \"given\" or \"literal\"");
    EQ_STR(errors_of("[{\"id\": \"a\", \"type\": \"book\", \"author\": [{\"family\": true}]}]", a),
           "r.json:1:52: error: a name's \"family\" must be a string, found true");
    EQ_STR(errors_of("[{\"id\": \"a\", \"type\": \"book\", \"issued\": 2020}]", a),
           "r.json:1:40: error: \"issued\" must be a date object ({\"date-parts\": [[2020, 5, 1]]}), found a number");
    EQ_STR(errors_of("[{\"id\": \"a\", \"type\": \"book\", \"issued\": {\"date-parts\": [2020]}}]", a),
           "r.json:1:55: error: \"date-parts\" of \"issued\" must be one or two lists of up to three numbers "
           "(year, month, day): [[2020, 5, 1]]");
    EQ_STR(errors_of("[{\"id\": \"a\", \"type\": \"book\", \"issued\": {\"date-parts\": [[\"May\"]]}}]", a),
           "r.json:1:55: error: \"date-parts\" of \"issued\" must be one or two lists of up to three numbers "
           "(year, month, day): [[2020, 5, 1]]");
    EQ_STR(errors_of("[{\"id\": \"a\", \"type\": \"book\", \"issued\": {\"raw\": 2020}}]", a),
           "r.json:1:48: error: \"raw\" of \"issued\" must be a string, found a number");
    EQ_STR(errors_of("[{\"id\": \"a\", \"type\": \"book\", \"original-date\": {\"season\": 1}}]", a),
           "r.json:1:47: error: \"original-date\" has no \"date-parts\", \"raw\" or \"literal\"");
    /* keys */
    EQ_STR(errors_of("[{\"id\": \"a\", \"type\": \"book\"},\n {\"id\": \"a\", \"type\": \"book\"}]", a),
           "r.json:2:9: error: duplicate id 'a': already defined at r.json:1 (keys must be unique across every "
           "bibliography of the site)");
    /* a broken item is left out, the others kept; every error is shown */
    bib b = { 0 };
    const char *msgs;
    OK(!load(&b, "[{\"id\": \"a\", \"type\": \"book\", \"title\": {}, \"volume\": []},\n {\"id\": \"b\", \"type\": \"book\"}]",
             &msgs, a));
    EQ_STR(msgs, "r.json:1:39: error: \"title\" must be a string (or a number), found an object\n"
                 "r.json:1:53: error: \"volume\" must be a string (or a number), found a list");
    EQ_INT((long)b.n, 1);
    EQ_STR(b.entries[0].key, "b");
    /* a key also in a .bib read before */
    diag_list *d = diag_list_new();
    OK(bib_load_text(&b, "@book{c, title={T}}\n", 20, "refs.bib", a, d));
    diag_list_free(d);
    OK(!load(&b, "[{\"id\": \"c\", \"type\": \"book\"}]", &msgs, a));
    EQ_STR(msgs, "r.json:1:9: error: duplicate id 'c': already defined at refs.bib:1 (keys must be unique across "
                 "every bibliography of the site)");
    bib_free(&b);
    arena_free(a);
}

/* Without places (the reader's fallbacks): the item's start, then 1:1. */
static bool nowhere_key(void *ctx, const tpl_map *m, const char *key, int *line, int *col)
{
    (void)ctx, (void)m, (void)key, (void)line, (void)col;
    return false;
}

TEST(fallback_places)
{
    arena *a = arena_new();
    tpl_map *m = tpl_map_new(a, 0);
    tpl_map_set(a, m, tpl_str("id"), tpl_int(7));
    tpl_map_set(a, m, tpl_str("type"), tpl_str("book"));
    tpl_map_set(a, m, tpl_str("title"), tpl_bool(false));
    tpl_map_seal(a, m);
    tpl_list *l = tpl_list_new(a, 1);
    l->items[0] = tpl_map_value(m);
    bib b = { 0 };
    diag_list *d = diag_list_new();
    bib_json_places at = { nowhere_key, NULL, NULL };
    OK(!bib_load_csljson(&b, tpl_list_value(l), "m.json", &at, a, d));
    buf out = BUF_INIT;
    diag_format(diag_get(d, 0), &out);
    EQ_STR(out.data, "m.json:1:1: error: \"title\" must be a string (or a number), found false");
    buf_release(&out);
    diag_list_free(d);
    bib_free(&b);
    arena_free(a);
}

int main(void)
{
    RUN(mapping);
    RUN(other_types);
    RUN(errors);
    RUN(fallback_places);
    return harness_done();
}
