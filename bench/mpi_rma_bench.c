/* mpi_rma_bench.c -- mpi-rma-bench: the MPI counterpart of gex-testsmall and
 * gex-testlarge, with the semantics of the Intel MPI Benchmarks' IMB-RMA
 * Unidir_put / Unidir_get and IMB-MPI1 Uniband / PingPong.
 *
 *   mpirun -n 2 mpi-rma-bench [-m] [-in|-out] [-minsz N] [-budget B] ITERS MAXSZ [SECTIONS]
 *
 * Same command line, pairing and sizes as the gex-test* programs (see
 * bench_args.h): every even rank (the origin) measures against the next odd
 * rank (the target); with -m sizes 1, 2, 4, ... up to MAXSZ, else MAXSZ only.
 * Defaults: ITERS 1000, MAXSZ 4M.
 *
 * One window of MAXSZ bytes per rank comes from MPI_Win_allocate, and one
 * passive-target epoch, MPI_Win_lock_all, is opened before and closed after
 * everything, outside the timed regions (as IMB-RMA does).  The target of an
 * RMA section makes no MPI call except the barrier that ends the size.
 *
 *   A  Unidir_put, non-aggregate: ITERS x (MPI_Put; MPI_Win_flush)
 *      -> us per Put+flush: the latency
 *   B  Unidir_get, non-aggregate: ITERS x (MPI_Get; MPI_Win_flush)
 *   C  Unidir_put, aggregate: ITERS x MPI_Put, one MPI_Win_flush at the end
 *      -> bandwidth
 *   D  Unidir_get, aggregate: ITERS x MPI_Get, one MPI_Win_flush
 *   E  Uniband: windows of 64 MPI_Isend (origin) / MPI_Irecv (target) and
 *      MPI_Waitall, then a 1-byte acknowledgement from the target; ITERS
 *      messages in all -> us per message and bandwidth
 *   F  PingPong: MPI_Send / MPI_Recv there and back; us = half the round
 *      trip (IMB's convention) and bandwidth = size / that time
 *
 * All sections write to / read from offset 0 of the peer's window, like
 * IMB-RMA and gex-testlarge.  -in: the local buffer is the second half of
 * the origin's own window (which is then 2 x MAXSZ), -out: malloc.
 *
 * One line per size and section:
 *   A:   0 -        8 byte :    1000 iters, latency    123.456 us total,    0.12346 us ave.,     64.800 MB/s,     61.798 MiB/s (Unidir_put non-aggregate)
 * "us ave." is the time per operation as defined above; MB/s is 10^6
 * bytes per second (IMB's unit), MiB/s 2^20 bytes per second (libgex's).
 * Lines starting with '#' are comments.
 *
 * Data check, once per size after timing: A-D Put a fresh pattern, flush,
 * Get it back, flush, compare; E-F the receiver compares the last message.
 * Wrong data ends the job with status 1 (MPI_Abort).  Bad arguments print a
 * usage line and exit with status 2.
 */
#include <mpi.h>

#include <stdarg.h>
#include <stdlib.h>

#include "bench_args.h"
#include "mpi_bench.h"

static const char *prog = "mpi-rma-bench";
static const char *usage_text =
    "[-m] [-in|-out] [-minsz N] [-budget BYTES] ITERS MAXSZ [SECTIONS: A=Unidir_put "
    "B=Unidir_get C=Unidir_put aggregate D=Unidir_get aggregate E=Uniband F=PingPong]";

#define UNIBAND_WINDOW 64
#define TAG_DATA 1
#define TAG_ACK 2

static int me, nranks, peer, role;
static bench_opts_t o = {.iters = 1000, .maxsz = (size_t)4 << 20, .minsz = 1};
static MPI_Win win;
static unsigned char *winbase, *loc, *chk;
static MPI_Request reqs[UNIBAND_WINDOW];

#define die(...) mpi_bench_die(prog, me, __VA_ARGS__)

static const char *opname(char s) {
  switch (s) {
    case 'A': return "Unidir_put non-aggregate";
    case 'B': return "Unidir_get non-aggregate";
    case 'C': return "Unidir_put aggregate";
    case 'D': return "Unidir_get aggregate";
    case 'E': return "Uniband";
    default: return "PingPong";
  }
}

/* MPI counts are ints; MAXSZ is limited accordingly at start-up. */
static void put(size_t sz) { MPI_Put(loc, (int)sz, MPI_BYTE, peer, 0, (int)sz, MPI_BYTE, win); }
static void get(size_t sz) { MPI_Get(loc, (int)sz, MPI_BYTE, peer, 0, (int)sz, MPI_BYTE, win); }

