/* Unit tests for fm: splitting front matter from the body, and YAML →
 * template values. Expected values were checked against PyYAML's
 * yaml.safe_load (YAML 1.1 scalar rules). */
#include "harness.h"

#include <math.h>
#include <stdlib.h>

#include "fm/fm.h"
#include "util/buf.h"

/* ---- splitting ---------------------------------------------------------- */

static fm_split split(const char *src, bool *ok)
{
    fm_split sp;
    diag_list *d = diag_list_new();
    *ok = fm_split_source(str_from(src), "p.md", &sp, d);
    diag_list_free(d);
    return sp;
}

/* A str as a C string, in a static slot (4 slots, enough for one check). */
static const char *cs(str s)
{
    static char slots[4][512];
    static int next;
    char *p = slots[next++ % 4];
    size_t n = s.len < 511 ? s.len : 511;
    memcpy(p, s.ptr, n);
    p[n] = '\0';
    return p;
}

TEST(split_none)
{
    bool ok;
    fm_split sp = split("# Hello\n\ntext\n", &ok);
    OK(ok);
    OK(!sp.has_front_matter);
    EQ_STR(cs(sp.head), "");
    EQ_STR(cs(sp.body), "# Hello\n\ntext\n");
    EQ_INT(sp.body_line, 1);

    sp = split("", &ok);
    OK(ok && !sp.has_front_matter);
    EQ_INT(sp.body.len, 0);

    /* not a fence: more dashes, text after them, not the first line */
    sp = split("----\na: 1\n---\n", &ok);
    OK(ok && !sp.has_front_matter);
    EQ_STR(cs(sp.body), "----\na: 1\n---\n");
    sp = split("--- a\nb\n---\n", &ok);
    OK(ok && !sp.has_front_matter);
    sp = split("\n---\na: 1\n---\n", &ok);
    OK(ok && !sp.has_front_matter);
}

TEST(split_basic)
{
    bool ok;
    fm_split sp = split("---\ntitle: Hi\ntags: [a]\n---\n# Body\n", &ok);
    OK(ok);
    OK(sp.has_front_matter);
    EQ_STR(cs(sp.head), "title: Hi\ntags: [a]\n");
    EQ_INT(sp.head_line, 2);
    EQ_STR(cs(sp.body), "# Body\n");
    EQ_INT(sp.body_line, 5);
}

TEST(split_empty_and_dots)
{
    bool ok;
    fm_split sp = split("---\n---\nbody", &ok);
    OK(ok && sp.has_front_matter);
    EQ_INT(sp.head.len, 0);
    EQ_STR(cs(sp.body), "body");
    EQ_INT(sp.body_line, 3);

    sp = split("---\na: 1\n...\nbody\n", &ok);
    OK(ok && sp.has_front_matter);
    EQ_STR(cs(sp.head), "a: 1\n");
    EQ_STR(cs(sp.body), "body\n");
    EQ_INT(sp.body_line, 4);

    /* a closing fence at the very end, without a newline */
    sp = split("---\na: 1\n---", &ok);
    OK(ok && sp.has_front_matter);
    EQ_STR(cs(sp.head), "a: 1\n");
    EQ_INT(sp.body.len, 0);
    EQ_INT(sp.body_line, 4);
}

TEST(split_crlf_bom_blanks)
{
    bool ok;
    fm_split sp = split("---\r\na: 1\r\nb: 2\r\n---\r\nbody\r\n", &ok);
    OK(ok && sp.has_front_matter);
    EQ_STR(cs(sp.head), "a: 1\r\nb: 2\r\n");
    EQ_STR(cs(sp.body), "body\r\n");
    EQ_INT(sp.body_line, 5);

    sp = split("\xEF\xBB\xBF---  \na: 1\n--- \t\nx\n", &ok);
    OK(ok && sp.has_front_matter);
    EQ_STR(cs(sp.head), "a: 1\n");
    EQ_STR(cs(sp.body), "x\n");
    EQ_INT(sp.body_line, 4);

    /* a BOM is dropped from the body too */
    sp = split("\xEF\xBB\xBFtext\n", &ok);
    OK(ok && !sp.has_front_matter);
    EQ_STR(cs(sp.body), "text\n");
}

