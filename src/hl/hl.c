/* hl.c: highlight.js 9.18's highlight() in C, over the compiled modes of
 * hl/lang.h, with PCRE2 for the regexes.
 *
 * The algorithm, as highlight.js runs it: a stack of modes, the language at
 * the bottom. Each mode has one "terminators" regex: its children's begins,
 * its own end and its illegal, as alternatives. From the current position
 * we search it; the text before the match goes into the mode buffer, and the
 * match begins a child, ends the mode (and the ones it ends with) or is
 * illegal. When the buffer is flushed its text is highlighted as keywords
 * (lexeme regex, keyword table) or as another language (subLanguage). Names
 * in comments (doBeginMatch, processBuffer…) are highlight.js's, so the two
 * can be read side by side; every quirk is kept, since the output must be
 * highlight.js's byte for byte.
 *
 * Where highlight.js would loop forever or throw, this gives up: the run
 * counts as an error, which (as in highlight.js's safe mode) makes its
 * output the code escaped. */
#include "hl/hl.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "hl/lang.h"
#include "util/text.h"
#include "util/xalloc.h"

enum { MAX_SUB_DEPTH = 32, MAX_STACK = 4096 };

/* ---- compiled regexes, made on first use ---- */

typedef struct mode_rt {
    pcre2_code *term, *end, *lex;
    uint32_t groups; /* capture groups of term */
    bool broken;     /* a regex did not compile */
} mode_rt;

typedef struct lang_rt {
    mode_rt *modes;
    _Atomic(unsigned char) *ready; /* per mode */
} lang_rt;

static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(lang_rt *) rt_langs;

static pcre2_code *compile(const char *pat, bool caseless, bool *broken)
{
    if (!pat)
        return NULL;
    int err;
    PCRE2_SIZE off;
    uint32_t opt = PCRE2_UTF | PCRE2_MATCH_UNSET_BACKREF | PCRE2_NEVER_BACKSLASH_C |
                   PCRE2_USE_OFFSET_LIMIT | (caseless ? PCRE2_CASELESS : 0);
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, opt, &err, &off, NULL);
    if (!re) {
        *broken = true;
        return NULL;
    }
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* without a JIT it still works */
    return re;
}

static const mode_rt *mode_get(int lang, int m)
{
    lang_rt *all = atomic_load_explicit(&rt_langs, memory_order_acquire);
    if (!all) {
        pthread_mutex_lock(&rt_lock);
        all = atomic_load_explicit(&rt_langs, memory_order_relaxed);
        if (!all) {
            all = xcalloc(hl_language_count, sizeof *all);
            for (size_t i = 0; i < hl_language_count; i++) {
                all[i].modes = xcalloc(hl_languages[i].nmodes, sizeof *all[i].modes);
                all[i].ready = xcalloc(hl_languages[i].nmodes, sizeof *all[i].ready);
            }
            atomic_store_explicit(&rt_langs, all, memory_order_release);
        }
        pthread_mutex_unlock(&rt_lock);
    }
    lang_rt *L = &all[lang];
    if (!atomic_load_explicit(&L->ready[m], memory_order_acquire)) {
        pthread_mutex_lock(&rt_lock);
        if (!atomic_load_explicit(&L->ready[m], memory_order_relaxed)) {
            const hl_mode *d = &hl_languages[lang].modes[m];
            bool ci = hl_languages[lang].case_insensitive;
            mode_rt *r = &L->modes[m];
            r->term = compile(d->term, ci, &r->broken);
            r->end = compile(d->end, ci, &r->broken);
            r->lex = compile(d->lexemes, ci, &r->broken);
            if (r->term)
                pcre2_pattern_info(r->term, PCRE2_INFO_CAPTURECOUNT, &r->groups);
            atomic_store_explicit(&L->ready[m], 1, memory_order_release);
        }
        pthread_mutex_unlock(&rt_lock);
    }
    return &L->modes[m];
}

/* ---- one highlight() call ---- */

enum { ST_OK = 0, ST_ERROR = 1, ST_ILLEGAL = 2 };
enum { T_NONE, T_BEGIN, T_END, T_ILLEGAL };

