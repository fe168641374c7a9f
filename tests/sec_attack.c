/* sec_attack.c -- an outside process attacking a libgex rank through its
 * network provider (tests/sec_attack.sh).  It is not part of the job: it
 * opens an endpoint of its own with the same libfabric provider, inserts
 * the rank's address and tries
 *
 *   rma   fi_write and fi_read of the rank's segment with guessed keys
 *         (0..63, the old fixed key 1, and random ones), at offset 0 and at
 *         the segment's virtual address.  Every one must fail.
 *   flood 1 GiB of 4 KiB messages as fast as the provider takes them (the
 *         rank must drop them, or the provider refuse them, in bounded memory)
 *   am    messages in the transport's wire format: Active Messages of every
 *         category claiming every rank as their source (with zero and
 *         random tokens), credit returns, handshake messages with random
 *         MACs, truncated (1..31 bytes), oversized (64 KiB) and randomly
 *         mutated ones.  They must be dropped: the victim checks that no
 *         handler ran and that its segment is unchanged.
 *
 *   sec_attack MODE PROVIDER ADDRFILE NRANKS
 *
 * ADDRFILE is what t_sec_victim wrote: provider name, the address in hex,
 * segment base (hex) and size.  Prints one summary line; exit status 0 when
 * every attack failed as it should, 1 when one succeeded, 2 on a usage or
 * setup error, 77 (SKIP) when the provider is not available here.
 */
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "transport/ofi/ofi.h" /* the wire format (struct ofi_wire, ofi_auth_msg) */

static struct fid_fabric *fab;
static struct fid_domain *dom;
static struct fid_ep *ep;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fi_info *info;
static fi_addr_t target;
static struct fid_mr *mr;
static void *desc;
static unsigned char *buf;
#define BUF (1u << 17)

static void die(const char *what, int rc) {
  fprintf(stderr, "sec_attack: %s: %s\n", what, fi_strerror(-rc));
  exit(2);
}

static uint64_t rnd64(void) {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, 0) != sizeof v) v = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL;
  return v;
}

static int hexval(int c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Wait for one completion; 1 if it succeeded, 0 if it failed, -1 when
 * nothing came within 'ms' (a write the provider dropped is a failure). */
static int wait_one(int ms) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    struct fi_cq_entry e;
    ssize_t r = fi_cq_read(cq, &e, 1);
    if (r == 1) return 1;
    if (r == -FI_EAVAIL) {
      struct fi_cq_err_entry err;
      memset(&err, 0, sizeof err);
      fi_cq_readerr(cq, &err, 0);
      return 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &t);
    if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > ms) return -1;
  }
}

static void setup(const char *prov, const unsigned char *addr, size_t alen) {
  struct fi_info *hints = fi_allocinfo();
  hints->ep_attr->type = FI_EP_RDM;
  hints->caps = FI_MSG | FI_RMA;
  hints->mode = FI_CONTEXT | FI_CONTEXT2;
  hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY |
                                FI_MR_ENDPOINT;
  hints->fabric_attr->prov_name = strdup(prov);
  int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &info);
  if (rc) {
    printf("SKIP: provider %s not available (%s)\n", prov, fi_strerror(-rc));
    exit(77);
  }
  /* An address of the target's format. */
  uint32_t fmt = alen == sizeof(struct sockaddr_in) ? FI_SOCKADDR_IN
                 : alen == sizeof(struct sockaddr_in6) ? FI_SOCKADDR_IN6 : 0;
  struct fi_info *fi = info;
  while (fmt && fi && fi->addr_format != fmt) fi = fi->next;
  if (!fi) fi = info;
  if ((rc = fi_fabric(fi->fabric_attr, &fab, NULL))) die("fi_fabric", rc);
  if ((rc = fi_domain(fab, fi, &dom, NULL))) die("fi_domain", rc);
  struct fi_av_attr aa = {.type = FI_AV_TABLE, .count = 4};
  if ((rc = fi_av_open(dom, &aa, &av, NULL))) die("fi_av_open", rc);
  struct fi_cq_attr ca = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE, .size = 1024};
  if ((rc = fi_cq_open(dom, &ca, &cq, NULL))) die("fi_cq_open", rc);
  if ((rc = fi_endpoint(dom, fi, &ep, NULL))) die("fi_endpoint", rc);
  if ((rc = fi_ep_bind(ep, &av->fid, 0))) die("fi_ep_bind", rc);
  if ((rc = fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV))) die("fi_ep_bind", rc);
  if ((rc = fi_enable(ep))) die("fi_enable", rc);
  if (fi_av_insert(av, addr, 1, &target, 0, NULL) != 1) {
    /* The provider cannot even reach the rank (the shm provider's region
     * of another user's process is mode 0600): every attack fails. */
    printf("sec_attack: cannot insert the rank's address (no access)\n");
    fi_close(&ep->fid); /* the shm provider removes its region */
    exit(0);
  }
  buf = aligned_alloc(4096, BUF);
  memset(buf, 0xee, BUF);
  if ((rc = fi_mr_reg(dom, buf, BUF, FI_READ | FI_WRITE | FI_SEND | FI_RECV, 0, 0x7a11, 0, &mr,
                      NULL)))
    die("fi_mr_reg", rc);
  if (fi->domain_attr->mr_mode & FI_MR_ENDPOINT) {
    fi_mr_bind(mr, &ep->fid, 0);
    fi_mr_enable(mr);
  }
  desc = fi_mr_desc(mr);
}

