/* objects/client.c -- gex_Client_Init and the job-wide queries.
 *
 * Init: start the bootstrap, create this process's shared control region,
 * exchange (host, pid, fd) with every rank, map the control regions of the
 * processes on this host, then barrier so that every mapping exists before
 * any process closes its descriptor.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "am/am.h"
#include "am/am_coalesce.h"
#include "atomic/ad_am.h"
#include "bootstrap/bootstrap.h"
#include "core/context.h"
#include "core/rcv_thread.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

/* Which processes share memory: same host name, same boot, same network
 * namespace.  Processes in different network namespaces of one machine
 * (containers, or the test suite's two-"host" setup) are treated as
 * different hosts and talk over the network. */
static void host_identity(char *out, size_t len) {
  char host[64] = "localhost", boot[40] = "", netns[40] = "";
  gethostname(host, sizeof host - 1);
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (f) {
    if (!fgets(boot, sizeof boot, f)) boot[0] = 0;
    fclose(f);
    boot[strcspn(boot, "\n")] = 0;
  }
  ssize_t n = readlink("/proc/self/ns/net", netns, sizeof netns - 1);
  netns[n > 0 ? n : 0] = 0;
  snprintf(out, len, "%s/%s/%s", host, boot, netns);
}

/* Whether host keys a and b (host_identity's "name/boot id/netns") name
 * the same machine: the same boot id, whatever the network namespace or
 * the name.  Without a boot id, the same key. */
static int same_machine(const char *a, const char *b) {
  const char *ba = strchr(a, '/'), *bb = strchr(b, '/');
  if (!ba || !bb) return strcmp(a, b) == 0;
  size_t la = strcspn(ba + 1, "/"), lb = strcspn(bb + 1, "/");
  if (la == 0 || lb == 0) return strcmp(a, b) == 0;
  return la == lb && memcmp(ba + 1, bb + 1, la) == 0;
}

/* GEX_SUPERNODE_MAXSIZE=N: split each host's ranks, in jobrank order, into
 * groups of at most N that share memory; other groups of the same host are
 * reached over the network.  N=1 sends every peer through the network.
 * Returns whether every rank runs on this host (before the split). */
static int split_hosts(struct gexi_proc_info *all, gex_Rank_t n) {
  int one_host = 1;
  for (gex_Rank_t j = 1; j < n; j++)
    if (strcmp(all[j].host, all[0].host) != 0) one_host = 0;
  const gex_Rank_t max = gexi_ctx.env.supernode_maxsize; /* 0: no limit */
  if (max == 0) return one_host;
  gex_Rank_t *ordinal = calloc(n, sizeof *ordinal);
  if (!ordinal) gexi_fatal("out of memory");
  for (gex_Rank_t j = 0; j < n; j++)
    for (gex_Rank_t k = 0; k < j; k++)
      if (strcmp(all[k].host, all[j].host) == 0) ordinal[j]++;
  for (gex_Rank_t j = 0; j < n; j++) {
    size_t l = strlen(all[j].host);
    snprintf(all[j].host + l, sizeof all[j].host - l, "#%u", (unsigned)(ordinal[j] / max));
  }
  free(ordinal);
  return one_host;
}

/* Group the ranks whose keys equal mine: members (sorted jobranks), my index
 * among them, the number of distinct keys in the job and the ordinal of mine
 * (groups numbered by their lowest jobrank).  local_index (may be NULL):
 * jobrank -> index among my group's members, or GEX_RANK_INVALID. */