/* What the last searches of one terminators regex over the run's code
 * found (guard_callout): in each, no alternative matched at [from, at),
 * and none numbered below `group` at `at` — group 0 with at past the
 * code's end when nothing matched. A guard looks at most HL_MEMO_BACK
 * positions back, and each search starts past the one before, so the last
 * HL_MEMO_BACK searches are all it can need. */
enum { HL_MEMOS = 8, HL_MEMO_BACK = 4 };

typedef struct memo {
    const pcre2_code *re; /* NULL: an empty slot */
    struct {
        size_t from, at;
        uint32_t group;
    } last[HL_MEMO_BACK];
    unsigned n; /* searches recorded (the last HL_MEMO_BACK kept) */
} memo;

typedef struct shared {
    pcre2_match_data *md;
    pcre2_match_context *mc; /* its offset limit bounds where a match may start */
    uint32_t md_pairs;
    int depth; /* of sub-language calls */
    size_t from; /* where the current search began (guard_callout) */
    const memo *known; /* what the current search's regex found before, or NULL */
    /* the runs "C X*" of guard_callout's long form, compiled on first use
     * (keyed by their text in the pattern, which lives as long as it) */
    struct {
        const unsigned char *key;
        pcre2_code *re;
    } runs[16];
    unsigned nruns;
    pcre2_match_data *run_md;
    /* the block's budget, in units of work (see search) */
    unsigned long long work, budget;
    bool over; /* the budget ran out: give up at every level */
} shared;

typedef struct stack {
    int *v;
    size_t n, cap;
} stack;

typedef struct cont {
    const char *name; /* sub-language name, as written in the mode */
    stack top;        /* the mode stack it stopped with */
    bool set;
} cont;

/* the endRe a mode has now: its own regex, another mode's (starts), or a
 * literal (endSameAsBegin) */
typedef struct endre {
    int mode; /* whose regex; -1 for the literal */
    const char *lit;
    size_t litlen;
} endre;

typedef struct result {
    buf value;
    double relevance;
    int status;
    stack top;
} result;

typedef struct run {
    shared *sh;
    int lang;
    const hl_language *L;
    const char *code;
    size_t len;
    bool ignore_illegals;
    stack st;
    buf *out;
    buf mb; /* mode_buffer */
    double relevance;
    cont *conts;
    size_t nconts;
    endre *ends;
    memo memos[HL_MEMOS]; /* the last searches of terminators over code */
    unsigned next_memo;
    int last_type;
    size_t last_index;
} run;

static void stack_push(stack *s, int v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->v = xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = v;
}

static void stack_copy(stack *dst, const stack *src)
{
    dst->n = 0;
    for (size_t i = 0; i < src->n; i++)
        stack_push(dst, src->v[i]);
}

void hl_escape(buf *out, const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rep;
        switch (s[i]) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        default: continue;
        }
        buf_put(out, s + start, i - start);
        buf_puts(out, rep);
        start = i + 1;
    }
    buf_put(out, s + start, n - start);
}

static bool ensure_md(shared *sh, uint32_t groups)
{
    if (!sh->md || sh->md_pairs < groups + 1) {
        pcre2_match_data_free(sh->md);
        sh->md_pairs = groups + 1 < 16 ? 16 : groups + 1;
        sh->md = pcre2_match_data_create(sh->md_pairs, NULL);
    }
    return sh->md != NULL;
}

/* The work of one pcre2_match call, counted without a clock so that the
 * same block gets the same result on any machine. A call may try start
 * positions off..limit (the offset limit) and is given the subject up to
 * `end` only, with PCRE2_PARTIAL_HARD: where some path of the match ran
 * into that end (a character, an assertion, $ or \b there), PCRE2 says
 * "partial" and the call is made again with a window twice as long, up to
 * the whole subject. Otherwise no path looked past `end`, so the result is
 * what the whole subject gives. A call is charged the bytes it was shown
 * from its first start position on. A call over several start positions
 * is only ever shown HL_CHUNK + HL_WINDOW0 bytes: once one says "partial"
 * the search goes on one start position at a time, so a long look is
 * charged for each position it starts from, and a search's time is at
 * most a constant times its charge (backtracking aside, which PCRE2's
 * match limit bounds per call). A pattern such as C++'s function head
 * `[a-zA-Z_]\w*…\(` scans from each position inside an identifier to its
 * end before failing there: over an identifier of n bytes that costs n²/2
 * and is charged as much, so such a block runs out of
 * budget (HL_OVER_BUDGET) instead of running for minutes.
 * Start positions are tried in chunks — HL_CHUNK0 first, doubling to
 * HL_CHUNK — and a short window first, since most searches match close
 * to where they start. */
