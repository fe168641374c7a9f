# tests/net_sock.cmake -- the conformance suite over the network transports:
# the lists and the helper shared with net.cmake (libfabric), and the runs
# over libgex's own TCP transport (GEX_NET_TRANSPORT=sock), which is always
# built:
#   net_sock_<test>_n<N>      GEX_SUPERNODE_MAXSIZE=1: every peer over TCP (loopback)
#   net_sockmix_<test>_n4     GEX_SUPERNODE_MAXSIZE=2: two "nodes" of two ranks
#   net_sockcredit_<test>_n4  the smallest AM credit, so senders stall on it
#   net_sock_<test>_n7        7 ranks on the machine's cores (oversubscribed)
#   netns_sock_<test>          two network namespaces as two hosts, two ranks each
#   net_sockbatch*_t_am_batch   floods of small AMs, which leave in batches
#   net_sock{,mix}inplace_<test>  small NBI Puts and Gets written in place
#   net_sock{block,spin}_<test>  the other wait policies (GEX_WAIT_MODE)
#   net_sock_exit_*            the end of a job (docs/gexrun.md, "How a job ends")
#   net_sockudp{,drop}_<test>  streams over the UDP lane (GEX_SOCK_UDP=1), and
#                              with pieces lost on purpose
# Labels: net, net_sock, net_sockmix, net_sockcredit, net_sockbatch*, net_sockblock,
# net_sockspin, net_sock*inplace, net_sockudp, netns_sock.

# The foundation suite, and atomics, teams, collectives and VIS.
set(GEX_NET_SUITE t_queries t_rma t_rma_val t_rma_lc t_rma_bounds t_events t_nbi t_barrier
    t_am_args t_am_medium t_am_long t_am_tokeninfo t_am_register t_am_npam t_am_immediate
    t_am_lc t_hsl t_mt_stress t_loopback t_big_tls t_segment_create t_ep_multi t_ep_long t_mk t_diagnostics)
set(GEX_NET_SUITE5 t_atomic t_atomic_create_async t_atomic_contend t_atomic_order t_coalesce t_coll t_coll_pipeline t_team t_collam t_vis t_vis_pc
    t_vis_am t_legacy_coll)

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

set(_sock GEX_NET_TRANSPORT=sock)
# The sock transport without its UDP lane: every stream over a TCP connection.
set(_socktcp GEX_NET_TRANSPORT=sock GEX_SOCK_UDP=0)
foreach(t IN LISTS GEX_NET_SUITE)
  foreach(n 2 4)
    gex_add_net_run(sock ${t} ${n} GEX_SUPERNODE_MAXSIZE=1 ${_sock})
  endforeach()
  gex_add_net_run(sockmix ${t} 4 GEX_SUPERNODE_MAXSIZE=2 ${_sock})
endforeach()
foreach(t IN LISTS GEX_NET_SUITE5)
  gex_add_net_run(sock ${t} 3 GEX_SUPERNODE_MAXSIZE=1 ${_sock})
  gex_add_net_run(sockmix ${t} 4 GEX_SUPERNODE_MAXSIZE=2 ${_sock})
endforeach()
foreach(t t_am_medium t_am_long t_hsl t_mt_stress t_coll)
  gex_add_net_run(sockcredit ${t} 4 GEX_SUPERNODE_MAXSIZE=1 GEX_SOCK_AM_CREDIT=32768 ${_sock})
endforeach()
foreach(t t_rma_val t_am_medium t_coll_pipeline t_atomic_contend)
  gex_add_net_run(sock ${t} 7 GEX_SUPERNODE_MAXSIZE=1 ${_sock})
endforeach()
# Device segments on the host-memory test device, reached by the staged
# path over the network (t_mk_rma.c; docs/memory-kinds.md).
foreach(n 2 7)
  gex_add_net_run(sock t_mk_rma ${n} GEX_SUPERNODE_MAXSIZE=1 GEX_MK_TEST_DEVICE=host
                  GEX_TEST_STAGED=+ GEX_TEST_ASYNC=0 ${_sock})
endforeach()
gex_add_net_run(sockmix t_mk_rma 4 GEX_SUPERNODE_MAXSIZE=2 GEX_MK_TEST_DEVICE=host
                GEX_TEST_ASYNC=+ ${_sock})
# Where a wait may sleep on the network (t_poll_sleep.c): never in
# gasnet_AMPoll, in GASNET_BLOCKUNTIL (GEX_TEST_SLEEPS=+); two ranks on two
# cores, then oversubscribed.
foreach(n 2 4 7)
  gex_add_net_run(sock t_poll_sleep ${n} GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_SLEEPS=+ ${_sock})
