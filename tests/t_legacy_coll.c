/* t_legacy_coll.c -- the GASNet-1 prototype collectives (gasnet_coll_*,
 * include/gasnet_coll_legacy.h): broadcast, scatter, gather, gather_all and
 * exchange, blocking, _nb and multi-address (M) forms, with LOCAL and
 * SINGLE addresses, every IN/OUT synchronisation mode, several sizes
 * (empty, one byte, one and several AM fragments) and roots; several
 * operations in flight synchronised by every try/wait form and mixed with
 * gex_Coll_BroadcastNB, with a second thread polling meanwhile; and the
 * named team barriers.
 *
 * The sync modes are checked for what they promise:
 *   IN_ALLSYNC  -- each rank's source is written by another rank with a
 *                  Put just before that rank enters: the collective must
 *                  not read it before every rank entered;
 *   OUT_ALLSYNC -- on return a rank reads another rank's destination with
 *                  a Get: it must be complete;
 *   OUT_MYSYNC  -- on return the rank's own destination is complete;
 *   *_NOSYNC    -- the test brackets the call with barriers, as a client must.
 * Every destination is followed by guard bytes that must stay untouched.
 */
#include "test_util.h"

#include <gasnet_coll.h>
#include <pthread.h>

enum kind { BCAST, SCATTER, GATHER, GATHER_ALL, EXCHANGE, NKINDS };
static const char *const kind_name[NKINDS] = {"broadcast", "scatter", "gather", "gather_all",
                                              "exchange"};

#define MAXNB 40000u   /* largest block in the main sweep: three AM fragments */
#define GUARD 64u      /* guard bytes after every destination */
#define GUARD_BYTE 0xEE
#define STALE_BYTE 0xAB /* a source not yet written by its owner's writer */
#define NSLOTS 6        /* operations in flight at once */
#define ALL_TARGETS 0xFFFFu

static gex_Rank_t n, me;
static size_t slot_size; /* bytes of one slot: source then destination regions */

static uintptr_t seg_size_for(gex_Rank_t rank, gex_Rank_t size) {
  (void)rank;
  size_t half = ((size_t)size * MAXNB + GUARD + 63) & ~(size_t)63;
  return (uintptr_t)(2 * half * NSLOTS);
}

static size_t half_size(void) { return ((size_t)n * MAXNB + GUARD + 63) & ~(size_t)63; }
static uintptr_t src_off(int slot) { return (uintptr_t)slot * slot_size; }
static uintptr_t dst_off(int slot) { return (uintptr_t)slot * slot_size + half_size(); }
static unsigned char *my_src(int slot) { return T.seg_base + src_off(slot); }
static unsigned char *my_dst(int slot) { return T.seg_base + dst_off(slot); }

static int rooted(enum kind k) { return k == BCAST || k == SCATTER || k == GATHER; }

/* Content of the block that rank s sends toward d (ALL_TARGETS: the same
 * block for everyone) in collective number tag. */
static uint64_t seed_of(unsigned tag, gex_Rank_t s, unsigned d) {
  return test_seed(0x1e6ac011u, tag, s, d);
}

/* Does rank s contribute a source, and how many blocks? */
static int has_src(enum kind k, gex_Rank_t s, gex_Rank_t root) {
  return (k == BCAST || k == SCATTER) ? s == root : 1;
}
static size_t src_blocks(enum kind k) { return (k == SCATTER || k == EXCHANGE) ? n : 1; }
/* Bytes of rank d's destination that the collective writes. */
static size_t dst_len(enum kind k, gex_Rank_t d, gex_Rank_t root, size_t nb) {
  switch (k) {
    case BCAST:
    case SCATTER: return nb;
    case GATHER: return d == root ? (size_t)n * nb : 0;
    default: return (size_t)n * nb;
  }
}

static void fill_src(enum kind k, gex_Rank_t s, gex_Rank_t root, unsigned tag, size_t nb,
                     unsigned char *buf) {
  for (size_t j = 0; j < src_blocks(k); j++) {
    unsigned target = (k == SCATTER || k == EXCHANGE) ? (unsigned)j
                      : k == GATHER                  ? (unsigned)root
                                                     : ALL_TARGETS;
    test_fill(buf + j * nb, nb, seed_of(tag, s, target));
  }
}

