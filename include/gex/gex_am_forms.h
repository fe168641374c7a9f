/* gex/gex_am_forms.h -- libgex internal: the argument-count forms of the AM calls.
 *
 * Not for direct inclusion; gasnetex.h includes it.  For every AM injection
 * and Commit call the specification names a function per argument count
 * M = 0..16 (gex_AM_RequestShort0 .. gex_AM_RequestShort16, ...) and a macro
 * without the count that infers it.  Each numbered form is a static inline
 * wrapper that packs its arguments into an array and calls one out-of-line
 * entry point per call family.
 */
#ifndef GEX_AM_FORMS_H
#define GEX_AM_FORMS_H

#ifdef __cplusplus
extern "C" {
#endif

#define GEXI_AM_MAX_ARGS 16

/* ---- out-of-line entry points (args points to nargs values) ---------------- */
int gexi_AM_RequestShort(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                         gex_Flags_t flags, unsigned int nargs, const gex_AM_Arg_t *args);
int gexi_AM_ReplyShort(gex_Token_t token, gex_AM_Index_t handler, gex_Flags_t flags,
                       unsigned int nargs, const gex_AM_Arg_t *args);
int gexi_AM_RequestMedium(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                          const void *src, size_t nbytes, gex_Event_t *lc_opt,
                          gex_Flags_t flags, unsigned int nargs, const gex_AM_Arg_t *args);
int gexi_AM_ReplyMedium(gex_Token_t token, gex_AM_Index_t handler, const void *src,
                        size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags,
                        unsigned int nargs, const gex_AM_Arg_t *args);
int gexi_AM_RequestLong(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, const void *src,
                        size_t nbytes, void *dest, gex_Event_t *lc_opt, gex_Flags_t flags,
                        unsigned int nargs, const gex_AM_Arg_t *args);
int gexi_AM_ReplyLong(gex_Token_t token, gex_AM_Index_t handler, const void *src,
                      size_t nbytes, void *dest, gex_Event_t *lc_opt, gex_Flags_t flags,
                      unsigned int nargs, const gex_AM_Arg_t *args);
/* kind: which Prepare produced sd (checked against it) */
#define GEXI_SD_REQ_MEDIUM 1
#define GEXI_SD_REP_MEDIUM 2
#define GEXI_SD_REQ_LONG 3
#define GEXI_SD_REP_LONG 4
int gexi_AM_Commit(gex_AM_SrcDesc_t sd, int kind, gex_AM_Index_t handler, size_t nbytes,
                   void *dest, gex_Flags_t commit_flags, unsigned int nargs,
                   const gex_AM_Arg_t *args);

/* ---- parameter and argument lists for M = 0..16 ------------------------------ */
#define GEXI_P0
#define GEXI_P1 GEXI_P0, gex_AM_Arg_t a0
#define GEXI_P2 GEXI_P1, gex_AM_Arg_t a1
#define GEXI_P3 GEXI_P2, gex_AM_Arg_t a2
#define GEXI_P4 GEXI_P3, gex_AM_Arg_t a3
#define GEXI_P5 GEXI_P4, gex_AM_Arg_t a4
#define GEXI_P6 GEXI_P5, gex_AM_Arg_t a5
#define GEXI_P7 GEXI_P6, gex_AM_Arg_t a6
#define GEXI_P8 GEXI_P7, gex_AM_Arg_t a7
#define GEXI_P9 GEXI_P8, gex_AM_Arg_t a8
#define GEXI_P10 GEXI_P9, gex_AM_Arg_t a9
#define GEXI_P11 GEXI_P10, gex_AM_Arg_t a10
#define GEXI_P12 GEXI_P11, gex_AM_Arg_t a11
#define GEXI_P13 GEXI_P12, gex_AM_Arg_t a12
#define GEXI_P14 GEXI_P13, gex_AM_Arg_t a13
#define GEXI_P15 GEXI_P14, gex_AM_Arg_t a14
#define GEXI_P16 GEXI_P15, gex_AM_Arg_t a15
#define GEXI_A0
#define GEXI_A1 GEXI_A0, a0
#define GEXI_A2 GEXI_A1, a1
#define GEXI_A3 GEXI_A2, a2
#define GEXI_A4 GEXI_A3, a3
#define GEXI_A5 GEXI_A4, a4
#define GEXI_A6 GEXI_A5, a5
#define GEXI_A7 GEXI_A6, a6
#define GEXI_A8 GEXI_A7, a7
#define GEXI_A9 GEXI_A8, a8
#define GEXI_A10 GEXI_A9, a9
#define GEXI_A11 GEXI_A10, a10
#define GEXI_A12 GEXI_A11, a11
#define GEXI_A13 GEXI_A12, a12
#define GEXI_A14 GEXI_A13, a13
#define GEXI_A15 GEXI_A14, a14
#define GEXI_A16 GEXI_A15, a15

/* The array always has a leading dummy so that M == 0 is a valid initializer. */
#define GEXI_ARGV(M) const gex_AM_Arg_t gexi_argv[] = {0 GEXI_A##M}

#define GEXI_DEF_FORMS(M)                                                                \
  static inline int gex_AM_RequestShort##M(gex_TM_t tm, gex_Rank_t rank,                \
                                           gex_AM_Index_t handler,                       \
                                           gex_Flags_t flags GEXI_P##M) {                \
    GEXI_ARGV(M);                                                                         \
    return gexi_AM_RequestShort(tm, rank, handler, flags, M, M ? gexi_argv + 1 : NULL);   \
  }                                                                                       \
  static inline int gex_AM_ReplyShort##M(gex_Token_t token, gex_AM_Index_t handler,      \
                                         gex_Flags_t flags GEXI_P##M) {                   \
    GEXI_ARGV(M);                                                                         \
    return gexi_AM_ReplyShort(token, handler, flags, M, gexi_argv + 1);                  \
  }                                                                                       \
  static inline int gex_AM_RequestMedium##M(gex_TM_t tm, gex_Rank_t rank,               \
                                            gex_AM_Index_t handler, const void *src,     \
                                            size_t nbytes, gex_Event_t *lc_opt,           \
                                            gex_Flags_t flags GEXI_P##M) {               \
    GEXI_ARGV(M);                                                                         \
    return gexi_AM_RequestMedium(tm, rank, handler, src, nbytes, lc_opt, flags, M,       \
                                 gexi_argv + 1);                                          \
  }                                                                                       \
  static inline int gex_AM_ReplyMedium##M(gex_Token_t token, gex_AM_Index_t handler,     \
                                          const void *src, size_t nbytes,                 \
                                          gex_Event_t *lc_opt, gex_Flags_t flags GEXI_P##M) { \
    GEXI_ARGV(M);                                                                         \
    return gexi_AM_ReplyMedium(token, handler, src, nbytes, lc_opt, flags, M,             \
                               gexi_argv + 1);                                            \
  }                                                                                       \
  static inline int gex_AM_RequestLong##M(gex_TM_t tm, gex_Rank_t rank,                 \
                                          gex_AM_Index_t handler, const void *src,       \
                                          size_t nbytes, void *dest, gex_Event_t *lc_opt, \
                                          gex_Flags_t flags GEXI_P##M) {                 \
    GEXI_ARGV(M);                                                                         \
    return gexi_AM_RequestLong(tm, rank, handler, src, nbytes, dest, lc_opt, flags, M,   \
                               gexi_argv + 1);                                            \
  }                                                                                       \
  static inline int gex_AM_ReplyLong##M(gex_Token_t token, gex_AM_Index_t handler,       \
                                        const void *src, size_t nbytes, void *dest,       \
                                        gex_Event_t *lc_opt, gex_Flags_t flags GEXI_P##M) { \
    GEXI_ARGV(M);                                                                         \
    return gexi_AM_ReplyLong(token, handler, src, nbytes, dest, lc_opt, flags, M,         \
                             gexi_argv + 1);                                              \
  }                                                                                       \
  static inline void gex_AM_CommitRequestMedium##M(gex_AM_SrcDesc_t sd,                  \
                                                   gex_AM_Index_t handler,               \
                                                   size_t nbytes GEXI_P##M) {             \
    GEXI_ARGV(M);                                                                         \
    (void)gexi_AM_Commit(sd, GEXI_SD_REQ_MEDIUM, handler, nbytes, NULL, 0, M,             \
                         gexi_argv + 1);                                                  \
  }                                                                                       \
  static inline void gex_AM_CommitReplyMedium##M(gex_AM_SrcDesc_t sd,                    \
                                                 gex_AM_Index_t handler,                 \
                                                 size_t nbytes GEXI_P##M) {               \
    GEXI_ARGV(M);                                                                         \
    (void)gexi_AM_Commit(sd, GEXI_SD_REP_MEDIUM, handler, nbytes, NULL, 0, M,             \
                         gexi_argv + 1);                                                  \
  }                                                                                       \
  static inline void gex_AM_CommitRequestLong##M(gex_AM_SrcDesc_t sd,                    \
                                                 gex_AM_Index_t handler, size_t nbytes,  \
                                                 void *dest GEXI_P##M) {                  \
    GEXI_ARGV(M);                                                                         \
    (void)gexi_AM_Commit(sd, GEXI_SD_REQ_LONG, handler, nbytes, dest, 0, M,               \
                         gexi_argv + 1);                                                  \
  }                                                                                       \
  static inline void gex_AM_CommitReplyLong##M(gex_AM_SrcDesc_t sd,                      \
                                               gex_AM_Index_t handler, size_t nbytes,    \
                                               void *dest GEXI_P##M) {                    \
    GEXI_ARGV(M);                                                                         \
    (void)gexi_AM_Commit(sd, GEXI_SD_REP_LONG, handler, nbytes, dest, 0, M,               \
                         gexi_argv + 1);                                                  \
  }                                                                                       \
  static inline int gex_AM_CommitRequestMedium##M##_v2(gex_AM_SrcDesc_t sd,              \
                                                       gex_AM_Index_t handler,           \
                                                       size_t nbytes,                    \
                                                       gex_Flags_t commit_flags GEXI_P##M) { \
    GEXI_ARGV(M);                                                                         \
    return gexi_AM_Commit(sd, GEXI_SD_REQ_MEDIUM, handler, nbytes, NULL, commit_flags, M, \
                          gexi_argv + 1);                                                 \
  }                                                                                       \
  static inline int gex_AM_CommitReplyMedium##M##_v2(gex_AM_SrcDesc_t sd,                \
                                                     gex_AM_Index_t handler,             \
                                                     size_t nbytes,                      \
                                                     gex_Flags_t commit_flags GEXI_P##M) { \
    GEXI_ARGV(M);                                                                         \
    return gexi_AM_Commit(sd, GEXI_SD_REP_MEDIUM, handler, nbytes, NULL, commit_flags, M, \
                          gexi_argv + 1);                                                 \
  }                                                                                       \
  static inline int gex_AM_CommitRequestLong##M##_v2(gex_AM_SrcDesc_t sd,                \
                                                     gex_AM_Index_t handler,             \
                                                     size_t nbytes, void *dest,          \
                                                     gex_Flags_t commit_flags GEXI_P##M) { \
    GEXI_ARGV(M);                                                                         \
    return gexi_AM_Commit(sd, GEXI_SD_REQ_LONG, handler, nbytes, dest, commit_flags, M,   \
                          gexi_argv + 1);                                                 \
  }                                                                                       \
  static inline int gex_AM_CommitReplyLong##M##_v2(gex_AM_SrcDesc_t sd,                  \
                                                   gex_AM_Index_t handler, size_t nbytes, \
                                                   void *dest,                            \
                                                   gex_Flags_t commit_flags GEXI_P##M) {  \
    GEXI_ARGV(M);                                                                         \
    return gexi_AM_Commit(sd, GEXI_SD_REP_LONG, handler, nbytes, dest, commit_flags, M,   \
                          gexi_argv + 1);                                                 \
  }

