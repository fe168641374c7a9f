/* gasnet_portable_platform.h -- libgex: uniform names for the compiler, the
 * CPU architecture and the operating system a translation unit is built for.
 *
 * After inclusion, for the platform in use (each name is defined only when
 * it is true, as 1, so both #if and #ifdef work):
 *
 *   PLATFORM_COMPILER_<FAMILY>      GNU, CLANG, INTEL, NVHPC, PGI, CRAY,
 *                                   MICROSOFT, UNKNOWN; and _C or _CXX after it
 *                                   (e.g. PLATFORM_COMPILER_GNU_CXX) for the
 *                                   language being compiled
 *   PLATFORM_COMPILER_FAMILYNAME    the family as a bare token (GNU, CLANG, ...)
 *   PLATFORM_COMPILER_FAMILYID      a small integer per family (table below)
 *   PLATFORM_COMPILER_ID            FAMILYID, plus 1000 when compiling C++
 *   PLATFORM_COMPILER_VERSION       the version, encoded by VERSION_INT
 *   PLATFORM_COMPILER_VERSION_STR   the version as a string, "12.2.0"
 *   PLATFORM_COMPILER_VERSION_INT(maj,min,pat)  encodes a version (min and
 *                                   pat must be below 256)
 *   PLATFORM_COMPILER_VERSION_GT/GE/EQ/LT/LE(maj,min,pat)  compare the
 *                                   compiler's version with the one given
 *                                   (always false for an unknown compiler)
 *   PLATFORM_COMPILER_IDSTR         "family/version/language", e.g.
 *                                   "GNU/12.2.0/C(201112L)"
 *   PLATFORM_COMPILER_C_LANGLVL     __STDC_VERSION__ (198900L for C89), C only
 *   PLATFORM_COMPILER_CXX_LANGLVL   __cplusplus, C++ only
 *
 *   PLATFORM_ARCH_<NAME>            X86_64, X86, AARCH64, ARM, POWERPC,
 *                                   RISCV, S390, LOONGARCH64, MIPS, SPARC,
 *                                   IA64, UNKNOWN
 *   PLATFORM_ARCH_FAMILYNAME        the architecture as a bare token
 *   PLATFORM_ARCH_32 or PLATFORM_ARCH_64            pointer width
 *   PLATFORM_ARCH_LITTLE_ENDIAN or PLATFORM_ARCH_BIG_ENDIAN
 *
 *   PLATFORM_OS_<NAME>              LINUX, DARWIN, FREEBSD, NETBSD, OPENBSD,
 *                                   CYGWIN, MSWINDOWS, SOLARIS, AIX, UNKNOWN
 *   PLATFORM_OS_FAMILYNAME          the operating system as a bare token
 *   PLATFORM_OS_SUBFAMILY_<NAME>    a distinguishable variant: CNL (Cray
 *                                   Linux compute nodes), ANDROID
 *   PLATFORM_OS_SUBFAMILYNAME       its bare token, when one is defined
 *
 * Several copies of this header, possibly of different versions, may be
 * included in one translation unit (a library may ship its own copy).  Each
 * copy carries a version in PLATFORM_HEADER_VERSION: a copy does nothing if
 * an equal or newer copy came first; otherwise it undefines every name any
 * version of this header has defined and defines them afresh.
 *
 * INVARIANT (for maintainers): the #undef list below must name every macro
 * any version ever defined; names may be added, never removed, and
 * PLATFORM_HEADER_VERSION must grow with each change.  A test checks that
 * every #define in this file has its #undef.
 *
 * Written in C89 (no // comments, no variadic macros, no long long) so it
 * compiles under -ansi -pedantic.
 *
 * Family ids: GNU 1, CLANG 2, INTEL 3, NVHPC 4, PGI 5, CRAY 6, MICROSOFT 7,
 * UNKNOWN 0.
 */
#if !defined(PLATFORM_HEADER_VERSION) || (PLATFORM_HEADER_VERSION < 1)

