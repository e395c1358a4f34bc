/* Unit tests for import's body converter (src/import/body.c and its passes): each Liquid
 * tag or shortcode it rewrites, on one page among three others, and what
 * it leaves as written. The fixtures in tests/import cover whole sites. */
#include "harness.h"

#include <string.h>

#include "import/internal.h"

typedef struct conv {
    imp m;
    import_options o;
    char *out;
    size_t nnotes;
} conv;

/* Converts text as a page of a Jekyll (jekyll true) or Hugo site whose
 * other pages are a post (/notes/a/), a Hugo post (/2020/03/b/) and an
 * about page; the result and the number of notes in c. */
static const char *convert(conv *c, bool jekyll, const char *text)
{
    memset(c, 0, sizeof *c);
    c->o = (import_options){ jekyll ? IMPORT_JEKYLL : IMPORT_HUGO, "src", "dest", false };
    c->m.o = &c->o;
    c->m.a = arena_new();
    c->m.base_path = "/";
    c->m.base_url = "https://example.org/";
    static const char *const others[][4] = {
        { "_posts/2019-01-02-a.md", "content/posts/2019-01-02-a.md", "/notes/a/", "2019-01-02-a" },
        { "content/post/b.md", "content/post/b.md", "/2020/03/b/", NULL },
        { "content/about.md", "content/about.md", "/about.html", NULL },
    };
    for (size_t i = 0; i < 3; i++) {
        import_page *p = import_add_page(&c->m);
        p->src_rel = others[i][0];
        p->dest_rel = others[i][1];
        p->old_url = others[i][2];
        p->post_name = others[i][3];
    }
    import_page *p = import_add_page(&c->m);
    p->src_rel = jekyll ? "_posts/2019-02-03-page.md" : "content/post/page.md";
    p->dest_rel = jekyll ? "content/posts/page.md" : "content/post/page.md";
    p->old_url = jekyll ? "/notes/page/" : "/2020/03/page/";
    p->body_src = text;
    p->body_len = strlen(text);
    p->body_line = 4;
    import_convert_body(&c->m, p, jekyll);
    c->out = arena_strdup(c->m.a, p->body.data);
    c->nnotes = c->m.nnotes;
    for (size_t i = 0; i < c->m.npages; i++)
        buf_release(&c->m.pages[i]->body);
    return c->out;
}

static void done(conv *c)
{
    import_notes_free(&c->m);
    arena_free(c->m.a);
}

TEST(jekyll_links)
{
    conv c;
    EQ_STR(convert(&c, true, "[a]({% post_url 2019-01-02-a %}) [b]({{ site.baseurl }}{% post_url 2019-01-02-a %}#x)"),
           "[a](2019-01-02-a.md) [b](2019-01-02-a.md#x)");
    EQ_INT((int)c.nnotes, 0);
    done(&c);
    EQ_STR(convert(&c, true, "[a](/notes/a/) [b](https://example.org/notes/a/#y) [c](/about.html)"),
           "[a](2019-01-02-a.md) [b](2019-01-02-a.md#y) [c](../about.md)");
    done(&c);
    /* not another page's old URL: as written */
    EQ_STR(convert(&c, true, "[x](/files/x.pdf) `[a](/notes/a/)`"), "[x](/files/x.pdf) `[a](/notes/a/)`");
    done(&c);
    /* relative to the page's old URL (/notes/page/), as a browser reads it */
    EQ_STR(convert(&c, true, "[a](../a/) [b](../a) [c](./../a/#x) [d](../../about.html) [e](../b/../a/.)"),
           "[a](2019-01-02-a.md) [b](2019-01-02-a.md) [c](2019-01-02-a.md#x) [d](../about.md) "
           "[e](2019-01-02-a.md)");
    done(&c);
    /* a Markdown file, above the root, a scheme, a query, no page: as written */
    EQ_STR(convert(&c, true, "[e](a.md) [f](../../../a/) [g](mailto:a) [h](../a/?q=1) [i](../zz/) [j](#k)"),
           "[e](a.md) [f](../../../a/) [g](mailto:a) [h](../a/?q=1) [i](../zz/) [j](#k)");
    EQ_INT((int)c.nnotes, 0);
    done(&c);
    /* no such post: as written, and noted at its line:col */
    EQ_STR(convert(&c, true, "\n  [z]({% post_url nope %})"), "\n  [z]({% post_url nope %})");
    EQ_INT((int)c.nnotes, 1);
    EQ_INT(c.m.notes[0].line, 5);
    EQ_INT(c.m.notes[0].col, 7);
    done(&c);
}

