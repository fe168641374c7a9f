# tests/clients/clients.cmake -- libgex used as the clients of the reference
# GASNet-EX use it (label clients; docs/clients.md):
#   clients_cmake_findgasnet  a CMake project finding the installed .mak
#                             fragments as Legion/Realm's FindGASNet.cmake
#                             does, linking gasnet-ofi-par / gasnet-smp-par
#                             (cmake_client.sh, cmake_project/)
#   clients_builddir          the GASNet build directory build/gasnet asked
#                             what UPC++'s configure asks (builddir_test.sh)
#   clients_segsize           GASNET_MAX_SEGSIZE as UPC++'s launcher sets it,
#                             through gasnetrun_ofi (segsize_test.sh)
#   clients_backtrace         GASNET_BACKTRACE=1: a fatal error prints a backtrace
#   clients_headers           what the runtimes take from the headers: UPC++'s
#                             macro probe, gasnet_fwd.h alone, gasnet.h alone
#                             (tools API, system calls, the attach hook),
#                             Realm's prologue (headers_test.sh, headers/)
# Each installs what it needs into a temporary directory of the build tree
# and removes it; expect.sh checks that no process of the runs survives.
gex_add_driver_test(clients_cmake_findgasnet LABELS "clients;install" TIMEOUT 240
  COMMAND ${GEX_BASH} ${GEX_EXPECT} --status 0 --within 230 --grep "^cmake_client: ok$"
          -- ${GEX_BASH} ${CMAKE_CURRENT_LIST_DIR}/cmake_client.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}
             @TOKEN@)
gex_add_driver_test(clients_builddir LABELS "clients;install" TIMEOUT 240
  COMMAND ${GEX_BASH} ${GEX_EXPECT} --status 0 --within 230 --grep "^builddir_test: ok$"
          -- ${GEX_BASH} ${CMAKE_CURRENT_LIST_DIR}/builddir_test.sh ${CMAKE_BINARY_DIR} @TOKEN@)
gex_add_driver_test(clients_headers LABELS "clients;header" TIMEOUT 240
  COMMAND ${GEX_BASH} ${GEX_EXPECT} --status 0 --within 230 --grep "^headers_test: ok$"
          -- ${GEX_BASH} ${CMAKE_CURRENT_LIST_DIR}/headers_test.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}
             @TOKEN@)
gex_add_driver_test(clients_segsize LABELS clients TIMEOUT 120
  COMMAND ${GEX_BASH} ${GEX_EXPECT} --status 0 --within 110 --skip-status 77
          --grep "^segsize_test: ok$"
          -- ${GEX_BASH} ${CMAKE_CURRENT_LIST_DIR}/segsize_test.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}
             @TOKEN@)
if(TARGET misuse_prog)
  gex_add_driver_test(clients_backtrace LABELS "clients;misuse"
    COMMAND env GASNET_BACKTRACE=1 ${GEX_BASH} ${GEX_EXPECT} --nonzero --within 60
            --grep "^libgex: rank 0: gex_RMA_PutNBI: rank 9 out of range"
            --grep "^backtrace of process [0-9]+ "
            -- $<TARGET_FILE:gexrun> -n 4 $<TARGET_FILE:misuse_prog> rank_oob_put @TOKEN@)
endif()
