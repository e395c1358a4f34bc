/* test_nb: the notebook reader (src/nb): the page text it makes, where
 * each line came from, the files it decodes, and its errors word for word. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "nb/nb.h"

static char *conv(const char *json, bool unsafe, nb_doc *doc, arena *a, buf *errs)
{
    diag_list *d = diag_list_new();
    nb_options o = { .unsafe = unsafe, .files = "n.ipynb" };
    bool ok = nb_convert(str_make(json, strlen(json)), "n.ipynb", &o, a, doc, d);
    buf_reset(errs);
    for (size_t i = 0; i < diag_count(d); i++) {
        diag_format(diag_get(d, i), errs);
        buf_putc(errs, '\n');
    }
    diag_list_free(d);
    return ok ? doc->text : NULL;
}

static bool put_piece(void *ctx, const void *p, size_t n)
{
    buf *b = ctx;
    if (n > NB_PIECE)
        return false;
    buf_put(b, p, n);
    return true;
}

/* file f's bytes, as a build writes them */
static const char *file_bytes(const char *json, const nb_file *f, buf *out)
{
    buf_reset(out);
    return nb_file_decode(str_make(json, strlen(json)), f, put_piece, out) == NB_DECODED ? out->data : "(not decoded)";
}

#define NB(cells, meta) "{\"cells\": [" cells "], \"metadata\": {" meta "}, \"nbformat\": 4, \"nbformat_minor\": 5}"