/* ---- forget whatever an older copy defined ------------------------------- */
#undef PLATFORM_HEADER_VERSION
#undef PLATFORM_HELPER_STR
#undef PLATFORM_HELPER_STR_
#undef PLATFORM_HELPER_LANG
#undef PLATFORM_COMPILER_GNU
#undef PLATFORM_COMPILER_GNU_C
#undef PLATFORM_COMPILER_GNU_CXX
#undef PLATFORM_COMPILER_CLANG
#undef PLATFORM_COMPILER_CLANG_C
#undef PLATFORM_COMPILER_CLANG_CXX
#undef PLATFORM_COMPILER_INTEL
#undef PLATFORM_COMPILER_INTEL_C
#undef PLATFORM_COMPILER_INTEL_CXX
#undef PLATFORM_COMPILER_NVHPC
#undef PLATFORM_COMPILER_NVHPC_C
#undef PLATFORM_COMPILER_NVHPC_CXX
#undef PLATFORM_COMPILER_PGI
#undef PLATFORM_COMPILER_PGI_C
#undef PLATFORM_COMPILER_PGI_CXX
#undef PLATFORM_COMPILER_CRAY
#undef PLATFORM_COMPILER_CRAY_C
#undef PLATFORM_COMPILER_CRAY_CXX
#undef PLATFORM_COMPILER_MICROSOFT
#undef PLATFORM_COMPILER_MICROSOFT_C
#undef PLATFORM_COMPILER_MICROSOFT_CXX
#undef PLATFORM_COMPILER_UNKNOWN
#undef PLATFORM_COMPILER_UNKNOWN_C
#undef PLATFORM_COMPILER_UNKNOWN_CXX
#undef PLATFORM_COMPILER_FAMILYNAME
#undef PLATFORM_COMPILER_FAMILYID
#undef PLATFORM_COMPILER_ID
#undef PLATFORM_COMPILER_IDSTR
#undef PLATFORM_COMPILER_VERSION
#undef PLATFORM_COMPILER_VERSION_STR
#undef PLATFORM_COMPILER_VERSION_INT
#undef PLATFORM_COMPILER_VERSION_GT
#undef PLATFORM_COMPILER_VERSION_GE
#undef PLATFORM_COMPILER_VERSION_EQ
#undef PLATFORM_COMPILER_VERSION_LT
#undef PLATFORM_COMPILER_VERSION_LE
#undef PLATFORM_COMPILER_C_LANGLVL
#undef PLATFORM_COMPILER_CXX_LANGLVL
#undef PLATFORM_ARCH_X86_64
#undef PLATFORM_ARCH_X86
#undef PLATFORM_ARCH_AARCH64
#undef PLATFORM_ARCH_ARM
#undef PLATFORM_ARCH_POWERPC
#undef PLATFORM_ARCH_RISCV
#undef PLATFORM_ARCH_S390
#undef PLATFORM_ARCH_LOONGARCH64
#undef PLATFORM_ARCH_MIPS
#undef PLATFORM_ARCH_SPARC
#undef PLATFORM_ARCH_IA64
#undef PLATFORM_ARCH_UNKNOWN
#undef PLATFORM_ARCH_FAMILYNAME
#undef PLATFORM_ARCH_32
#undef PLATFORM_ARCH_64
#undef PLATFORM_ARCH_LITTLE_ENDIAN
#undef PLATFORM_ARCH_BIG_ENDIAN
#undef PLATFORM_OS_LINUX
#undef PLATFORM_OS_DARWIN
#undef PLATFORM_OS_FREEBSD
#undef PLATFORM_OS_NETBSD
#undef PLATFORM_OS_OPENBSD
#undef PLATFORM_OS_CYGWIN
#undef PLATFORM_OS_MSWINDOWS
#undef PLATFORM_OS_SOLARIS
#undef PLATFORM_OS_AIX
#undef PLATFORM_OS_UNKNOWN
#undef PLATFORM_OS_FAMILYNAME
#undef PLATFORM_OS_SUBFAMILY_CNL
#undef PLATFORM_OS_SUBFAMILY_ANDROID
#undef PLATFORM_OS_SUBFAMILYNAME

#define PLATFORM_HEADER_VERSION 1

#define PLATFORM_HELPER_STR_(x) #x
#define PLATFORM_HELPER_STR(x) PLATFORM_HELPER_STR_(x)

/* ---- compiler --------------------------------------------------------------
 * Order matters: Intel's icx, NVHPC, recent Cray compilers and clang itself
 * all define __GNUC__, and icx and Cray also define __clang__. */
