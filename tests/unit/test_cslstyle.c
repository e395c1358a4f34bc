/* cslstyle: the CSL style checker — what it reads from a style (default
 * locale, citation format, class, title, a dependent style's parent) and
 * each XML and CSL error word for word at its line and column; the
 * bundled styles all pass. */
#include "bib/cslstyle.h"
#include "harness.h"

#include <stdlib.h>

#include "util/buf.h"
#include "util/fs.h"

#define NS "xmlns=\"http://purl.org/net/xbiblio/csl\""
#define BODY "<citation><layout/></citation><bibliography><layout/></bibliography>"

/* The diagnostics of checking text as "s.csl", one a line ("" for none);
 * *st what was read. */
static const char *check(const char *text, bib_csl_style *st, arena *a)
{
    diag_list *d = diag_list_new();
    bool ok = bib_csl_style_check(text, strlen(text), "s.csl", a, st, d);
    buf all = BUF_INIT;
    for (size_t i = 0; i < diag_count(d); i++) {
        if (i)
            buf_putc(&all, '\n');
        diag_format(diag_get(d, i), &all);
    }
    OK(ok == !diag_count(d));
    const char *r = arena_strndup(a, all.data, all.len);
    buf_release(&all);
    diag_list_free(d);
    return r;
}

static const char *errors_of(const char *text, arena *a)
{
    bib_csl_style st;
    return check(text, &st, a);
}

TEST(reads)
{
    arena *a = arena_new();
    bib_csl_style st;
    EQ_STR(check("\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
                 "<!DOCTYPE style>\n<!-- a comment -->\n"
                 "<style " NS " class='in-text' version=\"1.0\" default-locale=\"zh-CN\">\n"
                 "  <info>\n    <title>GB/T &#x37;714 &amp; <![CDATA[<numeric>]]></title>\n"
                 "    <category citation-format=\"numeric\"/>\n    <category field=\"generic-base\"/>\n"
                 "    <link href=\"x\" rel=\"self\"/>\n  </info>\n"
                 "  <macro name=\"m\"><text value=\"a &lt; b &#65;\"/></macro>\n"
                 "  " BODY "\n</style>\n<!-- after -->\n",
                 &st, a),
           "");
    EQ_STR(st.default_locale, "zh-CN");
    EQ_STR(st.citation_format, "numeric");
    OK(st.numeric);
    EQ_STR(st.klass, "in-text");
    EQ_STR(st.title, "GB/T 7714 & <numeric>");
    OK(st.parent == NULL);
    OK(st.has_citation && st.has_bibliography);
    /* a prefixed namespace; no locale, no category */
    EQ_STR(check("<cs:style xmlns:cs=\"http://purl.org/net/xbiblio/csl\"><cs:info/>"
                 "<cs:citation/><cs:bibliography/></cs:style>",
                 &st, a),
           "");
    OK(st.default_locale == NULL && st.citation_format == NULL && !st.numeric && st.title == NULL);
    EQ_STR(check("<style " NS " default-locale=\"\"><info><category citation-format=\"author-date\"/>"
                 "</info>" BODY "</style>",
                 &st, a),
           "");
    OK(st.default_locale == NULL);
    EQ_STR(st.citation_format, "author-date");
    OK(!st.numeric);
    arena_free(a);
}

