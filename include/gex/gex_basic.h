/* gex/gex_basic.h -- libgex: basic portability definitions shared by
 * gasnetex.h and gasnet_tools.h (clients of either may use them).
 *
 * Format specifiers for size_t (PRIuSZ and friends, next to <inttypes.h>'s
 * PRIu64...), the sizes of the basic types as configure-style SIZEOF_*
 * constants, and <limits.h>, as the reference's headers provide them.
 */
#ifndef GEX_BASIC_H
#define GEX_BASIC_H

#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#ifndef PRIuSZ
#define PRIuSZ "zu"
#endif
#ifndef PRIdSZ
#define PRIdSZ "zd"
#endif
#ifndef PRIxSZ
#define PRIxSZ "zx"
#endif
#ifndef PRIXSZ
#define PRIXSZ "zX"
#endif

/* The compiler's own sizes (GCC and Clang predefine __SIZEOF_<T>__). */
#if defined(__SIZEOF_INT__) && !defined(SIZEOF_INT)
#define SIZEOF_CHAR 1
#define SIZEOF_SHORT __SIZEOF_SHORT__
#define SIZEOF_INT __SIZEOF_INT__
#define SIZEOF_LONG __SIZEOF_LONG__
#define SIZEOF_LONG_LONG __SIZEOF_LONG_LONG__
#define SIZEOF_VOID_P __SIZEOF_POINTER__
#define SIZEOF_SIZE_T __SIZEOF_SIZE_T__
#define SIZEOF_PTRDIFF_T __SIZEOF_PTRDIFF_T__
#define SIZEOF_FLOAT __SIZEOF_FLOAT__
#define SIZEOF_DOUBLE __SIZEOF_DOUBLE__
#define SIZEOF_LONG_DOUBLE __SIZEOF_LONG_DOUBLE__
#endif

#endif /* GEX_BASIC_H */
