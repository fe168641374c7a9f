/* transport/ofi/ofi_am_batch.c -- small AMs to one peer sent back to back
 * leave together, in one provider message.
 *
 * Over a software provider every message costs a system call at each end
 * (several microseconds on loopback TCP), so a flood of small AMs runs at
 * the kernel's message rate.  Here a Short or Medium of at most
 * OFI_STACK_WIRE bytes on the wire to a peer that we already sent an AM
 * since our last poll joins that peer's open batch of its channel instead
 * (a pool buffer), which leaves
 *   - when it could not take one more of the largest such AMs
 *     (GEX_OFI_AM_BATCH bytes),
 *   - at the start and at the end of every poll of any thread of the
 *     process (gex_AM_Poll, every wait loop, every stall for credit or
 *     buffers; the end sends what the handlers of that poll replied),
 *   - before an AM of its channel to that peer that does not join it (a
 *     Long, a large Medium, or when no buffer is free), so that the
 *     Requests (and the Replies) to a peer leave in the order they were
 *     made.
 * So the first AM after a poll leaves at once (no latency is added to a
 * round trip), and an AM is never held past the moment its sender could
 * wait for anything.
 *
 * There is one batch per peer and channel: Requests and Replies never share
 * one.  A Request handler may block (a Reply waiting for credit) in the
 * middle of its batch, holding the records after it; were a Reply among
 * them, the credit its delivery would give back could be the very credit
 * the handler waits for.  Replies alone in their batches are delivered by
 * any poll, as the deadlock argument of ofi_am.c needs.
 *
 * Credit: a record is charged exactly as the same AM sent on its own (its
 * whole wire length, or a buffer where each message takes one), on its own
 * channel, and the receiver pays back the same per record; the batch header
 * costs nothing, since each record leaves out the OFI_WIRE_PREFIX bytes
 * that a message of its own would carry (what a batch occupies never
 * exceeds what its records were charged).
 *
 * Wire format: the prefix of struct ofi_wire (credit returns, token, type
 * OFI_WIRE_BATCH), then records back to back, each the bytes of an AM
 * message from its header 'h' on (8-byte multiples).  The receiver checks
 * every record before it delivers any (all of one direction, each a well
 * formed Short or Medium); one bad record drops the batch.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "transport/ofi/ofi.h"

static inline struct gexi_ofi *O(void) { return gexi_ctx.ofi; }

/* batch_lock: held only to append one record or to take batches out, so a
 * waiter spins a little, then yields (the holder may be descheduled on an
 * oversubscribed host). */
__attribute__((noinline)) static void lock_wait(struct gexi_ofi *o) {
  for (unsigned i = 0; atomic_load_explicit(&o->batch_lock, memory_order_relaxed) ||
                       atomic_exchange_explicit(&o->batch_lock, 1, memory_order_acquire);
       i++)
    if (i >= 64) sched_yield();
}
static inline void lock(struct gexi_ofi *o) {
  if (GEXI_UNLIKELY(atomic_exchange_explicit(&o->batch_lock, 1, memory_order_acquire)))
    lock_wait(o);
}
static inline int trylock(struct gexi_ofi *o) {
  return !atomic_exchange_explicit(&o->batch_lock, 1, memory_order_acquire);
}
static inline void unlock(struct gexi_ofi *o) {
  atomic_store_explicit(&o->batch_lock, 0, memory_order_release);
}

void gexi_ofi_batch_setup(void) {
  struct gexi_ofi *o = O();
  size_t want = (size_t)gexi_ctx.env.ofi_am_batch;
  atomic_init(&o->poll_gen, 1); /* peers start at 0: the first AM leaves at once */
  atomic_init(&o->nbatch_open, 0);
  atomic_init(&o->batched, 0);
  if (!want) return;
  /* Room for at least two of the largest records; never more than a buffer. */
  if (want < 2 * OFI_STACK_WIRE) want = 2 * OFI_STACK_WIRE;
  if (want > o->wire_max) want = o->wire_max;
  o->batches = calloc(2 * (size_t)gexi_ctx.size, sizeof *o->batches);
  o->batch_open = calloc(2 * (size_t)gexi_ctx.size, sizeof *o->batch_open);
  if (!o->batches || !o->batch_open) gexi_fatal("out of memory");
  for (uint32_t k = 0; k < 2 * gexi_ctx.size; k++)
    o->batches[k].credit = &o->peers[OFI_BATCH_PEER(k)].credit[k % 2];
  atomic_init(&o->batch_lock, 0);
  o->batch_max = want;
  o->batch_full = want - (OFI_STACK_WIRE - OFI_WIRE_PREFIX);
}

