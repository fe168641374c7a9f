/* src/shmem/shmem_init.c -- shmem_init/finalize, the PE queries, global
 * exit, and where a symmetric address is on another PE. */
#include "shmem/shmem_internal.h"

#include <ctype.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct gexs_state gexs;
_Thread_local struct gexs_thread gexs_tls;

void gexs_fatal(const char *call, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "libgex shmem: PE %d: %s: %s\n", gexs.initialized ? gexs.me : -1, call, msg);
  fflush(stderr);
  if (gexs.initialized) gasnet_exit(1);
  exit(1);
}

/* The SHMEM_ variable's name, or the deprecated SMA_ one's where only that
 * is set. */
const char *gexs_env_pick(const char *shmem_name, const char *sma_name) {
  return getenv(shmem_name) || !getenv(sma_name) ? shmem_name : sma_name;
}

/* A size in bytes: digits, an optional K/M/G/T suffix (powers of 1024). */
size_t gexs_env_size(const char *name, size_t dflt) {
  const char *s = getenv(name);
  if (!s || !*s) return dflt;
  char *end;
  errno = 0;
  if (!isdigit((unsigned char)s[0])) gexs_fatal("shmem_init", "%s='%s': not a size", name, s);
  unsigned long long v = strtoull(s, &end, 10);
  unsigned shift = 0;
  switch (*end) {
  case 'k': case 'K': shift = 10; end++; break;
  case 'm': case 'M': shift = 20; end++; break;
  case 'g': case 'G': shift = 30; end++; break;
  case 't': case 'T': shift = 40; end++; break;
  default: break;
  }
  if (*end == 'b' || *end == 'B') end++;
  if (errno || *end || v == 0 || (shift && v > (~0ULL >> shift)))
    gexs_fatal("shmem_init", "%s='%s': not a size (bytes, with an optional K, M, G or T)",
               name, s);
  return (size_t)(v << shift);
}

/* ---- the program's static data ---- */
struct data_range {
  uintptr_t lo, hi;
};
/* The writable PT_LOAD segment of the executable (the first object
 * dl_iterate_phdr reports): .data and .bss. */
static int find_data(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct data_range *r = arg;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && ph->p_memsz > 0) {
      uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
      uintptr_t hi = lo + ph->p_memsz;
      if (r->hi == 0 || lo < r->lo) r->lo = lo;
      if (hi > r->hi) r->hi = hi;
    }
  }
  return 1; /* the executable only */
}

static void data_init(void) {
  struct data_range r = {0, 0};
  dl_iterate_phdr(find_data, &r);
  if (r.hi <= r.lo) return;
  gexs.data = (char *)r.lo;
  gexs.data_size = r.hi - r.lo;
  gex_Segment_t seg;
  if (gex_EP_Create(&gexs.data_ep, gexs.client, GEX_EP_CAPABILITY_RMA, 0) != GASNET_OK)
    gexs_fatal("shmem_init", "cannot create the endpoint for static data");
  if (gex_Segment_Create(&seg, gexs.client, gexs.data, gexs.data_size, GEX_MK_HOST, 0) !=
      GASNET_OK)
    gexs_fatal("shmem_init", "cannot make a segment of the static data [%p,+%zu)",
               (void *)gexs.data, gexs.data_size);
  if (gex_EP_BindSegment(gexs.data_ep, seg, 0) != GASNET_OK)
    gexs_fatal("shmem_init", "cannot bind the static data to its endpoint");
  if (gex_EP_PublishBoundSegment(gexs.world, &gexs.data_ep, 1, 0) != GASNET_OK)
    gexs_fatal("shmem_init", "cannot publish the static data");
  gexs.data_tm = gex_TM_Pair(gexs.ep, gex_EP_QueryIndex(gexs.data_ep));
  gexs.data_owner = calloc((size_t)gexs.npes, sizeof *gexs.data_owner);
  if (!gexs.data_owner) gexs_fatal("shmem_init", "out of memory");
  for (int pe = 0; pe < gexs.npes; pe++) {
    void *owner = NULL;
    uintptr_t size = 0;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(gexs.data_tm, (gex_Rank_t)pe, &owner, NULL,
                                              &size, 0));
    if (size != gexs.data_size)
      gexs_fatal("shmem_init",
                 "PE %d's static data is %zu bytes, this PE's %zu: every PE must run the "
                 "same executable", pe, (size_t)size, gexs.data_size);
    gexs.data_owner[pe] = owner;
  }
}

/* Whether [addr, +n) lies in the published static data. */
static int in_data(const void *addr, size_t n) {
  uintptr_t a = (uintptr_t)addr, b = (uintptr_t)gexs.data;
  return gexs.data_owner && a >= b && a - b <= gexs.data_size && n <= gexs.data_size - (a - b);
}

