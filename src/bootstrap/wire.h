/* bootstrap/wire.h -- the frames exchanged between gexrun and each rank.
 *
 * gexrun gives every rank one end of an AF_UNIX stream socketpair; its file
 * descriptor number is in the environment variable GEX_BOOT_FD, next to
 * GEX_RANK, GEX_SIZE and GEX_JOBID.  Both sides write whole frames: a
 * gexi_wire_hdr followed by 'len' payload bytes.  All integers are in host
 * byte order (both ends run on the same host).
 *
 * Rank -> gexrun:
 *   HELLO      arg0 = rank.  Sent once, when the rank enters gex_Client_Init;
 *              from then on the rank counts as a libgex process.
 *   ALLGATHER  payload = this rank's contribution for the next round.  Every
 *              rank sends the same length in a round.  A barrier is a round
 *              with len 0.
 *   EXIT       arg0 = exit code: the rank called gasnet_exit(code).
 *   ABORT      arg0 = exit code: the rank hit a fatal error (it has already
 *              printed the reason) and is ending the job.
 * gexrun -> rank:
 *   ALLGATHER  payload = all contributions of the round, in rank order.
 *   EXIT       arg0 = exit code, arg1 = rank that called gasnet_exit.
 *   ABORT      arg0 = exit code, arg1 = rank that failed.
 *   DIED       arg1 = rank that died; payload = reason text (no NUL).
 * A rank that receives EXIT, ABORT or DIED ends itself at once (exit status
 * arg0 for EXIT and ABORT, 1 for DIED); EOF on the socket means gexrun
 * itself is gone, and the rank ends too.
 */
#ifndef GEXI_BOOTSTRAP_WIRE_H
#define GEXI_BOOTSTRAP_WIRE_H

#include <stdint.h>

struct gexi_wire_hdr {
  uint32_t type;
  uint32_t len;
  int32_t arg0;
  int32_t arg1;
};

enum gexi_wire_type {
  GEXI_WIRE_HELLO = 1,
  GEXI_WIRE_ALLGATHER = 2,
  GEXI_WIRE_EXIT = 3,
  GEXI_WIRE_ABORT = 4,
  GEXI_WIRE_DIED = 5,
};

#define GEXI_WIRE_MAX_PAYLOAD (64u << 20) /* sanity bound on one frame */

#endif
