/* transport/ofi/ofi_mr.c -- memory registration.
 *
 * The segment is registered once, at attach, for remote reads and writes
 * (and local use, for FI_MR_LOCAL providers).  Mode bits honoured:
 *   FI_MR_PROV_KEY   the provider picks the key; otherwise we ask for a
 *                    random 64-bit key (sec/random.c: a keyed hash of a
 *                    counter, under a key drawn from the kernel at
 *                    start), so that a process outside the job cannot
 *                    name the segment: the keys are exchanged only
 *                    through the bootstrap (docs/security.md).
 *                    Temporary and AM-buffer registrations get random keys
 *                    too (they allow no remote access in any case);
 *   FI_MR_VIRT_ADDR  remote addresses are virtual addresses; otherwise they
 *                    are offsets from the start of the peer's segment;
 *   FI_MR_ENDPOINT   the region is bound to the endpoint and enabled;
 *   FI_MR_ALLOCATED  segments are always backed (mapped shared memory);
 *   FI_MR_LOCAL      local buffers need a descriptor: the segment's, or a
 *                    registration made for one operation.
 * Every peer's key is learnt in the attach exchange (objects/segment.c).
 *
 * Rendezvous regions (gexi_ofi_expose) are registered for remote reads
 * and writes, with a random key like the segment's, and live as long as
 * the collective that announced them; a peer reads or writes them from
 * byte 0 at 'raddr' (their virtual address under FI_MR_VIRT_ADDR, else 0).
 */
#include "sec/random.h"
#include "transport/ofi/ofi.h"

/* Register buf; the requested key is random (ignored under FI_MR_PROV_KEY),
 * and drawn again in the unlikely case that it is taken already. */
struct fid_mr *gexi_ofi_reg(const void *buf, size_t len, uint64_t access) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  struct fid_mr *mr;
  ssize_t rc;
  int tries = 0;
  do
    rc = fi_mr_reg(o->domain, buf, len, access, 0, gexi_keygen_next(&o->mr_keys), 0, &mr, NULL);
  while (rc == -FI_ENOKEY && ++tries < 8);
  if (rc) gexi_ofi_fail("fi_mr_reg", rc);
  if (o->mr_mode & FI_MR_ENDPOINT) {
    if ((rc = fi_mr_bind(mr, &o->ep->fid, 0))) gexi_ofi_fail("fi_mr_bind", rc);
    if ((rc = fi_mr_enable(mr))) gexi_ofi_fail("fi_mr_enable", rc);
  }
  return mr;
}

void gexi_ofi_seg_register(void *base, uintptr_t size, uint64_t *key) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  uint64_t access = FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE | FI_SEND | FI_RECV;
  o->seg_mr = gexi_ofi_reg(base, size, access);
  o->seg_desc = fi_mr_desc(o->seg_mr);
  o->seg_base = (uintptr_t)base;
  o->seg_size = size;
  *key = fi_mr_key(o->seg_mr);
}

void gexi_ofi_seg_peer(gex_Rank_t jobrank, uint64_t key) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  struct ofi_peer *p = &o->peers[jobrank];
  p->key = key;
  p->nbi_key = gexi_ctx.local_index[jobrank] == GEX_RANK_INVALID ? key : 0;
  p->addr_base = (o->mr_mode & FI_MR_VIRT_ADDR) ? 0 : gexi_ctx.peers[jobrank].seg_base;
}

void *gexi_ofi_local_desc(const void *buf, size_t len, uint64_t access, struct fid_mr **tmp) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  *tmp = NULL;
  if (!(o->mr_mode & FI_MR_LOCAL) || len == 0) return NULL;
  uintptr_t a = (uintptr_t)buf;
  if (o->seg_mr && a >= o->seg_base && a - o->seg_base <= o->seg_size &&
      len <= o->seg_size - (a - o->seg_base))
    return o->seg_desc;
  *tmp = gexi_ofi_reg(buf, len, access);
  return fi_mr_desc(*tmp);
}

void *gexi_ofi_expose(const void *buf, size_t len, uint64_t *key, uint64_t *raddr) {
  struct fid_mr *mr = gexi_ofi_reg(buf, len, FI_REMOTE_READ | FI_REMOTE_WRITE);
  *key = fi_mr_key(mr);
  *raddr = (gexi_ctx.ofi->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf : 0;
  return mr;
}

void gexi_ofi_unexpose(void *handle) {
  struct fid_mr *mr = handle;
  ssize_t rc = fi_close(&mr->fid);
  if (rc) gexi_ofi_fail("fi_close(mr)", rc);
}