void gexs_where_slow(const char *call, const void *addr, size_t n, int pe,
                     struct gexs_where *w) {
  if (in_data(addr, n)) {
    size_t off = (size_t)((const char *)addr - gexs.data);
    w->tm = gexs.data_tm;
    w->owner = gexs.data_owner[pe] + off;
    w->local = pe == gexs.me ? (void *)addr : NULL;
    w->heap = 0;
    return;
  }
  gexs_fatal(call, "[%p,+%zu) is not a symmetric object: neither in the symmetric heap "
             "[%p,+%zu) nor in the program's static data [%p,+%zu)", addr, n, (void *)gexs.heap,
             gexs.heap_size, (void *)gexs.data, gexs.data_size);
}

int gexs_ctx_pe(const char *call, shmem_ctx_t ctx, int pe) {
  GEXS_NEED_INIT(call);
  if (ctx == SHMEM_CTX_INVALID) gexs_fatal(call, "SHMEM_CTX_INVALID");
  struct gexs_team *t = gexs_ctx_of(ctx)->team;
  if (pe < 0 || pe >= t->n_pes)
    gexs_fatal(call, "PE %d out of range (the team has %d PEs)", pe, t->n_pes);
  return t->world_pe ? t->world_pe[pe] : pe;
}

/* ---- init, finalize ---- */
static void print_info(void) {
  printf("libgex OpenSHMEM %d.%d (%s)\n", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION,
         SHMEM_VENDOR_STRING);
  printf("  SHMEM_SYMMETRIC_SIZE  bytes of the symmetric heap (K/M/G/T suffixes); now %zu\n",
         gexs.heap_size);
  printf("  SHMEM_INFO            print this text at shmem_init (PE 0)\n");
  printf("  SHMEM_VERSION         print the library's version at shmem_init (PE 0)\n");
  printf("  (SMA_SYMMETRIC_SIZE, SMA_INFO, SMA_VERSION: the same, where the SHMEM_ one is unset)\n");
  fflush(stdout);
}