/* AMs of this process that left in a batch (an internal hook for tests). */
uint64_t gexi_ofi_batched(void) {
  struct gexi_ofi *o = O();
  return o ? atomic_load_explicit(&o->batched, memory_order_relaxed) : 0;
}

/* Take open batch k (under batch_lock): its buffer and length. */
static char *detach(uint32_t k, size_t *len) {
  struct gexi_ofi *o = O();
  struct ofi_batch *b = &o->batches[k];
  char *buf = b->buf;
  *len = b->len;
  b->buf = NULL;
  atomic_fetch_add_explicit(&o->batched, b->nrec, memory_order_relaxed);
  uint32_t n = atomic_load_explicit(&o->nbatch_open, memory_order_relaxed);
  for (uint32_t i = 0; i < n; i++)
    if (o->batch_open[i] == k) {
      o->batch_open[i] = o->batch_open[n - 1];
      break;
    }
  atomic_store_explicit(&o->nbatch_open, n - 1, memory_order_relaxed);
  return buf;
}

/* Send detached batch k: the header takes what we owe the peer. */
static void send_batch(uint32_t k, char *buf, size_t len, int what) {
  struct gexi_ofi *o = O();
  gex_Rank_t j = OFI_BATCH_PEER(k);
  struct ofi_peer *p = &o->peers[j];
  struct ofi_wire *w = (struct ofi_wire *)(void *)buf;
  memset(w, 0, OFI_WIRE_PREFIX);
  gexi_ofi_take_owed(p, w);
  w->token = p->tok_tx;
  w->type = OFI_WIRE_BATCH;
  if (len <= o->inject_size) {
    gexi_ofi_send_wire(j, buf, len, 0, what);
    gexi_ofi_pool_put(buf);
  } else {
    gexi_ofi_send_wire(j, buf, len, 1, what);
  }
}

/* Open batch k: a pool buffer (under batch_lock); 0 when none is free. */
__attribute__((noinline)) static int open_batch(uint32_t k) {
  struct gexi_ofi *o = O();
  struct ofi_batch *b = &o->batches[k];
  /* Lock order: batch_lock, then the pool's (never the reverse). */
  b->buf = gexi_ofi_pool_get(-1);
  if (!b->buf) return 0;
  b->len = OFI_WIRE_PREFIX;
  b->nrec = 0;
  uint32_t n = atomic_load_explicit(&o->nbatch_open, memory_order_relaxed);
  o->batch_open[n] = k;
  atomic_store_explicit(&o->nbatch_open, n + 1, memory_order_relaxed);
  return 1;
}

/* Take full batch k out (after lock()), release the lock and send it; 0. */
__attribute__((noinline)) static int send_full(uint32_t k, int what) {
  struct gexi_ofi *o = O();
  size_t len;
  char *buf = detach(k, &len);
  unlock(o);
  send_batch(k, buf, len, what);
  return 0;
}

int gexi_ofi_batch_add(gex_Rank_t j, const struct ofi_wire *w, size_t len, int what) {
  struct gexi_ofi *o = O();
  uint32_t k = OFI_BATCH_INDEX(j, what);
  struct ofi_batch *b = &o->batches[k];
  lock(o);
  if (GEXI_UNLIKELY(!b->buf) && !open_batch(k)) {
    unlock(o);
    return 0; /* no buffer: sent on its own (nothing is waiting before it) */
  }
  size_t rl = len - OFI_WIRE_PREFIX;
  memcpy(b->buf + b->len, &w->h, rl);
  b->len += (uint32_t)rl;
  b->nrec++;
  if (GEXI_UNLIKELY(b->len > o->batch_full)) { /* no room for one more */
    send_full(k, what);
    return 1;
  }
  unlock(o);
  return 1;
}

