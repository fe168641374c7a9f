/* legacy/legacy.h -- internals of the GASNet-1 layer.
 *
 * The layer is built on the public GASNet-EX API (<gasnetex.h>,
 * <gasnet_coll.h>) plus the hooks of core/hooks.h; it never reads the
 * core's context.  Its own state is the one structure gexl_ctx
 * (gex/gex_gasnet1.h).  Files: context.c (the context and the client-init
 * hook), init.c (gasnet_init/attach and the segment and node queries),
 * rma.c (value Get handles, memset), barrier.c (the split-phase barrier),
 * misc.c (wait mode, environment).
 */
#ifndef GEXL_LEGACY_H
#define GEXL_LEGACY_H

#include <gasnet.h>
#include <gasnet_coll.h>
#include <stdio.h>

/* Print "libgex: rank R: <fn>: <msg>" and end the job with status 1
 * (misuse of a GASNet-1 call that cannot return an error). */
#ifdef __GNUC__
__attribute__((noreturn, format(printf, 2, 3)))
#endif
void gexl_fatal(const char *fn, const char *fmt, ...);

/* The primordial team, or a fatal error naming 'fn' when no client exists. */
gex_TM_t gexl_team(const char *fn);

#endif
