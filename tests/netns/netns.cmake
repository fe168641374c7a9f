# tests/netns/netns.cmake -- multi-host launch tests: two network namespaces
# play two hosts, gexrun reaches them with GEX_RSH="ip netns exec".
# Included from tests/CMakeLists.txt.  Needs root (ip netns add); without it
# every test here is reported as skipped (status 77).
#
# gex_add_netns_test(<test> <program> [RANKS_PER_HOST k] [ENV var=value...]
#                    [LABELS l...] [ARGS a...] [GEXRUN_ARGS o...]
#                    [EXPECT expect.sh options...] [POST command] [TIMEOUT s])
#   Registers <test>: run2hosts.sh brings up two namespaces and runs, through
#   tests/expect.sh,
#     gexrun -n 2k --hosts NS1:k,NS2:k <GEXRUN_ARGS> <program> <ARGS> @TOKEN@
#   <program> is a target name (its file is used) or a command.  k defaults
#   to 2, EXPECT to --pass (exit 0 and a PASS line), TIMEOUT to
#   GEX_TEST_TIMEOUT.  @NS1@/@NS2@ in ARGS, GEXRUN_ARGS and EXPECT become the
#   namespace names.  ENV entries are added to the test's environment
#   (gexrun forwards GEX_*, GASNET_* and FI_* to the other host); a value
#   may contain ';' when each variable is one quoted argument, e.g.
#   ENV "GEX_OFI_PROVIDER=tcp;ofi_rxm".
#   POST: a command run with the job's output file as last argument, which
#   must succeed too.  Labels: multihost plus LABELS.
#
# To run the whole conformance suite across two hosts later:
#   foreach(t t_rma t_am_medium ...)
#     gex_add_netns_test(mh_${t}_ofi ${t} RANKS_PER_HOST 2 LABELS ofi
#                        ENV "GEX_OFI_PROVIDER=tcp;ofi_rxm")
#   endforeach()
set(GEX_NETNS_DIR ${CMAKE_CURRENT_LIST_DIR})

function(gex_add_netns_test tname prog)
  # PARSE_ARGV keeps a ';' inside one argument (ENV values, EXPECT patterns)
  cmake_parse_arguments(PARSE_ARGV 2 T "" "RANKS_PER_HOST;TIMEOUT;POST"
                        "ENV;LABELS;ARGS;GEXRUN_ARGS;EXPECT")
  if(NOT T_RANKS_PER_HOST)
    set(T_RANKS_PER_HOST 2)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT ${GEX_TEST_TIMEOUT})
  endif()
  math(EXPR within "${T_TIMEOUT} - 10")
  math(EXPR n "2 * ${T_RANKS_PER_HOST}")
  if(NOT T_EXPECT)
    set(T_EXPECT --pass)
  endif()
  set(post)
  if(T_POST)
    set(post --post "${T_POST}")
  endif()
  if(TARGET ${prog})
    set(prog $<TARGET_FILE:${prog}>)
  endif()
  add_test(NAME ${tname}
    COMMAND ${GEX_BASH} ${GEX_NETNS_DIR}/run2hosts.sh ${post} $<TARGET_FILE:gexrun>
            ${T_RANKS_PER_HOST} ${T_EXPECT} --within ${within}
            -- ${T_GEXRUN_ARGS} ${prog} ${T_ARGS} @TOKEN@)
  set_tests_properties(${tname} PROPERTIES
    TIMEOUT ${T_TIMEOUT}
    LABELS "multihost;${T_LABELS}"
    ENVIRONMENT "${_gex_env};GEX_TEST_EXPECT_RANKS=${n};${T_ENV}"
    SKIP_RETURN_CODE 77)
endfunction()

# ---- conformance programs across two hosts (2 ranks per host) ------------------
foreach(t t_rma t_am_medium t_barrier)
  gex_add_netns_test(mh_${t} ${t} RANKS_PER_HOST 2 LABELS conformance)
endforeach()

# ---- waiting on a machine whose namespaces the job fills -------------------------
# Four ranks in two namespaces of this machine share its cores, though each
# namespace (host) holds only two: what a long wait does is judged by the
# machine's count (t_wait_policy.c; docs/design.md, "Waiting without starving
# others"): on two cores it must yield, also in the default mode.
gex_add_netns_test(mh_t_wait_policy t_wait_policy RANKS_PER_HOST 2 LABELS events
                   ENV "GEX_TEST_MACHINE_RANKS=4")

