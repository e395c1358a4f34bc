/* relcache: every post's related posts in the build cache (relcache.h).
 *
 * The entry's key holds this sheaf's identity (mdcache.c's binary id) and
 * the site folder (resolved), so another version's or another site's
 * lists are never found; there is one entry a site, written whole
 * (temporary file, rename) and checked (HMAC) by src/cache, so an edit of
 * the tags replaces it instead of leaving one more behind. Its value:
 *
 *   MAGIC, the input digest (CACHE_DIGEST_LEN bytes), want, the number of
 *   posts and of pages, then for each post in s->posts order: how many
 *   related posts, and for each its page number and how many groups it
 *   shares (binrec numbers). */
#include <stdlib.h>
#include <string.h>

#include "site/mdcache.h"
#include "site/relcache.h"
#include "util/binrec.h"
#include "util/fs.h"
#include "util/xalloc.h"

#define MAGIC "SHRL1\n"
#define MAGIC_LEN 6

/* The digest's input, as 32-bit numbers (a site has far fewer pages). */
typedef struct words {
    uint32_t *v;
    size_t n, cap;
} words;

static void put(words *w, size_t x)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 1024;
        w->v = xrealloc(w->v, w->cap * sizeof *w->v);
    }
    w->v[w->n++] = (uint32_t)x;
}

/* What related_job (related.c) reads, and nothing else: a change to this
 * rule's input must change the digest, so keep the two together. The
 * counts in front of each list keep two different inputs from running
 * together into the same numbers. */
void site_related_digest(const site *s, size_t want, unsigned char out[CACHE_DIGEST_LEN])
{
    words w = { 0 };
    put(&w, 1); /* the layout of these numbers */
    put(&w, want);
    put(&w, s->npages);
    put(&w, s->nposts);
    for (size_t k = 0; k < s->nposts; k++) /* who is scored, and the ties' order */
        put(&w, (size_t)s->posts[k]);
    put(&w, s->nterms);
    for (size_t g = 0; g < s->nterms; g++) { /* a term's posts: all published posts */
        put(&w, s->terms[g].nposts);
        for (size_t i = 0; i < s->terms[g].nposts; i++)
            put(&w, (size_t)s->terms[g].posts[i]);
    }
    put(&w, s->npapers);
    for (size_t g = 0; g < s->npapers; g++) { /* a work's citing pages: any page */
        const paper_info *x = &s->papers[g];
        put(&w, x->npages);
        for (size_t i = 0; i < x->npages; i++) {
            const page *q = &s->pages[x->pages[i]];
            bool counts = q->is_post && !q->excluded && !q->failed;
            put(&w, (size_t)x->pages[i] << 1 | counts);
        }
    }
    cache_digest(w.v, w.n * sizeof *w.v, out);
    free(w.v);
}

/* The entry's key, in key (reset first). */
static void make_key(const site *s, buf *key)
{
    char *binary = site_binary_id(), *dir = fs_resolve(s->dir);
    buf_reset(key);
    buf_printf(key, "sheaf-related 1\n%s\n%s", binary, dir ? dir : s->dir);
    free(binary);
    free(dir);
}

bool site_related_get(site *s, const unsigned char digest[CACHE_DIGEST_LEN], size_t want,
                      int *related, int *shared, diag_list *d)
{
    if (!s->cache)
        return false;
    buf key = BUF_INIT, v = BUF_INIT;
    make_key(s, &key);
    bool got = cache_get(s->cache, "related", key.data, key.len, &v);
    buf_release(&key);
    if (!got || v.len < MAGIC_LEN + CACHE_DIGEST_LEN || memcmp(v.data, MAGIC, MAGIC_LEN) ||
        memcmp(v.data + MAGIC_LEN, digest, CACHE_DIGEST_LEN)) {
        buf_release(&v); /* none, or of other posts or tags: made again */
        return false;
    }
    binrec_reader rd = binrec_reader_of(v.data + MAGIC_LEN + CACHE_DIGEST_LEN,
                                        v.len - MAGIC_LEN - CACHE_DIGEST_LEN);
    bool ok = binrec_get_u(&rd) == want && binrec_get_u(&rd) == s->nposts &&
              binrec_get_u(&rd) == s->npages && !rd.bad;
    /* read into counts first: a bad entry leaves no post changed */
    size_t *count = xcalloc(s->nposts + 1, sizeof *count);
    /* the posts related_job could list, looked up here rather than in the
     * pages, which the lists name all over memory (at 100,000 posts,
     * half a million misses of the cache) */
    unsigned char *listable = xcalloc(s->npages + 1, 1);
    for (size_t i = 0; i < s->npages; i++)
        listable[i] = s->pages[i].is_post && !s->pages[i].excluded && !s->pages[i].failed;
    for (size_t k = 0; ok && k < s->nposts; k++) {
        uint64_t n = binrec_get_u(&rd);
        ok = !rd.bad && n <= want;
        count[k] = (size_t)n;
        for (size_t i = 0; ok && i < n; i++) {
            uint64_t q = binrec_get_u(&rd), sh = binrec_get_u(&rd);
            /* a post other than itself that related_job could list,
             * sharing at least one group */
            ok = !rd.bad && q < s->npages && (int)q != s->posts[k] && listable[q] && sh >= 1 &&
                 sh <= 0x7fffffff;
            if (ok) {
                related[k * want + i] = (int)q;
                shared[k * want + i] = (int)sh;
            }
        }
    }
    ok = ok && binrec_done(&rd);
    buf_release(&v);
    free(listable);
    if (!ok) {
        free(count);
        if (d)
            diag_warning(d, CACHE_DIR, 0, 0,
                         "the related posts in the build cache could not be read back: ignored, "
                         "made again");
        return false;
    }
    for (size_t k = 0; k < s->nposts; k++) {
        if (k + 16 < s->nposts) /* (newest first: the pages all over memory) */
            __builtin_prefetch(&s->pages[s->posts[k + 16]].nrelated, 1);
        page *p = &s->pages[s->posts[k]];
        p->nrelated = count[k];
        p->related = count[k] ? related + k * want : NULL;
        p->related_shared = count[k] ? shared + k * want : NULL;
    }
    free(count);
    return true;
}

void site_related_put(const site *s, const unsigned char digest[CACHE_DIGEST_LEN], size_t want)
{
    if (!s->cache)
        return;
    buf key = BUF_INIT, v = BUF_INIT;
    make_key(s, &key);
    buf_put(&v, MAGIC, MAGIC_LEN);
    buf_put(&v, (const char *)digest, CACHE_DIGEST_LEN);
    binrec_put_u(&v, want);
    binrec_put_u(&v, s->nposts);
    binrec_put_u(&v, s->npages);
    for (size_t k = 0; k < s->nposts; k++) {
        const page *p = &s->pages[s->posts[k]];
        binrec_put_u(&v, p->nrelated);
        for (size_t i = 0; i < p->nrelated; i++) {
            binrec_put_u(&v, (uint64_t)p->related[i]);
            binrec_put_u(&v, (uint64_t)p->related_shared[i]);
        }
    }
    if (v.len + key.len < CACHE_ENTRY_MAX)
        cache_put(s->cache, "related", key.data, key.len, v.data, v.len);
    buf_release(&key);
    buf_release(&v);
}
