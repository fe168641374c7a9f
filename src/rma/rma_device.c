/* rma/rma_device.c -- RMA to a segment of device memory (docs/memory-kinds.md).
 *
 * A device segment is bound to an endpoint of index k > 0 and never mapped
 * or touched in place: its peer entries have 'local' clear, so every RMA
 * through a TM-pair to it comes here (rma/rma_ep.c), whoever the target:
 *
 *   - this process (loopback): the device's own copy, host to device,
 *     device to host, or device to device when the local buffer is in the
 *     same device's segment;
 *   - a neighbour whose segment its owner described for others to open
 *     (an IPC handle, published with the segment): opened at the first
 *     RMA by a device of ours -- the local endpoint's, else that of any
 *     device segment we bound -- and then reached by that device's copies,
 *     as our own is;
 *   - any other process (or a neighbour we cannot open, or every
 *     neighbour with GEX_MK_IPC=0), on this node or another, over any
 *     transport: the staged path.  The data travels in AM Mediums between host buffers,
 *     and the target's handler copies it into or out of its device
 *     segment after checking the range: MK_PUT carries a chunk and is
 *     answered by MK_PUT_ACK once it landed; MK_GET asks for a chunk,
 *     answered by MK_GET_DATA.  Up to STAGE_WINDOW chunks are in flight
 *     at once, so the device copies of one overlap the network's moving
 *     of the next.
 *
 * A local buffer in the TM's local endpoint's device segment is staged
 * through a host buffer first (Put) or after (Get).
 *
 * Completion.  A blocking operation is complete when the call returns.
 * An NB or NBI one that is one copy by a device (loopback or an opened
 * neighbour, the local buffer host memory or in the same device) is
 * started on the calling thread's stream and counted, like an operation
 * an AM Reply completes (core/complete.h: the NB event's counter, the
 * thread's NBI counter or its access region's); every poll asks the
 * device about the copies in flight (dev_progress) and counts the
 * finished ones down.  The rest -- the staged path, copies through host
 * memory -- are complete on return, which the specification allows.
 * Local completion is at return for all: a device copy has read a host
 * source when its start returns (mk/device.h).
 */
#include <stdlib.h>
#include <string.h>

#include "am/am_internal.h"
#include "core/complete.h"
#include "core/context.h"
#include "mk/mk.h"
#include "rma/rma_device.h"

/* Chunks of one operation in flight at once. */
#define STAGE_WINDOW 16

/* The device of a local range that lies in the device segment bound to
 * the TM's local endpoint, or NULL (host memory). */
static struct gexi_device *local_device(gex_TM_t tm, const void *p, size_t n) {
  const struct gexi_Segment *s = gexi_tm(tm)->ep ? gexi_tm(tm)->ep->segment : NULL;
  struct gexi_device *d = s ? gexi_mk_device(s->kind) : NULL;
  if (!d) return NULL;
  uintptr_t a = (uintptr_t)p, b = (uintptr_t)s->addr;
  return a >= b && a - b <= s->size && n <= s->size - (a - b) ? d : NULL;
}

/* This process's device segment bound to endpoint k, holding [a, a + n):
 * its device, or NULL with *why set. */
static struct gexi_device *own_target(gex_EP_Index_t k, uintptr_t a, size_t n, const char **why) {
  struct gexi_device *d = NULL;
  *why = NULL;
  pthread_mutex_lock(&gexi_ctx.teams_lock);
  const struct gexi_EP *ep = k > 0 && k < GEXI_MAX_EPS ? gexi_ctx.eps[k] : NULL;
  const struct gexi_Segment *s = ep ? ep->segment : NULL;
  if (!s || !(d = gexi_mk_device(s->kind)))
    *why = "no device segment is bound to that endpoint";
  else if (a < (uintptr_t)s->addr || a - (uintptr_t)s->addr > s->size ||
           n > s->size - (a - (uintptr_t)s->addr))
    *why = "the range is outside the endpoint's segment";
  pthread_mutex_unlock(&gexi_ctx.teams_lock);
  return *why ? NULL : d;
}

