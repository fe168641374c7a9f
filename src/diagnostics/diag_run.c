/* diagnostics/diag_run.c -- gasnett_diagnostic_gethandlers and
 * gasnett_run_diagnostics: the context, the agreement between the ranks,
 * and the sections one after the other, each followed by a barrier and the
 * team-wide count of its errors.
 *
 * Every rank runs the same collectives in the same order whatever happens
 * locally (a section that cannot run here still reaches its barrier), so a
 * failing check never leaves the team hanging.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnostics/diag.h"

struct gexdiag_context gexdiag_ctx;

/* What a section needs besides the calling thread. */
enum { NEED_THREADS = 1, NEED_AREA = 2, NEED_AM = 4, COMMUNICATES = 8 };

static const struct {
  char letter;
  const char *name;
  int needs;
  void (*run)(void);
} sections[] = {
    {'A', "mutex and rwlock", NEED_THREADS, gexdiag_section_mutex},
    {'B', "condition variables", NEED_THREADS, gexdiag_section_cond},
    {'C', "atomics", NEED_THREADS, gexdiag_section_atomics},
    {'D', "timers", 0, gexdiag_section_timers},
    {'E', "RMA blocking Put/Get", COMMUNICATES | NEED_AREA, gexdiag_section_rma_blocking},
    {'F', "RMA NB Put/Get and events", COMMUNICATES | NEED_AREA, gexdiag_section_rma_nb},
    {'G', "RMA NBI Put/Get and access regions", COMMUNICATES | NEED_AREA,
     gexdiag_section_rma_nbi},
    {'H', "RMA value forms", COMMUNICATES | NEED_AREA, gexdiag_section_rma_val},
    {'I', "AM Short round trips", COMMUNICATES | NEED_AM, gexdiag_section_am_short},
    {'J', "AM Medium round trips", COMMUNICATES | NEED_AM, gexdiag_section_am_medium},
    {'K', "AM Long round trips", COMMUNICATES | NEED_AM | NEED_AREA, gexdiag_section_am_long},
};
#define NSECTIONS ((int)(sizeof sections / sizeof sections[0]))

/* The area every rank uses at most, and the least that the sections using
 * it need (slots of a few KiB for up to a handful of writers). */
#define AREA_MAX ((size_t)256 * 1024)
#define AREA_MIN ((size_t)8 * 1024)

void gasnett_diagnostic_gethandlers(gex_AM_Entry_t **htable, int *htable_cnt) {
  if (!gexdiag_ctx.handlers_ready) {
    gexdiag_fill_handlers(gexdiag_ctx.handlers);
    gexdiag_ctx.handlers_ready = 1;
  }
  if (htable) *htable = gexdiag_ctx.handlers;
  if (htable_cnt) *htable_cnt = GEXDIAG_NHANDLERS;
}

/* Bit i: section i of the table. */
static uint32_t sections_mask(const char *list) {
  uint32_t mask = 0;
  for (int i = 0; i < NSECTIONS; i++) {
    int on = !list || !*list;
    for (const char *p = list; !on && *p; p++)
      on = toupper((unsigned char)*p) == sections[i].letter;
    if (on) mask |= 1u << i;
  }
  return mask;
}

/* GEX_DIAG_FAULT: letters of the sections that inject a fault (testing the
 * checks); anything else ends the job, as every malformed variable does. */
static uint32_t fault_mask(void) {
  const char *v = gasnett_getenv("GEX_DIAG_FAULT");
  if (!v || !*v) return 0;
  for (const char *p = v; *p; p++) {
    int known = 0;
    for (int i = 0; i < NSECTIONS; i++) known |= toupper((unsigned char)*p) == sections[i].letter;
    if (!known) {
      fflush(stdout);
      fprintf(stderr,
              "libgex: rank %u: GEX_DIAG_FAULT='%s': not a list of diagnostics section letters "
              "(A-%c)\n",
              (unsigned)gexdiag_ctx.rank, v, sections[NSECTIONS - 1].letter);
      fflush(stderr);
      gasnet_exit(1);
    }
  }
  return sections_mask(v);
}

/* Bytes usable from p on in the segment rank r bound, 0 when p is not in it. */
static size_t area_avail(gex_Rank_t r, const void *p) {
  void *base = NULL;
  uintptr_t size = 0;
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(gexdiag_ctx.tm, r, &base, NULL, &size, 0));
  uintptr_t b = (uintptr_t)base, a = (uintptr_t)p;
  if (!base || a < b || a >= b + size) return 0;
  return (size_t)(b + size - a);
}