TEST(split_unclosed)
{
    const char *cases[] = { "---\ntitle: x\n\nbody\n", "---\n", "---", "---\r\na: 1\r\n----\r\n" };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        diag_list *d = diag_list_new();
        fm_split sp;
        OK(!fm_split_source(str_from(cases[i]), "posts/a.md", &sp, d));
        EQ_INT(diag_count(d), 1);
        if (diag_count(d) == 1) {
            buf b = BUF_INIT;
            diag_format(diag_get(d, 0), &b);
            EQ_STR(b.data, "posts/a.md:1:1: error: front matter opened here is never closed "
                           "(expected a line '---')");
            buf_release(&b);
        }
        diag_list_free(d);
    }
}

/* ---- YAML values -------------------------------------------------------- */

/* Parses yaml and shows the value as Python's str() would (or the first
 * error as `path:line:col: error: …`). The result is static. */
static const char *show_at(const char *yaml, int first_line)
{
    static char out[2048];
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    tpl_value v;
    buf b = BUF_INIT;
    fm_key_pos *pos;
    size_t npos;
    if (fm_parse_yaml_pos(str_from(yaml), first_line, "post.md", a, &v, &pos, &npos, d) &&
        !diag_error_count(d))
        tpl_value_to_str(v, &b);
    else if (diag_count(d) > 0)
        diag_format(diag_get(d, 0), &b);
    else
        buf_puts(&b, "(failed without a message)");
    snprintf(out, sizeof out, "%s", b.data);
    buf_release(&b);
    diag_list_free(d);
    arena_free(a);
    return out;
}

static const char *show(const char *yaml) { return show_at(yaml, 1); }

/* One plain scalar `k: text`, shown as the value alone. */
static const char *scalar(const char *text)
{
    static char out[512];
    char doc[256];
    snprintf(doc, sizeof doc, "k: %s\n", text);
    const char *s = show(doc);
    size_t n = strlen(s);
    if (n > 7 && strncmp(s, "{'k': ", 6) == 0 && s[n - 1] == '}')
        snprintf(out, sizeof out, "%.*s", (int)(n - 7), s + 6);
    else
        snprintf(out, sizeof out, "%s", s);
    return out;
}

/* The kind of `k: text`. */
static int kind_of(const char *text)
{
    char doc[256];
    snprintf(doc, sizeof doc, "k: %s\n", text);
    arena *a = arena_new();
    tpl_value v;
    int kind = -1;
    if (fm_parse_yaml(str_from(doc), 1, "x", a, &v, NULL) && v.kind == TPL_MAP)
        kind = tpl_map_get_cstr(v.u.map, "k").kind;
    arena_free(a);
    return kind;
}

TEST(scalars_null_bool)
{
    const char *nulls[] = { "", "~", "null", "Null", "NULL" };
    for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++)
        EQ_STR(scalar(nulls[i]), "None");
    EQ_STR(scalar("nUll"), "'nUll'");

    const char *trues[] = { "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON" };
    const char *falses[] = { "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF" };
    for (size_t i = 0; i < 9; i++) {
        EQ_STR(scalar(trues[i]), "True");
        EQ_STR(scalar(falses[i]), "False");
    }
    /* spellings PyYAML does not take as bools */
    EQ_STR(scalar("tRue"), "'tRue'");
    EQ_STR(scalar("yEs"), "'yEs'");
    EQ_STR(scalar("y"), "'y'");
    EQ_STR(scalar("n"), "'n'");
}

TEST(scalars_int)
{
    EQ_INT(kind_of("12"), TPL_INT);
    EQ_STR(scalar("0"), "0");
    EQ_STR(scalar("-0"), "0");
    EQ_STR(scalar("+12"), "12");
    EQ_STR(scalar("-17"), "-17");
    EQ_STR(scalar("1_000_000"), "1000000");
    EQ_STR(scalar("012"), "10");      /* leading 0: octal */
    EQ_STR(scalar("0x1F"), "31");
    EQ_STR(scalar("-0xff_ff"), "-65535");
    EQ_STR(scalar("0b101"), "5");
    EQ_STR(scalar("1:30"), "90");     /* sexagesimal, as YAML 1.1 says */
    EQ_STR(scalar("190:20:30"), "685230");
    EQ_STR(scalar("9223372036854775807"), "9223372036854775807");
    EQ_STR(scalar("-9223372036854775808"), "-9223372036854775808");
    /* not ints in PyYAML */
    EQ_STR(scalar("0o17"), "'0o17'");
    EQ_STR(scalar("09"), "'09'");
    EQ_STR(scalar("1:60"), "'1:60'");
    EQ_STR(scalar("0x"), "'0x'");
    /* too big for 64 bits: kept as the text */
    EQ_STR(scalar("9223372036854775808"), "'9223372036854775808'");
}

