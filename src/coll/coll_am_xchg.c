/* coll/coll_am_xchg.c -- ReduceToAll on the AM collectives engine by
 * exchange: recursive doubling, recursive halving for large vectors, and the
 * standing landing buffers of the doubling steps by push.  See coll_am.c
 * ("Standing landing buffers") and docs/collectives.md, "Algorithms". */
#include "coll/coll_am_engine.h"

/* ---- ReduceToAll: recursive doubling ------------------------------------------
 * With p the largest power of two <= n and rem = n - p: at step 0
 * (fold-in) every even team rank below 2*rem sends its vector to the next
 * rank, which folds it in as the left operand; the even rank then only
 * waits for the result at step xlog+1 (fold-out).  The other p ranks take
 * virtual ranks v (odd r < 2*rem: r/2; r >= 2*rem: r - rem), and at steps
 * s = 1..xlog exchange their whole partial results with virtual rank
 * v ^ 2^(s-1), folding lower op higher (or, where the operands commute bit
 * for bit, mine op partner's: no copy of mine).  Each virtual rank stands for a
 * contiguous range of team ranks and, before step s, each partner holds the
 * fold of an aligned block of 2^(s-1) virtual ranks, so every fold keeps
 * rank order (GEX_OP_USER_NC) and both partners compute the same result
 * from the same operands, bit for bit.  Against the tree's reduce-then-
 * broadcast: log2(p) (+2) one-way latencies instead of two tree depths, and
 * no rank takes in more than one vector per step.  GEX_COLL_XCHG=0 runs
 * ReduceToAll on the tree instead (tests, comparisons). */
static gex_Rank_t xchg_real(gex_Rank_t v, gex_Rank_t rem) {
  return v < rem ? 2 * v + 1 : v + rem;
}

/* The level of doubling step s (1..xsteps): its partner is v XOR 2^(level-1).
 * Doubling: s.  Halving: s for the reduce-scatter steps 1..xlog, then back
 * down, xlog..1, for the allgather. */
static uint32_t xchg_level(const struct gexi_Event *e, uint32_t s) {
  return s <= e->xlog ? s : 2 * e->xlog - s + 1;
}

/* Partner of step s (GEX_RANK_INVALID: none); whether I send and receive. */
static gex_Rank_t xchg_partner(const struct gexi_Event *e, uint32_t s, bool *snd, bool *rcv) {
  gex_Rank_t n = e->t->head.size, me = e->t->head.rank;
  gex_Rank_t rem = n - ((gex_Rank_t)1 << e->xlog);
  bool edge = s == 0 || s == e->xsteps + 1;
  *snd = *rcv = false;
  if (me < 2 * rem && me % 2 == 0) { /* folded into me + 1 */
    if (!edge) return GEX_RANK_INVALID;
    *snd = s == 0;
    *rcv = !*snd;
    return me + 1;
  }
  if (edge) {
    if (me >= 2 * rem) return GEX_RANK_INVALID;
    *rcv = s == 0;
    *snd = !*rcv;
    return me - 1;
  }
  gex_Rank_t v = me < 2 * rem ? me / 2 : me - rem;
  *snd = *rcv = true;
  return xchg_real(v ^ ((gex_Rank_t)1 << (xchg_level(e, s) - 1)), rem);
}

static bool overlap(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  return n && x < y + n && y < x + n;
}

/* Whether x op y and y op x are the same bytes for every x, y: the built-in
 * operators on integers.  (Not floating point: MIN and MAX with signed
 * zeros or NaNs, and ADD of two NaNs, depend on the order.) */
static bool bitwise_commutes(const struct gexi_Event *e) {
  switch (e->dt) {
    case GEX_DT_I32: case GEX_DT_U32: case GEX_DT_I64: case GEX_DT_U64:
      return e->op != GEX_OP_USER && e->op != GEX_OP_USER_NC;
    default: return false;
  }
}