static void reduce_u64(void *dst, const void *src, size_t count, gex_OP_t op) {
  gex_Event_Wait(gex_Coll_ReduceToAllNB(gexdiag_ctx.tm, dst, src, GEX_DT_U64, sizeof(uint64_t),
                                        count, op, NULL, NULL, 0));
}

static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(gexdiag_ctx.tm, 0)); }

static void say0(const char *fmt, const char *a, const char *b) {
  if (gexdiag_ctx.rank != 0) return;
  printf(fmt, a, b);
  fflush(stdout);
}

/* Sets up the run: the arguments, the agreement of the ranks (the same
 * iters, seed, sections and faults; handler indices; area size; who writes
 * where).  Returns the team's count of setup errors, or -1 after printing
 * why the ranks cannot run together (then nothing else is run). */
static long setup(int iters, int threadcnt, const char *test_sections, gex_TM_t tm, void *myseg,
                  gex_Rank_t peer, void *peerseg, unsigned int seed, uint32_t *mask_p) {
  struct gexdiag_context *c = &gexdiag_ctx;
  c->tm = tm;
  c->rank = gex_TM_QueryRank(tm);
  c->size = gex_TM_QuerySize(tm);
  c->peer = peer;
  c->myarea = (unsigned char *)myseg;
  c->peerarea = (unsigned char *)peerseg;
  c->seed = seed;
  c->iters = iters < 1 ? 1 : iters;
  c->threads = threadcnt < 1 ? 1 : threadcnt > GASNETT_MAX_THREADS ? GASNETT_MAX_THREADS : threadcnt;
  c->fault_mask = fault_mask();
  c->section = '-';
  c->section_name = "setup";
  __atomic_store_n(&c->section_errors, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&c->printed, 0, __ATOMIC_RELAXED);
  uint32_t mask = sections_mask(test_sections);

  size_t avail = 0;
  if (peer >= c->size) {
    gexdiag_error("peer %u is not a rank of the team (size %u)", (unsigned)peer, (unsigned)c->size);
  } else {
    size_t mine = area_avail(c->rank, myseg), theirs = area_avail(peer, peerseg);
    if (!mine) gexdiag_error("myseg %p is not in this rank's bound segment", myseg);
    if (!theirs) gexdiag_error("peerseg %p is not in the bound segment of rank %u", peerseg, (unsigned)peer);
    avail = mine < theirs ? mine : theirs;
  }
  uint64_t packed = 0;
  for (int h = 0; h < GEXDIAG_NHANDLERS; h++)
    packed |= (uint64_t)(c->handlers_ready ? c->handlers[h].gex_index : 0) << (8 * h);

  /* Who names whom (ADD: each rank fills its own entry) and the setup
   * errors so far (the last entry). */
  size_t n = c->size;
  uint64_t *in = calloc(n + 1, sizeof *in), *out = calloc(n + 1, sizeof *out);
  c->peer_of = malloc(n * sizeof *c->peer_of);
  c->slot_index = malloc(n * sizeof *c->slot_index);
  c->slot_count = calloc(n, sizeof *c->slot_count);
  if (!in || !out || !c->peer_of || !c->slot_index || !c->slot_count) {
    fprintf(stderr, "libgex: rank %u: gasnett_run_diagnostics: out of memory for %zu ranks\n",
            (unsigned)c->rank, n);
    gasnet_exit(1);
  }
  in[c->rank] = peer < c->size ? (uint64_t)peer + 1 : 0;
  in[n] = __atomic_load_n(&c->section_errors, __ATOMIC_RELAXED);
  reduce_u64(out, in, n + 1, GEX_OP_ADD);
  long setup_errors = (long)out[n];
  for (size_t r = 0; r < n; r++) {
    c->peer_of[r] = out[r] ? (gex_Rank_t)(out[r] - 1) : GEX_RANK_INVALID;
    if (out[r]) c->slot_index[r] = c->slot_count[out[r] - 1]++;
  }
  free(in);
  free(out);

  /* Agreement (MIN of each value and of its complement: min and max). */
  uint64_t a[11] = {(uint64_t)c->iters, ~(uint64_t)c->iters, c->seed, ~c->seed, mask, ~(uint64_t)mask,
                    packed, ~packed, avail, c->fault_mask, ~(uint64_t)c->fault_mask}, b[11];
  reduce_u64(b, a, 11, GEX_OP_MIN);
  if (b[0] != ~b[1] || b[2] != ~b[3] || b[4] != ~b[5] || b[9] != ~b[10]) {
    if (c->rank == 0)
      fprintf(stderr,
              "diagnostics: ERROR: the ranks were given different %s: nothing was run\n",
              b[0] != ~b[1] ? "iteration counts" : b[2] != ~b[3] ? "seeds"
              : b[4] != ~b[5] ? "test sections" : "GEX_DIAG_FAULT settings");
    return -1;
  }
  int am_ok = b[6] == ~b[7];
  for (int h = 0; h < GEXDIAG_NHANDLERS; h++) {
    c->am_index[h] = (gex_AM_Index_t)(b[6] >> (8 * h));
    am_ok = am_ok && c->am_index[h] != 0;
  }
  if (!am_ok) memset(c->am_index, 0, sizeof c->am_index);
  c->area = (size_t)(b[8] < AREA_MAX ? b[8] : AREA_MAX) & ~(size_t)4095;
  if (c->area < AREA_MIN) c->area = 0;
  *mask_p = mask;
  return setup_errors;
}