TEST(scalars_float)
{
    EQ_INT(kind_of("1.5"), TPL_FLOAT);
    EQ_STR(scalar("1.5"), "1.5");
    EQ_STR(scalar("-1.5"), "-1.5");
    EQ_STR(scalar("1."), "1.0");
    EQ_STR(scalar(".5"), "0.5");
    EQ_STR(scalar("1_000.5"), "1000.5");
    EQ_STR(scalar("1.0e+3"), "1000.0");
    EQ_STR(scalar("1.5E-2"), "0.015");
    EQ_STR(scalar("1.e+5"), "100000.0");
    EQ_STR(scalar("1:30.5"), "90.5");
    EQ_STR(scalar(".inf"), "inf");
    EQ_STR(scalar("-.Inf"), "-inf");
    EQ_STR(scalar("+.INF"), "inf");
    EQ_STR(scalar(".nan"), "nan");
    EQ_STR(scalar(".NaN"), "nan");
    /* YAML 1.1 wants a dot and a signed exponent: these are strings */
    EQ_STR(scalar("1e3"), "'1e3'");
    EQ_STR(scalar("1.0e3"), "'1.0e3'");
    EQ_STR(scalar("-.5"), "'-.5'");
    EQ_STR(scalar("-.nan"), "'-.nan'");
    EQ_STR(scalar("1.2.3"), "'1.2.3'");
    EQ_STR(scalar("."), "'.'");
}

TEST(scalars_date)
{
    arena *a = arena_new();
    tpl_value v;
    OK(fm_parse_yaml(STR_LIT("d: 2024-03-18\nt: 2024-03-18T10:20:30+08:00\nu: 2024-03-18 10:20:30\n"),
                     1, "x", a, &v, NULL));
    tpl_value d = tpl_map_get_cstr(v.u.map, "d");
    tpl_value t = tpl_map_get_cstr(v.u.map, "t");
    tpl_value u = tpl_map_get_cstr(v.u.map, "u");
    EQ_INT(d.kind, TPL_DATE);
    EQ_INT(d.u.t, 1710720000);
    EQ_INT(d.flags & (TPL_HAS_TIME | TPL_HAS_ZONE), 0);
    EQ_INT(t.kind, TPL_DATE);
    EQ_INT(t.u.t, 1710728430);
    EQ_INT(tpl_date_offset(t), 480);
    EQ_INT(t.flags & (TPL_HAS_TIME | TPL_HAS_ZONE), TPL_HAS_TIME | TPL_HAS_ZONE);
    EQ_INT(u.kind, TPL_DATE);
    EQ_INT(u.flags & (TPL_HAS_TIME | TPL_HAS_ZONE), TPL_HAS_TIME);
    arena_free(a);

    EQ_STR(scalar("2024-03-18 10:20:30 +08:00"), "2024-03-18 10:20:30+08:00");
    EQ_STR(scalar("2024-03-18T10:20:30Z"), "2024-03-18 10:20:30+00:00");
    EQ_STR(scalar("2024-3-8 1:02:03"), "2024-03-08 01:02:03");
    EQ_STR(scalar("2024-13-45"), "'2024-13-45'"); /* not a real date: text */
    EQ_STR(scalar("'2024-03-18'"), "'2024-03-18'");
}

