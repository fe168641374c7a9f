/* Only <gasnet.h>, used as UPC++ and Chapel use it: the tools API comes
 * with it (GASNETT_COLD/HOT/USED, the gasnett_ environment and format
 * calls), and so do the system headers a client takes from it (getpid,
 * printf, getenv, strlen).  Built as C and as C++, linked with the
 * fragment's libraries and run: rank 0 checks that gasnet_client_attach_hook
 * (Chapel) is called with its segment before gex_Segment_Attach returns. */
#include <gasnet.h>

static void *hook_base;
static uintptr_t hook_size;
static int hook_calls;

GASNETT_COLD static void hook(void *base, uintptr_t size) {
  hook_base = base;
  hook_size = size;
  hook_calls++;
}

GASNETT_HOT static int hot(int x) { return x + 1; }
GASNETT_USED static int used_but_unreferenced(void) { return 7; }

int main(int argc, char **argv) {
  gasnet_client_attach_hook = &hook;
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  if (gex_Client_Init(&client, &ep, &tm, "gasnet_only", &argc, &argv, 0) != GASNET_OK) return 1;
  if (gex_Segment_Attach(&seg, tm, 4 * GASNET_PAGESIZE) != GASNET_OK) gasnet_exit(2);
  int ok = hook_calls == 1 && hook_base == gex_Segment_QueryAddr(seg) &&
           hook_size == gex_Segment_QuerySize(seg);
  int64_t n = gasnett_getenv_int_withdefault("GEX_GASNET_ONLY_UNSET", 5, 0);
  int yes = gasnett_getenv_yesno_withdefault("GEX_GASNET_ONLY_UNSET", 1);
  char num[64];
  gasnett_format_number(1 << 20, num, sizeof num, 1);
  gasnett_sched_yield();
#ifndef gasnett_fatalerror_nopos
  ok = 0; /* UPC++ tests for it with #ifdef */
#endif
  ok = ok && n == 5 && yes == 1 && strlen(num) > 0 && hot(1) == 2 && GASNETI_MAX_THREADS > 1 &&
       getenv("PATH") != NULL;
  printf("gasnet_only: rank %u pid %d: %s (attach hook %d call(s), %s)\n",
         (unsigned)gex_TM_QueryRank(tm), (int)getpid(), ok ? "ok" : "FAILED", hook_calls, num);
  fflush(stdout);
  gasnet_exit(ok ? 0 : 3);
  return 0;
}
