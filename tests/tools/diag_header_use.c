/* tests/tools/diag_header_use.c -- compiled (not run) by the header tests:
 * gasnett_diagnostic_gethandlers and gasnett_run_diagnostics are declared
 * whichever of <gasnetex.h> and <gasnet_tools.h> comes first
 * (-DTOOLS_FIRST), in C and C++, GASNET_SEQ and GASNET_PAR, under
 * -Wall -Wextra -Wundef -Werror. */
#ifdef TOOLS_FIRST
#include <gasnet_tools.h>
#include <gasnetex.h>
#else
#include <gasnetex.h>
#include <gasnet_tools.h>
#endif

int diag_header_use(gex_TM_t tm, void *myseg, void *peerseg);
int diag_header_use(gex_TM_t tm, void *myseg, void *peerseg) {
  gex_AM_Entry_t *table = 0;
  int count = 0;
  gasnett_diagnostic_gethandlers(&table, &count);
  return gasnett_run_diagnostics(1000, 4, "ABC", tm, myseg, 0, peerseg, 1u) + count +
         (table != 0);
}
