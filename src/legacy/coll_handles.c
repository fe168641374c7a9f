/* legacy/coll_handles.c -- synchronising the handles of the GASNet-1
 * prototype collectives (gasnet_coll_try_sync* / gasnet_coll_wait_sync*).
 *
 * Every try polls the network once and advances every live operation of
 * this process (not only the one asked about): a peer may be waiting in
 * another operation for a barrier round that only this process can send.
 * The wait forms repeat the try; gasnet_AMPoll yields the CPU after a run
 * of empty polls, so a waiting rank does not starve others on a busy node.
 */
#include "legacy/coll_legacy.h"

static int try_one(gasnet_coll_handle_t *h, const char *call) {
  struct gexi_lcoll_op *op = gexi_lcoll_op_of(*h, call);
  if (!op) return 1;
  if (!gexi_lcoll_reap(op)) return 0;
  *h = GASNET_COLL_INVALID_HANDLE;
  return 1;
}

static void poll_and_advance(void) {
  gasnet_AMPoll();
  gexi_lcoll_progress();
}

int gasnet_coll_try_sync(gasnet_coll_handle_t handle) {
  if (handle == GASNET_COLL_INVALID_HANDLE) return GASNET_OK;
  gexi_lcoll_op_of(handle, "gasnet_coll_try_sync");
  poll_and_advance();
  return try_one(&handle, "gasnet_coll_try_sync") ? GASNET_OK : GASNET_ERR_NOT_READY;
}

/* OK when at least one handle completed, or when all were invalid. */
int gasnet_coll_try_sync_some(gasnet_coll_handle_t *phandle, size_t numhandles) {
  size_t live = 0, done = 0;
  for (size_t i = 0; i < numhandles; i++)
    if (gexi_lcoll_op_of(phandle[i], "gasnet_coll_try_sync_some")) live++;
  if (!live) return GASNET_OK;
  poll_and_advance();
  for (size_t i = 0; i < numhandles; i++)
    if (phandle[i] != GASNET_COLL_INVALID_HANDLE &&
        try_one(&phandle[i], "gasnet_coll_try_sync_some"))
      done++;
  return done ? GASNET_OK : GASNET_ERR_NOT_READY;
}

/* OK when every handle completed (each completed one is invalidated). */
int gasnet_coll_try_sync_all(gasnet_coll_handle_t *phandle, size_t numhandles) {
  size_t live = 0;
  for (size_t i = 0; i < numhandles; i++)
    if (gexi_lcoll_op_of(phandle[i], "gasnet_coll_try_sync_all")) live++;
  if (!live) return GASNET_OK;
  poll_and_advance();
  for (size_t i = 0; i < numhandles; i++)
    if (phandle[i] != GASNET_COLL_INVALID_HANDLE) try_one(&phandle[i], "gasnet_coll_try_sync_all");
  size_t left = 0;
  for (size_t i = 0; i < numhandles; i++) left += phandle[i] != GASNET_COLL_INVALID_HANDLE;
  return left ? GASNET_ERR_NOT_READY : GASNET_OK;
}

void gasnet_coll_wait_sync(gasnet_coll_handle_t handle) {
  gexi_lcoll_op_of(handle, "gasnet_coll_wait_sync");
  while (gasnet_coll_try_sync(handle) != GASNET_OK) {
  }
}

void gasnet_coll_wait_sync_some(gasnet_coll_handle_t *phandle, size_t numhandles) {
  for (size_t i = 0; i < numhandles; i++) gexi_lcoll_op_of(phandle[i], "gasnet_coll_wait_sync_some");
  while (gasnet_coll_try_sync_some(phandle, numhandles) != GASNET_OK) {
  }
}

void gasnet_coll_wait_sync_all(gasnet_coll_handle_t *phandle, size_t numhandles) {
  for (size_t i = 0; i < numhandles; i++) gexi_lcoll_op_of(phandle[i], "gasnet_coll_wait_sync_all");
  while (gasnet_coll_try_sync_all(phandle, numhandles) != GASNET_OK) {
  }
}