/* A device of ours that may open a neighbour's memory: the local
 * endpoint's, else that of a device segment bound to one of our endpoints
 * (bound segments are never destroyed, nor their kinds).  teams_lock held. */
static struct gexi_device *opener(struct gexi_device *ld) {
  if (ld) return ld;
  for (unsigned k = 1; k < GEXI_MAX_EPS; k++) {
    const struct gexi_EP *ep = gexi_ctx.eps[k];
    struct gexi_device *d = ep && ep->segment ? gexi_mk_device(ep->segment->kind) : NULL;
    if (d) return d;
  }
  return NULL;
}

/* Neighbour j's device segment at index k (seg_size bytes) opened here:
 * its byte 0, and in *by the device that reaches it; 0 when it cannot be
 * (no description, no device of ours, the open failed: the staged path). */
static uintptr_t ipc_mapped(gex_EP_Index_t k, gex_Rank_t j, size_t seg_size,
                            struct gexi_device *ld, struct gexi_device **by) {
  pthread_mutex_lock(&gexi_ctx.teams_lock);
  struct gexi_ep_tab *tab = gexi_ctx.ep_tabs[k];
  struct gexi_dev_peer *dp = tab->dev_peers ? &tab->dev_peers[j] : NULL;
  uintptr_t a = 0;
  if (dp && dp->has_h) {
    if (!dp->tried) {
      dp->tried = true;
      struct gexi_device *d = opener(ld);
      const char *why;
      if (d && !d->ops->ipc_open(d, &dp->h, seg_size, &dp->opened, &why))
        dp->by = d;
      else
        dp->opened = 0;
    }
    a = dp->opened;
    *by = dp->by;
  }
  pthread_mutex_unlock(&gexi_ctx.teams_lock);
  return a;
}

/* ---- device copies in flight ------------------------------------------------------ */
struct gexi_dev_inflight {
  struct gexi_device *d;
  void *op;
  _Atomic uint32_t *counter; /* counted down by one when the copy is done */
  struct gexi_dev_inflight *next;
};

/* Ask the device about every copy in flight; count the finished ones down
 * (outside dev_lock).  A poll of another thread that finds the lock held
 * leaves the list to it. */
static int dev_progress(void) {
  if (pthread_mutex_trylock(&gexi_ctx.dev_lock)) return 0;
  struct gexi_dev_inflight *done = NULL, **pp = &gexi_ctx.dev_ops;
  while (*pp) {
    struct gexi_dev_inflight *f = *pp;
    const char *why = NULL;
    int r = f->d->ops->copy_done(f->d, f->op, &why);
    if (r < 0)
      gexi_fatal("device RMA: %s device %d: a copy failed: %s", f->d->ops->name, f->d->ordinal,
                 why);
    if (!r) {
      pp = &f->next;
      continue;
    }
    *pp = f->next;
    f->next = done;
    done = f;
  }
  pthread_mutex_unlock(&gexi_ctx.dev_lock);
  int n = 0;
  while (done) {
    struct gexi_dev_inflight *f = done;
    done = f->next;
    gexi_am_counter_done(f->counter, 1);
    free(f);
    n++;
  }
  if (n) atomic_fetch_sub_explicit(&gexi_ctx.dev_inflight, (unsigned)n, memory_order_release);
  return n;
}

/* Start one copy by d for an NB or NBI operation of category 'cat'
 * (GEXI_AM_NBI_PUT or _GET): the NB event (GEX_EVENT_INVALID for NBI, or
 * when the device finished it at once). */
