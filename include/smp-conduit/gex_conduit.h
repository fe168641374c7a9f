/* smp-conduit/gex_conduit.h -- the "smp" conduit identity of libgex.
 *
 * smp names a job whose ranks all share one host.  The library is the same
 * as for ofi; only the identity differs (macros and the strings embedded in
 * every executable, which launchers read to pick gasnetrun_smp).  Selected
 * by <prefix>/include/smp-conduit on the include path (smp-{seq,par}.mak,
 * gasnet-smp-{seq,par}.pc).  Shares its include guard with the other identity
 * headers: a translation unit carries exactly one identity. */
#ifndef GEX_CONDUIT_H
#define GEX_CONDUIT_H

#define GASNET_CONDUIT_SMP 1
#define GASNET_CONDUIT_NAME SMP
#define GASNET_CONDUIT_NAME_STR "SMP"
#define GASNET_CORE_NAME SMP
#define GASNET_CORE_NAME_STR "SMP"
/* Endpoints per process, as the reference's smp conduit: the primordial endpoint only. */
#define GASNET_MAXEPS 1

#include <gex/gex_identity.h>

#endif /* GEX_CONDUIT_H */