GEXS_PROFILED(shmem_init_thread)
int shmem_init_thread(int requested, int *provided) {
  if (gexs.initialized) {
    if (provided) *provided = gexs.thread_level;
    return 0;
  }
  if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
    gexs_fatal("shmem_init_thread", "requested thread level %d is not one of SHMEM_THREAD_*",
               requested);
  /* Progress without calls (1.5 section 4.1): a PE that spins on plain
   * loads must still see another host's puts, and atomics on its static
   * data, land; only the target's polls do those.  libgex's receive
   * thread polls while the PE is away from the library (docs/openshmem.md,
   * "Progress"); the user's setting of GASNET_RCV_THREAD wins (0: off).
   * gex_Client_Init reads it; set here, it is gone again after, so that
   * the program's children do not inherit it. */
  const int rcv_set_here = getenv("GASNET_RCV_THREAD") == NULL;
  if (rcv_set_here && setenv("GASNET_RCV_THREAD", "1", 0) != 0)
    gexs_fatal("shmem_init", "cannot set GASNET_RCV_THREAD: %s", strerror(errno));
  if (gex_Client_Init(&gexs.client, &gexs.ep, &gexs.world, "shmem", NULL, NULL, 0) !=
      GASNET_OK)
    gexs_fatal("shmem_init", "gex_Client_Init failed");
  if (rcv_set_here) unsetenv("GASNET_RCV_THREAD");
  gexs.me = (int)gex_TM_QueryRank(gexs.world);
  gexs.npes = (int)gex_TM_QuerySize(gexs.world);
  gexs.thread_level = SHMEM_THREAD_MULTIPLE; /* libgex is thread-safe */
  if (provided) *provided = gexs.thread_level;
  atomic_init(&gexs.am_pending, 0);

  gex_AM_Entry_t handlers[8];
  size_t nh = 0;
  gexs_amo_register(handlers, &nh);
  if (gex_EP_RegisterHandlers(gexs.ep, handlers, nh) != GASNET_OK)
    gexs_fatal("shmem_init", "cannot register the library's AM handlers");

  gexs_heap_init();
  data_init();
  gex_OP_t int_ops = GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_ADD |
                     GEX_OP_FADD | GEX_OP_INC | GEX_OP_FINC | GEX_OP_AND | GEX_OP_FAND |
                     GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR;
  gex_OP_t flt_ops = GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP;
  gex_AD_Create(&gexs.ad_u32, gexs.world, GEX_DT_U32, int_ops, 0);
  gex_AD_Create(&gexs.ad_u64, gexs.world, GEX_DT_U64, int_ops, 0);
  gex_AD_Create(&gexs.ad_flt, gexs.world, GEX_DT_FLT, flt_ops, 0);
  gex_AD_Create(&gexs.ad_dbl, gexs.world, GEX_DT_DBL, flt_ops, 0);
  gexs.initialized = 1;
  gexs_teams_init();
  gexs.default_ctx.team = &gexs.world_team;
  gexs.default_ctx.options = 0;
  const char *info = gexs_env_pick("SHMEM_INFO", "SMA_INFO");
  const char *version = gexs_env_pick("SHMEM_VERSION", "SMA_VERSION");
  if (gexs.me == 0 && (getenv(info) || getenv(version))) {
    if (getenv(info))
      print_info();
    else
      printf("libgex OpenSHMEM %d.%d\n", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
  }
  gex_Event_Wait(gex_Coll_BarrierNB(gexs.world, 0));
  return 0;
}

GEXS_PROFILED(shmem_init)
void shmem_init(void) {
  int provided;
  (void)pshmem_init_thread(SHMEM_THREAD_SINGLE, &provided);
}

GEXS_PROFILED(start_pes)
void start_pes(int npes) {
  (void)npes;
  pshmem_init();
}

GEXS_PROFILED(shmem_query_initialized)
int shmem_query_initialized(void) { return gexs.initialized && !gexs.finalized; }

GEXS_PROFILED(shmem_finalize)
void shmem_finalize(void) {
  if (!gexs.initialized || gexs.finalized) return;
  gexs_quiet_all();
  gex_Event_Wait(gex_Coll_BarrierNB(gexs.world, 0));
  gexs_teams_fini();
  gex_AD_Destroy(gexs.ad_u32);
  gex_AD_Destroy(gexs.ad_u64);
  gex_AD_Destroy(gexs.ad_flt);
  gex_AD_Destroy(gexs.ad_dbl);
  gex_Event_Wait(gex_Coll_BarrierNB(gexs.world, 0));
  gexs_heap_fini();
  free(gexs.data_owner);
  gexs.data_owner = NULL;
  gexs.finalized = 1;
}

GEXS_PROFILED(shmem_global_exit)
void shmem_global_exit(int status) {
  fflush(stdout);
  fflush(stderr);
  if (gexs.initialized) gasnet_exit(status);
  exit(status);
}

GEXS_PROFILED(shmem_query_thread)
int shmem_query_thread(int *provided) {
  GEXS_NEED_INIT("shmem_query_thread");
  if (provided) *provided = gexs.thread_level;
  return 0;
}

GEXS_PROFILED(shmem_my_pe)
int shmem_my_pe(void) {
  GEXS_NEED_INIT("shmem_my_pe");
  return gexs.me;
}
GEXS_PROFILED(shmem_n_pes)
int shmem_n_pes(void) {
  GEXS_NEED_INIT("shmem_n_pes");
  return gexs.npes;
}
GEXS_PROFILED(_my_pe)
int _my_pe(void) { return pshmem_my_pe(); }
GEXS_PROFILED(_num_pes)
int _num_pes(void) { return pshmem_n_pes(); }

GEXS_PROFILED(shmem_pe_accessible)
int shmem_pe_accessible(int pe) {
  GEXS_NEED_INIT("shmem_pe_accessible");
  return pe >= 0 && pe < gexs.npes;
}

GEXS_PROFILED(shmem_addr_accessible)
int shmem_addr_accessible(const void *addr, int pe) {
  GEXS_NEED_INIT("shmem_addr_accessible");
  if (pe < 0 || pe >= gexs.npes) return 0;
  return gexs_in_heap(addr, 1) || in_data(addr, 1);
}

GEXS_PROFILED(shmem_ptr)
void *shmem_ptr(const void *dest, int pe) {
  GEXS_NEED_INIT("shmem_ptr");
  if (pe < 0 || pe >= gexs.npes) return NULL;
  if (pe == gexs.me) return pshmem_addr_accessible(dest, pe) ? (void *)dest : NULL;
  if (!gexs_in_heap(dest, 1) || !gexs.heap_local[pe]) return NULL;
  return gexs.heap_local[pe] + ((const char *)dest - gexs.heap);
}

GEXS_PROFILED(shmem_team_ptr)
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe) {
  GEXS_NEED_INIT("shmem_team_ptr");
  if (team == SHMEM_TEAM_INVALID) return NULL;
  struct gexs_team *t = gexs_team_of(team);
  if (pe < 0 || pe >= t->n_pes) return NULL;
  return pshmem_ptr(dest, t->world_pe ? t->world_pe[pe] : pe);
}

GEXS_PROFILED(shmem_pcontrol)
void shmem_pcontrol(const int level, ...) { (void)level; }

GEXS_PROFILED(shmem_info_get_version)
void shmem_info_get_version(int *major, int *minor) {
  if (major) *major = SHMEM_MAJOR_VERSION;
  if (minor) *minor = SHMEM_MINOR_VERSION;
}

GEXS_PROFILED(shmem_info_get_name)
void shmem_info_get_name(char *name) {
  if (name) {
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
  }
}