/* buf: rank d's destination followed by GUARD bytes. */
static void check_dst(enum kind k, gex_Rank_t d, gex_Rank_t root, unsigned tag, size_t nb,
                      const unsigned char *buf, const char *what) {
  size_t len = dst_len(k, d, root, nb);
  for (size_t j = 0; nb && j < len / nb; j++) {
    gex_Rank_t s = (k == BCAST || k == SCATTER) ? root : (gex_Rank_t)j;
    unsigned target = (k == SCATTER || k == EXCHANGE) ? (unsigned)d
                      : k == GATHER                  ? (unsigned)root
                                                     : ALL_TARGETS;
    long bad = test_verify(buf + j * nb, nb, seed_of(tag, s, target));
    CHECKF(bad < 0,
           "%s (%s) of %zu bytes, root %u, collective %u: rank %u's block %zu from rank %u: "
           "byte %ld is 0x%02x",
           kind_name[k], what, nb, (unsigned)root, tag, (unsigned)d, j, (unsigned)s, bad,
           buf[j * nb + (size_t)bad]);
  }
  long bad = test_verify_byte(buf + len, GUARD, GUARD_BYTE);
  CHECKF(bad < 0, "%s (%s) of %zu bytes, root %u: rank %u's guard byte %ld overwritten",
         kind_name[k], what, nb, (unsigned)root, (unsigned)d, bad);
}

/* Initiate one collective; 'form' 0: single address, 1: M (address lists). */
static gasnet_coll_handle_t start(enum kind k, int form, int flags, gex_Rank_t root, size_t nb,
                                  int slot) {
  int local = (flags & GASNET_COLL_LOCAL) != 0;
  void *dst = my_dst(slot), *src = my_src(slot);
  /* LOCAL: a rank names only what is its own; SINGLE: every rank passes
   * every argument. */
  if (local && (k == BCAST || k == SCATTER) && me != root) src = NULL;
  if (local && k == GATHER && me != root) dst = NULL;
  /* M lists: LOCAL has one entry (this rank's), SINGLE one per image, of
   * which only this rank's entry may be used here. */
  void *dl[64], *sl[64];
  size_t entries = local ? 1 : n;
  CHECK(entries <= 64);
  for (size_t i = 0; i < entries; i++) dl[i] = sl[i] = NULL;
  dl[local ? 0 : me] = dst;
  sl[local ? 0 : me] = src;
  gasnet_team_handle_t team = GASNET_TEAM_ALL;
  switch (k) {
    case BCAST:
      return form ? gasnet_coll_broadcastM_nb(team, dl, root, src, nb, flags)
                  : gasnet_coll_broadcast_nb(team, dst, root, src, nb, flags);
    case SCATTER:
      return form ? gasnet_coll_scatterM_nb(team, dl, root, src, nb, flags)
                  : gasnet_coll_scatter_nb(team, dst, root, src, nb, flags);
    case GATHER:
      return form ? gasnet_coll_gatherM_nb(team, root, dst, sl, nb, flags)
                  : gasnet_coll_gather_nb(team, root, dst, src, nb, flags);
    case GATHER_ALL:
      return form ? gasnet_coll_gather_allM_nb(team, dl, sl, nb, flags)
                  : gasnet_coll_gather_all_nb(team, dst, src, nb, flags);
    default:
      return form ? gasnet_coll_exchangeM_nb(team, dl, sl, nb, flags)
                  : gasnet_coll_exchange_nb(team, dst, src, nb, flags);
  }
}

/* The same through the blocking calls. */
static void run_blocking(enum kind k, int form, int flags, gex_Rank_t root, size_t nb, int slot) {
  int local = (flags & GASNET_COLL_LOCAL) != 0;
  void *dst = my_dst(slot), *src = my_src(slot);
  if (local && (k == BCAST || k == SCATTER) && me != root) src = NULL;
  if (local && k == GATHER && me != root) dst = NULL;
  void *dl[64], *sl[64];
  for (size_t i = 0; i < 64; i++) dl[i] = sl[i] = NULL;
  dl[local ? 0 : me] = dst;
  sl[local ? 0 : me] = src;
  gasnet_team_handle_t team = GASNET_TEAM_ALL;
  switch (k) {
    case BCAST:
      if (form) gasnet_coll_broadcastM(team, dl, root, src, nb, flags);
      else gasnet_coll_broadcast(team, dst, root, src, nb, flags);
      break;
    case SCATTER:
      if (form) gasnet_coll_scatterM(team, dl, root, src, nb, flags);
      else gasnet_coll_scatter(team, dst, root, src, nb, flags);
      break;
    case GATHER:
      if (form) gasnet_coll_gatherM(team, root, dst, sl, nb, flags);
      else gasnet_coll_gather(team, root, dst, src, nb, flags);
      break;
    case GATHER_ALL:
      if (form) gasnet_coll_gather_allM(team, dl, sl, nb, flags);
      else gasnet_coll_gather_all(team, dst, src, nb, flags);
      break;
    default:
      if (form) gasnet_coll_exchangeM(team, dl, sl, nb, flags);
      else gasnet_coll_exchange(team, dst, src, nb, flags);
      break;
  }
}

