/* gex/gex_identity.h -- what every conduit identity has in common.
 *
 * Included by <ofi-conduit/gex_conduit.h>, <smp-conduit/gex_conduit.h> and
 * <udp-conduit/gex_conduit.h> after they have defined GASNET_CONDUIT_<NAME>,
 * GASNET_CONDUIT_NAME(_STR) and GASNET_CORE_NAME(_STR); gasnetex.h includes
 * the identity after its version macros and thread-model default, which
 * GASNET_CONFIG_STRING and the ident strings below use.
 *
 * Ident strings: a client that includes gasnetex.h carries
 * "$GASNetConduitName: <NAME> $", "$GASNetThreadModel: GASNET_<MODEL> $"
 * and "$GASNetConfig: ... $" in its executable, once (`strings prog | grep
 * GASNetConduitName`); launchers such as UPC++'s find the conduit and the
 * thread model that way.
 * The library's own objects carry none (a statically linked program must
 * carry one name only); the libraries of the identities differ in one
 * object that is not a string (src/identity/), read at run time. */
#ifndef GEX_IDENTITY_H
#define GEX_IDENTITY_H

#include <stdint.h>
#include <gex/gex_config.h>

#if !defined(GASNET_CONDUIT_NAME_STR) || !defined(GASNET_CORE_NAME_STR)
#error "gex/gex_identity.h is included by a <conduit>-conduit/gex_conduit.h header"
#endif

/* The conduit's core and extended API versions (same values as the
 * reference implementation's). */
#define GASNET_CORE_VERSION 2
#define GASNET_EXTENDED_VERSION 2

#define GEXI_IDENT_STR_(x) #x
#define GEXI_IDENT_STR(x) GEXI_IDENT_STR_(x)

/* The thread model as compiled into this translation unit (gasnetex.h
 * makes GASNET_PAR the default when none is defined). */
#if defined(GASNET_SEQ)
#define GEXI_THREADMODEL_STR "SEQ"
#elif defined(GASNET_PARSYNC)
#define GEXI_THREADMODEL_STR "PARSYNC"
#else
#define GEXI_THREADMODEL_STR "PAR"
#endif

#if UINTPTR_MAX > 0xFFFFFFFFu
#define GEXI_PTR_BITS_STR "64"
#else
#define GEXI_PTR_BITS_STR "32"
#endif

#if GEX_CHECKS
#define GEXI_CHECKS_STR "checks"
#else
#define GEXI_CHECKS_STR "nochecks"
#endif

/* The build's configuration as one string, in the shape the reference
 * uses (comma-separated KEY=VALUE and flag words); the content is libgex's.
 * "nodebug": libgex has no separate debug build of its API (misuse checks
 * are the "checks" word). */
#define GASNET_CONFIG_STRING                                                        \
  "RELEASE=" GEXI_IDENT_STR(GASNET_RELEASE_VERSION_MAJOR) "."                      \
  GEXI_IDENT_STR(GASNET_RELEASE_VERSION_MINOR) "."                                 \
  GEXI_IDENT_STR(GASNET_RELEASE_VERSION_PATCH)                                     \
  ",SPEC=" GEXI_IDENT_STR(GEX_SPEC_VERSION_MAJOR) "." GEXI_IDENT_STR(GEX_SPEC_VERSION_MINOR) \
  ",CONDUIT=" GASNET_CONDUIT_NAME_STR "(" GASNET_CORE_NAME_STR "-"                 \
  GEXI_IDENT_STR(GASNET_CORE_VERSION) ".0/" GASNET_CORE_NAME_STR "-"              \
  GEXI_IDENT_STR(GASNET_EXTENDED_VERSION) ".0)"                                    \
  ",THREADMODEL=" GEXI_THREADMODEL_STR ",SEGMENT=FAST,PTR=" GEXI_PTR_BITS_STR "bit" \
  ",noalign,pshm,nodebug,notrace,nostats," GEXI_CHECKS_STR ",libgex"

#if !defined(GEXI_BUILDING_LIBRARY)
#define GEXI_IDENT_CONDUIT "$GASNetConduitName: " GASNET_CONDUIT_NAME_STR " $"
#define GEXI_IDENT_MODEL "$GASNetThreadModel: GASNET_" GEXI_THREADMODEL_STR " $"
#define GEXI_IDENT_CONFIG "$GASNetConfig: (libgex) " GASNET_CONFIG_STRING " $"
#if defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
/* One copy per program, however many of its translation units include
 * this: the strings go into a COMDAT section group, of which the linker
 * keeps one (a launcher that lists every match, as UPC++'s build-directory
 * upcxx-run does, must see one conduit name).  In the executable itself,
 * not in the shared library, where `strings prog` would not see them. */
__asm__(".ifndef gexi_ident_emitted\n\t" /* once per object, also when LTO joins units */
        ".set gexi_ident_emitted, 1\n\t"
        ".pushsection .rodata.gexi_ident,\"aG\",@progbits,gexi_ident,comdat\n\t"
        ".asciz \"" GEXI_IDENT_CONDUIT "\"\n\t"
        ".asciz \"" GEXI_IDENT_MODEL "\"\n\t"
        ".asciz \"" GEXI_IDENT_CONFIG "\"\n\t"
        ".popsection\n\t"
        ".endif");
#else
/* Elsewhere: one copy per translation unit. */
#if defined(__GNUC__) || defined(__clang__)
#define GEXI_IDENT_USED __attribute__((__used__))
#else
#define GEXI_IDENT_USED
#endif
GEXI_IDENT_USED static const char gexi_ident_conduit_name[] = GEXI_IDENT_CONDUIT;
GEXI_IDENT_USED static const char gexi_ident_thread_model[] = GEXI_IDENT_MODEL;
GEXI_IDENT_USED static const char gexi_ident_config[] = GEXI_IDENT_CONFIG;
#endif
#endif

#endif /* GEX_IDENTITY_H */