endforeach()
# The send buffer of each connection (GEX_SOCK_SNDBUF, t_sock_sndbuf.c),
# checked after large Puts and Gets: the default (the kernel's autotuning),
# a size asked for, and 0 (autotuning again).
gex_add_net_run(socksndbuf t_sock_sndbuf 2 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_SNDBUF=auto ${_sock})
gex_add_net_run(socksndbuf t_sock_sndbuf 7 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_SNDBUF=auto ${_sock})
gex_add_net_run(socksndbufset t_sock_sndbuf 3 GEX_SUPERNODE_MAXSIZE=1 GEX_SOCK_SNDBUF=64K
                GEX_TEST_SNDBUF=65536 ${_sock})
gex_add_net_run(socksndbufauto t_sock_sndbuf 2 GEX_SUPERNODE_MAXSIZE=1 GEX_SOCK_SNDBUF=0
                GEX_TEST_SNDBUF=auto ${_sock})
# Small NBI Puts and NBI Gets written in place into the peer's queue
# (transport/sock/sock_rma.c): with coalescing of Puts off, so that they
# reach it; oversubscribed, in two "nodes", with threads contending for a
# peer's queue, and the suite's RMA tests.  GEX_TEST_INPLACE=+ checks that
# the path was taken.
set(_inplace GEX_SUPERNODE_MAXSIZE=1 GEX_COALESCE_PUT_MAX=0 ${_sock})
gex_add_net_run(sockinplace t_nbi_counted 3 ${_inplace} GEX_TEST_INPLACE=+)
gex_add_net_run(sockinplace t_nbi_counted 7 ${_inplace} GEX_TEST_INPLACE=+)
gex_add_net_run(sockmixinplace t_nbi_counted 4 GEX_SUPERNODE_MAXSIZE=2 GEX_COALESCE_PUT_MAX=0
                GEX_TEST_INPLACE=+ ${_sock})
foreach(t t_rma t_rma_val t_rma_lc t_nbi t_mt_stress)
  gex_add_net_run(sockinplace ${t} 4 ${_inplace})
endforeach()
set_property(TEST net_sockinplace_t_nbi_counted_n3 net_sockinplace_t_nbi_counted_n7
             net_sockmixinplace_t_nbi_counted_n4 APPEND PROPERTY LABELS "rma;events")
# Two "hosts" (network namespaces joined by a veth pair, tests/netns/), two
# ranks each: shared memory inside a host, TCP between them over the veth.
foreach(t IN LISTS GEX_NET_SUITE GEX_NET_SUITE5)
  gex_add_netns_test(netns_sock_${t} ${t} RANKS_PER_HOST 2 LABELS "net;netns;netns_sock"
                     ENV GEX_NET_TRANSPORT=sock GEX_TEST_RANKS_PER_HOST=2)
endforeach()
foreach(t t_coll t_team t_collam) # hierarchical: no collective AM inside a host
  set_property(TEST netns_sock_${t} APPEND PROPERTY ENVIRONMENT GEX_TEST_SAME_NODE_AMS=0)
endforeach()
# The collectives' rendezvous (exposed regions read and written by peers).
gex_add_netns_test(netns_sockrdv_t_collam t_collam RANKS_PER_HOST 2
                   LABELS "net;netns;netns_sock;rdv"
                   ENV GEX_NET_TRANSPORT=sock GEX_TEST_RANKS_PER_HOST=2 GEX_TEST_SAME_NODE_AMS=0
                   GEX_COLL_RDV_MIN=1 GEX_COLL_RDV_CHUNK=1000 GEX_TEST_RDV=+ GEX_TEST_RDV_PUSH=+)
# A rank killed while the others Put to it, Get from it, have NBI
# operations or an AM flood in flight: the job reports that rank's death,
# and the survivors' lines name it (fault.sh).
foreach(m kill_rma kill_nbi kill_flooded)
  gex_add_driver_test(net_sock_fault_${m}_n4 LABELS "net;net_sock;fault;n4"
    COMMAND env GEX_SUPERNODE_MAXSIZE=1 GEX_NET_TRANSPORT=sock ${GEX_BASH}
            ${CMAKE_CURRENT_SOURCE_DIR}/fault.sh $<TARGET_FILE:gexrun> 4 $<TARGET_FILE:fault_prog> ${m})
