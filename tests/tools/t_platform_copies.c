/* tests/tools/t_platform_copies.c -- several copies of
 * gasnet_portable_platform.h in one translation unit: the newest wins.
 *
 * Built three times (PLATFORM_CASE 1, 2, 3; PLATFORM_CASE_CURRENT_VERSION is
 * the header's version, PLATFORM_CASE_NEXT_VERSION that plus one):
 *  1: an older copy, then this one: every older definition is replaced;
 *  2: a newer copy, then this one: this one changes nothing;
 *  3: this one, then a copy of it with its version raised by one (generated
 *     by CMake): the copy takes over without a redefinition warning.
 * Prints "PASS t_platform_copies case N" when the values are as expected.
 */
#if PLATFORM_CASE == 1
  #include "platform_older.h"
  #include <gasnet_portable_platform.h>
  #if PLATFORM_HEADER_VERSION != PLATFORM_CASE_CURRENT_VERSION
    #error "the current copy did not take over from the older one"
  #endif
  #ifdef PLATFORM_OS_SUBFAMILY_CNL
    #error "a definition of the older copy survived"
  #endif
#elif PLATFORM_CASE == 2
  #include "platform_newer.h"
  #include <gasnet_portable_platform.h>
  #if PLATFORM_HEADER_VERSION != 99
    #error "the current copy replaced a newer one"
  #endif
#elif PLATFORM_CASE == 3
  #include <gasnet_portable_platform.h>
  #include <gasnet_portable_platform_next.h>
  #if PLATFORM_HEADER_VERSION != PLATFORM_CASE_NEXT_VERSION
    #error "the generated newer copy did not take over"
  #endif
#else
  #error "PLATFORM_CASE must be 1, 2 or 3"
#endif

#include <stdio.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)

int main(void) {
  const char *family = STR(PLATFORM_COMPILER_FAMILYNAME);
  const char *arch = STR(PLATFORM_ARCH_FAMILYNAME);
  int ok;
#if PLATFORM_CASE == 2
  ok = !strcmp(family, "NEWCOPY") && !strcmp(arch, "NEWARCH");
#else
  ok = strcmp(family, "OLDCOPY") && strcmp(arch, "OLDARCH") && PLATFORM_COMPILER_ID != 99 &&
       strcmp(PLATFORM_COMPILER_VERSION_STR, "0.0.0-old");
  printf("compiler %s (id %d), arch %s\n", PLATFORM_COMPILER_IDSTR, PLATFORM_COMPILER_ID, arch);
#endif
  if (!ok) {
    printf("FAIL t_platform_copies case %d: family %s arch %s\n", PLATFORM_CASE, family, arch);
    return 1;
  }
  printf("PASS t_platform_copies case %d\n", PLATFORM_CASE);
  return 0;
}
