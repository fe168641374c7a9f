/* diagnostics/diag_am.c -- sections I, J and K of the diagnostics (Active
 * Message round trips to the peer, 'iters' each) and the handlers that
 * gasnett_diagnostic_gethandlers hands out.
 *
 * I: Short Requests with 16 arguments, answered by Short Replies with 8.
 * J: Medium Requests of seeded random lengths up to the largest every peer
 *    accepts, answered by Medium Replies of up to 4 KiB.
 * K: Long Requests into this rank's slot of the peer's area, answered by
 *    Long Replies into this rank's reply half.
 * Every argument, payload byte, length, destination address and the token's
 * information (source rank, entry, request/reply, Long or not) is checked
 * by the handler that receives it.  At most GEXDIAG_AM_WINDOW round trips
 * are in flight; window slot w = iteration % window owns part w of the
 * slot and of the reply half until its Reply has been checked.  An AM to
 * this rank itself runs at once, inside the Request call.
 * Fault: midway, the Request carries one wrong argument or payload byte.
 */
#include <stdlib.h>
#include <string.h>

#include "diagnostics/diag.h"

#define W GEXDIAG_AM_WINDOW
#define MEDIUM_REPLY_MAX ((size_t)4096)

/* ---- checks shared by the handlers -------------------------------------------------- */
static const char *const handler_names[GEXDIAG_NHANDLERS] = {
    "Short Request", "Short Reply", "Medium Request", "Medium Reply", "Long Request", "Long Reply"};

/* The token must say: from team rank 'from', to handler h, a Request or a
 * Reply, Long or not.  Returns 0 when it does. */
static int check_token(gex_Token_t tok, int h, gex_Rank_t from) {
  const struct gexdiag_context *c = &gexdiag_ctx;
  const char *what = handler_names[h];
  int is_req = !(h & 1), is_long = h >= GEXDIAG_H_LONG_REQ;
  gex_Token_Info_t info;
  gex_TI_t got = gex_Token_Info(tok, &info, GEX_TI_ALL);
  int bad = 0;
  if (c->section != (h < GEXDIAG_H_MEDIUM_REQ ? 'I' : h < GEXDIAG_H_LONG_REQ ? 'J' : 'K')) {
    gexdiag_error("a %s arrived outside its section", what);
    bad = 1;
  }
  if (!(got & GEX_TI_SRCRANK)) {
    gexdiag_error("%s: the token has no source rank", what);
    bad = 1;
  } else if (from >= c->size || gex_TM_TranslateRankToJobrank(c->tm, from) != info.gex_srcrank) {
    gexdiag_error("%s: the token's source is jobrank %u, the arguments say team rank %u", what,
                  (unsigned)info.gex_srcrank, (unsigned)from);
    bad = 1;
  }
  if ((got & GEX_TI_ENTRY) && (!info.gex_entry || info.gex_entry->gex_index != c->am_index[h])) {
    gexdiag_error("%s: the token's entry is not handler index %u", what, (unsigned)c->am_index[h]);
    bad = 1;
  }
  if ((got & GEX_TI_IS_REQ) && !info.gex_is_req != !is_req) {
    gexdiag_error("%s: the token says is_req=%u", what, info.gex_is_req);
    bad = 1;
  }
  if ((got & GEX_TI_IS_LONG) && !info.gex_is_long != !is_long) {
    gexdiag_error("%s: the token says is_long=%u", what, info.gex_is_long);
    bad = 1;
  }
  return bad;
}

static void check_payload(const char *what, gex_Rank_t from, long iter, const void *buf,
                          size_t nbytes, uint64_t key) {
  long bad = gexdiag_verify(buf, nbytes, key);
  if (bad >= 0)
    gexdiag_error("%s of iteration %ld from rank %u: payload byte %ld of %zu is 0x%02x, want 0x%02x",
                  what, iter, (unsigned)from, bad, nbytes, ((const unsigned char *)buf)[bad],
                  gexdiag_byte(key, (size_t)bad));
}

/* A Reply for window slot iter % W arrived: it must be the one awaited. */
static void reply_arrived(const char *what, long iter) {
  struct gexdiag_context *c = &gexdiag_ctx;
  int w = (int)((unsigned long)iter % W);
  if (!__atomic_load_n(&c->am_busy[w], __ATOMIC_ACQUIRE) ||
      __atomic_load_n(&c->am_iter[w], __ATOMIC_RELAXED) != iter) {
    gexdiag_error("%s for iteration %ld, which awaits no Reply", what, iter);
    return;
  }
  __atomic_store_n(&c->am_busy[w], 0, __ATOMIC_RELEASE);
}

