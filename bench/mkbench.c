/* mkbench.c -- device memory kinds: the CUDA floors beside libgex's RMA
 * into and out of device segments, in one run (docs/memory-kinds.md).
 *
 *   gexrun -n 2 mkbench [--smoke]
 *
 * Rank 0 measures; rank 1 owns the neighbour's device segment.  Both use
 * CUDA device 0 (a CUDA_UVA kind, gex_MK_Create).  Every row has three
 * columns, each measured the same way for the floors and for libgex:
 *
 *   8 B blocking      microseconds per operation that is complete when the
 *                     next starts: a floor's copy is followed by
 *                     cuStreamSynchronize (the driver's copies may return
 *                     before the data lands), libgex's is a blocking call;
 *   4 MiB blocking    MiB/s (2^20 bytes/s) of the same at 4 MiB;
 *   4 MiB in flight   MiB/s of 50 copies of 4 MiB started back to back and
 *                     waited for once: cuMemcpy*Async then one
 *                     cuStreamSynchronize, against 50 NBI calls then one
 *                     gex_NBI_Wait.
 *
 *   floors, by the CUDA driver itself (loaded with dlopen, so that this
 *   program builds and runs where there is none; "not measured" then):
 *     HtoD / DtoH from and to pageable (malloc) and pinned
 *     (cuMemAllocHost) host memory, DtoD within the device, and HtoD and
 *     DtoD into rank 1's allocation opened through a CUDA IPC handle;
 *   libgex, through TM-pairs:
 *     Put pageable and pinned host memory -> rank 1's device segment, Get
 *     it back into either, Put rank 0's device segment -> rank 1's (device
 *     to device), and Put host -> rank 0's own device segment (loopback);
 *   and the ratios the targets of docs/memory-kinds.md name, like against
 *   like: the 8-byte Put from pinned host memory against the 8-byte pinned
 *   HtoD, both blocking; the 4 MiB Put from pinned host memory against
 *   pinned HtoD, and device to device between the ranks against DtoD
 *   within the device, both in flight.
 *
 * With GEX_MK_TEST_DEVICE=host the libgex rows run on the host-memory test
 * device (the floors are not measured).  --smoke: a few iterations, the
 * bytes of each libgex row's transfers checked, "PASS" at the end (a ctest
 * runs it).
 */
#include <dlfcn.h>
#include <gasnet.h>
#include <gasnet_mk.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BIG ((size_t)4 << 20)

/* ---- the CUDA driver, as far as the floors need it --------------------------- */
typedef struct {
  char reserved[64];
} ipc_handle_t;
struct cu {
  int (*init)(unsigned);
  int (*device_get)(int *, int);
  int (*primary_retain)(void **, int);
  int (*set_current)(void *);
  int (*alloc)(uint64_t *, size_t);
  int (*alloc_host)(void **, size_t);
  int (*htod)(uint64_t, const void *, size_t, void *);
  int (*dtoh)(void *, uint64_t, size_t, void *);
  int (*dtod)(uint64_t, uint64_t, size_t, void *);
  int (*sync)(void *);
  int (*ipc_get)(ipc_handle_t *, uint64_t);
  int (*ipc_open)(uint64_t *, ipc_handle_t, unsigned);
};