static gex_Event_t dev_copy_start(const char *fn, struct gexi_device *d, int dir, uintptr_t dst,
                                  uintptr_t src, size_t n, int mode, int cat) {
  void *op = NULL;
  const char *why = NULL;
  if (d->ops->copy_start(d, dir, dst, src, n, &op, &why))
    gexi_fatal("%s: %s device %d: a copy of %zu bytes failed: %s", fn, d->ops->name, d->ordinal,
               n, why);
  if (!op) return GEX_EVENT_INVALID;
  struct gexi_dev_inflight *f = malloc(sizeof *f);
  if (!f) gexi_fatal("%s: out of memory", fn);
  struct gexi_Event *ev = NULL;
  *f = (struct gexi_dev_inflight){d, op, gexi_am_counter(mode, cat, &ev, 1), NULL};
  pthread_mutex_lock(&gexi_ctx.dev_lock);
  if (!gexi_ctx.dev_progress) gexi_ctx.dev_progress = dev_progress; /* (written once) */
  f->next = gexi_ctx.dev_ops;
  gexi_ctx.dev_ops = f;
  pthread_mutex_unlock(&gexi_ctx.dev_lock);
  atomic_fetch_add_explicit(&gexi_ctx.dev_inflight, 1, memory_order_release);
  atomic_fetch_add_explicit(&gexi_ctx.mk_started, 1, memory_order_relaxed);
  return mode == GEXI_MODE_NB ? (gex_Event_t)ev : GEX_EVENT_INVALID;
}

static void dev_copy(const char *fn, struct gexi_device *d, int dir, uintptr_t dst, uintptr_t src,
                     size_t n) {
  const char *why = NULL;
  if (n && d->ops->copy(d, dir, dst, src, n, &why))
    gexi_fatal("%s: %s device %d: a copy of %zu bytes failed: %s", fn, d->ops->name, d->ordinal,
               n, why);
}

/* ---- the target's handlers ----------------------------------------------------- */
static unsigned src_rank(gex_Token_t t) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  return (unsigned)info.gex_srcrank;
}

static void mk_put(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t k, gex_AM_Arg_t d0,
                   gex_AM_Arg_t d1, gex_AM_Arg_t c0, gex_AM_Arg_t c1) {
  gexi_am_sync_acquire();
  const char *why;
  uintptr_t dest = (uintptr_t)gexi_am_u64(d0, d1);
  struct gexi_device *d = own_target((gex_EP_Index_t)k, dest, n, &why);
  if (!d)
    gexi_fatal("device RMA: a Put from rank %u to endpoint %u at %p (%zu bytes): %s",
               src_rank(t), (unsigned)k, (void *)dest, n, why);
  dev_copy("device RMA (Put)", d, GEXI_DEV_HTOD, dest, (uintptr_t)buf, n);
  gexi_am_sync_release();
  gex_AM_ReplyShort2(t, GEXI_AMIDX_MK_PUT_ACK, 0, c0, c1);
}

static void mk_put_ack(gex_Token_t t, gex_AM_Arg_t c0, gex_AM_Arg_t c1) {
  (void)t;
  gexi_am_sync_acquire();
  gexi_am_counter_done(gexi_am_ptr(c0, c1), 1);
}

static void mk_get(gex_Token_t t, gex_AM_Arg_t k, gex_AM_Arg_t s0, gex_AM_Arg_t s1,
                   gex_AM_Arg_t n, gex_AM_Arg_t d0, gex_AM_Arg_t d1, gex_AM_Arg_t c0,
                   gex_AM_Arg_t c1) {
  gexi_am_sync_acquire();
  const char *why;
  uintptr_t src = (uintptr_t)gexi_am_u64(s0, s1);
  size_t len = (uint32_t)n;
  struct gexi_device *d = own_target((gex_EP_Index_t)k, src, len, &why);
  if (!d || len > gex_Token_MaxReplyMedium(t, GEX_EVENT_NOW, 0, 4))
    gexi_fatal("device RMA: a Get by rank %u from endpoint %u at %p (%zu bytes): %s",
               src_rank(t), (unsigned)k, (void *)src, len,
               d ? "more than a Reply carries" : why);
  char *buf = gexi_bounce_take(d); /* (len is at most a Reply's payload: it fits) */
  if (!buf) gexi_fatal("device RMA: out of memory");
  dev_copy("device RMA (Get)", d, GEXI_DEV_DTOH, (uintptr_t)buf, src, len);
  gexi_am_sync_release();
  gex_AM_ReplyMedium4(t, GEXI_AMIDX_MK_GET_DATA, buf, len, GEX_EVENT_NOW, 0, d0, d1, c0, c1);
  gexi_bounce_give(d, buf);
}