void gexi_cam_xchg_start(struct gexi_Event *e) {
  e->xchg = true;
  e->xlog = 0;
  while (((uint64_t)2 << e->xlog) <= e->t->head.size) e->xlog++;
  /* Halving from 4 doubling members, for payloads of at least 32 times
   * GEX_COLL_RDV_MIN (1 MiB by default) with an element for every member:
   * it takes twice as many steps, which cost more than it saves below that
   * (net, 4 ranks: 512 KiB 515 us against 483 by doubling, 256 KiB 403
   * against 314-345; 1 MiB 750-783 against 1214). */
  bool halve = e->rdv && e->xlog >= 2 && e->dt_cnt >= ((size_t)1 << e->xlog) &&
               gexi_cam_dst_bytes(e) / 32 >= gexi_ctx.env.coll_rdv_min;
  e->xsteps = halve ? 2 * e->xlog : e->xlog;
  if (halve) atomic_fetch_add_explicit(&gexi_ctx.coll_am->halved, 1, memory_order_relaxed);
  e->xfrags = (gexi_cam_dst_bytes(e) + e->chunk - 1) / e->chunk;
  e->xcur = e->src;
}

/* Fold the partner's vector (at 'into': e->asmb, or dst) into my partial
 * result e->xcur, the partner's on the left if lower.  The result lands in
 * dst at my last doubling step, else in an engine buffer, and becomes
 * e->xcur.  The caller has waited for the partner's ACKs if this writes a
 * buffer the partner may be reading; an engine buffer that held an
 * announced partial is kept until completion (acc_retire). */
static void xchg_fold(struct gexi_Event *e, unsigned char *into, bool lower, bool last) {
  size_t total = gexi_cam_dst_bytes(e);
  unsigned char *out = into;
  if (!lower) { /* mine on the left: into the partner's vector, or into dst at the end */
    bool to_dst = last && into != e->dst && !overlap(e->dst, into, total) &&
                  (e->xcur == e->dst || !overlap(e->dst, e->xcur, total));
    if (to_dst && gexi_coll_combine_to(e, e->xcur, into, e->dst, e->dt_cnt)) {
      out = e->dst;
    } else {
      gexi_coll_combine(e, e->xcur, out, e->dt_cnt);
      if (last && out != e->dst) {
        memcpy(e->dst, out, total);
        out = e->dst;
      }
    }
  } else {
    out = last ? e->dst : e->acc ? e->acc->data : (e->acc = gexi_cam_msg_alloc(total))->data;
    if (out != e->xcur) memmove(out, e->xcur, total); /* dst may be src */
    gexi_coll_combine(e, into, out, e->dt_cnt);
  }
  if (e->acc && out != e->acc->data) gexi_cam_acc_retire(e, true);
  if (e->asmb && out == e->asmb->data) {
    e->acc = e->asmb;
  } else if (e->asmb && e->rdv && e->rdv->push) { /* it was a landing buffer: exposed */
    e->asmb->next = e->rdv->keep;
    e->rdv->keep = e->asmb;
  } else {
    gexi_cam_msg_free(e->asmb);
  }
  e->asmb = NULL;
  e->xcur = out;
}

/* ---- ReduceToAll: halving -------------------------------------------------------
 * From 4 doubling members and 32 GEX_COLL_RDV_MIN bytes (xchg_start), the
 * doubling steps become a reduce-scatter and an allgather (Rabenseifner):
 * at reduce-scatter step s (partner v XOR 2^(s-1)) both partners hold the
 * same segment of elements; each keeps one half (the lower one where that
 * bit of v is 0), sends the other, and folds the partner's copy of its
 * half into its own, lower rank on the left as in doubling.  After xlog
 * steps each member holds the fully reduced 1/p of the vector; the
 * allgather undoes the steps (levels xlog..1), each member sending what it
 * holds and receiving its partner's into place.  Every member moves 2(p-1)/p
 * of a vector instead of log2(p) whole ones and folds (p-1)/p of one
 * instead of log2(p); every element is reduced at one member only, so all
 * end with the same bytes.  The working vector xw is dst where it is free
 * of src and xcur (or is them both, in place), else an engine buffer. */

/* The segment [*lo, *hi) of elements virtual rank v keeps after k
 * reduce-scatter steps. */
static void xseg(size_t cnt, gex_Rank_t v, uint32_t k, size_t *lo, size_t *hi) {
  size_t a = 0, b = cnt;
  for (uint32_t j = 0; j < k; j++) {
    size_t mid = a + (b - a) / 2;
    if ((v >> j) & 1)
      a = mid;
    else
      b = mid;
  }
  *lo = a;
  *hi = b;
}

static gex_Rank_t xvirt(const struct gexi_Event *e) {
  gex_Rank_t n = e->t->head.size, me = e->t->head.rank;
  gex_Rank_t rem = n - ((gex_Rank_t)1 << e->xlog);
  return me < 2 * rem ? me / 2 : me - rem;
}