/* Append a Short's record to open batch b under batch_lock, and send the
 * batch if full; releases the lock.  The record is the AM header of the
 * message the Short would be, from 'h' on (batches are 8-byte aligned and
 * every record a multiple of 8). */
static inline int short_record(struct gexi_ofi *o, struct ofi_batch *b, int ch,
                               gex_AM_Index_t handler, unsigned nargs, const gex_AM_Arg_t *args) {
  struct gexi_am_hdr *h = (struct gexi_am_hdr *)(void *)(b->buf + b->len);
  h->category = GEXI_AM_SHORT;
  h->is_req = (uint8_t)!ch;
  h->nargs = (uint8_t)nargs;
  h->handler = handler;
  h->src = o->self;
  h->nbytes = 0;
  h->ep_index = 0;
  h->dest = 0;
  /* A plain loop (the empty asm keeps it from becoming a call of memcpy or
   * vector code for the few arguments a Short has). */
  for (unsigned i = 0; i < nargs; i++) {
    h->args[i] = args[i];
    __asm__("" : "+r"(i));
  }
  if (nargs & 1) h->args[nargs] = 0; /* up to the 8-byte boundary */
  b->len += (uint32_t)(OFI_WIRE_HDR_LEN(nargs) - OFI_WIRE_PREFIX);
  b->nrec++;
  if (GEXI_UNLIKELY(b->len > o->batch_full)) /* (k computed only here) */
    return send_full((uint32_t)(b - o->batches), ch); /* unlocks */
  unlock(o);
  return 0;
}

/* The same when the lock was taken or no batch is open: the general path
 * when the peer is not admitted yet or there is no credit or no buffer. */
__attribute__((noinline)) static int short_batched_cold(int ch, gex_Rank_t j,
                                                        gex_AM_Index_t handler, gex_Flags_t flags,
                                                        unsigned nargs,
                                                        const gex_AM_Arg_t *args) {
  struct gexi_ofi *o = O();
  struct ofi_peer *p = &o->peers[j];
  int64_t cost = gexi_ofi_short_cost(o, nargs);
  if (!atomic_load_explicit(&p->tx_ok, memory_order_acquire))
    return gexi_ofi_am_short_slow(ch, j, handler, flags, nargs, args);
  if (!gexi_ofi_spend(&p->credit[ch], cost))
    return gexi_ofi_am_short_no_credit(ch, j, handler, flags, nargs, args);
  uint32_t k = OFI_BATCH_INDEX(j, ch);
  struct ofi_batch *b = &o->batches[k];
  lock(o);
  if (b->buf || open_batch(k)) return short_record(o, b, ch, handler, nargs, args);
  unlock(o);
  return gexi_ofi_am_short_no_credit(ch, j, handler, flags, nargs, args); /* no buffer */
}

/* Every call below is a tail call.  That the peer's batch is open shows
 * that the peer admitted us (batches are opened only after that). */
int gexi_ofi_am_short_batched(int ch, gex_Rank_t j, gex_AM_Index_t handler, gex_Flags_t flags,
                              unsigned nargs, const gex_AM_Arg_t *args) {
  struct gexi_ofi *o = O();
  uint32_t k = OFI_BATCH_INDEX(j, ch);
  struct ofi_batch *b = &o->batches[k];
  if (GEXI_UNLIKELY(!trylock(o))) return short_batched_cold(ch, j, handler, flags, nargs, args);
  if (GEXI_UNLIKELY(!b->buf)) {
    unlock(o);
    return short_batched_cold(ch, j, handler, flags, nargs, args);
  }
  if (GEXI_UNLIKELY(!gexi_ofi_spend(b->credit, gexi_ofi_short_cost(o, nargs)))) {
    unlock(o);
    return gexi_ofi_am_short_no_credit(ch, j, handler, flags, nargs, args);
  }
  return short_record(o, b, ch, handler, nargs, args);
}

void gexi_ofi_batch_flush(gex_Rank_t j, int what) {
  struct gexi_ofi *o = O();
  if (!atomic_load_explicit(&o->nbatch_open, memory_order_relaxed)) return;
  size_t len;
  uint32_t k = OFI_BATCH_INDEX(j, what);
  lock(o);
  char *buf = o->batches[k].buf ? detach(k, &len) : NULL;
  unlock(o);
  if (buf) send_batch(k, buf, len, what);
}

