# tests/gasnet-tests/gasnet_tests.cmake -- the gasnet-tests stage (label
# gasnet-tests): the reference GASNet-EX test suite, built from its sources in
# ../shared (never copied here) against the *installed* libgex only, the way
# the reference's own tests Makefile builds it, and run with the arguments of
# its harness.conf.  Included from tests/CMakeLists.txt; tests/README.md and
# docs/compatibility.md describe it.
#
#   ref_install            fixture: cmake --install into build/gasnet-tests/prefix
#   ref_<mode>_build       fixture (mode seq, par): build/gasnet-tests/<mode>/Makefile.ref
#                          from Makefile.in, every program built with
#                          make configfile=<prefix>/include/ofi-conduit/ofi-<mode>.mak
#   ref_<mode>_<prog>_compile, ref_<mode>_<entry>_{host,net}_n<N>,
#   ref_<mode>_testexit_<case>   see plan.py
#   ref_par_smp_identity   the par programs built with smp-conduit/smp-par.mak
#                          as well, a few run under gasnetrun_smp (identity_smp.sh)
#
# The list of tests comes from plan.py at configure time (plan.json,
# plan.cmake and not-registered.txt in build/gasnet-tests).

set(GEX_REFERENCE_TESTS_DIR "${CMAKE_SOURCE_DIR}/../shared/reference/gasnet-tests" CACHE PATH
    "The reference GASNet-EX test suite (its tests/ directory) for the gasnet-tests stage")
set(GEX_REF_TIMELIMIT 60 CACHE STRING
    "Seconds that the reference harness's \$DEFAULT\$ time limit stands for in the gasnet-tests stage")
set(GEX_REF_TIMELIMIT_MAX 240 CACHE STRING "Upper bound of any gasnet-tests run's time limit, in seconds")

set(_ref_dir ${CMAKE_CURRENT_LIST_DIR})
set(_ref_work ${CMAKE_BINARY_DIR}/gasnet-tests)
# The system interpreter first: every test starts one, and version managers'
# shims (pyenv) triple its start-up time.
find_program(GEX_PYTHON3 NAMES python3 HINTS /usr/bin)
get_filename_component(_ref_suite "${GEX_REFERENCE_TESTS_DIR}" ABSOLUTE)

if(NOT EXISTS "${_ref_suite}/Makefile.in" OR NOT EXISTS "${_ref_suite}/harness/gasnet-tests/harness.conf"
   OR NOT GEX_PYTHON3)
  if(NOT GEX_PYTHON3)
    set(_why "python3 not found (Debian: apt-get install python3)")
  else()
    set(_why "the reference test suite is not at ${_ref_suite} (set GEX_REFERENCE_TESTS_DIR)")
  endif()
  add_test(NAME ref_suite_missing COMMAND sh -c "echo 'SKIP: gasnet-tests: ${_why}'; exit 77")
  set_tests_properties(ref_suite_missing PROPERTIES LABELS gasnet-tests SKIP_RETURN_CODE 77)
  message(STATUS "libgex tests: gasnet-tests stage not registered: ${_why}")
  return()
endif()

# ---- the substitution of Makefile.in's @...@ placeholders ----------------------------
# One sed script, used by the build fixture (build.sh) and by plan.py.
find_program(GEX_MPICC NAMES mpicc)
find_program(GEX_MPIRUN NAMES mpirun)
set(_ref_mpi 0)
if(GEX_MPICC)
  set(_ref_mpi 1)
endif()
set(_ref_mpirun_pmix 0)
if(GEX_MPIRUN AND GEX_HAVE_PMIX)
  set(_ref_mpirun_pmix 1) # libgex starts under mpirun through PMIx
endif()
set(_yes "")   # an @X_TRUE@ prefix that keeps its line
set(_no "#")   # ... that comments it out
if(_ref_mpi)
  set(_mpi_compat "${_yes}")
