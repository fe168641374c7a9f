/* core/client.c -- gex_Client_Init and the job-wide queries.
 *
 * Init: start the bootstrap, create this process's shared control region,
 * exchange (host, pid, fd) with every rank, map the control regions of the
 * processes on this host, then barrier so that every mapping exists before
 * any process closes its descriptor.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic/ad_am.h"
#include "core/context.h"
#include "transport/shm/shm.h"

static void host_identity(char *out, size_t len) {
  char host[64] = "localhost", boot[40] = "";
  gethostname(host, sizeof host - 1);
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (f) {
    if (!fgets(boot, sizeof boot, f)) boot[0] = 0;
    fclose(f);
    boot[strcspn(boot, "\n")] = 0;
  }
  snprintf(out, len, "%s/%s", host, boot);
}

/* Group ranks by host identity: neighbourhood = same host. */
static void build_nbrhd(const struct gexi_proc_info *all) {
  gex_Rank_t n = gexi_ctx.size, me = gexi_ctx.rank;
  gexi_ctx.nbrhd_jobranks = calloc(n, sizeof(gex_Rank_t));
  gexi_ctx.local_index = calloc(n, sizeof(gex_Rank_t));
  if (!gexi_ctx.nbrhd_jobranks || !gexi_ctx.local_index) gexi_fatal("out of memory");
  gex_Rank_t count = 0;
  for (gex_Rank_t j = 0; j < n; j++) {
    gexi_ctx.local_index[j] = GEX_RANK_INVALID;
    if (strcmp(all[j].host, all[me].host) == 0) {
      if (j == me) gexi_ctx.nbrhd_index = count;
      gexi_ctx.local_index[j] = count;
      gexi_ctx.nbrhd_jobranks[count++] = j;
    }
  }
  gexi_ctx.nbrhd_size = count;
  /* Neighbourhoods are numbered by their lowest jobrank. */
  gex_Rank_t nsets = 0, myset = 0;
  for (gex_Rank_t j = 0; j < n; j++) {
    int first = 1;
    for (gex_Rank_t k = 0; k < j && first; k++)
      if (strcmp(all[k].host, all[j].host) == 0) first = 0;
    if (!first) continue;
    if (strcmp(all[j].host, all[me].host) == 0) myset = nsets;
    nsets++;
  }
  gexi_ctx.nbrhd_count = nsets;
  gexi_ctx.nbrhd_rank = myset;
}

static int valid_client_name(const char *s) {
  if (!s || !isupper((unsigned char)s[0])) return 0;
  for (const char *p = s + 1; *p; p++)
    if (!isupper((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_') return 0;
  return s[1] != 0;
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
  if (!valid_client_name(clientName)) {
    fprintf(stderr, "libgex: gex_Client_Init: client name '%s' must match [A-Z][A-Z0-9_]+\n",
            clientName ? clientName : "(null)");
    return GASNET_ERR_BAD_ARG;
  }
  gexi_ctx.verbose_errors = 1;
  gexi_bootstrap_t *b = gexi_bootstrap_start();
  gexi_ctx.boot = b;
  gexi_ctx.rank = b->rank;
  gexi_ctx.size = b->size;

  struct gexi_proc_info mine;
  memset(&mine, 0, sizeof mine);
  host_identity(mine.host, sizeof mine.host);
  gexi_shm_create_ctrl(&mine);
  struct gexi_proc_info *all = calloc(b->size, sizeof *all);
  if (!all) gexi_fatal("out of memory");
  b->allgather(b, &mine, all, sizeof mine);
  build_nbrhd(all);

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
  if (gexi_ctx.nbrhd_size != b->size && !gexi_ctx.net)
    gexi_fatal("gex_Client_Init: ranks on other hosts need a network transport, which this "
               "build does not have");

  gexi_shm_map_node(all);
  gexi_bootstrap_barrier(b); /* every peer has mapped our region */
  gexi_shm_init_done();
  free(all);

  struct gexi_Client *c = &gexi_ctx.client;
  snprintf(c->name, sizeof c->name, "%s", clientName);
  c->flags = flags;
  ep->client = c;
  pthread_mutex_init(&ep->reg_lock, NULL);
  tm->client = ep->pair_tm->client = c;
  tm->ep = ep->pair_tm->ep = ep;
  gexi_ad_am_init(); /* internal AM handlers of atomics and VIS (atomic/ad_am.c) */
  atomic_store_explicit(&gexi_ctx.initialized, 1, memory_order_release);

  *client_p = c;
  *ep_p = ep;
  *tm_p = gexi_tm_handle(tm);
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
  *count_p = 0; /* libgex runs no progress threads */
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
  /* A host is exactly one neighbourhood here. */
  gex_System_QueryNbrhdInfo(info_p, info_count_p, my_info_index_p);
}

void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size_p, gex_Rank_t *nbrhd_set_rank_p,
                                gex_Rank_t *host_set_size_p, gex_Rank_t *host_set_rank_p) {
  gexi_check_init("gex_System_QueryMyPosition");
  if (nbrhd_set_size_p) *nbrhd_set_size_p = gexi_ctx.nbrhd_count;
  if (nbrhd_set_rank_p) *nbrhd_set_rank_p = gexi_ctx.nbrhd_rank;
  if (host_set_size_p) *host_set_size_p = gexi_ctx.nbrhd_count;
  if (host_set_rank_p) *host_set_rank_p = gexi_ctx.nbrhd_rank;
}

void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p,
                            gex_Segment_t *segment_p) {
  gexi_check_init("gasnet_QueryGexObjects");
  if (client_p) *client_p = &gexi_ctx.client;
  if (endpoint_p) *endpoint_p = &gexi_ctx.ep;
  if (tm_p) *tm_p = gexi_tm_handle(gexi_ctx.tm);
  if (segment_p) *segment_p = gexi_ctx.segment_attached ? &gexi_ctx.segment : GEX_SEGMENT_INVALID;
}
