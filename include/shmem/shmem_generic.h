/* shmem/shmem_generic.h -- the C11 generic interfaces of OpenSHMEM 1.5
 * (included by shmem.h in C11 and later, not in C++).
 *
 * Each generic name selects the typed call by the type of the object it
 * targets.  The selection lists name only C's own types: the fixed-width and
 * size types of the typed tables are typedefs of them (int32_t is int, ...),
 * so they select the same call, and listing both would repeat a type.  A
 * call that takes a context is the same name with one more argument first;
 * GEXS_PICK counts the arguments to tell the two apart.
 */
#ifndef GEX_SHMEM_GENERIC_H
#define GEX_SHMEM_GENERIC_H

/* X(TYPE, TYPENAME, OP): the standard RMA types, C's own. */
#define GEXS_G_RMA(X, OP)                                                                 \
  X(float, float, OP) X(double, double, OP) X(long double, longdouble, OP)                \
  X(char, char, OP) X(signed char, schar, OP) X(short, short, OP) X(int, int, OP)         \
  X(long, long, OP) X(long long, longlong, OP) X(unsigned char, uchar, OP)                \
  X(unsigned short, ushort, OP) X(unsigned int, uint, OP) X(unsigned long, ulong, OP)     \
  X(unsigned long long, ulonglong, OP)
#define GEXS_G_AMO_STD(X, OP)                                                             \
  X(int, int, OP) X(long, long, OP) X(long long, longlong, OP) X(unsigned int, uint, OP)  \
  X(unsigned long, ulong, OP) X(unsigned long long, ulonglong, OP)
#define GEXS_G_AMO_EXT(X, OP) GEXS_G_AMO_STD(X, OP) X(float, float, OP) X(double, double, OP)
/* int and long: through int32_t and int64_t (on LP64), which are typed. */
#define GEXS_G_AMO_BIT(X, OP)                                                             \
  X(unsigned int, uint, OP) X(unsigned long, ulong, OP)                                   \
  X(unsigned long long, ulonglong, OP) X(int, int32, OP) X(long, int64, OP)
#define GEXS_G_P2P(X, OP) GEXS_G_AMO_STD(X, OP) X(short, short, OP) X(unsigned short, ushort, OP)
#define GEXS_G_RED_BIT(X, OP)                                                             \
  X(unsigned char, uchar, OP) X(unsigned short, ushort, OP) X(unsigned int, uint, OP)     \
  X(unsigned long, ulong, OP) X(unsigned long long, ulonglong, OP) X(signed char, int8, OP) \
  X(short, int16, OP) X(int, int32, OP) X(long, int64, OP)
#define GEXS_G_RED_CMP(X, OP)                                                             \
  X(char, char, OP) X(signed char, schar, OP) X(short, short, OP) X(int, int, OP)         \
  X(long, long, OP) X(long long, longlong, OP) X(unsigned char, uchar, OP)                \
  X(unsigned short, ushort, OP) X(unsigned int, uint, OP) X(unsigned long, ulong, OP)     \
  X(unsigned long long, ulonglong, OP) X(float, float, OP) X(double, double, OP)          \
  X(long double, longdouble, OP)

/* An association per type; the list ends with a type no argument has. */
#define GEXS_A(TYPE, TN, OP) TYPE *: shmem_##TN##_##OP,
#define GEXS_AC(TYPE, TN, OP) const TYPE *: shmem_##TN##_##OP, TYPE *: shmem_##TN##_##OP,
#define GEXS_X(TYPE, TN, OP) TYPE *: shmem_ctx_##TN##_##OP,
#define GEXS_XC(TYPE, TN, OP) const TYPE *: shmem_ctx_##TN##_##OP, TYPE *: shmem_ctx_##TN##_##OP,
#define GEXS_END struct gexs_generic_no_such_type *: 0
#define GEXS_SEL(LIST, A, OP, e) _Generic((e), LIST(A, OP) GEXS_END)

/* GEXS_PICK(args..., FN_n+1, FN_n): FN_n+1 when there are n+1 arguments. */
#define GEXS_PICK2(a, b, c, d, ...) d
#define GEXS_PICK3(a, b, c, d, e, ...) e
#define GEXS_PICK4(a, b, c, d, e, f, ...) f
#define GEXS_PICK5(a, b, c, d, e, f, g, ...) g
#define GEXS_PICK6(a, b, c, d, e, f, g, h, ...) h
#define GEXS_PICK7(a, b, c, d, e, f, g, h, i, ...) i
#define GEXS_PICK8(a, b, c, d, e, f, g, h, i, j, ...) j