/* 0 when the driver is there and device 0 is current on this thread. */
static int cu_load(struct cu *c, const char **why) {
  if (getenv("GEX_MK_TEST_DEVICE")) {
    *why = "the test device (GEX_MK_TEST_DEVICE) is in use";
    return 1;
  }
  void *h = dlopen(getenv("GEX_CUDA_DRIVER") ? getenv("GEX_CUDA_DRIVER") : "libcuda.so.1",
                   RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    *why = "no CUDA driver";
    return 1;
  }
  struct {
    void **slot;
    const char *name;
  } e[] = {{(void **)&c->init, "cuInit"},
           {(void **)&c->device_get, "cuDeviceGet"},
           {(void **)&c->primary_retain, "cuDevicePrimaryCtxRetain"},
           {(void **)&c->set_current, "cuCtxSetCurrent"},
           {(void **)&c->alloc, "cuMemAlloc_v2"},
           {(void **)&c->alloc_host, "cuMemAllocHost_v2"},
           {(void **)&c->htod, "cuMemcpyHtoDAsync_v2"},
           {(void **)&c->dtoh, "cuMemcpyDtoHAsync_v2"},
           {(void **)&c->dtod, "cuMemcpyDtoDAsync_v2"},
           {(void **)&c->sync, "cuStreamSynchronize"},
           {(void **)&c->ipc_get, "cuIpcGetMemHandle"},
           {(void **)&c->ipc_open, "cuIpcOpenMemHandle_v2"}};
  for (size_t i = 0; i < sizeof e / sizeof e[0]; i++)
    if (!(*e[i].slot = dlsym(h, e[i].name))) {
      *why = "the CUDA driver lacks an entry point";
      return 1;
    }
  int dev;
  void *ctx;
  if (c->init(0) || c->device_get(&dev, 0) || c->primary_retain(&ctx, dev) || c->set_current(ctx)) {
    *why = "the CUDA driver cannot use device 0";
    return 1;
  }
  return 0;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static long iters_small = 2000, iters_big = 50;
enum { INFLIGHT = 50 }; /* operations started before the one wait */

static void row(const char *what, double small_us, double big_mibs, double flight_mibs) {
  char a[32] = "not measured", b[32] = "not measured", f[32] = "not measured";
  if (small_us >= 0) snprintf(a, sizeof a, "%.3f", small_us);
  if (big_mibs >= 0) snprintf(b, sizeof b, "%.0f", big_mibs);
  if (flight_mibs >= 0) snprintf(f, sizeof f, "%.0f", flight_mibs);
  printf("  %-56s %12s %12s %12s\n", what, a, b, f);
}

#define TIME_LOOP(n, stmt)                          \
  ({                                                \
    double t0_ = now();                             \
    for (long i_ = 0; i_ < (n); i_++) { stmt; }     \
    (now() - t0_) / (double)(n);                    \
  })
#define US(sec) ((sec) * 1e6)
#define MIBS(sec) ((double)BIG / (sec) / 1048576.0)
/* One row.  Blocking: BLOCK(n) then BLOCK_DONE() each time; in flight:
 * INFLIGHT START(BIG)s, then DONE() once (repeated iters_big / INFLIGHT
 * times, at least once).  The figures stay in us8, mibs and fmibs. */
#define NOTHING() ((void)0)
#define MEASURE(label, BLOCK, BLOCK_DONE, START, DONE)                           \
  do {                                                                          \
    us8 = US(TIME_LOOP(iters_small, (BLOCK(8), BLOCK_DONE())));                 \
    mibs = MIBS(TIME_LOOP(iters_big, (BLOCK(BIG), BLOCK_DONE())));              \
    long rounds_ = iters_big / INFLIGHT > 0 ? iters_big / INFLIGHT : 1;         \
    long k_ = iters_big < INFLIGHT ? iters_big : INFLIGHT;                      \
    fmibs = MIBS(TIME_LOOP(rounds_, ({                                          \
                   for (long j_ = 0; j_ < k_; j_++) START(BIG);                 \
                   DONE();                                                      \
                 })) / (double)k_);                                             \
    row(label, us8, mibs, fmibs);                                               \
  } while (0)
/* A floor: the driver's copy OP(n), waited for by DONE() (the stream). */
#define MEASURE_ROW(label, OP, DONE) MEASURE(label, OP, DONE, OP, DONE)

/* The floors: rank 0 alone, peer: rank 1's allocation opened by IPC (0: none). */
struct floors {
  double htod8_pinned, htod_flight_pinned, dtod_flight;
};
static void floors(struct cu *c, int ok, uint64_t peer, struct floors *f) {
  static const char *const names[] = {
      "cuMemcpyHtoD, pageable", "cuMemcpyHtoD, pinned", "cuMemcpyDtoH, pageable",
      "cuMemcpyDtoH, pinned", "cuMemcpyDtoD, one device",
      "cuMemcpyHtoD, pinned, into rank 1's memory (IPC)",
      "cuMemcpyDtoD, into rank 1's memory (IPC)"};
  if (!ok) {
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) row(names[i], -1, -1, -1);
    return;
  }
  uint64_t d, d2;
  void *pinned;
  char *pageable = malloc(BIG);
  if (c->alloc(&d, BIG) || c->alloc(&d2, BIG) || c->alloc_host(&pinned, BIG) || !pageable) {
    printf("mkbench: cannot allocate the floors' buffers\n");
    exit(1);
  }
  memset(pageable, 1, BIG);
  memset(pinned, 1, BIG);
  double us8, mibs, fmibs;
#define SYNC() c->sync(NULL)
#define HTOD_PAGEABLE(n) c->htod(d, pageable, n, NULL)
#define HTOD_PINNED(n) c->htod(d, pinned, n, NULL)
#define DTOH_PAGEABLE(n) c->dtoh(pageable, d, n, NULL)
#define DTOH_PINNED(n) c->dtoh(pinned, d, n, NULL)
#define DTOD(n) c->dtod(d2, d, n, NULL)
#define HTOD_PEER(n) c->htod(peer, pinned, n, NULL)
#define DTOD_PEER(n) c->dtod(peer, d, n, NULL)
  MEASURE_ROW(names[0], HTOD_PAGEABLE, SYNC);
  MEASURE_ROW(names[1], HTOD_PINNED, SYNC);
  f->htod8_pinned = us8;
  f->htod_flight_pinned = fmibs;
  MEASURE_ROW(names[2], DTOH_PAGEABLE, SYNC);
  MEASURE_ROW(names[3], DTOH_PINNED, SYNC);
  MEASURE_ROW(names[4], DTOD, SYNC);
  f->dtod_flight = fmibs;
  if (peer) {
    MEASURE_ROW(names[5], HTOD_PEER, SYNC);
    MEASURE_ROW(names[6], DTOD_PEER, SYNC);
  } else {
    row(names[5], -1, -1, -1);
    row(names[6], -1, -1, -1);
  }
  free(pageable);
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  if (gex_Client_Init(&client, &ep, &tm, "mkbench", &argc, &argv, 0) != GASNET_OK) return 1;
  int smoke = argc > 1 && !strcmp(argv[1], "--smoke");
  if (smoke) iters_small = 20, iters_big = 2;
  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  if (n != 2) {
    if (me == 0) fprintf(stderr, "mkbench: run with 2 ranks (gexrun -n 2 mkbench)\n");
    gasnet_exit(2);
  }
  gex_Segment_t hseg;
  if (gex_Segment_Attach(&hseg, tm, 4096) != GASNET_OK) gasnet_exit(1);
  ipc_handle_t *hs = gex_Segment_QueryAddr(hseg); /* rank 1's IPC handle lands in rank 0's */
  void *hs0 = NULL;                                 /* ... at this address of rank 0's */
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, 0, &hs0, NULL, NULL, 0));

  /* The floors' driver, and rank 1's IPC export. */
  struct cu c;
  memset(&c, 0, sizeof c);
  const char *why = NULL;
  int cu_ok = !cu_load(&c, &why);
  uint64_t mine = 0, peer = 0;
  if (cu_ok && me == 1) {
    ipc_handle_t h;
    if (c.alloc(&mine, BIG) || c.ipc_get(&h, mine)) cu_ok = 0;
    else gex_RMA_PutBlocking(tm, 0, hs0, &h, sizeof h, 0);
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  if (cu_ok && me == 0 && c.ipc_open(&peer, *hs, 1 /* CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS */))
    peer = 0;

  /* libgex: a CUDA_UVA kind, a device segment of 2 x 4 MiB bound to
   * endpoint 1 and published. */
  gex_MK_Create_args_t args;
  memset(&args, 0, sizeof args);
  args.gex_class = GEX_MK_CLASS_CUDA_UVA;
  args.gex_args.gex_class_cuda_uva.gex_CUdevice = 0;
  gex_MK_t kind;
  int mk_ok = gex_MK_Create(&kind, client, &args, 0) == GASNET_OK;
  gex_Segment_t dseg;
  gex_EP_t dep;
  if (mk_ok && (gex_Segment_Create(&dseg, client, NULL, 2 * BIG, kind, 0) != GASNET_OK ||
                gex_EP_Create(&dep, client, GEX_EP_CAPABILITY_RMA, 0) != GASNET_OK ||
                gex_EP_BindSegment(dep, dseg, 0) != GASNET_OK))
    gasnet_exit(1);
  if (mk_ok && gex_EP_PublishBoundSegment(tm, &dep, 1, 0) != GASNET_OK) gasnet_exit(1);
  void *remote = NULL;
  gex_TM_t h2d = GEX_TM_INVALID, d2d = GEX_TM_INVALID;
  if (mk_ok) {
    h2d = gex_TM_Pair(ep, 1);
    d2d = gex_TM_Pair(dep, 1);
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(h2d, 1, &remote, NULL, NULL, 0));
  }

  if (me == 0) {
    printf("mkbench: CUDA device 0; rank 0 measures, rank 1 owns the neighbour's memory; "
           "blocking: %ld x 8 B and %ld x 4 MiB, each complete before the next; in flight: "
           "%d x 4 MiB started, then one wait\n",
           iters_small, iters_big, INFLIGHT);
    printf("  %-56s %12s %12s %12s\n", "operation", "8 B us", "4 MiB MiB/s", "in flight");
    struct floors f = {-1, -1, -1};
    if (!cu_ok) printf("  (floors not measured: %s)\n", why);
    floors(&c, cu_ok, peer, &f);
    double put8 = -1, putflight = -1, ddflight = -1;
    if (!mk_ok) {
      printf("  (libgex rows not measured: gex_MK_Create refused a CUDA_UVA kind)\n");
    } else {
      /* host memory: pageable, and pinned where the driver is here */
      char *buf = malloc(BIG), *back = malloc(BIG), *pbuf = NULL, *pback = NULL;
      if (cu_ok && (c.alloc_host((void **)&pbuf, BIG) || c.alloc_host((void **)&pback, BIG)))
        pbuf = pback = NULL;
      if (!buf || !back) gasnet_exit(1);
      for (size_t i = 0; i < BIG; i++) buf[i] = (char)(i * 7 + 3);
      if (pbuf) memcpy(pbuf, buf, BIG);
      char *mine_dev = gex_Segment_QueryAddr(dseg);
      double us8, mibs, fmibs;
      int bad = 0;
#define WAIT_PUT() gex_NBI_Wait(GEX_EC_PUT, 0)
#define WAIT_GET() gex_NBI_Wait(GEX_EC_GET, 0)
/* libgex: the blocking call, and the NBI call waited for by WAIT(). */
#define MEASURE_LIBGEX(label, BLOCKING, NBI, WAIT) MEASURE(label, BLOCKING, NOTHING, NBI, WAIT)
#define PUT_H2D(n) gex_RMA_PutBlocking(h2d, 1, remote, buf, n, 0)
#define PUTNBI_H2D(n) gex_RMA_PutNBI(h2d, 1, remote, buf, n, GEX_EVENT_DEFER, 0)
#define PUT_PH2D(n) gex_RMA_PutBlocking(h2d, 1, remote, pbuf, n, 0)
#define PUTNBI_PH2D(n) gex_RMA_PutNBI(h2d, 1, remote, pbuf, n, GEX_EVENT_DEFER, 0)
#define GET_D2H(n) gex_RMA_GetBlocking(h2d, back, 1, remote, n, 0)
#define GETNBI_D2H(n) gex_RMA_GetNBI(h2d, back, 1, remote, n, 0)
#define GET_D2PH(n) gex_RMA_GetBlocking(h2d, pback, 1, remote, n, 0)
#define GETNBI_D2PH(n) gex_RMA_GetNBI(h2d, pback, 1, remote, n, 0)
#define PUT_D2D(n) gex_RMA_PutBlocking(d2d, 1, (char *)remote + BIG, mine_dev, n, 0)
#define PUTNBI_D2D(n) gex_RMA_PutNBI(d2d, 1, (char *)remote + BIG, mine_dev, n, GEX_EVENT_DEFER, 0)
#define PUT_LOOP(n) gex_RMA_PutBlocking(h2d, 0, mine_dev, buf, n, 0)
#define PUTNBI_LOOP(n) gex_RMA_PutNBI(h2d, 0, mine_dev, buf, n, GEX_EVENT_DEFER, 0)
      MEASURE_LIBGEX("libgex Put, pageable host -> rank 1's device segment", PUT_H2D, PUTNBI_H2D,
                     WAIT_PUT);
      if (pbuf) {
        MEASURE_LIBGEX("libgex Put, pinned host -> rank 1's device segment", PUT_PH2D,
                       PUTNBI_PH2D, WAIT_PUT);
        put8 = us8;
        putflight = fmibs;
      } else {
        row("libgex Put, pinned host -> rank 1's device segment", -1, -1, -1);
      }
      MEASURE_LIBGEX("libgex Get, rank 1's device segment -> pageable host", GET_D2H,
                     GETNBI_D2H, WAIT_GET);
      bad |= memcmp(back, buf, BIG) != 0;
      if (pbuf) {
        MEASURE_LIBGEX("libgex Get, rank 1's device segment -> pinned host", GET_D2PH,
                       GETNBI_D2PH, WAIT_GET);
        bad |= memcmp(pback, buf, BIG) != 0;
      } else {
        row("libgex Get, rank 1's device segment -> pinned host", -1, -1, -1);
      }
      PUT_LOOP(BIG); /* our own segment: the source of the next row */
      MEASURE_LIBGEX("libgex Put, rank 0's device segment -> rank 1's", PUT_D2D, PUTNBI_D2D,
                     WAIT_PUT);
      ddflight = fmibs;
      memset(back, 0, BIG);
      gex_RMA_GetBlocking(h2d, back, 1, (char *)remote + BIG, BIG, 0);
      bad |= memcmp(back, buf, BIG) != 0;
      MEASURE_LIBGEX("libgex Put, host -> rank 0's own device segment (loopback)", PUT_LOOP,
                     PUTNBI_LOOP, WAIT_PUT);
      memset(back, 0, BIG);
      gex_RMA_GetBlocking(h2d, back, 0, mine_dev, BIG, 0);
      bad |= memcmp(back, buf, BIG) != 0;
      if (bad) {
        printf("mkbench: FAIL: data moved by libgex does not match\n");
        gasnet_exit(1);
      }
      free(buf);
      free(back);
    }
    printf("  targets (docs/memory-kinds.md), like against like:\n");
    if (put8 >= 0 && f.htod8_pinned > 0)
      printf("    8 B Put pinned host -> neighbour's device / pinned HtoD, blocking: %.2fx "
             "(target <= 1.3x)\n", put8 / f.htod8_pinned);
    else
      printf("    8 B Put pinned host -> neighbour's device / pinned HtoD: not measured\n");
    if (putflight >= 0 && f.htod_flight_pinned > 0)
      printf("    4 MiB Put pinned host -> neighbour's device, share of pinned HtoD, in flight: "
             "%.0f%% (target >= 90%%)\n", 100 * putflight / f.htod_flight_pinned);
    else
      printf("    4 MiB Put pinned host -> device, share of pinned HtoD: not measured\n");
    if (ddflight >= 0 && f.dtod_flight > 0)
      printf("    4 MiB Put device -> device (two ranks), share of DtoD, in flight: %.0f%% "
             "(target >= 80%%)\n", 100 * ddflight / f.dtod_flight);
    else
      printf("    4 MiB Put device -> device (two ranks), share of DtoD: not measured\n");
    if (smoke) printf("PASS mkbench (2 ranks)\n");
    fflush(stdout);
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  gasnet_exit(0);
}