enum { HL_CHUNK0 = 4, HL_CHUNK = 16, HL_WINDOW0 = 32 };

static bool charge(shared *sh, size_t bytes)
{
    if (sh->over)
        return false;
    sh->work += bytes;
    if (sh->work > sh->budget)
        sh->over = true;
    return !sh->over;
}

/* the next character boundary at or after i */
static size_t boundary(const char *s, size_t len, size_t i)
{
    while (i < len && ((unsigned char)s[i] & 0xc0) == 0x80)
        i++;
    return i;
}

/* The callouts of a terminators regex's start guards (tools/hl/dump.js,
 * "start guards"): (?C"G B") stands where alternative G (its capture
 * group) would start at position k = current_position, right after a run
 * of B characters "C X…" such that a match of G from k would also be a
 * match from q = k - B. It answers 0 ("so it is": the guard fails, G is
 * not tried at k) when G is known to fail at q — q was tried by this
 * search (q >= from: no alternative matched there), or by this regex's
 * last search over the same code (its memo) — and 1 otherwise. */
/* Whether alternative g is known to fail at q by this regex's memo. */
static bool memo_fails(const memo *mm, uint32_t g, size_t q)
{
    for (unsigned i = 0; mm && i < HL_MEMO_BACK && i < mm->n; i++)
        if (q >= mm->last[i].from && (q < mm->last[i].at || (q == mm->last[i].at && g < mm->last[i].group)))
            return true;
    return false;
}

/* The long form, (?C"G 0 R") with R the run "C X*+": is there a position
 * q known to fail for G (the last position each memo record knows, before
 * k) from which R reads exactly up to k? A word of YAML prose ("abcd
 * abcd …") puts the C it starts with more than four positions back. The
 * read is linear in k - q, and q is within the last searches. */
static int run_callout(shared *sh, uint32_t g, const unsigned char *src, size_t k, const pcre2_callout_block *cb)
{
    const memo *mm = sh->known;
    if (!mm)
        return 1;
    pcre2_code *re = NULL;
    for (unsigned i = 0; i < sh->nruns && !re; i++)
        if (sh->runs[i].key == cb->callout_string)
            re = sh->runs[i].re;
    if (!re) {
        if (sh->nruns == sizeof sh->runs / sizeof *sh->runs)
            return 1;
        int err;
        PCRE2_SIZE off;
        re = pcre2_compile(src, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_ANCHORED | PCRE2_ENDANCHORED, &err, &off,
                           NULL);
        if (!re)
            return 1;
        sh->runs[sh->nruns].key = cb->callout_string;
        sh->runs[sh->nruns++].re = re;
    }
    if (!sh->run_md && !(sh->run_md = pcre2_match_data_create(1, NULL)))
        return 1;
    const unsigned char *s = (const unsigned char *)cb->subject;
    for (unsigned i = 0; i < HL_MEMO_BACK && i < mm->n; i++) {
        /* its match's start (where G is before the alternative that
         * matched), then the last position before that or k */
        size_t cand[2], nc = 0, hi = mm->last[i].at < k ? mm->last[i].at : k;
        if (mm->last[i].at < k && g < mm->last[i].group)
            cand[nc++] = mm->last[i].at;
        if (hi > mm->last[i].from) {
            size_t q = hi - 1;
            while (q > mm->last[i].from && (s[q] & 0xc0) == 0x80)
                q--; /* a character's first byte */
            cand[nc++] = q;
        }
        for (size_t c = 0; c < nc; c++) {
            if (!charge(sh, k - cand[c]))
                return 1;
            if (pcre2_match(re, cb->subject, k, cand[c], PCRE2_NO_UTF_CHECK, sh->run_md, NULL) > 0)
                return 0;
        }
    }
    return 1;
}

static int guard_callout(pcre2_callout_block *cb, void *data)
{
    shared *sh = data;
    if (!cb->callout_string)
        return 1;
    const char *t = (const char *)cb->callout_string;
    char *e;
    unsigned long g = strtoul(t, &e, 10), back = strtoul(e, &e, 10);
    size_t k = cb->current_position;
    if (!back && *e == ' ')
        return run_callout(sh, (uint32_t)g, (const unsigned char *)e + 1, k, cb);
    if (!back || back > k)
        return 1;
    size_t q = k - back;
    if (q >= sh->from)
        return 0;
    return memo_fails(sh->known, (uint32_t)g, q) ? 0 : 1;
}

