/* shmem/shmem_inline.h -- shmem_putmem, shmem_getmem and their _nbi forms,
 * inline where the target PE's heap is mapped in this process (a PE of the
 * same host): a range check and a copy, no call.  Included by <shmem.h>.
 *
 * The library publishes one read-only view of where the heaps are
 * (gexsi_view, written by shmem_init and shmem_finalize only): this PE's
 * heap base, and per PE the distance from it to that PE's heap as mapped
 * here and the bytes that may be reached through it -- the heap's size
 * where the heap is mapped, 0 where it is not (a PE on another host), so
 * that one comparison decides.  The get table gives this PE itself 0 where
 * some PE is on another host: a loop of gets from its own heap must poll,
 * for those PEs' puts land by this PE's progress.  Everything else (static
 * data, other hosts, errors) goes to the library's functions.
 *
 * With the misuse checks on (GEX_CHECKS, the library's build) the PE and
 * the object's end are checked too, and before shmem_init (no PEs) every
 * call reaches the library, which reports it; with them off a bad PE, or
 * an object that starts in the heap and runs past its end, is undefined,
 * as the specification has it.  Define GEX_SHMEM_NO_INLINE before including
 * <shmem.h> to call the library's functions always. */
#ifndef GEX_SHMEM_INLINE_H
#define GEX_SHMEM_INLINE_H

#include <stdint.h>
#include <string.h>
#include <gex/gex_config.h>

struct gexsi_pe_view {
  intptr_t delta;   /* the PE's heap, mapped here, minus this PE's heap base */
  uintptr_t limit;  /* bytes reachable through delta: the heap's size, or 0 */
};
struct gexsi_view {
  uintptr_t heap;                   /* this PE's heap base */
  const struct gexsi_pe_view *put;  /* by PE, for puts */
  const struct gexsi_pe_view *get;  /* by PE, for gets */
  int npes;                         /* 0 before shmem_init and after shmem_finalize */
};
extern struct gexsi_view gexsi_view;

#ifndef GEX_SHMEM_NO_INLINE

#if defined(__GNUC__) || defined(__clang__)
#define GEXSI_INLINE static inline __attribute__((always_inline))
#define GEXSI_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define GEXSI_INLINE static inline
#define GEXSI_LIKELY(x) (x)
#endif

/* The entry of table t for 'pe' when [addr, +nbytes) is in this PE's heap
 * and reachable on 'pe' through it; NULL otherwise. */
GEXSI_INLINE const struct gexsi_pe_view *gexsi_mapped(const struct gexsi_pe_view *t,
                                                      const void *addr, size_t nbytes, int pe) {
  const uintptr_t off = (uintptr_t)addr - gexsi_view.heap;
#if GEX_CHECKS
  if (!GEXSI_LIKELY((unsigned)pe < (unsigned)gexsi_view.npes)) return NULL;
  const struct gexsi_pe_view *e = t + pe;
  return GEXSI_LIKELY(off <= e->limit && nbytes <= e->limit - off) ? e : NULL;
#else
  /* Only where the object starts: an address below the heap wraps to a
   * large offset, and a symmetric object that starts in the heap ends in
   * it (one that does not is the program's error, undefined here). */
  (void)nbytes;
  const struct gexsi_pe_view *e = t + pe;
  return GEXSI_LIKELY(off < e->limit) ? e : NULL;
#endif
}

/* (memmove: a put of a symmetric object to itself on this PE, source and
 * destination one buffer, is a program's right) */
#define GEXSI_DEF_PUT(NAME)                                                             \
  GEXSI_INLINE void gexsi_##NAME(void *dest, const void *source, size_t nbytes, int pe) { \
    const struct gexsi_pe_view *e = gexsi_mapped(gexsi_view.put, dest, nbytes, pe);      \
    if (GEXSI_LIKELY(e != NULL))                                                          \
      memmove((char *)dest + e->delta, source, nbytes);                                   \
    else                                                                                  \
      (shmem_##NAME)(dest, source, nbytes, pe);                                           \
  }
#define GEXSI_DEF_GET(NAME)                                                             \
  GEXSI_INLINE void gexsi_##NAME(void *dest, const void *source, size_t nbytes, int pe) { \
    const struct gexsi_pe_view *e = gexsi_mapped(gexsi_view.get, source, nbytes, pe);    \
    if (GEXSI_LIKELY(e != NULL))                                                          \
      memmove(dest, (const char *)source + e->delta, nbytes);                             \
    else                                                                                  \
      (shmem_##NAME)(dest, source, nbytes, pe);                                           \
  }
GEXSI_DEF_PUT(putmem)
GEXSI_DEF_PUT(putmem_nbi)
GEXSI_DEF_GET(getmem)
GEXSI_DEF_GET(getmem_nbi)
#undef GEXSI_DEF_PUT
#undef GEXSI_DEF_GET

/* (a name not followed by '(' -- &shmem_putmem -- is still the function) */
#define shmem_putmem(dest, source, nelems, pe) gexsi_putmem(dest, source, nelems, pe)
#define shmem_putmem_nbi(dest, source, nelems, pe) gexsi_putmem_nbi(dest, source, nelems, pe)
#define shmem_getmem(dest, source, nelems, pe) gexsi_getmem(dest, source, nelems, pe)
#define shmem_getmem_nbi(dest, source, nelems, pe) gexsi_getmem_nbi(dest, source, nelems, pe)

#endif /* GEX_SHMEM_NO_INLINE */
#endif /* GEX_SHMEM_INLINE_H */
