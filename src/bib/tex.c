/* bib/tex.c: the TeX of .bib fields → plain Unicode text.
 *
 * What real bibliographies hold: accent commands in their three spellings
 * (`\"u`, `\"{u}`, `{\"u}`), letters that are commands (`\ss`, `\o`,
 * `\aa`, `\l`, `\i`), escaped specials (`\&`, `\%`, `\$`), braces that
 * protect case (`{SGD}`), TeX ligatures for dashes and quotes, `~`, and
 * text commands (`\emph{x}`, `\textsc{x}`). An accent is written as the
 * base letter followed by the combining mark, then the whole text is
 * normalised (NFC), so `\"u` is the one character ü. The TeX logos
 * (`\TeX`, `\LaTeX`) are their names; a sort key (`\noopsort{a}`) goes.
 * Anything else — an unknown command — loses its backslash and name and
 * keeps its argument: the reader sees the words, never TeX. */
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "bib/bib.h"
#include "util/buf.h"

/* Accent commands: the character after the backslash → combining mark. */
static const struct {
    char c;
    unsigned mark;
} accents[] = {
    { '"', 0x308 }, { '\'', 0x301 }, { '`', 0x300 }, { '^', 0x302 }, { '~', 0x303 },
    { '=', 0x304 }, { '.', 0x307 }, { 'u', 0x306 }, { 'v', 0x30C }, { 'H', 0x30B },
    { 'c', 0x327 }, { 'k', 0x328 }, { 'r', 0x30A }, { 'd', 0x323 }, { 'b', 0x331 },
};

/* Letters and symbols that are commands. */
static const struct {
    const char *name;
    const char *text;
} letters[] = {
    { "AA", "Å" }, { "AE", "Æ" }, { "L", "Ł" }, { "O", "Ø" }, { "OE", "Œ" },
    { "aa", "å" }, { "ae", "æ" }, { "dag", "†" }, { "i", "ı" }, { "j", "ȷ" },
    { "l", "ł" }, { "ldots", "…" }, { "o", "ø" }, { "oe", "œ" }, { "ss", "ß" },
    { "textemdash", "—" }, { "textendash", "–" }, { "textquotedblleft", "“" },
    { "textquotedblright", "”" }, { "dots", "…" }, { "S", "§" }, { "P", "¶" },
    { "copyright", "©" }, { "pounds", "£" }, { "euro", "€" },
    { "textquoteleft", "‘" }, { "textquoteright", "’" }, { "textellipsis", "…" },
    { "textbullet", "•" }, { "textdegree", "°" }, { "textregistered", "®" },
    { "texttrademark", "™" }, { "textbackslash", "\\" }, { "textasciitilde", "~" },
    { "textunderscore", "_" }, { "textbar", "|" }, { "textless", "<" }, { "textgreater", ">" },
    { "guillemotleft", "«" }, { "guillemotright", "»" }, { "guillemetleft", "«" },
    { "guillemetright", "»" },
    /* the logos titles are full of: The {\TeX}book, {\LaTeX} */
    { "TeX", "TeX" }, { "LaTeX", "LaTeX" }, { "LaTeXe", "LaTeX2ε" }, { "BibTeX", "BibTeX" },
    { "XeTeX", "XeTeX" }, { "LuaTeX", "LuaTeX" }, { "ConTeXt", "ConTeXt" },
};

/* Commands whose argument is not text: the sort keys of the
 * `@preamble{"\newcommand{\noopsort}[1]{}"}` idiom. They go with it. */
static const char *const drop_arg[] = { "noopsort", "SortNoop", "sortnoop" };

static void put_utf8(buf *b, unsigned cp)
{
    utf8proc_uint8_t tmp[4];
    utf8proc_ssize_t n = utf8proc_encode_char((utf8proc_int32_t)cp, tmp);
    buf_put(b, tmp, (size_t)n);
}

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* The argument of an accent at s[*i]: `{x}`, `x`, `{\i}` or `\i`; writes
 * it and moves *i past it. */
static void put_accent_arg(buf *b, const char *s, size_t n, size_t *i)
{
    size_t j = *i;
    while (j < n && s[j] == ' ')
        j++;
    bool braced = j < n && s[j] == '{';
    if (braced)
        j++;
    if (j < n && s[j] == '\\' && j + 1 < n && (s[j + 1] == 'i' || s[j + 1] == 'j')
        && !(j + 2 < n && is_alpha(s[j + 2]))) {
        buf_putc(b, s[j + 1]); /* a dotless i under an accent is an i */
        j += 2;
    } else if (j < n && s[j] != '}') {
        size_t len = 1;
        unsigned char c = (unsigned char)s[j];
        if (c >= 0xC0)
            while (j + len < n && ((unsigned char)s[j + len] & 0xC0) == 0x80)
                len++;
        buf_put(b, s + j, len);
        j += len;
    }
    if (braced) {
        while (j < n && s[j] == ' ')
            j++;
        if (j < n && s[j] == '}')
            j++;
    }
    *i = j;
}