/* 1: match, 0: none, -1: PCRE2 gave up or the budget is spent */
static int search(shared *sh, const pcre2_code *re, uint32_t groups, const char *s, size_t len,
                  size_t off, uint32_t opts)
{
    if (!ensure_md(sh, groups))
        return -1;
    if (!sh->mc) {
        if (!(sh->mc = pcre2_match_context_create(NULL)))
            return -1;
        pcre2_set_match_limit(sh->mc, HL_MATCH_LIMIT);
        pcre2_set_callout(sh->mc, guard_callout, sh);
    }
    sh->from = off;
    size_t chunk = HL_CHUNK0;
    for (;;) {
        size_t limit = opts & PCRE2_ANCHORED ? off : off + chunk - 1;
        if (limit > len)
            limit = len;
        pcre2_set_offset_limit(sh->mc, limit);
        int rc;
        for (size_t window = HL_WINDOW0;; window *= 2) {
            size_t end = limit + window >= len ? len : boundary(s, len, limit + window);
            if (!charge(sh, end - off + 1))
                return -1;
            uint32_t partial = end < len ? PCRE2_PARTIAL_HARD : 0;
            rc = pcre2_match(re, (PCRE2_SPTR)s, end, off, opts | partial | PCRE2_NO_UTF_CHECK,
                             sh->md, sh->mc);
            if (rc != PCRE2_ERROR_PARTIAL)
                break;
            if (limit > off) { /* a long look: one start position at a time */
                limit = off;
                chunk = 1;
                pcre2_set_offset_limit(sh->mc, limit);
            }
        }
        if (rc > 0)
            return 1;
        if (rc != PCRE2_ERROR_NOMATCH)
            return -1;
        if (limit >= len || opts & PCRE2_ANCHORED)
            return 0;
        /* no match starts at or before limit: go on from the next character */
        off = boundary(s, len, limit + 1);
        if (chunk < HL_CHUNK)
            chunk *= 2;
    }
}

static void open_span(buf *out, const char *cls)
{
    buf_puts(out, "<span class=\"hljs-");
    buf_puts(out, cls);
    buf_puts(out, "\">");
}

static const hl_mode *mode_of(const run *r, int m) { return &r->L->modes[m]; }
static const hl_mode *top_mode(const run *r) { return mode_of(r, r->st.v[r->st.n - 1]); }

static int highlight(shared *sh, int lang, const char *code, size_t len, bool ignore_illegals,
                     const stack *continuation, result *res);

static int kw_cmp(const char *a, size_t alen, const char *w)
{
    size_t wlen = strlen(w);
    int c = memcmp(a, w, alen < wlen ? alen : wlen);
    if (c)
        return c;
    return alen < wlen ? -1 : alen > wlen ? 1 : 0;
}

static const hl_keyword *kw_find(const hl_mode *m, const char *s, size_t n)
{
    size_t lo = 0, hi = m->nkeywords;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = kw_cmp(s, n, m->keywords[mid].word);
        if (c == 0)
            return &m->keywords[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* JavaScript's toLowerCase, code point by code point */
static void lower(buf *b, const char *s, size_t n)
{
    buf_reset(b);
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            buf_putc(b, c >= 'A' && c <= 'Z' ? c + 32 : c);
            i++;
            continue;
        }
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(n - i), &cp);
        if (k <= 0) {
            buf_putc(b, c);
            i++;
            continue;
        }
        utf8proc_uint8_t enc[4];
        utf8proc_ssize_t m = utf8proc_encode_char(utf8proc_tolower(cp), enc);
        buf_put(b, enc, (size_t)m);
        i += (size_t)k;
    }
}

