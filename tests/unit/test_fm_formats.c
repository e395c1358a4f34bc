/* Unit tests for the front matter formats besides YAML: splitting TOML
 * (`+++`) and JSON (`{…}`) heads off a page, the JSON reader (RFC 8259),
 * the TOML reader (toml++) with key positions, and the toml-test cases
 * vendored in tests/toml-test/ (see its README). */
#include "harness.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>

#include "fm/fm.h"
#include "util/buf.h"
#include "util/date.h"
#include "util/fs.h"

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

/* The first message (or "") of splitting src. */
static const char *split_msg(const char *src, fm_split *sp, bool *ok)
{
    static char msg[512];
    diag_list *d = diag_list_new();
    *ok = fm_split_source(str_from(src), "p.md", sp, d);
    buf b = BUF_INIT;
    if (diag_count(d))
        diag_format(diag_get(d, 0), &b);
    snprintf(msg, sizeof msg, "%s", b.data);
    buf_release(&b);
    diag_list_free(d);
    return msg;
}

TEST(split_toml)
{
    fm_split sp;
    bool ok;
    split_msg("+++\ntitle = \"Hi\"\n+++ \nBody\n", &sp, &ok);
    OK(ok && sp.has_front_matter && sp.format == FM_TOML);
    EQ_STR(cs(sp.head), "title = \"Hi\"\n");
    EQ_INT(sp.head_line, 2);
    EQ_STR(cs(sp.body), "Body\n");
    EQ_INT(sp.body_line, 4);
    /* `---` does not close TOML, nor `+++` YAML */
    EQ_STR(split_msg("+++\na = 1\n---\nBody\n", &sp, &ok),
           "p.md:1:1: error: front matter opened here is never closed (expected a line '+++')");
    OK(!ok);
    split_msg("---\na: 1\n+++\n---\nBody\n", &sp, &ok);
    OK(ok && sp.format == FM_YAML);
    EQ_STR(cs(sp.head), "a: 1\n+++\n");
    /* `+++ x` is no fence */
    split_msg("+++ x\n", &sp, &ok);
    OK(ok && !sp.has_front_matter);
}

TEST(split_json)
{
    fm_split sp;
    bool ok;
    split_msg("{\n  \"title\": \"a } in a string\",\n  \"x\": {\"y\": [1, {}]}\n}\nBody\n", &sp, &ok);
    OK(ok && sp.has_front_matter && sp.format == FM_JSON);
    EQ_STR(cs(sp.head), "{\n  \"title\": \"a } in a string\",\n  \"x\": {\"y\": [1, {}]}\n}");
    EQ_INT(sp.head_line, 1);
    EQ_STR(cs(sp.body), "Body\n");
    EQ_INT(sp.body_line, 5);
    split_msg("\xEF\xBB\xBF{\"title\": \"one line\"}  \r\nBody", &sp, &ok);
    OK(ok && sp.format == FM_JSON);
    EQ_STR(cs(sp.body), "Body");
    EQ_INT(sp.body_line, 2);
    split_msg("{}", &sp, &ok);
    OK(ok && sp.has_front_matter && sp.body.len == 0);
    /* template tags and text are no JSON */
    split_msg("{{< note >}}\n", &sp, &ok);
    OK(ok && !sp.has_front_matter);
    split_msg("{% raw %}\n", &sp, &ok);
    OK(ok && !sp.has_front_matter);
    split_msg("{x}\n", &sp, &ok);
    OK(ok && !sp.has_front_matter);
    EQ_STR(split_msg("{\"a\": \"}\n", &sp, &ok),
           "p.md:1:1: error: front matter opened here is never closed (expected the '}' that closes this '{')");
    EQ_STR(split_msg("{\"a\": 1} text\n", &sp, &ok),
           "p.md:1:10: error: text after the front matter's closing '}' (start the page's text on the next line)");
    OK(!ok);
}

