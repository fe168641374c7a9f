// What Legion/Realm's gasnetex wrapper does before and after including the
// GASNet headers: it defines GASNET_PAR with no value, tests it with #if
// later on, and takes the addresses of two file-local helpers of the
// reference's gasnet_tools.h to silence "unused" warnings about them.
#ifndef GASNET_PAR
#define GASNET_PAR
#endif
#include <gasnetex.h>
#include <gasnet_tools.h>

#if !GASNET_PAR
#error "GASNET_PAR must be 1 once gasnetex.h is included"
#endif

__attribute__((unused)) static const void *unused1 = (void *)_gasneti_threadkey_init;
__attribute__((unused)) static const void *unused2 = (void *)_gasnett_trace_printf_noop;

int realm_prologue_use(void) { return GASNET_MAXEPS; }
