/* transport/ofi/ofi_init.c -- choosing a provider, opening the endpoint and
 * exchanging addresses.
 *
 * Selection: GEX_OFI_PROVIDER (or libfabric's own FI_PROVIDER, which filters
 * fi_getinfo itself) names the provider; GEX_OFI_DOMAIN the domain
 * (interface).  Otherwise the best-ranked provider (prov_rank) that offers
 * an RDM endpoint with RMA and multi-receive messages, skipping the
 * node-local 'shm' provider when ranks are on several hosts and preferring
 * the loopback interface when every rank shares one host's network stack.
 * Every rank must pick the same provider; this is checked at the address
 * exchange.
 */
#include <arpa/inet.h>
#include <sys/mman.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sec/random.h"
#include "transport/ofi/ofi.h"
#include "transport/transport.h"

const char *gexi_ofi_strerror(ssize_t rc) {
  const struct gexi_ofi *o = gexi_ctx.ofi;
  return o && o->fi.strerror ? o->fi.strerror((int)(rc < 0 ? -rc : rc)) : "libfabric error";
}

void gexi_ofi_fail(const char *what, ssize_t rc) {
  gexi_fatal("network (libfabric %s): %s failed: %s", gexi_ctx.ofi && gexi_ctx.ofi->prov_name
                                                          ? gexi_ctx.ofi->prov_name
                                                          : "",
             what, gexi_ofi_strerror(rc));
}