TEST(markdown_and_code)
{
    arena *a = arena_new();
    buf e = BUF_INIT;
    nb_doc doc;
    const char *j = NB("{\"cell_type\": \"markdown\", \"metadata\": {}, \"source\": [\"# Hi\\n\", \"text\"]},"
                       "{\"cell_type\": \"code\", \"execution_count\": 3, \"metadata\": {}, \"outputs\": ["
                       "{\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": [\"a<b\\n\", \"c\\n\"]},"
                       "{\"output_type\": \"execute_result\", \"execution_count\": 3, \"metadata\": {},"
                       " \"data\": {\"text/plain\": \"42\", \"text/html\": \"<b>42</b>\"}}],"
                       " \"source\": \"print(1)\"}",
                       "\"kernelspec\": {\"language\": \"python\", \"name\": \"python3\"}, \"title\": \"T \\\"q\\\"\"");
    char *t = conv(j, true, &doc, a, &e);
    EQ_STR(e.data, "");
    EQ_STR(t, "---\ntitle: \"T \\\"q\\\"\"\n---\n"
              "<div class=\"nb-cell nb-markdown\">\n\n# Hi\ntext\n\n</div>\n\n"
              "<div class=\"nb-cell nb-code\">\n"
              "<div class=\"nb-input\"><span class=\"nb-prompt\">In&nbsp;[3]:</span>\n\n"
              "```python\nprint(1)\n```\n\n</div>\n"
              "<div class=\"nb-output nb-stream nb-stdout\" data-mime-type=\"text/plain\">"
              "<pre tabindex=\"0\">a&lt;b&#10;c</pre></div>\n"
              "<div class=\"nb-output nb-html\" data-mime-type=\"text/html\" tabindex=\"0\" role=\"group\" aria-label=\"Output of cell 2\">\n<b>42</b>\n</div>\n\n"
              "</div>\n\n");
    /* line 6 is the markdown cell's first line; line 11 sheaf's HTML */
    buf p = BUF_INIT;
    nb_place_text(&doc, 7, 3, &p);
    EQ_STR(p.data, "cell 1 (line 2:3)");
    buf_reset(&p);
    nb_place_text(&doc, 11, 1, &p);
    EQ_STR(p.data, "cell 2");
    buf_reset(&p);
    nb_place_text(&doc, 2, 1, &p);
    EQ_STR(p.data, "metadata");
    OK(doc.trusted[3] && doc.trusted[10] && doc.trusted[11] && !doc.trusted[5] && !doc.trusted[4]);
    free(t);
    /* without markdown.unsafe the HTML gives way to the text */
    t = conv(j, false, &doc, a, &e);
    OK(t && strstr(t, "nb-text\" data-mime-type=\"text/plain\"><pre tabindex=\"0\">42</pre>") && !strstr(t, "<b>"));
    free(t);
    buf_release(&p);
    buf_release(&e);
    arena_free(a);
}

TEST(raw_cell_front_matter_and_tags)
{
    arena *a = arena_new();
    buf e = BUF_INIT;
    nb_doc doc;
    char *t = conv(NB("{\"cell_type\": \"raw\", \"metadata\": {}, \"source\": \"---\\ntitle: Mine\\ndate: 2024-03-18\\n---\\n\"},"
                      "{\"cell_type\": \"code\", \"metadata\": {\"tags\": [\"remove-input\"]}, \"outputs\": [], \"source\": \"x\", \"execution_count\": null},"
                      "{\"cell_type\": \"code\", \"metadata\": {\"tags\": [\"remove-cell\"]}, \"outputs\": [], \"source\": \"gone\", \"execution_count\": null},"
                      "{\"cell_type\": \"code\", \"metadata\": {\"tags\": [\"hide-input\", \"remove-output\"]}, \"outputs\": [{\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": \"no\"}], \"source\": \"```\\ny\", \"execution_count\": null}",
                      "\"title\": \"Theirs\", \"tags\": [\"a\", \"b\"], \"authors\": [{\"name\": \"Ada\"}]"),
                   true, &doc, a, &e);
    EQ_STR(e.data, "");
    EQ_STR(t, "---\ntitle: Mine\ndate: 2024-03-18\nauthors: [\"Ada\"]\ntags: [\"a\", \"b\"]\n---\n"
              "<div class=\"nb-cell nb-code\">\n</div>\n\n"
              "<div class=\"nb-cell nb-code\">\n"
              "<details class=\"nb-input\"><summary><span class=\"nb-prompt\">In&nbsp;[&nbsp;]:</span> Code</summary>\n\n"
              "````\n```\ny\n````\n\n</details>\n</div>\n\n");
    buf p = BUF_INIT;
    nb_place_text(&doc, 3, 1, &p);
    EQ_STR(p.data, "cell 1 (line 3:1)");
    buf_release(&p);
    free(t);
    buf_release(&e);
    arena_free(a);
}

/* a 1×2 PNG, its header only */
#define PNG_B64 "iVBORw0KGgoAAAANSUhEUgAAAAEAAAACCAYAAACZgbYnAAAAEElEQVR4nGNgYGD4z8DAAAAKAAH+7vuMAAAAAElFTkSuQmCC"

TEST(images_and_attachments)
{
    arena *a = arena_new();
    buf e = BUF_INIT;
    nb_doc doc;
    const char *j0 = NB("{\"cell_type\": \"markdown\", \"metadata\": {}, \"source\": \"![x](attachment:a+b.png)\","
                      " \"attachments\": {\"a+b.png\": {\"image/png\": \"" PNG_B64 "\"}}},"
                      "{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": 1, \"source\": \"\", \"outputs\": ["
                      "{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"image/png\": [\"" PNG_B64 "\\n\"], \"text/plain\": \"<Figure>\"}}]}",
                      "");
    char *t = conv(j0, true, &doc, a, &e);
    EQ_STR(e.data, "");
    OK(t && strstr(t, "\n![x](n.ipynb/cell1-a-b.png)\n"));
    OK(t && strstr(t, "<img src=\"n.ipynb/cell2-1.png\" alt=\"output of cell 2\" width=\"1\" height=\"2\">"));
    EQ_INT((long)doc.nfiles, 2L);
    if (doc.nfiles == 2) {
        EQ_STR(doc.files[0].name, "cell1-a-b.png");
        EQ_INT((long)doc.files[1].width, 1L);
        EQ_INT((long)doc.files[1].height, 2L);
        buf got = BUF_INIT;
        OK(!memcmp(file_bytes(j0, &doc.files[1], &got), "\x89PNG", 4) && got.len == 72);
        buf_release(&got);
    }
    free(t);
    /* bad base64: an error at the cell, the rest still read */
    t = conv(NB("{\"cell_type\": \"markdown\", \"metadata\": {}, \"source\": \"hi\"},"
                "{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": 1, \"source\": \"\", \"outputs\": ["
                "{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"image/png\": \"iVBO*w0\"}}]}",
                ""),
             true, &doc, a, &e);
    OK(t != NULL);
    EQ_STR(e.data, "n.ipynb:16: error: image/png of cell 2 is not base64: '*' at offset 4 of its data\n");
    buf p = BUF_INIT;
    nb_place_text(&doc, 16, 1, &p);
    EQ_STR(p.data, "cell 2");
    buf_release(&p);
    free(t);
    buf_release(&e);
    arena_free(a);
}

TEST(errors)
{
    arena *a = arena_new();
    buf e = BUF_INIT;
    nb_doc doc;
    OK(!conv("{\"cells\": [\n  {\"cell_type\": \"markdown\",, }]}", true, &doc, a, &e));
    EQ_STR(e.data, "n.ipynb:2:28: error: JSON: expected a string, found ','\n");
    OK(!conv("{\"worksheets\": [], \"metadata\": {}, \"nbformat\": 3, \"nbformat_minor\": 0}", true, &doc, a, &e));
    EQ_STR(e.data, "n.ipynb:1:48: error: nbformat 3: sheaf reads notebooks of nbformat 4 (save it from Jupyter 4 "
                   "or later, or convert it: jupyter nbconvert --to notebook --nbformat 4)\n");
    OK(!conv("{\"cells\": [], \"nbformat\": 4} x", true, &doc, a, &e));
    EQ_STR(e.data, "n.ipynb:1:30: error: JSON: more after the notebook's closing '}'\n");
    OK(!conv("{\"cells\": [\"a\\q\"], \"nbformat\": 4}", true, &doc, a, &e));
    EQ_STR(e.data, "n.ipynb:1:14: error: JSON: unknown escape '\\q' in a string\n");
    OK(!conv("[1, 2", true, &doc, a, &e));
    EQ_STR(e.data, "n.ipynb:1:1: error: JSON: expected an object, found '['\n");
    /* deep nesting in a skipped value is refused, not recursed into */
    buf deep = BUF_INIT;
    buf_puts(&deep, "{\"x\": ");
    for (int i = 0; i < 600; i++)
        buf_putc(&deep, '[');
    OK(!conv(deep.data, true, &doc, a, &e));
    EQ_STR(e.data, "n.ipynb:1:519: error: JSON: nested more than 512 deep\n");
    buf_release(&deep);
    /* an unknown representation only: a warning at the cell */
    char *t = conv(NB("{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": 1, \"source\": \"w\", \"outputs\": ["
                      "{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"application/x-thing\": {}}}]}",
                      ""),
                   true, &doc, a, &e);
    EQ_STR(e.data, "n.ipynb:11: warning: cell 1: output 1 has no representation sheaf shows (application/x-thing): it is left out\n");
    free(t);
    buf_release(&e);
    arena_free(a);
}

TEST(ansi_and_limits)
{
    arena *a = arena_new();
    buf e = BUF_INIT;
    nb_doc doc;
    char *t = conv(NB("{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": 1, \"source\": \"1/0\", \"outputs\": ["
                      "{\"output_type\": \"error\", \"ename\": \"ZeroDivisionError\", \"evalue\": \"division by zero\","
                      " \"traceback\": [\"\\u001b[0;31mZeroDivisionError\\u001b[0m: x\", \"\\u001b[1;32mok\\u001b[39m\\u001b[0m\"]}]}",
                      ""),
                   true, &doc, a, &e);
    EQ_STR(e.data, "");
    OK(t && strstr(t, "<div class=\"nb-output nb-error\" data-mime-type=\"application/vnd.jupyter.stderr\"><pre tabindex=\"0\"><span class=\"ansi-red-fg\">ZeroDivisionError</span>: x&#10;"
                      "<span class=\"ansi-green-fg ansi-bold\">ok</span></pre></div>") != NULL);
    free(t);
    buf_release(&e);
    arena_free(a);
}

/* image/svg+xml is text in nbformat, but attachments (and some writers'
 * outputs) hold it as base64: each is written as the SVG it is */
#define SVG_TEXT "<svg xmlns=\\\"http://www.w3.org/2000/svg\\\" width=\\\"4\\\" height=\\\"3\\\"></svg>"
/* base64 of <svg xmlns="http://www.w3.org/2000/svg" width="4" height="3"></svg> */
#define SVG_B64 "PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSI0IiBoZWlnaHQ9IjMiPjwvc3ZnPg=="
TEST(svg_text_and_base64)
{
    arena *a = arena_new();
    buf e = BUF_INIT;
    nb_doc doc;
    static const char want[] = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"3\"></svg>";
    const char *j0 = NB("{\"cell_type\": \"markdown\", \"metadata\": {}, \"source\": \"![x](attachment:d.svg)\","
                      " \"attachments\": {\"d.svg\": {\"image/svg+xml\": \"" SVG_B64 "\"}}},"
                      "{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": 1, \"source\": \"\", \"outputs\": ["
                      "{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"image/svg+xml\": [\"" SVG_TEXT "\"], \"text/plain\": \"<Figure>\"}},"
                      "{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"image/svg+xml\": [\"" SVG_B64 "\\n\"], \"text/plain\": \"<Figure>\"}},"
                      "{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"image/svg+xml\": \"\\n  <?xml version=\\\"1.0\\\"?>" SVG_TEXT "\"}}]}",
                      "");
    char *t = conv(j0, true, &doc, a, &e);
    buf got = BUF_INIT;
    EQ_STR(e.data, "");
    OK(t && strstr(t, "\n![x](n.ipynb/cell1-d.svg)\n"));
    EQ_INT((long)doc.nfiles, 4L);
    for (size_t i = 0; i < doc.nfiles && i < 3; i++)
        EQ_STR(file_bytes(j0, &doc.files[i], &got), want);
    if (doc.nfiles == 4)
        OK(!strncmp(file_bytes(j0, &doc.files[3], &got), "\n  <?xml", 8));
    buf_release(&got);
    free(t);
    /* neither SVG text nor base64 of SVG: an error at the cell */
    t = conv(NB("{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": 1, \"source\": \"\", \"outputs\": ["
                "{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"image/svg+xml\": \"aGVsbG8=\"}},"
                "{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"image/svg+xml\": \"svg!\"}}]}",
                ""),
             true, &doc, a, &e);
    EQ_STR(e.data, "n.ipynb:10: error: image/svg+xml of cell 1 is neither SVG text nor base64 of SVG (it decodes to 'hello')\n"
                   "n.ipynb:10: error: image/svg+xml of cell 1 is neither SVG text nor base64 of SVG ('!' at offset 3 is not base64)\n");
    free(t);
    buf_release(&e);
    arena_free(a);
}

/* a type sheaf does not show, beside one it does: said once a notebook */
TEST(unknown_types_warned_once)
{
    arena *a = arena_new();
    buf e = BUF_INIT;
    nb_doc doc;
    char *t = conv(NB("{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": 1, \"source\": \"w\", \"outputs\": ["
                      "{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"application/vnd.plotly.v1+json\": {\"a\": 1}, \"text/plain\": \"fig\"}},"
                      "{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"text/plain\": \"fig\", \"application/vnd.plotly.v1+json\": {}, \"text/x-other\": \"o\"}}]},"
                      "{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": 2, \"source\": \"w\", \"outputs\": ["
                      "{\"output_type\": \"execute_result\", \"execution_count\": 2, \"metadata\": {}, \"data\": {\"application/vnd.plotly.v1+json\": [], \"text/plain\": \"fig\"}}]}",
                      ""),
                   true, &doc, a, &e);
    EQ_STR(e.data, "n.ipynb:11: warning: cell 1: output 1 has application/vnd.plotly.v1+json, which sheaf does not show: "
                   "it shows text/plain instead (said once for each type in a notebook)\n"
                   "n.ipynb:12: warning: cell 1: output 2 has text/x-other, which sheaf does not show: "
                   "it shows text/plain instead (said once for each type in a notebook)\n");
    OK(t && strstr(t, "<pre tabindex=\"0\">fig</pre>"));
    free(t);
    buf_release(&e);
    arena_free(a);
}

/* application/json, shown only when nothing else is: indented as
 * JupyterLab's viewer and Python's json.dumps(indent=2) lay it out, and
 * highlighted as a json block */
TEST(json_pretty)
{
    arena *a = arena_new();
    buf e = BUF_INIT;
    nb_doc doc;
    char *t = conv(NB("{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": 1, \"source\": \"j\", \"outputs\": ["
                      "{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"application/json\": "
                      "{\"a\":[1,2.5e3,{}],\"b\" : {\"c\":null,\"d\":[]},\"s\":\"x\\\"`y\\u00e9\"}}}]}",
                      ""),
                   true, &doc, a, &e);
    EQ_STR(e.data, "");
    OK(t && strstr(t, "<div class=\"nb-output nb-json\" data-mime-type=\"application/json\">\n\n"
                      "```json\n{\n  \"a\": [\n    1,\n    2.5e3,\n    {}\n  ],\n  \"b\": {\n    \"c\": null,\n"
                      "    \"d\": []\n  },\n  \"s\": \"x\\\"`y\\u00e9\"\n}\n```\n\n</div>\n"));
    free(t);
    /* a huge one is cut, as text is */
    buf big = BUF_INIT;
    buf_puts(&big, "{\"cells\": [{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": 1, \"source\": \"j\", \"outputs\": ["
                   "{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"application/json\": [");
    for (int i = 0; i < 200000; i++)
        buf_puts(&big, i ? ",12345" : "12345");
    buf_puts(&big, "]}}]}], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}");
    t = conv(big.data, true, &doc, a, &e);
    EQ_STR(e.data, "");
    OK(t && doc.len < NB_TEXT_MAX + 4096 && strstr(t, "  12345,\n  12345,\n… (") && strstr(t, " more bytes of JSON not shown)\n"));
    free(t);
    buf_release(&big);
    buf_release(&e);
    arena_free(a);
}

/* A notebook of 3 MB of image: a PNG header, then bytes up to 3 MB,
 * base64 in lines of 76 as some writers wrap it ("\n" inside the string),
 * and a '/' escaped as "\/" as others write it. */
static char *big_image_notebook(buf *want)
{
    static const unsigned char png[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R',
                                         0, 0, 0x02, 0x80, 0, 0, 0x01, 0xe0, 8, 6, 0, 0, 0 };
    buf_reset(want);
    buf_put(want, png, sizeof png);
    uint32_t x = 12345;
    while (want->len < 3u * 1024 * 1024) {
        x = x * 1103515245u + 12345u;
        buf_putc(want, (int)(x >> 16 & 0xFF));
    }
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    buf j = BUF_INIT;
    buf_puts(&j, "{\"cells\": [{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": 1, \"source\": \"p\", \"outputs\": ["
                 "{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"text/plain\": \"<Figure>\", \"image/png\": [\"");
    const unsigned char *d = (const unsigned char *)want->data;
    size_t col = 0;
    for (size_t i = 0; i < want->len; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < want->len ? (uint32_t)d[i + 1] << 8 : 0) |
                     (i + 2 < want->len ? d[i + 2] : 0);
        for (int k = 0; k < 4; k++) {
            char ch = k >= 2 && i + (size_t)k - 1 >= want->len ? '=' : abc[v >> (18 - 6 * k) & 63];
            buf_puts(&j, ch == '/' ? "\\/" : (char[]){ ch, 0 });
        }
        if ((col += 4) == 76) {
            buf_puts(&j, "\\n\", \"");
            col = 0;
        }
    }
    buf_puts(&j, "\"]}}]}], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}");
    return buf_detach(&j, NULL);
}

