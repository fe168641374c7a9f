/* tests/am_forms_gen.h -- preprocessor helpers to generate code for every AM
 * argument count M = 0..16 (handler parameter lists, argument lists taken
 * from an array, and switch cases).
 */
#ifndef GEX_TEST_AM_FORMS_GEN_H
#define GEX_TEST_AM_FORMS_GEN_H

/* handler parameter lists: ", gex_AM_Arg_t a0, ..." */
#define TP0
#define TP1 TP0, gex_AM_Arg_t a0
#define TP2 TP1, gex_AM_Arg_t a1
#define TP3 TP2, gex_AM_Arg_t a2
#define TP4 TP3, gex_AM_Arg_t a3
#define TP5 TP4, gex_AM_Arg_t a4
#define TP6 TP5, gex_AM_Arg_t a5
#define TP7 TP6, gex_AM_Arg_t a6
#define TP8 TP7, gex_AM_Arg_t a7
#define TP9 TP8, gex_AM_Arg_t a8
#define TP10 TP9, gex_AM_Arg_t a9
#define TP11 TP10, gex_AM_Arg_t a10
#define TP12 TP11, gex_AM_Arg_t a11
#define TP13 TP12, gex_AM_Arg_t a12
#define TP14 TP13, gex_AM_Arg_t a13
#define TP15 TP14, gex_AM_Arg_t a14
#define TP16 TP15, gex_AM_Arg_t a15

/* the received values: ", a0, ..." */
#define TV0
#define TV1 TV0, a0
#define TV2 TV1, a1
#define TV3 TV2, a2
#define TV4 TV3, a3
#define TV5 TV4, a4
#define TV6 TV5, a5
#define TV7 TV6, a6
#define TV8 TV7, a7
#define TV9 TV8, a8
#define TV10 TV9, a9
#define TV11 TV10, a10
#define TV12 TV11, a11
#define TV13 TV12, a12
#define TV14 TV13, a13
#define TV15 TV14, a14
#define TV16 TV15, a15

/* arguments taken from an array named A in scope: ", A[0], ..." */
#define TA0
#define TA1 TA0, A[0]
#define TA2 TA1, A[1]
#define TA3 TA2, A[2]
#define TA4 TA3, A[3]
#define TA5 TA4, A[4]
#define TA6 TA5, A[5]
#define TA7 TA6, A[6]
#define TA8 TA7, A[7]
#define TA9 TA8, A[8]
#define TA10 TA9, A[9]
#define TA11 TA10, A[10]
#define TA12 TA11, A[11]
#define TA13 TA12, A[12]
#define TA14 TA13, A[13]
#define TA15 TA14, A[14]
#define TA16 TA15, A[15]

/* Apply X(M) for M = 0..16. */
#define FOR_EACH_NARGS(X) \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)

#endif
