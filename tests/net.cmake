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
#   net_tcpmrecv_<test>_n3 tcp;ofi_rxm with multi-receive AM buffers forced
#   net_mixflat*_, net_mixforce_  collective/team tests in mixed topologies with
#                          the hierarchy off (GEX_COLL_HIER=0) or flat AM forced
#   net_default_<test>_n<N>  GEX_SUPERNODE_MAXSIZE=1, the provider libgex picks
# Labels: net, net_tcp, net_shm, net_mix, net_credit, net_tcpmrecv, net_mixflat, net_mixforce,
# net_default.  The two-host runs in
# network namespaces (netns_tcp_*, netns_udp_*) are at the end of this file.
if(NOT GEX_HAVE_OFI)
  message(STATUS "libgex tests: built without libfabric, network tests are not registered")
  return()
endif()

set(_tcp "GEX_OFI_PROVIDER=tcp$<SEMICOLON>ofi_rxm")
foreach(t IN LISTS GEX_NET_SUITE)
  foreach(n 2 4)
    gex_add_net_run(tcp ${t} ${n} GEX_SUPERNODE_MAXSIZE=1 ${_tcp})
  endforeach()
  gex_add_net_run(shm ${t} 3 GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_PROVIDER=shm)
  gex_add_net_run(mix ${t} 4 GEX_SUPERNODE_MAXSIZE=2 ${_tcp})
endforeach()
# The provider libgex picks by itself (docs/network.md, "Choosing a
# provider"; net on libfabric 1.17): the suite at 2 ranks, and atomics,
# teams, collectives and VIS at 3.
foreach(t IN LISTS GEX_NET_SUITE)
  gex_add_net_run(default ${t} 2 GEX_SUPERNODE_MAXSIZE=1)
endforeach()
# The reference's GASNET_SUPERNODE_MAXSIZE=1 sends every peer through the
# network as GEX_SUPERNODE_MAXSIZE=1 does (the provider line shows it was used).
add_test(NAME net_gasnetsn_t_rma_n2
  COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN}
          --grep "^libgex: network provider "
          -- env GASNET_SUPERNODE_MAXSIZE=1 GEX_OFI_VERBOSE=1 $<TARGET_FILE:gexrun> -n 2
             $<TARGET_FILE:t_rma> @TOKEN@)
set_tests_properties(net_gasnetsn_t_rma_n2 PROPERTIES TIMEOUT ${GEX_TEST_TIMEOUT}
  LABELS "net;net_default;n2" ENVIRONMENT "${_gex_env};GEX_TEST_EXPECT_RANKS=2" SKIP_RETURN_CODE 77)
# libfabric is loaded once a peer is reached through the network (t_fabric_lazy).
gex_add_net_run(tcp t_fabric_lazy 2 GEX_SUPERNODE_MAXSIZE=1 ${_tcp})
# Where a wait may sleep on the network (t_poll_sleep.c), over libfabric.
gex_add_net_run(tcp t_poll_sleep 4 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_SLEEPS=+ ${_tcp})
gex_add_net_run(mix t_fabric_lazy 4 GEX_SUPERNODE_MAXSIZE=2 ${_tcp})
# The diagnostics' injected faults must be caught over the network too.
add_test(NAME net_tcp_t_diagnostics_fault_n2
  COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN} --
          env GEX_SUPERNODE_MAXSIZE=1 ${_tcp} $<TARGET_FILE:gexrun> -n 2
          $<TARGET_FILE:t_diagnostics> fault @TOKEN@)
set_tests_properties(net_tcp_t_diagnostics_fault_n2 PROPERTIES
  TIMEOUT ${GEX_TEST_TIMEOUT}
  LABELS "net;net_tcp;n2;diagnostics"
  ENVIRONMENT "${_gex_env};GEX_TEST_EXPECT_RANKS=2"
  SKIP_RETURN_CODE 77)
# A rank killed while the others Put to it and Get from it over the network:
# the job reports that rank's death, and the survivors' lines name it.
foreach(n 2 4)
  gex_add_driver_test(net_tcp_fault_kill_rma_n${n} LABELS "net;net_tcp;fault;n${n}"
    COMMAND env GEX_SUPERNODE_MAXSIZE=1 ${_tcp} ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/fault.sh
            $<TARGET_FILE:gexrun> ${n} $<TARGET_FILE:fault_prog> kill_rma)
