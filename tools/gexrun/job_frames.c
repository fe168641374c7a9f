/* job_frames.c -- gexrun: the frames the ranks send (bootstrap/wire.h),
 * parsed and checked before their payload is kept, and the all-gather
 * rounds they feed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"

/* ---- all-gather ---- */

struct contrib *ag_pop(struct rank *k) {
  struct contrib *c = k->ag_head;
  k->ag_head = c->next;
  if (!k->ag_head) {
    k->ag_tail = NULL;
    job.ag_ready--;
  }
  return c;
}

/* Complete every round for which all ranks have contributed.  ag_check let
 * only contributions of the round's length through, and that length times
 * the rank count is within the frame limit. */
static void ag_progress(void) {
  while (!job.ending && job.ag_ready == job.nranks) {
    const uint32_t len = job.ranks[0].ag_head->len;
    const uint64_t total = (uint64_t)len * (uint64_t)job.nranks;
    struct gx_msg *m = gx_msg_new(GEXI_WIRE_ALLGATHER, 0, 0, NULL, (size_t)total);
    char *out = m->data + sizeof(struct gexi_wire_hdr);
    for (int r = 0; r < job.nranks; r++) {
      struct contrib *c = ag_pop(&job.ranks[r]);
      if (len) memcpy(out + (size_t)r * len, c->data, len);
      free(c);
    }
    job.ag_round++;
    job.ag_len_known = 0;
    broadcast(m, -1);
  }
}

/* The header of rank r's contribution to the current round arrived: check
 * its length before its payload is buffered (a bad one ends the job, and
 * then no payload is kept), so that gexrun never holds more than one frame
 * limit of contributions. */
static void ag_check(int r, uint32_t len) {
  if (job.ending) return;
  const uint64_t total = (uint64_t)len * (uint64_t)job.nranks;
  if (total > GEXI_WIRE_MAX_PAYLOAD) {
    fprintf(stderr, "gexrun: all-gather round %llu: rank %d contributes %u bytes, a result of "
            "%llu bytes for %d ranks, above the limit of %u; ending the job\n", job.ag_round, r,
            len, (unsigned long long)total, job.nranks, (unsigned)GEXI_WIRE_MAX_PAYLOAD);
    fail_job(r, "started an all-gather that is too large");
  } else if (job.ag_len_known && len != job.ag_len) {
    fprintf(stderr, "gexrun: all-gather round %llu: rank %d contributed %u bytes but rank %d "
            "contributes %u; ending the job\n", job.ag_round, job.ag_first, job.ag_len, r, len);
    fail_job(r, "made an all-gather contribution of the wrong length");
  } else if (!job.ag_len_known) {
    job.ag_len_known = 1;
    job.ag_len = len;
    job.ag_first = r;
  }
}

/* ---- frames from the ranks ---- */

static void dispatch(int r) {
  struct rank *k = &job.ranks[r];
  struct gexi_wire_hdr h = k->hdr;
  struct contrib *c = k->in;
  k->in = NULL;
  k->hdr_got = k->in_got = 0;
  /* EXIT and ABORT may come first: gasnet_exit, or a fatal error, before
   * gex_Client_Init (the rank's code is the job's). */
  if (h.type != GEXI_WIRE_HELLO && h.type != GEXI_WIRE_EXIT && h.type != GEXI_WIRE_ABORT &&
      !k->hello) {
    free(c);
    protocol_error(r, "frame before HELLO");
    return;
  }
  switch (h.type) {
    case GEXI_WIRE_HELLO:
      if (k->hello || h.arg0 != r) {
        protocol_error(r, k->hello ? "second HELLO" : "HELLO with the wrong rank");
        return;
      }
      k->hello = job.any_hello = 1;
      if (++job.nhello == job.nranks) job.boot_deadline = 0;
      send_to_rank(r, gx_msg_new(GEXI_WIRE_SECRET, 0, r, job.secret, sizeof job.secret));
      /* Ranks that ended quietly earlier were not plain programs after all:
       * their peers would wait for them forever. */
      for (int q = 0; q < job.nranks; q++) {
        if (!job.ranks[q].quiet_exit) continue;
        job.ranks[q].quiet_exit = 0;
        if (!job.ending) report_death(q);
      }
      return;
    case GEXI_WIRE_ALLGATHER:
      if (job.ending) {
        free(c);
        return;
      }
      c->next = NULL;
      if (k->ag_tail) k->ag_tail->next = c;
      else {
        k->ag_head = c;
        job.ag_ready++;
      }
      k->ag_tail = c;
      ag_progress();
      return;
    case GEXI_WIRE_LEAVE: /* exit(code) with GASNET_CATCH_EXIT=0 */
      k->left = 1;
      return;
    case GEXI_WIRE_ABORT_PEER:
      peer_failed(r, h.arg0, h.arg1);
      return;
    default: /* EXIT, ABORT (check_header let nothing else through) */
      job_exit(r, h.type, h.arg0);
      return;
  }
}

static int check_header(int r) {
  const struct gexi_wire_hdr *h = &job.ranks[r].hdr;
  char what[96];
  if (h->type < GEXI_WIRE_HELLO || h->type == GEXI_WIRE_DIED || h->type == GEXI_WIRE_SECRET ||
      h->type > GEXI_WIRE_LEAVE)
    snprintf(what, sizeof what, "unknown frame type %u", h->type);
  else if (h->len > GEXI_WIRE_MAX_PAYLOAD)
    snprintf(what, sizeof what, "frame length %u exceeds the limit", h->len);
  else if (h->len && h->type != GEXI_WIRE_ALLGATHER)
    snprintf(what, sizeof what, "frame type %u with a %u-byte payload", h->type, h->len);
  else if (h->type == GEXI_WIRE_ALLGATHER && job.ranks[r].ag_head)
    snprintf(what, sizeof what, "a second all-gather contribution before round %llu completed",
             job.ag_round);
  else
    return 1;
  protocol_error(r, what);
  return 0;
}

/* Bytes rank r wrote on its socket (read here, or relayed by its proxy). */
void feed_rank(int r, const char *p, size_t n) {
  struct rank *k = &job.ranks[r];
  while (n && !k->broken) {
    if (k->hdr_got < sizeof k->hdr) {
      size_t c = sizeof k->hdr - k->hdr_got;
      if (c > n) c = n;
      memcpy((char *)&k->hdr + k->hdr_got, p, c);
      k->hdr_got += c;
      p += c;
      n -= c;
      if (k->hdr_got < sizeof k->hdr) return;
      if (!check_header(r)) return;
      if (k->hdr.type == GEXI_WIRE_ALLGATHER) {
        ag_check(r, k->hdr.len);
        if (!job.ending) { /* else its payload is read and dropped */
          k->in = gx_xmalloc(sizeof *k->in + k->hdr.len);
          k->in->len = k->hdr.len;
        }
      }
    } else {
      size_t c = k->hdr.len - k->in_got;
      if (c > n) c = n;
      if (k->in) memcpy(k->in->data + k->in_got, p, c);
      k->in_got += c;
      p += c;
      n -= c;
    }
    if (k->in_got == k->hdr.len) dispatch(r);
  }
}

/* Read everything local rank r has sent so far. */
void read_rank(int r) {
  struct rank *k = &job.ranks[r];
  char buf[65536];
  while (k->link.rfd >= 0) {
    ssize_t n = read(k->link.rfd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) { /* EOF or error: stop listening; the exit comes via SIGCHLD */
      gx_link_close(&k->link);
      return;
    }
    feed_rank(r, buf, (size_t)n);
  }
}
