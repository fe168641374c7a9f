/* t_mk_rma.c -- RMA into and out of segments of device memory (CUDA_UVA
 * kinds; docs/memory-kinds.md), every byte checked.
 *
 * Every rank makes a CUDA_UVA kind for device 0, a device segment bound to
 * an endpoint of its own (index 1) and published, and a host buffer.
 * Without a GPU it runs on the test device (GEX_MK_TEST_DEVICE=host),
 * whose memory faults when touched other than through its driver: a
 * device segment reached in place instead of through its device fails
 * the test at once.  For each size (1 byte to 1 MiB and more than one
 * staging window), and for each writer w and target t = w + 1 (itself when
 * alone: loopback):
 *   1. w Puts its pattern from host memory into its slot of t's device
 *      segment (blocking, NB, NBI in four pieces, or NBI in an access
 *      region, in turn), and scribbles over its buffer as soon as the
 *      calls return (local completion);
 *   2. barrier; reader r = w + 2 Gets that slot back into host memory
 *      (the same forms in turn) and checks it is w's pattern, with a
 *      guard on each side of its buffer untouched;
 *   3. barrier; t copies the slot device to device, through its own
 *      endpoint's pair (local buffer in its device segment) into a second
 *      slot of reader r's segment (the same forms), and r checks that
 *      slot as in 2;
 *   4. barrier; every rank clears its slot 0, Gets the second slot of its
 *      target (what it copied there in 3) back into it device to device
 *      (the same forms), and checks it;
 *   5. device to host: every rank Puts its slot 0 into its target's
 *      primordial (host) segment through the pair from its device
 *      endpoint to index 0 (local buffer in device memory, remote in host
 *      memory: mapped here, through the kernel or over the network), the
 *      target checks its own segment with the CPU, guards included; then
 *      every rank Gets it back through the same pair into its slot 1 and
 *      checks that;
 *   6. an AM Long Request through the pair to index 1 lands its payload
 *      in the target's device segment (placed by RMA: its handler sees
 *      the address, never the bytes), and the sender Gets it back;
 *   7. every rank destroys its bound device segment, then its kind.
 *
 * GEX_TEST_STAGED=+: some operation of the job must have taken the staged
 * path (through AMs and host memory); =0: none may have (every target was
 * this process or a neighbour opened through its handle).
 * GEX_TEST_ASYNC=+: some NB or NBI operation was a device copy finished
 * after the call returned (the test device finishes none at once).
 *
 * With GEX_MK_TEST_DEVICE set the kind must be made; without it the
 * machine's GPU is used, and the test SKIPs (status 77) where there is
 * none or the build has no CUDA_UVA class.
 */
#include "test_util.h"

#include <gasnet.h> /* gasnet_exit */
#include <gasnet_mk.h>

enum { GUARD = 64 };
/* rma/rma_device.c (libgex is linked in statically) */
uint64_t gexi_rma_device_staged(void);
uint64_t gexi_rma_device_started(void);
#ifdef GASNET_HAVE_MK_CLASS_CUDA_UVA
#define HAVE_CLASS 1
#else
#define HAVE_CLASS 0
#endif

/* Step 6's handler: where the payload landed, and how long it is. */
static uintptr_t my_base;
static _Atomic int long_hits;
static void long_hit(gex_Token_t t, void *p, size_t nbytes, gex_AM_Arg_t len) {
  (void)t;
  CHECKF((uintptr_t)p == my_base + 64 && nbytes == (size_t)len, "AM Long at %p, %zu bytes", p,
         nbytes);
  atomic_fetch_add(&long_hits, 1);
}
static gex_AM_Entry_t handlers[] = {
    {0, (gex_AM_Fn_t)long_hit, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "long_hit"}};

/* Forms of an operation: blocking, NB, NBI (in four pieces), NBI in an
 * access region.  Returns once it is complete; 'scribble' (a Put's
 * source, or NULL) is overwritten as soon as the calls return. */
enum { FORMS = 4 };
static void rma(int form, int is_put, gex_TM_t tm, gex_Rank_t r, void *remote, void *local,
                size_t len, unsigned char *scribble) {
  char *rem = remote, *loc = local;
  gex_Event_t ev = GEX_EVENT_INVALID;
  if (form == 0) {
    if (is_put)
      gex_RMA_PutBlocking(tm, r, remote, local, len, 0);
    else
      gex_RMA_GetBlocking(tm, local, r, remote, len, 0);
  } else if (form == 1) {
    ev = is_put ? gex_RMA_PutNB(tm, r, remote, local, len, GEX_EVENT_NOW, 0)
                : gex_RMA_GetNB(tm, local, r, remote, len, 0);
  } else {
    if (form == 3) gex_NBI_BeginAccessRegion(0);
    size_t piece = (len + 3) / 4;
    for (size_t off = 0; off < len; off += piece) {
      size_t k = len - off < piece ? len - off : piece;
      if (is_put)
        CHECK(gex_RMA_PutNBI(tm, r, rem + off, loc + off, k, GEX_EVENT_NOW, 0) == 0);
      else
        CHECK(gex_RMA_GetNBI(tm, loc + off, r, rem + off, k, 0) == 0);
    }
    if (form == 3) ev = gex_NBI_EndAccessRegion(0);
  }
  if (scribble) memset(scribble, 0x5A, len);
  if (form == 2)
    gex_NBI_Wait(is_put ? GEX_EC_PUT : GEX_EC_GET, 0);
  else if (form != 0)
    gex_Event_Wait(ev);
}

