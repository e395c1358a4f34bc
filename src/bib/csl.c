/* bib/csl.c: .bib entries → CSL-JSON items (see csl.h). One table says
 * which BibTeX type is which CSL type, one which field is which variable;
 * the rest (names, dates, language) has a function each. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bib/csl.h"

void bib_json_string(buf *out, const char *s, size_t n)
{
    buf_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            buf_printf(out, "\\%c", c);
        else if (c == '\n')
            buf_puts(out, "\\n");
        else if (c < 0x20)
            buf_printf(out, "\\u%04x", c);
        else
            buf_putc(out, (char)c);
    }
    buf_putc(out, '"');
}

static void str(buf *out, const char *s) { bib_json_string(out, s, strlen(s)); }

static const char *field(const bib_entry *e, const char *name)
{
    const char *v = bib_field_get(e, name);
    return v && *v ? v : NULL;
}

static const char *first(const bib_entry *e, const char *const *names)
{
    for (; *names; names++) {
        const char *v = field(e, *names);
        if (v)
            return v;
    }
    return NULL;
}

/* ---- types ---- */

static const struct {
    const char *bib, *csl, *genre;
} types[] = {
    { "article", "article-journal", NULL },
    { "book", "book", NULL },
    { "booklet", "pamphlet", NULL },
    { "collection", "book", NULL },
    { "conference", "paper-conference", NULL },
    { "inbook", "chapter", NULL },
    { "incollection", "chapter", NULL },
    { "inproceedings", "paper-conference", NULL },
    { "manual", "book", NULL },
    { "mastersthesis", "thesis", "Master\u2019s thesis" },
    { "misc", "", NULL },
    { "mvbook", "book", NULL },
    { "online", "webpage", NULL },
    { "patent", "patent", NULL },
    { "periodical", "periodical", NULL },
    { "phdthesis", "thesis", "PhD thesis" },
    { "proceedings", "book", NULL },
    { "report", "report", NULL },
    { "techreport", "report", NULL },
    { "thesis", "thesis", NULL },
    { "unpublished", "manuscript", NULL },
    { "www", "webpage", NULL },
};

/* ---- variables: the first field that is there ---- */

static const struct {
    const char *csl;
    const char *bib[4];
} plain[] = {
    { "title", { "title" } },
    { "container-title", { "journaltitle", "journal", "booktitle" } },
    { "collection-title", { "series" } },
    { "volume", { "volume" } },
    { "issue", { "number" } }, /* BibLaTeX's issue is a season ("Spring"): Pandoc drops it too */
    { "edition", { "edition" } },
    { "chapter-number", { "chapter" } },
    { "publisher-place", { "address", "location" } },
    { "ISBN", { "isbn" } },
    { "ISSN", { "issn" } },
    { "note", { "note" } },
    { "abstract", { "abstract" } },
};

/* An article or a report numbers issues, a report its own number */
static bool number_is_issue(const char *type) { return !strcmp(type, "article-journal"); }

/* ---- names ---- */

static bool upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }

/* a space or a no-break space (~ in TeX) */
static bool has_space(const char *s) { return strchr(s, ' ') || strstr(s, "\u00a0"); }

static void names(buf *out, const char *var, const bib_name *v, size_t n)
{
    if (!n)
        return;
    buf_printf(out, ",\"%s\":[", var);
    for (size_t i = 0; i < n; i++) {
        const bib_name *a = &v[i];
        buf_puts(out, i ? ",{" : "{");
        if (!strcmp(a->full, "others")) {
            buf_puts(out, "\"literal\":\"others\"}");
            continue;
        }
        /* {World Health Organization}: BibTeX reads a braced name as one
         * family token; a family of several words with nothing else can
         * only have come from braces */
        if (!*a->given && !*a->von && !*a->jr && has_space(a->family)) {
            buf_puts(out, "\"literal\":");
            str(out, a->family);
            buf_putc(out, '}');
            continue;
        }
        /* `López de Prado, Marcos`: BibTeX's rule (bibtex.web) makes
         * "López de" the von part, since it runs from the first word to
         * the last lower-case one; printed whole, BibTeX gives back
         * "López de Prado". A particle starting with a capital is part of
         * the family name, as biber and Pandoc read it. */
        bool joined = *a->von && upper((unsigned char)a->von[0]);
        buf_puts(out, "\"family\":");
        if (joined) {
            buf b = BUF_INIT;
            buf_printf(&b, "%s %s", a->von, a->family);
            str(out, b.data);
            buf_release(&b);
        } else {
            str(out, a->family);
        }
        if (*a->given) {
            buf_puts(out, ",\"given\":");
            str(out, a->given);
        }
        if (*a->von && !joined) {
            buf_puts(out, ",\"dropping-particle\":");
            str(out, a->von);
        }
        if (*a->jr) {
            buf_puts(out, ",\"suffix\":");
            str(out, a->jr);
        }
        buf_putc(out, '}');
    }
    buf_putc(out, ']');
}

