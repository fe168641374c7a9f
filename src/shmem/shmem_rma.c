/* src/shmem/shmem_rma.c -- put and get: typed, sized and mem; blocking,
 * _nbi, single elements (p, g), strided (iput, iget), and put with signal.
 *
 * A PE whose heap is mapped here is written and read with memcpy.  Every
 * other transfer is a libgex RMA on the world team (heap) or on the static
 * data's endpoint pair.  A blocking put returns once the source may be
 * reused (GEX_EVENT_NOW) and completes remotely by the next quiet; a
 * put_nbi defers even that to the quiet (GEX_EVENT_DEFER).
 */
#include "shmem/shmem_internal.h"

void gexs_put(const char *call, void *dest, const void *src, size_t n, int pe, int nbi) {
  if (n == 0) return;
  struct gexs_where w;
  gexs_where(call, dest, n, pe, &w);
  if (w.local) {
    memcpy(w.local, src, n);
    return;
  }
  gex_RMA_PutNBI(w.tm, (gex_Rank_t)pe, w.owner, (void *)src, n,
                 nbi ? GEX_EVENT_DEFER : GEX_EVENT_NOW, 0);
}

void gexs_get(const char *call, void *dest, const void *src, size_t n, int pe, int nbi) {
  if (n == 0) return;
  /* A loop of gets from this PE waits for others' puts: those from other
   * hosts land by this PE's progress. */
  if (pe == gexs.me) gexs_poll();
  struct gexs_where w;
  gexs_where(call, src, n, pe, &w);
  if (w.local) {
    memcpy(dest, w.local, n);
    return;
  }
  if (nbi)
    gex_RMA_GetNBI(w.tm, dest, (gex_Rank_t)pe, w.owner, n, 0);
  else
    gex_RMA_GetBlocking(w.tm, dest, (gex_Rank_t)pe, w.owner, n, 0);
}

/* Strided.  The remote object's span [first, last element] in one place
 * that is not mapped here (another host's PE, or another PE's static
 * data): one libgex strided VIS operation of nelems elements.  Otherwise
 * -- mapped, or strides below 1, which VIS would refuse as overlapping --
 * element by element.  An iput's source is reusable on return
 * (GEX_FLAG_ENABLE_LEAF_LC: copied or sent by then); an iget waits for
 * the elements it read. */
static int strided_remote(const char *call, const char *remote, ptrdiff_t rst, size_t nelems,
                          size_t size, int pe, struct gexs_where *w) {
  if (nelems < 2 || rst < 1) return 0;
  gexs_where(call, remote, (size_t)(nelems - 1) * (size_t)rst * size + size, pe, w);
  return w->local == NULL;
}

static void iput(const char *call, char *dest, const char *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t size, int pe) {
  struct gexs_where w;
  if (sst >= 1 && strided_remote(call, dest, dst, nelems, size, pe, &w)) {
    const ptrdiff_t ds[1] = {dst * (ptrdiff_t)size}, ss[1] = {sst * (ptrdiff_t)size};
    gex_VIS_StridedPutNBI(w.tm, (gex_Rank_t)pe, w.owner, ds, (void *)src, ss, size, &nelems, 1,
                          GEX_FLAG_ENABLE_LEAF_LC);
    return;
  }
  for (size_t i = 0; i < nelems; i++)
    gexs_put(call, dest + (ptrdiff_t)i * dst * (ptrdiff_t)size,
             src + (ptrdiff_t)i * sst * (ptrdiff_t)size, size, pe, 0);
}

static void iget(const char *call, char *dest, const char *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t size, int pe) {
  struct gexs_where w;
  if (dst >= 1 && strided_remote(call, src, sst, nelems, size, pe, &w)) {
    const ptrdiff_t ds[1] = {dst * (ptrdiff_t)size}, ss[1] = {sst * (ptrdiff_t)size};
    gex_VIS_StridedGetBlocking(w.tm, dest, ds, (gex_Rank_t)pe, w.owner, ss, size, &nelems, 1, 0);
    return;
  }
  for (size_t i = 0; i < nelems; i++)
    gexs_get(call, dest + (ptrdiff_t)i * dst * (ptrdiff_t)size,
             src + (ptrdiff_t)i * sst * (ptrdiff_t)size, size, pe, 1);
  gex_NBI_Wait(GEX_EC_GET, 0);
}

