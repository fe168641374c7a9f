/* transport/ofi/ofi_auth.c -- admission of network peers (docs/security.md).
 *
 * Every rank of a job knows the job's secret K (a SipHash-2-4 key drawn by
 * the launcher and handed to the ranks over the bootstrap channel only).
 * A peer's messages are delivered only after a handshake in which it proves
 * knowledge of K, bound to its rank, ours, and two fresh nonces; once per
 * peer, before the first Active Message between the two, never on the fast
 * path.  The rank that wants to send first (the initiator I) and the peer
 * (the responder R):
 *
 *   I -> R  HELLO      nI                      (fresh random nonce)
 *   R -> I  CHALLENGE  nI, nR, MAC_K(resp, R, I, nI, nR)
 *           I checks it: R knows K now (nI is fresh): I admits R
 *   I -> R  PROOF      nI, nR, MAC_K(init, I, R, nI, nR)
 *           R checks it: I knows K now (nR is fresh): R admits I
 *   R -> I  OK         nI, nR, MAC_K(ok, R, I, nI, nR)
 *           I may send Active Messages to R from now on
 *
 * Both then hold the session tokens tok(a->b) = MAC_K(token, a, b, nI, nR);
 * every message a sends to b carries tok(a->b) and b drops any message whose
 * token is not that of its source.  The source is the rank the provider
 * reports for the message (FI_SOURCE, through the address vector), never a
 * field of the message; the token additionally defeats a process that
 * claims a rank's address in the provider's own connection handshake (rxm
 * takes a peer's identity from the connection's IP address and a port
 * carried in its connection request), since such a process cannot compute
 * the token.  What it does not defeat is written in docs/security.md.
 *
 * Both ranks may start a handshake at once: the HELLO of the lower rank
 * wins (the higher rank answers it and forgets its own; the lower rank
 * ignores the higher rank's HELLO, also when it arrives after the lower rank's
 * handshake has moved on).  Handshake messages cost no credit and
 * are handled in every kind of poll, so a Reply sender waiting for OK makes
 * progress.  All handshake state is guarded by auth_lock; nothing is sent
 * while holding it (sending may poll, and the poll may land here).
 */
#include <stdio.h>
#include <string.h>

#include "sec/handshake.h"
#include "sec/random.h"
#include "transport/ofi/ofi.h"

static inline struct gexi_ofi *O(void) { return gexi_ctx.ofi; }

void gexi_ofi_auth_init(int one_host) {
  struct gexi_ofi *o = O();
  gexi_net_job_key(&o->auth_key, one_host);
  pthread_mutex_init(&o->auth_lock, NULL);
}

/* The MAC of one handshake step (or a token), binding the step's label, the
 * ranks in the step's direction and both nonces. */
enum { LBL_RESP = 0x7073657268747561ULL, LBL_INIT = 0x74696e6968747561ULL,
       LBL_OK = 0x6b6f5f6868747561ULL, LBL_TOKEN = 0x6e656b6f74687561ULL };
static uint64_t auth_mac(uint64_t label, uint32_t from, uint32_t to, const unsigned char ni[16],
                         const unsigned char nr[16]) {
  return gexi_hs_mac(&O()->auth_key, label, from, to, ni, nr);
}

static void build(struct ofi_auth_msg *m, int step, gex_Rank_t to, const struct ofi_peer *p,
                  uint64_t mac) {
  memset(m, 0, sizeof *m);
  m->type = OFI_WIRE_AUTH;
  m->step = (uint8_t)step;
  m->from = gexi_ctx.rank;
  m->to = to;
  memcpy(m->nonce_init, p->nonce_init, 16);
  memcpy(m->nonce_resp, p->nonce_resp, 16);
  m->mac = mac;
}