TEST(scalars_quoted_and_tagged)
{
    EQ_STR(show("a: 'yes'\nb: \"1.5\"\nc: '~'\nd: ''\ne: \"null\"\n"),
           "{'a': 'yes', 'b': '1.5', 'c': '~', 'd': '', 'e': 'null'}");
    EQ_STR(show("a: !!str 123\nb: !!float 3\nc: !!bool YES\nd: !!null x\ne: !!int '0x1F'\n"
                "f: ! 12\ng: !!str\nh: !!str yes\n"),
           "{'a': '123', 'b': 3.0, 'c': True, 'd': None, 'e': 31, 'f': 12, 'g': '', "
           "'h': 'yes'}");
    EQ_INT(kind_of("!!str 2024-03-18"), TPL_STRING);
    EQ_INT(kind_of("!!timestamp '2024-03-18'"), TPL_DATE);
    /* tags we do not know leave the scalar as it is */
    EQ_STR(show("a: !thing 12\nb: !thing x\n"), "{'a': 12, 'b': 'x'}");
    EQ_STR(show_at("a: 1\nb: !!int abc\n", 2), "post.md:3:4: error: YAML: 'abc' is not a valid !!int value");
    EQ_STR(show("a: !!bool maybe\n"), "post.md:1:4: error: YAML: 'maybe' is not a valid !!bool value");
    /* escapes in double quotes (a NUL is an error: see collections) */
    arena *a = arena_new();
    tpl_value v;
    OK(fm_parse_yaml(STR_LIT("s: \"a\\tb\\u00e9c\"\n"), 1, "x", a, &v, NULL));
    tpl_value s = tpl_map_get_cstr(v.u.map, "s");
    EQ_INT(s.len, 6);
    OK(memcmp(s.u.s, "a\tb\xC3\xA9" "c", 6) == 0);
    arena_free(a);
}

TEST(collections)
{
    EQ_STR(show("title: Hi\ntags:\n  - a\n  - b\nauthor:\n  name: Ann\n  links: {web: x, n: 2}\n"),
           "{'title': 'Hi', 'tags': ['a', 'b'], 'author': {'name': 'Ann', 'links': "
           "{'web': 'x', 'n': 2}}}");
    EQ_STR(show("l: [a, 'b', \"c\", {d: e}, [1, 2], []]\nm: {}\n"),
           "{'l': ['a', 'b', 'c', {'d': 'e'}, [1, 2], []], 'm': {}}");
    EQ_STR(show("- 1\n- two\n"), "[1, 'two']"); /* not a map: the caller's concern */
    EQ_STR(show("just text"), "just text");
    /* keys keep their document order */
    EQ_STR(show("z: 1\na: 2\nm: 4\n"), "{'z': 1, 'a': 2, 'm': 4}");
    /* keys of other kinds stay those kinds */
    EQ_STR(show("1: a\n2.5: b\nfalse: c\n~: d\n"), "{1: 'a', 2.5: 'b', False: 'c', None: 'd'}");
    /* issue 19: a key written twice is an error at the second (it was
     * silently replaced); keys compare as Python does (true == 1) */
    EQ_STR(show("title: A\na: 2\ntitle: B\n"),
           "post.md:3:1: error: YAML: duplicate key 'title' (first written at line 1, column 1)");
    EQ_STR(show("1: a\n2.5: b\ntrue: c\n"),
           "post.md:3:1: error: YAML: duplicate key True (first written at line 1, column 1)");
    EQ_STR(show_at("m:\n  x: 1\n  y: {k: 1, k: 2}\n", 5),
           "post.md:7:13: error: YAML: duplicate key 'k' (first written at line 7, column 7)");
    /* ...but with FM_DUPS_LAST_WINS (`sheaf import jekyll`) a warning, and
     * the last one wins, as in Jekyll */
    {
        arena *a = arena_new();
        diag_list *d = diag_list_new();
        tpl_value v;
        buf b = BUF_INIT;
        OK(fm_parse_yaml_pos_flags(str_from("title: A\na: 2\ntitle: B\n"), 1, "post.md", a, &v,
                                   FM_DUPS_LAST_WINS, NULL, NULL, d));
        tpl_value_to_str(v, &b);
        EQ_STR(b.data, "{'title': 'B', 'a': 2}");
        EQ_INT(diag_count(d), 1);
        buf_reset(&b);
        diag_format(diag_get(d, 0), &b);
        EQ_STR(b.data, "post.md:3:1: warning: YAML: duplicate key 'title' (first written at line 1, "
                       "column 1): the last one is kept");
        buf_release(&b);
        diag_list_free(d);
        arena_free(a);
    }
    /* issue 19: what XML 1.0 forbids (control characters, written as
     * escapes: libyaml refuses them raw) is an error at the value; NUL cut
     * the title silently */
    EQ_STR(show("title: \"bell\\x07\"\n"),
           "post.md:1:8: error: YAML: this value holds \\x07, a character XML 1.0 forbids (no feed "
           "or sitemap could hold it); remove it");
    EQ_STR(show_at("a: 1\ntitle: \"cut\\0here\"\n", 3),
           "post.md:4:8: error: YAML: this value holds \\x00, a character XML 1.0 forbids (no feed "
           "or sitemap could hold it); remove it");
    EQ_STR(show("tags: [ok, \"\\uFFFE\"]\n"),
           "post.md:1:12: error: YAML: this value holds U+FFFE, a character XML 1.0 forbids (no feed "
           "or sitemap could hold it); remove it");
    EQ_STR(show("\"k\\e\": 1\n"),
           "post.md:1:1: error: YAML: this value holds \\x1b, a character XML 1.0 forbids (no feed "
           "or sitemap could hold it); remove it");
    /* the data of `sheaf render --data` may hold them (templates' tests) */
    arena *xa = arena_new();
    tpl_value xv;
    OK(fm_parse_yaml(STR_LIT("t: \"a\\x1cb\\0\"\n"), 1, "d.yaml", xa, &xv, NULL));
    EQ_INT(tpl_map_get_cstr(xv.u.map, "t").len, 4);
    arena_free(xa);
    /* tab, newline and carriage return are XML, and so is DEL */
    EQ_STR(show("t: \"a\\tb\\r\\nc\\x7f\"\n"), "{'t': 'a\\tb\\r\\nc\\x7f'}");
    EQ_STR(show("? [1]\n: 2\n"), "post.md:1:3: error: YAML: found unhashable key while constructing a mapping");
}

