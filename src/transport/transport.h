/* transport/transport.h -- the internal interface of network transports.
 *
 * Two implement it: sock (transport/sock/: TCP connections, or datagrams
 * of the UDP lane, with its own authentication; the default) and ofi
 * (transport/ofi/: a libfabric provider).  transport/start/net_start.c picks one
 * (GEX_NET_TRANSPORT) and starts it; it fills one gexi_net_ops (the table
 * the core calls, core/net_ops.h) and sets gexi_ctx.net, and the layers
 * above reach it only through that table.
 * What it needs from above arrives as function pointers: received AMs go
 * up through gexi_ctx.am_up (transport/am_wire.h), operations complete
 * through the counters of core/complete.h.
 *
 * On-node traffic never goes through this table: RMA is inline load/store
 * (gex/gex_inline.h) and AMs use transport/shm directly.
 */
#ifndef GEXI_TRANSPORT_H
#define GEXI_TRANSPORT_H

#include "core/net_ops.h"
#include "transport/am_wire.h"
#include "sec/siphash.h"

/* transport/start/net_start.c: start the network transport (some rank is on
 * another node; sets gexi_ctx.net, or ends the job when this libgex has
 * none).  'one_host': every rank shares this host's network stack (forced
 * network on one host), so the loopback interface is preferred.  At
 * process exit, remove what the transport would leave behind; safe from
 * any thread, never blocks. */
void gexi_net_start(int one_host);
void gexi_net_at_exit(void);
/* The job's secret as the key of a transport's admission handshake
 * (fatal when the bootstrap has none); rank 0 warns, unless 'one_host', when
 * the bootstrap says the secret travelled where others could read it. */
void gexi_net_job_key(gexi_sipkey_t *key, int one_host);

#endif