else()
  set(_mpi_compat "${_no}")
endif()
# testcudauva compiles its CUDA code against cuda.h where
# GASNET_HAVE_MK_CLASS_CUDA_UVA is defined, and calls the CUDA driver itself:
# it is linked with it (the reference's GASNET_LIBS carries it; libgex loads
# it at run time, so libgex's do not).
set(_ref_cuda_cflags "")
if(GEX_HAVE_CUDA_H)
  set(_ref_cuda_cflags "-I${GEX_CUDA_INCLUDE}")
endif()
set(_ref_subst
  "configure_input=Generated from Makefile.in by tests/gasnet-tests/build.sh (libgex)"
  "TOP_SRCDIR=${_ref_work}/src"
  "TOP_BUILDDIR=${_ref_work}/gasnet"
  "MPI_CC=${GEX_MPICC}" "MPI_CFLAGS=" "MPI_LIBS=" "LIBM=-lm"
  "HAVE_PTHREAD_TRUE=${_yes}" "HAVE_PTHREAD_FALSE=${_no}"
  "USE_MPI_COMPAT_TRUE=${_mpi_compat}" "USE_MPI_CONDUIT_TRUE=${_no}"
  "GASNET_SEGMENT_FAST_TRUE=${_yes}" "GASNET_SEGMENT_LARGE_TRUE=${_no}"
  "GASNET_SEGMENT_EVERYTHING_TRUE=${_no}"
  "BUILDCONFIG_DEBUG_TRUE=${_no}" "BUILDCONFIG_DEBUG_FALSE=${_yes}"
  "CROSS_COMPILING_TRUE=${_no}" "CROSS_COMPILING_FALSE=${_yes}"
  "DEBUGMALLOC_TRUE=${_no}" "DEBUGMALLOC_VAR=GEX_UNUSED_DEBUGMALLOC" "DEBUGMALLOC_VAL="
  "EXESUFFIX=" "AWK=awk" "PERL=perl" "TIMECMD=" "KEEPTMP_CFLAGS=-save-temps"
  "CUDA_UVA_CFLAGS=${_ref_cuda_cflags}" "HIP_CFLAGS=" "ZE_CFLAGS=" "GASNET_THREAD_LIBS=-lpthread")
set(_sed "")
foreach(kv IN LISTS _ref_subst)
  string(FIND "${kv}" "=" eq)
  string(SUBSTRING "${kv}" 0 ${eq} key)
  math(EXPR eq "${eq} + 1")
  string(SUBSTRING "${kv}" ${eq} -1 val)
  string(REPLACE "\\" "\\\\" val "${val}")
  string(REPLACE "|" "\\|" val "${val}")
  string(REPLACE "&" "\\&" val "${val}")
  string(APPEND _sed "s|@${key}@|${val}|g\n")
endforeach()
if(GEX_HAVE_CUDA_H)
  set(_ref_cuda_libs "-lcuda")
  if(GEX_CUDA_STUB)
    get_filename_component(_stubs ${GEX_CUDA_STUB} DIRECTORY)
    set(_ref_cuda_libs "-L${_stubs} -lcuda")
  endif()
  string(APPEND _sed "/^testcudauva_extracflags/a testcudauva_extralibs = ${_ref_cuda_libs}\n")
endif()
file(MAKE_DIRECTORY ${_ref_work})
file(WRITE ${_ref_work}/makefile.sed "${_sed}")

# ---- the plan -----------------------------------------------------------------------
execute_process(
  COMMAND ${GEX_PYTHON3} ${_ref_dir}/plan.py --suite ${_ref_suite} --sed ${_ref_work}/makefile.sed
          --workdir ${_ref_work} --out ${_ref_work} --timelimit ${GEX_REF_TIMELIMIT}
          --timelimit-max ${GEX_REF_TIMELIMIT_MAX} --cc-family ${CMAKE_C_COMPILER_ID}
          --mpi ${_ref_mpi} --mpirun-pmix ${_ref_mpirun_pmix} --cuda-uva ${GEX_HAVE_CUDA_H}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "gasnet-tests: plan.py failed:\n${_out}${_err}")