struct gexi_group {
  gex_Rank_t *members, size, index, count, rank;
};
static void build_group(const struct gexi_proc_info *all, const char *const *keys,
                        struct gexi_group *g, gex_Rank_t *local_index) {
  gex_Rank_t n = gexi_ctx.size, me = gexi_ctx.rank;
  g->members = calloc(n, sizeof(gex_Rank_t));
  if (!g->members) gexi_fatal("out of memory");
  (void)all;
  gex_Rank_t count = 0, nsets = 0, myset = 0;
  for (gex_Rank_t j = 0; j < n; j++) {
    if (local_index) local_index[j] = GEX_RANK_INVALID;
    if (strcmp(keys[j], keys[me]) == 0) {
      if (j == me) g->index = count;
      if (local_index) local_index[j] = count;
      g->members[count++] = j;
    }
    int first = 1;
    for (gex_Rank_t k = 0; k < j && first; k++)
      if (strcmp(keys[k], keys[j]) == 0) first = 0;
    if (!first) continue;
    if (strcmp(keys[j], keys[me]) == 0) myset = nsets;
    nsets++;
  }
  g->size = count;
  g->count = nsets;
  g->rank = myset;
}

/* Hosts: equal host identities.  Neighbourhoods (shared memory): equal
 * identities after the GEX_SUPERNODE_MAXSIZE split. */
static void build_nbrhd(const struct gexi_proc_info *all, char *const *host_keys) {
  gex_Rank_t n = gexi_ctx.size;
  const char **nb_keys = calloc(n, sizeof *nb_keys);
  gexi_ctx.local_index = calloc(n, sizeof(gex_Rank_t));
  if (!nb_keys || !gexi_ctx.local_index) gexi_fatal("out of memory");
  for (gex_Rank_t j = 0; j < n; j++) nb_keys[j] = all[j].host;
  struct gexi_group nb, host;
  build_group(all, nb_keys, &nb, gexi_ctx.local_index);
  build_group(all, (const char *const *)host_keys, &host, NULL);
  /* Every rank's neighbourhood ordinal (groups numbered by lowest jobrank),
   * for the hierarchical collectives (coll/coll_hier.c). */
  gexi_ctx.nbrhd_of = calloc(n, sizeof(gex_Rank_t));
  if (!gexi_ctx.nbrhd_of) gexi_fatal("out of memory");
  for (gex_Rank_t j = 0, sets = 0; j < n; j++) {
    gex_Rank_t k = 0;
    while (k < j && strcmp(nb_keys[k], nb_keys[j]) != 0) k++;
    gexi_ctx.nbrhd_of[j] = k < j ? gexi_ctx.nbrhd_of[k] : sets++;
  }
  free(nb_keys);
  gexi_ctx.nbrhd_jobranks = nb.members;
  gexi_ctx.nbrhd_size = nb.size;
  gexi_ctx.nbrhd_index = nb.index;
  gexi_ctx.nbrhd_count = nb.count;
  gexi_ctx.nbrhd_rank = nb.rank;
  gexi_ctx.host_jobranks = host.members;
  gexi_ctx.host_size = host.size;
  gexi_ctx.host_index = host.index;
  gexi_ctx.host_count = host.count;
  gexi_ctx.host_rank = host.rank;
  /* The job's ranks on this machine, in every network namespace of it:
   * ranks in namespaces standing for hosts share its processors too. */
  long cpus = sysconf(_SC_NPROCESSORS_ONLN), on_machine = 0, before_me = 0;
  for (gex_Rank_t j = 0; j < n; j++)
    if (same_machine(host_keys[j], host_keys[gexi_ctx.rank])) {
      on_machine++;
      before_me += j < gexi_ctx.rank;
    }
  gexi_ctx.host_oversubscribed = cpus > 0 && on_machine > cpus;
  gexi_ctx.machine_ranks = (uint32_t)on_machine;
  gexi_ctx.machine_index = (uint32_t)before_me;
  gexi_ctx.cpus = cpus > 0 ? (uint32_t)cpus : 0;
}


