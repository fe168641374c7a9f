/* am/am_coalesce.c -- coalescing of NBI operations into one Active Message
 * per target process and initiating thread.
 *
 * Operations that would each cost a message exchange with the target (NBI
 * atomics on the AM path, small NBI Puts to providers that emulate RMA in
 * software) are appended by the initiating thread to its batch for the
 * target's process.  A batch leaves as one Medium Request
 * (GEXI_AMIDX_CO_BATCH) when the next record does not fit, and every batch
 * of the thread leaves at the thread's next poll (gex_AM_Poll and every wait
 * loop), its next gex_NBI_Test/Wait, at both ends of an access region, and
 * when the thread exits -- the points where the thread may look for the
 * operations' completion.  So an operation is never held past the moment its
 * completion is asked for.
 *
 * The target checks every record of the message before it performs any
 * (length, kind, the kind's own checks: addresses inside its bound segment,
 * ...), performs them in order, and answers once (GEXI_AMIDX_CO_DONE, a
 * Medium Reply): the fetched values with the initiator's result pointers,
 * and per category (put, get, rmw) how many operations the initiator's
 * counters drop by.
 *
 * Only NBI operations are coalesced: their completion is observed by the
 * initiating thread itself (gex_NBI_*, or the access region's event, which
 * the end of the region flushes first), whose polls send the batch.  An NB
 * operation's event may be waited on by another thread, which cannot send
 * this thread's batches.
 *
 * Counters: a batch's operations are counted into the thread's NBI counters
 * (or its open access region's event) when the batch is sent, not one by
 * one; gex_NBI_Test/Wait send the batches before they read the counters.
 * Every operation of a batch was initiated with the same access-region
 * state, because both ends of a region send the batches.
 *
 * Wire format of a batch: records, each an 8-byte header (struct rec_hdr)
 * and a body of 'len' bytes padded with zeros to a multiple of 8.  Host byte
 * order: the job is homogeneous.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "am/am_coalesce.h"
#include "am/am_internal.h"
#include "core/complete.h"

struct rec_hdr {
  uint8_t kind; /* GEXI_CO_* */
  uint8_t cat;  /* GEXI_AM_NBI_PUT/GET/RMW */
  uint16_t zero;
  uint32_t len; /* body bytes, before padding */
};
_Static_assert(sizeof(struct rec_hdr) == GEXI_CO_HDR, "records stay 8-byte aligned");
_Static_assert(GEXI_AM_NBI_PUT == 0, "gexi_rma_co_put's category");
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "gexi_co_append writes struct rec_hdr as one little-endian word"
#endif

static uint32_t padded(uint32_t len) { return gexi_co_padded(len); }

void gexi_co_register(int kind, const struct gexi_co_kind *k) {
  if (kind < 0 || kind >= GEXI_CO_NKINDS || kind >= GEXI_CO_MAX_KINDS || gexi_ctx.co_kinds[kind])
    gexi_fatal("internal: coalescing record kind %d registered twice or out of range", kind);
  gexi_ctx.co_kinds[kind] = k;
}

static const struct gexi_co_kind *kind_of(unsigned kind) {
  return kind < GEXI_CO_NKINDS ? gexi_ctx.co_kinds[kind] : NULL;
}

static void flush_all(void);

/* Thread exit (the key's destructor, run in the exiting thread): batches
 * are sent, and the thread waits for every AM-completed NBI operation of
 * its own, whose counters live in its thread-local storage. */
static void batches_free(void *p) {
  struct gexi_co_batches *s = p;
  if (!s) return;
  if (gexi_tls.flush_deferred) flush_all();
  while (gexi_am_nbi_pending(GEX_EC_PUT | GEX_EC_GET | GEX_EC_RMW)) {
    if (gexi_poll(GEXI_POLL_ALL))
      gexi_busy();
    else
      gexi_idle();
  }
  gexi_tls.co_batches = NULL;
  gexi_tls.co_peer = NULL;
  for (gex_Rank_t j = 0; j < gexi_ctx.size; j++) free(s->peer[j]);
  free(s->peer);
  free(s->open);
  free(s);
}