/* ---- dates ---- */

static const char *const months[12] = { "jan", "feb", "mar", "apr", "may", "jun",
                                        "jul", "aug", "sep", "oct", "nov", "dec" };

/* "May", "may", "5", "05" → 5; 0 when it is none of those. */
static int month_number(const char *m)
{
    if (!m)
        return 0;
    char *end;
    long n = strtol(m, &end, 10);
    if (end != m && !*end)
        return n >= 1 && n <= 12 ? (int)n : 0;
    for (int i = 0; i < 12; i++)
        if (!strncasecmp(m, months[i], 3))
            return i + 1;
    return 0;
}

static bool digit(char c) { return c >= '0' && c <= '9'; }

/* Reads "YYYY[-MM[-DD]]" at *s into p[0..2] (0: absent) and moves *s past
 * it; false when *s does not start with a year of four digits. */
static bool ymd(const char **s, int p[3])
{
    const char *c = *s;
    p[0] = p[1] = p[2] = 0;
    if (strspn(c, "0123456789") != 4)
        return false;
    p[0] = atoi(c);
    c += 4;
    for (int k = 1; k < 3 && c[0] == '-' && digit(c[1]); k++) {
        c++;
        for (int d = 0; d < 2 && digit(*c); d++)
            p[k] = p[k] * 10 + (*c++ - '0');
    }
    *s = c;
    return true;
}

static void date_parts(buf *out, const int p[3])
{
    buf_printf(out, "[%d", p[0]);
    if (p[1])
        buf_printf(out, ",%d", p[1]);
    if (p[1] && p[2])
        buf_printf(out, ",%d", p[2]);
    buf_putc(out, ']');
}

/* A BibLaTeX date (2017, 2017-05, 2017-05-25, 2017/2018) as a CSL date;
 * else as a literal one. */
static void date(buf *out, const char *var, const char *text)
{
    const char *s = text;
    int a[3], b[3];
    buf_printf(out, ",\"%s\":{", var);
    if (ymd(&s, a) && (!*s || (*s == '/' && (s++, ymd(&s, b)) && !*s))) {
        buf_puts(out, "\"date-parts\":[");
        date_parts(out, a);
        if (text[strcspn(text, "/")]) {
            buf_putc(out, ',');
            date_parts(out, b);
        }
        buf_puts(out, "]}");
        return;
    }
    buf_puts(out, "\"literal\":");
    str(out, text);
    buf_putc(out, '}');
}

static void issued(buf *out, const bib_entry *e)
{
    const char *d = field(e, "date");
    if (d) {
        date(out, "issued", d);
        return;
    }
    const char *y = field(e, "year");
    if (!y)
        return;
    size_t n = strlen(y);
    bool digits = n == 4 && strspn(y, "0123456789") == 4;
    if (!digits) { /* "in press", "2017a", "1990--1991" */
        date(out, "issued", y);
        return;
    }
    int p[3] = { atoi(y), month_number(field(e, "month")), 0 };
    buf_puts(out, ",\"issued\":{\"date-parts\":[");
    date_parts(out, p);
    buf_puts(out, "]}");
}

/* ---- language ---- */

