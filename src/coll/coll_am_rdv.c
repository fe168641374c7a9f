/* coll/coll_am_rdv.c -- the AM collectives engine's rendezvous: fragments of
 * large broadcasts and reductions moved by RMA (reads, or writes by push)
 * instead of inside the AMs.  See coll_am.c ("Rendezvous", "Rendezvous by
 * push") and docs/collectives.md. */
#include "coll/coll_am_engine.h"

/* ---- rendezvous ----------------------------------------------------------------- */
/* From GEX_COLL_RDV_MIN bytes (32 KiB by default) where the data will move
 * by push (a broadcast, or a ReduceToAll by exchange, on a transport with
 * put_ordered): one write and one Short per fragment, no acknowledgement,
 * beat the 15 KiB fragments' copies (net, 4 ranks: broadcast 32 KiB 42.6
 * us against 61.6 in fragments, 64 KiB 57 against 95; ReduceToAll 32 KiB
 * 102 against 124; 2 ranks: ReduceToAll 32 KiB 26.3 against 35.7, 16 KiB
 * 25 against 19 -- fragments win below 32 KiB).  Where it will move by
 * reads, the readers' round trips cost more: from twice that where every
 * transfer is between two processes alone (the exchange, each of whose
 * steps moves a whole vector both ways; a broadcast in a team of two, one
 * read with nothing to pipeline: 64 KiB 25 us against 29-33 in fragments),
 * else from four times that (a tree, whose root serves every reader while
 * fragments pipeline: at 4 ranks 64 KiB took 184 us by reads and 110 in
 * fragments). */
bool gexi_cam_by_exchange(const struct gexi_Event *e) {
  return e->ckind == GEXI_COLL_REDUCE && e->root == GEX_RANK_INVALID && gexi_ctx.env.coll_xchg;
}

/* Whether a rendezvous of e moves by push (between the pairs push_with
 * allows); called only where gexi_ctx.net exposes buffers. */
bool gexi_cam_push_kind(const struct gexi_Event *e) {
  return (e->ckind == GEXI_COLL_BCAST || gexi_cam_by_exchange(e)) && gexi_ctx.env.coll_rdv_push &&
         gexi_ctx.net->put_ordered();
}

bool gexi_cam_rdv_wanted(const struct gexi_Event *e, size_t total) {
  if (e->ckind == GEXI_COLL_GATHER || !gexi_ctx.net || !gexi_ctx.net->expose) return false;
  uint64_t min = gexi_ctx.env.coll_rdv_min;
  if (!gexi_cam_push_kind(e))
    min *= gexi_cam_by_exchange(e) || (e->ckind == GEXI_COLL_BCAST && e->t->head.size == 2) ? 2 : 4;
  return min && total >= min;
}

/* The exposure of the buffer [base, base+len), made on first use. */
static struct rdv_expo *expo_of(struct gexi_Event *e, const void *base, size_t len) {
  struct gexi_cam_rdv *r = e->rdv;
  for (size_t i = 0; i < r->n; i++)
    if (r->x[i].base == base) return &r->x[i];
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 4;
    r->x = realloc(r->x, r->cap * sizeof *r->x);
    if (!r->x) gexi_fatal("out of memory");
  }
  struct rdv_expo *x = &r->x[r->n++];
  x->base = base;
  x->len = len;
  x->handle = gexi_ctx.net->expose(base, len, &x->key, &x->raddr);
  return x;
}

/* Send fragment [p, p+len) of the buffer [base, base+blen) to team rank
 * 'to': as a Medium, or announced for a rendezvous read (the buffer must
 * then stay unchanged until completion). */
void gexi_cam_send_frag(struct gexi_Event *e, gex_Rank_t to, uint32_t tag, const void *base,
                      size_t blen, const void *p, size_t len) {
  if (!e->rdv) {
    gexi_cam_send_medium(e, to, e->seq, tag, p, len);
    return;
  }
  const struct rdv_expo *x = expo_of(e, base, blen);
  struct rdv_desc d = {x->raddr + (uint64_t)((const unsigned char *)p - x->base), x->key, len,
                       RDV_MAGIC, 0};
  e->rdv->acks_due++;
  gexi_cam_send_medium(e, to, e->seq, tag, &d, sizeof d);
}

/* The n fragment messages m[i] into dst[i] (len[i] bytes each): copied
 * from them, or read from their senders, all reads of one sender in flight
 * at once, and acknowledged.  Frees them. */
