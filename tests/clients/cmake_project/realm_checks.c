/* What Realm's gasnetex module requires of the GASNet-EX it is built
 * against, checked at compile time with the flags FindGASNet.cmake found. */
#include <gasnetex.h>

#ifndef GASNET_PAR
#error "the gasnetex module needs GASNET_PAR"
#endif

#if (defined(GASNET_CONDUIT_SMP) + defined(GASNET_CONDUIT_UDP) + defined(GASNET_CONDUIT_MPI) + \
     defined(GASNET_CONDUIT_IBV) + defined(GASNET_CONDUIT_ARIES) + defined(GASNET_CONDUIT_UCX) + \
     defined(GASNET_CONDUIT_OFI)) != 1
#error "exactly one GASNET_CONDUIT_<NAME> must be defined"
#endif

#if GEX_SPEC_VERSION_MAJOR == 0 && GEX_SPEC_VERSION_MINOR < 14
#error "GASNet-EX spec 0.14 or later is needed"
#endif

const char *realm_checks_conduit(void) { return GASNET_CONDUIT_NAME_STR; }
