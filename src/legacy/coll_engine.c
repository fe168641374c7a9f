/* legacy/coll_engine.c -- the engine under the GASNet-1 prototype
 * collectives: handler set-up, arrivals, and the per-operation state
 * machine (docs/legacy-collectives.md).
 *
 * Every operation is numbered (seq) in initiation order, which is the same
 * in every rank because the calls are collective.  Messages carry that
 * number, so they need no ordering: a message for an operation this rank
 * has not initiated yet waits in the 'early' list.  Handlers only copy and
 * count under the lock; every send is made by a thread advancing an
 * operation, with the lock dropped (a send may poll, and polling runs the
 * handlers).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "legacy/coll_legacy.h"

struct gexi_lcoll_ctx gexi_lcoll = {
    .lock = GEX_HSL_INITIALIZER,
    .init_lock = PTHREAD_MUTEX_INITIALIZER,
    .barrier_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* Messages for operations more than this many numbers ahead of the next one
 * initiated here cannot come from a correct peer. */
#define GEXI_LCOLL_SEQ_WINDOW (1u << 24)

void gexi_lcoll_fatal(const char *fmt, ...) {
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "libgex: rank %u: ", (unsigned)gex_System_QueryJobRank());
  va_list ap;
  va_start(ap, fmt);
  n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
  va_end(ap);
  if (n > (int)sizeof buf - 2) n = (int)sizeof buf - 2;
  buf[n++] = '\n';
  fflush(stdout);
  ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
  (void)w;
  gasnet_exit(1);
}

gasnet_team_handle_t gexi_coll_legacy_team_all(void) {
  gex_TM_t tm;
  gasnet_QueryGexObjects(NULL, NULL, &tm, NULL);
  return tm;
}

/* ---- arrivals ---------------------------------------------------------------- */

static struct gexi_lcoll_op *find_op(uint32_t seq) {
  for (struct gexi_lcoll_op *op = gexi_lcoll.ops[seq % GEXI_LCOLL_BUCKETS]; op;
       op = op->hash_next)
    if (op->seq == seq) return op;
  return NULL;
}

/* A barrier round from 'from'.  Called with the lock held. */
static void take_sync(struct gexi_lcoll_op *op, gex_Rank_t from, uint32_t code) {
  unsigned phase = code >> 8, round = code & 0xFF;
  if (phase > 1 || round >= gexi_lcoll.nrounds)
    gexi_lcoll_fatal("gasnet_coll: malformed barrier message from rank %u (code 0x%x)",
                     (unsigned)from, (unsigned)code);
  /* Round r comes from (rank - 2^r) mod size, and only once. */
  gex_Rank_t n = gexi_lcoll.size;
  gex_Rank_t expect = (gex_Rank_t)((gexi_lcoll.rank + n - ((1u << round) % n)) % n);
  if (from != expect || (op->rounds_got[phase] & (1u << round)))
    gexi_lcoll_fatal("gasnet_coll: unexpected barrier message from rank %u (operation %u, "
                     "phase %u, round %u)",
                     (unsigned)from, (unsigned)op->seq, phase, round);
  op->rounds_got[phase] |= 1u << round;
}

/* A block fragment from 'from' for dst + off.  Called with the lock held. */
static void take_data(struct gexi_lcoll_op *op, gex_Rank_t from, size_t off,
                      const void *buf, size_t len) {
  if (off > op->dst_size || len > op->dst_size - off || len > op->recv_expected - op->recv_got)
    gexi_lcoll_fatal("gasnet_coll: data message from rank %u outside the destination "
                     "(operation %u: offset %zu, %zu bytes, destination %zu bytes, %zu of %zu "
                     "received)",
                     (unsigned)from, (unsigned)op->seq, off, len, op->dst_size, op->recv_got,
                     op->recv_expected);
  memcpy(op->dst + off, buf, len);
  op->recv_got += len;
}

