/* transport/net_start.c -- which network transport a job starts, and its
 * process-exit hook: the only place the core reaches a transport's own
 * entry points (through transport.h).  Today the one network transport is
 * libfabric's (transport/ofi), compiled when libfabric was found. */
#include "core/context.h"
#include "transport/transport.h"
#if GEXI_HAVE_OFI
#include "transport/ofi/ofi.h"
#endif

void gexi_net_start(int one_host) {
#if GEXI_HAVE_OFI
  gexi_ofi_start(one_host);
#else
  (void)one_host;
  gexi_fatal("gex_Client_Init: ranks on other hosts need the network transport, and this "
             "libgex was built without libfabric");
#endif
}

void gexi_net_at_exit(void) {
#if GEXI_HAVE_OFI
  gexi_ofi_at_exit();
#endif
}