/* Reap at most one completion of rma_attack's operations: a success marks
 * the operation's state 3 (it worked: the attack succeeded). */
static void collect(struct fi_context2 *ctx, int *state, int *done, int *worked) {
  struct fi_cq_entry e;
  ssize_t r = fi_cq_read(cq, &e, 1);
  if (r == 1) {
    state[(struct fi_context2 *)e.op_context - ctx] = 3;
    (*done)++, (*worked)++;
  } else if (r == -FI_EAVAIL) {
    struct fi_cq_err_entry err;
    memset(&err, 0, sizeof err);
    fi_cq_readerr(cq, &err, 0);
    (*done)++;
  }
}

/* Every guess is posted at once (as many as the provider takes), then the
 * completions are collected until all came or 5 s passed: a provider may
 * answer a bad key with an error, or drop the request silently. */
static int rma_attack(uint64_t seg_base, uint64_t seg_size) {
  enum { NK = 72, NA = 3, NOPS = 2 * NK * NA };
  static struct fi_context2 ctx[NOPS];
  static int state[NOPS]; /* 0 not posted, 1 posted, 2 failed, 3 succeeded */
  uint64_t keys[NK];
  int nk = 0;
  for (uint64_t k = 0; k < 64; k++) keys[nk++] = k;
  while (nk < NK - 1) keys[nk++] = rnd64();
  keys[nk++] = 0x7a11;
  uint64_t addrs[NA] = {0, seg_base, seg_base + seg_size / 4};
  int posted = 0, done = 0, worked = 0, refused = 0;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < NOPS; i++) {
    int k = i / (2 * NA), a = (i / 2) % NA, rw = i % 2;
    for (;;) {
      /* Writes ask for delivery-complete: their completion then means the
       * target accepted the key, not only that the bytes left. */
      struct iovec iov = {buf + 64 * (i % 1024), 64};
      struct fi_rma_iov riov = {addrs[a], 64, keys[k]};
      struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = target,
                               .rma_iov = &riov, .rma_iov_count = 1, .context = &ctx[i]};
      ssize_t rc = rw ? fi_writemsg(ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE)
                      : fi_readmsg(ep, &msg, FI_COMPLETION);
      if (rc == 0) {
        state[i] = 1;
        posted++;
        break;
      }
      if (rc != -FI_EAGAIN) {
        state[i] = 2;
        refused++;
        break;
      }
      /* Queue full: collect completions (below) and try again, unless time is up. */
      clock_gettime(CLOCK_MONOTONIC, &t);
      if (t.tv_sec - t0.tv_sec > 5) break;
      collect(ctx, state, &done, &worked);
    }
  }
  while (done < posted) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (t.tv_sec - t0.tv_sec > 5) break;
    collect(ctx, state, &done, &worked);
  }
  for (int i = 0; i < NOPS; i++)
    if (state[i] == 3)
      fprintf(stderr, "sec_attack: fi_%s with key %#" PRIx64 " at %#" PRIx64 " SUCCEEDED\n",
              i % 2 ? "write" : "read", keys[i / (2 * NA)], addrs[(i / 2) % NA]);
  printf("sec_attack rma: %d guessed-key reads/writes: %d refused at once, %d failed, %d never "
         "completed, %d succeeded\n",
         NOPS, refused, done - worked, posted - done, worked);
  return worked ? 1 : 0;
}