endforeach()
# The end of a good job (net_sock.cmake's net_sock_exit_{lastline,firstbarrier}_n8) over
# tcp;ofi_rxm, 5 times; and a rank killed during all-to-all traffic.
foreach(m lastline firstbarrier)
  gex_add_driver_test(net_tcp_exit_${m}_n8 LABELS "net;net_tcp;exit;n8"
    COMMAND env GEX_SUPERNODE_MAXSIZE=1 ${_tcp} ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/repeat.sh 5
            ${GEX_BASH} ${GEX_EXPECT} ${GEX_LASTLINE_EXPECT}
            -- $<TARGET_FILE:gexrun> -n 8 $<TARGET_FILE:t_exit> ${m} @TOKEN@)
endforeach()
gex_add_driver_test(net_tcp_fault_kill_alltoall_n4 LABELS "net;net_tcp;fault;n4"
  COMMAND env GEX_SUPERNODE_MAXSIZE=1 ${_tcp} ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/repeat.sh 3
          ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/fault.sh
          $<TARGET_FILE:gexrun> 4 $<TARGET_FILE:fault_prog> kill_alltoall)
# The same with NBI operations in flight, whose failures cannot name their
# peer, over the default provider (net) and tcp;ofi_rxm.
foreach(n 2 4)
  gex_add_driver_test(net_default_fault_kill_nbi_n${n} LABELS "net;net_default;fault;n${n}"
    COMMAND env GEX_SUPERNODE_MAXSIZE=1 ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/fault.sh
            $<TARGET_FILE:gexrun> ${n} $<TARGET_FILE:fault_prog> kill_nbi)
endforeach()
gex_add_driver_test(net_tcp_fault_kill_nbi_n4 LABELS "net;net_tcp;fault;n4"
  COMMAND env GEX_SUPERNODE_MAXSIZE=1 ${_tcp} ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/fault.sh
          $<TARGET_FILE:gexrun> 4 $<TARGET_FILE:fault_prog> kill_nbi)
# The same faults over libfabric's shm and udp;ofi_rxd providers: the dead
# rank is named whatever was in flight (NBI, blocking RMA, an AM flood).
foreach(p shm udp)
  if(p STREQUAL "shm")
    set(_prov GEX_OFI_PROVIDER=shm)
  else()
    set(_prov "GEX_OFI_PROVIDER=udp$<SEMICOLON>ofi_rxd")
  endif()
  foreach(m kill_nbi kill_rma kill_flooded)
    gex_add_driver_test(net_${p}_fault_${m}_n4 LABELS "net;net_${p};fault;n4"
      COMMAND env GEX_SUPERNODE_MAXSIZE=1 ${_prov} ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/fault.sh
              $<TARGET_FILE:gexrun> 4 $<TARGET_FILE:fault_prog> ${m})
  endforeach()
endforeach()
# A rank killed over libfabric's shm provider: its /dev/shm object, which it
# cannot remove itself, is removed by gexrun (fault.sh checks /dev/shm).
gex_add_driver_test(net_shm_fault_kill_rank_n4 LABELS "net;net_shm;fault;n4"
  COMMAND env GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_PROVIDER=shm ${GEX_BASH}
          ${CMAKE_CURRENT_SOURCE_DIR}/fault.sh $<TARGET_FILE:gexrun> 4 $<TARGET_FILE:fault_prog>
          kill_rank)
# Atomics, teams, collectives and VIS over the network too.
foreach(t IN LISTS GEX_NET_SUITE5)
  gex_add_net_run(tcp ${t} 3 GEX_SUPERNODE_MAXSIZE=1 ${_tcp})
  gex_add_net_run(mix ${t} 4 GEX_SUPERNODE_MAXSIZE=2 ${_tcp})
  gex_add_net_run(default ${t} 3 GEX_SUPERNODE_MAXSIZE=1)
endforeach()
# The GASNet-1 layer (src/legacy) over the network too.
set(GEX_NET_LEGACY t_legacy_rma t_legacy_am t_legacy_barrier)
foreach(t IN LISTS GEX_NET_LEGACY)
  foreach(n 2 4)
    gex_add_net_run(tcp ${t} ${n} GEX_SUPERNODE_MAXSIZE=1 ${_tcp})
  endforeach()
  gex_add_net_run(mix ${t} 4 GEX_SUPERNODE_MAXSIZE=2 ${_tcp})
  set_property(TEST net_tcp_${t}_n2 net_tcp_${t}_n4 net_mix_${t}_n4 APPEND PROPERTY LABELS legacy)
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
# VIS off-node with every piece moved by RMA (GEX_VIS_PACK_MAX=0) and with a
# small packing threshold, so both paths and their mix run whatever the
# provider's default threshold is.
gex_add_net_run(tcpvisrma t_vis 3 GEX_SUPERNODE_MAXSIZE=1 GEX_VIS_PACK_MAX=0 ${_tcp})
gex_add_net_run(tcpvis64 t_vis 3 GEX_SUPERNODE_MAXSIZE=1 GEX_VIS_PACK_MAX=64 ${_tcp})
# shm provider addresses of different lengths (pids 9999 and 10000).
gex_add_driver_test(net_shm_pid_lengths LABELS "net;net_shm;n3"
  COMMAND ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/shm_pid_lengths.sh
          $<TARGET_FILE:gexrun> $<TARGET_FILE:t_rma>)