static void mk_get_data(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t d0, gex_AM_Arg_t d1,
                        gex_AM_Arg_t c0, gex_AM_Arg_t c1) {
  (void)t;
  gexi_am_sync_acquire();
  memcpy(gexi_am_ptr(d0, d1), buf, n); /* host memory: the caller's or its staging buffer */
  gexi_am_counter_done(gexi_am_ptr(c0, c1), 1);
}

uint64_t gexi_rma_device_staged(void) {
  return atomic_load_explicit(&gexi_ctx.mk_staged, memory_order_relaxed);
}
uint64_t gexi_rma_device_started(void) {
  return atomic_load_explicit(&gexi_ctx.mk_started, memory_order_relaxed);
}

size_t gexi_rma_device_am_entries(gex_AM_Entry_t *e) {
  const gex_Flags_t mreq = GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST,
                    mrep = GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY,
                    sreq = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST,
                    srep = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY;
  e[0] = (gex_AM_Entry_t){GEXI_AMIDX_MK_PUT, (gex_AM_Fn_t)mk_put, mreq, 5, NULL, "gexi_mk_put"};
  e[1] = (gex_AM_Entry_t){GEXI_AMIDX_MK_PUT_ACK, (gex_AM_Fn_t)mk_put_ack, srep, 2, NULL,
                          "gexi_mk_put_ack"};
  e[2] = (gex_AM_Entry_t){GEXI_AMIDX_MK_GET, (gex_AM_Fn_t)mk_get, sreq, 8, NULL, "gexi_mk_get"};
  e[3] = (gex_AM_Entry_t){GEXI_AMIDX_MK_GET_DATA, (gex_AM_Fn_t)mk_get_data, mrep, 4, NULL,
                          "gexi_mk_get_data"};
  return 4;
}

/* ---- the initiator ------------------------------------------------------------- */
/* Wait until at most 'limit' chunks are in flight. */
static void wait_below(_Atomic uint32_t *pending, uint32_t limit) {
  while (atomic_load_explicit(pending, memory_order_acquire) > limit) {
    if (gexi_poll(GEXI_POLL_ALL))
      gexi_busy();
    else
      gexi_idle();
  }
}

static size_t stage_chunk(void) {
  size_t req = gex_AM_LUBRequestMedium(), rep = gex_AM_LUBReplyMedium();
  size_t c = req < rep ? req : rep;
  return c < GEXI_BOUNCE_BYTES ? c : GEXI_BOUNCE_BYTES;
}

/* One chunk: a Put of c bytes from host memory h, or a Get into it. */
static void stage_one(gex_TM_t tm, gex_Rank_t rank, gex_EP_Index_t k, int is_write, char *h,
                      uintptr_t remote, size_t c, _Atomic uint32_t *pending) {
  wait_below(pending, STAGE_WINDOW - 1);
  atomic_fetch_add_explicit(pending, 1, memory_order_relaxed);
  gexi_am_sync_release();
  if (is_write)
    gex_AM_RequestMedium5(tm, rank, GEXI_AMIDX_MK_PUT, h, c, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)k,
                          GEXI_AM_PTRARGS(remote), GEXI_AM_PTRARGS(pending));
  else
    gex_AM_RequestShort8(tm, rank, GEXI_AMIDX_MK_GET, 0, (gex_AM_Arg_t)k, GEXI_AM_PTRARGS(remote),
                         (gex_AM_Arg_t)c, GEXI_AM_PTRARGS(h), GEXI_AM_PTRARGS(pending));
}

