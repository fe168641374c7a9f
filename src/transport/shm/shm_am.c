/* transport/shm/shm_am.c -- Active Messages between processes of one node.
 *
 * Deadlock freedom: Requests and Replies use separate queues.  A sender
 * blocked on a full request queue polls everything (so it drains whatever
 * may be blocking its target); a sender blocked on a full reply queue is
 * inside a Request handler and polls only replies, which never send, so a
 * chain of blocked repliers always ends at a process draining its replies.
 */
#include <string.h>

#include "transport/shm/shm.h"

struct gexi_amq_slot *gexi_shm_am_reserve_slow(gex_Rank_t local_index, int is_req,
                                               gex_Flags_t flags, uint64_t *pos) {
  struct gexi_shm_node *n = gexi_ctx.shm;
  struct gexi_amq *q = is_req ? n->req[local_index] : n->rep[local_index];
  struct gexi_amq_slot *s;
  while (!(s = gexi_amq_reserve(q, pos))) {
    if (flags & GEX_FLAG_IMMEDIATE) return NULL;
    if (gexi_poll(is_req ? GEXI_POLL_ALL : GEXI_POLL_REPLIES) == 0) gexi_idle();
  }
  return s;
}

/* A slot whose header a buggy peer process corrupted (the queues are shared
 * memory): say so and skip it.  Handler mismatches are left to
 * gexi_am_deliver, which reports them as misuse. */
__attribute__((noinline, cold)) static void bad_slot(const struct gexi_amq_slot *s, const char *field) {
  gexi_say("shared-memory AM queue: dropped a corrupted message (claimed source %u): bad "
           "field %s", (unsigned)s->hdr.src, field);
}

/* Drain up to one queue's worth of messages from q. */
static int drain(struct gexi_amq *q) {
  int count = 0;
  uint64_t pos;
  struct gexi_amq_slot *s;
  while (count < (int)q->capacity && (s = gexi_amq_take(q, &pos))) {
    if (s->hdr.category != GEXI_AM_NOP) {
      const char *bad = gexi_up_check_frame(&s->hdr);
      if (GEXI_LIKELY(!bad) && GEXI_UNLIKELY(s->hdr.src >= gexi_ctx.size)) bad = "src";
      if (GEXI_LIKELY(!bad))
        gexi_up_deliver(&s->hdr, s->payload);
      else
        bad_slot(s, bad);
    }
    gexi_amq_release(q, s, pos);
    count++;
  }
  return count;
}

/* Both queues ready or not, out of the poll's line (an empty poll, the
 * common one, then saves and restores no registers). */
__attribute__((noinline)) static int drain_ready(struct gexi_shm_node *n, int rep, int req) {
  int count = rep ? drain(n->my_rep) : 0;
  if (req) count += drain(n->my_req);
  return count;
}

int gexi_shm_poll(int what) {
  struct gexi_shm_node *n = gexi_ctx.shm;
  const int rep = gexi_amq_maybe_ready(n->my_rep);
  const int req = what == GEXI_POLL_ALL && gexi_amq_maybe_ready(n->my_req);
  if (GEXI_LIKELY(!(rep | req))) return 0;
  return drain_ready(n, rep, req);
}