/* ---- ReduceToAll: standing landing buffers (see the top of this file) ---- */

/* Whether step s of e, by push (psh) with its partner, grants a standing
 * buffer for the next collective: a doubling step of at most
 * GEX_COLL_RDV_STANDING bytes.  The same at both ends of the pair. */
static bool xl_eligible(const struct gexi_Event *e, uint32_t s, bool psh) {
  return psh && e->xchg && e->xsteps == e->xlog && s >= 1 && s <= e->xlog && s <= XL_STEPS &&
         gexi_cam_dst_bytes(e) <= gexi_ctx.env.coll_rdv_standing;
}

/* My standing buffer the partner writes step s of e into, or NULL (then it
 * waits for my RTR). */
static unsigned char *xl_landing(const struct gexi_Event *e, uint32_t s, bool psh) {
  const struct gexi_xland *x = e->t->xland;
  unsigned p = e->seq & 1;
  if (!x || !xl_eligible(e, s, psh) || !x->mine_ok[s - 1][p] || x->mine_seq[s - 1][p] != e->seq)
    return NULL;
  const struct xl_buf *b = &x->mine[s - 1][p];
  return b->len >= gexi_cam_dst_bytes(e) ? b->m->data : NULL;
}

/* The partner's standing buffer I write step s of e into, or NULL. */
static const struct rdv_desc *xl_target(const struct gexi_Event *e, uint32_t s, bool psh) {
  const struct gexi_xland *x = e->t->xland;
  unsigned p = e->seq & 1;
  if (!x || !xl_eligible(e, s, psh) || !x->theirs_ok[s - 1][p] || x->theirs_seq[s - 1][p] != e->seq)
    return NULL;
  return x->theirs[s - 1][p].len >= gexi_cam_dst_bytes(e) ? &x->theirs[s - 1][p] : NULL;
}

static struct gexi_xland *xl_of(struct gexi_team *t) {
  if (!t->xland && !(t->xland = calloc(1, sizeof *t->xland))) gexi_fatal("out of memory");
  return t->xland;
}

static void xl_buf_release(struct xl_buf *b) {
  if (!b->m) return;
  gexi_ctx.net->unexpose(b->handle);
  gexi_cam_msg_free(b->m);
  *b = (struct xl_buf){0};
}

/* My grant for step s of the collective after e: the buffer of its parity
 * (free: see the top of this file), grown to e's size if smaller. */
static void xl_grant(struct gexi_Event *e, uint32_t s, struct rdv_desc *g) {
  struct gexi_xland *x = xl_of(e->t);
  uint32_t next = e->seq + 1;
  struct xl_buf *b = &x->mine[s - 1][next & 1];
  size_t total = gexi_cam_dst_bytes(e);
  if (b->m && b->len < total) xl_buf_release(b);
  if (!b->m) {
    b->m = gexi_cam_msg_alloc(total);
    b->len = total;
    b->handle = gexi_ctx.net->expose(b->m->data, total, &b->key, &b->raddr);
  }
  x->mine_seq[s - 1][next & 1] = next;
  x->mine_ok[s - 1][next & 1] = true;
  *g = (struct rdv_desc){b->raddr, b->key, b->len, RDV_MAGIC, 0};
}

/* The partner's grant for step s of the collective after e, in m. */
void gexi_cam_xl_take_grant(struct gexi_Event *e, uint32_t s, const struct gexi_cam_msg *m) {
  struct rdv_desc d;
  if (m->nbytes != sizeof d) gexi_cam_mismatch(e, m->src, m->nbytes, sizeof d);
  memcpy(&d, m->data, sizeof d);
  if (d.magic != RDV_MAGIC || d.len < gexi_cam_dst_bytes(e)) gexi_cam_mismatch(e, m->src, d.len, gexi_cam_dst_bytes(e));
  struct gexi_xland *x = xl_of(e->t);
  uint32_t next = e->seq + 1;
  x->theirs[s - 1][next & 1] = d;
  x->theirs_seq[s - 1][next & 1] = next;
  x->theirs_ok[s - 1][next & 1] = true;
}

void gexi_cam_team_free(struct gexi_team *t) {
  struct gexi_xland *x = t->xland;
  if (!x) return;
  for (size_t i = 0; i < XL_STEPS; i++)
    for (size_t p = 0; p < 2; p++) xl_buf_release(&x->mine[i][p]);
  free(x);
  t->xland = NULL;
}