endforeach()
# The same with every rank Putting to, Getting from and sending AMs to every
# other (8 ranks: oversubscribed), 5 times each: only the killed rank is
# ever named, never a survivor whose end another survivor saw.
foreach(n 4 8)
  gex_add_driver_test(net_sock_fault_kill_alltoall_n${n} LABELS "net;net_sock;fault;n${n}"
    COMMAND env GEX_SUPERNODE_MAXSIZE=1 GEX_NET_TRANSPORT=sock ${GEX_BASH}
            ${CMAKE_CURRENT_SOURCE_DIR}/repeat.sh 5 ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/fault.sh
            $<TARGET_FILE:gexrun> ${n} $<TARGET_FILE:fault_prog> kill_alltoall)
endforeach()
# The end of a good job over the network (docs/gexrun.md, "How a job
# ends"): 8 ranks each print a line and call gasnet_exit(0) right after a
# barrier (t_exit lastline), 20 times; every run shows all 8 lines, exits 0
# and says nothing of a rank that died or is unreachable.  A rank that
# leaves without its BYE while the job exits (t_exit nobye: its peers see
# its end of file before they hear of the exit) is no failure either.
set(GEX_LASTLINE_EXPECT --status 0 --within 30 --nogrep "unreachable|died|left the job|^libgex|^gexrun")
foreach(r RANGE 7)
  list(APPEND GEX_LASTLINE_EXPECT --grep "^LASTLINE rank ${r}$")
endforeach()
foreach(m lastline firstbarrier) # (firstbarrier: the barrier makes the connections)
  gex_add_driver_test(net_sock_exit_${m}_n8 LABELS "net;net_sock;exit;n8"
    COMMAND env GEX_SUPERNODE_MAXSIZE=1 ${_sock} ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/repeat.sh 20
            ${GEX_BASH} ${GEX_EXPECT} ${GEX_LASTLINE_EXPECT}
            -- $<TARGET_FILE:gexrun> -n 8 $<TARGET_FILE:t_exit> ${m} @TOKEN@)
endforeach()
foreach(n 4 7)
  gex_add_driver_test(net_sock_exit_nobye_n${n} LABELS "net;net_sock;exit;n${n}"
    COMMAND env GEX_SUPERNODE_MAXSIZE=1 ${_socktcp} ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/repeat.sh 5
            ${GEX_BASH} ${GEX_EXPECT} --status 0 --within 30 --grep "^CUT [1-9][0-9]* TCP stream"
            --nogrep "unreachable|died|left the job|^libgex|^gexrun"
            -- $<TARGET_FILE:gexrun> -n ${n} $<TARGET_FILE:t_exit> nobye @TOKEN@)
endforeach()
# With GASNET_CATCH_EXIT=0 every rank leaves by exit(0) after a barrier:
# each says BYE on its way out, so that the others, still leaving, do not
# take its end for a failure (5 times).
gex_add_driver_test(net_sock_exit_leave_n4 LABELS "net;net_sock;exit;n4"
  COMMAND env GEX_SUPERNODE_MAXSIZE=1 ${_sock} GASNET_CATCH_EXIT=0 ${GEX_BASH}
          ${CMAKE_CURRENT_SOURCE_DIR}/repeat.sh 5 ${GEX_BASH} ${GEX_EXPECT} --status 0 --within 30
          --grep "^ATEXIT rank 0$" --grep "^ATEXIT rank 3$" --nogrep "^libgex|^gexrun"
          -- $<TARGET_FILE:gexrun> -n 4 $<TARGET_FILE:t_exit> leave @TOKEN@)
# Without a choice, a job whose hosts have no RDMA device runs over the
# sock transport (docs/network.md), also with the reference's
# GASNET_SUPERNODE_MAXSIZE; skipped where this host has one.
add_test(NAME net_sockdefault_t_rma_n2
  COMMAND ${GEX_BASH} -c "if ls /sys/class/infiniband/* /sys/class/cxi/* >/dev/null 2>&1; then echo 'SKIP: this host has an RDMA device (the default is libfabric there)'; exit 77; fi; exec \"$0\" \"$@\""
          ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN}
          --grep "^libgex: network transport sock \\(UDP lane, TCP\\)"
          -- env -u GEX_NET_TRANSPORT -u GEX_OFI_PROVIDER -u GEX_OFI_DOMAIN GASNET_SUPERNODE_MAXSIZE=1
             GEX_NET_VERBOSE=1 $<TARGET_FILE:gexrun> -n 2 $<TARGET_FILE:t_rma> @TOKEN@)