/* The data lands before the signal: put, complete it remotely, then the
 * signal as an atomic set or add on the 64-bit signal object. */
static void put_signal(const char *call, void *dest, const void *src, size_t n,
                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
    gexs_fatal(call, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", sig_op);
  if (n) {
    struct gexs_where w;
    gexs_where(call, dest, n, pe, &w);
    if (w.local) {
      memcpy(w.local, src, n);
      atomic_thread_fence(memory_order_release);
    } else {
      gex_RMA_PutBlocking(w.tm, (gex_Rank_t)pe, w.owner, (void *)src, n, 0);
    }
  }
  gexs_amo(call, sig_addr, pe, sizeof(uint64_t), GEXS_K_INT,
           sig_op == SHMEM_SIGNAL_SET ? GEX_OP_SET : GEX_OP_ADD, signal, 0, NULL, 1);
}

#define GEXS_PE(call, ctx, pe) gexs_pe(call, ctx, pe)

/* ---- typed ---- */
#define GEXS_DEF_RMA(TYPE, NAME)                                                            \
  GEXS_PROFILED(shmem_ctx_##NAME##_put)                                                     \
  void shmem_ctx_##NAME##_put(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,              \
                              size_t nelems, int pe) {                                      \
    const char *c = "shmem_" #NAME "_put";                                                  \
    gexs_put(c, dest, source, nelems * sizeof(TYPE), GEXS_PE(c, ctx, pe), 0);               \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_put)                                                         \
  void shmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe) {          \
    pshmem_ctx_##NAME##_put(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);                   \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_put_nbi)                                                 \
  void shmem_ctx_##NAME##_put_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,          \
                                  size_t nelems, int pe) {                                  \
    const char *c = "shmem_" #NAME "_put_nbi";                                              \
    gexs_put(c, dest, source, nelems * sizeof(TYPE), GEXS_PE(c, ctx, pe), 1);               \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_put_nbi)                                                     \
  void shmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe) {      \
    pshmem_ctx_##NAME##_put_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);               \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_get)                                                     \
  void shmem_ctx_##NAME##_get(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,              \
                              size_t nelems, int pe) {                                      \
    const char *c = "shmem_" #NAME "_get";                                                  \
    gexs_get(c, dest, source, nelems * sizeof(TYPE), GEXS_PE(c, ctx, pe), 0);               \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_get)                                                         \
  void shmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe) {          \
    pshmem_ctx_##NAME##_get(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);                   \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_get_nbi)                                                 \
  void shmem_ctx_##NAME##_get_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,          \
                                  size_t nelems, int pe) {                                  \
    const char *c = "shmem_" #NAME "_get_nbi";                                              \
    gexs_get(c, dest, source, nelems * sizeof(TYPE), GEXS_PE(c, ctx, pe), 1);               \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_get_nbi)                                                     \
  void shmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe) {      \
    pshmem_ctx_##NAME##_get_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);               \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_p)                                                       \
  void shmem_ctx_##NAME##_p(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe) {              \
    const char *c = "shmem_" #NAME "_p";                                                    \
    gexs_put(c, dest, &value, sizeof(TYPE), GEXS_PE(c, ctx, pe), 0);                        \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_p)                                                           \
  void shmem_##NAME##_p(TYPE *dest, TYPE value, int pe) {                                   \
    pshmem_ctx_##NAME##_p(SHMEM_CTX_DEFAULT, dest, value, pe);                              \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_g)                                                       \
  TYPE shmem_ctx_##NAME##_g(shmem_ctx_t ctx, const TYPE *source, int pe) {                  \
    const char *c = "shmem_" #NAME "_g";                                                    \
    TYPE v;                                                                                 \
    gexs_get(c, &v, source, sizeof(TYPE), GEXS_PE(c, ctx, pe), 0);                          \
    return v;                                                                               \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_g)                                                           \
  TYPE shmem_##NAME##_g(const TYPE *source, int pe) {                                       \
    return pshmem_ctx_##NAME##_g(SHMEM_CTX_DEFAULT, source, pe);                            \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_iput)                                                    \
  void shmem_ctx_##NAME##_iput(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,             \
                               ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {       \
    const char *c = "shmem_" #NAME "_iput";                                                 \
    iput(c, (char *)dest, (const char *)source, dst, sst, nelems, sizeof(TYPE),             \
         GEXS_PE(c, ctx, pe));                                                              \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_iput)                                                        \
  void shmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,    \
                           size_t nelems, int pe) {                                         \
    pshmem_ctx_##NAME##_iput(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe);        \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_iget)                                                    \
  void shmem_ctx_##NAME##_iget(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,             \
                               ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {       \
    const char *c = "shmem_" #NAME "_iget";                                                 \
    iget(c, (char *)dest, (const char *)source, dst, sst, nelems, sizeof(TYPE),             \
         GEXS_PE(c, ctx, pe));                                                              \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_iget)                                                        \
  void shmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,    \
                           size_t nelems, int pe) {                                         \
    pshmem_ctx_##NAME##_iget(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe);        \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_put_signal)                                              \
  void shmem_ctx_##NAME##_put_signal(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,       \
                                     size_t nelems, uint64_t *sig_addr, uint64_t signal,    \
                                     int sig_op, int pe) {                                  \
    const char *c = "shmem_" #NAME "_put_signal";                                           \
    put_signal(c, dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op,            \
               GEXS_PE(c, ctx, pe));                                                        \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_put_signal)                                                  \
  void shmem_##NAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems,             \
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    pshmem_ctx_##NAME##_put_signal(SHMEM_CTX_DEFAULT, dest, source, nelems, sig_addr,       \
                                  signal, sig_op, pe);                                      \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_put_signal_nbi)                                          \
  void shmem_ctx_##NAME##_put_signal_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,   \
                                         size_t nelems, uint64_t *sig_addr,                 \
                                         uint64_t signal, int sig_op, int pe) {             \
    const char *c = "shmem_" #NAME "_put_signal_nbi";                                       \
    put_signal(c, dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op,            \
               GEXS_PE(c, ctx, pe));                                                        \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_put_signal_nbi)                                              \
  void shmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t nelems,         \
                                     uint64_t *sig_addr, uint64_t signal, int sig_op,       \
                                     int pe) {                                              \
    pshmem_ctx_##NAME##_put_signal_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems, sig_addr,   \
                                      signal, sig_op, pe);                                  \
  }