/* Send one message; a provider that keeps refusing it (-FI_EAGAIN) for 2 s
 * is given up on (the message counts as not delivered). */
static unsigned not_taken;
static void send_msg(const void *m, size_t len) {
  if (len > BUF) return;
  if (m != buf) memcpy(buf, m, len);
  if (getenv("SEC_ATTACK_VERBOSE")) fprintf(stderr, "sec_attack: sending %zu bytes\n", len);
  ssize_t rc;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  static struct fi_context2 ctx;
  while ((rc = fi_send(ep, buf, len, desc, target, &ctx)) == -FI_EAGAIN) {
    fi_cq_read(cq, NULL, 0);
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (t.tv_sec - t0.tv_sec >= 2) {
      not_taken++;
      return;
    }
  }
  if (!rc) wait_one(500);
}

/* A Medium of 1000 bytes to the job's second handler: the message the
 * mutations and the flood start from. */
static void medium_hdr(struct ofi_wire *w) {
  w->type = OFI_WIRE_AM;
  w->h.category = GEXI_AM_MEDIUM;
  w->h.nargs = 1;
  w->h.nbytes = 1000;
  w->h.handler = GEX_AM_INDEX_BASE + 1;
}

static int am_attack(unsigned nranks) {
  unsigned sent = 0;
  union {
    struct ofi_wire w;
    struct ofi_auth_msg a;
    unsigned char b[OFI_LONG_PACK_MAX + 512];
  } m;
  for (unsigned src = 0; src < nranks; src++) {
    for (int cat = 0; cat <= 4; cat++)
      for (int tok = 0; tok < 2; tok++) {
        memset(&m, 0, sizeof m);
        m.w.token = tok ? rnd64() : 0;
        m.w.type = cat == 3 ? OFI_WIRE_LONG_PACKED : cat == 4 ? OFI_WIRE_CREDIT : OFI_WIRE_AM;
        m.w.credit[0] = m.w.credit[1] = 1u << 20; /* would inflate the credit */
        struct gexi_am_hdr *h = &m.w.h;
        h->category = cat == 0 ? GEXI_AM_SHORT : cat == 1 ? GEXI_AM_MEDIUM : GEXI_AM_LONG;
        h->is_req = 1;
        h->handler = GEX_AM_INDEX_BASE + (cat < 3 ? cat : 2);
        h->src = src;
        h->nargs = cat == 0 ? 2 : 1;
        h->args[0] = cat == 0 ? 0x5ec0 + src : cat == 1 ? 0x3ed : 0x10e;
        h->args[1] = 7;
        h->nbytes = cat == 0 ? 0 : cat == 1 ? 1000 : 100;
        h->dest = 0; /* a write-anywhere attempt for the Long */
        size_t len = OFI_ROUND8(OFI_WIRE_HDR_LEN(h->nargs) + (cat == 1 || cat == 3 ? h->nbytes : 0));
        send_msg(&m, len);
        sent++;
      }
    /* Handshake messages with random MACs, each step. */
    for (int step = 1; step <= 4; step++) {
      memset(&m, 0, sizeof m);
      m.a.type = OFI_WIRE_AUTH;
      m.a.step = (uint8_t)step;
      m.a.from = src;
      m.a.to = 0;
      m.a.mac = rnd64();
      for (int i = 0; i < 16; i++) m.a.nonce_init[i] = m.a.nonce_resp[i] = (unsigned char)rnd64();
      send_msg(&m, sizeof m.a);
      sent++;
    }
  }
  /* Truncated, oversized, random and mutated messages. */
  for (size_t len = 1; len < 32; len++) {
    memset(&m, 0xa5, sizeof m);
    send_msg(&m, len);
    sent++;
  }
  /* Oversized (libfabric 1.17's shm provider deadlocks in its own sender on
   * this one, so the attacker spares itself there). */
  if (!strstr(info->fabric_attr->prov_name, "shm")) {
    memset(buf, 0x5a, BUF);
    send_msg(buf, 65536);
    sent++;
  }
  for (int i = 0; i < 200; i++) {
    memset(&m, 0, sizeof m);
    medium_hdr(&m.w);
    size_t len = OFI_ROUND8(OFI_WIRE_HDR_LEN(1) + 1000);
    for (int f = 0; f < 8; f++) m.b[rnd64() % len] ^= (unsigned char)(1 + rnd64() % 255);
    if (i % 4 == 0) len = 8 + rnd64() % 2000;
    send_msg(&m, len);
    sent++;
  }
  printf("sec_attack am: sent %u forged, truncated, oversized and mutated messages (%u not taken "
         "by the provider)\n", sent, not_taken);
  return 0;
}