/* ---- sizes and places (the same in every rank: the area is agreed) ----------------- */
static size_t long_part(void) { return (gexdiag_slot_len_of(gexdiag_ctx.peer) / W) & ~(size_t)63; }
static size_t long_part_of(gex_Rank_t target) { return (gexdiag_slot_len_of(target) / W) & ~(size_t)63; }
static size_t reply_part(void) { return ((gexdiag_ctx.area / 2) / W) & ~(size_t)63; }
static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

static size_t medium_reply_len(gex_Rank_t replier, long iter) {
  size_t max = min_size(gex_AM_LUBReplyMedium(), MEDIUM_REPLY_MAX);
  return (size_t)(gexdiag_key('j', replier, (uint64_t)iter, 2) % (max + 1));
}
static size_t long_reply_len(gex_Rank_t replier, long iter) {
  size_t max = min_size(gex_AM_LUBReplyLong(), reply_part());
  return (size_t)(gexdiag_key('k', replier, (uint64_t)iter, 2) % (max + 1));
}

/* ---- I: Short -------------------------------------------------------------------- */
#define A16 gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, \
  gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9,           \
  gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13, gex_AM_Arg_t a14,     \
  gex_AM_Arg_t a15

/* Argument j (2..) of the Short message of 'section' sent by 'from' in iter. */
static gex_AM_Arg_t short_word(char section, gex_Rank_t from, long iter, int j) {
  return (gex_AM_Arg_t)(uint32_t)gexdiag_key(section, from, (uint64_t)iter, (uint64_t)j);
}

static void check_words(const char *what, char section, gex_Rank_t from, long iter,
                        const gex_AM_Arg_t *args, int nargs) {
  for (int j = 2; j < nargs; j++)
    if (args[j] != short_word(section, from, iter, j)) {
      gexdiag_error("%s of iteration %ld from rank %u: argument %d is 0x%08x, want 0x%08x", what,
                    iter, (unsigned)from, j, (unsigned)args[j],
                    (unsigned)short_word(section, from, iter, j));
      return;
    }
}