# Coalesced NBI operations (am/am_coalesce.c) over every provider with
# software RMA, oversubscribed (7 ranks on the 2-core machine), with tiny
# batches (GEX_COALESCE=3), with coalescing off (=1, one message or one
# RMA per operation), and with every Put of the test coalesced (up to 4096
# bytes).  The tiny batches run on libfabric's shm provider: on tcp;ofi_rxm
# the storm of small Medium Requests and Replies they cause stalls about
# one run in ten with Replies sent and never delivered (the ofi_rxm loss
# described in docs/network.md), which is not what this test is about.
gex_add_net_run(tcp t_coalesce 7 GEX_SUPERNODE_MAXSIZE=1 ${_tcp})
gex_add_net_run(shm t_coalesce 3 GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_PROVIDER=shm)
gex_add_net_run(udp t_coalesce 3 GEX_SUPERNODE_MAXSIZE=1 "GEX_OFI_PROVIDER=udp$<SEMICOLON>ofi_rxd")
gex_add_net_run(shmco3 t_coalesce 4 GEX_SUPERNODE_MAXSIZE=1 GEX_COALESCE=3 GEX_OFI_PROVIDER=shm)
gex_add_net_run(tcpco1 t_coalesce 4 GEX_SUPERNODE_MAXSIZE=1 GEX_COALESCE=1 ${_tcp})
gex_add_net_run(tcpput4k t_coalesce 3 GEX_SUPERNODE_MAXSIZE=1 GEX_COALESCE_PUT_MAX=4096 ${_tcp})
set_property(TEST net_tcp_t_coalesce_n7 net_shm_t_coalesce_n3 net_udp_t_coalesce_n3
             net_shmco3_t_coalesce_n4 net_tcpco1_t_coalesce_n4 net_tcpput4k_t_coalesce_n3
             APPEND PROPERTY LABELS coalesce)
# Collectives by rendezvous (coll/coll_am.c): every broadcast and reduction
# of at least 1 byte moves by RMA reads, in fragments of 1000 bytes (many
# fragments and rounds, elements larger than a fragment), on every provider
# with RMA, flat (tcp, udp, shm), hierarchical and oversubscribed (7 ranks in
# three "nodes"), and across two hosts.  GEX_TEST_RDV=+ fails the run if no
# fragment moved by rendezvous (t_coll_samenode.h); GEX_TEST_RDV_PUSH and
# GEX_TEST_RDV_READ say whether some were written by push (a broadcast or an
# exchange, on providers that order a send after a write: all three here)
# and some read (a reduction on the tree, GEX_COLL_RDV_PUSH=0, and pairs of
# one node, whose AMs go through shared memory).
set(_rdv GEX_COLL_RDV_MIN=1 GEX_COLL_RDV_CHUNK=1000 GEX_TEST_RDV=+)
# ReduceToAll runs as an exchange (recursive doubling) except in
# net_tcprdv_t_collam_n4 and net_tcpnordv_t_collam_n3 (GEX_COLL_XCHG=0: the
# tree).  t_coll's ReduceToAll is in place: the exchange must not write a
# buffer its partner is still reading.
gex_add_net_run(tcprdv t_coll 4 GEX_SUPERNODE_MAXSIZE=1 ${_rdv} GEX_TEST_RDV_PUSH=+ ${_tcp})
gex_add_net_run(tcprdv t_collam 4 GEX_SUPERNODE_MAXSIZE=1 GEX_COLL_XCHG=0 ${_rdv} ${_tcp})
# ReduceToAll by halving (from 4 doubling members): 4 ranks, and 7 (4
# doubling members, 3 folded in and out), every fold order of t_collam.
gex_add_net_run(tcprdvx t_collam 4 GEX_SUPERNODE_MAXSIZE=1 ${_rdv} GEX_TEST_RDV_PUSH=+
                GEX_TEST_HALVED=+ ${_tcp})
