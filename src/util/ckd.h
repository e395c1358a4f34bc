/* ckd: checked integer arithmetic, the one set of helpers for sizes, counts
 * and indices computed from input (a template's numbers, a file's lengths).
 *
 * ckd_add(&r, a, b), ckd_sub and ckd_mul store the mathematically exact
 * result in *r when it fits r's type and return false; when it does not fit
 * they return true (and *r holds the wrapped value, which must not be used).
 * They are C23's <stdckdint.h>, spelled with the GCC/Clang built-ins it is
 * made of, so they work on any integer types, mixed signed and unsigned.
 *
 * ckd_span(lo, hi) is hi - lo as an unsigned number, exact for any two
 * int64_t with lo <= hi (it may exceed INT64_MAX): the length of a range
 * whose ends are in int64_t. */
#ifndef SHEAF_CKD_H
#define SHEAF_CKD_H

#include <stdint.h>

#define ckd_add(r, a, b) __builtin_add_overflow((a), (b), (r))
#define ckd_sub(r, a, b) __builtin_sub_overflow((a), (b), (r))
#define ckd_mul(r, a, b) __builtin_mul_overflow((a), (b), (r))

static inline uint64_t ckd_span(int64_t lo, int64_t hi) { return (uint64_t)hi - (uint64_t)lo; }

/* a*b and a+b, UINT64_MAX when they overflow: for sizes compared with a
 * limit below UINT64_MAX. */
static inline uint64_t ckd_mul_sat(uint64_t a, uint64_t b)
{
    uint64_t r;
    return ckd_mul(&r, a, b) ? UINT64_MAX : r;
}
static inline uint64_t ckd_add_sat(uint64_t a, uint64_t b)
{
    uint64_t r;
    return ckd_add(&r, a, b) ? UINT64_MAX : r;
}

/* |v| as an unsigned number, exact for INT64_MIN too. */
static inline uint64_t ckd_abs(int64_t v) { return v < 0 ? 0 - (uint64_t)v : (uint64_t)v; }

/* How many of start, start+step, … lie before stop (step > 0: < stop;
 * step < 0: > stop), as Python's range and slices count them; exact for
 * every int64_t (step != 0). */
static inline uint64_t ckd_steps(int64_t start, int64_t stop, int64_t step)
{
    if (step > 0)
        return start < stop ? (ckd_span(start, stop) - 1) / (uint64_t)step + 1 : 0;
    return start > stop ? (ckd_span(stop, start) - 1) / ckd_abs(step) + 1 : 0;
}

/* start + i*step for i < ckd_steps(start, stop, step): it lies between
 * start and stop, so it fits, though i*step alone may not. */
static inline int64_t ckd_step_at(int64_t start, int64_t step, uint64_t i)
{
    return (int64_t)((uint64_t)start + i * (uint64_t)step);
}

#endif
