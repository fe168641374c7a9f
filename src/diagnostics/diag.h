/* diagnostics/diag.h -- internals of gasnett_run_diagnostics, the self-test
 * of a running job (docs/tools.md, "Diagnostics").
 *
 * Built on the public GASNet-EX API and the tools API only.  The state of a
 * run is the one structure gexdiag_ctx (diag_run.c).  Files: diag_run.c
 * (the driver: agreement between the ranks, the sections, the barriers and
 * the totals), diag_report.c (errors, deterministic data, threads),
 * diag_locks.c (A, B), diag_atomics.c (C), diag_timers.c (D), diag_rma.c
 * (the RMA sections' slot and shadow), diag_rma_put_get.c (E, F, G),
 * diag_rma_val.c (H), diag_am.c (I, J, K, and the AM handlers).
 *
 * The area of every rank (myseg, agreed size 'area' bytes) is split so
 * that no two writers meet:
 *   [0, area/2)       the incoming half: one slot per rank that names this
 *                     rank as its peer (its Puts and Long Requests land
 *                     there), in rank order;
 *   [area/2, area)    the reply half: only the Long Replies to this rank's
 *                     own Requests land there (and this rank's own RMA
 *                     source/destination buffers outside section K).
 */
#ifndef GEXDIAG_DIAG_H
#define GEXDIAG_DIAG_H

#include <gasnetex.h>
#include <gasnet_coll.h>
#include <gasnet_tools.h>

#include <stddef.h>
#include <stdint.h>

/* The handlers of gasnett_diagnostic_gethandlers, in table order. */
enum {
  GEXDIAG_H_SHORT_REQ,
  GEXDIAG_H_SHORT_REP,
  GEXDIAG_H_MEDIUM_REQ,
  GEXDIAG_H_MEDIUM_REP,
  GEXDIAG_H_LONG_REQ,
  GEXDIAG_H_LONG_REP,
  GEXDIAG_NHANDLERS
};

/* AM round trips in flight at once; each owns a window slot (and, for
 * Long, one part of the sender's incoming slot and of its reply half). */
#define GEXDIAG_AM_WINDOW 8

/* Error lines printed per rank and section before the rest are only counted. */
#define GEXDIAG_MAX_PRINTED 10

struct gexdiag_context {
  /* The table handed out by gasnett_diagnostic_gethandlers; registration
   * writes the assigned indices back into it. */
  gex_AM_Entry_t handlers[GEXDIAG_NHANDLERS];
  int handlers_ready;       /* table filled */
  gex_AM_Index_t am_index[GEXDIAG_NHANDLERS]; /* agreed indices of this run */

  /* The run, set before its first collective (AM handlers read it). */
  gex_TM_t tm;
  gex_Rank_t rank, size, peer;
  unsigned char *myarea;    /* this rank's area (myseg) */
  unsigned char *peerarea;  /* the peer's area, in the peer's address space */
  size_t area;              /* agreed size of every rank's area */
  /* Who writes where (agreed at the start of the run): */
  gex_Rank_t *peer_of;      /* [r]: the peer rank r named, GEX_RANK_INVALID if invalid */
  gex_Rank_t *slot_index;   /* [r]: r's place among the ranks naming peer_of[r] */
  gex_Rank_t *slot_count;   /* [t]: how many ranks name t as their peer */
  uint64_t seed;
  long iters;
  int threads;
  uint32_t fault_mask;      /* sections that inject a fault (GEX_DIAG_FAULT) */

  /* The running section. */
  char section;
  const char *section_name;
  uint64_t section_errors;  /* atomic: threads and handlers add */
  int printed;              /* atomic: error lines printed in this section */

  /* AM round trips: per window slot, 1 while its Request awaits the Reply,
   * and the iteration it carries (atomic accesses; handlers clear). */
  int am_busy[GEXDIAG_AM_WINDOW];
  long am_iter[GEXDIAG_AM_WINDOW];
};

extern struct gexdiag_context gexdiag_ctx;

/* ---- errors ------------------------------------------------------------------- */
/* Counts one error of the running section and prints (up to
 * GEXDIAG_MAX_PRINTED per section) "diagnostics: rank R: section X (name):
 * ERROR: <message>" on stderr.  Any thread, handlers included. */