/* 'local' (host memory, or device ld's) <-> [remote, remote + n) of rank's
 * endpoint k, in AM chunks, up to STAGE_WINDOW in flight.  A local range
 * in device memory goes through ld's bounce buffers: a Put copies each
 * chunk out of the device just before it is sent (while the chunks before
 * it travel); a Get receives a window of chunks, then copies them in. */
static void staged(gex_TM_t tm, gex_Rank_t rank, gex_EP_Index_t k, int is_write,
                   struct gexi_device *ld, char *local, uintptr_t remote, size_t n) {
  static const char fn[] = "device RMA (staged)";
  const size_t chunk = stage_chunk();
  atomic_fetch_add_explicit(&gexi_ctx.mk_staged, 1, memory_order_relaxed);
  _Atomic uint32_t pending = 0;
  char *b[STAGE_WINDOW];
  unsigned nb = ld ? (is_write ? 1 : STAGE_WINDOW) : 0;
  for (unsigned i = 0; i < nb; i++)
    if (!(b[i] = gexi_bounce_take(ld))) gexi_fatal("%s: out of memory", fn);
  for (size_t off = 0; off < n;) {
    if (!ld || is_write) {
      size_t c = n - off < chunk ? n - off : chunk;
      char *h = local + off;
      if (ld) { /* (the previous chunk left b[0] when its Request returned) */
        dev_copy(fn, ld, GEXI_DEV_DTOH, (uintptr_t)b[0], (uintptr_t)h, c);
        h = b[0];
      }
      stage_one(tm, rank, k, is_write, h, remote + off, c, &pending);
      off += c;
      continue;
    }
    size_t first = off, got[STAGE_WINDOW];
    unsigned w = 0;
    for (; w < STAGE_WINDOW && off < n; w++) {
      got[w] = n - off < chunk ? n - off : chunk;
      stage_one(tm, rank, k, 0, b[w], remote + off, got[w], &pending);
      off += got[w];
    }
    wait_below(&pending, 0);
    for (unsigned i = 0; i < w; first += got[i], i++)
      dev_copy(fn, ld, GEXI_DEV_HTOD, (uintptr_t)(local + first), (uintptr_t)b[i], got[i]);
  }
  wait_below(&pending, 0);
  for (unsigned i = 0; i < nb; i++) gexi_bounce_give(ld, b[i]);
}

/* A local range of device ld seen through host memory: a staging buffer,
 * filled from it first for a Put (stage_in); copied back for a Get and
 * freed after the transfer (stage_out). */
static char *stage_in(const char *fn, struct gexi_device *ld, int is_write, void *local, size_t n) {
  char *h = malloc(n ? n : 1);
  if (!h) gexi_fatal("%s: out of memory for a staging buffer of %zu bytes", fn, n);
  if (is_write) dev_copy(fn, ld, GEXI_DEV_DTOH, (uintptr_t)h, (uintptr_t)local, n);
  return h;
}
static void stage_out(const char *fn, struct gexi_device *ld, int is_write, void *local, char *h,
                      size_t n) {
  if (!is_write) dev_copy(fn, ld, GEXI_DEV_HTOD, (uintptr_t)local, (uintptr_t)h, n);
  free(h);
}

/* Move n bytes between 'local' (host memory, or device ld's) and 'there',
 * an address through which device d reaches the target: one copy by d
 * (started, for NB and NBI: the NB event), or through host memory when
 * the local buffer is another device's. */