set_tests_properties(net_sockdefault_t_rma_n2 PROPERTIES TIMEOUT ${GEX_TEST_TIMEOUT}
  LABELS "net;net_sock;n2" ENVIRONMENT "${_gex_env};GEX_TEST_EXPECT_RANKS=2" SKIP_RETURN_CODE 77)
# Floods of small AMs leave in batches (frames written together at the
# next poll); mixed with AMs that do not, and with the smallest credit.
gex_add_net_run(sockbatch t_am_batch 2 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_BATCHED=+ ${_sock})
gex_add_net_run(sockbatch t_am_batch 7 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_BATCHED=+ ${_sock})
gex_add_net_run(sockbatchmix t_am_batch 4 GEX_SUPERNODE_MAXSIZE=2 GEX_TEST_BATCHED=+ ${_sock})
gex_add_net_run(sockbatchcredit t_am_batch 4 GEX_SUPERNODE_MAXSIZE=1 GEX_SOCK_AM_CREDIT=32768
                GEX_TEST_BATCHED=+ ${_sock})
# The other wait policies (GEX_WAIT_MODE, docs/design.md): sleeping on the
# connections at once, and polling without yielding (which an
# oversubscribed host, 7 ranks on the machine's cores, still overrides).
foreach(t t_rma_val t_am_medium t_coll_pipeline)
  gex_add_net_run(sockblock ${t} 4 GEX_SUPERNODE_MAXSIZE=1 GEX_WAIT_MODE=block ${_sock})
  gex_add_net_run(sockspin ${t} 2 GEX_SUPERNODE_MAXSIZE=1 GEX_WAIT_MODE=spin ${_sock})
endforeach()
gex_add_net_run(sockspin t_am_medium 7 GEX_SUPERNODE_MAXSIZE=1 GEX_WAIT_MODE=spin ${_sock})
# What a long wait does under each mode, every peer over the network.
gex_add_net_run(sock t_wait_policy 2 GEX_SUPERNODE_MAXSIZE=1 ${_sock})
gex_add_net_run(sockyield t_wait_policy 2 GEX_SUPERNODE_MAXSIZE=1 GEX_WAIT_MODE=yield ${_sock})
gex_add_net_run(sockblock t_mt_stress 4 GEX_SUPERNODE_MAXSIZE=1 GEX_WAIT_MODE=block ${_sock})
# Connection setup in a crowd (docs/network.md, "Limits"): 128 ranks
# all-to-all, every rank its own node; 16 ranks whose namespace has 40
# ephemeral ports for 120 connections (none may hold a port bound before
# connect()).  The storm of a stranger's connections while a job makes its
# own is in tests/security.cmake.
if(NOT GEX_SANITIZE) # (128 instrumented processes are more than the machine's memory is for)
  gex_add_net_run(sock t_alltoall 128 GEX_SUPERNODE_MAXSIZE=1 ${_sock})
  set_tests_properties(net_sock_t_alltoall_n128 PROPERTIES RUN_SERIAL ON TIMEOUT 600)