static int is_loopback(const struct fi_info *fi) {
  if (fi->domain_attr && fi->domain_attr->name && strcmp(fi->domain_attr->name, "lo") == 0)
    return 1;
  if (fi->src_addr && fi->addr_format == FI_SOCKADDR_IN) {
    const struct sockaddr_in *sin = fi->src_addr;
    return (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
  }
  if (fi->src_addr && fi->addr_format == FI_SOCKADDR_IN6) {
    const struct sockaddr_in6 *s6 = fi->src_addr;
    return IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
  }
  return 0;
}

static struct fi_info *make_hints(const char *prov, int want_dc, int want_saw, int want_atomic,
                                  int want_source) {
  struct fi_info *h = gexi_ctx.ofi->fi.dupinfo(NULL); /* fi_allocinfo */
  if (!h) gexi_fatal("out of memory");
  h->ep_attr->type = FI_EP_RDM;
  h->caps = FI_MSG | FI_RMA | FI_MULTI_RECV | FI_SEND | FI_RECV | FI_READ | FI_WRITE |
            FI_REMOTE_READ | FI_REMOTE_WRITE | (want_atomic ? FI_ATOMIC : 0) |
            (want_source ? FI_SOURCE : 0);
  h->mode = FI_CONTEXT | FI_CONTEXT2;
  h->domain_attr->mr_mode =
      FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
  h->domain_attr->av_type = FI_AV_TABLE;
  h->domain_attr->threading = FI_THREAD_SAFE;
  h->domain_attr->control_progress = FI_PROGRESS_UNSPEC;
  h->domain_attr->data_progress = FI_PROGRESS_UNSPEC;
  if (want_dc) h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
  if (want_saw) h->tx_attr->msg_order = FI_ORDER_SAW;
  if (prov && *prov) h->fabric_attr->prov_name = strdup(prov);
  return h;
}

/* Default order among the providers libfabric offers (lower first): the
 * software providers by the 8-byte round trips measured over them
 * (docs/network.md, "Choosing a provider"), then any other software one;
 * every other provider (the NIC ones: verbs, cxi, efa, psm3, ...) before
 * them all, in libfabric's own order. */
static int prov_rank(const char *pn) {
  static const char *const soft[] = {"net", "tcp;ofi_rxm", "udp;ofi_rxd", "shm"};
  size_t n = sizeof soft / sizeof *soft;
  for (size_t i = 0; i < n; i++)
    if (strcmp(pn, soft[i]) == 0) return (int)i + 1;
  static const char *const soft_core[] = {"net", "tcp", "udp", "sockets", "shm"};
  size_t core = strcspn(pn, ";"); /* the core provider, before any utility layer */
  for (size_t i = 0; i < sizeof soft_core / sizeof *soft_core; i++)
    if (strlen(soft_core[i]) == core && strncmp(pn, soft_core[i], core) == 0) return (int)n + 1;
  return 0;
}

/* Pick one entry of the list; NULL if none fits. */
static struct fi_info *pick(struct fi_info *list, int one_host) {
  const char *dom = gexi_ctx.env.ofi_domain;
  int explicit_prov = gexi_ctx.env.ofi_provider != NULL;
  struct fi_info *first = NULL, *loop = NULL;
  int best = 0;
  for (struct fi_info *fi = list; fi; fi = fi->next) {
    const char *pn = fi->fabric_attr->prov_name;
    if (dom) {
      if (fi->domain_attr->name && strcmp(fi->domain_attr->name, dom) == 0) return fi;
      continue;
    }
    /* 'shm' reaches only this host, so never pick it by default across hosts. */
    if (!explicit_prov && !one_host && strcmp(pn, "shm") == 0) continue;
    if (!one_host && is_loopback(fi)) continue;
    int r = prov_rank(pn);
    if (first && r >= best) {
      if (!loop && is_loopback(fi) && strcmp(pn, first->fabric_attr->prov_name) == 0) loop = fi;
      continue;
    }
    first = fi; /* the best-ranked provider so far: its first entry */
    best = r;
    loop = is_loopback(fi) ? fi : NULL;
  }
  return one_host && loop ? loop : first; /* loop is an entry of first's provider */
}

/* Address exchange record. */
struct ofi_addr_rec {
  char prov[32];
  uint64_t len;
  unsigned char addr[224];
};

/* The shm provider names each endpoint's /dev/shm object after the
 * process id by default ("<pid>:<uid>:<n>"): a name another user can
 * create first (the rank then dies of SIGBUS), and that a killed rank
 * leaves behind for the next process of that pid (fi_enable: busy).
 * libgex names it "<GEX_JOBID>.<jobrank>" under gexrun, which removes the
 * job's objects when the job ends (a killed rank's too), else
 * "gex-<pid>-<64 random bits>.<jobrank>": unpredictable, never stale. */
static void name_shm_endpoint(struct gexi_ofi *o) {
  char tag[64];
  const char *job = getenv("GEX_JOBID");
  int ok = job && *job && strlen(job) < sizeof tag;
  for (const char *c = job; ok && *c; c++)
    ok = (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || *c == '-';
  if (ok) {
    snprintf(tag, sizeof tag, "%s", job);
  } else {
    uint64_t r;
    gexi_random_bytes(&r, sizeof r);
    snprintf(tag, sizeof tag, "gex-%ld-%016llx", (long)getpid(), (unsigned long long)r);
  }
  char name[sizeof o->shm_name - 1];
  snprintf(name, sizeof name, "%s.%u", tag, (unsigned)gexi_ctx.rank);
  int rc = fi_setname(&o->ep->fid, name, strlen(name) + 1);
  if (rc) gexi_ofi_fail("fi_setname", rc);
  snprintf(o->shm_name, sizeof o->shm_name, "/%s", name);
}

/* Whether RMA is done by the NIC: the core provider (the part before a
 * utility layer such as ";ofi_rxm") is one of the RDMA-capable ones.  tcp,
 * udp, shm and sockets emulate RMA with messages in software. */
static int rma_in_nic(const char *prov) {
  static const char *const hw[] = {"verbs", "cxi", "efa", "psm2", "psm3", "opx", "usnic"};
  size_t core = strcspn(prov, ";");
  for (size_t i = 0; i < sizeof hw / sizeof hw[0]; i++)
    if (strlen(hw[i]) == core && strncmp(prov, hw[i], core) == 0) return 1;
  return 0;
}

static void open_resources(struct gexi_ofi *o) {
  struct fi_info *fi = o->info;
  ssize_t rc;
  if ((rc = o->fi.fabric(fi->fabric_attr, &o->fabric, NULL))) gexi_ofi_fail("fi_fabric", rc);
  if ((rc = fi_domain(o->fabric, fi, &o->domain, NULL))) gexi_ofi_fail("fi_domain", rc);
  struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = gexi_ctx.size};
  if ((rc = fi_av_open(o->domain, &av_attr, &o->av, NULL))) gexi_ofi_fail("fi_av_open", rc);
  /* Where the provider does RMA in software, every arrival (a message, or
   * a write to our segment) is data on a descriptor that the completion
   * queue's wait object can report: a rank with nothing to do may then sleep
   * on it (gexi_ofi_block) instead of spinning, which matters when ranks
   * outnumber cores.  No wait object where the NIC writes memory unseen. */
  struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_FD,
                               .size = 4096};
  o->wait_fd = -1;
  rc = rma_in_nic(o->prov_name) ? -FI_ENOSYS : fi_cq_open(o->domain, &cq_attr, &o->cq, NULL);
  if (rc == 0 && fi_control(&o->cq->fid, FI_GETWAIT, &o->wait_fd) != 0) {
    fi_close(&o->cq->fid);
    o->wait_fd = -1;
    rc = -FI_ENOSYS;
  }
  if (rc) {
    cq_attr.wait_obj = FI_WAIT_NONE;
    if ((rc = fi_cq_open(o->domain, &cq_attr, &o->cq, NULL))) gexi_ofi_fail("fi_cq_open", rc);
  }
  if ((rc = fi_endpoint(o->domain, fi, &o->ep, NULL))) gexi_ofi_fail("fi_endpoint", rc);
  if ((rc = fi_ep_bind(o->ep, &o->av->fid, 0))) gexi_ofi_fail("fi_ep_bind(av)", rc);
  if ((rc = fi_ep_bind(o->ep, &o->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)))
    gexi_ofi_fail("fi_ep_bind(cq)", rc);
  /* A multi-receive buffer is handed back once it can't hold a largest message. */
  size_t min_left = o->wire_max;
  /* Multi-receive buffers only where they proved reliable.  libfabric
   * 1.17's shm provider crashes in fi_setopt, and without the minimum its
   * multi-receive buffers lose messages that do not fit (AM floods hung);
   * udp;ofi_rxd delivered a 16-byte fragment as a message now and then;
   * ofi_rxm left messages undelivered now and then under the reference's
   * testvis at 4 ranks (about one run in 90 after the ledger of struct
   * ofi_rxbuf fixed the corruption its early buffer release caused; also
   * with an eager size above every message).  Those get one receive
   * buffer per message (GEX_OFI_MULTI_RECV=0/1 overrides the choice). */
  o->multi_recv = gexi_ctx.env.ofi_multi_recv >= 0
                      ? gexi_ctx.env.ofi_multi_recv
                      : strcmp(o->prov_name, "shm") != 0 &&
                            strstr(o->prov_name, "ofi_rxd") == NULL &&
                            strstr(o->prov_name, "ofi_rxm") == NULL;
  if (o->multi_recv &&
      (rc = fi_setopt(&o->ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min_left,
                      sizeof min_left)))
    gexi_ofi_fail("fi_setopt(FI_OPT_MIN_MULTI_RECV)", rc);
  if (strcmp(o->prov_name, "shm") == 0) name_shm_endpoint(o);
  if ((rc = fi_enable(o->ep))) {
    if (strcmp(o->prov_name, "shm") == 0)
      gexi_fatal("network (libfabric shm): fi_enable failed: %s: cannot create the provider's "
                 "shared-memory object /dev/shm/%s (docs/network.md, \"The shm provider's "
                 "objects\")",
                 gexi_ofi_strerror(rc), o->shm_name[0] ? o->shm_name + 1 : "?");
    gexi_ofi_fail("fi_enable", rc);
  }
}