GEXS_RMA_TYPES(GEXS_DEF_RMA)

/* ---- sized and mem: the same calls on bytes ---- */
#define GEXS_DEF_BYTES(SUFFIX, BYTES)                                                       \
  GEXS_PROFILED(shmem_ctx_put##SUFFIX)                                                      \
  void shmem_ctx_put##SUFFIX(shmem_ctx_t ctx, void *dest, const void *source,               \
                             size_t nelems, int pe) {                                       \
    const char *c = "shmem_put" #SUFFIX;                                                    \
    gexs_put(c, dest, source, nelems * (BYTES), GEXS_PE(c, ctx, pe), 0);                    \
  }                                                                                         \
  GEXS_PROFILED(shmem_put##SUFFIX)                                                          \
  void shmem_put##SUFFIX(void *dest, const void *source, size_t nelems, int pe) {           \
    pshmem_ctx_put##SUFFIX(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);                    \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_put##SUFFIX##_nbi)                                                \
  void shmem_ctx_put##SUFFIX##_nbi(shmem_ctx_t ctx, void *dest, const void *source,         \
                                   size_t nelems, int pe) {                                 \
    const char *c = "shmem_put" #SUFFIX "_nbi";                                             \
    gexs_put(c, dest, source, nelems * (BYTES), GEXS_PE(c, ctx, pe), 1);                    \
  }                                                                                         \
  GEXS_PROFILED(shmem_put##SUFFIX##_nbi)                                                    \
  void shmem_put##SUFFIX##_nbi(void *dest, const void *source, size_t nelems, int pe) {     \
    pshmem_ctx_put##SUFFIX##_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);              \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_get##SUFFIX)                                                      \
  void shmem_ctx_get##SUFFIX(shmem_ctx_t ctx, void *dest, const void *source,               \
                             size_t nelems, int pe) {                                       \
    const char *c = "shmem_get" #SUFFIX;                                                    \
    gexs_get(c, dest, source, nelems * (BYTES), GEXS_PE(c, ctx, pe), 0);                    \
  }                                                                                         \
  GEXS_PROFILED(shmem_get##SUFFIX)                                                          \
  void shmem_get##SUFFIX(void *dest, const void *source, size_t nelems, int pe) {           \
    pshmem_ctx_get##SUFFIX(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);                    \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_get##SUFFIX##_nbi)                                                \
  void shmem_ctx_get##SUFFIX##_nbi(shmem_ctx_t ctx, void *dest, const void *source,         \
                                   size_t nelems, int pe) {                                 \
    const char *c = "shmem_get" #SUFFIX "_nbi";                                             \
    gexs_get(c, dest, source, nelems * (BYTES), GEXS_PE(c, ctx, pe), 1);                    \
  }                                                                                         \
  GEXS_PROFILED(shmem_get##SUFFIX##_nbi)                                                    \
  void shmem_get##SUFFIX##_nbi(void *dest, const void *source, size_t nelems, int pe) {     \
    pshmem_ctx_get##SUFFIX##_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems, pe);              \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_put##SUFFIX##_signal)                                             \
  void shmem_ctx_put##SUFFIX##_signal(shmem_ctx_t ctx, void *dest, const void *source,      \
                                      size_t nelems, uint64_t *sig_addr, uint64_t signal,   \
                                      int sig_op, int pe) {                                 \
    const char *c = "shmem_put" #SUFFIX "_signal";                                          \
    put_signal(c, dest, source, nelems * (BYTES), sig_addr, signal, sig_op,                 \
               GEXS_PE(c, ctx, pe));                                                        \
  }                                                                                         \
  GEXS_PROFILED(shmem_put##SUFFIX##_signal)                                                 \
  void shmem_put##SUFFIX##_signal(void *dest, const void *source, size_t nelems,            \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    pshmem_ctx_put##SUFFIX##_signal(SHMEM_CTX_DEFAULT, dest, source, nelems, sig_addr,      \
                                   signal, sig_op, pe);                                     \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_put##SUFFIX##_signal_nbi)                                         \
  void shmem_ctx_put##SUFFIX##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,  \
                                          size_t nelems, uint64_t *sig_addr,                \
                                          uint64_t signal, int sig_op, int pe) {            \
    const char *c = "shmem_put" #SUFFIX "_signal_nbi";                                      \
    put_signal(c, dest, source, nelems * (BYTES), sig_addr, signal, sig_op,                 \
               GEXS_PE(c, ctx, pe));                                                        \
  }                                                                                         \
  GEXS_PROFILED(shmem_put##SUFFIX##_signal_nbi)                                             \
  void shmem_put##SUFFIX##_signal_nbi(void *dest, const void *source, size_t nelems,        \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op,      \
                                      int pe) {                                             \
    pshmem_ctx_put##SUFFIX##_signal_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems, sig_addr,  \
                                       signal, sig_op, pe);                                 \
  }
