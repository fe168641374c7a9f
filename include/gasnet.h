/* gasnet.h -- libgex: the GASNet-1 API.
 *
 * Includes gasnetex.h (where the GASNet-1 calls kept by GASNet-EX live:
 * gasnet_exit, gasnet_AMPoll, GASNET_BLOCKUNTIL, gasnet_mynode/gasnet_nodes,
 * gasnet_QueryGexObjects, error names, gasnet_hsl_*, and the split-phase
 * barrier of gex/gex_gasnet1.h) and the rest of the GASNet-1 API
 * (gex/gex_legacy.h: init/attach, RMA, AM), and, as the reference's does,
 * the tools API (gasnet_tools.h).  See docs/legacy.md.
 */
#ifndef GASNET_H
#define GASNET_H
#define _INCLUDED_GASNET_H 1
#include <gasnetex.h>
#include <gex/gex_legacy.h>
#include <gasnet_tools.h>
#endif
