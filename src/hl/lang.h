/* hl/lang.h: the language definitions the highlighter runs on, as C data.
 *
 * They are not written by hand: tools/hl/hljs_tool runs highlight.js (from
 * Debian's libjs-highlight.js) in Duktape at build time, lets it compile each
 * language and writes the compiled modes out (tools/hl/dump.js), with every
 * regex already translated to PCRE2 syntax. src/hl/hl.c runs highlight.js
 * 9.18's algorithm over them. Internal to hl/. */
#ifndef SHEAF_HL_LANG_H
#define SHEAF_HL_LANG_H

#include <stdbool.h>
#include <stddef.h>

enum {
    HL_ENDS_WITH_PARENT = 1 << 0,
    HL_ENDS_PARENT = 1 << 1,
    HL_RETURN_BEGIN = 1 << 2,
    HL_EXCLUDE_BEGIN = 1 << 3,
    HL_RETURN_END = 1 << 4,
    HL_EXCLUDE_END = 1 << 5,
    HL_SKIP = 1 << 6,
    HL_END_SAME_AS_BEGIN = 1 << 7,
    HL_HAS_KEYWORDS = 1 << 8, /* mode.keywords is set (even if empty) */
    HL_SUB_TRUTHY = 1 << 9,   /* mode.subLanguage is truthy in JavaScript */
};

enum { HL_SUB_NONE, HL_SUB_EXPLICIT, HL_SUB_AUTO };

/* rule targets besides a mode index */
enum { HL_RULE_END = -1, HL_RULE_ILLEGAL = -2 };

typedef struct hl_keyword {
    const char *word; /* sorted by strcmp within a mode */
    int cls;          /* index in hl_class_names */
    double relevance;
} hl_keyword;

typedef struct hl_sub {
    const char *name; /* as the mode names it (the span's class) */
    int lang;         /* index in hl_languages */
} hl_sub;

typedef struct hl_mode {
    int cls;             /* index in hl_class_names, or -1 */
    const char *term;    /* the terminators: one PCRE2 pattern, or NULL */
    const int *rules;    /* pairs (capture group, target): a mode index of
                            this language, HL_RULE_END or HL_RULE_ILLEGAL */
    unsigned nrules;
    const char *end;     /* endRe, or NULL */
    const char *lexemes; /* the keyword lexeme regex */
    const hl_keyword *keywords;
    unsigned nkeywords;
    int starts;          /* mode index, or -1 */
    int sub;             /* HL_SUB_* */
    const char *sub_name; /* HL_SUB_EXPLICIT: the name as written */
    int sub_lang;        /* HL_SUB_EXPLICIT: its language, or -1 (plain) */
    const hl_sub *subs;  /* HL_SUB_AUTO: the candidates */
    unsigned nsubs;
    double relevance;
    unsigned flags;      /* HL_* */
} hl_mode;

typedef struct hl_language {
    const char *name;
    const char *const *aliases; /* NULL-terminated */
    const hl_mode *modes;       /* modes[0] is the language itself */
    size_t nmodes;
    bool case_insensitive;
    bool exposed; /* asked for at build time (else only a sub-language) */
    bool usable;  /* every regex of it and its sub-languages compiled */
} hl_language;

extern const char *const hl_class_names[];
extern const hl_language hl_languages[];
extern const size_t hl_language_count;
extern const char *const hl_left_out[]; /* NULL-terminated */

#endif
