/* ofi-conduit/gex_conduit.h -- the "ofi" conduit identity of libgex.
 *
 * ofi is libgex's normal build: shared memory between the ranks of a host,
 * libfabric between hosts.  A client selects this identity by putting
 * <prefix>/include/ofi-conduit on its include path (the ofi-{seq,par}.mak
 * fragments and the gasnet-ofi-{seq,par} pkg-config files do that);
 * gasnetex.h also falls back to it when no gex_conduit.h is on the path.
 * The identity headers share one include guard: a translation unit
 * carries exactly one identity. */
#ifndef GEX_CONDUIT_H
#define GEX_CONDUIT_H

#define GASNET_CONDUIT_OFI 1
#define GASNET_CONDUIT_NAME OFI
#define GASNET_CONDUIT_NAME_STR "OFI"
#define GASNET_CORE_NAME OFI
#define GASNET_CORE_NAME_STR "OFI"
/* Endpoints per process, as the reference's ofi conduit: the primordial endpoint and 32 made by
 * gex_EP_Create (RMA only; see docs/segments.md). */
#define GASNET_MAXEPS 33

#include <gex/gex_identity.h>

#endif /* GEX_CONDUIT_H */
