/* words: the keys the search index finds a text by, and a set that keeps
 * each key of a document once.
 *
 * The one rule for search keys: words of spaced scripts lower-cased (a word
 * cut after WORDS_KEY_MAX bytes), CJK text as overlapping character bigrams
 * (a lone CJK character as itself), so a query of any length finds text
 * without word boundaries. The build makes each page's keys on the thread
 * that rendered its Markdown (site/links.c) and a build session keeps them
 * with the Markdown; the search index (render/search.c) only merges them.
 *
 * A set's keys come out packed in one byte string, each key as
 *     [length: 1 byte][where: 1 byte][length bytes of UTF-8]
 * in the order first met, each key once with the highest `where` it was
 * added with (the caller's ranking of places: text, heading, title…). */
#ifndef SHEAF_WORDS_H
#define SHEAF_WORDS_H

#include <stddef.h>

#include "util/buf.h"

#define WORDS_KEY_MAX 32 /* bytes of a word kept in its key */

/* Where a key is found in a page, ranked: the search index keeps the best
 * place of each key (tags count as headings). */
enum { WORDS_IN_TEXT, WORDS_IN_HEADING, WORDS_IN_TITLE };

typedef struct words_set words_set;

words_set *words_set_new(void);
void words_set_free(words_set *w);
/* Adds the keys of text[0..n) (any bytes; invalid UTF-8 separates words)
 * found in place `where` (0–255). */
void words_set_add(words_set *w, const char *text, size_t n, int where);
/* Appends the set's keys, packed, to out and empties the set for the next
 * document. */
void words_set_take(words_set *w, buf *out);

/* Walks packed keys: call with *at = 0; each call gives the next key
 * (not NUL-terminated) and returns 0 at the end. */
static inline size_t words_next(const char *packed, size_t len, size_t *at, const char **key, int *where)
{
    if (*at + 2 > len)
        return 0;
    size_t n = (unsigned char)packed[*at];
    *where = (unsigned char)packed[*at + 1];
    *key = packed + *at + 2;
    *at += 2 + n;
    return n;
}

#endif