TEST(jekyll_blocks)
{
    conv c;
    /* linenos: sheaf's fence option (issue 32) */
    EQ_STR(convert(&c, true, "{% highlight ruby linenos %}\nx = 1\n{% endhighlight %}\n"),
           "```ruby {linenos=true}\nx = 1\n```\n");
    done(&c);
    EQ_STR(convert(&c, true, "{% raw %}\n{{ x }} {% post_url 2019-01-02-a %}\n{% endraw %}\n"),
           "{{ x }} {% post_url 2019-01-02-a %}\n");
    EQ_INT((int)c.nnotes, 0);
    done(&c);
    EQ_STR(convert(&c, true, "{% comment %}hidden{% endcomment %}"), "<!--hidden-->");
    done(&c);
    EQ_STR(convert(&c, true, "{% youtube abc123 %}"), "{{< youtube abc123 >}}");
    done(&c);
    EQ_STR(convert(&c, true, "{% include figure.html image_path=\"/a.png\" caption=\"A\" %}"),
           "{{< figure src=\"/a.png\" caption=\"A\" >}}");
    done(&c);
    /* Minimal Mistakes' includes */
    EQ_STR(convert(&c, true, "{% include figure image_path=\"/a.png\" alt=\"x\" class=\"wide\" %}"),
           "{{< figure src=\"/a.png\" alt=\"x\" class=\"wide\" >}}");
    done(&c);
    EQ_STR(convert(&c, true, "{% include video id=\"abc\" provider=\"youtube\" %}"), "{{< youtube abc >}}");
    done(&c);
    EQ_STR(convert(&c, true, "{% include video id=\"123\" provider=\"vimeo\" %}"),
           "{% include video id=\"123\" provider=\"vimeo\" %}");
    EQ_INT((int)c.nnotes, 1);
    done(&c);
    /* an argument that is Liquid: left as written */
    EQ_STR(convert(&c, true, "{% include figure.html src=page.image %}"), "{% include figure.html src=page.image %}");
    EQ_INT((int)c.nnotes, 1);
    done(&c);
    EQ_STR(convert(&c, true, "{{ \"/x.css\" | relative_url }}"), "/x.css");
    done(&c);
    /* kramdown's attribute lists: removed, each noted at its place; an
     * image's width makes it an <img> with it (issue 32), not noted */
    EQ_STR(convert(&c, true, "# T\n{: .mt-4 #x }\ntext `a`{: .filepath} ![i](a.png){: width=\"9\" }\n"),
           "# T\ntext `a` <img src=\"a.png\" alt=\"i\" width=\"9\">\n");
    EQ_INT((int)c.nnotes, 2);
    EQ_INT(c.m.notes[1].line, 6);
    EQ_INT(c.m.notes[1].col, 9);
    done(&c);
    /* in code, and "{::" extensions, and a brace that is no list: as written */
    EQ_STR(convert(&c, true, "```\n{: .x}\n```\n`{: .y}` {::nomarkdown} a{: b} {: c}\n"),
           "```\n{: .x}\n```\n`{: .y}` {::nomarkdown} a{: b} {: c}\n");
    EQ_INT((int)c.nnotes, 0);
    done(&c);
    /* kramdown's table of contents, with the item it replaces */
    EQ_STR(convert(&c, true, "* TOC\n{:toc}\n\n## A\n"), "\n## A\n");
    EQ_INT((int)c.nnotes, 1);
    done(&c);
    /* Chirpy's prompts: sheaf's boxes; one under no blockquote is removed */
    EQ_STR(convert(&c, true, "> Mind `x`\n> this.\n{: .prompt-danger }\n\n> A tip.\n{: .prompt-tip }\n"),
           "{{% warning title=\"Danger\" %}}\nMind `x`\nthis.\n{{% /warning %}}\n\n{{% tip %}}\nA tip.\n"
           "{{% /tip %}}\n");
    EQ_INT((int)c.nnotes, 0);
    done(&c);
    /* Minimal Mistakes' notices dress the paragraph above; one under no block is removed */
    EQ_STR(convert(&c, true, "# H\n**Note:** mind\nthis.\n{: .notice--danger}\n\nA *tip*.\n{: .notice}\n"),
           "# H\n{{% warning title=\"Danger\" %}}\n**Note:** mind\nthis.\n{{% /warning %}}\n\n{{% note %}}\n"
           "A *tip*.\n{{% /note %}}\n");
    EQ_INT((int)c.nnotes, 0);
    done(&c);
    EQ_STR(convert(&c, true, "# H\n{: .notice--info}\n\n{: .prompt-tip }\n"), "# H\n\n");
    EQ_INT((int)c.nnotes, 2);
    done(&c);
    /* kramdown's $$…$$ in a line of text is inline math; on a line of its own, display */
    EQ_STR(convert(&c, true, "So $$a^2$$ and `$$b$$` \\$$c$$.\n\n$$x$$\n\n$$\ny\n$$\n"),
           "So \\(a^2\\) and `$$b$$` \\$$c$$.\n\n$$x$$\n\n$$\ny\n$$\n");
    EQ_INT((int)c.m.nmath, 1);
    done(&c);
    EQ_STR(convert(&c, true, "{% include embed/youtube.html id='abc' %}"), "{{< youtube abc >}}");
    done(&c);
}

