/* gex_bench.h -- what the gex-test* benchmarks share on top of bench_args.h:
 * start-up (client, argument check, segment, pairing), barriers, the usage
 * exit and the data check.  See docs/benchmarks.md for the programs. */
#ifndef GEX_BENCH_H
#define GEX_BENCH_H

#include <gasnetex.h>
#include <gasnet_coll.h>

#include <stdarg.h>
#include <stdlib.h>

#include "bench_args.h"

typedef struct {
  const char *prog;      /* "gex-testsmall" */
  const char *usage;     /* the usage line, without "usage: " */
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  gex_Rank_t me, nranks, peer;
  int role;              /* BENCH_SENDER / BENCH_RECEIVER / BENCH_IDLE */
  unsigned char *myseg;  /* my segment */
  size_t segsize;
  unsigned char *peerseg; /* the peer's segment, in the peer's address space */
  uintptr_t peersize;
  bench_opts_t o;
} gex_bench_t;

static inline void gb_barrier(gex_bench_t *b) { gex_Event_Wait(gex_Coll_BarrierNB(b->tm, 0)); }

/* The largest of every rank's 'v', returned on rank 0 (other ranks get their
 * own value back).  Collective over b->tm; not timed. */
static inline double gb_max_to_0(gex_bench_t *b, double v) {
  double out = v;
  gex_Event_Wait(gex_Coll_ReduceToOneNB(b->tm, 0, &out, &v, GEX_DT_DBL, sizeof(double), 1, GEX_OP_MAX,
                                        NULL, NULL, 0));
  return b->me == 0 ? out : v;
}

/* Prints "usage: ..." (rank 0 only, so a job prints it once) and the reason,
 * and ends the job with status 2. */
__attribute__((noreturn)) static inline void gb_usage(gex_bench_t *b, const char *why) {
  if (b->me == 0) {
    if (why) fprintf(stderr, "%s: %s\n", b->prog, why);
    fprintf(stderr, "usage: %s %s\n", b->prog, b->usage);
    fflush(stderr);
  }
  gasnet_exit(2);
}

/* A failed check: one line naming the rank, then the job ends with status 1. */
__attribute__((noreturn, format(printf, 2, 3))) static inline void gb_die(gex_bench_t *b,
                                                                         const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: rank %u: ", b->prog, (unsigned)b->me);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  gasnet_exit(1);
}

/* Starts the client and parses the arguments.  Defaults come in through
 * b->o.  On a usage error the job ends with status 2. */
static inline void gb_init(gex_bench_t *b, int *argc, char ***argv, const char *sections) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* one write per line: ranks do not interleave within one */
  if (gex_Client_Init(&b->client, &b->ep, &b->tm, "GEXBENCH", argc, argv, 0) != GASNET_OK) {
    fprintf(stderr, "%s: gex_Client_Init failed\n", b->prog);
    exit(1);
  }
  b->me = gex_TM_QueryRank(b->tm);
  b->nranks = gex_TM_QuerySize(b->tm);
  if (bench_parse(*argc, *argv, sections, &b->o) != 0) gb_usage(b, b->o.error);
  if (b->o.maxsz > gasnet_getMaxLocalSegmentSize()) {
    char why[160];
    snprintf(why, sizeof why, "MAXSZ %zu is above the largest segment, %zu bytes", b->o.maxsz,
             (size_t)gasnet_getMaxLocalSegmentSize());
    gb_usage(b, why);
  }
  unsigned peer = 0;
  b->role = bench_pair(b->me, b->nranks, &peer);
  b->peer = peer;
}

/* Attaches a segment of 'need' bytes (rounded up to a page), after checking
 * that it fits under the segment limit (a usage error if not), and finds
 * the peer's segment. */
