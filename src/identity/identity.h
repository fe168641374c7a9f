/* identity/identity.h -- the conduit identity of this copy of the library.
 *
 * libgex and libgasnet-ofi-{seq,par} carry the "ofi" identity,
 * libgasnet-smp-{seq,par} the "smp" one, libgasnet-udp-{seq,par} the "udp"
 * one.  The libraries share every object
 * but one: identity/conduit_identity.c, compiled once per identity.  The
 * identity a client's headers give it (<conduit>-conduit/gex_conduit.h) is
 * a compile-time matter; this one is what the process finds at run time,
 * and it decides what a process started alone does with GASNET_PSHM_NODES
 * (bootstrap/self_spawn.c).
 */
#ifndef GEXI_IDENTITY_H
#define GEXI_IDENTITY_H

/* "ofi", "smp" or "udp". */
const char *gexi_conduit_name(void);
/* 1 for the smp identity: a process started alone with GASNET_PSHM_NODES=N
 * starts N ranks itself. */
int gexi_conduit_is_smp(void);
/* 1 where the reference's conduit of that name has one endpoint per
 * process (GASNET_MAXEPS 1: smp, udp), as the identity's header says. */
int gexi_conduit_one_ep(void);

#endif