# ---- an ssh-like remote shell (command joined and run by a shell, which stays
# between the remote shell and the proxy) -------------------------------------
gex_add_netns_test(mh_fake_ssh t_am_medium RANKS_PER_HOST 2
  ENV "GEX_NETNS_RSH=${GEX_BASH} ${GEX_NETNS_DIR}/fake_ssh.sh")

# ---- -l: every line of every rank labelled, lines never mixed -------------------
gex_add_netns_test(mh_label ${GEX_BASH} RANKS_PER_HOST 2 GEXRUN_ARGS -l
  ARGS ${GEX_NETNS_DIR}/print_lines.sh 40 9000
  EXPECT --status 0 POST "${GEX_BASH} ${GEX_NETNS_DIR}/label_check.sh 4 40")
# the same on one host: local ranks go through pipes too
gex_add_driver_test(gexrun_label_local LABELS "multihost"
  COMMAND ${GEX_BASH} ${GEX_NETNS_DIR}/label_check.sh --run 3 40 --
          ${GEX_BASH} ${GEX_EXPECT} --status 0 --within 60 --
          $<TARGET_FILE:gexrun> -n 3 -l ${GEX_BASH} ${GEX_NETNS_DIR}/print_lines.sh 40 9000 @TOKEN@)

# ---- environment (GEX_* and -x) and working directory reach the remote ranks ----
gex_add_netns_test(mh_env_cwd ${GEX_BASH} RANKS_PER_HOST 1 GEXRUN_ARGS -x GEX_TEST_MY_X -x OTHER_X=given
  ENV "GEX_TEST_FWD=a b;c" "GEX_TEST_MY_X=xval"
  ARGS ${GEX_NETNS_DIR}/print_env.sh
  EXPECT --status 0
         --grep "^ENV 1/2 \\[a b;c\\] \\[xval\\] \\[given\\] ${CMAKE_CURRENT_BINARY_DIR}$"
         --grep "^ENV 0/2 \\[a b;c\\] \\[xval\\] \\[given\\] ${CMAKE_CURRENT_BINARY_DIR}$")

# ---- exit status of a remote rank's gasnet_exit is the job's -------------------
gex_add_netns_test(mh_exit_blockuntil t_exit RANKS_PER_HOST 2 LABELS exit ARGS blockuntil
  EXPECT --status 7 --grep "^EXITING rank 3")
gex_add_netns_test(mh_exit_handler t_exit RANKS_PER_HOST 2 LABELS exit ARGS handler
  EXPECT --status 5 --grep "^EXITING rank 3")
gex_add_netns_test(mh_exit_return t_exit RANKS_PER_HOST 2 LABELS exit ARGS return
  EXPECT --status 8 --grep "^EXITING rank 3")

# ---- faults: a remote rank dies, the proxy dies, SIGTERM to gexrun, gexrun dies --
foreach(m kill_rank kill_proxy sigterm kill_gexrun)
  gex_add_driver_test(mh_fault_${m} LABELS "multihost;fault" TIMEOUT 60
    COMMAND ${GEX_BASH} ${GEX_NETNS_DIR}/fault2hosts.sh $<TARGET_FILE:gexrun> 2
            $<TARGET_FILE:fault_prog> ${m})
endforeach()
# the same through the ssh-like remote shell: a shell stays between the remote
# shell process and the proxy, which must notice gexrun's end by EOF
foreach(m kill_proxy kill_gexrun)
  gex_add_driver_test(mh_fault_${m}_ssh LABELS "multihost;fault" TIMEOUT 60
    COMMAND ${GEX_BASH} ${GEX_NETNS_DIR}/fault2hosts.sh $<TARGET_FILE:gexrun> 2
            $<TARGET_FILE:fault_prog> ${m})
  set_property(TEST mh_fault_${m}_ssh APPEND PROPERTY ENVIRONMENT
    "GEX_NETNS_RSH=${GEX_BASH} ${GEX_NETNS_DIR}/fake_ssh.sh")
endforeach()

