# tests/shmem/shmem.cmake -- the OpenSHMEM library's tests (label "shmem";
# docs/openshmem.md).  Each program uses shmem.h only and checks every byte
# and atomic result it moved; each runs
#   shmem_<t>_n<N>         on one host, N = 1, 2, 4 and 7 PEs (7 on 2 cores)
#   shmem_<t>_net_n4       the network forced (sock, every PE its own host)
#   shmem_<t>_netmix_n4    two PEs per host, two hosts, on loopback
#   shmem_<t>_ofi_n3       over libfabric tcp;ofi_rxm, every PE its own host
#   shmem_<t>_netns        two network namespaces as two hosts, two PEs each
set(GEX_SHMEM_TESTS t_shmem_rma t_shmem_amo t_shmem_sync t_shmem_coll t_shmem_progress)
foreach(t IN LISTS GEX_SHMEM_TESTS)
  add_executable(${t} shmem/${t}.c)
  target_link_libraries(${t} PRIVATE gexshmem_static)
  foreach(n 1 2 4 7)
    add_test(NAME shmem_${t}_n${n}
      COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN} --
              $<TARGET_FILE:gexrun> -n ${n} $<TARGET_FILE:${t}> @TOKEN@)
    set_tests_properties(shmem_${t}_n${n} PROPERTIES TIMEOUT ${GEX_TEST_TIMEOUT}
      LABELS "shmem;n${n}" ENVIRONMENT "${_gex_env}" SKIP_RETURN_CODE 77)
  endforeach()
  foreach(v "net|4|GEX_SUPERNODE_MAXSIZE=1" "netmix|4|GEX_SUPERNODE_MAXSIZE=2"
            "ofi|3|GEX_SUPERNODE_MAXSIZE=1,GEX_NET_TRANSPORT=ofi,GEX_OFI_PROVIDER=tcp$<SEMICOLON>ofi_rxm")
    string(REPLACE "|" ";" f "${v}")
    list(GET f 0 tag)
    list(GET f 1 n)
    list(GET f 2 envs)
    if(tag STREQUAL "ofi" AND NOT GEX_HAVE_OFI)
      continue()
    endif()
    string(REPLACE "," ";" envs "${envs}")
    add_test(NAME shmem_${t}_${tag}_n${n}
      COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN} --
              env ${envs} $<TARGET_FILE:gexrun> -n ${n} $<TARGET_FILE:${t}> @TOKEN@)
    set_tests_properties(shmem_${t}_${tag}_n${n} PROPERTIES TIMEOUT ${GEX_TEST_TIMEOUT}
      LABELS "shmem;net;n${n}" ENVIRONMENT "${_gex_env}" SKIP_RETURN_CODE 77)
  endforeach()
  gex_add_netns_test(shmem_${t}_netns ${t} RANKS_PER_HOST 2 LABELS "shmem;net;netns")
endforeach()

# Progress without calls: the control, without the receive thread and with
# every peer on another host, sees nothing land while PE 0 spins (the runs
# above, with it, see everything).
add_test(NAME shmem_t_shmem_progress_silence_n3
  COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN} --
          env GEX_SUPERNODE_MAXSIZE=1 GASNET_RCV_THREAD=0 GEX_TEST_SILENCE=1
          $<TARGET_FILE:gexrun> -n 3 $<TARGET_FILE:t_shmem_progress> @TOKEN@)
set_tests_properties(shmem_t_shmem_progress_silence_n3 PROPERTIES TIMEOUT ${GEX_TEST_TIMEOUT}
  LABELS "shmem;net;n3" ENVIRONMENT "${_gex_env}" SKIP_RETURN_CODE 77)