/* processKeywords */
static int process_keywords(run *r)
{
    const hl_mode *top = top_mode(r);
    if (!(top->flags & HL_HAS_KEYWORDS)) {
        hl_escape(r->out, r->mb.data, r->mb.len);
        return ST_OK;
    }
    const mode_rt *rt = mode_get(r->lang, r->st.v[r->st.n - 1]);
    if (rt->broken || !rt->lex)
        return ST_ERROR;
    const char *s = r->mb.data;
    size_t n = r->mb.len, last = 0, at = 0;
    buf low = BUF_INIT;
    int status = ST_OK;
    for (;;) {
        int rc = search(r->sh, rt->lex, 0, s, n, at, 0);
        if (rc < 0) {
            status = ST_ERROR;
            break;
        }
        if (rc == 0)
            break;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->sh->md);
        size_t ms = ov[0], me = ov[1];
        if (me == ms) { /* highlight.js would never get past it */
            status = ST_ERROR;
            break;
        }
        hl_escape(r->out, s + last, ms - last);
        const char *w = s + ms;
        size_t wl = me - ms;
        if (r->L->case_insensitive) {
            lower(&low, w, wl);
            w = low.data;
            wl = low.len;
        }
        const hl_keyword *kw = kw_find(top, w, wl);
        if (kw) {
            r->relevance += kw->relevance;
            open_span(r->out, hl_class_names[kw->cls]);
            hl_escape(r->out, s + ms, me - ms);
            buf_puts(r->out, "</span>");
        } else {
            hl_escape(r->out, s + ms, me - ms);
        }
        last = at = me;
    }
    buf_release(&low);
    if (status == ST_OK)
        hl_escape(r->out, s + last, n - last);
    return status;
}

static cont *cont_slot(run *r, const char *name)
{
    for (size_t i = 0; i < r->nconts; i++)
        if (strcmp(r->conts[i].name, name) == 0)
            return &r->conts[i];
    r->conts = xrealloc(r->conts, (r->nconts + 1) * sizeof *r->conts);
    cont *c = &r->conts[r->nconts++];
    memset(c, 0, sizeof *c);
    c->name = name;
    return c;
}

static void result_free(result *res)
{
    buf_release(&res->value);
    free(res->top.v);
}

/* buildSpan(language, value, false, true) */
static void sub_span(buf *out, const char *name, const buf *value)
{
    if (value->len == 0)
        return;
    if (!name || !*name) {
        buf_put(out, value->data, value->len);
        return;
    }
    buf_puts(out, "<span class=\"");
    buf_puts(out, name);
    buf_puts(out, "\">");
    buf_put(out, value->data, value->len);
    buf_puts(out, "</span>");
}

/* processSubLanguage */
static int process_sub(run *r)
{
    const hl_mode *top = top_mode(r);
    if (top->sub == HL_SUB_EXPLICIT) {
        if (top->sub_lang < 0) {
            hl_escape(r->out, r->mb.data, r->mb.len);
            return ST_OK;
        }
        cont *c = cont_slot(r, top->sub_name);
        result res = {BUF_INIT, 0, 0, {0}};
        int st = highlight(r->sh, top->sub_lang, r->mb.data, r->mb.len, true,
                           c->set ? &c->top : NULL, &res);
        if (st == ST_ILLEGAL) { /* cannot happen with ignore_illegals */
            result_free(&res);
            return ST_ERROR;
        }
        if (top->relevance > 0)
            r->relevance += res.relevance;
        stack_copy(&c->top, &res.top);
        c->set = true;
        sub_span(r->out, top->sub_name, &res.value);
        result_free(&res);
        return ST_OK;
    }
    /* highlightAuto */
    const char *best_name = NULL;
    double best_rel = 0;
    buf best = BUF_INIT;
    hl_escape(&best, r->mb.data, r->mb.len);
    for (unsigned i = 0; i < top->nsubs; i++) {
        result cur = {BUF_INIT, 0, 0, {0}};
        highlight(r->sh, top->subs[i].lang, r->mb.data, r->mb.len, false, NULL, &cur);
        if (cur.relevance > best_rel) {
            buf t = best;
            best = cur.value;
            cur.value = t;
            best_rel = cur.relevance;
            best_name = top->subs[i].name;
        }
        result_free(&cur);
    }
    if (top->relevance > 0)
        r->relevance += best_rel;
    sub_span(r->out, best_name, &best);
    buf_release(&best);
    return ST_OK;
}

/* processBuffer */
static int process_buffer(run *r)
{
    int st = top_mode(r)->sub != HL_SUB_NONE ? process_sub(r) : process_keywords(r);
    buf_reset(&r->mb);
    return st;
}