/* the image's bytes are not held: the arena keeps a few names and places,
 * not the 3 MB the file will hold */
TEST(files_not_held)
{
    arena *a = arena_new();
    buf e = BUF_INIT, want = BUF_INIT;
    nb_doc doc;
    char *j = big_image_notebook(&want);
    size_t before = arena_used(a);
    char *t = conv(j, true, &doc, a, &e);
    EQ_STR(e.data, "");
    OK(t && strstr(t, "<img src=\"n.ipynb/cell1-1.png\" alt=\"output of cell 1\" width=\"640\" height=\"480\">"));
    EQ_INT((long)doc.nfiles, 1L);
    OK(arena_used(a) - before < 256 * 1024);
    free(t);
    free(j);
    buf_release(&want);
    buf_release(&e);
    arena_free(a);
}

static bool put_stop(void *ctx, const void *p, size_t n)
{
    (void)p;
    (void)n;
    return --*(int *)ctx > 0;
}

/* the bytes are decoded when written, a piece at a time, from memory or
 * the file, and only if the notebook still holds what was read */
TEST(files_decoded_in_pieces)
{
    arena *a = arena_new();
    buf e = BUF_INIT, want = BUF_INIT, got = BUF_INIT;
    nb_doc doc;
    char *j = big_image_notebook(&want);
    char *t = conv(j, true, &doc, a, &e);
    EQ_STR(e.data, "");
    EQ_INT((long)doc.nfiles, 1L);
    if (doc.nfiles == 1) {
        const nb_file *f = &doc.files[0];
        EQ_INT((long)f->len, (long)want.len);
        EQ_INT(nb_file_decode(str_make(j, strlen(j)), f, put_piece, &got), NB_DECODED);
        OK(got.len == want.len && !memcmp(got.data, want.data, want.len));
        /* from the file, as a build writes it */
        char path[] = "/tmp/test_nb_XXXXXX";
        int fd = mkstemp(path);
        OK(fd >= 0 && write(fd, j, strlen(j)) == (ssize_t)strlen(j));
        buf_reset(&got);
        EQ_INT(nb_file_decode_fd(fd, f, put_piece, &got), NB_DECODED);
        OK(got.len == want.len && !memcmp(got.data, want.data, want.len));
        /* put may stop it */
        int pieces = 3;
        EQ_INT(nb_file_decode_fd(fd, f, put_stop, &pieces), NB_STOPPED);
        /* the notebook changed since it was read: a byte, or its length */
        char *mid = j + f->off + f->vlen / 2;
        while (*mid == '\\' || *mid == '"' || *mid == 'n' || *mid == ',' || *mid == ' ')
            mid++;
        *mid = *mid == 'A' ? 'B' : 'A';
        buf_reset(&got);
        EQ_INT(nb_file_decode(str_make(j, strlen(j)), f, put_piece, &got), NB_CHANGED);
        OK(ftruncate(fd, (off_t)(f->off + f->vlen / 2)) == 0);
        EQ_INT(nb_file_decode_fd(fd, f, put_piece, &got), NB_UNREADABLE);
        close(fd);
        unlink(path);
    }
    /* an SVG's text, with its escapes and a pair of surrogates, as string() reads it */
    free(t);
    free(j);
    j = NB("{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": 1, \"source\": \"\", \"outputs\": ["
           "{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"image/svg+xml\": [\"<svg>\\u00e9\\ud83d\\ude00\\ud800x\", \"\\\"\\/\\n</svg>\"]}}]}",
           "");
    t = conv(j, true, &doc, a, &e);
    EQ_STR(e.data, "");
    buf_reset(&got);
    if (doc.nfiles == 1)
        EQ_INT(nb_file_decode(str_make(j, strlen(j)), &doc.files[0], put_piece, &got), NB_DECODED);
    EQ_STR(got.data, "<svg>\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx\"/\n</svg>");
    free(t);
    buf_release(&got);
    buf_release(&want);
    buf_release(&e);
    arena_free(a);
}