static void send_auth(gex_Rank_t j, const struct ofi_auth_msg *m, int what) {
  struct gexi_ofi *o = O();
  int bounce = OFI_AUTH_MSG_LEN > o->inject_size;
  void *buf = bounce ? gexi_ofi_pool_get(what) : (void *)m;
  if (bounce) memcpy(buf, m, OFI_AUTH_MSG_LEN);
  gexi_ofi_send_wire(j, buf, OFI_AUTH_MSG_LEN, bounce, what);
}

/* Both tokens of the pair, once the nonces are known (under auth_lock). */
static void set_tokens(struct ofi_peer *p, gex_Rank_t j) {
  p->tok_tx = auth_mac(LBL_TOKEN, gexi_ctx.rank, j, p->nonce_init, p->nonce_resp);
  p->tok_rx = auth_mac(LBL_TOKEN, j, gexi_ctx.rank, p->nonce_init, p->nonce_resp);
}

void gexi_ofi_auth_connect(gex_Rank_t j, int what) {
  struct gexi_ofi *o = O();
  struct ofi_peer *p = &o->peers[j];
  struct ofi_auth_msg m;
  int send = 0;
  pthread_mutex_lock(&o->auth_lock);
  if (p->auth_state == OFI_AUTH_NONE) {
    gexi_random_bytes(p->nonce_init, 16);
    memset(p->nonce_resp, 0, 16);
    p->auth_state = OFI_AUTH_HELLO;
    p->auth_hello_sent = 1;
    build(&m, OFI_AUTH_MSG_HELLO, j, p, 0);
    send = 1;
  }
  pthread_mutex_unlock(&o->auth_lock);
  if (send) send_auth(j, &m, what);
  while (!atomic_load_explicit(&p->tx_ok, memory_order_acquire)) {
    if (gexi_poll(what))
      gexi_busy();
    else
      gexi_idle();
  }
}