#if defined(__INTEL_LLVM_COMPILER)
  #define PLATFORM_COMPILER_INTEL 1
  #define PLATFORM_COMPILER_FAMILYNAME INTEL
  #define PLATFORM_COMPILER_FAMILYID 3
  /* __INTEL_LLVM_COMPILER is YYYYMMPP (e.g. 20240002: 2024.0.2) */
  #define PLATFORM_COMPILER_VERSION \
    PLATFORM_COMPILER_VERSION_INT(__INTEL_LLVM_COMPILER / 10000, \
                                  (__INTEL_LLVM_COMPILER / 100) % 100, \
                                  __INTEL_LLVM_COMPILER % 100)
  #define PLATFORM_COMPILER_VERSION_STR PLATFORM_HELPER_STR(__INTEL_LLVM_COMPILER)
#elif defined(__INTEL_COMPILER)
  #define PLATFORM_COMPILER_INTEL 1
  #define PLATFORM_COMPILER_FAMILYNAME INTEL
  #define PLATFORM_COMPILER_FAMILYID 3
  #if defined(__INTEL_COMPILER_UPDATE)
    #define PLATFORM_COMPILER_VERSION \
      PLATFORM_COMPILER_VERSION_INT(__INTEL_COMPILER / 100, \
                                    (__INTEL_COMPILER / 10) % 10, __INTEL_COMPILER_UPDATE)
  #else
    #define PLATFORM_COMPILER_VERSION \
      PLATFORM_COMPILER_VERSION_INT(__INTEL_COMPILER / 100, (__INTEL_COMPILER / 10) % 10, 0)
  #endif
  #define PLATFORM_COMPILER_VERSION_STR PLATFORM_HELPER_STR(__INTEL_COMPILER)
#elif defined(__NVCOMPILER)
  #define PLATFORM_COMPILER_NVHPC 1
  #define PLATFORM_COMPILER_FAMILYNAME NVHPC
  #define PLATFORM_COMPILER_FAMILYID 4
  #define PLATFORM_COMPILER_VERSION \
    PLATFORM_COMPILER_VERSION_INT(__NVCOMPILER_MAJOR__, __NVCOMPILER_MINOR__, \
                                  __NVCOMPILER_PATCHLEVEL__)
  #define PLATFORM_COMPILER_VERSION_STR \
    PLATFORM_HELPER_STR(__NVCOMPILER_MAJOR__) "." PLATFORM_HELPER_STR(__NVCOMPILER_MINOR__) \
    "." PLATFORM_HELPER_STR(__NVCOMPILER_PATCHLEVEL__)
#elif defined(__PGI)
  #define PLATFORM_COMPILER_PGI 1
  #define PLATFORM_COMPILER_FAMILYNAME PGI
  #define PLATFORM_COMPILER_FAMILYID 5
  #define PLATFORM_COMPILER_VERSION \
    PLATFORM_COMPILER_VERSION_INT(__PGIC__, __PGIC_MINOR__, __PGIC_PATCHLEVEL__)
  #define PLATFORM_COMPILER_VERSION_STR \
    PLATFORM_HELPER_STR(__PGIC__) "." PLATFORM_HELPER_STR(__PGIC_MINOR__) "." \
    PLATFORM_HELPER_STR(__PGIC_PATCHLEVEL__)
#elif defined(_CRAYC) || defined(__cray__)
  #define PLATFORM_COMPILER_CRAY 1
  #define PLATFORM_COMPILER_FAMILYNAME CRAY
  #define PLATFORM_COMPILER_FAMILYID 6
  #if defined(_RELEASE_MAJOR) && defined(_RELEASE_MINOR)
    #define PLATFORM_COMPILER_VERSION \
      PLATFORM_COMPILER_VERSION_INT(_RELEASE_MAJOR, _RELEASE_MINOR, 0)
    #define PLATFORM_COMPILER_VERSION_STR \
      PLATFORM_HELPER_STR(_RELEASE_MAJOR) "." PLATFORM_HELPER_STR(_RELEASE_MINOR)
  #elif defined(__cray_major__) && defined(__cray_minor__) && defined(__cray_patchlevel__)
    #define PLATFORM_COMPILER_VERSION \
      PLATFORM_COMPILER_VERSION_INT(__cray_major__, __cray_minor__, __cray_patchlevel__)
    #define PLATFORM_COMPILER_VERSION_STR \
      PLATFORM_HELPER_STR(__cray_major__) "." PLATFORM_HELPER_STR(__cray_minor__) "." \
      PLATFORM_HELPER_STR(__cray_patchlevel__)
  #else
    #define PLATFORM_COMPILER_VERSION 0
    #define PLATFORM_COMPILER_VERSION_STR "unknown"
  #endif
