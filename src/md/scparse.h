/* md/scparse.h: one shortcode tag, Hugo's syntax — the grammar of the
 * shortcodes extension (md/shortcode.c), kept apart from cmark-gfm so it
 * can be tested and fuzzed on its own.
 *
 *   {{< name arg arg … >}}     its inner text (when paired) is raw
 *   {{% name arg arg … %}}     its inner text is Markdown
 *   {{< /name >}}  {{% /name %}}   closes a pair
 *   {{< name … />}}            self-closing (never paired)
 *   {{<  …  >}} holding a C-style comment (slash-star … star-slash) right
 *                              inside the marks: not a shortcode; the tag is
 *                              shown as written, without the comment marks
 *                              (to document shortcodes)
 *
 * A name is letters, digits, `_` and `-`, in parts separated by `/`
 * (`{{< blog/figure >}}`). An argument is `key=value` (named; a key is a
 * letter or `_` then letters, digits, `_`, `-`) or a value alone
 * (positional); a value is "double-quoted" (`\"` and `\\` are escapes,
 * other backslashes stay), `back-quoted` (raw, no escapes) or bare (up
 * to the next space, quote or the closing mark). Spaces and line breaks
 * separate everything; a tag ends with the mark it opened with. */
#ifndef SHEAF_MD_SCPARSE_H
#define SHEAF_MD_SCPARSE_H

#include <stdbool.h>
#include <stddef.h>

#define MD_SC_MAX_ARGS 64
/* The longest a tag may be, from `{{<` to `>}}` (a longer one is read as
 * unclosed): so reading one tag costs at most this much, however much text
 * follows, and many unclosed tags on a page stay linear. */
#define MD_SC_MAX_TAG 65536
/* The most tags one page may hold (docs/internals.md, "Budgets"); more is
 * an error at the first one past it, and the rest stay text. */
#define MD_SC_MAX_PER_PAGE 1000

typedef struct md_sc_arg {
    const char *key; /* NULL: positional */
    size_t key_len;
    const char *val; /* as written, quotes excluded: see md_sc_value */
    size_t val_len;
    char quote;      /* 0 (bare), '"' or '`' */
    size_t at;       /* offset of the argument in the tag */
} md_sc_arg;

typedef struct md_sc_tag {
    char mark;          /* '<' or '%' */
    bool closing;       /* {{< /name >}} */
    bool self_closing;  /* {{< name />}} */
    bool escaped;       /* a comment inside the marks */
    const char *name;
    size_t name_len;
    md_sc_arg args[MD_SC_MAX_ARGS];
    size_t nargs;
    size_t len;         /* bytes of the whole tag */
} md_sc_tag;

typedef enum md_sc_status { MD_SC_NONE, MD_SC_OK, MD_SC_ERROR } md_sc_status;

/* Reads a tag at s (n bytes from there). MD_SC_NONE when s does not start
 * with `{{<` or `{{%`; MD_SC_OK with *t filled (pointers into s); or
 * MD_SC_ERROR with *error (static text) and *error_at (offset in s). */
md_sc_status md_sc_parse(const char *s, size_t n, md_sc_tag *t, const char **error,
                         size_t *error_at);

/* The value of an argument with its escapes undone, into out (which holds
 * at least a->val_len + 1 bytes); returns its length. */
size_t md_sc_value(const md_sc_arg *a, char *out);

/* Where the tag closing `name` (a `{{< /name >}}` or `{{% /name %}}` with
 * `mark`) is in s, skipping pairs of the same name opened in between:
 * its offset and *len, or (size_t)-1 when there is none. */
size_t md_sc_find_close(const char *s, size_t n, char mark, const char *name, size_t name_len,
                        size_t *len);

/* Every raw pair of s[0..n) (`{{< name >}}` … `{{< /name >}}`) in one
 * pass, as md_sc_find_close pairs them from each opening tag: the tags
 * are read from s on, each closing tag closes the nearest open one of its
 * name. *out (malloc'ed, the caller frees) gets one md_sc_pair for each
 * opening `{{<` tag read, in the order written; returns how many. */
typedef struct md_sc_pair {
    size_t open;        /* offset of the opening tag */
    size_t open_len;
    size_t close;       /* offset of its closing tag, or (size_t)-1 */
    size_t close_len;
    const char *name;   /* the opening tag's name (in s) */
    size_t name_len;
} md_sc_pair;
size_t md_sc_pairs(const char *s, size_t n, md_sc_pair **out);

#endif