TEST(xml_errors)
{
    arena *a = arena_new();
    EQ_STR(errors_of("<style " NS ">\n\xff</style>", a), "s.csl:2:1: error: not UTF-8 text: byte 0xFF (save the style as UTF-8)");
    EQ_STR(errors_of("x<style/>", a), "s.csl:1:1: error: text before the root element: 'x'");
    EQ_STR(errors_of("<style " NS ">" BODY "</style>\n é", a), "s.csl:2:2: error: text after the root element's end: 'é'");
    EQ_STR(errors_of("<style " NS ">\n  AT&T</style>", a),
           "s.csl:2:5: error: '&' starts no entity: write '&amp;' for an ampersand");
    EQ_STR(errors_of("<style " NS ">&nbsp;</style>", a),
           "s.csl:1:48: error: unknown entity '&nbsp;': XML knows &amp; &lt; &gt; &quot; &apos; and &#N;");
    EQ_STR(errors_of("<style " NS ">&#0;</style>", a), "s.csl:1:48: error: '&#0;' is not a character XML allows");
    EQ_STR(errors_of("<style " NS ">&#xD800;</style>", a), "s.csl:1:48: error: '&#xD800;' is not a character XML allows");
    EQ_STR(errors_of("<style " NS ">&#x;</style>", a), "s.csl:1:48: error: '&#x;' is not a character XML allows");
    EQ_STR(errors_of("<style " NS ">&#1a;</style>", a), "s.csl:1:48: error: '&#1a;' is not a character XML allows");
    EQ_STR(errors_of("<style " NS ">]]></style>", a), "s.csl:1:48: error: ']]>' in text: write ']]&gt;'");
    EQ_STR(errors_of("<style " NS ">\n<!-- x -- </style>", a), "s.csl:2:1: error: a comment is never closed with '-->'");
    EQ_STR(errors_of("<![CDATA[x]]><style/>", a), "s.csl:1:1: error: a CDATA section outside the root element");
    EQ_STR(errors_of("<style " NS "><![CDATA[x</style>", a),
           "s.csl:1:48: error: a CDATA section is never closed with ']]>'");
    EQ_STR(errors_of("<?xml version='1.0'", a), "s.csl:1:1: error: a processing instruction is never closed with '?>'");
    EQ_STR(errors_of("<style " NS ">" BODY "</style><!DOCTYPE style>", a),
           "s.csl:1:124: error: a DOCTYPE only goes before the root element");
    EQ_STR(errors_of("<!DOCTYPE style [<!ENTITY x 'y'>]><style/>", a),
           "s.csl:1:17: error: a DOCTYPE with an internal subset ('[…]'): sheaf reads no DTD");
    EQ_STR(errors_of("<!DOCTYPE style", a), "s.csl:1:1: error: a DOCTYPE is never closed with '>'");
    EQ_STR(errors_of("<style " NS "></ x>", a), "s.csl:1:50: error: expected a tag name after '</', found ' '");
    EQ_STR(errors_of("<style " NS "></style x>", a), "s.csl:1:56: error: expected '>' to end '</style', found 'x'");
    EQ_STR(errors_of("</style>", a), "s.csl:1:1: error: '</style>' closes no element");
    EQ_STR(errors_of("<style " NS ">\n  <info>\n  </style>", a),
           "s.csl:3:3: error: '</style>' where '</info>' was expected (the element opened at line 2, column 3)");
    EQ_STR(errors_of("<style " NS "> a < b </style>", a),
           "s.csl:1:52: error: expected a tag name after '<', found ' ' (write '&lt;' for a '<' in text)");
    EQ_STR(errors_of("<style " NS, a), "s.csl:1:47: error: a tag that never ends: expected '>' before the end of the file");
    EQ_STR(errors_of("<style " NS "/ >", a), "s.csl:1:47: error: expected '/>' or '>', found ' '");
    EQ_STR(errors_of("<style " NS " 1=\"x\">", a), "s.csl:1:48: error: expected an attribute name, '>' or '/>', found '1'");
    EQ_STR(errors_of("<style a=\"1\"b=\"2\">", a), "s.csl:1:13: error: expected a space before the attribute 'b'");
    EQ_STR(errors_of("<style a=\"1\" a='2'>", a), "s.csl:1:14: error: the attribute 'a' is given twice in one tag");
    EQ_STR(errors_of("<style a>", a), "s.csl:1:9: error: expected '=' after the attribute 'a', found '>'");
    EQ_STR(errors_of("<style a=1>", a), "s.csl:1:10: error: the value of 'a' must be quoted (\"…\" or '…'), found '1'");
    EQ_STR(errors_of("<style a=\"1>", a), "s.csl:1:10: error: the value of 'a' is never closed with \"");
    EQ_STR(errors_of("<style a=\"<\">", a), "s.csl:1:11: error: '<' inside the value of 'a': write '&lt;'");
    EQ_STR(errors_of("<style a=\"&bad;\">", a),
           "s.csl:1:11: error: unknown entity '&bad;': XML knows &amp; &lt; &gt; &quot; &apos; and &#N;");
    EQ_STR(errors_of("<style " NS ">" BODY "</style>\n<style/>", a),
           "s.csl:2:1: error: a second root element <style>: a style has one, <style>");
    EQ_STR(errors_of("<style " NS ">\n  <citation>", a), "s.csl:2:3: error: <citation> is never closed (the file ends first)");
    EQ_STR(errors_of("", a), "s.csl:1:1: error: no root element: a CSL style is <style xmlns=\"http://purl.org/net/xbiblio/csl\" …>");
    EQ_STR(errors_of("<!-- only -->\n", a),
           "s.csl:2:1: error: no root element: a CSL style is <style xmlns=\"http://purl.org/net/xbiblio/csl\" …>");
    arena_free(a);
}