endif()
gex_add_driver_test(netns_sock_ports LABELS "net;net_sock;netns"
  COMMAND ${GEX_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/sock_ports.sh $<TARGET_FILE:gexrun>
          $<TARGET_FILE:t_alltoall> 16 40)
foreach(n 7 32)
  gex_add_net_run(sock t_alltoall ${n} GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_ROUNDS=3 ${_sock})
endforeach()
# Frames to a peer whose connection is being made wait in the sender; a
# wait that completes lets them go before it returns (t_leave_after_wait.c).
foreach(n 8 32)
  gex_add_net_run(socktcp t_leave_after_wait ${n} GEX_SUPERNODE_MAXSIZE=1 ${_socktcp})
endforeach()
# The UDP lane (GEX_SOCK_UDP, on by default, sock_lane.c) carries the runs
# above; here the same transport without it (GEX_SOCK_UDP=0: a TCP
# connection per pair, made on first use), and the lane with pieces lost
# on purpose (GEX_TEST_LANE_DROP), which retransmission must recover.
foreach(t t_rma t_rma_val t_am_medium t_am_long t_barrier t_nbi t_coll t_atomic t_vis t_mt_stress)
  gex_add_net_run(socktcp ${t} 3 GEX_SUPERNODE_MAXSIZE=1 ${_socktcp})
endforeach()
gex_add_net_run(socktcp t_alltoall 32 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_ROUNDS=3 ${_socktcp})
gex_add_net_run(sockudp t_alltoall 16 GEX_SUPERNODE_MAXSIZE=1 GEX_SOCK_UDP=1 GEX_TEST_ROUNDS=3 ${_sock})
gex_add_net_run(sockudp t_leave_after_wait 8 GEX_SUPERNODE_MAXSIZE=1 GEX_SOCK_UDP=1 ${_sock})
# A rank computing outside the library for longer than the network's
# patience, while its peers send to it and wait (t_compute_outside.c): the
# lane's keeper thread acknowledges for it, as the kernel does over TCP.
foreach(u 0 1)
  set(_tag sock)
  if(u)
    set(_tag sockudp)
  endif()
  gex_add_net_run(${_tag} t_compute_outside 4 GEX_SUPERNODE_MAXSIZE=1 GEX_SOCK_UDP=${u}
                  GEX_SOCK_CONNECT_TIMEOUT=2 GEX_TEST_COMPUTE_S=4 ${_sock})
endforeach()
# A rank spinning outside the library gets its AMs and Puts through the
# receive thread (t_rcv_thread.c), over TCP and over the UDP lane, started
# by the library, started by the client (GEX_FLAG_DEFER_THREADS), with its
# wake-ups limited, and with 7 ranks on the machine's cores; the controls,
# without the thread, must see nothing arrive while rank 0 spins.
foreach(u 0 1)
  set(_tag sockrcv)
  if(u)
    set(_tag sockudprcv)
  endif()
  foreach(n 2 4)
    gex_add_net_run(${_tag} t_rcv_thread ${n} GEX_SUPERNODE_MAXSIZE=1 GEX_SOCK_UDP=${u}
                    GASNET_RCV_THREAD=1 GEX_TEST_RCV=1 ${_sock})
  endforeach()
endforeach()
gex_add_net_run(sockrcv t_rcv_thread 7 GEX_SUPERNODE_MAXSIZE=1 GASNET_RCV_THREAD=1 GEX_TEST_RCV=1 ${_sock})
gex_add_net_run(sockrcvdefer t_rcv_thread 2 GEX_SUPERNODE_MAXSIZE=1 GASNET_RCV_THREAD=1
                GEX_TEST_RCV=1 GEX_TEST_DEFER=1 ${_sock})
gex_add_net_run(sockrcvrate t_rcv_thread 2 GEX_SUPERNODE_MAXSIZE=1 GASNET_RCV_THREAD=1
                GASNET_RCV_THREAD_RATE=200 GEX_TEST_RCV=1 ${_sock})
gex_add_net_run(sockrcvoff t_rcv_thread 4 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_RCV=0 ${_sock})
gex_add_net_run(sockrcvoffdefer t_rcv_thread 2 GEX_SUPERNODE_MAXSIZE=1 GEX_TEST_RCV=0
                GEX_TEST_DEFER=1 ${_sock})
# t_rma and t_am_long move 1 MiB between pairs: the pair's lane ends and the
# stream goes on over TCP (sock_lane.c, "Bulk"), while pieces drop. Rank 0
# must have dropped some; what it sent again may be none (the drops that hit
# it may all have been acknowledgements, which its peers recover). Which rank
# of a pair moves the lane is a race (the other finds the TCP connection made
# and counts nothing), so the move is required of some rank, not of rank 0.
foreach(t t_rma_val t_am_medium t_coll t_rma t_am_long)
  set(_cut_grep)
  if(t STREQUAL "t_rma" OR t STREQUAL "t_am_long")
    set(_cut_grep --grep "^libgex: rank [0-9]+: UDP lane: .* [1-9][0-9]* lanes moved to TCP for bulk$")
  endif()
  add_test(NAME net_sockudpdrop_${t}_n4
    COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN}
            --grep "^libgex: rank 0: UDP lane: [1-9][0-9]* pieces dropped on purpose, [0-9]+ sent again, [0-9]+ lanes moved to TCP for bulk$"
            ${_cut_grep} --
            env GEX_SUPERNODE_MAXSIZE=1 GEX_SOCK_UDP=1 GEX_TEST_LANE_DROP=11 ${_sock}
                $<TARGET_FILE:gexrun> -n 4 $<TARGET_FILE:${t}> @TOKEN@)
  set_tests_properties(net_sockudpdrop_${t}_n4 PROPERTIES TIMEOUT ${GEX_TEST_TIMEOUT}
    LABELS "net;net_sockudp;n4" ENVIRONMENT "${_gex_env};GEX_TEST_EXPECT_RANKS=4" SKIP_RETURN_CODE 77)
endforeach()