TEST(block_scalars)
{
    EQ_STR(show("s: |\n  line1\n  line2\n\nf: >\n  folded\n  text\n\n  para\nk: |-\n  keep\n"
                "p: |+\n  plus\n\n"),
           "{'s': 'line1\\nline2\\n', 'f': 'folded text\\npara\\n', 'k': 'keep', "
           "'p': 'plus\\n\\n'}");
    /* a block scalar is a string even when it looks like something else */
    EQ_STR(show("n: |\n  12\n"), "{'n': '12\\n'}");
}

TEST(cjk)
{
    EQ_STR(show("title: 标题：你好\n'引号': \"世界\"\ntags: [日本語, 한국어]\n"),
           "{'title': '标题：你好', '引号': '世界', 'tags': ['日本語', '한국어']}");
}

TEST(anchors_and_merge)
{
    EQ_STR(show("a: &x 1\nb: *x\nc: &l [1, 2]\nd: *l\n"), "{'a': 1, 'b': 1, 'c': [1, 2], 'd': [1, 2]}");
    /* redefining an anchor: later aliases see the new value */
    EQ_STR(show("a: &x 1\nb: &x 2\nc: *x\n"), "{'a': 1, 'b': 2, 'c': 2}");
    /* own keys win over merged ones wherever they are written */
    EQ_STR(show("base: &b {x: 1, y: 2}\nm:\n  y: 9\n  <<: *b\n"),
           "{'base': {'x': 1, 'y': 2}, 'm': {'x': 1, 'y': 9}}");
    /* of a list of maps, the earlier wins; order as PyYAML builds it */
    EQ_STR(show("b: &b {x: 1, y: 2}\no: &o {y: 3, z: 4}\nm:\n  <<: [*b, *o]\n  z: 5\n  w: 6\n"),
           "{'b': {'x': 1, 'y': 2}, 'o': {'y': 3, 'z': 4}, "
           "'m': {'y': 2, 'z': 5, 'x': 1, 'w': 6}}");
    EQ_STR(show("b: &b {x: 1}\nm:\n  <<: *b\n  <<: {q: 2}\n  x: 3\n"),
           "{'b': {'x': 1}, 'm': {'x': 3, 'q': 2}}");
    /* a merged map that merged another */
    EQ_STR(show("a: &a {p: 1}\nb: &b {<<: *a, q: 2}\nc: {<<: *b}\n"),
           "{'a': {'p': 1}, 'b': {'p': 1, 'q': 2}, 'c': {'p': 1, 'q': 2}}");
    /* a quoted '<<' is an ordinary key */
    EQ_STR(show("'<<': 1\n"), "{'<<': 1}");

    EQ_STR(show_at("a: 1\nb: *nope\n", 2), "post.md:3:4: error: YAML: found undefined alias 'nope'");
    EQ_STR(show("a: &x [1, *x]\n"), "post.md:1:11: error: YAML: alias 'x' refers to a node that contains it");
    EQ_STR(show("m:\n  <<: 3\n"),
           "post.md:2:7: error: YAML: expected a mapping or list of mappings for merging, but found an int");
    EQ_STR(show("m:\n  <<: [{a: 1}, x]\n"),
           "post.md:2:7: error: YAML: expected a mapping for merging, but found a string");

    /* issue 19: an alias bomb (9 levels of 10 aliases to the level below,
     * 10^9 nodes from 1 KB) is an error at the alias that passes the bound */
    buf bomb = BUF_INIT;
    buf_puts(&bomb, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i <= 9; i++) {
        buf_printf(&bomb, "a%d: &a%d [", i, i);
        for (int k = 0; k < 10; k++)
            buf_printf(&bomb, "%s*a%d", k ? ", " : "", i - 1);
        buf_puts(&bomb, "]\n");
    }
    EQ_STR(show(bomb.data), "post.md:6:45: error: YAML: aliases stand for more than 1000000 nodes "
                            "(this one for 111111 more); write the values out, or alias less");
    buf_release(&bomb);
    /* many aliases of small values are fine */
    buf many = BUF_INIT;
    buf_puts(&many, "s: &s {a: 1, b: 2}\nl:\n");
    for (int i = 0; i < 20000; i++)
        buf_puts(&many, "  - *s\n");
    OK(strncmp(show(many.data), "{'s': {'a': 1, 'b': 2}, 'l': [{'a': 1, 'b': 2}, ", 45) == 0);
    buf_release(&many);
}

