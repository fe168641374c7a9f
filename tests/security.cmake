# tests/security.cmake -- the security tests (label "security"; docs/security.md).
#
#   t_siphash            known-answer test of the SipHash-2-4 MAC (published vectors)
#   t_keygen             the registration-key stream: keyed hashes, no repeats
add_executable(t_siphash t_siphash.c ${CMAKE_SOURCE_DIR}/src/sec/siphash.c)
target_include_directories(t_siphash PRIVATE ${CMAKE_SOURCE_DIR}/src)
add_test(NAME t_siphash COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN} --
         $<TARGET_FILE:t_siphash> @TOKEN@)
set_tests_properties(t_siphash PROPERTIES TIMEOUT ${GEX_TEST_TIMEOUT} LABELS "security"
                     ENVIRONMENT "${_gex_env}" SKIP_RETURN_CODE 77)
gex_test_program(t_keygen)
target_include_directories(t_keygen PRIVATE ${CMAKE_SOURCE_DIR}/src)
add_test(NAME t_keygen COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN} --
         $<TARGET_FILE:t_keygen> @TOKEN@)
set_tests_properties(t_keygen PROPERTIES TIMEOUT ${GEX_TEST_TIMEOUT} LABELS "security"
                     ENVIRONMENT "${_gex_env}")

# Attacks from outside the job (sec_attack.sh): an endpoint of the same
# provider reads and writes a rank's segment with guessed keys (rma), or
# sends forged, truncated, oversized and mutated messages (am) or 1 GiB of
# them as fast as it can (flood); on loopback and across two network
# namespaces; and (replay) a stream captured from one job written into
# another.
gex_test_program(t_sec_victim)
target_include_directories(t_sec_victim PRIVATE ${CMAKE_SOURCE_DIR}/src)
if(GEX_HAVE_OFI)
  target_include_directories(t_sec_victim PRIVATE ${GEX_FABRIC_INCLUDE})
endif()
target_compile_definitions(t_sec_victim PRIVATE GEX_TEST_HAVE_OFI=${GEX_HAVE_OFI})
# sec_where_opt(<lo|netns> <var>): sec_attack.sh's option for where the
# attacked job runs (--netns: two network namespaces; nothing: loopback).
function(sec_where_opt where var)
  if(where STREQUAL "netns")
    set(${var} --netns PARENT_SCOPE)
  else()
    set(${var} "" PARENT_SCOPE)
  endif()
endfunction()
# libgex's own TCP transport (sock_attack.py): handshakes of every wrong
# kind, held connections beyond the bound, a pre-authentication flood, and
# a replay of another job's streams; on loopback and across two namespaces.
foreach(mode hello hold flood replay)
  foreach(where lo netns)
    sec_where_opt(${where} _opt)
    gex_add_driver_test(sec_attack_${mode}_sock_${where} LABELS "security;net;net_sock"
      COMMAND ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/sec_attack.sh ${_opt}
              $<TARGET_FILE:gexrun> $<TARGET_FILE:t_sec_victim>
              ${CMAKE_CURRENT_SOURCE_DIR}/sock_attack.py ${mode} sock)
  endforeach()
endforeach()
# Strangers' datagrams at the UDP lane (GEX_SOCK_UDP=1) of a running job:
# garbage, forged headers, claims to be the other rank; all dropped and
# reported, the job's data intact (sock_udp_strangers.sh).
gex_add_driver_test(sec_udp_strangers_sock_lo LABELS "security;net;net_sock;net_sockudp"
  COMMAND ${GEX_BASH} ${GEX_EXPECT} --within ${GEX_TEST_WITHIN} --status 0
          --grep "^sock_udp_strangers: ok$" --
          ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/sock_udp_strangers.sh $<TARGET_FILE:gexrun>
          $<TARGET_FILE:t_sec_victim> @TOKEN@)
# A stranger's connection storm (sock_storm.py, two processes, 10 s) while an
# 8-rank job makes its connections all-to-all (t_alltoall): every rank's
# backlog full of the storm's connections before it serves any; the job must
# finish with every word right, exit 0 and call no rank unreachable.
gex_add_driver_test(sec_storm_sock_lo LABELS "security;net;net_sock" TIMEOUT 900
  COMMAND ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/sock_storm.sh $<TARGET_FILE:gexrun>
          $<TARGET_FILE:t_alltoall> ${CMAKE_CURRENT_SOURCE_DIR}/sock_storm.py 8 10 2)
