/* mpi_coll_bench.c -- mpi-coll-bench: the MPI counterpart of gex-testbarrier,
 * gex-testratomic and gex-testcoll.
 *
 *   mpirun -n 2 mpi-coll-bench [-m] [-minsz N] [-budget B] [ITERS [MAXSZ [SECTIONS]]]
 *
 * Same command line, pairing, sizes and output line as the gex-test*
 * programs (bench_args.h).  Defaults: ITERS 1000, MAXSZ 1M.
 *
 *   A  MPI_Barrier on MPI_COMM_WORLD, ITERS back to back; the slowest
 *      rank's mean (as gex-testbarrier)
 *   B  MPI_Fetch_and_op(MPI_UINT64_T, MPI_SUM, 1) + MPI_Win_flush, to the
 *      next odd rank: the 8-byte fetch-add latency (gex-testratomic A)
 *   C  the same on the initiator's own window (gex-testratomic B)
 *   D  ITERS x MPI_Fetch_and_op, each into its own result, then one
 *      MPI_Win_flush: fetch-add throughput (gex-testratomic E)
 *   E  ITERS x MPI_Accumulate(MPI_UINT64_T, MPI_SUM, 1), then one
 *      MPI_Win_flush: non-fetching add throughput (gex-testratomic C)
 *   F  MPI_Bcast from rank 0, sizes as gex-testcoll (8 B ... MAXSZ)
 *   G  MPI_Allreduce, MPI_UINT64_T, MPI_SUM
 *   H  MPI_Allreduce, MPI_DOUBLE, MPI_SUM
 *   I  MPI_Reduce to rank 0, MPI_UINT64_T, MPI_SUM (gex-testcoll D; only
 *      rank 0's result is checked)
 *
 * The atomics use one window of 16 bytes per rank from MPI_Win_allocate in
 * one MPI_Win_lock_all epoch opened outside the timed loops (as
 * mpi-rma-bench does).  The target makes no MPI call during a section
 * except the barrier that ends it (which is also what gives a one-sided
 * component that needs the target's help its progress).
 *
 * Output: the line of bench_print_op, e.g.
 *   B:   0 -          8 byte :    1000 iters,      0.12345 us/op,      8100445.3 op/s,         61.801 MiB/s (MPI_Fetch_and_op U64 SUM+flush latency, remote rank 1)
 * Lines starting with '#' are comments.
 *
 * Checks as in the libgex programs: the target word grows by exactly the
 * number of additions (read with a MPI_Fetch_and_op MPI_NO_OP), fetched
 * values are consecutive, broadcast and reduce results are compared
 * element by element.  Wrong data: MPI_Abort with status 1.  Bad
 * arguments: usage line, status 2.
 */
#include <mpi.h>

#include <stdarg.h>
#include <stdlib.h>

#include "bench_args.h"
#include "mpi_bench.h"

static const char *prog = "mpi-coll-bench";
static const char *usage_text =
    "[-m] [-minsz N] [-budget BYTES] [ITERS [MAXSZ [SECTIONS: A=Barrier B=Fetch_and_op latency "
    "C=own rank D=Fetch_and_op flood E=Accumulate flood F=Bcast G=Allreduce U64 H=Allreduce DBL I=Reduce U64]]]";

static int me, nranks, peer, role;
static bench_opts_t o = {.iters = 1000, .maxsz = (size_t)1 << 20, .minsz = 8};
static MPI_Win win;
static uint64_t *winbase, *results;
static unsigned char *src, *dst;

#define die(...) mpi_bench_die(prog, me, __VA_ARGS__)

static double max_to_0(double v) {
  double out = v;
  MPI_Reduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return me == 0 ? out : v;
}

static uint64_t read_word(int tgt, MPI_Aint disp) {
  uint64_t zero = 0, r = 0;
  MPI_Fetch_and_op(&zero, &r, MPI_UINT64_T, tgt, disp, MPI_NO_OP, win);
  MPI_Win_flush(tgt, win);
  return r;
}