/* One step s of a segment exchange with team rank pr (tags TAG_XCHG from
 * s * xfrags): send sn bytes at p, inside [base, base+blen), and receive rn
 * bytes into q, inside [rbase, rbase+rlen) (either may be 0 bytes): by
 * push where the pair allows it, else by rendezvous reads.  'standing': q
 * is my standing buffer, granted to the partner (no RTR).  0 until done;
 * state in xsent, xgot and rtr_sent, which the caller resets per step. */
static int seg_xfer(struct gexi_Event *e, uint32_t s, gex_Rank_t pr, const void *base,
                    size_t blen, const unsigned char *p, size_t sn, unsigned char *rbase,
                    size_t rlen, unsigned char *q, size_t rn, bool standing, int *moved) {
  size_t c = e->chunk, first = (size_t)s * e->xfrags;
  bool psh = gexi_cam_push_with(e, pr), grants = xl_eligible(e, s, psh);
  if (psh && rn && !e->rtr_sent) {
    if (!standing) gexi_cam_send_rtr(e, pr, TAG_RTR | s, rbase, rlen, q, rn);
    e->rtr_sent = true;
    *moved = 1;
  }
  if (sn && !e->xsent) {
    if (psh) {
      struct rdv_desc d, g;
      const struct rdv_desc *w = xl_target(e, s, psh);
      if (w)
        d = *w;
      else if (!gexi_cam_take_rtr(e, pr, TAG_RTR | s, sn, &d))
        return 0;
      if (grants) xl_grant(e, s, &g);
      gexi_cam_push_frags(e, pr, TAG_XCHG, first, &d, 0, p, sn, grants ? &g : NULL, NULL);
    } else {
      gexi_cam_send_frags(e, pr, TAG_XCHG, first, base, blen, p, sn);
    }
    e->xsent = true;
    *moved = 1;
  }
  for (size_t nfr = (rn + c - 1) / c; e->xgot < nfr;) {
    uint32_t tag = TAG_XCHG | (uint32_t)(first + e->xgot);
    struct gexi_cam_msg *m = gexi_cam_take(e->t->slot, e->seq, tag, pr);
    if (!m) return 0;
    size_t off = e->xgot * c;
    if (psh)
      gexi_cam_landed(e, m, grants && e->xgot == 0 ? s : 0);
    else
      gexi_cam_recv_frag(e, m, q + off, rn - off < c ? rn - off : c);
    e->xgot++;
    *moved = 1;
    if (standing && e->xgot == nfr)
      atomic_fetch_add_explicit(&gexi_ctx.coll_am->standing, 1, memory_order_relaxed);
  }
  return 1;
}

/* Halving step s (1..2 xlog) with team rank pr; 0 until done. */
static int halve_step(struct gexi_Event *e, uint32_t s, gex_Rank_t pr, int *moved) {
  size_t sz = e->dt_sz, total = gexi_cam_dst_bytes(e);
  uint32_t lvl = xchg_level(e, s);
  bool rs = s <= e->xlog;
  gex_Rank_t v = xvirt(e), pv = v ^ ((gex_Rank_t)1 << (lvl - 1));
  size_t alo, ahi, blo, bhi; /* mine and the partner's at this level */
  xseg(e->dt_cnt, v, lvl, &alo, &ahi);
  xseg(e->dt_cnt, pv, lvl, &blo, &bhi);
  if (!e->xw) {
    if (e->xcur == e->dst || (!overlap(e->dst, e->xcur, total) && !overlap(e->dst, e->src, total)))
      e->xw = e->dst;
    else
      e->xw = (e->xwbuf = gexi_cam_msg_alloc(total))->data;
  }
  /* Reduce-scatter: send the partner's half from my partial (xcur at the
   * first step, then xw), receive mine into the engine buffer asmb.
   * Allgather: send mine from xw, receive the partner's into xw. */
  const unsigned char *from = rs && s == 1 ? e->xcur : e->xw;
  size_t slo = rs ? blo : alo, sn = ((rs ? bhi : ahi) - slo) * sz;
  size_t rlo = rs ? alo : blo, rn = ((rs ? ahi : bhi) - rlo) * sz;
  if (rs && !e->asmb) e->asmb = gexi_cam_msg_alloc(total);
  unsigned char *rbase = rs ? e->asmb->data : e->xw, *into = rs ? rbase : rbase + rlo * sz;
  if (!seg_xfer(e, s, pr, from, total, from + slo * sz, sn, rbase, total, into, rn, false, moved))
    return 0;
  if (rs) { /* fold the partner's copy of my half into xw */
    unsigned char *k = e->xw + alo * sz;
    const unsigned char *mine = from + alo * sz;
    if (pr < e->t->head.rank || bitwise_commutes(e)) { /* the partner's on the left */
      if (k != mine) memcpy(k, mine, rn);
      gexi_coll_combine(e, into, k, ahi - alo);
    } else { /* mine on the left */
      gexi_coll_combine(e, mine, into, ahi - alo);
      memcpy(k, into, rn);
    }
  } else if (s == e->xsteps) {
    e->xcur = e->xw;
  }
  return 1;
}