set_tests_properties(sec_storm_sock_lo PROPERTIES RUN_SERIAL ON)
if(GEX_HAVE_OFI)
  add_executable(sec_attack sec_attack.c)
  target_include_directories(sec_attack PRIVATE ${CMAKE_SOURCE_DIR}/src ${GEX_FABRIC_INCLUDE}
                             ${CMAKE_SOURCE_DIR}/include ${CMAKE_BINARY_DIR}/include)
  target_link_libraries(sec_attack PRIVATE ${GEX_FABRIC_LIB})
  # Each attack also aimed at the counted endpoint (--counted; tag
  # <provider>count), opened for it where it is not by default (not shm).
  # The flood (mode flood) over net at both endpoints (net refuses what it
  # cannot deliver, so a rank stays within a few MiB) and at tcp;ofi_rxm's
  # counted endpoint, whose small drain receives truncate and drop every
  # message (0 MiB kept).  tcp;ofi_rxm and udp;ofi_rxd keep a stranger's
  # messages that find no receive, which grew a rank by 30 MiB to 2 GiB at
  # its main endpoint (depending on how much CPU it had); udp;ofi_rxd's
  # counted endpoint kept 17-57 MiB but took 85 s (docs/security.md).
  set(_sec_provs "net|net" "tcp|tcp$<SEMICOLON>ofi_rxm" "udp|udp$<SEMICOLON>ofi_rxd" "shm|shm")
  foreach(pv IN LISTS _sec_provs)
    string(REPLACE "|" ";" f "${pv}")
    list(GET f 0 prov_tag)
    list(GET f 1 prov)
    foreach(counted "" count)
      if(counted AND prov_tag STREQUAL "shm")
        continue()
      endif()
      set(tag ${prov_tag}${counted})
      foreach(mode rma am flood)
        foreach(where lo netns)
          if(where STREQUAL "netns" AND prov_tag STREQUAL "shm")
            continue() # shm reaches one host only
          endif()
          if(mode STREQUAL "flood" AND NOT tag MATCHES "^(net|netcount|tcpcount)$")
            continue()
          endif()
          sec_where_opt(${where} _opt)
          if(counted)
            list(APPEND _opt --counted)
          endif()
          gex_add_driver_test(sec_attack_${mode}_${tag}_${where} LABELS "security;net"
            COMMAND ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/sec_attack.sh ${_opt}
                    $<TARGET_FILE:gexrun> $<TARGET_FILE:t_sec_victim> $<TARGET_FILE:sec_attack>
                    ${mode} "${prov}")
        endforeach()
      endforeach()
    endforeach()
  endforeach()
  set_tests_properties(sec_attack_rma_shm_lo sec_attack_am_shm_lo PROPERTIES RUN_SERIAL ON)
  # A captured TCP stream of one job replayed into another with a plain
  # socket (sec_replay.py), with both ranks on one "host" and across two.
  foreach(where lo netns)
    sec_where_opt(${where} _opt)
    gex_add_driver_test(sec_attack_replay_tcp_${where} LABELS "security;net"
      COMMAND ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/sec_attack.sh ${_opt}
              $<TARGET_FILE:gexrun> $<TARGET_FILE:t_sec_victim>
              ${CMAKE_CURRENT_SOURCE_DIR}/sec_replay.py replay "tcp$<SEMICOLON>ofi_rxm")
  endforeach()
endif()

# The receive path fuzzed in-process (t_sec_fuzz): seeds, mutations, junk.
if(GEX_HAVE_OFI)
  gex_test_program(t_sec_fuzz)
  target_include_directories(t_sec_fuzz PRIVATE ${CMAKE_SOURCE_DIR}/src ${GEX_FABRIC_INCLUDE})
  foreach(pv "tcp|tcp$<SEMICOLON>ofi_rxm" "udp|udp$<SEMICOLON>ofi_rxd")
    string(REPLACE "|" ";" f "${pv}")
    list(GET f 0 tag)
    list(GET f 1 prov)
    gex_add_net_run(${tag}fuzz t_sec_fuzz 2 GEX_SUPERNODE_MAXSIZE=1 "GEX_OFI_PROVIDER=${prov}")
    set_property(TEST net_${tag}fuzz_t_sec_fuzz_n2 APPEND PROPERTY LABELS security)
  endforeach()
endif()