/* A stream of Medium-looking messages from a stranger, as fast as the
 * provider takes them: SEC_ATTACK_FLOOD_MIB MiB (default 1024) in all, or
 * until the provider has refused to take more for 2-3 s (back-pressure:
 * the target stopped reading).  Whether the target's memory stayed
 * bounded, t_sec_victim checks. */
#define FLOOD_MSG 4096
static int flood_attack(void) {
  const char *mib = getenv("SEC_ATTACK_FLOOD_MIB");
  const uint64_t total = (mib ? strtoull(mib, NULL, 10) : 1024) << 20;
  enum { DEPTH = BUF / FLOOD_MSG };
  static struct fi_context2 ctx[DEPTH];
  union {
    struct ofi_wire w;
    unsigned char b[FLOOD_MSG];
  } m;
  memset(&m, 0, sizeof m);
  medium_hdr(&m.w);
  m.w.h.is_req = 1;
  m.w.h.args[0] = 0x3ed;
  for (unsigned i = 0; i < DEPTH; i++) memcpy(buf + (size_t)i * FLOOD_MSG, &m, FLOOD_MSG);
  uint64_t sent = 0, inflight = 0;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  unsigned slot = 0;
  while (sent * FLOOD_MSG < total) {
    ssize_t rc = inflight < DEPTH ? fi_send(ep, buf + (size_t)slot * FLOOD_MSG, FLOOD_MSG, desc,
                                            target, &ctx[slot])
                                  : -FI_EAGAIN;
    if (rc == 0) {
      sent++, inflight++;
      slot = (slot + 1) % DEPTH;
      clock_gettime(CLOCK_MONOTONIC, &t0);
    } else if (rc != -FI_EAGAIN) {
      break; /* the provider gave up on the target */
    }
    struct fi_cq_entry e;
    ssize_t r;
    while ((r = fi_cq_read(cq, &e, 1)) == 1 || r == -FI_EAVAIL) {
      if (r == -FI_EAVAIL) {
        struct fi_cq_err_entry err;
        memset(&err, 0, sizeof err);
        fi_cq_readerr(cq, &err, 0);
      }
      inflight--;
    }
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (t.tv_sec - t0.tv_sec >= 3) break; /* nothing taken for 2-3 s */
  }
  printf("sec_attack flood: %" PRIu64 " messages of %u bytes taken by the provider (%" PRIu64
         " MiB)%s\n", sent, FLOOD_MSG, sent * FLOOD_MSG >> 20,
         sent * FLOOD_MSG < total ? ", then refused" : "");
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: sec_attack rma|am|flood PROVIDER ADDRFILE NRANKS\n");
    return 2;
  }
  FILE *f = fopen(argv[3], "r");
  if (!f) {
    perror(argv[3]);
    return 2;
  }
  char prov[128], hex[1024];
  uint64_t base = 0, size = 0;
  if (fscanf(f, "%127s %1023s %" SCNx64 " %" SCNu64, prov, hex, &base, &size) != 4) {
    fprintf(stderr, "sec_attack: cannot parse %s\n", argv[3]);
    return 2;
  }
  fclose(f);
  unsigned char addr[512];
  size_t alen = strlen(hex) / 2;
  for (size_t i = 0; i < alen; i++) addr[i] = (unsigned char)(hexval(hex[2 * i]) * 16 + hexval(hex[2 * i + 1]));
  setup(argv[2], addr, alen);
  int rc = !strcmp(argv[1], "rma")     ? rma_attack(base, size)
           : !strcmp(argv[1], "flood") ? flood_attack()
                                       : am_attack((unsigned)atoi(argv[4]));
  fi_close(&ep->fid);
  return rc;
}

/* The attacker exits without tearing down everything it opened (libfabric
 * keeps allocations of its own): no leak reports in sanitizer builds. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }
