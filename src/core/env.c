/* core/env.c -- reading the environment (see core/env.h). */
#include <ctype.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/context.h"

const char *gexi_env_string(const char *name) {
  const char *s = getenv(name);
  return s && *s ? s : NULL;
}

int gexi_env_switch(const char *name, int dflt) {
  const char *s = gexi_env_string(name);
  char why[160];
  int v;
  if (!s) return dflt;
  if (gexi_parse_switch(s, &v, why, sizeof why) != 0) gexi_fatal("%s='%s': %s", name, s, why);
  return v;
}

uint64_t gexi_env_count(const char *name, uint64_t dflt, uint64_t min, uint64_t max) {
  const char *s = gexi_env_string(name);
  char why[160];
  uint64_t v;
  if (!s) return dflt;
  if (gexi_parse_count(s, min, max, &v, why, sizeof why) != 0)
    gexi_fatal("%s='%s': %s", name, s, why);
  return v;
}

uint64_t gexi_env_size(const char *name, uint64_t dflt, uint64_t min, uint64_t max) {
  const char *s = gexi_env_string(name);
  char why[160];
  uint64_t v;
  if (!s) return dflt;
  if (gexi_parse_size(s, min, max, &v, why, sizeof why) != 0)
    gexi_fatal("%s='%s': %s", name, s, why);
  return v;
}

uint64_t gexi_env_exit_timeout_ms(uint64_t ranks) {
  const char *val[4];
  for (int i = 0; i < 4; i++) val[i] = gexi_env_string(gexi_exit_timeout_vars[i]);
  char why[160];
  uint64_t ms;
  int bad;
  if (gexi_exit_timeout(val, ranks, &ms, &bad, why, sizeof why) != 0)
    gexi_fatal("%s='%s': %s", gexi_exit_timeout_vars[bad], val[bad], why);
  return ms;
}

int gexi_env_segsize(struct gexi_segsize *out) {
  const char *s = gexi_env_string("GASNET_MAX_SEGSIZE");
  char why[160];
  if (!s) return 0;
  if (gexi_parse_segsize(s, out, why, sizeof why) != 0)
    gexi_fatal("GASNET_MAX_SEGSIZE='%s': %s", s, why);
  if (!out->is_fraction && out->bytes < GASNET_PAGESIZE)
    gexi_fatal("GASNET_MAX_SEGSIZE='%s': below one page (%d bytes); a fraction of physical "
               "memory is written with a decimal point (0.5, 1.0)", s, GASNET_PAGESIZE);
  return 1;
}

/* "auto", or a switch: -1 auto, 0, 1. */
static int env_auto_switch(const char *name) {
  const char *s = gexi_env_string(name);
  if (!s || strcasecmp(s, "auto") == 0) return -1;
  char why[160];
  int v;
  if (gexi_parse_switch(s, &v, why, sizeof why) != 0)
    gexi_fatal("%s='%s': neither auto nor a yes/no value (1/0, yes/no, y/n, true/false, on/off)",
               name, s);
  return v;
}

/* GASNET_NO_CATCH_SIGNAL: "*" or a comma-separated list of signals, each a
 * name ("SIGINT", "INT", any case) or a number.  Returns whether SIGINT is
 * among them (the only signal libgex catches). */