/* pandas's `<style scoped>`: the obsolete attribute goes (the Nu checker's
 * error), in any case and with a value, from <style> tags only; and its
 * empty corner header <th></th> becomes <td></td> (axe-core's
 * empty-table-header) */
TEST(style_scoped_dropped)
{
    arena *a = arena_new();
    buf e = BUF_INIT;
    nb_doc doc;
    const char *j = NB("{\"cell_type\": \"code\", \"execution_count\": 1, \"metadata\": {}, \"outputs\": ["
                       "{\"output_type\": \"execute_result\", \"execution_count\": 1, \"metadata\": {},"
                       " \"data\": {\"text/plain\": \"df\", \"text/html\": [\"<div>\\n\", \"<style scoped>\\n\","
                       " \".dataframe td { x: 1 }\\n\", \"</style>\\n\", \"<STYLE media=print SCOPED=''>a{}</STYLE>\\n\","
                       " \"<p data-scoped=1 class=scoped>scoped</p><stylex scoped></div>\\n\","
                       " \"<table><thead><tr><th></th><th>a</th></tr></thead></table>\"]}}],"
                       " \"source\": \"df\"}", "");
    char *t = conv(j, true, &doc, a, &e);
    EQ_STR(e.data, "");
    OK(t && strstr(t, "<div>\n<style>\n.dataframe td { x: 1 }\n</style>\n<STYLE media=print>a{}</STYLE>\n"
                      "<p data-scoped=1 class=scoped>scoped</p><stylex scoped></div>\n"
                      "<table><thead><tr><td></td><th>a</th></tr></thead></table>\n"));
    if (t && !strstr(t, "<style>\n.dataframe"))
        fprintf(stderr, "%s\n", t);
    free(t);
    buf_release(&e);
    arena_free(a);
}

