/* legacy/context.c -- the GASNet-1 layer's context and its client-init hook.
 *
 * gexl_ctx.tm must be valid before the first inline GASNet-1 call, whichever
 * way the client started (gasnet_init, or gex_Client_Init with
 * GEX_FLAG_USES_GASNET1).  So this file registers, from a constructor, the
 * core's client-init hook (core/hooks.h): gex_Client_Init calls it once the
 * client exists.  The constructor is in the object that defines gexl_ctx, so
 * it is linked exactly when some GASNet-1 call (which reads gexl_ctx) is.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "core/hooks.h"
#include "legacy/legacy.h"

struct gexl_context gexl_ctx;

void gexl_fatal(const char *fn, const char *fmt, ...) {
  va_list ap;
  fflush(stdout);
  fprintf(stderr, "libgex: rank %u: %s: ", gexl_ctx.tm ? (unsigned)gex_TM_QueryRank(gexl_ctx.tm) : 0u,
          fn);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  gasnet_exit(1);
}

gex_TM_t gexl_team(const char *fn) {
  if (!gexl_ctx.tm) {
    fprintf(stderr, "libgex: %s: called before gasnet_init or gex_Client_Init\n", fn);
    fflush(stderr);
    exit(1);
  }
  return gexl_ctx.tm;
}

intptr_t gexl_delta_miss(gasnet_node_t node) {
  if (__atomic_load_n(&gexl_ctx.delta_state, __ATOMIC_ACQUIRE) == 0) {
    gex_Segment_t seg = GEX_SEGMENT_INVALID;
    gasnet_QueryGexObjects(NULL, NULL, NULL, &seg);
    int empty = 0;
    /* One thread fills; the others use the GASNet-EX path meanwhile. */
    if (seg != GEX_SEGMENT_INVALID &&
        __atomic_compare_exchange_n(&gexl_ctx.delta_state, &empty, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
      for (gex_Rank_t r = 0; r < gex_TM_QuerySize(gexl_ctx.tm); r++) {
        void *owner = NULL, *local = NULL;
        (void)gex_EP_QueryBoundSegmentNB(gexl_ctx.tm, r, &owner, &local, NULL, 0);
        if (local)
          __atomic_store_n(&gexl_ctx.delta[r], (intptr_t)((uintptr_t)local - (uintptr_t)owner),
                           __ATOMIC_RELAXED);
      }
      __atomic_store_n(&gexl_ctx.delta_state, 2, __ATOMIC_RELEASE);
    }
  }
  return __atomic_load_n(&gexl_ctx.delta[node], __ATOMIC_RELAXED);
}

/* Every rank's host and neighbourhood ordinals, for gasnet_getNodeInfo: each
 * rank writes its pair into its own slot of a zeroed array and a sum over the
 * primordial team fills every slot (an all-gather from the EX reduction). */
static void gather_groups(gex_TM_t tm) {
  gex_Rank_t n = gex_TM_QuerySize(tm), me = gex_TM_QueryRank(tm);
  uint32_t *mine = calloc(2 * (size_t)n, sizeof *mine);
  struct gexl_nodegroup *all = calloc(n, sizeof *all);
  if (!mine || !all) gexl_fatal("gasnet_init", "out of memory");
  gex_Rank_t nbrhd, host;
  gex_System_QueryMyPosition(NULL, &nbrhd, NULL, &host);
  mine[2 * (size_t)me] = host;
  mine[2 * (size_t)me + 1] = nbrhd;
  _Static_assert(sizeof(struct gexl_nodegroup) == 2 * sizeof(uint32_t), "layout");
  gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, all, mine, GEX_DT_U32, sizeof(uint32_t),
                                        2 * (size_t)n, GEX_OP_ADD, NULL, NULL, 0));
  free(mine);
  gexl_ctx.groups = all;
}

static void on_client_init(gex_Client_t client, gex_EP_t ep, gex_TM_t tm, gex_Flags_t flags) {
  gexl_ctx.client = client;
  gexl_ctx.ep = ep;
  gexl_ctx.init_flags = flags;
  gexl_ctx.tm = tm;
  gex_Rank_t n = gex_TM_QuerySize(tm);
  gexl_ctx.delta = malloc(n * sizeof *gexl_ctx.delta);
  if (!gexl_ctx.delta) gexl_fatal("gex_Client_Init", "out of memory");
  for (gex_Rank_t r = 0; r < n; r++) gexl_ctx.delta[r] = GEXL_NOT_MAPPED;
  /* Collective, like gex_Client_Init itself; only for clients that asked
   * for the GASNet-1 API. */
  if (flags & GEX_FLAG_USES_GASNET1) gather_groups(tm);
}

__attribute__((constructor)) static void register_hook(void) {
  gexi_set_client_init_hook(on_client_init);
}