/* Step s of the exchange (fold-in, a doubling step, fold-out) with team
 * rank pr; 0 until done. */
static int xchg_step(struct gexi_Event *e, uint32_t s, gex_Rank_t pr, bool snd, bool rcv,
                     int *moved) {
  struct gexi_team *t = e->t;
  size_t total = gexi_cam_dst_bytes(e);
  bool fold_out = s == e->xsteps + 1;
  bool psh = pr != GEX_RANK_INVALID && gexi_cam_push_with(e, pr);
  /* 'lower': the partner's operand goes on the left, into my partial.
   * Where the order does not change the bytes, mine goes on the left
   * whoever is lower: into the partner's vector, no copy of mine.
   * 'dst_busy': dst holds my partial, or src (in place), which an
   * earlier step's partner may still be reading (or, by push, my own
   * write of this step). */
  bool lower = rcv && pr < t->head.rank && !bitwise_commutes(e), last = s == e->xsteps;
  bool dst_busy = overlap(e->dst, e->xcur, total) || overlap(e->dst, e->src, total);
  /* Straight into dst: the fold-out's result (its sender has read all
   * it wanted from me), and the partner's operand of my last fold when
   * mine is the left one and dst is free. */
  unsigned char *into = e->dst, *standing = rcv && !fold_out ? xl_landing(e, s, psh) : NULL;
  if (standing) {
    into = standing;
  } else if (rcv && !fold_out && !(last && !lower && !dst_busy)) {
    if (!e->asmb) e->asmb = gexi_cam_msg_alloc(total);
    into = e->asmb->data;
  }
  const unsigned char *mine = e->xcur;
  if ((snd || rcv) && !seg_xfer(e, s, pr, mine, total, mine, snd ? total : 0, into, total,
                                into, rcv ? total : 0, standing != NULL, moved))
    return 0;
  if (rcv) {
    /* Before the fold writes a buffer a reader may still need: dst when
     * busy (every ACK of this collective so far), or acc, my partial of
     * this step (this partner's ACKs; none by push). */
    if (!fold_out && e->rdv && last && dst_busy && !gexi_cam_rdv_acked(e, moved)) return 0;
    while (!fold_out && e->rdv && !psh && lower && !last && e->acc && e->xacks < e->xfrags) {
      struct gexi_cam_msg *m = gexi_cam_take(t->slot, e->seq, TAG_ACK, pr);
      if (!m) return 0;
      gexi_cam_msg_free(m);
      e->rdv->acks_due--;
      e->xacks++;
      *moved = 1;
    }
    if (fold_out)
      e->xcur = e->dst;
    else
      xchg_fold(e, into, lower, last);
  }
  return 1;
}

int gexi_cam_xchg_reduce(struct gexi_Event *e, int *moved) {
  size_t total = gexi_cam_dst_bytes(e);
  while (e->xstep <= e->xsteps + 1) {
    uint32_t s = e->xstep;
    bool snd, rcv;
    gex_Rank_t pr = xchg_partner(e, s, &snd, &rcv);
    bool halving = e->xsteps != e->xlog && snd && s && s <= e->xsteps;
    if (!(halving ? halve_step(e, s, pr, moved) : xchg_step(e, s, pr, snd, rcv, moved)))
      return 0;
    e->xstep++;
    e->xsent = e->rtr_sent = false;
    e->xgot = e->xacks = 0;
    *moved = 1;
  }
  if (e->xcur != e->dst && total) { /* a team of one, or halving in an engine buffer */
    if (e->rdv && !gexi_cam_rdv_acked(e, moved)) return 0; /* dst may overlap src, still read */
    memmove(e->dst, e->xcur, total);
  }
  if (e->acc) gexi_cam_acc_retire(e, true);
  return 1;
}