GEXI_DEF_FORMS(0)
GEXI_DEF_FORMS(1)
GEXI_DEF_FORMS(2)
GEXI_DEF_FORMS(3)
GEXI_DEF_FORMS(4)
GEXI_DEF_FORMS(5)
GEXI_DEF_FORMS(6)
GEXI_DEF_FORMS(7)
GEXI_DEF_FORMS(8)
GEXI_DEF_FORMS(9)
GEXI_DEF_FORMS(10)
GEXI_DEF_FORMS(11)
GEXI_DEF_FORMS(12)
GEXI_DEF_FORMS(13)
GEXI_DEF_FORMS(14)
GEXI_DEF_FORMS(15)
GEXI_DEF_FORMS(16)

/* ---- count-inferring macros ------------------------------------------------------- */
/* GEXI_NARGS_k(args...) is the number of arguments beyond the first k. */
#define GEXI_PICK26(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, \
                    _18, _19, _20, _21, _22, _23, _24, _25, N, ...)                             \
  N
#define GEXI_NARGS_3(...) GEXI_PICK26(__VA_ARGS__, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define GEXI_NARGS_4(...) GEXI_PICK26(__VA_ARGS__, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define GEXI_NARGS_5(...) GEXI_PICK26(__VA_ARGS__, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define GEXI_NARGS_6(...) GEXI_PICK26(__VA_ARGS__, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define GEXI_NARGS_7(...) GEXI_PICK26(__VA_ARGS__, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define GEXI_NARGS_8(...) GEXI_PICK26(__VA_ARGS__, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define GEXI_CAT_(a, b) a##b
#define GEXI_CAT(a, b) GEXI_CAT_(a, b)
#define GEXI_CAT3_(a, b, c) a##b##c
#define GEXI_CAT3(a, b, c) GEXI_CAT3_(a, b, c)