const char *bib_tex_to_text(arena *a, const char *s, size_t n)
{
    buf b = BUF_INIT;
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c == '$' && i + 3 < n && s[i + 1] == '\\' && (s[i + 2] == '{' || s[i + 2] == '}') &&
            s[i + 3] == '$') {
            i += 4; /* Google Scholar's `$\{$USENIX$\}$`: case protection, not braces */
        } else if (c == '{' || c == '}' || c == '$') {
            i++;
        } else if (c == '~') {
            buf_puts(&b, "\u00a0");
            i++;
        } else if (c == '-' && i + 1 < n && s[i + 1] == '-') {
            bool em = i + 2 < n && s[i + 2] == '-';
            buf_puts(&b, em ? "—" : "–");
            i += em ? 3 : 2;
        } else if (c == '`' && i + 1 < n && s[i + 1] == '`') {
            buf_puts(&b, "“");
            i += 2;
        } else if (c == '\'' && i + 1 < n && s[i + 1] == '\'') {
            buf_puts(&b, "”");
            i += 2;
        } else if (c == '\\' && i + 1 == n) {
            i++;
        } else if (c == '\\') {
            char d = s[i + 1];
            size_t k = 0;
            for (; k < sizeof accents / sizeof *accents; k++)
                if (accents[k].c == d)
                    break;
            /* A letter accent (\u, \v, \c, …) is an accent only when no
             * letter follows it: \url, \cite are commands. */
            if (k < sizeof accents / sizeof *accents
                && (!is_alpha(d) || !(i + 2 < n && is_alpha(s[i + 2])))) {
                i += 2;
                put_accent_arg(&b, s, n, &i);
                put_utf8(&b, accents[k].mark);
                continue;
            }
            if (!is_alpha(d)) { /* \& \% \$ \# \_ \{ \} \\ and "\ " */
                if (d == '\\')
                    buf_putc(&b, ' ');
                else
                    buf_putc(&b, d);
                i += 2;
                continue;
            }
            size_t j = i + 1;
            while (j < n && is_alpha(s[j]))
                j++;
            size_t len = j - (i + 1);
            const char *text = NULL;
            for (k = 0; k < sizeof letters / sizeof *letters; k++)
                if (strlen(letters[k].name) == len && !memcmp(letters[k].name, s + i + 1, len))
                    text = letters[k].text;
            if (text) {
                buf_puts(&b, text);
                /* `\ss{}` and `\o ` end with an empty group or a space */
                if (j + 1 < n && s[j] == '{' && s[j + 1] == '}')
                    j += 2;
                else if (j < n && s[j] == ' ')
                    j++;
            }
            /* An unknown command goes; its argument (if any) stays. */
            else if (j < n && s[j] == ' ')
                j++;
            for (k = 0; !text && j < n && s[j] == '{' && k < sizeof drop_arg / sizeof *drop_arg; k++) {
                if (strlen(drop_arg[k]) != len || memcmp(drop_arg[k], s + i + 1, len))
                    continue;
                int depth = 0; /* skip the braced argument */
                do {
                    depth += s[j] == '{' ? 1 : s[j] == '}' ? -1 : 0;
                    j++;
                } while (j < n && depth > 0);
            }
            i = j;
        } else {
            buf_putc(&b, c);
            i++;
        }
    }
    /* Compose the marks (ASCII is composed already: most fields, a third
     * of reading a large .bib went to utf8proc_map); collapse runs of
     * spaces. */
    bool ascii = true;
    for (size_t i = 0; i < b.len && ascii; i++)
        ascii = (unsigned char)b.data[i] < 0x80;
    utf8proc_uint8_t *nfc = NULL;
    const char *out;
    if (b.len && !ascii && utf8proc_map((const utf8proc_uint8_t *)b.data, (utf8proc_ssize_t)b.len, &nfc,
                              UTF8PROC_COMPOSE | UTF8PROC_STABLE) >= 0) {
        out = (const char *)nfc;
    } else {
        out = b.len ? b.data : "";
    }
    buf clean = BUF_INIT;
    bool space = true;
    for (const char *p = out; *p; p++) {
        bool ws = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
        if (ws) {
            if (!space)
                buf_putc(&clean, ' ');
            space = true;
        } else {
            buf_putc(&clean, *p);
            space = false;
        }
    }
    while (clean.len && clean.data[clean.len - 1] == ' ')
        clean.len--;
    const char *r = arena_strndup(a, clean.len ? clean.data : "", clean.len);
    free(nfc);
    buf_release(&clean);
    buf_release(&b);
    return r;
}