static int env_no_catch_sigint(void) {
  static const struct { const char *name; int num; } sigs[] = {
      {"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"ILL", SIGILL},
      {"TRAP", SIGTRAP}, {"ABRT", SIGABRT}, {"BUS", SIGBUS},   {"FPE", SIGFPE},
      {"KILL", SIGKILL}, {"USR1", SIGUSR1}, {"SEGV", SIGSEGV}, {"USR2", SIGUSR2},
      {"PIPE", SIGPIPE}, {"ALRM", SIGALRM}, {"TERM", SIGTERM}, {"CHLD", SIGCHLD},
      {"CONT", SIGCONT}, {"STOP", SIGSTOP}, {"TSTP", SIGTSTP}, {"TTIN", SIGTTIN},
      {"TTOU", SIGTTOU}, {"URG", SIGURG},   {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ},
      {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH}, {"IO", SIGIO},
      {"SYS", SIGSYS},   {"ABORT", SIGABRT}};
  const char *s = gexi_env_string("GASNET_NO_CATCH_SIGNAL");
  if (!s) return 0;
  if (strcmp(s, "*") == 0) return 1;
  char buf[256];
  if (strlen(s) >= sizeof buf) gexi_fatal("GASNET_NO_CATCH_SIGNAL='%.64s...': too long", s);
  strcpy(buf, s);
  int sigint = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    while (isspace((unsigned char)*tok)) tok++;
    size_t n = strlen(tok);
    while (n && isspace((unsigned char)tok[n - 1])) tok[--n] = 0;
    const char *name = strncasecmp(tok, "SIG", 3) == 0 ? tok + 3 : tok;
    int num = -1;
    char why[160];
    uint64_t v;
    if (*name >= '0' && *name <= '9') {
      if (gexi_parse_count(name, 1, 64, &v, why, sizeof why) == 0) num = (int)v;
    } else {
      for (size_t i = 0; i < sizeof sigs / sizeof sigs[0] && num < 0; i++)
        if (strcasecmp(name, sigs[i].name) == 0) num = sigs[i].num;
    }
    if (num < 0)
      gexi_fatal("GASNET_NO_CATCH_SIGNAL='%s': '%s' is not a signal (a name such as SIGINT or "
                 "INT, a number, or * for every signal)", s, tok);
    if (num == SIGINT) sigint = 1;
  }
  return sigint;
}