/* Dispatch on the first argument (plain form) or on the second (ctx form). */
#define GEXS_PLAIN(LIST, A, OP, a1, ...) GEXS_SEL(LIST, A, OP, a1)(a1, __VA_ARGS__)
#define GEXS_CTX(LIST, X, OP, c, a1, ...) GEXS_SEL(LIST, X, OP, a1)(c, a1, __VA_ARGS__)

/* ---- RMA ---- */
#define GEXS_put(...) GEXS_PLAIN(GEXS_G_RMA, GEXS_A, put, __VA_ARGS__)
#define GEXS_put_x(...) GEXS_CTX(GEXS_G_RMA, GEXS_X, put, __VA_ARGS__)
#define shmem_put(...) GEXS_PICK4(__VA_ARGS__, GEXS_put_x, GEXS_put, ~)(__VA_ARGS__)
#define GEXS_get(...) GEXS_PLAIN(GEXS_G_RMA, GEXS_A, get, __VA_ARGS__)
#define GEXS_get_x(...) GEXS_CTX(GEXS_G_RMA, GEXS_X, get, __VA_ARGS__)
#define shmem_get(...) GEXS_PICK4(__VA_ARGS__, GEXS_get_x, GEXS_get, ~)(__VA_ARGS__)
#define GEXS_put_nbi(...) GEXS_PLAIN(GEXS_G_RMA, GEXS_A, put_nbi, __VA_ARGS__)
#define GEXS_put_nbi_x(...) GEXS_CTX(GEXS_G_RMA, GEXS_X, put_nbi, __VA_ARGS__)
#define shmem_put_nbi(...) GEXS_PICK4(__VA_ARGS__, GEXS_put_nbi_x, GEXS_put_nbi, ~)(__VA_ARGS__)
#define GEXS_get_nbi(...) GEXS_PLAIN(GEXS_G_RMA, GEXS_A, get_nbi, __VA_ARGS__)
#define GEXS_get_nbi_x(...) GEXS_CTX(GEXS_G_RMA, GEXS_X, get_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) GEXS_PICK4(__VA_ARGS__, GEXS_get_nbi_x, GEXS_get_nbi, ~)(__VA_ARGS__)
#define GEXS_p(...) GEXS_PLAIN(GEXS_G_RMA, GEXS_A, p, __VA_ARGS__)
#define GEXS_p_x(...) GEXS_CTX(GEXS_G_RMA, GEXS_X, p, __VA_ARGS__)
#define shmem_p(...) GEXS_PICK3(__VA_ARGS__, GEXS_p_x, GEXS_p, ~)(__VA_ARGS__)
#define GEXS_g(...) GEXS_PLAIN(GEXS_G_RMA, GEXS_AC, g, __VA_ARGS__)
#define GEXS_g_x(...) GEXS_CTX(GEXS_G_RMA, GEXS_XC, g, __VA_ARGS__)
#define shmem_g(...) GEXS_PICK2(__VA_ARGS__, GEXS_g_x, GEXS_g, ~)(__VA_ARGS__)
#define GEXS_iput(...) GEXS_PLAIN(GEXS_G_RMA, GEXS_A, iput, __VA_ARGS__)
#define GEXS_iput_x(...) GEXS_CTX(GEXS_G_RMA, GEXS_X, iput, __VA_ARGS__)
#define shmem_iput(...) GEXS_PICK6(__VA_ARGS__, GEXS_iput_x, GEXS_iput, ~)(__VA_ARGS__)
#define GEXS_iget(...) GEXS_PLAIN(GEXS_G_RMA, GEXS_A, iget, __VA_ARGS__)
#define GEXS_iget_x(...) GEXS_CTX(GEXS_G_RMA, GEXS_X, iget, __VA_ARGS__)
#define shmem_iget(...) GEXS_PICK6(__VA_ARGS__, GEXS_iget_x, GEXS_iget, ~)(__VA_ARGS__)
#define GEXS_put_signal(...) GEXS_PLAIN(GEXS_G_RMA, GEXS_A, put_signal, __VA_ARGS__)
#define GEXS_put_signal_x(...) GEXS_CTX(GEXS_G_RMA, GEXS_X, put_signal, __VA_ARGS__)
#define shmem_put_signal(...) \
  GEXS_PICK7(__VA_ARGS__, GEXS_put_signal_x, GEXS_put_signal, ~)(__VA_ARGS__)
#define GEXS_put_signal_nbi(...) GEXS_PLAIN(GEXS_G_RMA, GEXS_A, put_signal_nbi, __VA_ARGS__)
#define GEXS_put_signal_nbi_x(...) GEXS_CTX(GEXS_G_RMA, GEXS_X, put_signal_nbi, __VA_ARGS__)
#define shmem_put_signal_nbi(...) \
  GEXS_PICK7(__VA_ARGS__, GEXS_put_signal_nbi_x, GEXS_put_signal_nbi, ~)(__VA_ARGS__)

