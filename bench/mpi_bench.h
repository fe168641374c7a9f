/* mpi_bench.h -- what the MPI benchmarks (mpi-rma-bench, mpi-coll-bench)
 * share beyond bench_args.h: how a failure and a usage error end the job. */
#ifndef GEX_MPI_BENCH_H
#define GEX_MPI_BENCH_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPI_Init, this rank and the job size; stdout line-buffered so the
 * result lines of several ranks do not interleave mid-line. */
static inline void mpi_bench_init(int *argc, char ***argv, int *me, int *nranks) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, me);
  MPI_Comm_size(MPI_COMM_WORLD, nranks);
  setvbuf(stdout, NULL, _IOLBF, 0);
}

/* The MPI standard version and the library's version string (its first
 * line), for the header line of the output. */
static inline void mpi_bench_version(char lib[MPI_MAX_LIBRARY_VERSION_STRING], int *v, int *sv) {
  int len = 0;
  MPI_Get_library_version(lib, &len);
  MPI_Get_version(v, sv);
  char *nl = strchr(lib, '\n');
  if (nl) *nl = '\0';
}

/* A failed check or MPI call: one line naming the program and rank, then
 * the whole job ends with status 1. */
__attribute__((noreturn, format(printf, 3, 4))) static inline void mpi_bench_die(
    const char *prog, int me, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: rank %d: ", prog, me);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

/* A usage error: rank 0 prints 'why' and the usage line, and the program
 * ends with status 2.  Every rank saw the same arguments.  With several
 * ranks, rank 0 ends the job at once with MPI_Abort(2) (a plain non-zero
 * return from several ranks makes Open MPI's mpirun wait seconds); the
 * others wait for it in a barrier that never completes.  Returns 2 for
 * main to return (a job of one rank). */
static inline int mpi_bench_usage_exit(int me, int nranks, const char *prog, const char *why,
                                       const char *usage_text) {
  if (me == 0) {
    fprintf(stderr, "%s: %s\nusage: %s %s\n", prog, why, prog, usage_text);
    fflush(stderr);
  }
  if (nranks > 1) {
    if (me == 0) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 2;
}

#endif