#ifdef __GNUC__
__attribute__((format(printf, 1, 2)))
#endif
void gexdiag_error(const char *fmt, ...);

/* Does GEX_DIAG_FAULT ask the running section to inject its fault? */
int gexdiag_fault(void);

/* ---- deterministic data ---------------------------------------------------------- */
/* A 64-bit mixing function (a bijection): every key below goes through it. */
static inline uint64_t gexdiag_mix(uint64_t x) {
  x += UINT64_C(0x9E3779B97F4A7C15);
  x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
  return x ^ (x >> 31);
}
/* The key of one piece of data: the run's seed, the section, the rank that
 * made it, the iteration and a tag, all of which change every byte. */
static inline uint64_t gexdiag_key(char section, uint64_t rank, uint64_t iter, uint64_t tag) {
  uint64_t k = gexdiag_mix(gexdiag_ctx.seed ^ ((uint64_t)(unsigned char)section << 56));
  k = gexdiag_mix(k ^ rank);
  k = gexdiag_mix(k ^ iter);
  return gexdiag_mix(k ^ tag);
}
/* Byte i of the stream of 'key'. */
static inline unsigned char gexdiag_byte(uint64_t key, size_t i) {
  return (unsigned char)(gexdiag_mix(key + i / 8) >> (8 * (i % 8)));
}
void gexdiag_fill(void *buf, size_t n, uint64_t key);
/* -1 when buf holds the stream of key, else the index of the first wrong byte. */
long gexdiag_verify(const void *buf, size_t n, uint64_t key);

/* A small random number generator (one per section and thread). */
typedef struct { uint64_t s; } gexdiag_rng_t;
static inline uint64_t gexdiag_next(gexdiag_rng_t *g) { return gexdiag_mix(g->s++); }
/* Uniform in [lo, hi] (hi >= lo). */
static inline size_t gexdiag_range(gexdiag_rng_t *g, size_t lo, size_t hi) {
  return lo + (size_t)(gexdiag_next(g) % (uint64_t)(hi - lo + 1));
}

/* ---- communication helpers --------------------------------------------------------- */
/* One step of a wait loop that made no progress: poll, then let others run. */
void gexdiag_poll_idle(void);
/* Length of each slot in target's incoming half (slots are 64-byte aligned). */
static inline size_t gexdiag_slot_len_of(gex_Rank_t target) {
  return ((gexdiag_ctx.area / 2) / gexdiag_ctx.slot_count[target]) & ~(size_t)63;
}
/* Offset of sender's slot inside the area of the rank it names as peer. */
static inline size_t gexdiag_slot_off(gex_Rank_t sender) {
  return (size_t)gexdiag_ctx.slot_index[sender] * gexdiag_slot_len_of(gexdiag_ctx.peer_of[sender]);
}

/* ---- the sections ------------------------------------------------------------------- */
void gexdiag_section_mutex(void);     /* A */
void gexdiag_section_cond(void);      /* B */
void gexdiag_section_atomics(void);   /* C */
void gexdiag_section_timers(void);    /* D */
void gexdiag_section_rma_blocking(void); /* E */
void gexdiag_section_rma_nb(void);    /* F */
void gexdiag_section_rma_nbi(void);   /* G */
void gexdiag_section_rma_val(void);   /* H */
void gexdiag_section_am_short(void);  /* I */
void gexdiag_section_am_medium(void); /* J */
void gexdiag_section_am_long(void);   /* K */

/* The handlers (diag_am.c), for the table. */
void gexdiag_fill_handlers(gex_AM_Entry_t *table);

/* Runs fn(arg, t, n) in n threads at once (t = 0..n-1; the calling thread
 * is thread 0) and returns n when all have finished.  n is 'threads' unless
 * a thread could not be started (an error): then the ones that did start;
 * every thread sees the same n, fixed before any of them calls fn. */
int gexdiag_run_threads(int threads, void (*fn)(void *arg, int t, int n), void *arg);

#endif /* GEXDIAG_DIAG_H */