int gasnett_run_diagnostics(int iters, int threadcnt, const char *test_sections, gex_TM_t myteam,
                            void *myseg, gex_Rank_t peer, void *peerseg, unsigned int seed) {
  struct gexdiag_context *c = &gexdiag_ctx;
  uint32_t mask = 0;
  long total = setup(iters, threadcnt, test_sections, myteam, myseg, peer, peerseg, seed, &mask);
  if (total < 0) {
    total = 1;
  } else {
    int run = 0;
    for (int i = 0; i < NSECTIONS; i++) {
      if (!(mask & (1u << i))) continue;
      run++;
      c->section = sections[i].letter;
      c->section_name = sections[i].name;
      __atomic_store_n(&c->section_errors, 0, __ATOMIC_RELAXED);
      __atomic_store_n(&c->printed, 0, __ATOMIC_RELAXED);
      int needs = sections[i].needs;
      /* Every rank is in this section before any of its AMs arrives. */
      barrier();
      /* Decided from agreed values only: every rank skips alike. */
      if ((needs & NEED_AM) && !c->am_index[0]) {
        if (c->rank == 0)
          gexdiag_error("the handlers of gasnett_diagnostic_gethandlers are not registered "
                        "(or not at the same indices in every rank): section not run");
      } else if ((needs & NEED_AREA) && !c->area) {
        if (c->rank == 0)
          gexdiag_error("the segment areas are smaller than %zu bytes (or not in the segments): "
                        "section not run", AREA_MIN);
      } else if ((needs & COMMUNICATES) && c->peer_of[c->rank] == GEX_RANK_INVALID) {
        /* this rank's own error was counted at setup; the others still run */
      } else {
        sections[i].run();
      }
      /* Every handler of this section has run once every rank is here:
       * each Request's Reply is awaited, and sent after the checks. */
      barrier();
      uint64_t mine = __atomic_load_n(&c->section_errors, __ATOMIC_RELAXED), all = 0;
      reduce_u64(&all, &mine, 1, GEX_OP_ADD);
      total += (long)all;
      char detail[64];
      if (needs & NEED_THREADS)
        snprintf(detail, sizeof detail, ", %d thread%s", c->threads, c->threads == 1 ? "" : "s");
      else if (needs & COMMUNICATES)
        snprintf(detail, sizeof detail, ", %u rank%s", (unsigned)c->size, c->size == 1 ? "" : "s");
      else
        detail[0] = '\0';
      char result[64];
      if (all)
        snprintf(result, sizeof result, "FAILED with %llu ERROR%s", (unsigned long long)all,
                 all == 1 ? "" : "S");
      else
        snprintf(result, sizeof result, "ok");
      if (c->rank == 0) {
        printf("diagnostics: section %c (%s%s): %s\n", c->section, c->section_name, detail, result);
        fflush(stdout);
      }
    }
    char counts[96];
    snprintf(counts, sizeof counts, "%d section%s run, %ld error%s", run, run == 1 ? "" : "s",
             total, total == 1 ? "" : "s");
    say0("diagnostics: %s%s\n", counts, total ? " (ERROR)" : "");
  }
  free(c->peer_of);
  free(c->slot_index);
  free(c->slot_count);
  c->peer_of = c->slot_index = c->slot_count = NULL;
  c->section = '-';
  c->section_name = "none";
  return (int)(total > 0x7FFFFFFF ? 0x7FFFFFFF : total);
}