#define gex_AM_RequestShort(...) GEXI_CAT(gex_AM_RequestShort, GEXI_NARGS_4(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_ReplyShort(...) GEXI_CAT(gex_AM_ReplyShort, GEXI_NARGS_3(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_RequestMedium(...) GEXI_CAT(gex_AM_RequestMedium, GEXI_NARGS_7(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_ReplyMedium(...) GEXI_CAT(gex_AM_ReplyMedium, GEXI_NARGS_6(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_RequestLong(...) GEXI_CAT(gex_AM_RequestLong, GEXI_NARGS_8(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_ReplyLong(...) GEXI_CAT(gex_AM_ReplyLong, GEXI_NARGS_7(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_CommitRequestMedium(...) GEXI_CAT(gex_AM_CommitRequestMedium, GEXI_NARGS_3(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_CommitReplyMedium(...) GEXI_CAT(gex_AM_CommitReplyMedium, GEXI_NARGS_3(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_CommitRequestLong(...) GEXI_CAT(gex_AM_CommitRequestLong, GEXI_NARGS_4(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_CommitReplyLong(...) GEXI_CAT(gex_AM_CommitReplyLong, GEXI_NARGS_4(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_CommitRequestMedium_v2(...) GEXI_CAT3(gex_AM_CommitRequestMedium, GEXI_NARGS_4(__VA_ARGS__), _v2)(__VA_ARGS__)
#define gex_AM_CommitReplyMedium_v2(...) GEXI_CAT3(gex_AM_CommitReplyMedium, GEXI_NARGS_4(__VA_ARGS__), _v2)(__VA_ARGS__)
#define gex_AM_CommitRequestLong_v2(...) GEXI_CAT3(gex_AM_CommitRequestLong, GEXI_NARGS_5(__VA_ARGS__), _v2)(__VA_ARGS__)
#define gex_AM_CommitReplyLong_v2(...) GEXI_CAT3(gex_AM_CommitReplyLong, GEXI_NARGS_5(__VA_ARGS__), _v2)(__VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* GEX_AM_FORMS_H */