static void h_short_req(gex_Token_t tok, A16) {
  const struct gexdiag_context *c = &gexdiag_ctx;
  gex_AM_Arg_t args[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
  long iter = (long)(uint32_t)a0;
  gex_Rank_t from = (gex_Rank_t)a1;
  check_token(tok, GEXDIAG_H_SHORT_REQ, from);
  check_words("Short Request", 'I', from, iter, args, 16);
  gex_Rank_t me = c->rank;
  gex_AM_ReplyShort8(tok, c->am_index[GEXDIAG_H_SHORT_REP], 0, a0, (gex_AM_Arg_t)me,
                     short_word('i', me, iter, 2), short_word('i', me, iter, 3),
                     short_word('i', me, iter, 4), short_word('i', me, iter, 5),
                     short_word('i', me, iter, 6), short_word('i', me, iter, 7));
}

static void h_short_rep(gex_Token_t tok, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2,
                        gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6,
                        gex_AM_Arg_t a7) {
  gex_AM_Arg_t args[8] = {a0, a1, a2, a3, a4, a5, a6, a7};
  long iter = (long)(uint32_t)a0;
  gex_Rank_t from = (gex_Rank_t)a1;
  if (from != gexdiag_ctx.peer)
    gexdiag_error("Short Reply of iteration %ld from rank %u, not from the peer %u", iter,
                  (unsigned)from, (unsigned)gexdiag_ctx.peer);
  check_token(tok, GEXDIAG_H_SHORT_REP, from);
  check_words("Short Reply", 'i', from, iter, args, 8);
  reply_arrived("Short Reply", iter);
}

/* ---- J: Medium -------------------------------------------------------------------- */
static void h_medium_req(gex_Token_t tok, void *buf, size_t nbytes, gex_AM_Arg_t a0,
                         gex_AM_Arg_t a1, gex_AM_Arg_t a2) {
  const struct gexdiag_context *c = &gexdiag_ctx;
  long iter = (long)(uint32_t)a0;
  gex_Rank_t from = (gex_Rank_t)a1;
  check_token(tok, GEXDIAG_H_MEDIUM_REQ, from);
  if (nbytes != (size_t)(uint32_t)a2)
    gexdiag_error("Medium Request of iteration %ld from rank %u: %zu bytes, the sender says %u",
                  iter, (unsigned)from, nbytes, (unsigned)a2);
  else
    check_payload("Medium Request", from, iter, buf, nbytes, gexdiag_key('J', from, (uint64_t)iter, 0x4D));
  unsigned char reply[MEDIUM_REPLY_MAX];
  size_t rlen = medium_reply_len(c->rank, iter);
  gexdiag_fill(reply, rlen, gexdiag_key('j', c->rank, (uint64_t)iter, 0x4D));
  gex_AM_ReplyMedium3(tok, c->am_index[GEXDIAG_H_MEDIUM_REP], reply, rlen, GEX_EVENT_NOW, 0, a0,
                      (gex_AM_Arg_t)c->rank, (gex_AM_Arg_t)rlen);
}

static void h_medium_rep(gex_Token_t tok, void *buf, size_t nbytes, gex_AM_Arg_t a0,
                         gex_AM_Arg_t a1, gex_AM_Arg_t a2) {
  long iter = (long)(uint32_t)a0;
  gex_Rank_t from = (gex_Rank_t)a1;
  check_token(tok, GEXDIAG_H_MEDIUM_REP, from);
  size_t want = from < gexdiag_ctx.size ? medium_reply_len(from, iter) : 0;
  if (from != gexdiag_ctx.peer || nbytes != want || nbytes != (size_t)(uint32_t)a2)
    gexdiag_error("Medium Reply of iteration %ld: %zu bytes from rank %u, want %zu from rank %u",
                  iter, nbytes, (unsigned)from, want, (unsigned)gexdiag_ctx.peer);
  else
    check_payload("Medium Reply", from, iter, buf, nbytes, gexdiag_key('j', from, (uint64_t)iter, 0x4D));
  reply_arrived("Medium Reply", iter);
}

/* ---- K: Long ---------------------------------------------------------------------- */
static void h_long_req(gex_Token_t tok, void *buf, size_t nbytes, gex_AM_Arg_t a0, gex_AM_Arg_t a1,
                       gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5) {
  const struct gexdiag_context *c = &gexdiag_ctx;
  long iter = (long)(uint32_t)a0;
  gex_Rank_t from = (gex_Rank_t)a1;
  int w = (int)((unsigned long)iter % W);
  int bad = check_token(tok, GEXDIAG_H_LONG_REQ, from);
  if (!bad && c->peer_of[from] != c->rank) {
    gexdiag_error("Long Request from rank %u, which does not name this rank as its peer",
                  (unsigned)from);
    bad = 1;
  }
  if (!bad && (uint32_t)a3 != (uint32_t)w) {
    gexdiag_error("Long Request of iteration %ld from rank %u names window slot %u, want %d", iter,
                  (unsigned)from, (unsigned)a3, w);
    bad = 1;
  }
  if (!bad) {
    unsigned char *want = c->myarea + gexdiag_slot_off(from) + (size_t)w * long_part_of(c->rank);
    if ((unsigned char *)buf != want || nbytes != (size_t)(uint32_t)a2 ||
        nbytes > long_part_of(c->rank))
      gexdiag_error("Long Request of iteration %ld from rank %u: %zu bytes at %p, want %u at %p",
                    iter, (unsigned)from, nbytes, buf, (unsigned)a2, (void *)want);
    else
      check_payload("Long Request", from, iter, buf, nbytes, gexdiag_key('K', from, (uint64_t)iter, 0x4C));
  }
  /* The reply goes to part w of the requester's reply half, whose address
   * the Request carries; its payload is made here. */
  size_t rlen = long_reply_len(c->rank, iter);
  unsigned char *rsrc = malloc(rlen ? rlen : 1);
  if (!rsrc) {
    gexdiag_error("no memory for a Long Reply of %zu bytes", rlen);
    rlen = 0;
  } else {
    gexdiag_fill(rsrc, rlen, gexdiag_key('k', c->rank, (uint64_t)iter, 0x4C));
  }
  void *dest = (void *)(uintptr_t)(((uint64_t)(uint32_t)a4 << 32) | (uint32_t)a5);
  gex_AM_ReplyLong3(tok, c->am_index[GEXDIAG_H_LONG_REP], rsrc ? rsrc : (void *)&rlen, rlen, dest,
                    GEX_EVENT_NOW, 0, a0, (gex_AM_Arg_t)c->rank, (gex_AM_Arg_t)rlen);
  free(rsrc);
}

static void h_long_rep(gex_Token_t tok, void *buf, size_t nbytes, gex_AM_Arg_t a0, gex_AM_Arg_t a1,
                       gex_AM_Arg_t a2) {
  const struct gexdiag_context *c = &gexdiag_ctx;
  long iter = (long)(uint32_t)a0;
  gex_Rank_t from = (gex_Rank_t)a1;
  int w = (int)((unsigned long)iter % W);
  check_token(tok, GEXDIAG_H_LONG_REP, from);
  unsigned char *want = c->myarea + c->area / 2 + (size_t)w * reply_part();
  size_t want_len = from < c->size ? long_reply_len(from, iter) : 0;
  if (from != c->peer || (unsigned char *)buf != want || nbytes != want_len ||
      nbytes != (size_t)(uint32_t)a2)
    gexdiag_error("Long Reply of iteration %ld from rank %u: %zu bytes at %p, want %zu from rank "
                  "%u at %p",
                  iter, (unsigned)from, nbytes, buf, want_len, (unsigned)c->peer, (void *)want);
  else
    check_payload("Long Reply", from, iter, buf, nbytes, gexdiag_key('k', from, (uint64_t)iter, 0x4C));
  reply_arrived("Long Reply", iter);
}

void gexdiag_fill_handlers(gex_AM_Entry_t *t) {
  static const struct {
    gex_AM_Fn_t fn;
    gex_Flags_t flags;
    unsigned nargs;
    const char *name;
  } e[GEXDIAG_NHANDLERS] = {
      {(gex_AM_Fn_t)h_short_req, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 16,
       "gasnett_diagnostics Short Request"},
      {(gex_AM_Fn_t)h_short_rep, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 8,
       "gasnett_diagnostics Short Reply"},
      {(gex_AM_Fn_t)h_medium_req, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 3,
       "gasnett_diagnostics Medium Request"},
      {(gex_AM_Fn_t)h_medium_rep, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 3,
       "gasnett_diagnostics Medium Reply"},
      {(gex_AM_Fn_t)h_long_req, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 6,
       "gasnett_diagnostics Long Request"},
      {(gex_AM_Fn_t)h_long_rep, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 3,
       "gasnett_diagnostics Long Reply"},
  };
  for (int h = 0; h < GEXDIAG_NHANDLERS; h++) {
    t[h].gex_index = 0; /* any free index; registration writes it back */
    t[h].gex_fnptr = e[h].fn;
    t[h].gex_flags = e[h].flags;
    t[h].gex_nargs = e[h].nargs;
    t[h].gex_cdata = NULL;
    t[h].gex_name = e[h].name;
  }
}

/* ---- the senders ------------------------------------------------------------------ */
/* Sends iteration i in window slot w (which is free). */
typedef void (*send_fn)(void *state, long i, int w);

static void round_trips(send_fn send, void *state) {
  struct gexdiag_context *c = &gexdiag_ctx;
  for (int w = 0; w < W; w++) __atomic_store_n(&c->am_busy[w], 0, __ATOMIC_RELAXED);
  for (long i = 0; i < c->iters; i++) {
    int w = (int)(i % W);
    while (__atomic_load_n(&c->am_busy[w], __ATOMIC_ACQUIRE)) gexdiag_poll_idle();
    __atomic_store_n(&c->am_iter[w], i, __ATOMIC_RELAXED);
    __atomic_store_n(&c->am_busy[w], 1, __ATOMIC_RELEASE);
    send(state, i, w);
  }
  for (int w = 0; w < W; w++)
    while (__atomic_load_n(&c->am_busy[w], __ATOMIC_ACQUIRE)) gexdiag_poll_idle();
}

static void send_short(void *state, long i, int w) {
  const struct gexdiag_context *c = &gexdiag_ctx;
  gex_Rank_t me = c->rank;
  gex_AM_Arg_t a2 = short_word('I', me, i, 2);
  (void)state;
  (void)w;
  if (i == c->iters / 2 && gexdiag_fault()) a2 ^= 1;
  gex_AM_RequestShort16(c->tm, c->peer, c->am_index[GEXDIAG_H_SHORT_REQ], 0, (gex_AM_Arg_t)i,
                        (gex_AM_Arg_t)me, a2, short_word('I', me, i, 3), short_word('I', me, i, 4),
                        short_word('I', me, i, 5), short_word('I', me, i, 6),
                        short_word('I', me, i, 7), short_word('I', me, i, 8),
                        short_word('I', me, i, 9), short_word('I', me, i, 10),
                        short_word('I', me, i, 11), short_word('I', me, i, 12),
                        short_word('I', me, i, 13), short_word('I', me, i, 14),
                        short_word('I', me, i, 15));
}

void gexdiag_section_am_short(void) { round_trips(send_short, NULL); }

struct payload_state {
  unsigned char *buf;
  size_t max;
  gexdiag_rng_t rng;
};

/* A length in 0..max (at least 1 when the fault is to be injected in it). */
static size_t payload_len(struct payload_state *s, int fault) {
  size_t n = gexdiag_next(&s->rng) % 16 == 0 ? s->max : gexdiag_range(&s->rng, 0, s->max);
  return fault && n == 0 ? 1 : n;
}

static void send_medium(void *state, long i, int w) {
  const struct gexdiag_context *c = &gexdiag_ctx;
  struct payload_state *s = (struct payload_state *)state;
  int fault = i == c->iters / 2 && gexdiag_fault();
  size_t n = payload_len(s, fault);
  (void)w;
  gexdiag_fill(s->buf, n, gexdiag_key('J', c->rank, (uint64_t)i, 0x4D));
  if (fault) s->buf[n / 2] ^= 1;
  gex_AM_RequestMedium3(c->tm, c->peer, c->am_index[GEXDIAG_H_MEDIUM_REQ], s->buf, n, GEX_EVENT_NOW,
                        0, (gex_AM_Arg_t)i, (gex_AM_Arg_t)c->rank, (gex_AM_Arg_t)n);
}

void gexdiag_section_am_medium(void) {
  struct payload_state s;
  s.max = gex_AM_LUBRequestMedium();
  s.buf = malloc(s.max ? s.max : 1);
  s.rng.s = gexdiag_key('J', gexdiag_ctx.rank, 0, 0x524E47);
  if (!s.buf) {
    gexdiag_error("no memory for a Medium payload of %zu bytes", s.max);
    return;
  }
  round_trips(send_medium, &s);
  free(s.buf);
}

static void send_long(void *state, long i, int w) {
  const struct gexdiag_context *c = &gexdiag_ctx;
  struct payload_state *s = (struct payload_state *)state;
  int fault = i == c->iters / 2 && gexdiag_fault();
  size_t n = payload_len(s, fault);
  gexdiag_fill(s->buf, n, gexdiag_key('K', c->rank, (uint64_t)i, 0x4C));
  if (fault) s->buf[n / 2] ^= 1;
  unsigned char *dest = c->peerarea + gexdiag_slot_off(c->rank) + (size_t)w * long_part();
  uint64_t reply_to = (uint64_t)(uintptr_t)(c->myarea + c->area / 2 + (size_t)w * reply_part());
  gex_AM_RequestLong6(c->tm, c->peer, c->am_index[GEXDIAG_H_LONG_REQ], s->buf, n, dest,
                      GEX_EVENT_NOW, 0, (gex_AM_Arg_t)i, (gex_AM_Arg_t)c->rank, (gex_AM_Arg_t)n,
                      (gex_AM_Arg_t)w, (gex_AM_Arg_t)(uint32_t)(reply_to >> 32),
                      (gex_AM_Arg_t)(uint32_t)reply_to);
}

void gexdiag_section_am_long(void) {
  struct payload_state s;
  s.max = min_size(long_part(), gex_AM_LUBRequestLong());
  if (long_part() < 64 || reply_part() < 64) {
    gexdiag_error("the slots are too small for %d Long Requests in flight", W);
    return;
  }
  s.buf = malloc(s.max);
  s.rng.s = gexdiag_key('K', gexdiag_ctx.rank, 0, 0x524E47);
  if (!s.buf) {
    gexdiag_error("no memory for a Long payload of %zu bytes", s.max);
    return;
  }
  round_trips(send_long, &s);
  free(s.buf);
}