static struct gexi_co_batches *batches_new(void) {
  struct gexi_co_batches *s = calloc(1, sizeof *s);
  if (!s) gexi_fatal("out of memory for coalescing buffers");
  /* At most GEXI_AM_EAGER_MEDIUM (am/am.h): one eager provider message. */
  size_t req = gex_AM_LUBRequestMedium() & ~(size_t)7;
  s->cap_bytes = req > GEXI_CO_BATCH_BYTES ? GEXI_CO_BATCH_BYTES : (uint32_t)req;
  s->cap_ops = gexi_ctx.env.coalesce;
  s->cap_fetch = (uint32_t)(gex_AM_LUBReplyMedium() / sizeof(struct gexi_co_fetched));
  s->open = calloc(gexi_ctx.size, sizeof *s->open);
  s->peer = calloc(gexi_ctx.size, sizeof *s->peer);
  if (!s->open || !s->peer) gexi_fatal("out of memory for coalescing buffers");
  pthread_setspecific(gexi_ctx.co_key, s); /* freed when the thread exits */
  gexi_tls.co_batches = s;
  gexi_tls.co_peer = s->peer;
  return s;
}

static uint32_t nrec(const struct gexi_co_batch *b) {
  return b->count[0] + b->count[1] + b->count[2];
}

/* Send jobrank j's batch (nrec(b) > 0).  Returns non-zero only if 'flags' has
 * GEX_FLAG_IMMEDIATE and the AM layer refused; the batch is kept then. */
static int send_one(struct gexi_co_batches *s, gex_Rank_t j, gex_Flags_t flags) {
  struct gexi_co_batch *b = s->peer[j];
  _Atomic uint32_t *c[3] = {NULL, NULL, NULL};
  for (int k = 0; k < 3; k++)
    if (b->count[k]) c[k] = gexi_am_counter(GEXI_MODE_NBI, k, NULL, b->count[k]);
  s->sending = 1;
  int rc = gex_AM_RequestMedium9(gexi_tm_handle(gexi_ctx.tm), j, GEXI_AMIDX_CO_BATCH, b->buf,
                                 b->bytes, GEX_EVENT_NOW, flags & GEX_FLAG_IMMEDIATE,
                                 GEXI_AM_PTRARGS(c[0]), GEXI_AM_PTRARGS(c[1]),
                                 GEXI_AM_PTRARGS(c[2]), (gex_AM_Arg_t)b->count[0],
                                 (gex_AM_Arg_t)b->count[1], (gex_AM_Arg_t)b->count[2]);
  s->sending = 0;
  if (rc) {
    for (int k = 0; k < 3; k++)
      if (c[k]) gexi_am_counter_done(c[k], b->count[k]);
    return rc;
  }
  b->bytes = b->nfetch = 0;
  b->count[0] = b->count[1] = b->count[2] = 0;
  if (b->listed) {
    b->room = s->cap_bytes;
    b->recs_left = s->cap_ops;
  }
  return 0;
}

/* Batch buffers a thread keeps for the peers it coalesced to, at most
 * (one of GEXI_CO_BATCH_BYTES per peer: a thread that Puts to a thousand
 * peers would otherwise hold 16 MiB); past that, a batch is freed once
 * sent, and a batch for one more peer first sends those open. */
#define GEXI_CO_KEEP 64

/* gexi_tls.flush_deferred while this thread has open batches. */
static void flush_all(void) {
  struct gexi_co_batches *s = gexi_tls.co_batches;
  if (s->sending) return; /* a poll inside our own send */
  /* Send first, unlist after: a send that polls finds 'sending' set. */
  for (uint32_t i = 0; i < s->nopen; i++) {
    struct gexi_co_batch *b = s->peer[s->open[i]];
    if (nrec(b)) send_one(s, s->open[i], 0);
    b->listed = 0;
    b->room = b->recs_left = 0;
    if (s->nbufs > GEXI_CO_KEEP && !nrec(b)) {
      free(b);
      s->peer[s->open[i]] = NULL;
      s->nbufs--;
    }
  }
  s->nopen = 0;
  gexi_tls.flush_deferred = NULL;
}