TEST(csl_errors)
{
    arena *a = arena_new();
    EQ_STR(errors_of("<html><body/></html>", a),
           "s.csl:1:1: error: the root element is <html>, not <style>: this is not a CSL style");
    EQ_STR(errors_of("<style>" BODY "</style>", a),
           "s.csl:1:1: error: <style> is not in the CSL namespace: it needs xmlns=\"http://purl.org/net/xbiblio/csl\"");
    EQ_STR(errors_of("<style xmlns=\"http://www.w3.org/1999/xhtml\">" BODY "</style>", a),
           "s.csl:1:1: error: <style> is not in the CSL namespace: it needs "
           "xmlns=\"http://purl.org/net/xbiblio/csl\" (it has \"http://www.w3.org/1999/xhtml\")");
    EQ_STR(errors_of("<cs:style xmlns=\"" "http://purl.org/net/xbiblio/csl" "\">" BODY "</cs:style>", a),
           "s.csl:1:1: error: <style> is not in the CSL namespace: it needs xmlns=\"http://purl.org/net/xbiblio/csl\"");
    EQ_STR(errors_of("\n<style " NS "><info/></style>", a),
           "s.csl:2:1: error: <style> has no <citation>: a CSL style says how to cite in one\n"
           "s.csl:2:1: error: <style> has no <bibliography>: sheaf needs one for a page's list of references");
    EQ_STR(errors_of("<style " NS "><citation/><info><bibliography/></info></style>", a),
           "s.csl:1:1: error: <style> has no <bibliography>: sheaf needs one for a page's list of references");
    bib_csl_style st;
    EQ_STR(check("<style " NS "><info><link rel=\"independent-parent\" href=\"http://www.zotero.org/styles/apa\"/>"
                 "</info></style>",
                 &st, a),
           "s.csl:1:1: error: a dependent style: it has no <citation> or <bibliography> of its own but uses "
           "those of http://www.zotero.org/styles/apa; use that style instead");
    EQ_STR(st.parent, "http://www.zotero.org/styles/apa");
    arena_free(a);
}

/* Every bundled style passes, and says what docs/citations.md says of it. */
TEST(bundled)
{
    static const struct {
        const char *name, *locale;
        bool numeric;
    } styles[] = {
        { "apa", "en-US", false },
        { "ieee", "en-US", true },
        { "acm-sig-proceedings", "en-US", true },
        { "chicago-author-date", "en-US", false },
        { "nature", "en-GB", true },
        { "elsevier-harvard", "en-US", false },
        { "china-national-standard-gb-t-7714-2015-numeric", "zh-CN", true },
        { "china-national-standard-gb-t-7714-2015-author-date", "zh-CN", false },
    };
    arena *a = arena_new();
    for (size_t i = 0; i < sizeof styles / sizeof *styles; i++) {
        char *path = arena_printf(a, "%s/styles/%s.csl", SHEAF_CSL_DIR, styles[i].name);
        buf text = BUF_INIT;
        OK(fs_read_file(path, &text));
        diag_list *d = diag_list_new();
        bib_csl_style st;
        bool ok = bib_csl_style_check(text.data, text.len, path, a, &st, d);
        OK(ok);
        if (!ok)
            fprintf(stderr, "%s\n", styles[i].name);
        EQ_STR(st.default_locale ? st.default_locale : "en-US", styles[i].locale);
        OK(st.numeric == styles[i].numeric);
        OK(st.title && *st.title);
        diag_list_free(d);
        buf_release(&text);
    }
    arena_free(a);
}

int main(void)
{
    RUN(reads);
    RUN(xml_errors);
    RUN(csl_errors);
    RUN(bundled);
    return harness_done();
}