int main(int argc, char **argv) {
  /* the primordial segment: step 5's slot, guards after it */
  test_init(&argc, &argv, "t_mk_rma", (4 << 20) + 2 * 4096, handlers, 1);
  const int want_test = getenv("GEX_MK_TEST_DEVICE") != NULL;
  gex_MK_Create_args_t args;
  memset(&args, 0, sizeof args);
  args.gex_class = GEX_MK_CLASS_CUDA_UVA;
  args.gex_args.gex_class_cuda_uva.gex_CUdevice = 0;
  gex_MK_t kind;
  int rc = gex_MK_Create(&kind, T.client, &args, 0);
  if (!want_test && (rc == GASNET_ERR_RESOURCE || (rc == GASNET_ERR_BAD_ARG &&
                                                    !HAVE_CLASS))) {
    /* (every rank alike: one machine) */
    test_log0("SKIP: t_mk_rma: %s", rc == GASNET_ERR_RESOURCE
                                        ? "no CUDA device here (gex_MK_Create said why above)"
                                        : "this build of libgex has no CUDA_UVA class");
    test_barrier();
    gasnet_exit(77);
  }
  CHECK(rc == GASNET_OK);

  const size_t sizes[] = {1, 7, 8, 4099, 65536 * 3 + 5, 1 << 20, (4 << 20) + 24};
  const size_t nsizes = sizeof sizes / sizeof sizes[0];
  const size_t max = sizes[nsizes - 1];
  const size_t slot = (max + 4095) & ~(size_t)4095;
  gex_Segment_t seg;
  CHECK(gex_Segment_Create(&seg, T.client, NULL, 2 * slot, kind, 0) == GASNET_OK);
  gex_EP_t dep;
  CHECK(gex_EP_Create(&dep, T.client, GEX_EP_CAPABILITY_RMA, 0) == GASNET_OK);
  CHECK(gex_EP_QueryIndex(dep) == 1);
  CHECK(gex_EP_BindSegment(dep, seg, 0) == GASNET_OK);
  CHECK(gex_EP_PublishBoundSegment(T.tm, &dep, 1, 0) == GASNET_OK);
  /* Every rank's segment base, for addresses in it. */
  uintptr_t *base = calloc(T.size, sizeof *base);
  CHECK(base);
  for (gex_Rank_t r = 0; r < T.size; r++) {
    void *owner_addr = NULL;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(gex_TM_Pair(T.ep, 1), r, &owner_addr, NULL, NULL, 0));
    base[r] = (uintptr_t)owner_addr;
    CHECK(base[r] != 0);
  }
  CHECK(base[T.rank] == (uintptr_t)gex_Segment_QueryAddr(seg));
  my_base = base[T.rank];
  gex_TM_t to_dev = gex_TM_Pair(T.ep, 1); /* host endpoint -> device segments */
  gex_TM_t dev_dev = gex_TM_Pair(dep, 1); /* device endpoint -> device segments */
  gex_TM_t dev_host = gex_TM_Pair(dep, 0); /* device endpoint -> primordial host segments */

  unsigned char *buf = malloc(max + 2 * GUARD);
  CHECK(buf);
  gex_Rank_t n = T.size, me = T.rank;
  /* slot 0 of rank X is written by X - 1; I read (and check) the slot 0 of
   * me - 1, written by me - 2; my slot 1 gets, from me - 1, its slot 0,
   * written by me - 2 too. */
  gex_Rank_t target = (me + 1) % n, writer = (me + 2 * n - 2) % n;
  for (size_t i = 0; i < nsizes; i++) {
    size_t len = sizes[i];
    int form = (int)(i % FORMS);
    /* 1. my pattern into slot 0 of my target's segment */
    uint64_t seed = test_seed(me, len, 1, 0);
    test_fill(buf, len, seed);
    rma(form, 1, to_dev, target, (void *)base[target], buf, len, buf);
    test_barrier();
    /* 2. the writer two ranks back put its pattern into slot 0 of its target */
    gex_Rank_t wt = (writer + 1) % n;
    memset(buf, 0xEE, max + 2 * GUARD);
    void *src = (void *)base[wt];
    rma(form, 0, to_dev, wt, src, buf + GUARD, len, NULL);
    CHECK_PATTERN(buf + GUARD, len, test_seed(writer, len, 1, 0));
    CHECK_BYTES(buf, GUARD, 0xEE);
    CHECK_BYTES(buf + GUARD + len, GUARD, 0xEE);
    test_barrier();
    /* 3. slot 0 of my segment, device to device, into slot 1 of my target's */
    rma((form + 1) % FORMS, 1, dev_dev, target, (void *)(base[target] + slot), (void *)base[me],
        len, NULL);
    test_barrier();
    memset(buf, 0xEE, max + 2 * GUARD);
    gex_RMA_GetBlocking(to_dev, buf + GUARD, me, (void *)(base[me] + slot), len, 0);
    CHECK_PATTERN(buf + GUARD, len, test_seed(writer, len, 1, 0));
    CHECK_BYTES(buf + GUARD + len, GUARD, 0xEE);
    test_barrier();
    /* 4. back from my target's second slot into my slot 0 (written by me - 1) */
    memset(buf, 0xEE, max + 2 * GUARD);
    gex_RMA_PutBlocking(to_dev, me, (void *)base[me], buf, len, 0);
    rma((form + 2) % FORMS, 0, dev_dev, target, (void *)(base[target] + slot), (void *)base[me],
        len, NULL);
    gex_RMA_GetBlocking(to_dev, buf + GUARD, me, (void *)base[me], len, 0);
    CHECK_PATTERN(buf + GUARD, len, test_seed((me + n - 1) % n, len, 1, 0));
    CHECK_BYTES(buf + GUARD + len, GUARD, 0xEE);
    /* 5. my slot 0 (me - 1's pattern) into my target's host segment, and back */
    memset(T.seg_base, 0xEE, len + GUARD);
    test_barrier();
    rma((form + 3) % FORMS, 1, dev_host, target, test_peer_addr(target, 0), (void *)base[me], len,
        NULL);
    test_barrier();
    CHECK_PATTERN(T.seg_base, len, test_seed(writer, len, 1, 0));
    CHECK_BYTES(T.seg_base + len, GUARD, 0xEE);
    memset(buf, 0xEE, max + 2 * GUARD);
    gex_RMA_PutBlocking(to_dev, me, (void *)(base[me] + slot), buf, len + GUARD, 0);
    rma(form, 0, dev_host, target, test_peer_addr(target, 0), (void *)(base[me] + slot), len,
        NULL);
    gex_RMA_GetBlocking(to_dev, buf + GUARD, me, (void *)(base[me] + slot), len + GUARD, 0);
    CHECK_PATTERN(buf + GUARD, len, test_seed((me + n - 1) % n, len, 1, 0));
    CHECK_BYTES(buf + GUARD + len, GUARD, 0xEE);
    test_barrier();
  }
  /* 6. an AM Long into my target's device segment, and back by a Get */
  const size_t along = 4099;
  test_fill(buf, along, test_seed(me, along, 6, 0));
  CHECK(gex_AM_RequestLong1(to_dev, target, handlers[0].gex_index, buf, along,
                            (void *)(base[target] + 64), GEX_EVENT_NOW, 0,
                            (gex_AM_Arg_t)along) == 0);
  GASNET_BLOCKUNTIL(atomic_load(&long_hits) == 1);
  test_barrier();
  memset(buf, 0xEE, along);
  gex_RMA_GetBlocking(to_dev, buf, target, (void *)(base[target] + 64), along, 0);
  CHECK_PATTERN(buf, along, test_seed(me, along, 6, 0));
  free(buf);
  free(base);
  /* 7. as UPC++ ends a device allocator: its bound segment destroyed, then
   * the kind; the endpoint is not bound again */
  test_barrier();
  gex_Segment_Destroy(seg, 0);
  CHECK(gex_EP_QuerySegment(dep) == GEX_SEGMENT_INVALID);
  gex_Segment_t again;
  CHECK(gex_Segment_Create(&again, T.client, NULL, 4096, kind, 0) == GASNET_OK);
  CHECK(gex_EP_BindSegment(dep, again, 0) == GASNET_ERR_BAD_ARG);
  gex_Segment_Destroy(again, 0);
  gex_MK_Destroy(kind, 0);
  test_check_job_count("GEX_TEST_STAGED", gexi_rma_device_staged(),
                       "device RMA operations through the staged path");
  test_check_job_count("GEX_TEST_ASYNC", gexi_rma_device_started(),
                       "device copies of NB and NBI operations finished after the call");
  test_finish();
}
