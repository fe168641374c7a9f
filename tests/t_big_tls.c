/* t_big_tls.c -- a client whose threads carry a large static thread-local
 * block (1 MiB of _Thread_local data) must be able to start: libgex may not
 * assume that threads it creates internally fit in a small fixed stack (glibc
 * carves static TLS out of each new thread's stack).  Client threads with
 * the same TLS communicate afterwards, to show that the job really works.
 */
#include "test_util.h"

#include <pthread.h>

#define TLS_BYTES (1 << 20)
static _Thread_local unsigned char big[TLS_BYTES];

static void *worker(void *arg) {
  gex_Rank_t peer = (gex_Rank_t)(uintptr_t)arg;
  test_fill(big, TLS_BYTES, test_seed(T.rank, peer, 1, 1));
  CHECK(gex_RMA_PutBlocking(T.tm, peer, T.peer_seg[peer] + (size_t)T.rank * 64, big, 64, 0) == 0);
  CHECK(test_verify(big, TLS_BYTES, test_seed(T.rank, peer, 1, 1)) < 0);
  return NULL;
}

int main(int argc, char **argv) {
  memset(big, 1, sizeof big);
  test_init(&argc, &argv, "T_BIG_TLS", 64 * 64, NULL, 0);
  CHECK(T.size <= 64);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, worker, (void *)(uintptr_t)((T.rank + 1) % T.size)) == 0);
  CHECK(pthread_join(th, NULL) == 0);
  test_barrier();
  gex_Rank_t from = (T.rank + T.size - 1) % T.size;
  CHECK(test_verify(T.seg_base + (size_t)from * 64, 64, test_seed(from, T.rank, 1, 1)) < 0);
  CHECK(big[0] == 1 && big[TLS_BYTES - 1] == 1);
  test_finish();
}