#elif defined(__clang__)
  #define PLATFORM_COMPILER_CLANG 1
  #define PLATFORM_COMPILER_FAMILYNAME CLANG
  #define PLATFORM_COMPILER_FAMILYID 2
  #define PLATFORM_COMPILER_VERSION \
    PLATFORM_COMPILER_VERSION_INT(__clang_major__, __clang_minor__, __clang_patchlevel__)
  #define PLATFORM_COMPILER_VERSION_STR \
    PLATFORM_HELPER_STR(__clang_major__) "." PLATFORM_HELPER_STR(__clang_minor__) "." \
    PLATFORM_HELPER_STR(__clang_patchlevel__)
#elif defined(__GNUC__)
  #define PLATFORM_COMPILER_GNU 1
  #define PLATFORM_COMPILER_FAMILYNAME GNU
  #define PLATFORM_COMPILER_FAMILYID 1
  #if defined(__GNUC_PATCHLEVEL__)
    #define PLATFORM_COMPILER_VERSION \
      PLATFORM_COMPILER_VERSION_INT(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__)
    #define PLATFORM_COMPILER_VERSION_STR \
      PLATFORM_HELPER_STR(__GNUC__) "." PLATFORM_HELPER_STR(__GNUC_MINOR__) "." \
      PLATFORM_HELPER_STR(__GNUC_PATCHLEVEL__)
  #else
    #define PLATFORM_COMPILER_VERSION PLATFORM_COMPILER_VERSION_INT(__GNUC__, __GNUC_MINOR__, 0)
    #define PLATFORM_COMPILER_VERSION_STR \
      PLATFORM_HELPER_STR(__GNUC__) "." PLATFORM_HELPER_STR(__GNUC_MINOR__)
  #endif
#elif defined(_MSC_VER)
  #define PLATFORM_COMPILER_MICROSOFT 1
  #define PLATFORM_COMPILER_FAMILYNAME MICROSOFT
  #define PLATFORM_COMPILER_FAMILYID 7
  /* _MSC_VER is MMNN (e.g. 1938: 19.38) */
  #define PLATFORM_COMPILER_VERSION \
    PLATFORM_COMPILER_VERSION_INT(_MSC_VER / 100, _MSC_VER % 100, 0)
  #define PLATFORM_COMPILER_VERSION_STR PLATFORM_HELPER_STR(_MSC_VER)
#else
  #define PLATFORM_COMPILER_UNKNOWN 1
  #define PLATFORM_COMPILER_FAMILYNAME UNKNOWN
  #define PLATFORM_COMPILER_FAMILYID 0
  #define PLATFORM_COMPILER_VERSION 0
  #define PLATFORM_COMPILER_VERSION_STR "unknown"
#endif

/* The version encoding: 16 bits of major, 8 of minor, 8 of patch (fits in
 * an int for any major below 32768). */