/* B-E: n operations; returns 0 or -1 if a fetched value was wrong. */
static int atomics(char s, int tgt, MPI_Aint disp, long n, uint64_t start) {
  const uint64_t one = 1;
  switch (s) {
    case 'B':
    case 'C': {
      int bad = 0;
      for (long i = 0; i < n; i++) {
        uint64_t r;
        MPI_Fetch_and_op(&one, &r, MPI_UINT64_T, tgt, disp, MPI_SUM, win);
        MPI_Win_flush(tgt, win);
        bad |= (r != start + (uint64_t)i);
      }
      return bad ? -1 : 0;
    }
    case 'D': {
      for (long i = 0; i < n; i++) MPI_Fetch_and_op(&one, &results[i], MPI_UINT64_T, tgt, disp, MPI_SUM, win);
      MPI_Win_flush(tgt, win);
      uint64_t sum = 0, want = (uint64_t)n * start + (uint64_t)n * (uint64_t)(n - 1) / 2;
      for (long i = 0; i < n; i++) sum += results[i];
      return sum == want ? 0 : -1;
    }
    default:
      for (long i = 0; i < n; i++) MPI_Accumulate(&one, 1, MPI_UINT64_T, tgt, disp, 1, MPI_UINT64_T, MPI_SUM, win);
      MPI_Win_flush(tgt, win);
      return 0;
  }
}

static const char *atomic_name(char s) {
  switch (s) {
    case 'B': return "MPI_Fetch_and_op U64 SUM+flush latency";
    case 'C': return "MPI_Fetch_and_op U64 SUM+flush latency";
    case 'D': return "MPI_Fetch_and_op U64 SUM flood + flush";
    default: return "MPI_Accumulate U64 SUM flood + flush";
  }
}

static void run_atomic(char s) {
  long iters = o.iters, warm = bench_warmup(iters);
  int self = (s == 'C');
  int tgt = self ? me : peer;
  MPI_Aint disp = self ? 1 : 0; /* word 0: remote target, word 1: own */
  MPI_Barrier(MPI_COMM_WORLD);
  if (role == BENCH_SENDER) {
    uint64_t v0 = read_word(tgt, disp);
    if (atomics(s, tgt, disp, warm, v0) != 0) die("%s: a fetched value is wrong (warm-up)", atomic_name(s));
    double t0 = MPI_Wtime();
    int bad = atomics(s, tgt, disp, iters, v0 + (uint64_t)warm);
    double us = (MPI_Wtime() - t0) * 1e6;
    if (bad) die("%s: a fetched value is wrong", atomic_name(s));
    uint64_t v1 = read_word(tgt, disp);
    if (v1 - v0 != (uint64_t)(warm + iters))
      die("%s: the target grew by %llu after %ld additions", atomic_name(s), (unsigned long long)(v1 - v0),
          warm + iters);
    char desc[160];
    snprintf(desc, sizeof desc, "%s, %s rank %d", atomic_name(s), self ? "own" : "remote", tgt);
    bench_print_op(s, (unsigned)me, 8, iters, us, desc);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void run_barrier(void) {
  long iters = o.iters, warm = bench_warmup(iters);
  MPI_Barrier(MPI_COMM_WORLD);
  for (long i = 0; i < warm; i++) MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long i = 0; i < iters; i++) MPI_Barrier(MPI_COMM_WORLD);
  double us = max_to_0((MPI_Wtime() - t0) * 1e6);
  if (me == 0) {
    char desc[64];
    snprintf(desc, sizeof desc, "MPI_Barrier, %d rank%s", nranks, nranks == 1 ? "" : "s");
    bench_print_op('A', 0, 0, iters, us, desc);
  }
}

static uint64_t input(int r, size_t sz, size_t i) { return (uint64_t)r * 1000003u + (i % 4093) + sz % 7; }

static void coll(char s, size_t sz) {
  int n = (int)(sz / 8);
  switch (s) {
    case 'F':
      MPI_Bcast(me == 0 ? src : dst, (int)sz, MPI_BYTE, 0, MPI_COMM_WORLD);
      break;
    case 'G': MPI_Allreduce(src, dst, n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD); break;
    case 'I': MPI_Reduce(src, dst, n, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD); break;
    default: MPI_Allreduce(src, dst, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
  }
}

static void fill(char s, size_t sz) {
  size_t n = sz / 8;
  if (s == 'F') {
    bench_fill(src, sz, sz, s);
  } else {
    for (size_t i = 0; i < n; i++) {
      uint64_t v = input(me, sz, i);
      if (s != 'H') {
        memcpy(src + 8 * i, &v, 8);
      } else {
        double d = (double)v;
        memcpy(src + 8 * i, &d, 8);
      }
    }
  }
}

static void verify_coll(char s, size_t sz) {
  fill(s, sz);
  memset(dst, 0, sz);
  coll(s, sz);
  if (s == 'F') {
    const unsigned char *p = me == 0 ? src : dst;
    size_t bad = bench_check(p, sz, sz, s);
    if (bad != (size_t)-1) die("MPI_Bcast check failed at size %zu, byte %zu", sz, bad);
    return;
  }
  if (s == 'I' && me != 0) return; /* only the root has a result */
  for (size_t i = 0; i < sz / 8; i++) {
    uint64_t want = 0;
    for (int r = 0; r < nranks; r++) want += input(r, sz, i);
    int ok;
    if (s != 'H') {
      uint64_t got;
      memcpy(&got, dst + 8 * i, 8);
      ok = got == want;
    } else {
      double got;
      memcpy(&got, dst + 8 * i, 8);
      ok = got == (double)want;
    }
    if (!ok) die("%s check failed at size %zu, element %zu", s == 'I' ? "MPI_Reduce" : "MPI_Allreduce", sz, i);
  }
}

static void run_coll(char s) {
  static const char *names[] = {"MPI_Bcast root 0", "MPI_Allreduce U64 SUM", "MPI_Allreduce DBL SUM",
                                "MPI_Reduce U64 SUM root 0"};
  for (size_t sz = bench_first_size(&o, SIZE_MAX); sz; sz = bench_next_size(&o, SIZE_MAX, sz)) {
    size_t n = sz & ~(size_t)7;
    if (n == 0) continue;
    long iters = bench_iters_at(&o, n), warm = bench_warmup(iters);
    fill(s, n);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < warm; i++) coll(s, n);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) coll(s, n);
    double us = (MPI_Wtime() - t0) * 1e6;
    verify_coll(s, n);
    us = max_to_0(us);
    if (me == 0) {
      char desc[96];
      snprintf(desc, sizeof desc, "%s, %d rank%s", names[s - 'F'], nranks, nranks == 1 ? "" : "s");
      bench_print_op(s, 0, n, iters, us, desc);
    }
  }
}