void gexi_env_load(void) {
  struct gexi_env *e = &gexi_ctx.env;
  /* The reference's name too (runtimes and benchmarks set it to force the
   * network path on one host); libgex's own wins when both are set. */
  const char *sn = gexi_env_string("GEX_SUPERNODE_MAXSIZE") ? "GEX_SUPERNODE_MAXSIZE"
                                                           : "GASNET_SUPERNODE_MAXSIZE";
  e->supernode_maxsize = (uint32_t)gexi_env_count(sn, 0, 0, UINT32_MAX);
  const char *nt = gexi_env_string("GEX_NET_TRANSPORT");
  e->net_transport = !nt                        ? GEXI_NET_DEFAULT
                     : strcasecmp(nt, "ofi") == 0  ? GEXI_NET_OFI
                     : strcasecmp(nt, "sock") == 0 ? GEXI_NET_SOCK
                                                   : -1;
  if (e->net_transport < 0)
    gexi_fatal("GEX_NET_TRANSPORT='%s': neither sock (libgex's own transport) nor ofi "
               "(libfabric)", nt);
  e->net_verbose = gexi_env_switch("GEX_NET_VERBOSE", 0);
  const char *wm = gexi_env_string("GEX_WAIT_MODE");
  e->wait_mode = !wm                             ? GEXI_WAIT_AUTO
                 : strcasecmp(wm, "auto") == 0   ? GEXI_WAIT_AUTO
                 : strcasecmp(wm, "yield") == 0  ? GEXI_WAIT_YIELD
                 : strcasecmp(wm, "block") == 0  ? GEXI_WAIT_BLOCK
                 : strcasecmp(wm, "spin") == 0   ? GEXI_WAIT_SPIN
                                                 : -1;
  if (e->wait_mode < 0)
    gexi_fatal("GEX_WAIT_MODE='%s': not one of auto, yield, block, spin", wm);
  atomic_store_explicit(&gexi_ctx.wait_mode, e->wait_mode, memory_order_relaxed);
  e->sock_iface = gexi_env_string("GEX_SOCK_IFACE");
  e->cuda_driver = gexi_env_string("GEX_CUDA_DRIVER");
  const char *td = gexi_env_string("GEX_MK_TEST_DEVICE");
  if (td && strcmp(td, "host") != 0)
    gexi_fatal("GEX_MK_TEST_DEVICE='%s': the only test device is 'host'", td);
  e->mk_test_device = td != NULL;
  e->mk_ipc = gexi_env_switch("GEX_MK_IPC", 1);
  e->sock_am_credit = gexi_env_size("GEX_SOCK_AM_CREDIT", 0, 32 << 10, (uint64_t)1 << 31);
  e->sock_connect_timeout = gexi_env_count("GEX_SOCK_CONNECT_TIMEOUT", 30, 1, 3600);
  e->sock_sndbuf = (int64_t)gexi_env_size("GEX_SOCK_SNDBUF", 0, 0, (uint64_t)1 << 30);
  e->sock_udp = gexi_env_switch("GEX_SOCK_UDP", 1);
  e->test_lane_drop = gexi_env_count("GEX_TEST_LANE_DROP", 0, 0, 1000000);
  e->ofi_provider = gexi_env_string("GEX_OFI_PROVIDER");
  e->ofi_domain = gexi_env_string("GEX_OFI_DOMAIN");
  e->ofi_am_credit = gexi_env_size("GEX_OFI_AM_CREDIT", 0, 0, (uint64_t)1 << 40);
  e->ofi_multi_recv = gexi_env_string("GEX_OFI_MULTI_RECV") ? gexi_env_switch("GEX_OFI_MULTI_RECV", 0)
                                                           : -1;
  e->ofi_am_batch = gexi_env_size("GEX_OFI_AM_BATCH", 8 << 10, 0, (uint64_t)1 << 30);
  e->ofi_counted_rma = gexi_env_string("GEX_OFI_COUNTED_RMA") ? gexi_env_switch("GEX_OFI_COUNTED_RMA", 0)
                                                             : -1;
  e->ofi_verbose = gexi_env_switch("GEX_OFI_VERBOSE", 0);
  e->ofi_atomic_nonfetch = gexi_env_switch("GEX_OFI_ATOMIC_NONFETCH", 0);
  e->ofi_atomic_deny = gexi_env_string("GEX_OFI_ATOMIC_DENY");
  e->coll_force_am = gexi_env_switch("GEX_COLL_FORCE_AM", 0);
  e->coll_hier = gexi_env_switch("GEX_COLL_HIER", 1);
  e->coll_radix = (uint32_t)gexi_env_count("GEX_COLL_RADIX", 4, 2, 64);
  e->coll_rdv_min = gexi_env_size("GEX_COLL_RDV_MIN", 32 << 10, 0, (uint64_t)1 << 40);
  e->coll_rdv_chunk = (size_t)gexi_env_size("GEX_COLL_RDV_CHUNK", 512 << 10, 8, (uint64_t)1 << 30);
  e->coll_xchg = gexi_env_switch("GEX_COLL_XCHG", 1);
  e->coll_rdv_push = gexi_env_switch("GEX_COLL_RDV_PUSH", 1);
  e->coll_rdv_standing = gexi_env_size("GEX_COLL_RDV_STANDING", 256 << 10, 0, (uint64_t)1 << 30);
  e->ad_force_am = gexi_env_switch("GEX_AD_FORCE_AM", 0);
  e->ad_native = env_auto_switch("GEX_AD_NATIVE");
  e->ad_verbose = gexi_env_switch("GEX_AD_VERBOSE", 0);
  e->coalesce = (uint32_t)gexi_env_count("GEX_COALESCE", 1024, 1, 1u << 20);
  e->coalesce_put_max = gexi_env_string("GEX_COALESCE_PUT_MAX")
                            ? (int64_t)gexi_env_size("GEX_COALESCE_PUT_MAX", 0, 0, 4096)
                            : -1;
  e->vis_force_am = gexi_env_switch("GEX_VIS_FORCE_AM", 0);
  e->vis_pack_max = gexi_env_string("GEX_VIS_PACK_MAX")
                        ? (int64_t)gexi_env_size("GEX_VIS_PACK_MAX", 0, 0, (1u << 30) - 1)
                        : -1;
  e->catch_exit = gexi_env_switch("GASNET_CATCH_EXIT", 1);
  e->rcv_thread = gexi_env_switch("GASNET_RCV_THREAD", 0);
  e->rcv_thread_rate = gexi_env_count("GASNET_RCV_THREAD_RATE", 0, 0, 1000000);
  e->no_catch_sigint = env_no_catch_sigint();
  e->have_max_segsize = gexi_env_segsize(&e->max_segsize);
}
