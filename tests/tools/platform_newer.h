/* tests/tools/platform_newer.h -- stands for a newer copy of
 * gasnet_portable_platform.h (version 99): an older copy included after it
 * must leave its definitions alone. */
#if !defined(PLATFORM_HEADER_VERSION) || (PLATFORM_HEADER_VERSION < 99)
#undef PLATFORM_HEADER_VERSION
#define PLATFORM_HEADER_VERSION 99
#define PLATFORM_COMPILER_FAMILYNAME NEWCOPY
#define PLATFORM_ARCH_FAMILYNAME NEWARCH
#endif