/* At every poll.  A thread that finds the lock taken leaves the batches to
 * its holder or to the next poll. */
void gexi_ofi_batch_flush_all(int what) {
  struct gexi_ofi *o = O();
  enum { CHUNK = 16 };
  while (atomic_load_explicit(&o->nbatch_open, memory_order_relaxed)) {
    uint32_t which[CHUNK];
    char *buf[CHUNK];
    size_t len[CHUNK];
    int n = 0;
    if (!trylock(o)) return;
    while (n < CHUNK && atomic_load_explicit(&o->nbatch_open, memory_order_relaxed)) {
      which[n] = o->batch_open[0];
      buf[n] = detach(which[n], &len[n]);
      n++;
    }
    unlock(o);
    for (int i = 0; i < n; i++) send_batch(which[i], buf[i], len[i], what);
  }
}

/* ---- receiving ------------------------------------------------------------ */
/* The record at 'rec' (at most 'left' bytes of the batch remain) as the
 * message of its own it stands for: its first bytes in *w (the prefix
 * rebuilt: no credits, type AM, the batch's token) and its length as such a
 * message in *len.  NULL when well formed (a Short or Medium inside the
 * batch, in the batch's direction 'is_req', and with 'check' gexi_ofi_check's verdict), else the
 * first bad field. */
static const char *record(const char *rec, size_t left, uint64_t token, int is_req,
                          struct ofi_wire *w, size_t *len, int check) {
  *len = OFI_WIRE_PREFIX + left; /* a bad record ends the walk */
  if (left < OFI_WIRE_HDR_LEN(0) - OFI_WIRE_PREFIX) return "length (of a record's header)";
  memset(w, 0, sizeof *w);
  w->token = token;
  w->type = OFI_WIRE_AM;
  size_t have = sizeof *w - OFI_WIRE_PREFIX;
  memcpy(&w->h, rec, left < have ? left : have);
  if (w->h.nargs > GEXI_AM_MAX_ARGS) return "nargs";
  if (w->h.category != GEXI_AM_SHORT && w->h.category != GEXI_AM_MEDIUM)
    return "category (only Shorts and Mediums are batched)";
  if (w->h.is_req != is_req) return "is_req (Requests and Replies in one batch)";
  size_t body = w->h.category == GEXI_AM_MEDIUM ? w->h.nbytes : 0;
  *len = OFI_ROUND8(OFI_WIRE_HDR_LEN(w->h.nargs) + body);
  if (*len - OFI_WIRE_PREFIX > left) return "length (a record runs past the batch)";
  return check ? gexi_ofi_check(w, *len) : NULL;
}

const char *gexi_ofi_batch_check(const void *msg, size_t len) {
  if (len & 7) return "length (not a multiple of 8)";
  if (len < OFI_WIRE_HDR_LEN(0)) return "length (a batch without a record)";
  const char *m = msg;
  struct ofi_wire w;
  int is_req = m[OFI_WIRE_PREFIX + offsetof(struct gexi_am_hdr, is_req)];
  for (size_t off = OFI_WIRE_PREFIX, rl; off < len; off += rl - OFI_WIRE_PREFIX) {
    const char *bad = record(m + off, len - off, 0, is_req, &w, &rl, 1);
    if (bad) return bad;
  }
  return NULL;
}

void gexi_ofi_batch_deliver(struct ofi_peer *p, gex_Rank_t src, uint64_t token, const void *msg,
                            size_t len, int what) {
  const char *m = msg;
  struct ofi_wire w;
  int is_req = m[OFI_WIRE_PREFIX + offsetof(struct gexi_am_hdr, is_req)];
  for (size_t off = OFI_WIRE_PREFIX, rl; off < len; off += rl - OFI_WIRE_PREFIX) {
    if (record(m + off, len - off, token, is_req, &w, &rl, 0)) break; /* checked */
    /* The message starts OFI_WIRE_PREFIX bytes before the record, inside
     * the batch: only the payload offset and a deferred copy use it, and
     * the copy gets w's prefix. */
    gexi_ofi_deliver(p, src, &w, m + off - OFI_WIRE_PREFIX, rl, what);
  }
}