/* ---- atomics: NAME(plain-arity) over a type list ---- */
#define GEXS_AMO(LIST, A, X, OP, PICK, ...) \
  PICK(__VA_ARGS__, GEXS_AMO_X, GEXS_AMO_P, ~)(LIST, A, X, OP, __VA_ARGS__)
#define GEXS_AMO_P(LIST, A, X, OP, a1, ...) GEXS_SEL(LIST, A, OP, a1)(a1, __VA_ARGS__)
#define GEXS_AMO_X(LIST, A, X, OP, c, a1, ...) GEXS_SEL(LIST, X, OP, a1)(c, a1, __VA_ARGS__)
#define shmem_atomic_fetch(...) GEXS_AMO(GEXS_G_AMO_EXT, GEXS_AC, GEXS_XC, atomic_fetch, GEXS_PICK2, __VA_ARGS__)
#define shmem_atomic_set(...) GEXS_AMO(GEXS_G_AMO_EXT, GEXS_A, GEXS_X, atomic_set, GEXS_PICK3, __VA_ARGS__)
#define shmem_atomic_swap(...) GEXS_AMO(GEXS_G_AMO_EXT, GEXS_A, GEXS_X, atomic_swap, GEXS_PICK3, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) GEXS_AMO(GEXS_G_AMO_STD, GEXS_A, GEXS_X, atomic_compare_swap, GEXS_PICK4, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) GEXS_AMO(GEXS_G_AMO_STD, GEXS_A, GEXS_X, atomic_fetch_inc, GEXS_PICK2, __VA_ARGS__)
#define shmem_atomic_inc(...) GEXS_AMO(GEXS_G_AMO_STD, GEXS_A, GEXS_X, atomic_inc, GEXS_PICK2, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) GEXS_AMO(GEXS_G_AMO_STD, GEXS_A, GEXS_X, atomic_fetch_add, GEXS_PICK3, __VA_ARGS__)
#define shmem_atomic_add(...) GEXS_AMO(GEXS_G_AMO_STD, GEXS_A, GEXS_X, atomic_add, GEXS_PICK3, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) GEXS_AMO(GEXS_G_AMO_BIT, GEXS_A, GEXS_X, atomic_fetch_and, GEXS_PICK3, __VA_ARGS__)
#define shmem_atomic_and(...) GEXS_AMO(GEXS_G_AMO_BIT, GEXS_A, GEXS_X, atomic_and, GEXS_PICK3, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) GEXS_AMO(GEXS_G_AMO_BIT, GEXS_A, GEXS_X, atomic_fetch_or, GEXS_PICK3, __VA_ARGS__)
#define shmem_atomic_or(...) GEXS_AMO(GEXS_G_AMO_BIT, GEXS_A, GEXS_X, atomic_or, GEXS_PICK3, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) GEXS_AMO(GEXS_G_AMO_BIT, GEXS_A, GEXS_X, atomic_fetch_xor, GEXS_PICK3, __VA_ARGS__)
#define shmem_atomic_xor(...) GEXS_AMO(GEXS_G_AMO_BIT, GEXS_A, GEXS_X, atomic_xor, GEXS_PICK3, __VA_ARGS__)
/* The _nbi fetching forms select on the target (second argument). */
#define GEXS_NBI(LIST, OP, PICK, ...) \
  PICK(__VA_ARGS__, GEXS_NBI_X, GEXS_NBI_P, ~)(LIST, OP, __VA_ARGS__)
#define GEXS_NBI_P(LIST, OP, f, a1, ...) GEXS_SEL(LIST, GEXS_AC, OP, a1)(f, a1, __VA_ARGS__)
#define GEXS_NBI_X(LIST, OP, c, f, a1, ...) GEXS_SEL(LIST, GEXS_XC, OP, a1)(c, f, a1, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) GEXS_NBI(GEXS_G_AMO_EXT, atomic_fetch_nbi, GEXS_PICK3, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) GEXS_NBI(GEXS_G_AMO_EXT, atomic_swap_nbi, GEXS_PICK4, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) GEXS_NBI(GEXS_G_AMO_STD, atomic_compare_swap_nbi, GEXS_PICK5, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) GEXS_NBI(GEXS_G_AMO_STD, atomic_fetch_inc_nbi, GEXS_PICK3, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) GEXS_NBI(GEXS_G_AMO_STD, atomic_fetch_add_nbi, GEXS_PICK4, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) GEXS_NBI(GEXS_G_AMO_BIT, atomic_fetch_and_nbi, GEXS_PICK4, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) GEXS_NBI(GEXS_G_AMO_BIT, atomic_fetch_or_nbi, GEXS_PICK4, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) GEXS_NBI(GEXS_G_AMO_BIT, atomic_fetch_xor_nbi, GEXS_PICK4, __VA_ARGS__)

