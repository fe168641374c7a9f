/* transport/start/net_start.c -- which network transport a job starts, and its
 * process-exit hook: the only place the core reaches a transport's own
 * entry points (through transport.h).
 *
 * Two transports: libgex's own over TCP sockets (transport/sock, always
 * built) and libfabric's (transport/ofi, built when libfabric was found).
 * GEX_NET_TRANSPORT picks one (GEX_OFI_PROVIDER or GEX_OFI_DOMAIN pick
 * ofi); without a choice, ofi where every host of the job has an RDMA
 * device libfabric drives, sock otherwise (Ethernet, loopback).  Every rank
 * must pick the same: the choices are compared across the job before
 * either transport starts (their start-up exchanges differ).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "transport/sock/sock.h"
#include "transport/transport.h"
#if GEXI_HAVE_OFI
#include "transport/ofi/ofi.h"
#endif

static const char *const names[] = {"default", "ofi", "sock"};

/* Whether this host has a network device that libfabric drives without
 * the kernel's sockets: an RDMA device (InfiniBand, RoCE, iWARP, EFA,
 * Omni-Path: /sys/class/infiniband) or a Slingshot NIC (/sys/class/cxi). */
static int host_has_rdma(void) {
  static const char *const classes[] = {"/sys/class/infiniband", "/sys/class/cxi"};
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
    DIR *d = opendir(classes[i]);
    if (!d) continue;
    struct dirent *e;
    int found = 0;
    while (!found && (e = readdir(d)) != NULL) found = e->d_name[0] != '.';
    closedir(d);
    if (found) return 1;
  }
  return 0;
}

/* The choice a rank publishes: an explicit transport (GEX_NET_TRANSPORT,
 * or ofi because GEX_OFI_PROVIDER or GEX_OFI_DOMAIN names a libfabric
 * provider or domain) with EXPLICIT set, else whether its host has RDMA. */
#define EXPLICIT 0x80

void gexi_net_start(int one_host) {
  __atomic_store_n(&gexi_ctx.net_at_exit, gexi_net_at_exit, __ATOMIC_RELEASE);
  const struct gexi_env *env = &gexi_ctx.env;
  int t = env->net_transport;
  if (t == GEXI_NET_DEFAULT && (env->ofi_provider || env->ofi_domain)) t = GEXI_NET_OFI;
  uint8_t mine = t != GEXI_NET_DEFAULT ? (uint8_t)(EXPLICIT | t) : (uint8_t)host_has_rdma();
  uint8_t *all = malloc(gexi_ctx.size);
  if (!all) gexi_fatal("out of memory");
  gexi_ctx.boot->allgather(gexi_ctx.boot, &mine, all, 1);
  int every_rdma = 1;
  for (gex_Rank_t j = 0; j < gexi_ctx.size; j++) {
    if ((all[j] & EXPLICIT) != (mine & EXPLICIT) || ((mine & EXPLICIT) && all[j] != mine))
      gexi_fatal("gex_Client_Init: rank %u uses the %s network transport and this rank %s: set "
                 "GEX_NET_TRANSPORT (or GEX_OFI_PROVIDER) alike for every rank", (unsigned)j,
                 names[(all[j] & EXPLICIT) ? all[j] % 3 : 0], names[(mine & EXPLICIT) ? t : 0]);
    every_rdma &= all[j] & 1;
  }
  free(all);
  /* Without a choice: libfabric where every host has an RDMA NIC it drives
   * (and this libgex has libfabric), libgex's own TCP transport otherwise. */
  if (t == GEXI_NET_DEFAULT) t = GEXI_HAVE_OFI && every_rdma ? GEXI_NET_OFI : GEXI_NET_SOCK;
  if (env->net_verbose && gexi_ctx.rank == 0 && t == GEXI_NET_OFI)
    fprintf(stderr, "libgex: network transport ofi (libfabric)%s\n",
            (mine & EXPLICIT) ? "" : ": every host has an RDMA device");
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

void gexi_net_job_key(gexi_sipkey_t *key, int one_host) {
  gexi_bootstrap_t *b = gexi_ctx.boot;
  if (!b->secret)
    gexi_fatal("gex_Client_Init: the '%s' bootstrap provides no job secret for network peers",
               b->name);
  unsigned char secret[GEXI_SECRET_LEN];
  b->secret(b, secret);
  gexi_sipkey_load(key, secret);
  memset(secret, 0, sizeof secret);
  if (b->secret_exposure && !one_host && b->rank == 0)
    gexi_say("warning: %s; any host on that network can learn it and join the job's network "
             "traffic (docs/security.md)", b->secret_exposure);
}

void gexi_net_at_exit(void) {
  gexi_sock_at_exit();
#if GEXI_HAVE_OFI
  gexi_ofi_at_exit();
#endif
}