/* Where RMA is done in software (see rma_in_nic), an operation costs
 * about as much as a round trip of small messages (about 6 us per 64-byte
 * write over tcp;ofi_rxm on loopback here, pipelined or not), so VIS packs
 * pieces up to 4 KiB into AMs (measured with gex-teststrided: 4 KiB chunks
 * 758 MiB/s packed vs 489 MiB/s by RMA). */
static size_t gexi_ofi_vis_pack_max(void) {
  return rma_in_nic(gexi_ctx.ofi->prov_name) ? 256 : 4096;
}

/* Software RMA (tcp, udp, shm, sockets) costs a message exchange per
 * operation; an AM batch carries hundreds of small Puts in one. */
static size_t gexi_ofi_coalesce_put_max(void) {
  return rma_in_nic(gexi_ctx.ofi->prov_name) ? 0 : 1024;
}

/* Sends after writes arrive after them (the endpoint's FI_ORDER_SAW). */
static int gexi_ofi_put_ordered(void) { return gexi_ctx.ofi->order_saw; }

static const struct gexi_net_ops ofi_ops = {
    .name = "ofi",
    .poll = gexi_ofi_poll,
    .block = gexi_ofi_block,
    .am_send = gexi_ofi_am_send,
    .am_short = gexi_ofi_am_short,
    .put = gexi_ofi_put,
    .get = gexi_ofi_get,
    .put_nbi = gexi_ofi_put_nbi,
    .nbi_test = gexi_ofi_nbi_test,
    .event_done = gexi_ofi_event_done_ev,
    .event_free = gexi_ofi_event_free,
    .event_leaf = gexi_ofi_event_leaf,
    .region_begin = gexi_ofi_region_begin,
    .region_event = gexi_ofi_region_event,
    .seg_register = gexi_ofi_seg_register,
    .seg_peer = gexi_ofi_seg_peer,
    .atomic_valid = gexi_ofi_atomic_valid,
    .atomic_in_hw = gexi_ofi_atomic_in_hw,
    .atomic_provider = gexi_ofi_provider,
    .atomic = gexi_ofi_atomic,
    .vis_pack_max = gexi_ofi_vis_pack_max,
    .coalesce_put_max = gexi_ofi_coalesce_put_max,
    .expose = gexi_ofi_expose,
    .unexpose = gexi_ofi_unexpose,
    .get_exposed = gexi_ofi_get_exposed,
    .put_ordered = gexi_ofi_put_ordered,
    .put_exposed = gexi_ofi_put_exposed,
    .rma_exposed = gexi_ofi_rma_exposed,
};