static void take_or_keep(uint32_t seq, gex_Rank_t from, int is_data, uint32_t code, size_t off,
                         const void *buf, size_t len) {
  if (from >= gexi_lcoll.size)
    gexi_lcoll_fatal("gasnet_coll: message from rank %u outside the team", (unsigned)from);
  gex_HSL_Lock(&gexi_lcoll.lock);
  struct gexi_lcoll_op *op = find_op(seq);
  if (op) {
    if (is_data)
      take_data(op, from, off, buf, len);
    else
      take_sync(op, from, code);
    gex_HSL_Unlock(&gexi_lcoll.lock);
    return;
  }
  uint32_t ahead = seq - gexi_lcoll.next_seq; /* modulo 2^32 */
  if (ahead >= GEXI_LCOLL_SEQ_WINDOW)
    gexi_lcoll_fatal("gasnet_coll: message from rank %u for operation %u, which is %s "
                     "(next operation here: %u)",
                     (unsigned)from, (unsigned)seq,
                     ahead >= 0x80000000u ? "complete here" : "too far ahead",
                     (unsigned)gexi_lcoll.next_seq);
  struct gexi_lcoll_early *e = malloc(sizeof *e + len);
  if (!e) gexi_lcoll_fatal("gasnet_coll: out of memory keeping an early message");
  e->seq = seq;
  e->from = from;
  e->is_data = is_data;
  e->code = code;
  e->off = off;
  e->len = len;
  if (len) memcpy(e->payload, buf, len);
  /* Append, so that a later drain sees them in arrival order. */
  struct gexi_lcoll_early **pp = &gexi_lcoll.early[seq % GEXI_LCOLL_BUCKETS];
  while (*pp) pp = &(*pp)->next;
  e->next = NULL;
  *pp = e;
  gex_HSL_Unlock(&gexi_lcoll.lock);
}

static gex_Rank_t token_source(gex_Token_t token) {
  gex_Token_Info_t info;
  gex_Token_Info(token, &info, GEX_TI_SRCRANK);
  return info.gex_srcrank;
}

/* Short: seq, phase << 8 | round. */
static void sync_handler(gex_Token_t token, gex_AM_Arg_t seq, gex_AM_Arg_t code) {
  take_or_keep((uint32_t)seq, token_source(token), 0, (uint32_t)code, 0, NULL, 0);
}

/* Medium: seq, destination offset (low, high 32 bits). */
static void data_handler(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t seq,
                         gex_AM_Arg_t off_lo, gex_AM_Arg_t off_hi) {
  uint64_t off = ((uint64_t)(uint32_t)off_hi << 32) | (uint32_t)off_lo;
  if (off > SIZE_MAX)
    gexi_lcoll_fatal("gasnet_coll: data message offset %llu too large",
                     (unsigned long long)off);
  take_or_keep((uint32_t)seq, token_source(token), 1, 0, (size_t)off, buf, nbytes);
}

/* ---- set-up -------------------------------------------------------------------------- */

