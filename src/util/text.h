/* text: Unicode-aware helpers shared by every stage — slugs (for URLs,
 * heading ids and tag pages alike), word counts and UTF-8 validation.
 * Unicode categories come from libutf8proc. */
#ifndef SHEAF_TEXT_H
#define SHEAF_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* The longest slug, in bytes. A longer one keeps its first bytes (up to
 * TEXT_SLUG_MAX - 9, cut between characters, no '-' at the end) and ends in
 * '-' and 8 hex digits of the FNV-1a hash of the whole slug, so it fits a
 * file name (with room for sheaf new post's date prefix and ".md"), stays
 * distinct from other long slugs, and slugs to itself again. */
#define TEXT_SLUG_MAX 200

/* Appends the slug of s[0..n) to out: lower-cased; letters and digits of any
 * script kept (CJK as is); every run of other characters becomes one '-';
 * no leading or trailing '-'; at most TEXT_SLUG_MAX bytes (see above).
 * Invalid UTF-8 bytes count as "other". An input with no letters or digits
 * gives the empty string. The one slug rule: page paths, tag pages, heading
 * ids, the slugify filter and sheaf new post's file names all use it. */
void text_slugify(buf *out, const char *s, size_t n);
/* text_slugify of an all-ASCII s, written to d, which has room for n + 16
 * bytes (the slug is never longer than n; the bytes past it may be
 * scribbled on: it copies whole blocks); returns its length. No NUL is
 * added. */
size_t text_slugify_ascii(char *d, const char *s, size_t n);
/* Hugo's path rule (its urlize, without the escaping): letters, digits
 * (Unicode's Nd), marks and . / \\ _ # + ~ - @ kept, a '%' too before two
 * hex digits; each run of white space after something kept becomes one
 * '-' (none after a '-'); every other character is dropped; lower-cased
 * (Unicode) with lower. "Euler's number" → "eulers-number", "c++" stays,
 * "Career / work" → "career-/-work". Appended to out. */
void text_hugo_path(buf *out, const char *s, size_t n, bool lower);
/* Words in plain text: each CJK character (Han, Hiragana, Katakana, Hangul)
 * counts as one word; other text counts whitespace-separated runs. */
size_t text_word_count(const char *s, size_t n);
/* text_word_count, also storing in *cjk (may be NULL) how many of the words
 * are CJK characters (they are read at another rate: reading time). */
size_t text_word_count_cjk(const char *s, size_t n, size_t *cjk);
/* What text_next_char finds: a separator, a letter or digit of a spaced
 * script (part of a word), a CJK character (a word by itself). */
enum { TEXT_CHAR_OTHER, TEXT_CHAR_WORD, TEXT_CHAR_CJK };
/* Decodes the character at s[i..n) into *cp, lower-cased, and its class
 * into *cls (the search index's rule); returns its length in bytes. An
 * invalid byte is one TEXT_CHAR_OTHER byte (*cp = -1). */
size_t text_next_char(const char *s, size_t n, size_t i, int32_t *cp, int *cls);
/* The length in bytes of the emoji s starts with (one grapheme cluster:
 * a pictograph with its modifiers and joined pictographs, or a flag), or
 * 0 when s does not start with one. "☀️ Hello" → 6. */
size_t text_leading_emoji(const char *s, size_t n);
/* Returns the byte offset of the first invalid UTF-8 sequence in s[0..n), or
 * (size_t)-1 when all of it is valid. */
size_t text_utf8_check(const char *s, size_t n);

/* The text formats sheaf writes, for what each may hold (text_format_*). */
typedef enum text_format { TEXT_PLAIN, TEXT_HTML, TEXT_XML, TEXT_JSON } text_format;

/* The format of an output file by its name: .html/.htm → HTML, .xml →
 * XML, .json → JSON, anything else plain text. */
text_format text_format_of(const char *name);

/* The offset of the first byte of s[0..n) that a file of format f cannot
 * hold, or n. Every format: invalid UTF-8 (a lone 0xFE, a cut sequence, an
 * overlong form, a surrogate). HTML also: the controls other than tab,
 * line feed, form feed and carriage return (C0, DEL, C1) and the
 * noncharacters (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF) — what the HTML5
 * syntax forbids; XML: the C0 controls other than tab, line feed and
 * carriage return, U+FFFE and U+FFFF (XML 1.0's Char); JSON: the C0
 * controls other than tab, line feed and carriage return (a JSON writer
 * escapes them in strings; raw, they are not JSON). */
size_t text_format_bad(const char *s, size_t n, text_format f);

/* Appends s[0..n) to out with each character f cannot hold replaced by
 * U+FFFD, and each invalid UTF-8 sequence by one U+FFFD per maximal
 * subpart (the WHATWG decoder's rule, as an HTML5 browser reads it). */
void text_format_fix(buf *out, const char *s, size_t n, text_format f);

/* Edit distance between two strings (bytes): insertions, deletions,
 * substitutions and swaps of two neighbours ("biuld") count one each;
 * (size_t)-1 when either is longer than 200 bytes. */
size_t text_edit_distance(const char *a, const char *b);
/* Is a candidate at distance `dist` from `want` close enough to suggest?
 * (a third of want's length, at least 2; 1 for names of up to 4 bytes) */
bool text_close_enough(const char *want, size_t dist);

/* "Did you mean": every candidate goes through text_near_try; then
 * text_near_best is the nearest when it is close enough, else NULL.
 * (Ties: the first tried.) */
typedef struct text_near {
    const char *typed;
    const char *best;
    size_t dist;
} text_near;
#define TEXT_NEAR(typed) ((text_near){ (typed), NULL, (size_t)-1 })
void text_near_try(text_near *n, const char *candidate);
const char *text_near_best(const text_near *n);

#endif