/* udp;ofi_rxd's window: it sends up to FI_OFI_RXD_MAX_UNACKED packets (128
 * by default) to each peer before waiting for an acknowledgement.  A few
 * peers' windows at once overflow the receiving UDP socket (t_hsl, 4 ranks
 * on two hosts: 185 000 packets dropped by the kernel in a 3 s run), and
 * libfabric 1.17's rxd, retransmitting them, now and then loses a message
 * for good: the job hangs with AM credit that never comes back (about one
 * run in 40 of that test at 10 times its iterations).  Sharing 32 packets
 * among the off-host peers, 4 to 16 each, dropped none at 4 ranks on two
 * hosts and at 7 on one.  It makes the loss rarer, not impossible: rxd also
 * retransmits when a peer is slow to answer (an oversubscribed machine)
 * (docs/network.md).  Set before the first fi_getinfo, when libfabric reads
 * it; a value in the environment wins. */
static void rxd_window(void) {
  if (getenv("FI_OFI_RXD_MAX_UNACKED")) return;
  gex_Rank_t noff = gexi_ctx.size - gexi_ctx.nbrhd_size;
  unsigned w = noff ? 32u / noff : 16u;
  if (w > 16) w = 16;
  if (w < 4) w = 4;
  char val[16];
  snprintf(val, sizeof val, "%u", w);
  setenv("FI_OFI_RXD_MAX_UNACKED", val, 0);
}