void *gexi_co_append(gex_Rank_t j, int kind, int cat, uint32_t len, int fetch,
                     gex_Flags_t flags) {
  void *r = gexi_co_try_append(j, kind, cat, len, fetch);
  if (GEXI_LIKELY(r != NULL)) return r;
  struct gexi_co_batches *s = gexi_tls.co_batches;
  if (!s) s = batches_new();
  struct gexi_co_batch *b = s->peer[j];
  if (!b && s->nbufs >= GEXI_CO_KEEP && s->nopen) {
    /* Coalescing to more peers at once than buffers are kept for: the
     * open batches leave now, and their buffers beyond GEXI_CO_KEEP go. */
    flush_all();
  }
  if (!b) {
    /* Only the header is cleared: records are written whole, padding
     * included (gexi_co_try_append), so the rest is never read unwritten. */
    b = malloc(sizeof *b + s->cap_bytes);
    if (!b) gexi_fatal("out of memory for a coalescing buffer");
    memset(b, 0, sizeof *b);
    s->peer[j] = b;
    s->nbufs++;
  }
  const uint32_t need = GEXI_CO_HDR + padded(len);
  uint32_t n = nrec(b);
  if (n && (need > s->cap_bytes - b->bytes || n == s->cap_ops ||
            (fetch && b->nfetch == s->cap_fetch)) &&
      send_one(s, j, flags))
    return NULL; /* IMMEDIATE refusal */
  if (!b->listed) {
    b->listed = 1;
    b->room = s->cap_bytes - b->bytes;
    b->recs_left = s->cap_ops - nrec(b);
    s->open[s->nopen++] = j;
    gexi_tls.flush_deferred = flush_all;
    gexi_tls.nbi_maybe = 1;
  }
  return gexi_co_try_append(j, kind, cat, len, fetch); /* room now */
}

/* ---- handlers -------------------------------------------------------------------- */
static void report(gex_Token_t t, const char *what, size_t nbytes, const char *why) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  gexi_say("dropped a malformed %s (%zu bytes) from jobrank %u: %s", what, nbytes,
           (unsigned)info.gex_srcrank, why);
}

/* Why a received batch is malformed (NULL: it is not); counts its records
 * by category and those that may fetch. */
static const char *check_batch(const unsigned char *p, size_t nbytes, uint32_t count[3],
                               size_t *nfetch) {
  if (!nbytes || nbytes % 8) return "bad length";
  for (size_t off = 0; off < nbytes;) {
    struct rec_hdr h;
    if (nbytes - off < sizeof h) return "truncated record header";
    memcpy(&h, p + off, sizeof h);
    const struct gexi_co_kind *k = kind_of(h.kind);
    if (!k) return "unknown record kind";
    if (h.cat > GEXI_AM_NBI_RMW || h.zero) return "bad record header";
    if (h.len > k->max_len || padded(h.len) > nbytes - off - sizeof h) return "bad record length";
    int fetch = 0;
    const char *why = k->check(p + off + sizeof h, h.len, h.cat, &fetch);
    if (why) return why;
    count[h.cat]++;
    *nfetch += fetch != 0;
    off += sizeof h + padded(h.len);
  }
  return NULL;
}