# ---- bootstrap timeout ----------------------------------------------------------
# rank 3 (second host) waits on purpose instead of initialising libgex
gex_add_netns_test(mh_boot_timeout ${GEX_BASH} RANKS_PER_HOST 2 TIMEOUT 30
  ENV GEX_BOOTSTRAP_TIMEOUT=2
  ARGS ${GEX_NETNS_DIR}/late_rank.sh 3 $<TARGET_FILE:t_barrier>
  EXPECT --nonzero
         --grep "^gexrun: bootstrap timed out after 2 s: rank 3 \\(host @NS2@\\) never called gex_Client_Init")
# the remote shell of the second host never connects (no namespaces needed)
gex_add_driver_test(mh_boot_timeout_rsh LABELS multihost TIMEOUT 30
  COMMAND ${GEX_BASH} ${GEX_EXPECT} --nonzero --within 15
          --grep "^gexrun: bootstrap timed out after 2 s: ranks 2,3 \\(host gexfakehost\\) never started"
          -- $<TARGET_FILE:gexrun> -n 4 --hosts localhost:2,gexfakehost:2
          $<TARGET_FILE:t_barrier> @TOKEN@)
set_property(TEST mh_boot_timeout_rsh APPEND PROPERTY ENVIRONMENT
  "GEX_BOOTSTRAP_TIMEOUT=2" "GEX_RSH=${GEX_BASH} ${GEX_NETNS_DIR}/hang_rsh.sh")

# ---- a remote shell that fails: fast and clear, not a timeout -------------------
gex_add_driver_test(mh_rsh_false LABELS multihost TIMEOUT 20
  COMMAND ${GEX_BASH} ${GEX_EXPECT} --nonzero --within 5
          --grep "^gexrun: cannot start ranks [0-9,]+ on host (gexa|gexb): the remote shell exited with status 1"
          -- $<TARGET_FILE:gexrun> -n 4 --hosts gexa:2,gexb:2 $<TARGET_FILE:t_barrier> @TOKEN@)
set_property(TEST mh_rsh_false APPEND PROPERTY ENVIRONMENT "GEX_RSH=false")
gex_add_driver_test(mh_unknown_host LABELS multihost TIMEOUT 20
  COMMAND ${GEX_BASH} ${GEX_EXPECT} --nonzero --within 5
          --grep "^gexrun: cannot start ranks 2,3 on host gex-no-such-netns: the remote shell exited with status"
          -- $<TARGET_FILE:gexrun> -n 4 --hosts localhost:2,gex-no-such-netns:2
          $<TARGET_FILE:t_barrier> @TOKEN@)
set_property(TEST mh_unknown_host APPEND PROPERTY ENVIRONMENT "GEX_RSH=ip netns exec")

# ---- placement rule (no host is reached: GEX_RSH=false; the verbose log shows it)
gex_add_driver_test(mh_placement LABELS multihost TIMEOUT 20
  COMMAND ${GEX_BASH} ${GEX_EXPECT} --nonzero --within 5
          --grep "^gexrun: host gexa: ranks 0-0 through 'false gexa "
          --grep "^gexrun: host gexb: ranks 1-2 through 'false gexb "
          --grep "^gexrun: host gexc: ranks 3-4 through 'false gexc "
          -- $<TARGET_FILE:gexrun> -n 5 --hosts gexa:1,gexb,gexc $<TARGET_FILE:t_barrier> @TOKEN@)
set_property(TEST mh_placement APPEND PROPERTY ENVIRONMENT "GEX_RSH=false" "GEXRUN_VERBOSE=1")
gex_add_driver_test(mh_placement_short LABELS multihost TIMEOUT 20
  COMMAND ${GEX_BASH} ${GEX_EXPECT} --status 2 --within 5
          --grep "^gexrun: the hosts have 4 slot\\(s\\) for 5 ranks"
          -- $<TARGET_FILE:gexrun> -n 5 --hosts gexa:1,gexb $<TARGET_FILE:t_barrier> @TOKEN@)

# ---- the working directory is missing on the remote host: a clear message -----
gex_add_driver_test(mh_cwd_missing LABELS multihost TIMEOUT 30
  COMMAND ${GEX_BASH} ${GEX_NETNS_DIR}/cwd_missing.sh $<TARGET_FILE:gexrun>
          $<TARGET_FILE:t_barrier>)