/* ---- point-to-point synchronization ---- */
#define GEXS_P2P(OP, a1, ...) GEXS_SEL(GEXS_G_P2P, GEXS_A, OP, a1)(a1, __VA_ARGS__)
#define shmem_wait_until(...) GEXS_P2P(wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...) GEXS_P2P(wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) GEXS_P2P(wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) GEXS_P2P(wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...) GEXS_P2P(wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...) GEXS_P2P(wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...) GEXS_P2P(wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...) GEXS_P2P(test, __VA_ARGS__)
#define shmem_test_all(...) GEXS_P2P(test_all, __VA_ARGS__)
#define shmem_test_any(...) GEXS_P2P(test_any, __VA_ARGS__)
#define shmem_test_some(...) GEXS_P2P(test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) GEXS_P2P(test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) GEXS_P2P(test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...) GEXS_P2P(test_some_vector, __VA_ARGS__)

/* ---- synchronization: shmem_sync(team), or the active-set form ---- */
#define GEXS_SYNC_SEL(a, b, c, d, f, ...) f
#define shmem_sync(...) GEXS_SYNC_SEL(__VA_ARGS__, shmem_sync, ~, ~, shmem_team_sync, ~)(__VA_ARGS__)

/* ---- collectives: select on the destination (second argument) ---- */
#define GEXS_COLL(LIST, OP, t, d, ...) GEXS_SEL(LIST, GEXS_A, OP, d)(t, d, __VA_ARGS__)
#define shmem_broadcast(...) GEXS_COLL(GEXS_G_RMA, broadcast, __VA_ARGS__)
#define shmem_collect(...) GEXS_COLL(GEXS_G_RMA, collect, __VA_ARGS__)
#define shmem_fcollect(...) GEXS_COLL(GEXS_G_RMA, fcollect, __VA_ARGS__)
#define shmem_alltoall(...) GEXS_COLL(GEXS_G_RMA, alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) GEXS_COLL(GEXS_G_RMA, alltoalls, __VA_ARGS__)
#define shmem_and_reduce(...) GEXS_COLL(GEXS_G_RED_BIT, and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) GEXS_COLL(GEXS_G_RED_BIT, or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) GEXS_COLL(GEXS_G_RED_BIT, xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) GEXS_COLL(GEXS_G_RED_CMP, max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) GEXS_COLL(GEXS_G_RED_CMP, min_reduce, __VA_ARGS__)
#define GEXS_G_RED_ARITH(X, OP) GEXS_G_RED_CMP(X, OP) X(double _Complex, complexd, OP) \
  X(float _Complex, complexf, OP)
#define shmem_sum_reduce(...) GEXS_COLL(GEXS_G_RED_ARITH, sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) GEXS_COLL(GEXS_G_RED_ARITH, prod_reduce, __VA_ARGS__)

/* ---- the deprecated generic atomics (OpenSHMEM 1.4, still in 1.5): no
 * context forms; int, long and long long, and float and double for fetch,
 * set and swap ---- */
#define GEXS_G_OLD_INT(X, OP) X(int, int, OP) X(long, long, OP) X(long long, longlong, OP)
#define GEXS_G_OLD(X, OP) GEXS_G_OLD_INT(X, OP) X(float, float, OP) X(double, double, OP)
#define shmem_fetch(source, pe) GEXS_SEL(GEXS_G_OLD, GEXS_AC, fetch, source)(source, pe)
#define shmem_set(dest, value, pe) GEXS_SEL(GEXS_G_OLD, GEXS_A, set, dest)(dest, value, pe)
#define shmem_swap(dest, value, pe) GEXS_SEL(GEXS_G_OLD, GEXS_A, swap, dest)(dest, value, pe)
#define shmem_cswap(dest, cond, value, pe) \
  GEXS_SEL(GEXS_G_OLD_INT, GEXS_A, cswap, dest)(dest, cond, value, pe)
#define shmem_finc(dest, pe) GEXS_SEL(GEXS_G_OLD_INT, GEXS_A, finc, dest)(dest, pe)
#define shmem_inc(dest, pe) GEXS_SEL(GEXS_G_OLD_INT, GEXS_A, inc, dest)(dest, pe)
#define shmem_fadd(dest, value, pe) GEXS_SEL(GEXS_G_OLD_INT, GEXS_A, fadd, dest)(dest, value, pe)
#define shmem_add(dest, value, pe) GEXS_SEL(GEXS_G_OLD_INT, GEXS_A, add, dest)(dest, value, pe)

#endif /* GEX_SHMEM_GENERIC_H */