endif()
string(STRIP "${_out}" _out)
message(STATUS "libgex tests: ${_out}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${_ref_suite}/Makefile.in ${_ref_suite}/harness/gasnet-tests/harness.conf
  ${_ref_dir}/plan.py ${_ref_dir}/harness_conf.py)

# ---- fixtures ---------------------------------------------------------------------------
add_test(NAME ref_install
  COMMAND ${GEX_BASH} ${_ref_dir}/install_prefix.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR} ${_ref_work}
          ${_ref_suite} ${CMAKE_BINARY_DIR}/gasnet_layout_config.cmake ${CMAKE_SOURCE_DIR}/cmake)
set_tests_properties(ref_install PROPERTIES LABELS gasnet-tests TIMEOUT 120
  FIXTURES_SETUP ref_prefix)
foreach(mode seq par)
  add_test(NAME ref_${mode}_build
    COMMAND ${GEX_BASH} ${_ref_dir}/build.sh ${mode} ${_ref_work} ${_ref_suite} ${GEX_PYTHON3})
  # two compilers at a time (make -j2): ctest counts both processors
  set_tests_properties(ref_${mode}_build PROPERTIES LABELS "gasnet-tests;gasnet-tests-${mode}"
    TIMEOUT 900 PROCESSORS 2 FIXTURES_REQUIRED ref_prefix FIXTURES_SETUP ref_${mode})
endforeach()
# The same programs against the smp identity (identity_smp.sh): what
# compiles with ofi-par.mak compiles with smp-par.mak, and a few run under
# gasnetrun_smp.
add_test(NAME ref_par_smp_identity
  COMMAND ${GEX_BASH} ${_ref_dir}/identity_smp.sh ${_ref_work} ${_ref_suite} ${GEX_PYTHON3})
set_tests_properties(ref_par_smp_identity PROPERTIES LABELS "gasnet-tests;gasnet-tests-par"
  TIMEOUT 900 PROCESSORS 2 FIXTURES_REQUIRED "ref_prefix;ref_par")

# gex_ref_test(<name> <mode> <kind> <time limit> <expected status> <launcher>):
# one test of plan.cmake.  kind: compile, host, net or exit.
set(_ref_runner ${GEX_PYTHON3} ${_ref_dir}/run_test.py --plan ${_ref_work}/plan.json)
function(gex_ref_test name mode kind limit status launcher)
  math(EXPR timeout "${limit} + 20")
  if(kind STREQUAL "compile")
    add_test(NAME ${name} COMMAND ${_ref_runner} --test ${name})
  elseif(kind STREQUAL "exit")
    add_test(NAME ${name} COMMAND ${GEX_BASH} ${GEX_EXPECT} --status ${status} --within ${limit}
             -- ${_ref_runner} --test ${name} --token @TOKEN@)
  else()
    # passes as the reference's run-tests target judges a run: exit status 0
    # and no line with ERROR (run_test.py checks the output); and no process
    # or /dev/shm entry left behind
    add_test(NAME ${name} COMMAND ${GEX_BASH} ${GEX_EXPECT} --status 0 --within ${limit}
             -- ${_ref_runner} --test ${name} --token @TOKEN@)
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout}
    LABELS "gasnet-tests;gasnet-tests-${mode};gasnet-tests-${kind}"
    FIXTURES_REQUIRED ref_${mode})
  if(launcher STREQUAL "mpirun")
    # Open MPI makes /dev/shm objects while it runs (see the pmix tests)
    set_tests_properties(${name} PROPERTIES RUN_SERIAL TRUE)
  endif()
endfunction()
include(${_ref_work}/plan.cmake)