/* startNewMode */
static int start_mode(run *r, int m)
{
    const hl_mode *d = mode_of(r, m);
    if (d->cls >= 0)
        open_span(r->out, hl_class_names[d->cls]);
    if (r->st.n >= MAX_STACK)
        return ST_ERROR;
    stack_push(&r->st, m);
    return ST_OK;
}

typedef struct match {
    int type;
    int rule; /* the mode a begin match starts */
    size_t index, len;
} match;

/* doBeginMatch; returns how far to move, or -1 on error */
static long do_begin(run *r, const match *m)
{
    const char *lexeme = r->code + m->index;
    const hl_mode *nm = mode_of(r, m->rule);
    if (nm->flags & HL_END_SAME_AS_BEGIN)
        r->ends[m->rule] = (endre){-1, lexeme, m->len};
    if (nm->flags & HL_SKIP) {
        buf_put(&r->mb, lexeme, m->len);
    } else {
        if (nm->flags & HL_EXCLUDE_BEGIN)
            buf_put(&r->mb, lexeme, m->len);
        if (process_buffer(r) != ST_OK)
            return -1;
        if (!(nm->flags & (HL_RETURN_BEGIN | HL_EXCLUDE_BEGIN)))
            buf_put(&r->mb, lexeme, m->len);
    }
    if (start_mode(r, m->rule) != ST_OK)
        return -1;
    return (nm->flags & HL_RETURN_BEGIN) ? 0 : (long)m->len;
}

/* testRe(mode.endRe, remainder): does it match at the remainder's start? */
static int test_end(run *r, int m, const char *rest, size_t restlen)
{
    endre e = r->ends[m];
    if (e.mode < 0)
        return e.litlen <= restlen && memcmp(rest, e.lit, e.litlen) == 0;
    if (!mode_of(r, e.mode)->end)
        return 0;
    const mode_rt *rt = mode_get(r->lang, e.mode);
    if (rt->broken)
        return -1;
    return search(r->sh, rt->end, 0, rest, restlen, 0, PCRE2_ANCHORED);
}

/* endOfMode: the stack index of the mode that ends, -1 for none, -2 on
 * error (highlight.js throws a TypeError past the bottom) */
static long end_of_mode(run *r, long i, const char *rest, size_t restlen)
{
    for (;;) {
        if (i < 0)
            return -2;
        int m = r->st.v[i];
        int t = test_end(r, m, rest, restlen);
        if (t < 0)
            return -2;
        if (t) {
            while ((mode_of(r, r->st.v[i])->flags & HL_ENDS_PARENT) && i > 0)
                i--;
            return i;
        }
        if (!(mode_of(r, m)->flags & HL_ENDS_WITH_PARENT))
            return -1;
        i--;
    }
}

/* doEndMatch; returns how far to move, -1 on error, -2 for "undefined" */
static long do_end(run *r, const match *m)
{
    const char *lexeme = r->code + m->index;
    long e = end_of_mode(r, (long)r->st.n - 1, lexeme, r->len - m->index);
    if (e == -2)
        return -1;
    if (e < 0)
        return -2;
    const hl_mode *origin = top_mode(r);
    if (origin->flags & HL_SKIP) {
        buf_put(&r->mb, lexeme, m->len);
    } else {
        if (!(origin->flags & (HL_RETURN_END | HL_EXCLUDE_END)))
            buf_put(&r->mb, lexeme, m->len);
        if (process_buffer(r) != ST_OK)
            return -1;
        if (origin->flags & HL_EXCLUDE_END)
            buf_put(&r->mb, lexeme, m->len);
    }
    int end_mode = r->st.v[e];
    do {
        const hl_mode *t = top_mode(r);
        if (t->cls >= 0)
            buf_puts(r->out, "</span>");
        if (!(t->flags & (HL_SKIP | HL_SUB_TRUTHY)))
            r->relevance += t->relevance;
        r->st.n--;
    } while ((long)r->st.n > e);
    const hl_mode *em = mode_of(r, end_mode);
    if (em->starts >= 0) {
        if (em->flags & HL_END_SAME_AS_BEGIN)
            r->ends[em->starts] = r->ends[end_mode];
        if (start_mode(r, em->starts) != ST_OK)
            return -1;
    }
    return (origin->flags & HL_RETURN_END) ? 0 : (long)m->len;
}