gex_add_net_run(tcprdvx t_collam 7 GEX_SUPERNODE_MAXSIZE=1 ${_rdv} GEX_TEST_RDV_PUSH=+
                GEX_TEST_HALVED=+ ${_tcp})
set_property(TEST net_tcprdvx_t_collam_n4 net_tcprdvx_t_collam_n7 APPEND PROPERTY LABELS "collam;coll;rdv")
# Standing landing buffers (t_coll_standing; docs/collectives.md): the
# default thresholds over net and tcp;ofi_rxm, 7 ranks on 2 cores, fragments
# of 1000 bytes (the grant rides on the first), two "nodes" of two ranks
# (pushed between them, read inside), udp;ofi_rxd; none with
# GEX_COLL_RDV_STANDING=0.
gex_add_net_run(std t_coll_standing 2 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_STANDING=+)
gex_add_net_run(std t_coll_standing 4 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_STANDING=+ ${_tcp})
gex_add_net_run(std t_coll_standing 7 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_STANDING=+)
gex_add_net_run(stdfrag t_coll_standing 3 GEX_SUPERNODE_MAXSIZE=1 ${_rdv} GEX_TEST_STANDING=+)
gex_add_net_run(stdmix t_coll_standing 4 GEX_SUPERNODE_MAXSIZE=2 GEX_COLL_FORCE_AM=1
                GEX_TEST_STANDING=+ GEX_TEST_RDV_READ=+ ${_tcp})
gex_add_net_run(stdudp t_coll_standing 3 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_STANDING=+
                "GEX_OFI_PROVIDER=udp$<SEMICOLON>ofi_rxd")
gex_add_net_run(stdoff t_coll_standing 4 GEX_SUPERNODE_MAXSIZE=1 GEX_COLL_RDV_STANDING=0
                GEX_TEST_STANDING=0 GEX_TEST_RDV_PUSH=+)
set_property(TEST net_std_t_coll_standing_n2 net_std_t_coll_standing_n4
             net_std_t_coll_standing_n7 net_stdfrag_t_coll_standing_n3
             net_stdmix_t_coll_standing_n4 net_stdudp_t_coll_standing_n3
             net_stdoff_t_coll_standing_n4 APPEND PROPERTY LABELS "collam;coll;rdv")
# The same by reads only (GEX_COLL_RDV_PUSH=0).
gex_add_net_run(tcppull t_coll 4 GEX_SUPERNODE_MAXSIZE=1 ${_rdv} GEX_COLL_RDV_PUSH=0
                GEX_TEST_RDV_PUSH=0 GEX_TEST_RDV_READ=+ ${_tcp})
# The flat engine on two "nodes" of two ranks: pushed between them, read
# inside them, in the same collectives.
gex_add_net_run(mixforcerdv t_collam 4 GEX_SUPERNODE_MAXSIZE=2 GEX_COLL_FORCE_AM=1 ${_rdv}
                GEX_TEST_RDV_PUSH=+ GEX_TEST_RDV_READ=+ ${_tcp})
set_property(TEST net_tcprdv_t_coll_n4 net_tcprdv_t_collam_n4 net_tcppull_t_coll_n4
             net_mixforcerdv_t_collam_n4 APPEND PROPERTY LABELS "collam;coll;rdv")
gex_add_net_run(mix3rdv t_collam 7 GEX_SUPERNODE_MAXSIZE=3 GEX_TEST_SAME_NODE_AMS=0 ${_rdv}
                GEX_TEST_RDV_PUSH=+ ${_tcp})
gex_add_net_run(udprdv t_collam 3 GEX_SUPERNODE_MAXSIZE=1 ${_rdv} GEX_TEST_RDV_PUSH=+
                "GEX_OFI_PROVIDER=udp$<SEMICOLON>ofi_rxd")
gex_add_net_run(shm t_collam 3 GEX_SUPERNODE_MAXSIZE=1 ${_rdv} GEX_TEST_RDV_PUSH=+
                GEX_OFI_PROVIDER=shm)
set_property(TEST net_mix3rdv_t_collam_n7 net_udprdv_t_collam_n3 net_shm_t_collam_n3
             APPEND PROPERTY LABELS "collam;coll;rdv")
# The same hook must see no rendezvous when it is off.
gex_add_net_run(tcpnordv t_collam 3 GEX_SUPERNODE_MAXSIZE=1 GEX_COLL_RDV_MIN=0 GEX_TEST_RDV=0 GEX_TEST_HALVED=0
                GEX_COLL_XCHG=0 ${_tcp})