/* What the reader gives back as it goes (nb_options.drop, a mapped
 * file's pages): only ranges of the notebook, something on a big one, and
 * the page the same as without it. */
typedef struct drops {
    size_t len, n, bytes;
    bool bad;
} drops;

static void record_drop(void *ctx, size_t off, size_t n)
{
    drops *r = ctx;
    r->n++;
    r->bytes += n;
    r->bad |= off > r->len || n > r->len - off;
}

TEST(gives_back_what_it_read)
{
    static const unsigned char png[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R',
                                         0, 0, 0, 4, 0, 0, 0, 3, 8, 2, 0, 0, 0 };
    buf j = BUF_INIT;
    buf_puts(&j, "{\"cells\": [{\"cell_type\": \"markdown\", \"metadata\": {}, \"source\": \"# Big\"},"
                 "{\"cell_type\": \"code\", \"execution_count\": 1, \"metadata\": {}, \"source\": \"plot()\","
                 " \"outputs\": [{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"image/png\": \"");
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i + 2 < sizeof png; i += 3) {
        unsigned v = (unsigned)png[i] << 16 | (unsigned)png[i + 1] << 8 | png[i + 2];
        buf_putc(&j, b64[v >> 18 & 63]), buf_putc(&j, b64[v >> 12 & 63]);
        buf_putc(&j, b64[v >> 6 & 63]), buf_putc(&j, b64[v & 63]);
    }
    for (size_t i = 0; i < (9u << 20) / 4; i++) /* 9 MiB more of base64 */
        buf_puts(&j, "AAAA");
    buf_puts(&j, "\", \"text/plain\": \"fig\"}}]}], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}");
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    nb_options plain = { .files = "n.ipynb" };
    nb_doc one, two;
    OK(nb_convert(str_make(j.data, j.len), "n.ipynb", &plain, a, &one, d));
    drops r = { .len = j.len };
    nb_options giving = { .files = "n.ipynb", .drop = record_drop, .drop_ctx = &r };
    OK(nb_convert(str_make(j.data, j.len), "n.ipynb", &giving, a, &two, d));
    EQ_INT((int)diag_count(d), 0);
    OK(!r.bad);
    OK(r.n >= 2 && r.bytes >= (8u << 20)); /* the skip, then the image's scan */
    OK(one.len == two.len && !memcmp(one.text, two.text, one.len));
    OK(one.nfiles == 1 && two.nfiles == 1 && one.files[0].hash == two.files[0].hash);
    free(one.text);
    free(two.text);
    diag_list_free(d);
    arena_free(a);
    buf_release(&j);
}