int gex_Client_Init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                    const char *clientName, int *argc, char ***argv, gex_Flags_t flags) {
  (void)argc;
  (void)argv;
  if (gexi_ctx.initialized) {
    gexi_warn("gex_Client_Init: only one client per process is supported");
    return GASNET_ERR_RESOURCE;
  }
  if (!client_p || !ep_p || !tm_p) return GASNET_ERR_BAD_ARG;
  /* Any non-empty name, as the reference accepts ("upcxx", "realm-gex"). */
  if (!clientName || !clientName[0]) {
    fprintf(stderr, "libgex: gex_Client_Init: the client name is %s\n",
            clientName ? "empty" : "NULL");
    return GASNET_ERR_BAD_ARG;
  }
  gexi_ctx.verbose_errors = 1;
  gexi_bootstrap_t *b = gexi_bootstrap_start();
  gexi_ctx.boot = b;
  gexi_ctx.rank = b->rank;
  gexi_ctx.size = b->size;
  gexi_env_load(); /* a malformed variable ends the job here (core/env.h) */
  GEXI_CHECK_FLAGS("gex_Client_Init", flags, GEX_FLAG_USES_GASNET1 | GEX_FLAG_DEFER_THREADS);

  gexi_am_upcalls_register(); /* before a transport can deliver anything */
  struct gexi_proc_info mine;
  memset(&mine, 0, sizeof mine);
  host_identity(mine.host, sizeof mine.host);
  gexi_shm_create_ctrl(&mine);
  gexi_ctx.shm_poll = gexi_shm_poll;
  gexi_ctx.shm_waiting = gexi_shm_node_waiting;
  gexi_ctx.shm_colocated = gexi_shm_node_colocated;
  gexi_ctx.shm_doze = gexi_shm_doze;
  struct gexi_proc_info *all = calloc(b->size, sizeof *all);
  if (!all) gexi_fatal("out of memory");
  b->allgather(b, &mine, all, sizeof mine);
  char **host_keys = calloc(b->size, sizeof *host_keys);
  if (!host_keys) gexi_fatal("out of memory");
  for (gex_Rank_t j = 0; j < b->size; j++)
    if (!(host_keys[j] = strdup(all[j].host))) gexi_fatal("out of memory");
  int one_host = split_hosts(all, b->size);
  build_nbrhd(all, host_keys);
  for (gex_Rank_t j = 0; j < b->size; j++) free(host_keys[j]);
  free(host_keys);

  struct gexi_EP *ep = &gexi_ctx.ep;
  struct gexi_team *tm = gexi_team_new(b->size, b->rank, false);
  ep->pair_tm = gexi_team_new(b->size, b->rank, true);
  gexi_ctx.tm = tm;
  gexi_ctx.peers = tm->peers;
  for (gex_Rank_t j = 0; j < b->size; j++) {
    gexi_ctx.peers[j].jobrank = j;
    gexi_ctx.peers[j].local = gexi_ctx.local_index[j] != GEX_RANK_INVALID;
  }
  memcpy(ep->pair_tm->peers, tm->peers, b->size * sizeof(gexi_Peer_t));
  if (gexi_ctx.nbrhd_size != b->size) {
    gexi_net_start(one_host);
  }

  gexi_shm_map_node(all);
  gexi_bootstrap_barrier(b); /* every peer has mapped our region */
  gexi_shm_init_done();
  free(all);

  struct gexi_Client *c = &gexi_ctx.client;
  if (!(c->name = strdup(clientName))) gexi_fatal("out of memory");
  c->flags = flags;
  ep->client = c;
  ep->caps = GEX_EP_CAPABILITY_ALL;
  pthread_mutex_init(&ep->reg_lock, NULL);
  gexi_ctx.eps[0] = ep; /* index 0 */
  atomic_store_explicit(&gexi_ctx.ep_count, 1, memory_order_release);
  tm->client = ep->pair_tm->client = c;
  tm->ep = ep->pair_tm->ep = ep;
  gexi_coll_am_init();
  gexi_ad_am_init(); /* internal AM handlers of atomics, VIS, coalescing (atomic/ad_am.c) */
  gexi_rma_co_init(); /* coalesced Puts (rma/rma_coalesce.c) */
  tm->head.put_nbi = ep->pair_tm->head.put_nbi = gexi_rma_put_nbi_entry();
  atomic_store_explicit(&gexi_ctx.initialized, 1, memory_order_release);
  gexi_exit_hooks_install();
  gexi_rcv_thread_setup((flags & GEX_FLAG_DEFER_THREADS) != 0);

  *client_p = c;
  *ep_p = ep;
  *tm_p = gexi_tm_handle(tm);
  if (gexi_ctx.client_init_hook) gexi_ctx.client_init_hook(c, ep, *tm_p, flags);
  return GASNET_OK;
}