#define PLATFORM_COMPILER_VERSION_INT(maj, min, pat) (((maj) << 16) | ((min) << 8) | (pat))
#define PLATFORM_COMPILER_VERSION_GT(maj, min, pat) \
  (PLATFORM_COMPILER_VERSION > PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_GE(maj, min, pat) \
  (PLATFORM_COMPILER_VERSION >= PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_EQ(maj, min, pat) \
  (PLATFORM_COMPILER_VERSION == PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
/* An unknown compiler (version 0) is never "older than" anything either. */
#define PLATFORM_COMPILER_VERSION_LT(maj, min, pat) \
  (PLATFORM_COMPILER_VERSION != 0 && \
   PLATFORM_COMPILER_VERSION < PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_LE(maj, min, pat) \
  (PLATFORM_COMPILER_VERSION != 0 && \
   PLATFORM_COMPILER_VERSION <= PLATFORM_COMPILER_VERSION_INT(maj, min, pat))

/* ---- language -------------------------------------------------------------- */
#if defined(__cplusplus)
  #define PLATFORM_COMPILER_CXX_LANGLVL __cplusplus
  #define PLATFORM_COMPILER_ID (PLATFORM_COMPILER_FAMILYID + 1000)
  #define PLATFORM_HELPER_LANG "C++(" PLATFORM_HELPER_STR(__cplusplus) ")"
  #if defined(PLATFORM_COMPILER_GNU)
    #define PLATFORM_COMPILER_GNU_CXX 1
  #elif defined(PLATFORM_COMPILER_CLANG)
    #define PLATFORM_COMPILER_CLANG_CXX 1
  #elif defined(PLATFORM_COMPILER_INTEL)
    #define PLATFORM_COMPILER_INTEL_CXX 1
  #elif defined(PLATFORM_COMPILER_NVHPC)
    #define PLATFORM_COMPILER_NVHPC_CXX 1
  #elif defined(PLATFORM_COMPILER_PGI)
    #define PLATFORM_COMPILER_PGI_CXX 1
  #elif defined(PLATFORM_COMPILER_CRAY)
    #define PLATFORM_COMPILER_CRAY_CXX 1
  #elif defined(PLATFORM_COMPILER_MICROSOFT)
    #define PLATFORM_COMPILER_MICROSOFT_CXX 1
  #else
    #define PLATFORM_COMPILER_UNKNOWN_CXX 1
  #endif
#else
  #if defined(__STDC_VERSION__)
    #define PLATFORM_COMPILER_C_LANGLVL __STDC_VERSION__
    #define PLATFORM_HELPER_LANG "C(" PLATFORM_HELPER_STR(__STDC_VERSION__) ")"
  #else
    #define PLATFORM_COMPILER_C_LANGLVL 198900L
    #define PLATFORM_HELPER_LANG "C(198900L)"
  #endif
  #define PLATFORM_COMPILER_ID PLATFORM_COMPILER_FAMILYID
  #if defined(PLATFORM_COMPILER_GNU)
    #define PLATFORM_COMPILER_GNU_C 1
  #elif defined(PLATFORM_COMPILER_CLANG)
    #define PLATFORM_COMPILER_CLANG_C 1
  #elif defined(PLATFORM_COMPILER_INTEL)
    #define PLATFORM_COMPILER_INTEL_C 1
  #elif defined(PLATFORM_COMPILER_NVHPC)
    #define PLATFORM_COMPILER_NVHPC_C 1
  #elif defined(PLATFORM_COMPILER_PGI)
    #define PLATFORM_COMPILER_PGI_C 1
  #elif defined(PLATFORM_COMPILER_CRAY)
    #define PLATFORM_COMPILER_CRAY_C 1
  #elif defined(PLATFORM_COMPILER_MICROSOFT)
    #define PLATFORM_COMPILER_MICROSOFT_C 1
  #else
    #define PLATFORM_COMPILER_UNKNOWN_C 1
  #endif
#endif

#define PLATFORM_COMPILER_IDSTR \
  PLATFORM_HELPER_STR(PLATFORM_COMPILER_FAMILYNAME) "/" PLATFORM_COMPILER_VERSION_STR \
  "/" PLATFORM_HELPER_LANG

/* ---- architecture ---------------------------------------------------------- */
#if defined(__x86_64__) || defined(__x86_64) || defined(__amd64__) || defined(_M_X64)
  #define PLATFORM_ARCH_X86_64 1
  #define PLATFORM_ARCH_FAMILYNAME X86_64
#elif defined(__i386__) || defined(__i386) || defined(_M_IX86)
  #define PLATFORM_ARCH_X86 1
  #define PLATFORM_ARCH_FAMILYNAME X86
#elif defined(__aarch64__) || defined(_M_ARM64)
  #define PLATFORM_ARCH_AARCH64 1
  #define PLATFORM_ARCH_FAMILYNAME AARCH64
#elif defined(__arm__) || defined(_M_ARM)
  #define PLATFORM_ARCH_ARM 1
  #define PLATFORM_ARCH_FAMILYNAME ARM
#elif defined(__powerpc__) || defined(__powerpc64__) || defined(__ppc__) || defined(__PPC__)
  #define PLATFORM_ARCH_POWERPC 1
  #define PLATFORM_ARCH_FAMILYNAME POWERPC
#elif defined(__riscv)
  #define PLATFORM_ARCH_RISCV 1
  #define PLATFORM_ARCH_FAMILYNAME RISCV
#elif defined(__s390__) || defined(__s390x__)
  #define PLATFORM_ARCH_S390 1
  #define PLATFORM_ARCH_FAMILYNAME S390
#elif defined(__loongarch64)
  #define PLATFORM_ARCH_LOONGARCH64 1
  #define PLATFORM_ARCH_FAMILYNAME LOONGARCH64
#elif defined(__mips__) || defined(__mips)
  #define PLATFORM_ARCH_MIPS 1
  #define PLATFORM_ARCH_FAMILYNAME MIPS
#elif defined(__sparc__) || defined(__sparc)
  #define PLATFORM_ARCH_SPARC 1
  #define PLATFORM_ARCH_FAMILYNAME SPARC
#elif defined(__ia64__) || defined(__ia64)
  #define PLATFORM_ARCH_IA64 1
  #define PLATFORM_ARCH_FAMILYNAME IA64
#else
  #define PLATFORM_ARCH_UNKNOWN 1
  #define PLATFORM_ARCH_FAMILYNAME UNKNOWN
#endif

/* pointer width */
#if defined(__SIZEOF_POINTER__)
  #if __SIZEOF_POINTER__ == 8
    #define PLATFORM_ARCH_64 1
  #else
    #define PLATFORM_ARCH_32 1
  #endif
#elif defined(_LP64) || defined(__LP64__) || defined(_WIN64)
  #define PLATFORM_ARCH_64 1
#else
  #define PLATFORM_ARCH_32 1
#endif

/* byte order */
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && defined(__ORDER_LITTLE_ENDIAN__)
  #if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    #define PLATFORM_ARCH_BIG_ENDIAN 1
  #else
    #define PLATFORM_ARCH_LITTLE_ENDIAN 1
  #endif
#elif defined(__BIG_ENDIAN__) || defined(_BIG_ENDIAN) || defined(__ARMEB__) || \
      defined(__MIPSEB__) || defined(PLATFORM_ARCH_SPARC) || defined(PLATFORM_ARCH_S390)
  #define PLATFORM_ARCH_BIG_ENDIAN 1
#else
  #define PLATFORM_ARCH_LITTLE_ENDIAN 1
#endif

/* ---- operating system ------------------------------------------------------ */
#if defined(__linux__) || defined(__linux)
  #define PLATFORM_OS_LINUX 1
  #define PLATFORM_OS_FAMILYNAME LINUX
  #if defined(__CRAYXT_COMPUTE_LINUX_TARGET)
    #define PLATFORM_OS_SUBFAMILY_CNL 1
    #define PLATFORM_OS_SUBFAMILYNAME CNL
  #elif defined(__ANDROID__)
    #define PLATFORM_OS_SUBFAMILY_ANDROID 1
    #define PLATFORM_OS_SUBFAMILYNAME ANDROID
  #endif
#elif defined(__APPLE__) && defined(__MACH__)
  #define PLATFORM_OS_DARWIN 1
  #define PLATFORM_OS_FAMILYNAME DARWIN
#elif defined(__FreeBSD__)
  #define PLATFORM_OS_FREEBSD 1
  #define PLATFORM_OS_FAMILYNAME FREEBSD
#elif defined(__NetBSD__)
  #define PLATFORM_OS_NETBSD 1
  #define PLATFORM_OS_FAMILYNAME NETBSD
#elif defined(__OpenBSD__)
  #define PLATFORM_OS_OPENBSD 1
  #define PLATFORM_OS_FAMILYNAME OPENBSD
#elif defined(__CYGWIN__)
  #define PLATFORM_OS_CYGWIN 1
  #define PLATFORM_OS_FAMILYNAME CYGWIN
#elif defined(_WIN32)
  #define PLATFORM_OS_MSWINDOWS 1
  #define PLATFORM_OS_FAMILYNAME MSWINDOWS
#elif defined(__sun) || defined(__sun__)
  #define PLATFORM_OS_SOLARIS 1
  #define PLATFORM_OS_FAMILYNAME SOLARIS
#elif defined(_AIX)
  #define PLATFORM_OS_AIX 1
  #define PLATFORM_OS_FAMILYNAME AIX
#else
  #define PLATFORM_OS_UNKNOWN 1
  #define PLATFORM_OS_FAMILYNAME UNKNOWN
#endif

#endif /* this copy is the newest so far */
