/* identity/conduit_identity.c -- compiled once per conduit identity, with
 * GEXI_CONDUIT_SMP set to 0 (ofi: libgex, libgasnet-ofi-*) or 1 (smp:
 * libgasnet-smp-*), into an object of its own that each library adds to the
 * objects they all share (see identity.h and the top-level CMakeLists.txt).
 * It holds no state: the identity is a property of the library file. */
#include "identity/identity.h"

#ifndef GEXI_CONDUIT_SMP
#error "compile identity/conduit_identity.c with -DGEXI_CONDUIT_SMP=0 or 1"
#endif

const char *gexi_conduit_name(void) { return GEXI_CONDUIT_SMP ? "smp" : "ofi"; }
int gexi_conduit_is_smp(void) { return GEXI_CONDUIT_SMP; }