/* The origin's (role SENDER) or the target's part of n operations. */
static void ops(char s, size_t sz, long n) {
  switch (s) {
    case 'A':
    case 'B':
      if (role != BENCH_SENDER) return;
      for (long i = 0; i < n; i++) {
        if (s == 'A') put(sz); else get(sz);
        MPI_Win_flush(peer, win);
      }
      return;
    case 'C':
    case 'D':
      if (role != BENCH_SENDER) return;
      for (long i = 0; i < n; i++) {
        if (s == 'C') put(sz); else get(sz);
      }
      MPI_Win_flush(peer, win);
      return;
    case 'E':
      for (long done = 0; done < n;) {
        int w = (int)(n - done < UNIBAND_WINDOW ? n - done : UNIBAND_WINDOW);
        unsigned char ackbyte = 0;
        for (int k = 0; k < w; k++) {
          if (role == BENCH_SENDER)
            MPI_Isend(loc, (int)sz, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[k]);
          else
            MPI_Irecv(loc, (int)sz, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[k]);
        }
        MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE);
        if (role == BENCH_SENDER)
          MPI_Recv(&ackbyte, 1, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
          MPI_Send(&ackbyte, 1, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD);
        done += w;
      }
      return;
    default:
      for (long i = 0; i < n; i++) {
        if (role == BENCH_SENDER) {
          MPI_Send(loc, (int)sz, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD);
          MPI_Recv(loc, (int)sz, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          MPI_Recv(loc, (int)sz, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(loc, (int)sz, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD);
        }
      }
      return;
  }
}

static void verify(char s, size_t sz) {
  size_t bad;
  if (s <= 'D') {
    if (role != BENCH_SENDER) return;
    bench_fill(loc, sz, sz, s);
    put(sz);
    MPI_Win_flush(peer, win);
    memset(loc, 0, sz);
    get(sz);
    MPI_Win_flush(peer, win);
    if ((bad = bench_check(loc, sz, sz, s)) != (size_t)-1)
      die("RMA data check failed at size %zu: byte %zu is %#x, expected %#x", sz, bad, loc[bad],
          bench_pattern(sz, s, bad));
    return;
  }
  /* E, F: one more message from the sender, checked by the receiver. */
  if (role == BENCH_SENDER) {
    bench_fill(loc, sz, sz, s);
    MPI_Send(loc, (int)sz, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD);
  } else if (role == BENCH_RECEIVER) {
    memset(chk, 0, sz);
    MPI_Recv(chk, (int)sz, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if ((bad = bench_check(chk, sz, sz, s)) != (size_t)-1)
      die("message data check failed at size %zu: byte %zu is %#x, expected %#x", sz, bad, chk[bad],
          bench_pattern(sz, s, bad));
  }
}

static void run(char s) {
  if (nranks == 1 && s >= 'E') return; /* message passing needs a partner */
  for (size_t sz = bench_first_size(&o, SIZE_MAX); sz; sz = bench_next_size(&o, SIZE_MAX, sz)) {
    long iters = bench_iters_at(&o, sz), warm = bench_warmup(iters);
    memset(loc, 0x5a, sz);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = 0, t1 = 0;
    if (role != BENCH_IDLE) {
      ops(s, sz, warm);
      if (s >= 'E') MPI_Barrier(MPI_COMM_WORLD); /* both sides start together */
      t0 = MPI_Wtime();
      ops(s, sz, iters);
      t1 = MPI_Wtime();
      verify(s, sz);
    } else if (s >= 'E') {
      MPI_Barrier(MPI_COMM_WORLD);
    }
    if (role == BENCH_SENDER) {
      double total = (t1 - t0) * 1e6; /* us */
      if (total <= 0) total = 0.001;
      double per = total / (double)iters;
      if (s == 'F') per /= 2; /* IMB PingPong: half the round trip */
      double bps = (double)sz / (per / 1e6);
      printf("%c: %3d - %10zu byte : %7ld iters, latency %12.3f us total, %10.5f us ave., "
             "%14.3f MB/s, %14.3f MiB/s (%s)\n",
             s, me, sz, iters, total, per, bps / 1e6, bps / 1048576.0, opname(s));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  mpi_bench_init(&argc, &argv, &me, &nranks);
  const char *why = NULL;
  char whybuf[160];
  if (bench_parse(argc, argv, "ABCDEF", &o) != 0) {
    why = o.error;
  } else if (o.maxsz > (size_t)1 << 30) {
    snprintf(whybuf, sizeof whybuf, "MAXSZ %zu is above the 1 GiB this program allows", o.maxsz);
    why = whybuf;
  }
  if (why) return mpi_bench_usage_exit(me, nranks, prog, why, usage_text);
  unsigned p = 0;
  role = bench_pair((unsigned)me, (unsigned)nranks, &p);
  peer = (int)p;

  size_t winsize = o.in_seg ? 2 * bench_round_page(o.maxsz) : o.maxsz;
  if (MPI_Win_allocate((MPI_Aint)winsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &winbase, &win) !=
      MPI_SUCCESS) {
    fprintf(stderr, "%s: MPI_Win_allocate(%zu) failed\n", prog, winsize);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (o.in_seg) {
    loc = winbase + bench_round_page(o.maxsz);
  } else {
    void *m = NULL;
    if (posix_memalign(&m, 4096, o.maxsz) != 0) die("out of memory (%zu bytes)", o.maxsz);
    loc = m;
  }
  chk = malloc(o.maxsz);
  if (!chk) die("out of memory (%zu bytes)", o.maxsz);

  if (me == 0) {
    int v = 0, sv = 0;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    mpi_bench_version(lib, &v, &sv);
    printf("# %s: IMB-RMA Unidir_put/get, Uniband, PingPong; MB/s = 10^6 B/s, MiB/s = 2^20 B/s; "
           "%d ranks, ITERS %ld, MAXSZ %zu, %s, local buffer %s the window, sections %s, "
           "-budget %zu; MPI %d.%d, %s\n",
           prog, nranks, o.iters, o.maxsz, o.sweep ? "size sweep" : "MAXSZ only",
           o.in_seg ? "inside" : "outside", o.sections, o.budget, v, sv, lib);
  }
  MPI_Win_lock_all(0, win);
  for (const char *s = o.sections; *s; s++) run(*s);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  if (!o.in_seg) free(loc);
  free(chk);
  MPI_Finalize();
  return 0;
}
