/* tests/tools/platform_older.h -- stands for an older copy of
 * gasnet_portable_platform.h (version 0), with deliberately wrong values:
 * a newer copy included after it must replace all of them. */
#if !defined(PLATFORM_HEADER_VERSION)
#define PLATFORM_HEADER_VERSION 0
#define PLATFORM_COMPILER_FAMILYNAME OLDCOPY
#define PLATFORM_COMPILER_FAMILYID 99
#define PLATFORM_COMPILER_ID 99
#define PLATFORM_COMPILER_VERSION_STR "0.0.0-old"
#define PLATFORM_ARCH_FAMILYNAME OLDARCH
#define PLATFORM_OS_SUBFAMILY_CNL 1
#define PLATFORM_OS_SUBFAMILYNAME CNL
#endif