void gexi_ofi_start(int one_host) {
  struct gexi_ofi *o = calloc(1, sizeof *o);
  if (!o) gexi_fatal("out of memory");
  gexi_ofi_lib_load(&o->fi);
  gexi_keygen_init(&o->mr_keys);
  /* Published with release: gexi_ofi_at_exit may read it from another thread. */
  __atomic_store_n(&gexi_ctx.ofi, o, __ATOMIC_RELEASE);
  const char *prov = gexi_ctx.env.ofi_provider, *dom = gexi_ctx.env.ofi_domain;
  rxd_window();
  /* Try for delivery-complete writes and send-after-write order first; fall
   * back to what the provider has (and flush / wait instead). */
  /* The sender of every message should come from the provider (FI_SOURCE,
   * ofi_auth.c); a provider without it is used with the claimed sender
   * checked by the session token alone. */
  struct fi_info *list = NULL, *chosen = NULL;
  int dc = 0, saw = 0, src = 0;
  static const int tries[][3] = {{1, 1, 1}, {1, 0, 1}, {0, 1, 1}, {0, 0, 1},
                                 {1, 1, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 0}};
  for (int t = 0; t < 8 && !chosen; t++) {
    struct fi_info *hints = make_hints(prov, tries[t][0], tries[t][1], 0, tries[t][2]);
    int rc = o->fi.getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list);
    o->fi.freeinfo(hints);
    if (rc) {
      list = NULL;
      continue;
    }
    chosen = pick(list, one_host);
    if (chosen) {
      dc = tries[t][0];
      saw = tries[t][1];
      src = tries[t][2];
      o->info = o->fi.dupinfo(chosen);
    }
    o->fi.freeinfo(list);
  }
  if (!o->info && dom)
    gexi_fatal("gex_Client_Init: GEX_OFI_DOMAIN='%s': libfabric offers no domain of that name "
               "with reliable-datagram endpoints, RMA and multi-receive messages%s%s%s (fi_info "
               "lists the domains)", dom, prov ? " for GEX_OFI_PROVIDER='" : "", prov ? prov : "",
               prov ? "'" : "");
  if (!o->info)
    gexi_fatal("gex_Client_Init: ranks on other hosts need a network, but libfabric offers no "
               "provider with reliable-datagram endpoints, RMA and multi-receive messages%s%s%s",
               prov ? " (GEX_OFI_PROVIDER=" : "", prov ? prov : "", prov ? ")" : "");
  /* FI_ATOMIC is optional, and asked for only where native atomics may be
   * used (GEX_AD_NATIVE=1, or "auto" on a provider with atomics in hardware):
   * with it, tcp;ofi_rxm no longer offers send-after-write order.  The
   * provider and domain just chosen are asked again (so the choice never
   * depends on atomics), keeping delivery-complete writes and, if possible,
   * send-after-write order; if none fits, the endpoint has no atomics. */
  if (gexi_ofi_atomic_wanted(o->info->fabric_attr->prov_name)) {
    for (int try_saw = saw; try_saw >= 0 && !o->atomic_caps; try_saw--) {
      struct fi_info *hints = make_hints(o->info->fabric_attr->prov_name, dc, try_saw, 1, src);
      if (o->info->domain_attr->name)
        hints->domain_attr->name = strdup(o->info->domain_attr->name);
      struct fi_info *alist = NULL;
      if (o->fi.getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &alist) == 0) {
        struct fi_info *a = pick(alist, one_host);
        if (a && (a->caps & FI_ATOMIC) &&
            strcmp(a->fabric_attr->prov_name, o->info->fabric_attr->prov_name) == 0 &&
            a->domain_attr->name && o->info->domain_attr->name &&
            strcmp(a->domain_attr->name, o->info->domain_attr->name) == 0) {
          o->fi.freeinfo(o->info);
          o->info = o->fi.dupinfo(a);
          o->atomic_caps = 1;
          saw = try_saw;
        }
        o->fi.freeinfo(alist);
      }
      o->fi.freeinfo(hints);
    }
  }
  struct fi_info *fi = o->info;
  o->prov_name = fi->fabric_attr->prov_name;
  o->mr_mode = fi->domain_attr->mr_mode;
  o->inject_size = fi->tx_attr->inject_size;
  o->write_flags = dc ? FI_DELIVERY_COMPLETE : 0;
  o->order_saw = saw || (fi->tx_attr->msg_order & FI_ORDER_SAW);
  o->flush_with_read = !dc;
  /* udp;ofi_rxd (libfabric 1.17) reports source 0 for every message, so its
   * FI_SOURCE is not believed: there the session token alone proves the
   * claimed sender. */
  o->have_source = src && (fi->caps & FI_SOURCE) && !strstr(o->prov_name, "ofi_rxd");
  o->nbi_shared = !(fi->mode & (FI_CONTEXT | FI_CONTEXT2)) && !(o->mr_mode & FI_MR_LOCAL);
  o->wire_max = OFI_ROUND8(OFI_WIRE_HDR_LEN(GEXI_AM_MAX_ARGS) + GEXI_AM_MAX_MEDIUM);
  open_resources(o);

  gexi_ofi_auth_init(one_host);

  /* Exchange addresses; a jobrank is its own fi_addr_t (FI_AV_TABLE). */
  struct ofi_addr_rec mine;
  memset(&mine, 0, sizeof mine);
  snprintf(mine.prov, sizeof mine.prov, "%s", o->prov_name);
  size_t alen = sizeof mine.addr;
  ssize_t rc = fi_getname(&o->ep->fid, mine.addr, &alen);
  if (rc) gexi_ofi_fail("fi_getname", rc);
  mine.len = alen;
  if (strcmp(o->prov_name, "shm") == 0) {
    /* Its address is the name of a /dev/shm object ("fi_shm://<name>" or
     * "<name>"), which the provider unlinks only when the endpoint is
     * closed; libgex ends processes with _exit, so it unlinks it itself. */
    const char *a = (const char *)mine.addr, *p = strstr(a, "://");
    p = p ? p + 3 : a;
    if (*p && !strchr(p, '/') && strlen(p) + 2 <= sizeof o->shm_name) {
      snprintf(o->shm_name, sizeof o->shm_name, "/%s", p);
      __atomic_store_n(&o->shm_named, 1, __ATOMIC_RELEASE);
    }
  }
  struct ofi_addr_rec *all = calloc(gexi_ctx.size, sizeof *all);
  if (!all) gexi_fatal("out of memory");
  gexi_ctx.boot->allgather(gexi_ctx.boot, &mine, all, sizeof mine);
  /* One insert per rank, in jobrank order (FI_AV_TABLE numbers them 0, 1,
   * ...): addresses need not have one length -- the shm provider's are
   * names that contain the pid, so a job whose pids straddle 9999/10000 has
   * two lengths.  Each record is zero-padded (memset above). */
  for (gex_Rank_t j = 0; j < gexi_ctx.size; j++) {
    all[j].prov[sizeof all[j].prov - 1] = '\0';
    if (strcmp(all[j].prov, mine.prov) != 0)
      gexi_fatal("gex_Client_Init: rank %u chose network provider '%s', this rank '%s': set "
                 "GEX_OFI_PROVIDER to the same provider for every rank",
                 (unsigned)j, all[j].prov, mine.prov);
    if (all[j].len == 0 || all[j].len > sizeof all[j].addr)
      gexi_fatal("gex_Client_Init: rank %u published a network address of %llu bytes",
                 (unsigned)j, (unsigned long long)all[j].len);
    fi_addr_t got = FI_ADDR_NOTAVAIL;
    int n = fi_av_insert(o->av, all[j].addr, 1, &got, 0, NULL);
    if (n != 1 || got != (fi_addr_t)j) gexi_ofi_fail("fi_av_insert", n < 0 ? n : -FI_EOTHER);
  }
  free(all);

  o->peers = calloc(gexi_ctx.size, sizeof *o->peers);
  if (!o->peers) gexi_fatal("out of memory");
  gexi_ofi_am_setup();
  gexi_ofi_counted_open();
  /* Without the counted endpoint an NBI Put goes straight to the main
   * endpoint's path, not through the test for the counted one (over
   * tcp;ofi_rxm, where it is closed by default: 24 instructions). */
  o->ops = ofi_ops;
  if (!o->rma_ep) o->ops.put_nbi = gexi_ofi_put_nbi_main;
  gexi_ctx.net = &o->ops;
  if (gexi_ctx.env.ofi_verbose && gexi_ctx.rank == 0)
    fprintf(stderr,
            "libgex: network provider %s, domain %s, inject %zu, mr_mode 0x%llx%s%s%s%s, %s, "
            "AM batches %s, %s\n",
            o->prov_name, fi->domain_attr->name, o->inject_size, (unsigned long long)o->mr_mode,
            dc ? ", delivery-complete writes" : ", writes flushed by a read",
            o->order_saw ? ", send-after-write order" : "",
            o->atomic_caps ? ", FI_ATOMIC" : "",
            o->have_source ? ", FI_SOURCE" : ", no FI_SOURCE (senders proved by token only)",
            o->multi_recv ? "multi-receive AM buffers" : "one AM buffer per message",
            o->batch_max ? "on" : "off",
            o->rma_ep ? "counted NBI RMA endpoint" : "NBI RMA on the main endpoint");
}

/* Called by gexi_end_process, possibly on the bootstrap's watchdog thread
 * (the job ended while this rank was still in gex_Client_Init). */
void gexi_ofi_at_exit(void) {
  struct gexi_ofi *o = __atomic_load_n(&gexi_ctx.ofi, __ATOMIC_ACQUIRE);
  if (o && __atomic_load_n(&o->shm_named, __ATOMIC_ACQUIRE)) shm_unlink(o->shm_name);
}