set_property(TEST net_tcpnordv_t_collam_n3 APPEND PROPERTY LABELS "collam;coll;rdv")
# Multi-receive AM buffers forced on tcp;ofi_rxm (not its default): its
# largest Mediums arrive in segments and complete after the buffer's release,
# which the buffer's byte ledger must wait for (struct ofi_rxbuf).
foreach(t t_am_medium t_am_long t_vis_am)
  gex_add_net_run(tcpmrecv ${t} 3 GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_MULTI_RECV=1 ${_tcp})
endforeach()
foreach(t t_am_medium t_am_long t_am_npam t_am_immediate t_mt_stress t_loopback)
  gex_add_net_run(credit ${t} 4 GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_AM_CREDIT=1 ${_tcp})
endforeach()
# Request handlers whose Replies wait for credit while Requests keep coming
# from every side (t_am_reply_credit): the credit they wait for is often in
# a completion read together with their own Request.  The least credit, on
# the default provider, on tcp;ofi_rxm and udp;ofi_rxd (one buffer per
# message), at 2, 4 and 7 ranks.
foreach(n 2 4 7)
  gex_add_net_run(credit t_am_reply_credit ${n} GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_AM_CREDIT=1)
endforeach()
gex_add_net_run(credittcp t_am_reply_credit 4 GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_AM_CREDIT=1 ${_tcp})
gex_add_net_run(creditudp t_am_reply_credit 3 GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_AM_CREDIT=1
                "GEX_OFI_PROVIDER=udp$<SEMICOLON>ofi_rxd")
# Batches of small AMs (t_am_batch; docs/network.md): net (the default
# provider, multi-receive buffers) at 2 and 7 ranks, two "nodes" of two
# ranks, the smallest batch (two records), the least credit, threads
# (t_mt_stress, t_hsl); where each message takes a receive buffer
# (tcp;ofi_rxm, udp;ofi_rxd, shm); none with GEX_OFI_AM_BATCH=0.
gex_add_net_run(batch t_am_batch 2 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_BATCHED=+)
gex_add_net_run(batch t_am_batch 7 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_BATCHED=+)
gex_add_net_run(batchmix t_am_batch 4 GEX_SUPERNODE_MAXSIZE=2 GEX_TEST_BATCHED=+)
gex_add_net_run(batchmin t_am_batch 3 GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_AM_BATCH=1
                GEX_TEST_BATCHED=+)
gex_add_net_run(batchcredit t_am_batch 4 GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_AM_CREDIT=1
                GEX_TEST_BATCHED=+)
gex_add_net_run(batchoff t_am_batch 3 GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_AM_BATCH=0
                GEX_TEST_BATCHED=0)
gex_add_net_run(batchtcp t_am_batch 4 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_BATCHED=+ ${_tcp})
gex_add_net_run(batchudp t_am_batch 3 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_BATCHED=+
                "GEX_OFI_PROVIDER=udp$<SEMICOLON>ofi_rxd")
gex_add_net_run(batchshm t_am_batch 3 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_BATCHED=+
                GEX_OFI_PROVIDER=shm)
gex_add_net_run(batchmt t_mt_stress 4 GEX_SUPERNODE_MAXSIZE=1)
gex_add_net_run(batchmt t_hsl 4 GEX_SUPERNODE_MAXSIZE=1)
gex_add_net_run(batchmtcredit t_mt_stress 4 GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_AM_CREDIT=1)
set_property(TEST net_batch_t_am_batch_n2 net_batch_t_am_batch_n7 net_batchmix_t_am_batch_n4
             net_batchmin_t_am_batch_n3 net_batchcredit_t_am_batch_n4 net_batchoff_t_am_batch_n3
             net_batchtcp_t_am_batch_n4 net_batchudp_t_am_batch_n3 net_batchshm_t_am_batch_n3
             net_batchmt_t_mt_stress_n4 net_batchmt_t_hsl_n4 net_batchmtcredit_t_mt_stress_n4
             APPEND PROPERTY LABELS am)
# The receive thread over libfabric (t_rcv_thread.c; its sock runs are in
# tests/net_sock.cmake): tcp;ofi_rxm, net and udp;ofi_rxd, and the control.
foreach(n 2 4)
  gex_add_net_run(tcprcv t_rcv_thread ${n} GEX_SUPERNODE_MAXSIZE=1 GASNET_RCV_THREAD=1
                  GEX_TEST_RCV=1 ${_tcp})
endforeach()
gex_add_net_run(netrcv t_rcv_thread 2 GEX_SUPERNODE_MAXSIZE=1 GASNET_RCV_THREAD=1 GEX_TEST_RCV=1
                GEX_OFI_PROVIDER=net)
