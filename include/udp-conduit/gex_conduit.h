/* udp-conduit/gex_conduit.h -- the "udp" conduit identity of libgex.
 *
 * udp names a job whose hosts talk over ordinary Ethernet (IP).  The library
 * is the same as for ofi -- shared memory between the ranks of a host, the
 * network transport between hosts, whose default (sock) carries small
 * messages in UDP datagrams -- and only the identity differs: these macros,
 * the strings embedded in every executable (launchers read them to pick
 * amudprun, the udp conduit's spawner), and one endpoint per process, as in
 * the reference's udp conduit.  Selected by <prefix>/include/udp-conduit on
 * the include path (udp-{seq,par}.mak, gasnet-udp-{seq,par}.pc).  Shares its
 * include guard with the other identity headers: a translation unit carries
 * exactly one identity. */
#ifndef GEX_CONDUIT_H
#define GEX_CONDUIT_H

#define GASNET_CONDUIT_UDP 1
#define GASNET_CONDUIT_NAME UDP
#define GASNET_CONDUIT_NAME_STR "UDP"
#define GASNET_CORE_NAME UDP
#define GASNET_CORE_NAME_STR "UDP"
/* Endpoints per process, as the reference's udp conduit: the primordial endpoint only. */
#define GASNET_MAXEPS 1

#include <gex/gex_identity.h>

#endif /* GEX_CONDUIT_H */