static const int in_modes[3] = {GASNET_COLL_IN_NOSYNC, GASNET_COLL_IN_MYSYNC,
                                GASNET_COLL_IN_ALLSYNC};
static const int out_modes[3] = {GASNET_COLL_OUT_NOSYNC, GASNET_COLL_OUT_MYSYNC,
                                 GASNET_COLL_OUT_ALLSYNC};

static unsigned tag_counter;

/* Prepare slot 'slot' for collective 'tag' before entering it. */
static void prepare(enum kind k, int flags, gex_Rank_t root, size_t nb, unsigned tag, int slot,
                    unsigned char *tmp) {
  size_t dlen = dst_len(k, me, root, nb);
  memset(my_dst(slot), GUARD_BYTE, dlen + GUARD);
  if (!has_src(k, me, root)) return;
  if (flags & GASNET_COLL_IN_ALLSYNC)
    memset(my_src(slot), STALE_BYTE, src_blocks(k) * nb); /* the next rank's writer fills it */
  else
    fill_src(k, me, root, tag, nb, my_src(slot));
  (void)tmp;
}

/* IN_ALLSYNC: write the source of the next rank (after a barrier that
 * orders it after that rank's own stale fill). */
static void write_next_src(enum kind k, gex_Rank_t root, size_t nb, unsigned tag, int slot,
                           unsigned char *tmp) {
  gex_Rank_t next = (me + 1) % n;
  if (!has_src(k, next, root) || nb == 0) return;
  fill_src(k, next, root, tag, nb, tmp);
  gex_RMA_PutBlocking(T.tm, next, test_peer_addr(next, src_off(slot)), tmp, src_blocks(k) * nb,
                      0);
}

/* After return: my own destination, and with OUT_ALLSYNC the next rank's. */
static void verify(enum kind k, int flags, gex_Rank_t root, size_t nb, unsigned tag, int slot,
                   unsigned char *tmp) {
  check_dst(k, me, root, tag, nb, my_dst(slot), "own destination");
  if (flags & GASNET_COLL_OUT_ALLSYNC) {
    gex_Rank_t next = (me + 1) % n;
    size_t len = dst_len(k, next, root, nb) + GUARD;
    gex_RMA_GetBlocking(T.tm, tmp, next, test_peer_addr(next, dst_off(slot)), len, 0);
    check_dst(k, next, root, tag, nb, tmp, "next rank's destination after OUT_ALLSYNC");
  }
}

/* One collective through its whole protocol. */
static void one_case(enum kind k, int flags, gex_Rank_t root, size_t nb, int variant,
                     unsigned char *tmp) {
  unsigned tag = ++tag_counter;
  const int slot = 0;
  prepare(k, flags, root, nb, tag, slot, tmp);
  if (flags & (GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_ALLSYNC)) test_barrier();
  if (flags & GASNET_COLL_IN_ALLSYNC) write_next_src(k, root, nb, tag, slot, tmp);
  int form = variant % 2;
  if (variant / 2 % 2)
    run_blocking(k, form, flags, root, nb, slot);
  else
    gasnet_coll_wait_sync(start(k, form, flags, root, nb, slot));
  if (flags & GASNET_COLL_OUT_NOSYNC) test_barrier();
  verify(k, flags, root, nb, tag, slot, tmp);
  /* Nobody may still read or check my buffers when the next case refills them. */
  test_barrier();
}