gex_add_net_run(udprcv t_rcv_thread 2 GEX_SUPERNODE_MAXSIZE=1 GASNET_RCV_THREAD=1 GEX_TEST_RCV=1
                "GEX_OFI_PROVIDER=udp$<SEMICOLON>ofi_rxd")
gex_add_net_run(tcprcvoff t_rcv_thread 2 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_RCV=0 ${_tcp})
# NBI Puts and Gets on the counted endpoint (transport/ofi/ofi_counted.c):
# with coalescing of Puts off, so that the small ones reach it, on net
# (where it opens by default) and, asked for with GEX_OFI_COUNTED_RMA=1, on
# tcp;ofi_rxm and udp;ofi_rxd; oversubscribed (7 ranks), in two "nodes" of
# two, and across two hosts.  GEX_TEST_COUNTED=+ checks that operations went
# through it; =0 that none did on net with GEX_OFI_COUNTED_RMA=0, and on
# tcp;ofi_rxm and shm, where it is off by default.
set(_count GEX_SUPERNODE_MAXSIZE=1 GEX_COALESCE_PUT_MAX=0)
set(_count_on ${_count} GEX_OFI_COUNTED_RMA=1)
gex_add_net_run(netcount t_nbi_counted 3 ${_count} GEX_OFI_PROVIDER=net GEX_TEST_COUNTED=+)
gex_add_net_run(netcount t_nbi_counted 7 ${_count} GEX_OFI_PROVIDER=net GEX_TEST_COUNTED=+)
gex_add_net_run(tcpcount t_nbi_counted 3 ${_count_on} ${_tcp} GEX_TEST_COUNTED=+)
gex_add_net_run(tcpcount t_nbi_counted 7 ${_count_on} ${_tcp} GEX_TEST_COUNTED=+)
gex_add_net_run(udpcount t_nbi_counted 3 ${_count_on} "GEX_OFI_PROVIDER=udp$<SEMICOLON>ofi_rxd"
                GEX_TEST_COUNTED=+)
gex_add_net_run(mixcount t_nbi_counted 4 GEX_SUPERNODE_MAXSIZE=2 GEX_COALESCE_PUT_MAX=0
                GEX_OFI_PROVIDER=net GEX_TEST_COUNTED=+)
gex_add_net_run(netnocount t_nbi_counted 3 ${_count} GEX_OFI_PROVIDER=net GEX_OFI_COUNTED_RMA=0
                GEX_TEST_COUNTED=0)
gex_add_net_run(tcpnocount t_nbi_counted 3 ${_count} ${_tcp} GEX_TEST_COUNTED=0)
gex_add_net_run(shmcount t_nbi_counted 3 ${_count} GEX_OFI_PROVIDER=shm GEX_TEST_COUNTED=0)
# The suite's RMA tests with every small Put on the counted endpoint; the
# diagnostics' value section reads each Put back right after its
# gex_NBI_Wait (it caught writes counted once sent, not once delivered).
foreach(t t_rma t_rma_val t_rma_lc t_nbi t_mt_stress)
  gex_add_net_run(netcount ${t} 4 ${_count} GEX_OFI_PROVIDER=net)
  gex_add_net_run(tcpcount ${t} 4 ${_count_on} ${_tcp})
endforeach()
gex_add_net_run(netcount t_diagnostics 2 ${_count} GEX_OFI_PROVIDER=net)
gex_add_net_run(tcpcount t_diagnostics 2 ${_count_on} ${_tcp})
set_property(TEST net_netcount_t_nbi_counted_n3 net_netcount_t_nbi_counted_n7
             net_tcpcount_t_nbi_counted_n3 net_tcpcount_t_nbi_counted_n7
             net_udpcount_t_nbi_counted_n3 net_mixcount_t_nbi_counted_n4
             net_netnocount_t_nbi_counted_n3 net_tcpnocount_t_nbi_counted_n3
             net_shmcount_t_nbi_counted_n3 APPEND PROPERTY LABELS "rma;events")
# Segments made by the client (the suite above runs t_segment_create's mixed
# mode): every rank's segment client memory, or allocated by libgex, both
# through the network only and in two "nodes" of two ranks.
foreach(m client library)
  gex_add_net_run(tcp${m} t_segment_create 4 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_SEGMENT_MODE=${m} ${_tcp})
  gex_add_net_run(mix${m} t_segment_create 4 GEX_SUPERNODE_MAXSIZE=2 GEX_TEST_SEGMENT_MODE=${m} ${_tcp})
  set_property(TEST net_tcp${m}_t_segment_create_n4 net_mix${m}_t_segment_create_n4
               APPEND PROPERTY LABELS segment)