static const struct {
    const char *name, *tag;
} languages[] = {
    { "american", "en-US" },  { "brazil", "pt-BR" },    { "brazilian", "pt-BR" },
    { "british", "en-GB" },   { "chinese", "zh-CN" },   { "czech", "cs-CZ" },
    { "danish", "da-DK" },    { "dutch", "nl-NL" },     { "english", "en-US" },
    { "finnish", "fi-FI" },   { "french", "fr-FR" },    { "german", "de-DE" },
    { "greek", "el-GR" },     { "italian", "it-IT" },   { "japanese", "ja-JP" },
    { "korean", "ko-KR" },    { "ngerman", "de-DE" },   { "norwegian", "nb-NO" },
    { "polish", "pl-PL" },    { "portuguese", "pt-PT" }, { "russian", "ru-RU" },
    { "spanish", "es-ES" },   { "swedish", "sv-SE" },   { "turkish", "tr-TR" },
    { "ukrainian", "uk-UA" },
};

/* The code point at s (UTF-8 as bib/ keeps it), its length in *n. */
static uint32_t code_point(const unsigned char *s, size_t *n)
{
    if (s[0] < 0x80) {
        *n = 1;
        return s[0];
    }
    if (s[0] >= 0xe0 && s[0] < 0xf0 && s[1] && s[2]) {
        *n = 3;
        return ((uint32_t)(s[0] & 0x0f) << 12) | ((uint32_t)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
    }
    *n = s[0] >= 0xf0 ? 4 : 2;
    for (size_t i = 1; i < *n; i++)
        if (!s[i]) {
            *n = i;
            break;
        }
    return 0x80; /* no CJK block starts outside the three-byte range we test */
}

/* 'j' kana, 'k' Hangul, 'z' Han; 0 for none. Kana or Hangul decide over
 * Han, which Japanese and Korean text hold too. */
static char cjk(const char *text, char seen)
{
    for (const unsigned char *s = (const unsigned char *)text; s && *s;) {
        size_t n;
        uint32_t c = code_point(s, &n);
        s += n;
        if ((c >= 0x3040 && c <= 0x30ff) || (c >= 0x31f0 && c <= 0x31ff))
            return 'j';
        if ((c >= 0xac00 && c <= 0xd7af) || (c >= 0x1100 && c <= 0x11ff) || (c >= 0x3130 && c <= 0x318f))
            return 'k';
        if ((c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf))
            seen = 'z';
    }
    return seen;
}

const char *bib_csl_language(const bib_entry *e)
{
    const char *l = first(e, (const char *const[]){ "langid", "language", NULL });
    if (l) {
        for (size_t i = 0; i < sizeof languages / sizeof *languages; i++)
            if (!strcasecmp(l, languages[i].name))
                return languages[i].tag;
        /* a tag as written: en, zh-CN, pt_BR */
        size_t n = strlen(l);
        if (n >= 2 && n <= 16 && strspn(l, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_0123456789") == n)
            return l;
        return NULL;
    }
    char seen = cjk(field(e, "title"), 0);
    for (size_t i = 0; i < e->nauthors && seen != 'j' && seen != 'k'; i++)
        seen = cjk(e->authors[i].full, seen);
    for (size_t i = 0; i < e->neditors && seen != 'j' && seen != 'k'; i++)
        seen = cjk(e->editors[i].full, seen);
    /* no CJK and no stated language: English, so that a list in a Chinese
     * style (GB/T 7714, default-locale zh-CN) gives it "et al.", and its
     * titles are in sentence case whatever the page's language */
    return seen == 'z' ? "zh-CN" : seen == 'j' ? "ja-JP" : seen == 'k' ? "ko-KR" : "en-US";
}

/* ---- sentence case ----
 *
 * CSL styles want titles in sentence case and capitalise them themselves
 * where they want title case (text-case="title"); BibTeX titles are
 * written in title case with braces around what must keep its capitals.
 * So, as Pandoc does for an English entry's title, booktitle and series:
 * each word outside braces that is capitalised and otherwise lower case
 * ("Learning", "A") is lowered, but for the first word and the first after
 * a colon; words with other capitals ("InBook", "SGD", "iPhone") and words
 * holding braces or commands (`{Bayesian}`, `M{\"u}ller`) stay. */

/* The TeX of raw with such words lowered, in out. */
static void sentence_case_tex(const char *raw, buf *out)
{
    size_t n = strlen(raw), i = 0;
    int depth = 0;
    bool at_start = true;
    while (i < n) {
        char c = raw[i];
        if (depth > 0 || c == '{' || c == '}' || c == ' ' || c == '-' || c == ':') {
            if (c == '{' && depth++ == 0)
                at_start = false; /* a braced first word ({ImageNet} Classification) */
            else if (c == '}' && depth > 0)
                depth--;
            if (c == ':' && depth == 0)
                at_start = true;
            buf_putc(out, c);
            i++;
            continue;
        }
        /* a word: up to a space, a hyphen, a colon or a brace at depth 0 */
        size_t end = i + strcspn(raw + i, " -:{}");
        bool braced = raw[end] == '{' || (i > 0 && raw[i - 1] == '}');
        size_t l = i;
        while (l < end && strchr("(\"'`[", raw[l]))
            l++; /* leading punctuation */
        /* a word of letters; not a number (3D), math ($X$) or a command */
        bool letters = l < end && (upper((unsigned char)raw[l]) || (raw[l] >= 'a' && raw[l] <= 'z')) &&
                       !memchr(raw + i, '$', end - i);
        bool lower_rest = letters && upper((unsigned char)raw[l]);
        for (size_t k = l + 1; lower_rest && k < end; k++)
            if (upper((unsigned char)raw[k]) || raw[k] == '\\')
                lower_rest = false;
        buf_put(out, raw + i, l - i);
        if (lower_rest && !braced && !at_start)
            buf_putc(out, (char)(raw[l] - 'A' + 'a'));
        else if (l < end)
            buf_putc(out, raw[l]);
        if (l < end)
            buf_put(out, raw + l + 1, end - l - 1);
        at_start = false; /* a number starts a title too: "3rd International …" */
        i = end;
    }
}

/* An entry is English when its language says so — stated, or detected
 * (bib_csl_language: no CJK and none stated is English). Only a language
 * written but not understood falls back on the document's (the style's
 * locale), which is Pandoc's rule for every entry of no langid: it
 * differs from this one in a Chinese style alone (docs/citations.md). */
static bool english(const bib_entry *e, const char *doc_lang)
{
    const char *l = bib_csl_language(e);
    if (!l)
        l = doc_lang;
    return !strncasecmp(l, "en", 2) && (!l[2] || l[2] == '-' || l[2] == '_');
}

/* ---- math in titles ----
 *
 * `$O(1/k^2)$` in a title is TeX math. As Pandoc writes it (texmath's
 * HTML): each letter in italics, ^ and _ as superscript and subscript,
 * the common Greek letters and operators as their characters, spaces
 * dropped — in CSL's rich text (<i>, <sup>, <sub>, which citeproc-js reads
 * in a field), inside <span class="nocase"> so that a style's title case
 * leaves it alone ("Rate O(1/k²)", never "O(1/K^2)"). */

static const struct {
    const char *cmd, *text;
} math_cmds[] = {
    { "alpha", "\u03b1" }, { "beta", "\u03b2" },  { "gamma", "\u03b3" },  { "delta", "\u03b4" },
    { "epsilon", "\u03f5" }, { "varepsilon", "\u03b5" }, { "eta", "\u03b7" }, { "theta", "\u03b8" },
    { "lambda", "\u03bb" }, { "mu", "\u03bc" }, { "pi", "\u03c0" }, { "rho", "\u03c1" },
    { "sigma", "\u03c3" }, { "tau", "\u03c4" }, { "phi", "\u03d5" }, { "omega", "\u03c9" },
    { "Delta", "\u0394" }, { "Omega", "\u03a9" }, { "Theta", "\u0398" }, { "Sigma", "\u03a3" },
    { "cdot", "\u22c5" }, { "times", "\u00d7" }, { "le", "\u2264" }, { "leq", "\u2264" },
    { "ge", "\u2265" }, { "geq", "\u2265" }, { "infty", "\u221e" }, { "ell", "\u2113" },
    { "log", "log" }, { "exp", "exp" }, { "min", "min" }, { "max", "max" }, { "sqrt", "\u221a" },
};

/* Renders the math s[0..n) into out; returns how much of s it read: all
 * of it, or (for a ^/_ argument, one=true) one item. */
static size_t math(const char *s, size_t n, bool one, buf *out)
{
    size_t i = 0;
    while (i < n) {
        char c = s[i];
        if (c == '{') {
            int depth = 1;
            size_t j = i + 1;
            while (j < n && depth)
                depth += s[j] == '{' ? 1 : s[j] == '}' ? -1 : 0, j++;
            math(s + i + 1, (j - i - 1) - (depth == 0), false, out);
            i = j;
        } else if (c == '^' || c == '_') {
            buf_puts(out, c == '^' ? "<sup>" : "<sub>");
            i++;
            while (i < n && s[i] == ' ')
                i++;
            i += math(s + i, n - i, true, out);
            buf_puts(out, c == '^' ? "</sup>" : "</sub>");
        } else if (c == '\\') {
            size_t j = i + 1;
            while (j < n && ((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z')))
                j++;
            if (j == i + 1 && j < n)
                j++; /* \{, \, */
            const char *text = NULL;
            for (size_t k = 0; k < sizeof math_cmds / sizeof *math_cmds && !text; k++)
                if (strlen(math_cmds[k].cmd) == j - i - 1 && !memcmp(math_cmds[k].cmd, s + i + 1, j - i - 1))
                    text = math_cmds[k].text;
            if (text)
                buf_puts(out, text);
            else if (j == i + 2 && strchr("{}%$&#_", s[i + 1]))
                buf_putc(out, s[i + 1]);
            i = j;
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            buf_printf(out, "<i>%c</i>", c);
            i++;
        } else {
            if (c != ' ')
                buf_putc(out, c);
            i++;
        }
        if (one)
            return i;
    }
    return i;
}

/* tex with its $…$ math rendered (as above) and the rest turned into text. */
static void tex_with_math(const char *tex, size_t n, buf *out)
{
    arena *a = arena_new();
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && !(tex[j] == '$' && (j == 0 || tex[j - 1] != '\\')))
            j++;
        /* the text between math, with the blanks at its ends that
         * bib_tex_to_text trims ("Rate {$O(1)$}": "Rate ") */
        const char *t = bib_tex_to_text(a, tex + i, j - i);
        size_t b = i, e = j;
        while (b < e && (tex[b] == '{' || tex[b] == '}'))
            b++;
        while (e > b && (tex[e - 1] == '{' || tex[e - 1] == '}'))
            e--;
        if (i > 0 && b < e && (tex[b] == ' ' || tex[b] == '~') && *t != ' ')
            buf_putc(out, ' ');
        buf_puts(out, t);
        if (j < n && e > b && (tex[e - 1] == ' ' || tex[e - 1] == '~') && (!*t || t[strlen(t) - 1] != ' '))
            buf_putc(out, ' ');
        if (j >= n)
            break;
        size_t k = j + 1;
        while (k < n && !(tex[k] == '$' && tex[k - 1] != '\\'))
            k++;
        if (k >= n) { /* a lone $: text */
            buf_puts(out, bib_tex_to_text(a, tex + j, n - j));
            break;
        }
        buf_puts(out, "<span class=\"nocase\">");
        math(tex + j + 1, k - j - 1, false, out);
        buf_puts(out, "</span>");
        i = k + 1;
    }
    arena_free(a);
}

static bool has_math(const char *raw)
{
    for (const char *p = raw; (p = strchr(p, '$')); p++)
        if (p == raw || p[-1] != '\\')
            return strchr(p + 1, '$') != NULL;
    return false;
}

/* The field name's text, in sentence case when e is English, its math
 * rendered; NULL when absent. The result is in out (reset first) or the
 * field's own text. */
static const char *title_field(const bib_entry *e, const char *doc_lang, const char *name, buf *out)
{
    for (size_t i = 0; i < e->nfields; i++) {
        const bib_field *f = &e->fields[i];
        if (strcmp(f->name, name) || !*f->text)
            continue;
        bool eng = english(e, doc_lang), m = f->raw && has_math(f->raw);
        if (!f->raw || (!eng && !m))
            return f->text;
        buf tex = BUF_INIT;
        if (eng)
            sentence_case_tex(f->raw, &tex);
        else
            buf_puts(&tex, f->raw);
        buf_reset(out);
        tex_with_math(tex.data, tex.len, out);
        buf_release(&tex);
        return out->data;
    }
    return NULL;
}

/* ---- the item ---- */

static bool is_arxiv(const bib_entry *e)
{
    const char *ap = first(e, (const char *const[]){ "archiveprefix", "eprinttype", NULL });
    return ap && !strcasecmp(ap, "arxiv") && field(e, "eprint");
}

/* A DOI without its resolver (https://doi.org/10.1/x → 10.1/x). */
static const char *bare_doi(const char *doi)
{
    static const char *const prefixes[] = { "https://doi.org/", "http://doi.org/", "https://dx.doi.org/",
                                            "http://dx.doi.org/", "doi:", NULL };
    for (const char *const *p = prefixes; *p; p++)
        if (!strncasecmp(doi, *p, strlen(*p)))
            return doi + strlen(*p);
    return doi;
}

static void var(buf *out, const char *name, const char *value)
{
    if (!value)
        return;
    buf_printf(out, ",\"%s\":", name);
    str(out, value);
}

void bib_csl_json(const bib_entry *e, const char *doc_lang, buf *out)
{
    if (e->csl) { /* read from CSL-JSON: as written */
        buf_puts(out, e->csl);
        return;
    }
    const char *type = "", *genre = NULL;
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (!strcmp(e->type, types[i].bib)) {
            type = types[i].csl;
            genre = types[i].genre;
            break;
        }
    buf_puts(out, "{\"id\":");
    str(out, e->key);
    buf_puts(out, ",\"type\":");
    str(out, type);
    buf t = BUF_INIT;
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        if (!strcmp(plain[i].csl, "title") || !strcmp(plain[i].csl, "collection-title")) {
            var(out, plain[i].csl, title_field(e, doc_lang, plain[i].bib[0], &t));
            continue;
        }
        if (!strcmp(plain[i].csl, "container-title") && !field(e, "journaltitle") && !field(e, "journal")) {
            var(out, plain[i].csl, title_field(e, doc_lang, "booktitle", &t));
            continue;
        }
        if (!strcmp(plain[i].csl, "issue") && !number_is_issue(type)) {
            var(out, "number", field(e, "number"));
            continue;
        }
        const char *const *b = plain[i].bib;
        var(out, plain[i].csl, first(e, b));
    }
    var(out, "genre", field(e, "type") ? field(e, "type") : genre);
    /* who publishes: the school of a thesis, the institution of a report,
     * the organization of a manual; howpublished for the rest */
    var(out, "publisher",
        first(e, (const char *const[]){ "publisher", "school", "institution", "organization", "howpublished", NULL }));
    const char *pages = field(e, "pages");
    if (pages) { /* 1--12 reads 1–12 already (bib/tex.c): CSL wants a hyphen */
        buf b = BUF_INIT;
        for (const char *p = pages; *p; p++) {
            if (!strncmp(p, "\u2013", 3) || !strncmp(p, "\u2014", 3)) {
                buf_putc(&b, '-');
                p += 2;
            } else {
                buf_putc(&b, *p);
            }
        }
        var(out, "page", b.data);
        buf_release(&b);
    }
    const char *doi = field(e, "doi");
    var(out, "DOI", doi ? bare_doi(doi) : NULL);
    const char *url = field(e, "url");
    if (!url && is_arxiv(e)) {
        buf u = BUF_INIT;
        buf_printf(&u, "https://arxiv.org/abs/%s", field(e, "eprint"));
        var(out, "URL", u.data);
        buf_release(&u);
    } else {
        var(out, "URL", url);
    }
    names(out, "author", e->authors, e->nauthors);
    names(out, "editor", e->editors, e->neditors);
    issued(out, e);
    const char *urldate = field(e, "urldate");
    if (urldate)
        date(out, "accessed", urldate);
    var(out, "language", bib_csl_language(e));
    buf_putc(out, '}');
    buf_release(&t);
}
