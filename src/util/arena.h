/* arena: a bump allocator for objects that die together.
 *
 * One arena per site (lives until the site is freed) and one scratch arena per
 * page render (reset after each page). An arena is never shared between
 * threads while allocating; there is no global arena. */
#ifndef SHEAF_ARENA_H
#define SHEAF_ARENA_H

#include <stddef.h>

typedef struct arena arena;

arena *arena_new(void);
/* Frees every block. arena_free(NULL) does nothing. */
void arena_free(arena *a);
/* The fields are arena.c's; they are here so that the bump of the current
 * block can be inline (it is on every hot path of a render). */
struct arena {
    unsigned char *next, *end; /* the free part of the current block */
    size_t total;              /* bytes handed out since the last reset */
    struct arena_block *head;  /* the current block, then older ones */
    size_t next_size;          /* the size of the next block */
};

/* What an allocation of n bytes takes: n rounded up to 16, at least 16. */
static inline size_t arena_round_(size_t n) { return n ? (n + 15) & ~(size_t)15 : 16; }

/* Returns n bytes aligned to 16, uninitialised; owned by the arena. */
void *arena_alloc_slow_(arena *a, size_t n);
static inline void *arena_alloc(arena *a, size_t n)
{
    size_t k = arena_round_(n);
    if ((size_t)(a->end - a->next) >= k) {
        void *p = a->next;
        a->next += k;
        a->total += k;
        return p;
    }
    return arena_alloc_slow_(a, n);
}
/* Like arena_alloc, zero-filled. */
void *arena_calloc(arena *a, size_t n);
/* Copies of n bytes / of a C string into the arena, NUL-terminated. */
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_strdup(arena *a, const char *s);
/* printf into the arena. */
char *arena_printf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Gives back the end of the most recent allocation: p came from the last
 * arena_alloc(a, old_n) and only its first new_n bytes are kept. For
 * strings written straight into the arena before their length is known
 * (allocate the most they can need, write, shrink). Does nothing when p was
 * not the last allocation of its block. */
void arena_shrink(arena *a, void *p, size_t old_n, size_t new_n);
/* Gives back the whole of the most recent allocation: p came from the
 * last arena_alloc(a, n), and nothing may use it after. Does nothing when
 * p was not the last allocation of its block. Returns whether it did, so
 * a caller can give back the allocation before it in turn. */
int arena_give_back(arena *a, void *p, size_t n);
/* Forgets everything allocated, keeping the first block for reuse. */
void arena_reset(arena *a);
/* Bytes handed out since the last reset (for --stats). */
size_t arena_used(const arena *a);

#endif