# The waits may sleep on the network, a test never (t_shmem_wait_sleep.c):
# every peer over the network, in the wait mode where a wait that may sleep
# does so at once; over sock and over libfabric tcp;ofi_rxm.
add_executable(t_shmem_wait_sleep shmem/t_shmem_wait_sleep.c)
target_link_libraries(t_shmem_wait_sleep PRIVATE gexshmem_static)
foreach(v "sock|GEX_NET_TRANSPORT=sock" "ofi|GEX_NET_TRANSPORT=ofi,GEX_OFI_PROVIDER=tcp$<SEMICOLON>ofi_rxm")
  string(REPLACE "|" ";" f "${v}")
  list(GET f 0 tag)
  list(GET f 1 envs)
  if(tag STREQUAL "ofi" AND NOT GEX_HAVE_OFI)
    continue()
  endif()
  string(REPLACE "," ";" envs "${envs}")
  add_test(NAME shmem_t_shmem_wait_sleep_${tag}_n2
    COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN} --
            env GEX_SUPERNODE_MAXSIZE=1 GEX_WAIT_MODE=block ${envs}
            $<TARGET_FILE:gexrun> -n 2 $<TARGET_FILE:t_shmem_wait_sleep> @TOKEN@)
  set_tests_properties(shmem_t_shmem_wait_sleep_${tag}_n2 PROPERTIES TIMEOUT ${GEX_TEST_TIMEOUT}
    LABELS "shmem;net;n2" ENVIRONMENT "${_gex_env}" SKIP_RETURN_CODE 77)
endforeach()

# The environment (docs/openshmem.md): SHMEM_INFO, SHMEM_VERSION and the
# deprecated SMA_ names print at shmem_init (PE 0); a heap size that does not
# parse, or exceeds what a PE may have, ends the job naming the variable read.
foreach(c "info|--pass --grep SHMEM_SYMMETRIC_SIZE.*bytes.of.the.symmetric.heap|SHMEM_INFO=1"
          "smainfo|--pass --grep ^.*SMA_SYMMETRIC_SIZE,.SMA_INFO|SMA_INFO=1"
          "smaversion|--pass --grep ^libgex.OpenSHMEM.1\\.5$|SMA_VERSION=1"
          "badsize|--status 1 --grep SHMEM_SYMMETRIC_SIZE='12Q'.*not.a.size|SHMEM_SYMMETRIC_SIZE=12Q"
          "smasize|--status 1 --grep SMA_SYMMETRIC_SIZE=.*exceed|SMA_SYMMETRIC_SIZE=1T"
          "shmemfirst|--pass|SHMEM_SYMMETRIC_SIZE=8M,SMA_SYMMETRIC_SIZE=1T")
  string(REPLACE "|" ";" f "${c}")
  list(GET f 0 tag)
  list(GET f 1 judge)
  list(GET f 2 envs)
  separate_arguments(judge)
  string(REPLACE "," ";" envs "${envs}")
  add_test(NAME shmem_env_${tag}
    COMMAND ${GEX_BASH} ${GEX_EXPECT} ${judge} --within ${GEX_TEST_WITHIN} --
            env ${envs} $<TARGET_FILE:gexrun> -n 2 $<TARGET_FILE:t_shmem_rma> @TOKEN@)
  set_tests_properties(shmem_env_${tag} PROPERTIES TIMEOUT ${GEX_TEST_TIMEOUT}
    LABELS "shmem;n2" ENVIRONMENT "${_gex_env}")
endforeach()

# Misuse: one line naming the call, status 1, nothing left behind.
add_executable(t_shmem_misuse shmem/t_shmem_misuse.c)
target_link_libraries(t_shmem_misuse PRIVATE gexshmem_static)
foreach(c "nonsym|shmem_long_put: \\[0x[0-9a-f]+,\\+8\\) is not a symmetric object"
          "pe|shmem_long_put: PE 2 out of range \\(the team has 2 PEs\\)"
          "cmp|shmem_long_wait_until: cmp 42 is not one of SHMEM_CMP_"
          "free|shmem_free: 0x[0-9a-f]+ was not returned by the symmetric heap"
          "mempe|shmem_putmem: PE 2 out of range \\(the team has 2 PEs\\)"
          "memnonsym|shmem_getmem: \\[0x[0-9a-f]+,\\+8\\) is not a symmetric object")
  string(REPLACE "|" ";" f "${c}")
  list(GET f 0 mode)
  list(GET f 1 re)
  add_test(NAME shmem_misuse_${mode}
    COMMAND ${GEX_BASH} ${GEX_EXPECT} --status 1 --grep "^libgex shmem: PE [01]: ${re}"
            --within ${GEX_TEST_WITHIN} -- $<TARGET_FILE:gexrun> -n 2 $<TARGET_FILE:t_shmem_misuse> ${mode})
  set_tests_properties(shmem_misuse_${mode} PROPERTIES TIMEOUT ${GEX_TEST_TIMEOUT}
    LABELS "shmem;misuse" ENVIRONMENT "${_gex_env}")