endforeach()
# The same with nothing coalesced: NBI Puts take the teams' direct entry
# (rma/rma_remote.c), to neighbours whose segment is client memory as well.
gex_add_net_run(mixclientnoco t_segment_create 4 GEX_SUPERNODE_MAXSIZE=2
                GEX_TEST_SEGMENT_MODE=client GEX_COALESCE=1 ${_tcp})
set_property(TEST net_mixclientnoco_t_segment_create_n4 APPEND PROPERTY LABELS segment)

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
gex_add_netns_test(netns_tcprdv_t_collam t_collam RANKS_PER_HOST 2 LABELS "net;netns;netns_tcp;rdv"
                   ENV "GEX_OFI_PROVIDER=tcp;ofi_rxm" GEX_TEST_RANKS_PER_HOST=2 GEX_TEST_SAME_NODE_AMS=0
                   GEX_COLL_RDV_MIN=1 GEX_COLL_RDV_CHUNK=1000 GEX_TEST_RDV=+ GEX_TEST_RDV_PUSH=+)
# Hierarchical across two hosts: the leaders' exchange lands in standing buffers.
gex_add_netns_test(netns_tcp_t_coll_standing t_coll_standing RANKS_PER_HOST 2
                   LABELS "net;netns;netns_tcp;rdv" ENV "GEX_OFI_PROVIDER=tcp;ofi_rxm"
                   GEX_TEST_STANDING=+)
gex_add_netns_test(netns_t_nbi_counted t_nbi_counted RANKS_PER_HOST 2 LABELS "net;netns;rma"
                   ENV GEX_COALESCE_PUT_MAX=0 GEX_TEST_COUNTED=+)
# Batches between two hosts over the default provider and tcp;ofi_rxm.
gex_add_netns_test(netns_t_am_batch t_am_batch RANKS_PER_HOST 2 LABELS "net;netns;am"
                   ENV GEX_TEST_BATCHED=+)
gex_add_netns_test(netns_tcp_t_am_batch t_am_batch RANKS_PER_HOST 2
                   LABELS "net;netns;netns_tcp;am" ENV "GEX_OFI_PROVIDER=tcp;ofi_rxm"
                   GEX_TEST_BATCHED=+)
foreach(t IN LISTS GEX_NET_SUITE)
  gex_add_netns_test(netns_udp_${t} ${t} RANKS_PER_HOST 2 LABELS "net;netns;netns_udp"
                     ENV "GEX_OFI_PROVIDER=udp;ofi_rxd" GEX_TEST_RANKS_PER_HOST=2)
endforeach()
# (Almost) no UDP datagram dropped at the receivers (tests/netns/udp_drops.sh):
# with rxd's default window (128 packets per peer) this test's AM traffic
# overflowed the sockets (8 000 to 16 000 drops per namespace and run) and
# rxd, retransmitting, now and then lost a message for good; libgex sets
# FI_OFI_RXD_MAX_UNACKED (docs/network.md), and then none were seen.  At
# most 100 are allowed, for a loaded machine.
gex_add_netns_test(netns_udp_t_hsl_nodrops t_hsl RANKS_PER_HOST 2 LABELS "net;netns;netns_udp"
                   POST "${GEX_BASH} ${GEX_NETNS_DIR}/udp_drops.sh 100 @NS1@ @NS2@"
                   ENV "GEX_OFI_PROVIDER=udp;ofi_rxd" GEX_TEST_RANKS_PER_HOST=2)