TEST(empty_and_documents)
{
    EQ_STR(show(""), "{}");
    EQ_STR(show("# only a comment\n\n"), "{}");
    EQ_STR(show("---\n"), "{}");
    EQ_STR(show("~\n"), "{}");
    /* only the first document counts; the rest is not even parsed */
    EQ_STR(show("a: 1\n---\nb: [\n"), "{'a': 1}");
    EQ_STR(show("--- \na: 1\n...\n"), "{'a': 1}");
}

TEST(errors_point_into_the_file)
{
    /* first_line 2: the line after the opening fence */
    EQ_STR(show_at("title: \"abc\ndate: 2024-01-01\n", 2),
           "post.md:4:1: error: YAML: found unexpected end of stream (while scanning a quoted "
           "scalar at line 2)");
    EQ_STR(show_at("title: x\n  bad: y\n", 2),
           "post.md:3:6: error: YAML: mapping values are not allowed in this context");
    EQ_STR(show_at("tags:\n  - a\n - b\n", 2),
           "post.md:4:2: error: YAML: did not find expected key (while parsing a block mapping "
           "at line 2)");
    EQ_STR(show_at("tags: [a, b\ntitle: x\n", 2),
           "post.md:3:6: error: YAML: did not find expected ',' or ']' (while parsing a flow "
           "sequence at line 2)");
    EQ_STR(show_at("a: 1\n\tb: 2\n", 2),
           "post.md:3:1: error: YAML: found a tab character that violates indentation (while "
           "scanning a plain scalar at line 2)");
    /* columns count characters, not bytes */
    EQ_STR(show_at("标题: x: y\n", 2),
           "post.md:2:6: error: YAML: mapping values are not allowed in this context");
    /* invalid UTF-8 (a reader error) is placed by its byte offset */
    EQ_STR(show_at("a: 1\nb: x\xff\n", 2), "post.md:3:5: error: YAML: invalid leading UTF-8 octet (0xFF)");

    /* several problems that are not syntax errors are all reported */
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    tpl_value v;
    OK(!fm_parse_yaml(STR_LIT("a: *x\nb: *y\nc: 1\n"), 1, "p", a, &v, d));
    EQ_INT(diag_error_count(d), 2);
    OK(v.kind == TPL_MAP);
    diag_list_free(d);
    arena_free(a);
}

TEST(deep_nesting)
{
    char doc[4000];
    size_t n = 0;
    for (int i = 0; i < 1000; i++)
        doc[n++] = '[';
    doc[n] = '\0';
    const char *s = show(doc);
    OK(strstr(s, "nesting is too deep") != NULL);
}

