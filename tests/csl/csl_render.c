/* csl_render: a test tool (not part of sheaf) for the differential test
 * against Pandoc (tests/csl/differential.py). Reads a .bib with sheaf's
 * reader, maps every entry to CSL-JSON (bib/csl.c) and formats one
 * document with citeproc-js (js/csl.c) in a bundled style: one citation
 * cluster per entry, in the file's order, then the bibliography. Prints
 *
 *   C<TAB>key<TAB>the cluster's HTML
 *   B<TAB>key<TAB>the bibliography entry's HTML
 *
 *   csl_render STYLE FILE.bib [LANG]     (LANG: en-US) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bib/bib.h"
#include "bib/csl.h"
#include "js/csl.h"
#include "util/buf.h"

/* The reply's strings, read just enough: the reply is citeproc-js's
 * JSON.stringify of arrays of strings. Prints s[0..) up to its closing
 * quote, unescaped, new lines as spaces; returns past the quote. */
static const char *print_string(const char *s)
{
    for (; *s && *s != '"'; s++) {
        if (*s == '\\') {
            s++;
            if (*s == 'n' || *s == 't')
                putchar(' ');
            else if (*s == 'u') {
                unsigned v = (unsigned)strtoul((char[]){ s[1], s[2], s[3], s[4], 0 }, NULL, 16);
                if (v < 0x80)
                    putchar((int)v);
                else if (v < 0x800)
                    putchar(0xc0 | (int)(v >> 6)), putchar(0x80 | (int)(v & 0x3f));
                else
                    putchar(0xe0 | (int)(v >> 12)), putchar(0x80 | (int)((v >> 6) & 0x3f)),
                        putchar(0x80 | (int)(v & 0x3f));
                s += 4;
            } else
                putchar(*s);
        } else if (*s == '\n') {
            putchar(' ');
        } else {
            putchar(*s);
        }
    }
    return *s ? s + 1 : s;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: csl_render STYLE FILE.bib [LANG]\n");
        return 2;
    }
    const js_csl_file *style = js_csl_bundled_style(argv[1]);
    if (!style) {
        fprintf(stderr, "csl_render: no bundled style '%s'\n", argv[1]);
        return 2;
    }
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    bib b = { 0 };
    if (!bib_load(&b, argv[2], argv[2], argv[2], 1, 1, a, d) || !bib_resolve_crossrefs(&b, a, d)) {
        diag_print(d, stderr, false);
        return 1;
    }
    buf q = BUF_INIT, out = BUF_INIT, err = BUF_INIT;
    buf_puts(&q, "{\"style\":");
    bib_json_string(&q, style->text, style->len);
    buf_printf(&q, ",\"key\":\"%s\",\"lang\":\"%s\",\"item_layouts\":false,\"items\":[", argv[1],
               argc > 3 ? argv[3] : "en-US");
    /* the document's language: the style's default-locale, else LANG */
    const char *lang = argc > 3 ? argv[3] : "en-US";
    const char *dl = strstr(style->text, "default-locale=\"");
    char doc_lang[16];
    snprintf(doc_lang, sizeof doc_lang, "%.*s", dl ? (int)strcspn(dl + 16, "\"") : 0, dl ? dl + 16 : "");
    for (size_t i = 0; i < b.n; i++) {
        if (i)
            buf_putc(&q, ',');
        bib_csl_json(&b.entries[i], *doc_lang ? doc_lang : lang, &q);
    }
    buf_puts(&q, "],\"clusters\":[");
    for (size_t i = 0; i < b.n; i++) {
        buf_puts(&q, i ? ",[{\"id\":" : "[{\"id\":");
        bib_json_string(&q, b.entries[i].key, strlen(b.entries[i].key));
        buf_puts(&q, "}]");
    }
    buf_puts(&q, "]}");
    js_csl *k = js_csl_new(js_csl_bundled_locale_fn, NULL, &err);
    if (!k || !js_csl_render(k, q.data, q.len, &out, &err)) {
        fprintf(stderr, "csl_render: %s\n", err.data);
        return 1;
    }
    /* {"clusters":["…",…],"bibliography":[["key","…"],…],"numeric":…} */
    const char *s = strstr(out.data, "\"clusters\":[");
    s = s ? s + 12 : "";
    for (size_t i = 0; i < b.n && *s == '"'; i++) {
        printf("C\t%s\t", b.entries[i].key);
        s = print_string(s + 1);
        putchar('\n');
        if (*s == ',')
            s++;
    }
    s = strstr(s, "\"bibliography\":[");
    s = s ? s + 16 : "";
    while (*s == '[') {
        printf("B\t");
        s = print_string(s + 2); /* the key */
        putchar('\t');
        s = print_string(s + 2); /* ,"…" */
        putchar('\n');
        s += 1; /* ] */
        if (*s == ',')
            s++;
    }
    js_csl_free(k);
    buf_release(&q);
    buf_release(&out);
    buf_release(&err);
    bib_free(&b);
    diag_list_free(d);
    arena_free(a);
    return 0;
}
