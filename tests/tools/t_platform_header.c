/* tests/tools/t_platform_header.c -- gasnet_portable_platform.h alone, for
 * the strict compile tests (C89 -pedantic, C++ -pedantic). */
#include <gasnet_portable_platform.h>
#include <gasnet_portable_platform.h>

int platform_header_id = PLATFORM_COMPILER_ID;
const char *platform_header_idstr = PLATFORM_COMPILER_IDSTR;
#if PLATFORM_COMPILER_VERSION_GE(1, 0, 0) || PLATFORM_COMPILER_VERSION_LT(1, 0, 0) || \
    PLATFORM_COMPILER_VERSION_EQ(0, 0, 0)
int platform_header_version_known = 1;
#endif