int main(int argc, char **argv) {
  mpi_bench_init(&argc, &argv, &me, &nranks);
  const char *why = NULL;
  char whybuf[160];
  if (bench_parse(argc, argv, "ABCDEFGHI", &o) != 0) {
    why = o.error;
  } else if (o.maxsz > (size_t)1 << 30 || o.maxsz < 8) {
    snprintf(whybuf, sizeof whybuf, "MAXSZ %zu is outside 8 B .. 1 GiB", o.maxsz);
    why = whybuf;
  } else if (o.in_seg) {
    why = "-in has no meaning here";
  }
  if (why) return mpi_bench_usage_exit(me, nranks, prog, why, usage_text);
  if (o.minsz < 8) o.minsz = 8;
  unsigned p = 0;
  role = bench_pair((unsigned)me, (unsigned)nranks, &p);
  peer = (int)p;

  if (MPI_Win_allocate(16, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &winbase, &win) != MPI_SUCCESS)
    die("MPI_Win_allocate failed");
  winbase[0] = winbase[1] = 0;
  src = malloc(o.maxsz);
  dst = malloc(o.maxsz);
  results = malloc(sizeof(uint64_t) * (size_t)o.iters);
  if (!src || !dst || !results) die("out of memory");
  if (me == 0) {
    int v = 0, sv = 0;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    mpi_bench_version(lib, &v, &sv);
    printf("# %s: barrier, 8-byte fetch-add, Bcast/Allreduce/Reduce latency; %d ranks, ITERS %ld, MAXSZ %zu, "
           "%s, sections %s, -budget %zu; MPI %d.%d, %s\n",
           prog, nranks, o.iters, o.maxsz, o.sweep ? "size sweep" : "MAXSZ only", o.sections, o.budget,
           v, sv, lib);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  for (const char *s = o.sections; *s; s++) {
    if (*s == 'A')
      run_barrier();
    else if (*s <= 'E')
      run_atomic(*s);
    else
      run_coll(*s);
  }
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  free(results);
  free(src);
  free(dst);
  MPI_Finalize();
  return 0;
}