/* Parses text as `fmt` starting on file line 2; the first message in *msg. */
static tpl_value parse(fm_format fmt, const char *text, arena *a, fm_key_pos **pos, size_t *npos,
                       const char **msg, bool *ok)
{
    static char m[512];
    diag_list *d = diag_list_new();
    tpl_value v;
    str s = str_from(text);
    *ok = fmt == FM_TOML ? fm_parse_toml_pos(s, 2, "p.md", a, &v, pos, npos, d)
                         : fm_parse_json_pos(s, 2, "p.md", a, &v, pos, npos, d);
    buf b = BUF_INIT;
    if (diag_count(d))
        diag_format(diag_get(d, 0), &b);
    snprintf(m, sizeof m, "%s", b.data);
    buf_release(&b);
    diag_list_free(d);
    *msg = m;
    return v;
}

static const char *repr(tpl_value v)
{
    static char out[1024];
    buf b = BUF_INIT;
    tpl_value_repr(v, &b);
    snprintf(out, sizeof out, "%s", b.data);
    buf_release(&b);
    return out;
}

static const char *json_err(const char *text)
{
    arena *a = arena_new();
    const char *msg;
    bool ok;
    parse(FM_JSON, text, a, NULL, NULL, &msg, &ok);
    arena_free(a);
    return ok ? "(ok)" : msg;
}

TEST(json_values)
{
    arena *a = arena_new();
    const char *msg;
    bool ok;
    fm_key_pos *pos;
    size_t npos;
    tpl_value v = parse(FM_JSON,
                        "{\"title\": \"Caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\/ \\n\", \"n\": -12, \"f\": 1.5e2,\n"
                        " \"big\": 123456789012345678901, \"t\": true, \"no\": false, \"z\": null,\n"
                        " \"tags\": [\"a\", [], {}], \"m\": {\"k\": 0}, \"\\u00e9\": 1}",
                        a, &pos, &npos, &msg, &ok);
    OK(ok);
    EQ_STR(msg, "");
    EQ_STR(repr(v), "{'title': 'Café 😀 \"q\" / \\n', 'n': -12, 'f': 150.0, 'big': 1.2345678901234568e+20, "
                    "'t': True, 'no': False, 'z': None, 'tags': ['a', [], {}], 'm': {'k': 0}, 'é': 1}");
    /* positions: nested objects' keys first, then the outer object's */
    EQ_INT(npos, 11);
    if (npos == 11) {
        EQ_STR(pos[0].key, "k");
        EQ_INT(pos[0].line, 4);
        EQ_INT(pos[0].col, 31);
        EQ_INT(pos[0].vcol, 36);
        EQ_STR(pos[1].key, "title");
        EQ_INT(pos[1].line, 2);
        EQ_INT(pos[1].col, 2);
        EQ_INT(pos[1].vline, 2);
        EQ_INT(pos[1].vcol, 11);
        EQ_STR(pos[4].key, "big");
        EQ_INT(pos[4].line, 3);
        EQ_INT(pos[4].col, 2);
        EQ_STR(pos[10].key, "é");
        EQ_INT(pos[10].col, 40);
        OK(pos[1].map == v.u.map && fm_key_find(pos, npos, v.u.map, "tags") == &pos[8]);
    }
    v = parse(FM_JSON, " {} ", a, &pos, &npos, &msg, &ok);
    OK(ok && v.kind == TPL_MAP && v.u.map->len == 0 && npos == 0);
    arena_free(a);
}