void gexi_lcoll_setup(const char *call) {
  if (__atomic_load_n(&gexi_lcoll.ready, __ATOMIC_ACQUIRE)) return;
  pthread_mutex_lock(&gexi_lcoll.init_lock);
  if (!gexi_lcoll.ready) {
    gex_EP_t ep;
    gex_TM_t tm;
    gasnet_QueryGexObjects(NULL, &ep, &tm, NULL);
    gexi_lcoll.tm = tm;
    gexi_lcoll.rank = gex_TM_QueryRank(tm);
    gexi_lcoll.size = gex_TM_QuerySize(tm);
    unsigned r = 0;
    while (r < 32 && (1ull << r) < gexi_lcoll.size) r++;
    gexi_lcoll.nrounds = r;
    gexi_lcoll.frag = gex_AM_LUBRequestMedium();
    /* Indices 0: the library picks free client indices.  Every rank must
     * get the same ones, which holds when every rank registered the same
     * handlers before; checked below. */
    gex_AM_Entry_t entries[2] = {
        {0, (gex_AM_Fn_t)sync_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL,
         "gasnet_coll sync"},
        {0, (gex_AM_Fn_t)data_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 3, NULL,
         "gasnet_coll data"}};
    if (gex_EP_RegisterHandlers(ep, entries, 2) != GASNET_OK)
      gexi_lcoll_fatal("%s: no free AM handler index for the collectives (2 are needed)", call);
    gexi_lcoll.h_sync = entries[0].gex_index;
    gexi_lcoll.h_data = entries[1].gex_index;
    /* Also the barrier after which peers may send here: every rank has
     * registered once the reduction completes. */
    uint64_t mine = (uint64_t)gexi_lcoll.h_sync << 8 | gexi_lcoll.h_data;
    uint64_t in[2] = {mine, ~mine}, out[2];
    gex_Event_Wait(
        gex_Coll_ReduceToAllNB(tm, out, in, GEX_DT_U64, 8, 2, GEX_OP_MIN, NULL, NULL, 0));
    if (out[0] != mine || ~out[1] != mine)
      gexi_lcoll_fatal("%s: the collectives' AM handlers got different indices in different "
                       "ranks (register the same handlers in every rank before the first "
                       "collective)",
                       call);
    __atomic_store_n(&gexi_lcoll.ready, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&gexi_lcoll.init_lock);
}

/* ---- the state machine ---------------------------------------------------------------- */

/* The k-th destination this rank sends to (k = 0 .. size-2), the
 * destinations taken from the next rank on so that not everyone sends to
 * the same rank first. */
static gex_Rank_t nth_peer(gex_Rank_t k) {
  return (gex_Rank_t)((gexi_lcoll.rank + 1 + k) % gexi_lcoll.size);
}

/* This rank's block for destination 'to', and where it goes there. */
static void block_for(const struct gexi_lcoll_op *op, gex_Rank_t to, const unsigned char **src,
                      size_t *dst_off) {
  gex_Rank_t me = gexi_lcoll.rank;
  *src = op->src;
  *dst_off = 0;
  switch (op->kind) {
    case GEXI_LCOLL_BROADCAST: break;
    case GEXI_LCOLL_SCATTER: *src = op->src + (size_t)to * op->nbytes; break;
    case GEXI_LCOLL_GATHER:
    case GEXI_LCOLL_GATHER_ALL: *dst_off = (size_t)me * op->nbytes; break;
    case GEXI_LCOLL_EXCHANGE:
      *src = op->src + (size_t)to * op->nbytes;
      *dst_off = (size_t)me * op->nbytes;
      break;
  }
}

/* Does this rank send to anyone, and to whom (k-th destination)? */
static int sends(const struct gexi_lcoll_op *op) {
  switch (op->kind) {
    case GEXI_LCOLL_BROADCAST:
    case GEXI_LCOLL_SCATTER: return gexi_lcoll.rank == op->root;
    case GEXI_LCOLL_GATHER: return gexi_lcoll.rank != op->root;
    default: return 1;
  }
}
static gex_Rank_t destination(const struct gexi_lcoll_op *op, gex_Rank_t k) {
  return op->kind == GEXI_LCOLL_GATHER ? op->root : nth_peer(k);
}
static gex_Rank_t destination_count(const struct gexi_lcoll_op *op) {
  if (!sends(op) || op->nbytes == 0) return 0;
  return op->kind == GEXI_LCOLL_GATHER ? 1 : gexi_lcoll.size - 1;
}

/* This rank's own block, copied locally (memmove: a client may pass the
 * same buffer). */
static void copy_own_block(struct gexi_lcoll_op *op) {
  gex_Rank_t me = gexi_lcoll.rank;
  const unsigned char *from = NULL;
  unsigned char *to = NULL;
  switch (op->kind) {
    case GEXI_LCOLL_BROADCAST:
      if (me == op->root) from = op->src, to = op->dst;
      break;
    case GEXI_LCOLL_SCATTER:
      if (me == op->root) from = op->src + (size_t)me * op->nbytes, to = op->dst;
      break;
    case GEXI_LCOLL_GATHER:
      if (me == op->root) from = op->src, to = op->dst + (size_t)me * op->nbytes;
      break;
    case GEXI_LCOLL_GATHER_ALL: from = op->src, to = op->dst + (size_t)me * op->nbytes; break;
    case GEXI_LCOLL_EXCHANGE:
      from = op->src + (size_t)me * op->nbytes, to = op->dst + (size_t)me * op->nbytes;
      break;
  }
  if (from && to != from && op->nbytes) memmove(to, from, op->nbytes);
  op->local_copied = 1;
}

/* One step of a dissemination barrier (phase 0: IN, 1: OUT).  Returns 1
 * when the barrier is complete here.  Called with the lock held; drops it
 * around the send. */
static int barrier_step(struct gexi_lcoll_op *op, unsigned phase, int *moved) {
  unsigned nr = gexi_lcoll.nrounds;
  while (op->round < nr) {
    unsigned r = op->round;
    /* Round r is sent once round r-1 came in (from rank - 2^(r-1)). */
    if (r > 0 && !(op->rounds_got[phase] & (1u << (r - 1)))) return 0;
    gex_Rank_t to = (gex_Rank_t)((gexi_lcoll.rank + (1u << r)) % gexi_lcoll.size);
    gex_HSL_Unlock(&gexi_lcoll.lock);
    gex_AM_RequestShort(gexi_lcoll.tm, to, gexi_lcoll.h_sync, 0, (gex_AM_Arg_t)op->seq,
                        (gex_AM_Arg_t)(phase << 8 | r));
    gex_HSL_Lock(&gexi_lcoll.lock);
    op->round++;
    *moved = 1;
  }
  return nr == 0 || (op->rounds_got[phase] & (1u << (nr - 1)));
}

/* Advance op as far as it can go now.  Called with the lock held and
 * op->busy set by the caller; the lock is dropped around sends. */
static int advance(struct gexi_lcoll_op *op) {
  int moved = 0;
  for (;;) {
    switch (op->state) {
      case GEXI_LCOLL_IN_BARRIER:
        if (!barrier_step(op, 0, &moved)) return moved;
        op->state = GEXI_LCOLL_SEND;
        op->round = 0;
        moved = 1;
        break;
      case GEXI_LCOLL_SEND: {
        if (!op->local_copied) copy_own_block(op);
        gex_Rank_t ndest = destination_count(op);
        while (op->send_i < ndest) {
          gex_Rank_t to = destination(op, op->send_i);
          const unsigned char *src;
          size_t dst_off;
          block_for(op, to, &src, &dst_off);
          size_t off = op->send_off;
          size_t len = op->nbytes - off < gexi_lcoll.frag ? op->nbytes - off : gexi_lcoll.frag;
          uint64_t where = (uint64_t)(dst_off + off);
          gex_HSL_Unlock(&gexi_lcoll.lock);
          gex_AM_RequestMedium(gexi_lcoll.tm, to, gexi_lcoll.h_data, src + off, len,
                               GEX_EVENT_NOW, 0, (gex_AM_Arg_t)op->seq,
                               (gex_AM_Arg_t)(uint32_t)where, (gex_AM_Arg_t)(uint32_t)(where >> 32));
          gex_HSL_Lock(&gexi_lcoll.lock);
          op->send_off += len;
          if (op->send_off == op->nbytes) {
            op->send_off = 0;
            op->send_i++;
          }
          moved = 1;
        }
        op->state = GEXI_LCOLL_RECV;
        moved = 1;
        break;
      }
      case GEXI_LCOLL_RECV:
        if (op->recv_got < op->recv_expected) return moved;
        op->state = (op->flags & GASNET_COLL_OUT_ALLSYNC) ? GEXI_LCOLL_OUT_BARRIER : GEXI_LCOLL_DONE;
        moved = 1;
        break;
      case GEXI_LCOLL_OUT_BARRIER:
        if (!barrier_step(op, 1, &moved)) return moved;
        op->state = GEXI_LCOLL_DONE;
        moved = 1;
        break;
      case GEXI_LCOLL_DONE: return moved;
    }
  }
}

int gexi_lcoll_progress(void) {
  int moved = 0;
  gex_HSL_Lock(&gexi_lcoll.lock);
  /* An operation marked busy by this thread cannot be freed meanwhile
   * (gexi_lcoll_reap skips busy ones), so op->next is valid after advance. */
  for (struct gexi_lcoll_op *op = gexi_lcoll.head; op; op = op->next) {
    if (op->busy || op->state == GEXI_LCOLL_DONE) continue;
    op->busy = 1;
    moved |= advance(op);
    op->busy = 0;
  }
  gex_HSL_Unlock(&gexi_lcoll.lock);
  return moved;
}

/* ---- life of an operation --------------------------------------------------------------- */

gasnet_coll_handle_t gexi_lcoll_start(struct gexi_lcoll_op *op) {
  op->magic = GEXI_LCOLL_MAGIC;
  op->state = (op->flags & GASNET_COLL_IN_ALLSYNC) ? GEXI_LCOLL_IN_BARRIER : GEXI_LCOLL_SEND;
  op->recv_got = 0;
  op->rounds_got[0] = op->rounds_got[1] = 0;
  op->round = 0;
  op->send_i = 0;
  op->send_off = 0;
  op->local_copied = 0;
  op->busy = 1;
  gex_HSL_Lock(&gexi_lcoll.lock);
  op->seq = gexi_lcoll.next_seq++;
  unsigned b = op->seq % GEXI_LCOLL_BUCKETS;
  op->hash_next = gexi_lcoll.ops[b];
  gexi_lcoll.ops[b] = op;
  op->next = NULL;
  op->prev = gexi_lcoll.tail;
  if (gexi_lcoll.tail)
    gexi_lcoll.tail->next = op;
  else
    gexi_lcoll.head = op;
  gexi_lcoll.tail = op;
  /* Messages that came before this rank got here. */
  struct gexi_lcoll_early **pp = &gexi_lcoll.early[b];
  while (*pp) {
    struct gexi_lcoll_early *e = *pp;
    if (e->seq != op->seq) {
      pp = &e->next;
      continue;
    }
    *pp = e->next;
    if (e->is_data)
      take_data(op, e->from, e->off, e->payload, e->len);
    else
      take_sync(op, e->from, e->code);
    free(e);
  }
  advance(op);
  op->busy = 0;
  gex_HSL_Unlock(&gexi_lcoll.lock);
  if (gexi_lcoll_reap(op)) return GASNET_COLL_INVALID_HANDLE;
  return (gasnet_coll_handle_t)(void *)op;
}

struct gexi_lcoll_op *gexi_lcoll_op_of(gasnet_coll_handle_t h, const char *call) {
  if (h == GASNET_COLL_INVALID_HANDLE) return NULL;
  struct gexi_lcoll_op *op = (struct gexi_lcoll_op *)(void *)h;
  if (op->magic != GEXI_LCOLL_MAGIC)
    gexi_lcoll_fatal("%s: %p is not the handle of a collective in flight (already synced, or "
                     "not from gasnet_coll_*_nb)",
                     call, (void *)h);
  return op;
}

int gexi_lcoll_reap(struct gexi_lcoll_op *op) {
  gex_HSL_Lock(&gexi_lcoll.lock);
  if (op->busy || op->state != GEXI_LCOLL_DONE) {
    gex_HSL_Unlock(&gexi_lcoll.lock);
    return 0;
  }
  struct gexi_lcoll_op **pp = &gexi_lcoll.ops[op->seq % GEXI_LCOLL_BUCKETS];
  while (*pp != op) pp = &(*pp)->hash_next;
  *pp = op->hash_next;
  if (op->prev)
    op->prev->next = op->next;
  else
    gexi_lcoll.head = op->next;
  if (op->next)
    op->next->prev = op->prev;
  else
    gexi_lcoll.tail = op->prev;
  op->magic = 0;
  gex_HSL_Unlock(&gexi_lcoll.lock);
  free(op);
  return 1;
}