# ==== BEGIN provider-native atomics block (remote-atomics slice) ====
# The atomic tests with provider-native atomics forced (GEX_AD_NATIVE=1,
# docs/atomics.md), GEX_AD_VERBOSE=1 so every domain reports its path and
# the test fails if no domain used the provider (silent fallback):
#   net_tcpnat_<test>_n3   tcp;ofi_rxm, one rank per "node"
#   net_shmnat_<test>_n3   libfabric's shm provider, one rank per "node"
#   net_mixnat_<test>_n4   two "nodes" of two ranks: on-node targets and this
#                          rank itself go through the provider too
#   net_udpnat_t_atomic_native_n3   udp;ofi_rxd: never native (it crashes
#                          under load), so every domain must fall back to AM
#   net_mixdeny_t_atomic_n4  GEX_OFI_ATOMIC_DENY=FMULT: domains naming
#                          FMULT fall back to AM on every rank, others stay native
# t_atomic_native also checks the path from inside (an NB operation on this
# rank itself returns an event only through the provider).  Labels: net,
# net_<tag>, atomic, atomnat.
set(GEX_ATOMIC_NATIVE_SUITE t_atomic t_atomic_contend t_atomic_order t_atomic_native)
# gex_add_atomnat_run(<tag> <test> <ranks> EXPECT <expect.sh options...> ENV <NAME=VALUE...>)
function(gex_add_atomnat_run tag test n)
  cmake_parse_arguments(PARSE_ARGV 3 A "" "" "EXPECT;ENV")
  add_test(NAME net_${tag}_${test}_n${n}
    COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN} ${A_EXPECT} --
            env GEX_AD_VERBOSE=1 ${A_ENV} $<TARGET_FILE:gexrun> -n ${n} $<TARGET_FILE:${test}>
            @TOKEN@)
  set_tests_properties(net_${tag}_${test}_n${n} PROPERTIES
    TIMEOUT ${GEX_TEST_TIMEOUT}
    LABELS "net;net_${tag};atomic;atomnat;n${n}"
    ENVIRONMENT "${_gex_env};GEX_TEST_EXPECT_RANKS=${n}"
    SKIP_RETURN_CODE 77)
endfunction()
set(_nat_yes --grep "provider-native atomics" --nogrep "CPU on-node, AM off-node path \\(the provider's")
foreach(t IN LISTS GEX_ATOMIC_NATIVE_SUITE)
  gex_add_atomnat_run(tcpnat ${t} 3 EXPECT ${_nat_yes}
    ENV GEX_AD_NATIVE=1 GEX_TEST_NATIVE_EXPECT=native GEX_SUPERNODE_MAXSIZE=1 ${_tcp})
  gex_add_atomnat_run(shmnat ${t} 3 EXPECT ${_nat_yes}
    ENV GEX_AD_NATIVE=1 GEX_TEST_NATIVE_EXPECT=native GEX_SUPERNODE_MAXSIZE=1
        GEX_OFI_PROVIDER=shm)
  gex_add_atomnat_run(mixnat ${t} 4 EXPECT ${_nat_yes}
    ENV GEX_AD_NATIVE=1 GEX_TEST_NATIVE_EXPECT=native GEX_SUPERNODE_MAXSIZE=2 ${_tcp})
endforeach()
# udp;ofi_rxd: forced, yet every domain falls back to AM.
gex_add_atomnat_run(udpnat t_atomic_native 3
  EXPECT --grep "CPU on-node, AM off-node path \\(the provider lacks" --nogrep "provider-native"
  ENV GEX_AD_NATIVE=1 GEX_TEST_NATIVE_EXPECT=am GEX_SUPERNODE_MAXSIZE=1
      "GEX_OFI_PROVIDER=udp$<SEMICOLON>ofi_rxd")
# Default policy (auto) on a software provider: AM path.
gex_add_atomnat_run(tcpauto t_atomic_native 3
  EXPECT --grep "AM off-node path \\(the provider's atomics are software\\)"
         --nogrep "provider-native"
  ENV GEX_TEST_NATIVE_EXPECT=am GEX_SUPERNODE_MAXSIZE=1 ${_tcp})
# A provider lacking an operation (forced): FMULT domains fall back to AM
# consistently on every rank (mixed topology), the others stay native.
gex_add_atomnat_run(mixdeny t_atomic 4
  EXPECT --grep "provider-native atomics"
         --grep "GEX_OP_FMULT.*CPU on-node, AM off-node path \\(the provider lacks"
         --nogrep "GEX_OP_FMULT.*provider-native"
  ENV GEX_AD_NATIVE=1 GEX_OFI_ATOMIC_DENY=FMULT GEX_SUPERNODE_MAXSIZE=2 ${_tcp})
# Two hosts (network namespaces), two ranks each, native forced.
foreach(t IN LISTS GEX_ATOMIC_NATIVE_SUITE)
  gex_add_netns_test(netns_tcpnat_${t} ${t} RANKS_PER_HOST 2 LABELS net netns atomic atomnat
                     ENV "GEX_OFI_PROVIDER=tcp;ofi_rxm" GEX_TEST_RANKS_PER_HOST=2 GEX_AD_NATIVE=1
                         GEX_AD_VERBOSE=1 GEX_TEST_NATIVE_EXPECT=native
                     EXPECT --pass --grep "provider-native atomics")
endforeach()
# ==== END provider-native atomics block ====
