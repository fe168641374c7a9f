/* tests/tools/use_test_h.c -- the reference test.h (or, with USE_TESTAM_H,
 * testam.h) after <gasnetex.h>, for the compile tests. */
#ifdef USE_TESTAM_H
#define TEST_GASNETEX 1
#include "testam.h"
#else
#include "test.h"
#endif

int main(void) { return 0; }