static gex_Event_t reach(const char *fn, struct gexi_device *d, struct gexi_device *ld,
                         int is_write, void *local, uintptr_t there, size_t n, int mode) {
  if (ld && ld != d) {
    char *h = stage_in(fn, ld, is_write, local, n);
    reach(fn, d, NULL, is_write, h, there, n, GEXI_MODE_BLOCKING);
    stage_out(fn, ld, is_write, local, h, n);
    return GEX_EVENT_INVALID;
  }
  int dir = ld ? GEXI_DEV_DTOD : is_write ? GEXI_DEV_HTOD : GEXI_DEV_DTOH;
  uintptr_t dst = is_write ? there : (uintptr_t)local, src = is_write ? (uintptr_t)local : there;
  if (mode != GEXI_MODE_BLOCKING && n)
    return dev_copy_start(fn, d, dir, dst, src, n, mode,
                          is_write ? GEXI_AM_NBI_PUT : GEXI_AM_NBI_GET);
  dev_copy(fn, d, dir, dst, src, n);
  return GEX_EVENT_INVALID;
}

gex_Event_t gexi_rma_device(const char *fn, gex_TM_t tm, gex_Rank_t rank, gex_EP_Index_t k,
                            int is_write, void *local, uintptr_t remote, size_t nbytes, int mode) {
  struct gexi_device *ld = local_device(tm, local, nbytes);
  const gexi_Peer_t *peer = &GEXI_TM_PEERS(tm)[rank];
  const gex_Rank_t j = peer->jobrank;
  if (j == gexi_ctx.rank) { /* loopback: our own device segment */
    const char *why;
    struct gexi_device *d = own_target(k, remote, nbytes, &why);
    if (!d)
      gexi_fatal("%s: endpoint %u of this rank at %p (%zu bytes): %s", fn, (unsigned)k,
                 (void *)remote, nbytes, why);
    return reach(fn, d, ld, is_write, local, remote, nbytes, mode);
  }
  struct gexi_device *by = NULL;
  uintptr_t mapped = gexi_ctx.local_index[j] != GEX_RANK_INVALID && gexi_ctx.env.mk_ipc
                         ? ipc_mapped(k, j, peer->seg_size, ld, &by)
                         : 0;
  if (mapped) { /* a neighbour's, opened here */
    uintptr_t off = remote - peer->seg_base;
    if (remote < peer->seg_base || off > peer->seg_size || nbytes > peer->seg_size - off)
      gexi_fatal("%s: [%p,+%zu) is outside endpoint %u of rank %u", fn, (void *)remote, nbytes,
                 (unsigned)k, (unsigned)j);
    return reach(fn, by, ld, is_write, local, mapped + off, nbytes, mode);
  }
  staged(tm, rank, k, is_write, ld, local, remote, nbytes);
  return GEX_EVENT_INVALID;
}

gex_Event_t gexi_rma_device_to_host(const char *fn, gex_TM_t tm, gex_Rank_t rank,
                                    gex_EP_Index_t k, int is_write, void *local, uintptr_t remote,
                                    size_t nbytes) {
  struct gexi_device *ld = local_device(tm, local, nbytes);
  const gex_Rank_t j = GEXI_TM_PEERS(tm)[rank].jobrank;
  if (!ld) {
    (void)gexi_rma_ep_host(fn, k, j, is_write, local, (void *)remote, nbytes, GEXI_MODE_BLOCKING, 0);
    return GEX_EVENT_INVALID;
  }
  const gexi_Peer_t *m = gexi_master_peer(k, j);
  if (m->local) { /* mapped here: the device copies into or out of it in place */
    uintptr_t there = remote + (uintptr_t)m->delta;
    if (is_write)
      dev_copy(fn, ld, GEXI_DEV_DTOH, there, (uintptr_t)local, nbytes);
    else
      dev_copy(fn, ld, GEXI_DEV_HTOD, (uintptr_t)local, there, nbytes);
    return GEX_EVENT_INVALID;
  }
  char *h = stage_in(fn, ld, is_write, local, nbytes);
  (void)gexi_rma_ep_host(fn, k, j, is_write, h, (void *)remote, nbytes, GEXI_MODE_BLOCKING, 0);
  stage_out(fn, ld, is_write, local, h, nbytes);
  return GEX_EVENT_INVALID;
}
