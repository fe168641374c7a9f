/* gex/gex_tools_diagnostics.h -- libgex: the GASNet tools' self-test of a
 * running job (gasnett_diagnostic_gethandlers, gasnett_run_diagnostics).
 *
 * Included by gasnet_tools.h when <gasnetex.h> came first, and by
 * gasnetex.h when <gasnet_tools.h> came first: the declarations need
 * GASNet-EX types, and the functions are part of libgex only (not of the
 * stand-alone tools libraries).  docs/tools.md says what they check.
 */
#ifndef GEX_TOOLS_DIAGNOSTICS_H
#define GEX_TOOLS_DIAGNOSTICS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The Active-Message handlers the diagnostics use.  Call it before or after
 * gex_Client_Init, then register the table as it is with
 * gex_EP_RegisterHandlers in every rank before gasnett_run_diagnostics: its
 * entries have index 0, and the indices the registration writes back into
 * this (library-owned) table are the ones the diagnostics send to. */
void gasnett_diagnostic_gethandlers(gex_AM_Entry_t **htable, int *htable_cnt);

/* Runs the self-test, collectively over myteam: every rank calls it with
 * the same iters, test_sections and seed.  The tools sections run with
 * threadcnt threads; the communication sections use the calling thread
 * only, with RMA and AMs to team rank 'peer', whose area starts at peerseg
 * (an address in the peer's segment, in the peer's address space); myseg is
 * the start of this rank's own area in its segment, where the ranks that
 * name it as their peer write.  Several ranks may name the same peer: each
 * writes only into its own part of the peer's area.
 * test_sections: NULL or "" runs every section, otherwise only those whose
 * letters it lists (any case).  Returns the number of errors found in the
 * whole team, the same number in every rank: 0 means every check passed. */
int gasnett_run_diagnostics(int iters, int threadcnt, const char *test_sections, gex_TM_t myteam,
                            void *myseg, gex_Rank_t peer, void *peerseg, unsigned int seed);

#ifdef __cplusplus
}
#endif

#endif /* GEX_TOOLS_DIAGNOSTICS_H */