#define GEXS_DEF_SIZED(BITS, BYTES)                                                         \
  GEXS_DEF_BYTES(BITS, BYTES)                                                               \
  GEXS_PROFILED(shmem_ctx_iput##BITS)                                                       \
  void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                            ptrdiff_t sst, size_t nelems, int pe) {                         \
    const char *c = "shmem_iput" #BITS;                                                     \
    iput(c, dest, source, dst, sst, nelems, BYTES, GEXS_PE(c, ctx, pe));                    \
  }                                                                                         \
  GEXS_PROFILED(shmem_iput##BITS)                                                           \
  void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,       \
                        size_t nelems, int pe) {                                            \
    pshmem_ctx_iput##BITS(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe);           \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_iget##BITS)                                                       \
  void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                            ptrdiff_t sst, size_t nelems, int pe) {                         \
    const char *c = "shmem_iget" #BITS;                                                     \
    iget(c, dest, source, dst, sst, nelems, BYTES, GEXS_PE(c, ctx, pe));                    \
  }                                                                                         \
  GEXS_PROFILED(shmem_iget##BITS)                                                           \
  void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,       \
                        size_t nelems, int pe) {                                            \
    pshmem_ctx_iget##BITS(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe);           \
  }
GEXS_SIZED_TYPES(GEXS_DEF_SIZED)
GEXS_DEF_BYTES(mem, 1)