/* sympy's text/latex output, one `$\\displaystyle …$` formula, is display
 * math (a box the keyboard can scroll on a phone); other LaTeX stays */
TEST(one_formula_is_display_math)
{
    arena *a = arena_new();
    buf e = BUF_INIT;
    nb_doc doc;
    const char *j = NB("{\"cell_type\": \"code\", \"execution_count\": 1, \"metadata\": {}, \"outputs\": ["
                       "{\"output_type\": \"execute_result\", \"execution_count\": 1, \"metadata\": {},"
                       " \"data\": {\"text/plain\": \"x\", \"text/latex\": \"$\\\\displaystyle x^{2}$\"}},"
                       "{\"output_type\": \"execute_result\", \"execution_count\": 1, \"metadata\": {},"
                       " \"data\": {\"text/plain\": \"y\", \"text/latex\": \"$a$ and $b$\"}}],"
                       " \"source\": \"x\"}", "");
    char *t = conv(j, false, &doc, a, &e);
    EQ_STR(e.data, "");
    OK(t && strstr(t, "\n$$\\displaystyle x^{2}$$\n") && strstr(t, "\n$a$ and $b$\n"));
    if (t && !strstr(t, "$$\\displaystyle"))
        fprintf(stderr, "%s\n", t);
    free(t);
    buf_release(&e);
    arena_free(a);
}

int main(void)
{
    RUN(markdown_and_code);
    RUN(raw_cell_front_matter_and_tags);
    RUN(images_and_attachments);
    RUN(errors);
    RUN(ansi_and_limits);
    RUN(svg_text_and_base64);
    RUN(unknown_types_warned_once);
    RUN(json_pretty);
    RUN(files_not_held);
    RUN(files_decoded_in_pieces);
    RUN(style_scoped_dropped);
    RUN(gives_back_what_it_read);
    RUN(one_formula_is_display_math);
    return harness_done();
}