static size_t char_len(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    unsigned char c = (unsigned char)s[0];
    size_t k = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    return k > n ? n : k;
}

/* processLexeme; returns how far to move past the match start, or -1 */
static long process_lexeme(run *r, const char *before, size_t blen, const match *m)
{
    buf_put(&r->mb, before, blen);
    if (!m)
        return process_buffer(r) == ST_OK ? 0 : -1;
    if ((r->last_type == T_BEGIN && m->type == T_END && r->last_index == m->index &&
         m->len == 0) ||
        (r->last_type == T_ILLEGAL && m->len == 0)) {
        /* a zero-width match we would be stuck on: emit one character */
        size_t k = char_len(r->code + m->index, r->len - m->index);
        buf_put(&r->mb, r->code + m->index, k);
        return k ? (long)k : 1;
    }
    r->last_type = m->type;
    r->last_index = m->index;
    if (m->type == T_BEGIN)
        return do_begin(r, m);
    if (m->type == T_ILLEGAL && !r->ignore_illegals)
        return -3;
    if (m->type == T_END) {
        long k = do_end(r, m);
        if (k != -2)
            return k;
    }
    buf_put(&r->mb, r->code + m->index, m->len);
    return (long)m->len;
}

/* the next match of the top mode's terminators at or after `at`: 1, 0 for
 * none, -1 on error */
static int next_match(run *r, size_t at, match *m)
{
    int top = r->st.v[r->st.n - 1];
    const hl_mode *d = mode_of(r, top);
    if (!d->term || at > r->len)
        return 0;
    const mode_rt *rt = mode_get(r->lang, top);
    if (rt->broken)
        return -1;
    /* this regex's memo over this run's code: what its last search found */
    memo *mm = NULL;
    for (unsigned i = 0; i < HL_MEMOS && !mm; i++)
        if (r->memos[i].re == rt->term)
            mm = &r->memos[i];
    if (!mm) {
        mm = &r->memos[r->next_memo++ % HL_MEMOS];
        mm->re = rt->term;
        mm->n = 0;
    }
    r->sh->known = mm;
    int rc = search(r->sh, rt->term, rt->groups, r->code, r->len, at, 0);
    r->sh->known = NULL;
    if (rc < 0) {
        mm->n = 0; /* not searched to the end: nothing learnt */
        return rc;
    }
    unsigned slot = mm->n++ % HL_MEMO_BACK;
    mm->last[slot].from = at;
    if (rc == 0) {
        mm->last[slot].at = r->len + 1;
        mm->last[slot].group = 0;
        return 0;
    }
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->sh->md);
    m->index = ov[0];
    m->len = ov[1] - ov[0];
    for (unsigned i = 0; i < d->nrules; i++) {
        int g = d->rules[2 * i];
        if (ov[2 * g] != PCRE2_UNSET) {
            int t = d->rules[2 * i + 1];
            m->type = t == HL_RULE_END ? T_END : t == HL_RULE_ILLEGAL ? T_ILLEGAL : T_BEGIN;
            m->rule = t;
            mm->last[slot].at = ov[0];
            mm->last[slot].group = (uint32_t)g;
            return 1;
        }
    }
    return -1; /* cannot happen: some alternative matched */
}