TEST(hugo_shortcodes)
{
    conv c;
    EQ_STR(convert(&c, false, "[b]({{< ref \"b\" >}}) [c]({{% relref \"/post/b.md#s\" %}}) [d]({{< ref \"#top\" >}})"),
           "[b](b.md) [c](b.md#s) [d](#top)");
    done(&c);
    /* a folder's _index.md or index.md: the page the folder's text went to */
    EQ_STR(convert(&c, false, "[a]({{< ref \"/about/_index.md\" >}}) [b]({{< ref \"/post/b/index.md\" >}})"),
           "[a](../about.md) [b](b.md)");
    done(&c);
    EQ_STR(convert(&c, false, "{{< highlight go \"linenos=table\" >}}\nx := 1\n{{< /highlight >}}"),
           "```go\nx := 1\n```");
    done(&c);
    /* sheaf's own: as written; an argument it does not take: dropped */
    EQ_STR(convert(&c, false, "{{< figure src=\"a.png\" attr=\"CC\" >}}"), "{{< figure src=\"a.png\" >}}");
    EQ_INT((int)c.nnotes, 1);
    done(&c);
    /* hugo-book's details: title= is summary=, a bare open is open=true */
    EQ_STR(convert(&c, false, "{{% details title=\"T\" %}}x{{% /details %}}{{% details \"U\" open %}}y{{% /details %}}"),
           "{{% details summary=\"T\" %}}x{{% /details %}}{{% details \"U\" open=true %}}y{{% /details %}}");
    EQ_INT((int)c.nnotes, 0);
    done(&c);
    /* hugo-book's {{< katex />}} (KaTeX for the page) goes; an escape over lines stays text */
    EQ_STR(convert(&c, false, "a{{< katex />}}b {{</* katex >}}\nx\n{{< /katex */>}}"),
           "ab {{</* katex >}}\nx\n{{< /katex */>}}");
    done(&c);
    EQ_STR(convert(&c, false, "{{< katex />}}\n```\n{{</* katex >}}\nx\n{{< /katex */>}}\n```\n"),
           "\n```\n{{< katex >}}\nx\n{{< /katex >}}\n```\n");
    done(&c);
    /* layouts: unwrapped (noted once per tabs or columns), a tab's name bold, lang= a fence */
    EQ_STR(convert(&c, false, "{{< tabs >}}\n{{% tab \"A\" %}}\nx\n{{% /tab %}}\n{{< tab header=\"B\" lang=\"go\" >}}"
                              "y{{< /tab >}}\n{{< /tabs >}}"),
           "\n**A**\n\nx\n\n**B**\n\n```go\ny\n```\n\n");
    EQ_INT((int)c.nnotes, 1);
    done(&c);
    EQ_STR(convert(&c, false, "{{% columns %}}\na\n<--->\nb\n{{% /columns %}}\n<--->\n"), "\na\nb\n\n<--->\n");
    done(&c);
    EQ_STR(convert(&c, false, "{{< button relref=\"/post/b\" >}}Go{{< /button >}} "
                              "{{< button href=\"https://x.org\" >}}X{{< /button >}}"),
           "[Go](b.md) [X](https://x.org)");
    EQ_INT((int)c.nnotes, 0);
    done(&c);
    EQ_STR(convert(&c, false, "{{% note %}}\nx\n{{% /note %}}"), "{{% note %}}\nx\n{{% /note %}}");
    EQ_INT((int)c.nnotes, 0);
    done(&c);
    /* unknown: escaped so that sheaf shows it; in code, Hugo's escape undone */
    EQ_STR(convert(&c, false, "{{< gist a b >}}"), "{{</* gist a b */>}}");
    EQ_INT((int)c.nnotes, 1);
    done(&c);
    EQ_STR(convert(&c, false, "`{{</* x */>}}`\n```\n{{%/* y */%}}\n```\n"), "`{{< x >}}`\n```\n{{% y %}}\n```\n");
    done(&c);
    /* {{</ name >}} closes as {{< /name >}} does */
    EQ_STR(convert(&c, false, "{{< highlight go >}}\nx\n{{</ highlight >}}"), "```go\nx\n```");
    done(&c);
    /* an inline shortcode: text kept unwrapped; a Go template removed, noted */
    EQ_STR(convert(&c, false, "{{< t.inline >}}<b>hi</b>{{</ t.inline >}}!"), "<b>hi</b>!");
    EQ_INT((int)c.nnotes, 0);
    done(&c);
    EQ_STR(convert(&c, false, "a{{< t.inline >}}{{ now }}{{< /t.inline >}}b"), "ab");
    EQ_INT((int)c.nnotes, 1);
    done(&c);
    EQ_STR(convert(&c, false, "a{{< t.inline />}}b"), "ab");
    EQ_INT((int)c.nnotes, 1);
    done(&c);
    /* a theme's callout box: sheaf's note, tip or warning, its inner text Markdown */
    EQ_STR(convert(&c, false, "{{< notice tip >}}\n**x**\n{{< /notice >}}"), "{{% tip %}}\n**x**\n{{% /tip %}}");
    EQ_INT((int)c.nnotes, 0);
    done(&c);
    EQ_STR(convert(&c, false, "{{< notice error \"Oops\" >}}a{{</ notice >}} {{< hint danger >}}b{{< /hint >}}"),
           "{{% warning title=\"Oops\" %}}a{{% /warning %}} {{% warning title=\"Danger\" %}}b{{% /warning %}}");
    done(&c);
    EQ_STR(convert(&c, false, "{{% alert title=\"Mind\" color=\"warning\" %}}a{{% /alert %}}"
                              "{{< alert \"circle-info\" >}}b{{< /alert >}}"),
           "{{% warning title=\"Mind\" %}}a{{% /warning %}}{{% note %}}b{{% /note %}}");
    done(&c);
    EQ_STR(convert(&c, false, "{{< admonition type=success title='Say \"hi\"' open=false >}}a{{< /admonition >}}"),
           "{{% tip title='Say \"hi\"' %}}a{{% /tip %}}");
    done(&c);
    /* nested: each closing tag renamed for its own box */
    EQ_STR(convert(&c, false, "{{< callout type=\"info\" >}}a{{< note >}}b{{< /note >}}c{{< /callout >}}"),
           "{{% note title=\"Info\" %}}a{{% note %}}b{{% /note %}}c{{% /note %}}");
    done(&c);
    /* unclosed: not a box; sheaf has no 'notice' */
    EQ_STR(convert(&c, false, "{{< notice tip >}}"), "{{</* notice tip */>}}");
    EQ_INT((int)c.nnotes, 1);
    done(&c);
    /* a ref to nothing: as written, noted */
    EQ_STR(convert(&c, false, "{{< ref \"\" >}}"), "{{< ref \"\" >}}");
    EQ_INT((int)c.nnotes, 1);
    done(&c);
}

/* What YAML may not hold raw is escaped in the front matter the import
 * writes: control characters, U+0080–U+009F, U+2028 and U+2029. */
TEST(yaml_strings)
{
    buf b = BUF_INIT;
    const char s[] = "a\"b\\c\n\x01 \xC2\x85 \xE2\x80\xA8 \xC2\xA0 \xE2\x80\x99";
    import_yaml_string(&b, s, sizeof s - 1);
    EQ_STR(b.data, "\"a\\\"b\\\\c\\n\\x01 \\x85 \\u2028 \xC2\xA0 \xE2\x80\x99\"");
    buf_release(&b);
}

int main(void)
{
    RUN(yaml_strings);
    RUN(jekyll_links);
    RUN(jekyll_blocks);
    RUN(hugo_shortcodes);
    return harness_done();
}