endforeach()
# Before shmem_init: a query, and an inline put (which reaches the library).
foreach(c "before|shmem_my_pe" "membefore|shmem_putmem")
  string(REPLACE "|" ";" f "${c}")
  list(GET f 0 mode)
  list(GET f 1 call)
  add_test(NAME shmem_misuse_${mode}
    COMMAND ${GEX_BASH} ${GEX_EXPECT} --status 1
            --grep "^libgex shmem: PE -1: ${call}: called before shmem_init$"
            --within ${GEX_TEST_WITHIN} -- $<TARGET_FILE:t_shmem_misuse> ${mode})
  set_tests_properties(shmem_misuse_${mode} PROPERTIES TIMEOUT ${GEX_TEST_TIMEOUT}
    LABELS "shmem;misuse" ENVIRONMENT "${_gex_env}")
endforeach()

# The profiling interface (pshmem.h; docs/openshmem.md, "Profiling"): the
# program defines some calls itself and goes on into the library through
# their pshmem_ names, linked against the static library (weak names, no
# clash) and against the shared one (interposed), on one host and over the
# network; every call of both libraries has its two names; the header
# compiles clean in C99, C11 and C++.
foreach(kind static shared)
  add_executable(t_shmem_profiling_${kind} shmem/t_shmem_profiling.c)
  target_link_libraries(t_shmem_profiling_${kind} PRIVATE gexshmem_${kind})
  foreach(v "n2||2" "n4||4" "net_n3|GEX_SUPERNODE_MAXSIZE=1|3")
    string(REPLACE "|" ";" f "${v}")
    list(GET f 0 tag)
    list(GET f 1 envs)
    list(GET f 2 n)
    add_test(NAME shmem_profiling_${kind}_${tag}
      COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN} --
              env ${envs} $<TARGET_FILE:gexrun> -n ${n} $<TARGET_FILE:t_shmem_profiling_${kind}> @TOKEN@)
    set_tests_properties(shmem_profiling_${kind}_${tag} PROPERTIES TIMEOUT ${GEX_TEST_TIMEOUT}
      LABELS "shmem;n${n}" ENVIRONMENT "${_gex_env}")
  endforeach()
endforeach()
add_test(NAME shmem_profiling_symbols
  COMMAND ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/shmem/profiling_symbols.sh
          $<TARGET_FILE:gexshmem_shared> $<TARGET_FILE:gexshmem_static>)
set_tests_properties(shmem_profiling_symbols PROPERTIES TIMEOUT 120 LABELS "shmem")
set(_pshmem_incs -I${CMAKE_SOURCE_DIR}/include -I${CMAKE_BINARY_DIR}/include)
foreach(v "c99|${CMAKE_C_COMPILER}|-std=c99;-Wpedantic;-x;c"
          "c11|${CMAKE_C_COMPILER}|-std=c11;-Wpedantic;-x;c"
          "cxx|${CMAKE_CXX_COMPILER}|-x;c++")
  string(REPLACE "|" ";" f "${v}")
  list(GET f 0 tag)
  list(GET f 1 compiler)
  list(SUBLIST f 2 -1 flags)
  if(NOT compiler)
    continue()
  endif()
  add_test(NAME shmem_pshmem_header_${tag}
    COMMAND ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/tools/compile_check.sh -- ${compiler}
            -Wall -Wextra -Werror ${flags} ${_pshmem_incs} -fsyntax-only
            ${CMAKE_CURRENT_SOURCE_DIR}/shmem/pshmem_header.c)
  set_tests_properties(shmem_pshmem_header_${tag} PROPERTIES TIMEOUT 120 LABELS "shmem")
endforeach()
