/* bootstrap/wire.h -- the frames exchanged between gexrun and each rank.
 *
 * gexrun gives every rank one end of an AF_UNIX stream socketpair; its file
 * descriptor number is in the environment variable GEX_BOOT_FD, next to
 * GEX_RANK, GEX_SIZE and GEX_JOBID.  Both sides write whole frames: a
 * gexi_wire_hdr followed by 'len' payload bytes.  All integers are in host
 * byte order (both ends run on the same host).
 *
 * Rank -> gexrun (arg1 of every frame is the sender's rank, except ABORT_PEER):
 *   HELLO      arg0 = rank.  Sent once, when the rank enters gex_Client_Init;
 *              from then on the rank counts as a libgex process.
 *   ALLGATHER  payload = this rank's contribution for the next round.  Every
 *              rank sends the same length in a round, one contribution per
 *              round (the next only after the result), and length times the
 *              job size is at most GEXI_WIRE_MAX_PAYLOAD; gexrun checks this
 *              at the header, before it reads the payload.  A barrier is a
 *              round with len 0.
 *   EXIT       arg0 = exit code: the rank called gasnet_exit(code).
 *   ABORT      arg0 = exit code: the rank hit a fatal error (it has already
 *              printed the reason) and is ending the job.
 *   EXIT and ABORT may also come before HELLO, alone (gasnet_exit or a fatal
 *   error before gex_Client_Init); every other frame needs HELLO first.
 *   LEAVE      arg0 = exit code: the rank is ending by exit(code) with
 *              GASNET_CATCH_EXIT=0; its end is not a death and does not end
 *              the job.
 *   ABORT_PEER arg0 = exit code, arg1 = a rank (-1: unknown): the rank's
 *              network operation with that rank failed; it may have died.
 *              The rank has printed nothing yet: it waits for gexrun's
 *              verdict.  If a rank is seen to die within a short grace,
 *              that death is what ends the job and is reported (DIED to
 *              every rank); if the job's exit begins meanwhile, the EXIT
 *              is the answer; otherwise gexrun ends the job as this rank's
 *              abort, and tells this rank too (an ABORT naming it), which
 *              then prints why.
 * gexrun -> rank:
 *   ALLGATHER  payload = all contributions of the round, in rank order.
 *   EXIT       arg0 = exit code, arg1 = rank that called gasnet_exit.
 *   ABORT      arg0 = exit code, arg1 = rank that failed (the receiving
 *              rank itself: the answer to its ABORT_PEER, see above).
 *   DIED       arg1 = rank that died; payload = reason text (no NUL).
 *   SECRET     payload = the job's secret (GEXI_SECRET_LEN bytes), sent once,
 *              in answer to HELLO and before anything else.  It travels only
 *              on this socket (and, for remote ranks, the remote shell's
 *              stdin/stdout): never in argv or the environment.
 * A rank that receives ABORT (naming another rank) or DIED ends itself at
 * once (exit status arg0 for ABORT, 1 for DIED).  EXIT gives it the exit
 * timeout (GASNET_EXITTIMEOUT) to reach gasnet_exit by itself; it then ends
 * with status arg0 (docs/gexrun.md, "How a job ends").  EOF on the socket
 * means gexrun itself is gone, and the rank ends too.
 *
 * Multi-host jobs: ranks on another host are children of a proxy, "gexrun
 * --proxy", started there through the remote shell; its stdin and stdout are
 * the link to gexrun.  The ranks cannot tell the difference: the proxy gives
 * each one a socketpair exactly like gexrun does and relays the bytes of the
 * frames above unchanged.  The link carries frames with the same header
 * (host byte order: the hosts of a job must have the same byte order):
 *
 * proxy -> gexrun:
 *   PX_HELLO     arg0 = GX_PX_MAGIC, arg1 = version.  The first frame.
 *   PX_STARTED   arg0 = rank, arg1 = its pid on the proxy's host.
 *   PX_FROM_RANK arg0 = rank; payload = bytes the rank wrote on its socket.
 *   PX_OUTPUT    arg0 = rank, arg1 = 1 (stdout) or 2 (stderr); payload =
 *                bytes the rank wrote there.
 *   PX_EXITED    arg0 = rank, arg1 = its wait status.  Everything the rank
 *                wrote before it ended has been relayed before this frame.
 * gexrun -> proxy:
 *   PX_SETUP     arg0 = first rank, arg1 = number of ranks; payload = NUL-
 *                terminated strings: host name, job id, job size, working
 *                directory, number of environment entries E, E entries
 *                "NAME=value", then the program and its arguments.
 *   PX_TO_RANK   arg0 = rank, or -1 for every rank of the proxy except rank
 *                arg1; payload = bytes for the rank's socket.
 *   PX_SIGNAL    arg0 = signal to send to every rank of the proxy.
 * EOF on its stdin tells the proxy that gexrun is gone: it kills its ranks.
 * The proxy ends when all of its ranks have ended and been reported.
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
  GEXI_WIRE_SECRET = 6,
  GEXI_WIRE_ABORT_PEER = 7,
  GEXI_WIRE_LEAVE = 8,
  /* gexrun <-> proxy link */
  GEXI_PX_HELLO = 16,
  GEXI_PX_STARTED = 17,
  GEXI_PX_FROM_RANK = 18,
  GEXI_PX_OUTPUT = 19,
  GEXI_PX_EXITED = 20,
  GEXI_PX_SETUP = 21,
  GEXI_PX_TO_RANK = 22,
  GEXI_PX_SIGNAL = 23,
};

#define GEXI_WIRE_MAX_PAYLOAD (64u << 20) /* sanity bound on one frame */
/* A link frame may carry a whole rank frame (header + maximal payload). */
#define GEXI_PX_MAX_PAYLOAD (GEXI_WIRE_MAX_PAYLOAD + 64u)

#endif