static void sweep(unsigned char *tmp) {
  const size_t sizes[] = {0, 1, 13, 4099, 16385, MAXNB};
  const size_t nsizes = sizeof sizes / sizeof sizes[0];
  gex_Rank_t roots[3] = {0, n - 1, n / 2};
  int nroots = n == 1 ? 1 : n == 2 ? 2 : 3;
  int variant = 0;
  for (size_t si = 0; si < nsizes; si++) {
    size_t nb = sizes[si];
    int big = nb > 4096;
    if (big && test_reduced() && nb != MAXNB && nb != 16385) continue;
    for (int addr = 0; addr < 2; addr++) {
      int where = addr ? GASNET_COLL_SINGLE : GASNET_COLL_LOCAL;
      for (int c = 0; c < 9; c++) {
        if (big && c % 4 != 0) continue; /* large blocks: NO/NO, MY/MY, ALL/ALL */
        int flags = in_modes[c / 3] | out_modes[c % 3] | where |
                    (addr ? GASNET_COLL_SRC_IN_SEGMENT | GASNET_COLL_DST_IN_SEGMENT : 0);
        for (int k = 0; k < NKINDS; k++) {
          for (int ri = 0; ri < (rooted((enum kind)k) ? nroots : 1); ri++) {
            if (big && ri != (int)(variant % (unsigned)nroots) && rooted((enum kind)k)) continue;
            one_case((enum kind)k, flags, roots[ri], nb, variant++, tmp);
          }
        }
      }
    }
  }
  test_log0("sweep: %u collectives checked", tag_counter);
}

/* Several operations in flight, completed by each synchronisation form. */
static void in_flight(unsigned char *tmp) {
  const int combos[3] = {GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC,
                         GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC,
                         GASNET_COLL_IN_NOSYNC | GASNET_COLL_OUT_NOSYNC};
  const size_t sizes[2] = {3000, 20000};
  for (int method = 0; method < 5; method++) {
    for (int ci = 0; ci < 3; ci++) {
      int flags = combos[ci] | ((method + ci) % 2 ? GASNET_COLL_SINGLE : GASNET_COLL_LOCAL);
      size_t nb = sizes[(method + ci) % 2];
      enum kind kinds[NSLOTS];
      gex_Rank_t roots[NSLOTS];
      unsigned tags[NSLOTS];
      gasnet_coll_handle_t h[NSLOTS];
      for (int s = 0; s < NSLOTS; s++) {
        kinds[s] = (enum kind)((s + method) % NKINDS);
        roots[s] = (gex_Rank_t)((s * 3 + (unsigned)method) % n);
        tags[s] = ++tag_counter;
        prepare(kinds[s], flags, roots[s], nb, tags[s], s, tmp);
      }
      if (flags & (GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_ALLSYNC)) test_barrier();
      if (flags & GASNET_COLL_IN_ALLSYNC)
        for (int s = 0; s < NSLOTS; s++) write_next_src(kinds[s], roots[s], nb, tags[s], s, tmp);
      for (int s = 0; s < NSLOTS; s++) {
        h[s] = start(kinds[s], s % 2, flags, roots[s], nb, s);
        if (s == NSLOTS / 2) {
          /* A GASNet-EX collective in the middle of legacy ones. */
          uint64_t v = me == 0 ? 0x5eed5eedull + tags[s] : 0, w = 0;
          gex_Event_Wait(gex_Coll_BroadcastNB(T.tm, 0, &w, &v, sizeof v, 0));
          CHECK(w == 0x5eed5eedull + tags[s]);
        }
      }
      switch (method) {
        case 0: /* wait, last first: earlier ones must progress meanwhile */
          for (int s = NSLOTS; s-- > 0;) gasnet_coll_wait_sync(h[s]);
          break;
        case 1: /* try, in order */
          for (int s = 0; s < NSLOTS; s++)
            while (gasnet_coll_try_sync(h[s]) != GASNET_OK) {
            }
          break;
        case 2: { /* wait_some until every handle is invalidated */
          int left = NSLOTS;
          while (left) {
            gasnet_coll_wait_sync_some(h, NSLOTS);
            int now = 0;
            for (int s = 0; s < NSLOTS; s++) now += h[s] != GASNET_COLL_INVALID_HANDLE;
            CHECKF(now < left || left == 0, "wait_sync_some returned with nothing completed");
            left = now;
          }
          CHECK(gasnet_coll_try_sync_some(h, NSLOTS) == GASNET_OK); /* only invalid ones */
          break;
        }
        case 3:
          gasnet_coll_wait_sync_all(h, NSLOTS);
          for (int s = 0; s < NSLOTS; s++) CHECK(h[s] == GASNET_COLL_INVALID_HANDLE);
          break;
        default:
          while (gasnet_coll_try_sync_all(h, NSLOTS) != GASNET_OK) {
          }
          for (int s = 0; s < NSLOTS; s++) CHECK(h[s] == GASNET_COLL_INVALID_HANDLE);
          CHECK(gasnet_coll_try_sync_all(h, NSLOTS) == GASNET_OK);
          break;
      }
      if (flags & GASNET_COLL_OUT_NOSYNC) test_barrier();
      for (int s = 0; s < NSLOTS; s++) verify(kinds[s], flags, roots[s], nb, tags[s], s, tmp);
      test_barrier();
    }
  }
  /* Back to back without barriers (MY/MY), each result feeding the next. */
  int flags = GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_LOCAL;
  for (int it = 0; it < 50; it++) {
    uint32_t v = me == (gex_Rank_t)(it % n) ? 1000u + (uint32_t)it : 0, got[64];
    uint32_t w = 0;
    gasnet_coll_broadcast(GASNET_TEAM_ALL, &w, (gasnet_image_t)(it % n), &v, sizeof v, flags);
    CHECK(w == 1000u + (uint32_t)it);
    w += me;
    CHECK(n <= 64);
    gasnet_coll_gather_all(GASNET_TEAM_ALL, got, &w, sizeof w, flags);
    for (gex_Rank_t r = 0; r < n; r++) CHECK(got[r] == 1000u + (uint32_t)it + r);
  }
  /* Zero handles and the invalid handle. */
  CHECK(gasnet_coll_try_sync(GASNET_COLL_INVALID_HANDLE) == GASNET_OK);
  gasnet_coll_wait_sync(GASNET_COLL_INVALID_HANDLE);
  CHECK(gasnet_coll_try_sync_all(NULL, 0) == GASNET_OK);
  test_log0("in flight: done");
}

