# tests/launch/launch.cmake -- jobs started by other launchers than gexrun.
# Included from tests/CMakeLists.txt.
#
# PMIx (label "pmix"): Open MPI's mpirun starts existing conformance tests,
# t_exit and fault_prog; see tests/launch/mpirun.sh.  Registered only when
# libgex has the PMIx bootstrap; the driver skips (77) without mpirun.
if(GEX_HAVE_PMIX)
  set(_gex_mpirun ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/launch/mpirun.sh)
  foreach(t t_queries t_rma t_am_medium t_barrier t_coll t_team)
    gex_add_driver_test(pmix_${t}_n4 LABELS "pmix;n4" TIMEOUT 90
      COMMAND ${_gex_mpirun} pass 4 $<TARGET_FILE:${t}>)
  endforeach()
  gex_add_driver_test(pmix_t_rma_n7 LABELS "pmix;n7" TIMEOUT 90
    COMMAND ${_gex_mpirun} pass 7 $<TARGET_FILE:t_rma>)
  # gasnet_exit(code) by one rank (or all) ends the job; mpirun exits with code.
  # Leaving by exit()/return from main ends the job the same way.
  foreach(c "blockuntil|7" "handler|5" "zero|0" "all|9" "thread|6" "return|8" "exit_all|2" "big|232"
            "sigint|4")
    string(REPLACE "|" ";" f "${c}")
    list(GET f 0 cmode)
    list(GET f 1 ccode)
    gex_add_driver_test(pmix_t_exit_${cmode}_n4 LABELS "pmix;exit;n4" TIMEOUT 90
      COMMAND ${_gex_mpirun} status ${ccode} 4 $<TARGET_FILE:t_exit> ${cmode})
  endforeach()
  # GASNET_CATCH_EXIT=0: a collective exit(0) is a clean end of the job.
  gex_add_driver_test(pmix_t_exit_leave_n4 LABELS "pmix;exit;n4" TIMEOUT 90
    COMMAND env GASNET_CATCH_EXIT=0 ${_gex_mpirun} status 0 4 $<TARGET_FILE:t_exit> leave)
  # A process of the job never joins the bootstrap: the fence times out.
  gex_add_driver_test(pmix_bootstrap_timeout_n2 LABELS "pmix;fault;n2" TIMEOUT 60
    COMMAND ${_gex_mpirun} timeout 2 $<TARGET_FILE:t_queries>)
  gex_add_driver_test(pmix_fault_kill_rank_n4 LABELS "pmix;fault;n4" TIMEOUT 90
    COMMAND ${_gex_mpirun} kill 4 $<TARGET_FILE:fault_prog>)
  # The same with every peer over the network: the survivors' failed
  # connections to the dead rank must not turn the job's status (137, the
  # death's) into their abort's (1); 3 times.
  gex_add_driver_test(pmix_net_fault_kill_rank_n4 LABELS "pmix;fault;net;net_sock;n4" TIMEOUT 120
    COMMAND env GEX_SUPERNODE_MAXSIZE=1 GEX_NET_TRANSPORT=sock ${GEX_BASH}
            ${CMAKE_CURRENT_SOURCE_DIR}/repeat.sh 3 ${_gex_mpirun} kill 4 $<TARGET_FILE:fault_prog>)
  # mpirun itself killed: the ranks notice their launcher is gone and end.
  gex_add_driver_test(pmix_fault_kill_launcher_n4 LABELS "pmix;fault;n4" TIMEOUT 90
    COMMAND ${_gex_mpirun} killlauncher 4 $<TARGET_FILE:fault_prog>)
endif()