TEST(key_positions)
{
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    tpl_value v;
    fm_key_pos *pos = NULL;
    size_t npos = 0;
    OK(fm_parse_yaml_pos(STR_LIT("title: Hello\ndate:   2024-03-18\n\n\"tags\":\n  - a\n"
                                 "标题: 你好\nnested: {x: 1}\n"),
                         2, "p.md", a, &v, &pos, &npos, d));
    EQ_INT(diag_count(d), 0);
    /* one per key of each map: the nested map's first, then the root's in
     * its order */
    EQ_INT(npos, 6);
    if (npos == 6) {
        const tpl_map *root = v.u.map, *nested = tpl_map_get_cstr(root, "nested").u.map;
        OK(pos[0].map == nested);
        EQ_STR(pos[0].key, "x");
        EQ_INT(pos[0].line, 8);
        EQ_INT(pos[0].col, 10);
        EQ_INT(pos[0].vcol, 13);
        OK(pos[1].map == root);
        EQ_STR(pos[1].key, "title");
        EQ_INT(pos[1].line, 2);
        EQ_INT(pos[1].col, 1);
        EQ_INT(pos[1].vline, 2);
        EQ_INT(pos[1].vcol, 8);
        EQ_STR(pos[2].key, "date");
        EQ_INT(pos[2].line, 3);
        EQ_INT(pos[2].vcol, 9);
        EQ_STR(pos[3].key, "tags");
        EQ_INT(pos[3].line, 5);
        EQ_INT(pos[3].col, 1);
        EQ_INT(pos[3].vline, 6);
        EQ_INT(pos[3].vcol, 3);
        EQ_STR(pos[4].key, "标题");
        EQ_INT(pos[4].line, 7);
        EQ_INT(pos[4].vcol, 5);
        EQ_STR(pos[5].key, "nested");
        EQ_INT(pos[5].vline, 8);
        EQ_INT(pos[5].vcol, 9);
        /* found by map and key */
        OK(fm_key_find(pos, npos, root, "date") == &pos[2]);
        OK(fm_key_find(pos, npos, nested, "x") == &pos[0]);
        OK(fm_key_find(pos, npos, root, "x") == NULL);
        OK(fm_key_find(pos, npos, nested, "title") == NULL);
    }

    /* merged keys come first (as in PyYAML) and are placed at their `<<`;
     * keys of other kinds are shown as text */
    OK(fm_parse_yaml_pos(STR_LIT("d: &d {x: 1}\n<<: *d\n3: c\n"), 1, "p", a, &v, &pos, &npos, d));
    EQ_INT(npos, 4);
    if (npos == 4) {
        EQ_STR(pos[0].key, "x"); /* in d's own map */
        EQ_INT(pos[0].line, 1);
        EQ_INT(pos[0].col, 8);
        EQ_STR(pos[1].key, "x"); /* merged into the root */
        EQ_INT(pos[1].line, 2);
        EQ_INT(pos[1].vcol, 5);
        EQ_STR(pos[2].key, "d");
        EQ_INT(pos[2].line, 1);
        EQ_STR(pos[3].key, "3");
    }

    /* no mapping, or empty: no positions */
    OK(fm_parse_yaml_pos(STR_LIT("- a\n"), 1, "p", a, &v, &pos, &npos, d));
    EQ_INT(npos, 0);
    OK(pos == NULL);
    OK(fm_parse_yaml_pos(STR_LIT(""), 1, "p", a, &v, &pos, &npos, d));
    EQ_INT(npos, 0);
    OK(v.kind == TPL_MAP && v.u.map->len == 0);
    diag_list_free(d);
    arena_free(a);
}

TEST(large_map)
{
    buf b = BUF_INIT;
    for (int i = 0; i < 300; i++)
        buf_printf(&b, "key%d: %d\n", i, i);
    arena *a = arena_new();
    tpl_value v;
    OK(fm_parse_yaml(str_make(b.data, b.len), 1, "x", a, &v, NULL));
    OK(v.kind == TPL_MAP && v.u.map->len == 300);
    EQ_INT(tpl_map_get_cstr(v.u.map, "key299").u.i, 299);
    EQ_INT(tpl_map_get_cstr(v.u.map, "key7").u.i, 7);
    arena_free(a);
    buf_release(&b);
}

int main(void)
{
    RUN(split_none);
    RUN(split_basic);
    RUN(split_empty_and_dots);
    RUN(split_crlf_bom_blanks);
    RUN(split_unclosed);
    RUN(scalars_null_bool);
    RUN(scalars_int);
    RUN(scalars_float);
    RUN(scalars_date);
    RUN(scalars_quoted_and_tagged);
    RUN(collections);
    RUN(block_scalars);
    RUN(cjk);
    RUN(anchors_and_merge);
    RUN(empty_and_documents);
    RUN(errors_point_into_the_file);
    RUN(deep_nesting);
    RUN(key_positions);
    RUN(large_map);
    return harness_done();
}
