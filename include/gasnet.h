/* gasnet.h -- libgex: the GASNet-1 names kept by GASNet-EX.
 *
 * Includes gasnetex.h, where the kept GASNet-1 calls (gasnet_exit,
 * gasnet_AMPoll, GASNET_BLOCKUNTIL, gasnet_mynode/gasnet_nodes,
 * gasnet_QueryGexObjects, error names, gasnet_hsl_*) are declared.
 */
#ifndef GASNET_H
#define GASNET_H
#include <gasnetex.h>
#endif