static inline void gb_attach(gex_bench_t *b, size_t need) {
  uintptr_t limit = gasnet_getMaxLocalSegmentSize();
  size_t size = bench_round_page(need);
  if (size > limit) {
    char why[160];
    snprintf(why, sizeof why, "MAXSZ %zu needs a %zu-byte segment; the largest possible is %zu",
             b->o.maxsz, size, (size_t)limit);
    gb_usage(b, why);
  }
  if (gex_Segment_Attach(&b->seg, b->tm, size) != GASNET_OK) gb_die(b, "gex_Segment_Attach(%zu) failed", size);
  b->myseg = gex_Segment_QueryAddr(b->seg);
  b->segsize = gex_Segment_QuerySize(b->seg);
  void *addr = NULL;
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(b->tm, b->peer, &addr, NULL, &b->peersize, 0));
  b->peerseg = addr;
  if (!addr || b->peersize < size) gb_die(b, "the segment of rank %u is not usable", (unsigned)b->peer);
}

/* A local buffer of n bytes: inside my segment at 'seg_offset' with -in,
 * else from malloc (page-aligned). */
static inline unsigned char *gb_local_buffer(gex_bench_t *b, size_t seg_offset, size_t n) {
  if (b->o.in_seg) {
    if (seg_offset + n > b->segsize) gb_die(b, "internal: -in buffer outside the segment");
    return b->myseg + seg_offset;
  }
  void *p = NULL;
  if (posix_memalign(&p, 4096, n ? n : 1) != 0) gb_die(b, "out of memory (%zu bytes)", n);
  return p;
}

static inline void gb_free_local(gex_bench_t *b, unsigned char *p) {
  if (!b->o.in_seg) free(p);
}

/* Which library the program was built against, for the header line: the
 * programs use only the GASNet-EX API, so bench/report also builds them
 * against a reference install to compare the same source on both. */
#ifdef GEX_CHECKS
#define GB_LIBRARY_FMT "libgex, GEX_CHECKS=%d", (int)GEX_CHECKS
#else
#define GB_LIBRARY_FMT "GASNet-EX %d.%d.%d", GASNET_RELEASE_VERSION_MAJOR, GASNET_RELEASE_VERSION_MINOR, \
                       GASNET_RELEASE_VERSION_PATCH
#endif

/* The end of the header line: the library, and how many ranks share rank
 * 0's neighbourhood (shared memory): 1 when every peer is reached over the
 * network (GASNET_SUPERNODE_MAXSIZE=1), which bench/report checks. */
static inline void gb_header_end(gex_bench_t *b) {
  gex_Rank_t nbrhd = 0;
  gex_System_QueryNbrhdInfo(NULL, &nbrhd, NULL);
  printf(GB_LIBRARY_FMT);
  printf("; neighbourhood %u of %u rank%s\n", (unsigned)nbrhd, (unsigned)b->nranks, b->nranks == 1 ? "" : "s");
}

/* The first line of the output: what runs. */
static inline void gb_header(gex_bench_t *b, const char *what) {
  if (b->me != 0) return;
  if (b->o.no_size) { /* ITERS [SECTIONS] programs */
    printf("# %s: %s; %u rank%s, ITERS %ld, sections %s; ", b->prog, what, (unsigned)b->nranks,
           b->nranks == 1 ? "" : "s", b->o.iters, b->o.sections);
    gb_header_end(b);
    return;
  }
  printf("# %s: %s; %u rank%s (%s), ITERS %ld, MAXSZ %zu, %s, local buffer %s the segment, "
         "sections %s, -budget %zu; ",
         b->prog, what, (unsigned)b->nranks, b->nranks == 1 ? "" : "s",
         b->nranks == 1 ? "loopback" : "even ranks measure to the next odd rank", b->o.iters,
         b->o.maxsz, b->o.sweep ? "size sweep" : "MAXSZ only", b->o.in_seg ? "inside" : "outside",
         b->o.sections, b->o.budget);
  gb_header_end(b);
}

#endif /* GEX_BENCH_H */