/* Target: check everything, perform in order, answer once. */
static void batch_req(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t c0, gex_AM_Arg_t c1,
                      gex_AM_Arg_t c2, gex_AM_Arg_t c3, gex_AM_Arg_t c4, gex_AM_Arg_t c5,
                      gex_AM_Arg_t k0, gex_AM_Arg_t k1, gex_AM_Arg_t k2) {
  gexi_am_sync_acquire();
  /* Records are read in place when the payload is 8-byte aligned. */
  unsigned char *copy = NULL;
  const unsigned char *p = buf;
  if ((uintptr_t)buf & 7) {
    copy = malloc(nbytes ? nbytes : 1);
    if (!copy) gexi_fatal("out of memory for a coalesced batch");
    memcpy(copy, buf, nbytes);
    p = copy;
  }
  uint32_t count[3] = {0, 0, 0};
  size_t nfetch = 0;
  const char *why = check_batch(p, nbytes, count, &nfetch);
  if (!why && nfetch > gex_AM_LUBReplyMedium() / sizeof(struct gexi_co_fetched))
    why = "too many values to send back";
  if (!why && (count[0] != (uint32_t)k0 || count[1] != (uint32_t)k1 || count[2] != (uint32_t)k2))
    why = "counts do not match the records";
  if (why) {
    report(t, "coalesced batch", nbytes, why);
    free(copy);
    return;
  }
  struct gexi_co_fetched *out = nfetch ? malloc(nfetch * sizeof *out) : NULL;
  if (nfetch && !out) gexi_fatal("out of memory answering a coalesced batch");
  size_t f = 0;
  for (size_t off = 0; off < nbytes;) {
    struct rec_hdr h;
    memcpy(&h, p + off, sizeof h);
    struct gexi_co_fetched v;
    if (kind_of(h.kind)->apply(p + off + sizeof h, h.len, &v) && f < nfetch) out[f++] = v;
    off += sizeof h + padded(h.len);
  }
  gexi_am_sync_release(); /* what the records wrote, for a later handler of another thread */
  free(copy);
  gex_AM_ReplyMedium9(t, GEXI_AMIDX_CO_DONE, out, f * sizeof *out, GEX_EVENT_NOW, 0, c0, c1, c2,
                      c3, c4, c5, k0, k1, k2);
  free(out);
}

/* Initiator: store the fetched values, then complete the operations. */
static void batch_done(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t c0, gex_AM_Arg_t c1,
                       gex_AM_Arg_t c2, gex_AM_Arg_t c3, gex_AM_Arg_t c4, gex_AM_Arg_t c5,
                       gex_AM_Arg_t k0, gex_AM_Arg_t k1, gex_AM_Arg_t k2) {
  gexi_am_sync_acquire();
  _Atomic uint32_t *c[3] = {gexi_am_ptr(c0, c1), gexi_am_ptr(c2, c3), gexi_am_ptr(c4, c5)};
  const uint32_t k[3] = {(uint32_t)k0, (uint32_t)k1, (uint32_t)k2};
  const char *why = nbytes % sizeof(struct gexi_co_fetched) ? "bad length" : NULL;
  for (int i = 0; i < 3 && !why; i++)
    if ((k[i] != 0) != (c[i] != NULL)) why = "counter without count";
  for (size_t i = 0; !why && i < nbytes / sizeof(struct gexi_co_fetched); i++) {
    struct gexi_co_fetched f;
    memcpy(&f, (const char *)buf + i * sizeof f, sizeof f);
    if (!f.result || (f.size != 4 && f.size != 8)) why = "bad fetched value";
  }
  if (why) {
    report(t, "coalesced batch answer", nbytes, why);
    return;
  }
  for (size_t i = 0; i < nbytes / sizeof(struct gexi_co_fetched); i++) {
    struct gexi_co_fetched f;
    memcpy(&f, (const char *)buf + i * sizeof f, sizeof f);
    if (f.size == 8) {
      memcpy((void *)(uintptr_t)f.result, &f.value, 8);
    } else {
      const uint32_t w = (uint32_t)f.value;
      memcpy((void *)(uintptr_t)f.result, &w, 4);
    }
  }
  /* Last touch of anything the initiator owns: the results are published. */
  for (int i = 0; i < 3; i++)
    if (k[i]) gexi_am_counter_done(c[i], k[i]);
}

size_t gexi_co_am_entries(gex_AM_Entry_t *e) {
  if (pthread_key_create(&gexi_ctx.co_key, batches_free))
    gexi_fatal("out of thread-specific keys at client init");
  const gex_Flags_t mreq = GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST,
                    mrep = GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY;
  e[0] = (gex_AM_Entry_t){GEXI_AMIDX_CO_BATCH, (gex_AM_Fn_t)batch_req, mreq, 9, NULL,
                          "gexi_co_batch"};
  e[1] = (gex_AM_Entry_t){GEXI_AMIDX_CO_DONE, (gex_AM_Fn_t)batch_done, mrep, 9, NULL,
                          "gexi_co_done"};
  return 2;
}