void gexi_ofi_auth_recv(gex_Rank_t src, const void *msg, size_t len) {
  struct gexi_ofi *o = O();
  struct ofi_auth_msg in;
  if (len != OFI_AUTH_MSG_LEN) {
    gexi_ofi_drop(src, len, "malformed handshake message", "length");
    return;
  }
  memcpy(&in, msg, sizeof in);
  if (in.from != src || in.to != gexi_ctx.rank) {
    gexi_ofi_drop(src, len, "handshake message for other ranks", in.from != src ? "from" : "to");
    return;
  }
  struct ofi_peer *p = &o->peers[src];
  struct ofi_auth_msg out;
  const char *bad = NULL;
  int reply = 0;
  pthread_mutex_lock(&o->auth_lock);
  switch (in.step) {
    case OFI_AUTH_MSG_HELLO:
      if (p->auth_state == OFI_AUTH_PROOF || p->auth_state == OFI_AUTH_DONE) {
        /* A higher rank's HELLO that crossed ours and arrived after our
         * handshake went on is expected: ignored like one that arrives
         * while ours is pending.  Any other is reported. */
        if (!(p->auth_hello_sent && gexi_ctx.rank < src)) bad = "HELLO from a rank already admitted";
        break;
      }
      if (p->auth_state == OFI_AUTH_HELLO && gexi_ctx.rank < src) break; /* our HELLO wins */
      memcpy(p->nonce_init, in.nonce_init, 16);
      gexi_random_bytes(p->nonce_resp, 16);
      p->auth_state = OFI_AUTH_CHALLENGE;
      build(&out, OFI_AUTH_MSG_CHALLENGE, src, p,
            auth_mac(LBL_RESP, gexi_ctx.rank, src, p->nonce_init, p->nonce_resp));
      reply = 1;
      break;
    case OFI_AUTH_MSG_CHALLENGE:
      if (p->auth_state != OFI_AUTH_HELLO || memcmp(in.nonce_init, p->nonce_init, 16)) {
        bad = "CHALLENGE that answers no HELLO of ours";
        break;
      }
      if (!gexi_tag_equal(in.mac, auth_mac(LBL_RESP, src, gexi_ctx.rank, in.nonce_init, in.nonce_resp))) {
        bad = "CHALLENGE with a wrong MAC (not of this job)";
        break;
      }
      memcpy(p->nonce_resp, in.nonce_resp, 16);
      set_tokens(p, src);
      atomic_store_explicit(&p->rx_ok, 1, memory_order_release);
      p->auth_state = OFI_AUTH_PROOF;
      build(&out, OFI_AUTH_MSG_PROOF, src, p,
            auth_mac(LBL_INIT, gexi_ctx.rank, src, p->nonce_init, p->nonce_resp));
      reply = 1;
      break;
    case OFI_AUTH_MSG_PROOF:
      if (p->auth_state != OFI_AUTH_CHALLENGE || memcmp(in.nonce_init, p->nonce_init, 16) ||
          memcmp(in.nonce_resp, p->nonce_resp, 16)) {
        bad = "PROOF that answers no CHALLENGE of ours";
        break;
      }
      if (!gexi_tag_equal(in.mac, auth_mac(LBL_INIT, src, gexi_ctx.rank, p->nonce_init, p->nonce_resp))) {
        bad = "PROOF with a wrong MAC (not of this job)";
        break;
      }
      set_tokens(p, src);
      atomic_store_explicit(&p->rx_ok, 1, memory_order_release);
      atomic_store_explicit(&p->tx_ok, 1, memory_order_release);
      p->auth_state = OFI_AUTH_DONE;
      build(&out, OFI_AUTH_MSG_OK, src, p,
            auth_mac(LBL_OK, gexi_ctx.rank, src, p->nonce_init, p->nonce_resp));
      reply = 1;
      break;
    case OFI_AUTH_MSG_OK:
      if (p->auth_state != OFI_AUTH_PROOF || memcmp(in.nonce_init, p->nonce_init, 16) ||
          memcmp(in.nonce_resp, p->nonce_resp, 16)) {
        bad = "OK that answers no PROOF of ours";
        break;
      }
      if (!gexi_tag_equal(in.mac, auth_mac(LBL_OK, src, gexi_ctx.rank, p->nonce_init, p->nonce_resp))) {
        bad = "OK with a wrong MAC (not of this job)";
        break;
      }
      atomic_store_explicit(&p->tx_ok, 1, memory_order_release);
      p->auth_state = OFI_AUTH_DONE;
      break;
    default:
      bad = "handshake message of an unknown step";
      break;
  }
  pthread_mutex_unlock(&o->auth_lock);
  if (bad) gexi_ofi_drop(src, len, bad, NULL);
  if (reply) send_auth(src, &out, GEXI_POLL_REPLIES);
}

/* Reports: one line for the first drop of each source (and, for malformed
 * messages of an admitted peer, for each of the first few), then counted
 * only.  Never fatal: a stranger must not be able to end the job. */
#define OFI_DROP_REPORTS 8
void gexi_ofi_drop(fi_addr_t src, size_t len, const char *why, const char *field) {
  struct gexi_ofi *o = O();
  if (src >= gexi_ctx.size) {
    if (atomic_fetch_add_explicit(&o->stranger_drops, 1, memory_order_relaxed) == 0)
      gexi_say("network: dropped a message (%zu bytes) from a source outside this job (not in "
               "the address vector): %s%s%s; further ones are counted only",
               len, why, field ? ": " : "", field ? field : "");
    return;
  }
  struct ofi_peer *p = &o->peers[src];
  uint32_t n = atomic_fetch_add_explicit(&p->dropped, 1, memory_order_relaxed);
  if (n < OFI_DROP_REPORTS && (n == 0 || field))
    gexi_say("network: dropped a message (%zu bytes) from rank %u: %s%s%s%s", len,
             (unsigned)src, why, field ? ": bad field " : "", field ? field : "",
             n + 1 == OFI_DROP_REPORTS ? "; further drops from this rank are counted only" : "");
}