void gexi_cam_recv_frags(struct gexi_Event *e, size_t n, struct gexi_cam_msg *const *m,
                       void *const *dst, const size_t *len) {
  if (!e->rdv) {
    for (size_t i = 0; i < n; i++) {
      if (m[i]->nbytes != len[i]) gexi_cam_mismatch(e, m[i]->src, m[i]->nbytes, len[i]);
      memcpy(dst[i], m[i]->data, len[i]);
      gexi_cam_msg_free(m[i]);
    }
    return;
  }
  struct gexi_exposed_rma r[RDV_BATCH];
  for (size_t i = 0; i < n; i++) {
    struct rdv_desc d;
    if (m[i]->nbytes != sizeof d || m[i]->src >= e->t->head.size)
      gexi_cam_mismatch(e, m[i]->src, m[i]->nbytes, len[i]);
    memcpy(&d, m[i]->data, sizeof d);
    if (d.magic != RDV_MAGIC || d.len != len[i]) gexi_cam_mismatch(e, m[i]->src, d.len, len[i]);
    r[i] = (struct gexi_exposed_rma){dst[i], d.raddr, d.key, len[i], 0};
  }
  for (size_t i = 0, j; i < n; i = j) { /* runs of one sender */
    for (j = i + 1; j < n && m[j]->src == m[i]->src;) j++;
    gexi_ctx.net->get_exposed(e->t->peers[m[i]->src].jobrank, j - i, r + i);
  }
  atomic_fetch_add_explicit(&gexi_ctx.coll_am->rdv_frags, n, memory_order_relaxed);
  for (size_t i = 0; i < n; i++) {
    gexi_cam_send_short(e, m[i]->src, e->seq, TAG_ACK);
    gexi_cam_msg_free(m[i]);
  }
}

void gexi_cam_recv_frag(struct gexi_Event *e, struct gexi_cam_msg *m, void *dst, size_t len) {
  gexi_cam_recv_frags(e, 1, &m, &dst, &len);
}

/* Whether the fragments between me and team rank 'peer' move by push (see
 * "Rendezvous by push"): only through the network, whose AMs are ordered
 * after its writes.  Symmetric in the pair. */
bool gexi_cam_push_with(const struct gexi_Event *e, gex_Rank_t peer) {
  return e->rdv && e->rdv->push &&
         gexi_ctx.local_index[e->t->peers[peer].jobrank] == GEX_RANK_INVALID;
}

/* Announce the landing buffer [p, p+len), inside [base, base+blen), to team
 * rank 'to'. */
void gexi_cam_send_rtr(struct gexi_Event *e, gex_Rank_t to, uint32_t tag, void *base, size_t blen,
                     void *p, size_t len) {
  const struct rdv_expo *x = expo_of(e, base, blen);
  struct rdv_desc d = {x->raddr + (uint64_t)((unsigned char *)p - x->base), x->key, len,
                       RDV_MAGIC, 0};
  gexi_cam_send_medium(e, to, e->seq, tag, &d, sizeof d);
}

/* Take team rank 'from''s announcement of a landing buffer of len bytes
 * into *d; 0 if it has not arrived. */
int gexi_cam_take_rtr(struct gexi_Event *e, gex_Rank_t from, uint32_t tag, size_t len,
                    struct rdv_desc *d) {
  struct gexi_cam_msg *m = gexi_cam_take(e->t->slot, e->seq, tag, from);
  if (!m) return 0;
  if (m->nbytes != sizeof *d) gexi_cam_mismatch(e, m->src, m->nbytes, len);
  memcpy(d, m->data, sizeof *d);
  gexi_cam_msg_free(m);
  if (d->magic != RDV_MAGIC || d->len != len) gexi_cam_mismatch(e, from, d->len, len);
  return 1;
}

struct push_then {
  struct gexi_Event *e;
  gex_Rank_t to;
  uint32_t tag0;                /* tag of the first fragment of the batch */
  const struct rdv_desc *grant; /* carried by the batch's first message (or NULL) */
  bool root_copy;               /* a broadcast root's src to dst copy, not done yet */
};

/* put_exposed's 'then': the Shorts telling that fragments landed (the
 * first a Medium with the grant, if any).  A broadcast root also copies its
 * src into its own dst there, while the bytes are on their way: after
 * waiting for the writes, the copy would delay its next broadcast (net, 2
 * ranks, 1 MiB: the child's announcement for the next one came during the
 * copy). */
