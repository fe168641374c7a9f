# tests/net.cmake -- the conformance suite over the network transport.
#
# Every test of the foundation suite runs again with its peers reached
# through libfabric instead of shared memory, on this one machine:
#   net_tcp_<test>_n<N>    GEX_SUPERNODE_MAXSIZE=1, provider tcp;ofi_rxm (loopback)
#   net_shm_<test>_n<N>    GEX_SUPERNODE_MAXSIZE=1, libfabric's shm provider
#   net_mix_<test>_n4      GEX_SUPERNODE_MAXSIZE=2: two "nodes" of two ranks,
#                          shared memory inside a node, tcp;ofi_rxm between
#   net_credit_<test>_n4   tcp;ofi_rxm with the smallest AM credit, so senders
#                          stall on flow control all the time
#   net_mixflat*_, net_mixforce_  collective/team tests in mixed topologies with
#                          the hierarchy off (GEX_COLL_HIER=0) or flat AM forced
# Labels: net, net_tcp, net_shm, net_mix, net_credit, net_mixflat, net_mixforce.  The two-host runs in
# network namespaces (netns_tcp_*, netns_udp_*) are at the end of this file.
if(NOT GEX_HAVE_OFI)
  message(STATUS "libgex tests: built without libfabric, network tests are not registered")
  return()
endif()

set(GEX_NET_SUITE t_queries t_rma t_rma_val t_rma_lc t_rma_bounds t_events t_nbi t_barrier
    t_am_args t_am_medium t_am_long t_am_tokeninfo t_am_register t_am_npam t_am_immediate
    t_am_lc t_hsl t_mt_stress t_loopback t_big_tls)

# gex_add_net_run(<tag> <test> <ranks> <env...>): gexrun -n <ranks> <test> with the
# environment given ("NAME=VALUE" words; a ';' in a value is written as $<SEMICOLON>).
function(gex_add_net_run tag test n)
  add_test(NAME net_${tag}_${test}_n${n}
    COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN} --
            env ${ARGN} $<TARGET_FILE:gexrun> -n ${n} $<TARGET_FILE:${test}> @TOKEN@)
  set_tests_properties(net_${tag}_${test}_n${n} PROPERTIES
    TIMEOUT ${GEX_TEST_TIMEOUT}
    LABELS "net;net_${tag};n${n}"
    ENVIRONMENT "${_gex_env};GEX_TEST_EXPECT_RANKS=${n}"
    SKIP_RETURN_CODE 77)
endfunction()

set(_tcp "GEX_OFI_PROVIDER=tcp$<SEMICOLON>ofi_rxm")
foreach(t IN LISTS GEX_NET_SUITE)
  foreach(n 2 4)
    gex_add_net_run(tcp ${t} ${n} GEX_SUPERNODE_MAXSIZE=1 ${_tcp})
  endforeach()
  gex_add_net_run(shm ${t} 3 GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_PROVIDER=shm)
  gex_add_net_run(mix ${t} 4 GEX_SUPERNODE_MAXSIZE=2 ${_tcp})
endforeach()
# Atomics, teams, collectives and VIS (issue 5's suite) over the network too.
set(GEX_NET_SUITE5 t_atomic t_atomic_contend t_atomic_order t_coll t_team t_collam t_vis t_vis_pc
    t_vis_am)
foreach(t IN LISTS GEX_NET_SUITE5)
  gex_add_net_run(tcp ${t} 3 GEX_SUPERNODE_MAXSIZE=1 ${_tcp})
  gex_add_net_run(mix ${t} 4 GEX_SUPERNODE_MAXSIZE=2 ${_tcp})
endforeach()
# Hierarchical collectives (docs/collectives.md): in mixed topologies the
# collective and team tests also check that no rank sent a collective AM to a
# rank of its own node (GEX_TEST_SAME_NODE_AMS=0, tests/t_coll_samenode.h).
# net_mixflat_* disable the hierarchy (GEX_COLL_HIER=0) and net_mixforce_*
# force the flat AM engine: both must then see same-node AMs (=+), which
# shows that the check can fail.
foreach(t t_coll t_team t_collam)
  set_property(TEST net_mix_${t}_n4 APPEND PROPERTY ENVIRONMENT GEX_TEST_SAME_NODE_AMS=0)
  gex_add_net_run(mixflat ${t} 4 GEX_SUPERNODE_MAXSIZE=2 GEX_COLL_HIER=0
                  GEX_TEST_SAME_NODE_AMS=+ ${_tcp})
  gex_add_net_run(mixflat3 ${t} 7 GEX_SUPERNODE_MAXSIZE=3 GEX_COLL_HIER=0
                  GEX_TEST_SAME_NODE_AMS=+ ${_tcp})
  gex_add_net_run(mixforce ${t} 4 GEX_SUPERNODE_MAXSIZE=2 GEX_COLL_FORCE_AM=1
                  GEX_TEST_SAME_NODE_AMS=+ ${_tcp})
  set_property(TEST net_mixflat_${t}_n4 net_mixflat3_${t}_n7 net_mixforce_${t}_n4
               APPEND PROPERTY LABELS "collam;coll")
endforeach()
foreach(t t_am_medium t_am_long t_am_npam t_am_immediate t_mt_stress t_loopback)
  gex_add_net_run(credit ${t} 4 GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_AM_CREDIT=1 ${_tcp})
endforeach()

# Two "hosts" (network namespaces joined by a veth pair, tests/netns/), two
# ranks each: shared memory inside a host, the network between them.
# GEX_TEST_RANKS_PER_HOST tells t_queries the placement.
foreach(t IN LISTS GEX_NET_SUITE GEX_NET_SUITE5)
  gex_add_netns_test(netns_tcp_${t} ${t} RANKS_PER_HOST 2 LABELS "net;netns;netns_tcp"
                     ENV "GEX_OFI_PROVIDER=tcp;ofi_rxm" GEX_TEST_RANKS_PER_HOST=2)
endforeach()
foreach(t t_coll t_team t_collam) # hierarchical: no collective AM inside a host
  set_property(TEST netns_tcp_${t} APPEND PROPERTY ENVIRONMENT GEX_TEST_SAME_NODE_AMS=0)
endforeach()
foreach(t IN LISTS GEX_NET_SUITE)
  gex_add_netns_test(netns_udp_${t} ${t} RANKS_PER_HOST 2 LABELS "net;netns;netns_udp"
                     ENV "GEX_OFI_PROVIDER=udp;ofi_rxd" GEX_TEST_RANKS_PER_HOST=2)
endforeach()
