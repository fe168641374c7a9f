/* identity/conduit_identity.c -- compiled once per conduit identity, with
 * GEXI_CONDUIT set to its name ("ofi": libgex, libgasnet-ofi-*; "smp":
 * libgasnet-smp-*; "udp": libgasnet-udp-*), into an object of its own that
 * each library adds to the objects they all share (see identity.h and the
 * top-level CMakeLists.txt).  It holds no state: the identity is a property
 * of the library file. */
#include <string.h>

#include "identity/identity.h"

#ifndef GEXI_CONDUIT
#error "compile identity/conduit_identity.c with -DGEXI_CONDUIT=\"ofi\", \"smp\" or \"udp\""
#endif

const char *gexi_conduit_name(void) { return GEXI_CONDUIT; }
int gexi_conduit_is_smp(void) { return strcmp(GEXI_CONDUIT, "smp") == 0; }
int gexi_conduit_one_ep(void) { return strcmp(GEXI_CONDUIT, "ofi") != 0; }
