/* js/heap: the allocator a Duktape heap runs with, within a budget of
 * bytes and of thread CPU time. Every engine sheaf starts (KaTeX for
 * formulas, citeproc-js for citations) allocates through one of these, so
 * the bound on what one script may take is kept in one place.
 *
 * Debian's Duktape is built without DUK_USE_EXEC_TIMEOUT_CHECK (and
 * without DUK_USE_INTERRUPT_COUNTER, which it needs): duk_config.h
 * #undefs both, and they are compile-time options of the library, so a
 * program linking it cannot install an execution-timeout hook. The scripts
 * allocate all the time (tokens, parse nodes, strings, output trees), so
 * the allocator is where the budget is kept: it counts the bytes the heap
 * holds and, every 64 calls, reads the thread's CPU clock.
 *
 * Past either bound it does not return: it jumps back to the caller's
 * setjmp (js_heap_arm), out of Duktape and the script. Returning NULL
 * instead lets Duktape go on: it collects garbage and retries, throws, and
 * compiled loops catch and rethrow, each catch allocating again — ten
 * million refused allocations for one formula, twice its budget in time. A
 * jump out of an allocation is what Duktape's own errors do (they longjmp
 * from wherever an allocation fails), so every object is on the heap's
 * lists; the engine is not used again, only destroyed. */
#ifndef SHEAF_JS_HEAP_H
#define SHEAF_JS_HEAP_H

#include <duktape.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

typedef struct js_heap js_heap;

/* A Duktape heap allocating through a new js_heap (returned in *h), with
 * no budget until js_heap_arm. NULL when Duktape cannot start (*h is then
 * NULL too). Free both with js_heap_destroy. */
duk_context *js_heap_create(js_heap **h);
/* Destroys ctx and frees whatever a jump out of Duktape left off its
 * lists. NULL ctx: frees h alone. */
void js_heap_destroy(duk_context *ctx, js_heap *h);

/* From now on the heap may grow by at most `more` bytes past what it holds
 * now and the thread may spend `cpu_ms` of CPU time; past either it jumps
 * to *escape. js_heap_disarm lifts the budget and says which bound, if
 * any, was passed (then the engine is not to be used again). */
void js_heap_arm(js_heap *h, size_t more, long cpu_ms, jmp_buf *escape);
void js_heap_disarm(js_heap *h, bool *out_of_memory, bool *out_of_time);
/* Bytes the heap holds now. */
size_t js_heap_used(const js_heap *h);

/* Runs source (named name) in ctx and pops its value; false with the
 * error in error. */
bool js_run_source(duk_context *ctx, const char *src, size_t len, const char *name, buf *error);
/* Loads and runs compiled-in bytecode when the running Duktape is the
 * version sheaf was compiled with; false (nothing done) otherwise or when
 * there is none (len 0). */
bool js_run_bytecode(duk_context *ctx, const unsigned char *bytecode, size_t len);

#endif