static int highlight(shared *sh, int lang, const char *code, size_t len, bool ignore_illegals,
                     const stack *continuation, result *res)
{
    run r = {0};
    r.sh = sh;
    r.lang = lang;
    r.L = &hl_languages[lang];
    r.code = code;
    r.len = len;
    r.ignore_illegals = ignore_illegals;
    r.out = &res->value;
    r.mb = (buf)BUF_INIT;
    r.ends = xmalloc(r.L->nmodes * sizeof *r.ends);
    for (size_t i = 0; i < r.L->nmodes; i++)
        r.ends[i] = (endre){(int)i, NULL, 0};
    int status = ST_OK;
    if (++sh->depth > MAX_SUB_DEPTH) {
        status = ST_ERROR;
        goto done;
    }
    if (continuation && continuation->n) {
        stack_copy(&r.st, continuation);
        for (size_t i = 1; i < r.st.n; i++) {
            const hl_mode *d = mode_of(&r, r.st.v[i]);
            if (d->cls >= 0)
                open_span(r.out, hl_class_names[d->cls]);
        }
    } else {
        stack_push(&r.st, 0);
    }
    size_t index = 0;
    /* a bound on the steps, far above what any real input needs: a
     * definition that makes no progress would loop in highlight.js */
    uint64_t steps = 0, max_steps = 64 * (uint64_t)len + 4096;
    for (;;) {
        match m;
        int rc = next_match(&r, index, &m);
        if (rc < 0 || ++steps > max_steps) {
            status = ST_ERROR;
            break;
        }
        if (rc == 0)
            break;
        long k = process_lexeme(&r, code + index, m.index - index, &m);
        if (k < 0) {
            status = k == -3 ? ST_ILLEGAL : ST_ERROR;
            break;
        }
        index = m.index + (size_t)k;
    }
    if (status == ST_OK) {
        size_t from = index < len ? index : len;
        if (process_lexeme(&r, code + from, len - from, NULL) < 0)
            status = ST_ERROR;
    }
    if (status == ST_OK) {
        for (size_t i = r.st.n - 1; i >= 1; i--)
            if (mode_of(&r, r.st.v[i])->cls >= 0)
                buf_puts(r.out, "</span>");
    }
done:
    sh->depth--;
    if (status != ST_OK) {
        buf_reset(r.out);
        hl_escape(r.out, code, len);
        r.relevance = 0;
    }
    res->relevance = r.relevance;
    res->status = status;
    if (status != ST_ILLEGAL)
        stack_copy(&res->top, &r.st);
    else
        res->top.n = 0;
    buf_release(&r.mb);
    free(r.st.v);
    for (size_t i = 0; i < r.nconts; i++)
        free(r.conts[i].top.v);
    free(r.conts);
    free(r.ends);
    return status;
}

/* ---- the public side ---- */

static bool name_eq(const char *a, const char *b, size_t blen)
{
    for (size_t i = 0; i < blen; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (!x)
            return false;
        if (y >= 'A' && y <= 'Z')
            y += 32;
        if (x != y)
            return false;
    }
    return a[blen] == 0;
}

int hl_language_find(const char *name, size_t len)
{
    for (size_t i = 0; i < hl_language_count; i++) {
        const hl_language *L = &hl_languages[i];
        if (!L->exposed || !L->usable)
            continue;
        if (name_eq(L->name, name, len))
            return (int)i;
        for (const char *const *a = L->aliases; *a; a++)
            if (name_eq(*a, name, len))
                return (int)i;
    }
    return -1;
}

const char *hl_language_name(int lang)
{
    if (lang < 0 || (size_t)lang >= hl_language_count)
        return NULL;
    const hl_language *L = &hl_languages[lang];
    return L->exposed && L->usable ? L->name : NULL;
}

size_t hl_language_total(void) { return hl_language_count; }

hl_status hl_highlight(int lang, const char *code, size_t len, buf *out, hl_page *page)
{
    if (!hl_language_name(lang) || text_utf8_check(code, len) != (size_t)-1) {
        hl_escape(out, code, len);
        return HL_GAVE_UP;
    }
    hl_page alone = {0};
    if (!page)
        page = &alone;
    page->bytes += len;
    unsigned long long budget = (unsigned long long)HL_BUDGET_BASE +
                                (unsigned long long)HL_BUDGET_PER_BYTE * page->bytes;
    if (page->work >= budget) { /* the blocks before took it all */
        hl_escape(out, code, len);
        return HL_OVER_BUDGET;
    }
    shared sh = {0};
    sh.budget = budget - page->work;
    result res = {BUF_INIT, 0, 0, {0}};
    int st = highlight(&sh, lang, code, len, true, NULL, &res);
    if (sh.over) {
        buf_reset(&res.value);
        hl_escape(&res.value, code, len);
    }
    buf_put(out, res.value.data, res.value.len);
    result_free(&res);
    pcre2_match_data_free(sh.md);
    pcre2_match_context_free(sh.mc);
    pcre2_match_data_free(sh.run_md);
    for (unsigned i = 0; i < sh.nruns; i++)
        pcre2_code_free(sh.runs[i].re);
    page->work += sh.work;
    return sh.over ? HL_OVER_BUDGET : st == ST_OK ? HL_HIGHLIGHTED : HL_GAVE_UP;
}
