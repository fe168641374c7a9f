/* transport/net_start.c -- which network transport a job starts, and its
 * process-exit hook: the only place the core reaches a transport's own
 * entry points (through transport.h).
 *
 * Two transports: libgex's own over TCP sockets (transport/sock, always
 * built) and libfabric's (transport/ofi, built when libfabric was found).
 * GEX_NET_TRANSPORT picks one; without it, ofi where it was built, else
 * sock.  Every rank must pick the same: the choice is compared across the
 * job before either starts (their start-up exchanges differ).
 */
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "transport/sock/sock.h"
#include "transport/transport.h"
#if GEXI_HAVE_OFI
#include "transport/ofi/ofi.h"
#endif

static const char *const names[] = {"default", "ofi", "sock"};

void gexi_net_start(int one_host) {
  int t = gexi_ctx.env.net_transport;
  if (t == GEXI_NET_DEFAULT) t = GEXI_HAVE_OFI ? GEXI_NET_OFI : GEXI_NET_SOCK;
  uint8_t mine = (uint8_t)t, *all = malloc(gexi_ctx.size);
  if (!all) gexi_fatal("out of memory");
  gexi_ctx.boot->allgather(gexi_ctx.boot, &mine, all, 1);
  for (gex_Rank_t j = 0; j < gexi_ctx.size; j++)
    if (all[j] != mine)
      gexi_fatal("gex_Client_Init: rank %u uses the %s network transport and this rank %s: set "
                 "GEX_NET_TRANSPORT alike for every rank", (unsigned)j, names[all[j] % 3],
                 names[mine]);
  free(all);
  if (t == GEXI_NET_SOCK) {
    gexi_sock_start(one_host);
    return;
  }
#if GEXI_HAVE_OFI
  gexi_ofi_start(one_host);
#else
  gexi_fatal("gex_Client_Init: GEX_NET_TRANSPORT=ofi, and this libgex was built without "
             "libfabric");
#endif
}

void gexi_net_at_exit(void) {
  gexi_sock_at_exit();
#if GEXI_HAVE_OFI
  gexi_ofi_at_exit();
#endif
}