static void barriers(void) {
  gasnet_team_handle_t team = GASNET_TEAM_ALL;
  CHECK(gasnet_coll_barrier(team, 42, 0) == GASNET_OK);
  CHECK(gasnet_coll_barrier(team, 0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK);
  CHECK(gasnet_coll_barrier(team, 0, GASNET_BARRIERFLAG_UNNAMED) == GASNET_OK);
  /* Anonymous ranks match a named one. */
  int anon = me % 2;
  CHECK(gasnet_coll_barrier(team, 7, anon ? GASNET_BARRIERFLAG_ANONYMOUS : 0) == GASNET_OK);
  /* Different names: a mismatch everywhere (with two ranks or more). */
  int rc = gasnet_coll_barrier(team, (int)me, 0);
  CHECK(rc == (n > 1 ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK));
  /* One rank forces a mismatch. */
  rc = gasnet_coll_barrier(team, 5, me == n - 1 ? GASNET_BARRIERFLAG_MISMATCH : 0);
  CHECK(rc == GASNET_ERR_BARRIER_MISMATCH);
  /* Notify, then try until done; a wait that repeats other arguments. */
  gasnet_coll_barrier_notify(team, 99, 0);
  while ((rc = gasnet_coll_barrier_try(team, 99, 0)) == GASNET_ERR_NOT_READY) {
  }
  CHECK(rc == GASNET_OK);
  gasnet_coll_barrier_notify(team, 3, 0);
  CHECK(gasnet_coll_barrier_wait(team, 4, 0) == GASNET_ERR_BARRIER_MISMATCH);
  /* On a subset team too. */
  gex_TM_t half;
  gex_TM_Split(&half, T.tm, (int)(me % 2), (int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  CHECK(gasnet_coll_barrier(half, 11, 0) == GASNET_OK);
  CHECK(gasnet_coll_barrier(half, (int)(me % 2), 0) == GASNET_OK);
  gex_TM_Destroy(half, NULL, 0);
  test_log0("barriers: done");
}

/* A thread that only polls, so that handlers run concurrently with the
 * main thread's initiations and syncs (as with testcoll -p). */
static atomic_int stop_polling;
static void *poller(void *arg) {
  (void)arg;
  while (!atomic_load(&stop_polling)) gasnet_AMPoll();
  return NULL;
}

int main(int argc, char **argv) {
  test_seg_size_fn = seg_size_for;
  test_init(&argc, &argv, "t_legacy_coll", 0, NULL, 0);
  n = T.size;
  me = T.rank;
  slot_size = 2 * half_size();
  CHECK(GASNET_TEAM_ALL == T.tm);
  unsigned char *tmp = malloc(half_size());
  CHECK(tmp);
  sweep(tmp);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, poller, NULL) == 0);
  in_flight(tmp);
  atomic_store(&stop_polling, 1);
  CHECK(pthread_join(th, NULL) == 0);
  barriers();
  free(tmp);
  gasnet_coll_dumpTuningState(NULL, GASNET_TEAM_ALL);
  gasnet_coll_dumpProfile(NULL, GASNET_TEAM_ALL);
  test_finish();
}