gex_Flags_t gex_Client_QueryFlags(gex_Client_t client) { return client->flags; }
const char *gex_Client_QueryName(gex_Client_t client) { return client->name; }
void gex_Client_SetCData(gex_Client_t client, const void *val) { client->cdata = (void *)val; }
void *gex_Client_QueryCData(gex_Client_t client) { return client->cdata; }

gex_Rank_t gex_System_QueryJobRank(void) {
  gexi_check_init("gex_System_QueryJobRank");
  return gexi_ctx.rank;
}
gex_Rank_t gex_System_QueryJobSize(void) {
  gexi_check_init("gex_System_QueryJobSize");
  return gexi_ctx.size;
}
gasnet_node_t gasnet_mynode(void) {
  gexi_check_init("gasnet_mynode");
  return gexi_ctx.rank;
}
gasnet_node_t gasnet_nodes(void) {
  gexi_check_init("gasnet_nodes");
  return gexi_ctx.size;
}

uint64_t gex_System_QueryMaxThreads(void) { return 1u << 16; }
int gex_System_QueryHiddenAMConcurrencyLevel(void) { return 0; }

int gex_System_QueryProgressThreads(gex_Client_t client, unsigned int *count_p,
                                    const gex_ProgressThreadInfo_t **info_p,
                                    gex_Flags_t flags) {
  if (!count_p || !info_p || flags) return GASNET_ERR_BAD_ARG;
  if (!(client->flags & GEX_FLAG_DEFER_THREADS)) return GASNET_ERR_RESOURCE;
  *count_p = gexi_rcv_thread_deferred(info_p); /* the receive thread, where asked for */
  return GASNET_OK;
}

void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                               gex_Rank_t *my_info_index_p) {
  gexi_check_init("gex_System_QueryNbrhdInfo");
  /* gex_RankInfo_t holds only a jobrank, so the sorted jobrank array is an
   * array of gex_RankInfo_t. */
  _Static_assert(sizeof(gex_RankInfo_t) == sizeof(gex_Rank_t), "layout");
  if (info_p) *info_p = (gex_RankInfo_t *)gexi_ctx.nbrhd_jobranks;
  if (info_count_p) *info_count_p = gexi_ctx.nbrhd_size;
  if (my_info_index_p) *my_info_index_p = gexi_ctx.nbrhd_index;
}

void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                              gex_Rank_t *my_info_index_p) {
  gexi_check_init("gex_System_QueryHostInfo");
  if (info_p) *info_p = (gex_RankInfo_t *)gexi_ctx.host_jobranks;
  if (info_count_p) *info_count_p = gexi_ctx.host_size;
  if (my_info_index_p) *my_info_index_p = gexi_ctx.host_index;
}

void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size_p, gex_Rank_t *nbrhd_set_rank_p,
                                gex_Rank_t *host_set_size_p, gex_Rank_t *host_set_rank_p) {
  gexi_check_init("gex_System_QueryMyPosition");
  if (nbrhd_set_size_p) *nbrhd_set_size_p = gexi_ctx.nbrhd_count;
  if (nbrhd_set_rank_p) *nbrhd_set_rank_p = gexi_ctx.nbrhd_rank;
  if (host_set_size_p) *host_set_size_p = gexi_ctx.host_count;
  if (host_set_rank_p) *host_set_rank_p = gexi_ctx.host_rank;
}

void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p,
                            gex_Segment_t *segment_p) {
  gexi_check_init("gasnet_QueryGexObjects");
  if (client_p) *client_p = &gexi_ctx.client;
  if (endpoint_p) *endpoint_p = &gexi_ctx.ep;
  if (tm_p) *tm_p = gexi_tm_handle(gexi_ctx.tm);
  if (segment_p) *segment_p = gexi_ctx.ep.segment; /* attached or bound; may be INVALID */
}