TEST(json_errors)
{
    EQ_STR(json_err("{\"a\": 1,}"), "p.md:2:9: error: JSON: expected a key in double quotes, found '}' (JSON has no trailing commas)");
    EQ_STR(json_err("{\"a\": [1,]}"), "p.md:2:10: error: JSON: ']' after ',' (JSON has no trailing commas)");
    EQ_STR(json_err("{\"a\": 01}"), "p.md:2:7: error: JSON: a number may not start with 0 (write 7, not 07)");
    EQ_STR(json_err("{\"a\": +1}"), "p.md:2:7: error: JSON: expected a value (a string in double quotes, a number, true, false, null, a list or an object), found '+'");
    EQ_STR(json_err("{\"a\": 1.}"), "p.md:2:9: error: JSON: a number needs a digit after its '.'");
    EQ_STR(json_err("{\"a\": .5}"), "p.md:2:7: error: JSON: expected a value (a string in double quotes, a number, true, false, null, a list or an object), found '.'");
    EQ_STR(json_err("{\"a\": 1e}"), "p.md:2:9: error: JSON: a number needs a digit in its exponent");
    EQ_STR(json_err("{\"a\": 1e999}"), "p.md:2:7: error: JSON: the number 1e999 is too large");
    EQ_STR(json_err("{'a': 1}"), "p.md:2:2: error: JSON: expected a key in double quotes, found '''");
    EQ_STR(json_err("{\"a\": 'x'}"), "p.md:2:7: error: JSON: strings take double quotes in JSON, not single ones");
    EQ_STR(json_err("{\"a\" 1}"), "p.md:2:6: error: JSON: expected ':' after the key \"a\", found '1'");
    EQ_STR(json_err("{\"a\": 1 \"b\": 2}"), "p.md:2:9: error: JSON: expected ',' or '}' after the value of \"a\", found '\"'");
    EQ_STR(json_err("{\"a\": [1 2]}"), "p.md:2:10: error: JSON: expected ',' or ']' after a list item, found '2'");
    EQ_STR(json_err("{\"a\": tru}"), "p.md:2:7: error: JSON: expected a value (a string in double quotes, a number, true, false, null, a list or an object), found 't'");
    EQ_STR(json_err("{\"a\": \"x\ty\"}"), "p.md:2:9: error: JSON: the control character 0x09 in a string (write it as an escape, such as \\n or \\t)");
    EQ_STR(json_err("{\"a\": \"\\x\"}"), "p.md:2:8: error: JSON: '\\x' is not an escape (JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
    EQ_STR(json_err("{\"a\": \"\\u12\"}"), "p.md:2:8: error: JSON: '\\u' must be followed by four hex digits");
    EQ_STR(json_err("{\"a\": \"\\ud800x\"}"), "p.md:2:8: error: JSON: '\\uD800' is the first half of a surrogate pair without its second");
    EQ_STR(json_err("{\"a\": \"\\udc00\"}"), "p.md:2:8: error: JSON: '\\uDC00' is the second half of a surrogate pair without its first");
    EQ_STR(json_err("{\"a\": \"open}"), "p.md:2:7: error: JSON: this string is never closed (expected '\"')");
    EQ_STR(json_err("{\"a\": 1,\n \"é\": 2,\n  \"a\": 3}"), "p.md:4:3: error: JSON: key \"a\" is given twice (first at line 2)");
    EQ_STR(json_err("{\"a\": 1} x"), "p.md:2:10: error: JSON: 'x' after the object's closing '}'");
    EQ_STR(json_err("[1]"), "p.md:2:1: error: JSON: front matter must be an object ({\"title\": …}), found '['");
    EQ_STR(json_err("{\"a\": 1"), "p.md:2:8: error: JSON: expected ',' or '}' after the value of \"a\", found the end of the front matter");
    EQ_STR(json_err("{\"a\": \"\xff\"}"), "p.md:2:8: error: JSON: not valid UTF-8: byte 0xFF");
    EQ_STR(json_err("{\"a\": // c\n 1}"), "p.md:2:7: error: JSON: expected a value (a string in double quotes, a number, true, false, null, a list or an object), found '/'");
    /* deep nesting is refused, not a crash */
    buf b = BUF_INIT;
    buf_puts(&b, "{\"a\": ");
    for (int i = 0; i < 600; i++)
        buf_putc(&b, '[');
    EQ_STR(json_err(b.data), "p.md:2:518: error: JSON: nesting is too deep (more than 512 levels)");
    buf_release(&b);
    EQ_STR(json_err("{\"a\": -9223372036854775808, \"b\": 9223372036854775808}"), "(ok)");
}

TEST(toml_values)
{
    arena *a = arena_new();
    const char *msg;
    bool ok;
    fm_key_pos *pos;
    size_t npos;
    tpl_value v = parse(FM_TOML,
                        "title = \"Hi\"\n"
                        "date = 2024-03-18T10:20:00+08:00\n"
                        "Tags = [\"a\", 'b']\n"
                        "draft = false\n"
                        "day = 2024-03-18\n"
                        "local = 2024-03-18T10:20:00\n"
                        "at = 07:32:00.5\n"
                        "n = 0x10\n"
                        "f = inf\n"
                        "[params]\n"
                        "x.y = 1\n"
                        "[[menu]]\n"
                        "name = \"m\"\n",
                        a, &pos, &npos, &msg, &ok);
    OK(ok);
    EQ_STR(msg, "");
    EQ_STR(repr(v), "{'title': 'Hi', 'date': 2024-03-18 10:20:00+08:00, 'Tags': ['a', 'b'], 'draft': False, "
                    "'day': 2024-03-18, 'local': 2024-03-18 10:20:00, 'at': '07:32:00.5', 'n': 16, "
                    "'f': inf, 'params': {'x': {'y': 1}}, 'menu': [{'name': 'm'}]}");
    const fm_key_pos *k = fm_key_find(pos, npos, v.u.map, "Tags");
    OK(k && k->line == 4 && k->col == 1 && k->vline == 4 && k->vcol == 8);
    k = fm_key_find(pos, npos, v.u.map, "params");
    OK(k && k->line == 11);
    const tpl_map *params = tpl_map_get_cstr(v.u.map, "params").u.map;
    k = fm_key_find(pos, npos, params, "x");
    OK(k && k->line == 12 && k->col == 1);
    sheaf_date dt;
    OK(tpl_value_as_date(tpl_map_get_cstr(v.u.map, "date"), &dt) && dt.has_zone && dt.offset_min == 480);
    /* errors at the file's line:col */
    parse(FM_TOML, "title = \"Hi\"\ndate = 2024-13-01\n", a, &pos, &npos, &msg, &ok);
    OK(!ok);
    OK(!strncmp(msg, "p.md:3:", 7) && strstr(msg, ": error: TOML: "));
    parse(FM_TOML, "a = 1\na = 2\n", a, &pos, &npos, &msg, &ok);
    OK(!ok && !strncmp(msg, "p.md:3:", 7));
    parse(FM_TOML, "", a, &pos, &npos, &msg, &ok);
    OK(ok && npos == 0);
    arena_free(a);
}

/* ---- toml-test ---------------------------------------------------------- */

static bool same_time(const char *a, size_t an, const char *b, size_t bn)
{
    /* "07:32:00" == "07:32:00.000"; "00:32:00.5" == "00:32:00.500" */
    while (an && memchr(a, '.', an) && (a[an - 1] == '0' || a[an - 1] == '.'))
        an--;
    while (bn && memchr(b, '.', bn) && (b[bn - 1] == '0' || b[bn - 1] == '.'))
        bn--;
    return an == bn && !memcmp(a, b, an);
}

/* Does `got` hold what toml-test's tagged JSON `want` says? Explains a
 * difference in *why. */
static bool matches(tpl_value got, tpl_value want, buf *why)
{
    if (want.kind == TPL_LIST) {
        if (got.kind != TPL_LIST || got.u.list->len != want.u.list->len) {
            buf_puts(why, "list differs");
            return false;
        }
        for (size_t i = 0; i < want.u.list->len; i++)
            if (!matches(got.u.list->items[i], want.u.list->items[i], why))
                return false;
        return true;
    }
    if (want.kind != TPL_MAP) {
        buf_puts(why, "bad expected value");
        return false;
    }
    const tpl_map *w = want.u.map;
    tpl_value type = tpl_map_get_cstr(w, "type"), val = tpl_map_get_cstr(w, "value");
    if (w->len == 2 && type.kind == TPL_STRING && val.kind == TPL_STRING) {
        const char *t = type.u.s, *s = val.u.s;
        sheaf_date dw, dg;
        bool ok;
        if (!strcmp(t, "string"))
            ok = got.kind == TPL_STRING && got.len == val.len && !memcmp(got.u.s, s, val.len);
        else if (!strcmp(t, "integer"))
            ok = got.kind == TPL_INT && got.u.i == strtoll(s, NULL, 10);
        else if (!strcmp(t, "float")) {
            double f = strtod(s, NULL);
            ok = got.kind == TPL_FLOAT && (got.u.f == f || (isnan(f) && isnan(got.u.f)));
        } else if (!strcmp(t, "bool"))
            ok = got.kind == TPL_BOOL && got.u.b == !strcmp(s, "true");
        else if (!strcmp(t, "time-local"))
            ok = got.kind == TPL_STRING && same_time(got.u.s, got.len, s, val.len);
        else if (!strcmp(t, "datetime") || !strcmp(t, "datetime-local") || !strcmp(t, "date-local"))
            ok = got.kind == TPL_DATE && date_parse(s, val.len, &dw) && tpl_value_as_date(got, &dg) &&
                 dw.t == dg.t && dw.offset_min == dg.offset_min &&
                 dg.has_zone == !strcmp(t, "datetime") && dg.has_time == !!strcmp(t, "date-local");
        else
            ok = false;
        if (!ok) {
            buf_printf(why, "want %s %s, got ", t, s);
            tpl_value_repr(got, why);
        }
        return ok;
    }
    if (got.kind != TPL_MAP || got.u.map->len != w->len) {
        buf_puts(why, "table differs: got ");
        tpl_value_repr(got, why);
        return false;
    }
    for (size_t i = 0; i < w->len; i++) {
        tpl_value k = w->entries[i].key;
        tpl_value g = tpl_map_get(got.u.map, k.u.s, k.len);
        if (g.kind == TPL_UNDEFINED) {
            buf_printf(why, "key '%s' missing", k.u.s);
            return false;
        }
        if (!matches(g, w->entries[i].value, why))
            return false;
    }
    return true;
}

static bool read_file(const char *path, buf *out)
{
    buf_reset(out);
    return fs_read_file(path, out);
}

static size_t ncases_valid, ncases_invalid;

static void run_dir(const char *dir, bool valid)
{
    DIR *dd = opendir(dir);
    OK(dd != NULL);
    if (!dd)
        return;
    struct dirent *e;
    buf text = BUF_INIT, json = BUF_INIT, path = BUF_INIT;
    while ((e = readdir(dd))) {
        if (e->d_name[0] == '.')
            continue;
        buf_reset(&path);
        buf_printf(&path, "%s/%s", dir, e->d_name);
        size_t n = strlen(e->d_name);
        if (e->d_type == DT_DIR) {
            char *sub = strdup(path.data);
            run_dir(sub, valid);
            free(sub);
            continue;
        }
        if (n < 5 || strcmp(e->d_name + n - 5, ".toml"))
            continue;
        if (!read_file(path.data, &text)) {
            FAILF("cannot read %s", path.data);
            continue;
        }
        arena *a = arena_new();
        diag_list *d = diag_list_new();
        tpl_value got;
        fm_key_pos *pos;
        size_t npos;
        bool ok = fm_parse_toml_pos(str_make(text.data, text.len), 1, path.data, a, &got, &pos, &npos, d);
        buf msg = BUF_INIT;
        if (diag_count(d))
            diag_format(diag_get(d, 0), &msg);
        if (valid) {
            ncases_valid++;
            char *jp = strdup(path.data);
            memcpy(jp + strlen(jp) - 5, ".json", 5);
            tpl_value want;
            buf why = BUF_INIT;
            if (!ok)
                FAILF("%s: refused: %s", path.data, msg.data);
            else if (!read_file(jp, &json) ||
                     !fm_parse_json_pos(str_make(json.data, json.len), 1, jp, a, &want, NULL, NULL, d))
                FAILF("%s: cannot read the expected JSON", jp);
            else if (!matches(got, want, &why))
                FAILF("%s: %s", path.data, why.data);
            buf_release(&why);
            free(jp);
        } else {
            ncases_invalid++;
            if (ok)
                FAILF("%s: accepted, but it is not valid TOML", path.data);
            else if (diag_count(d) != 1 || diag_get(d, 0)->line < 1 || diag_get(d, 0)->col < 1)
                FAILF("%s: the error has no line:col: %s", path.data, msg.data);
        }
        buf_release(&msg);
        diag_list_free(d);
        arena_free(a);
    }
    closedir(dd);
    buf_release(&text);
    buf_release(&json);
    buf_release(&path);
}

TEST(toml_test_suite)
{
    run_dir("toml-test/valid", true);
    run_dir("toml-test/invalid", false);
    OK(ncases_valid >= 150);
    OK(ncases_invalid >= 400);
    printf("toml-test: %zu valid and %zu invalid cases\n", ncases_valid, ncases_invalid);
}

int main(void)
{
    RUN(split_toml);
    RUN(split_json);
    RUN(json_values);
    RUN(json_errors);
    RUN(toml_values);
    RUN(toml_test_suite);
    return harness_done();
}