static void push_landed(void *arg, size_t first, size_t k) {
  struct push_then *p = arg;
  for (size_t i = first; i < first + k; i++)
    if (i == 0 && p->grant)
      gexi_cam_send_medium(p->e, p->to, p->e->seq, p->tag0, p->grant, sizeof *p->grant);
    else
      gexi_cam_send_short(p->e, p->to, p->e->seq, p->tag0 + (uint32_t)i);
  if (p->root_copy) {
    memcpy(p->e->dst, p->e->src, p->e->nbytes);
    p->root_copy = false;
  }
}

/* Push rbytes at p to team rank 'to', at offset doff of the landing buffer
 * it announced in *d, as fragments (tag kind | first + f): written, each
 * followed by its Short (the first one carrying 'grant' if not NULL);
 * returns once p is reusable.  With *root_copy, a broadcast root's copy of
 * src into dst is made once the first writes are posted, and *root_copy is
 * cleared. */
void gexi_cam_push_frags(struct gexi_Event *e, gex_Rank_t to, uint32_t kind, size_t first,
                       const struct rdv_desc *d, size_t doff, const unsigned char *p,
                       size_t rbytes, const struct rdv_desc *grant, bool *root_copy) {
  size_t c = e->chunk, n = (rbytes + c - 1) / c;
  struct gexi_exposed_rma w[RDV_BATCH];
  for (size_t f0 = 0; f0 < n; f0 += RDV_BATCH) {
    size_t k = n - f0 < RDV_BATCH ? n - f0 : RDV_BATCH;
    for (size_t i = 0; i < k; i++) {
      size_t off = (f0 + i) * c;
      w[i] = (struct gexi_exposed_rma){(void *)(uintptr_t)(p + off), d->raddr + doff + off, d->key,
                                       rbytes - off < c ? rbytes - off : c, 0};
    }
    struct push_then pt = {e, to, kind | (uint32_t)(first + f0), f0 ? NULL : grant,
                           root_copy && *root_copy};
    gexi_ctx.net->put_exposed(e->t->peers[to].jobrank, k, w, push_landed, &pt);
    if (root_copy) *root_copy = pt.root_copy;
  }
  atomic_fetch_add_explicit(&gexi_ctx.coll_am->rdv_frags, n, memory_order_relaxed);
  atomic_fetch_add_explicit(&gexi_ctx.coll_am->rdv_pushed, n, memory_order_relaxed);
}


/* A fragment's Short from a pusher: its bytes are in place.  With a grant
 * for step s of the next collective when s is not 0. */
void gexi_cam_landed(struct gexi_Event *e, struct gexi_cam_msg *m, uint32_t s) {
  if (s)
    gexi_cam_xl_take_grant(e, s, m);
  else if (m->nbytes)
    gexi_cam_mismatch(e, m->src, m->nbytes, 0);
  gexi_cam_msg_free(m);
}


/* Every announcement of e acknowledged? */
int gexi_cam_rdv_acked(struct gexi_Event *e, int *moved) {
  struct gexi_cam_rdv *r = e->rdv;
  while (r && r->acks_due) {
    struct gexi_cam_msg *m = gexi_cam_take(e->t->slot, e->seq, TAG_ACK, ANY_SRC);
    if (!m) return 0;
    gexi_cam_msg_free(m);
    r->acks_due--;
    *moved = 1;
  }
  return 1;
}

void gexi_cam_rdv_release(struct gexi_Event *e) {
  struct gexi_cam_rdv *r = e->rdv;
  if (!r) return;
  for (size_t i = 0; i < r->n; i++) gexi_ctx.net->unexpose(r->x[i].handle);
  free(r->x);
  free(r->kd);
  while (r->keep) {
    struct gexi_cam_msg *nx = r->keep->next;
    gexi_cam_msg_free(r->keep);
    r->keep = nx;
  }
  free(r);
  e->rdv = NULL;
}

/* Done with the reduce accumulator: kept until completion if it was
 * announced for reading. */
void gexi_cam_acc_retire(struct gexi_Event *e, bool announced) {
  if (announced && e->rdv) {
    e->acc->next = e->rdv->keep;
    e->rdv->keep = e->acc;
  } else {
    gexi_cam_msg_free(e->acc);
  }
  e->acc = NULL;
}

/* Bytes of dst a broadcast or reduction to all fills. */
size_t gexi_cam_dst_bytes(const struct gexi_Event *e) {
  return e->ckind == GEXI_COLL_REDUCE ? e->dt_cnt * e->dt_sz : e->nbytes;
}

