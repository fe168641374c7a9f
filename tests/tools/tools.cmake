# tests/tools/tools.cmake -- tests of the GASNet tools (label "tools"):
# gasnet_tools.h, gasnet_portable_platform.h and the tools libraries.
#
#   tools_testtools_{seq,par}, tools_testtoolscxx_{seq,par}
#       the reference testtools.c / testtoolscxx.cc, built in place from
#       GEX_REFERENCE_TESTS_DIR against libgasnet_tools-seq/-par: exit 0, no
#       line containing ERROR (the C++ runs skip section A, the 20-second
#       timer check the C runs already make)
#   tools_t_tools_{seq,par,gex}
#       tests/tools/t_tools.c with each tools library and with libgex
#   tools_platform_copies_{1,2,3}, tools_platform_undefs
#       several copies of gasnet_portable_platform.h in one unit
#   tools_header_*   the headers compile clean (-Wall -Wextra -Werror ...);
#                    tools_header_diag_*: the diagnostics' declarations with
#                    either of gasnetex.h and gasnet_tools.h first
#   tools_reference_{test_h,testam_h}_{seq,par}
#       the reference test.h / testam.h (in releases that have one) compile
#       after <gasnetex.h>; skipped
#       while they need names other parts of libgex have yet to provide
# Included from tests/CMakeLists.txt.

set(GEX_REFERENCE_TESTS_DIR "${CMAKE_SOURCE_DIR}/../shared/reference/gasnet-tests"
    CACHE PATH "The reference GASNet-EX test programs (read-only, built in place)")
set(_tools_dir ${CMAKE_CURRENT_SOURCE_DIR}/tools)
set(_tools_inc ${CMAKE_SOURCE_DIR}/include)
# The timer section of testtools compares two clocks read one after the
# other; on a loaded machine a thread can lose the CPU in between, so allow
# a generous difference (the reference harness does the same on VMs).
set(_tools_env "GASNET_TEST_TIME_SLACK=2")

function(gex_tools_test tname)
  cmake_parse_arguments(T "" "TIMEOUT" "COMMAND" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT ${GEX_TEST_TIMEOUT})
  endif()
  add_test(NAME ${tname} COMMAND ${T_COMMAND})
  set_tests_properties(${tname} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS tools
                       ENVIRONMENT "${_tools_env}" SKIP_RETURN_CODE 77)
endfunction()

# ---- our own test, with each library ------------------------------------------------
foreach(v seq par gex)
  add_executable(t_tools_${v} ${_tools_dir}/t_tools.c)
  if(v STREQUAL "gex")
    target_link_libraries(t_tools_${v} PRIVATE gex_static)
    target_compile_definitions(t_tools_${v} PRIVATE T_TOOLS_WITH_GEX=1)
  else()
    target_link_libraries(t_tools_${v} PRIVATE gasnet_tools_${v})
  endif()
  gex_tools_test(tools_t_tools_${v}
    COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN} --
            $<TARGET_FILE:t_tools_${v}>)
endforeach()

# ---- several copies of the platform header -------------------------------------------
# A copy of the header with its version raised by one, for case 3.
file(READ ${_tools_inc}/gasnet_portable_platform.h _pp)
string(REGEX MATCH "#define PLATFORM_HEADER_VERSION ([0-9]+)" _m "${_pp}")
set(_ppv ${CMAKE_MATCH_1})
math(EXPR _ppv_next "${_ppv} + 1")
string(REPLACE "PLATFORM_HEADER_VERSION < ${_ppv})" "PLATFORM_HEADER_VERSION < ${_ppv_next})"
       _pp "${_pp}")
string(REPLACE "#define PLATFORM_HEADER_VERSION ${_ppv}" "#define PLATFORM_HEADER_VERSION ${_ppv_next}"
       _pp "${_pp}")
set(_pp_gen_dir ${CMAKE_CURRENT_BINARY_DIR}/tools_gen)
file(WRITE ${_pp_gen_dir}/gasnet_portable_platform_next.h "${_pp}")
foreach(c 1 2 3)
  add_executable(t_platform_copies_${c} ${_tools_dir}/t_platform_copies.c)
  target_include_directories(t_platform_copies_${c} PRIVATE ${_tools_inc} ${_pp_gen_dir})
  target_compile_definitions(t_platform_copies_${c} PRIVATE PLATFORM_CASE=${c}
                             PLATFORM_CASE_CURRENT_VERSION=${_ppv}
                             PLATFORM_CASE_NEXT_VERSION=${_ppv_next})
  gex_tools_test(tools_platform_copies_${c}
    COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within 30 -- $<TARGET_FILE:t_platform_copies_${c}>)
endforeach()
gex_tools_test(tools_platform_undefs
  COMMAND ${GEX_BASH} ${_tools_dir}/check_platform_undefs.sh ${_tools_inc}/gasnet_portable_platform.h)

# ---- the headers compile clean ----------------------------------------------------------
set(_check ${GEX_BASH} ${_tools_dir}/compile_check.sh)
set(_incs -I${_tools_inc} -I${CMAKE_BINARY_DIR}/include)
gex_tools_test(tools_header_platform_c89
  COMMAND ${_check} -- ${CMAKE_C_COMPILER} -pedantic -Wall -Wextra -Wundef -ansi -Werror
          -I${_tools_inc} -fsyntax-only -x c ${_tools_dir}/t_platform_header.c)
set(_modes "lite_seq|" "lite_par|-DGASNETT_THREAD_SAFE=1"
           "gex_seq|-DWITH_GASNETEX -DGASNET_SEQ" "gex_par|-DWITH_GASNETEX -DGASNET_PAR")
foreach(m IN LISTS _modes)
  string(REPLACE "|" ";" f "${m}")
  list(GET f 0 mname)
  list(GET f 1 mflags)
  separate_arguments(mflags)
  gex_tools_test(tools_header_c_${mname}
    COMMAND ${_check} -- ${CMAKE_C_COMPILER} -std=c11 -Wall -Wextra -Wundef -Werror ${mflags} ${_incs}
            -fsyntax-only -x c ${_tools_dir}/header_use.c)
endforeach()

# The diagnostics' declarations, with either header first (C here, C++ below).
set(_diag_modes "gex_first_seq|-DGASNET_SEQ" "gex_first_par|-DGASNET_PAR"
                "tools_first_seq|-DTOOLS_FIRST -DGASNET_SEQ" "tools_first_par|-DTOOLS_FIRST -DGASNET_PAR")
foreach(m IN LISTS _diag_modes)
  string(REPLACE "|" ";" f "${m}")
  list(GET f 0 mname)
  list(GET f 1 mflags)
  separate_arguments(mflags)
  gex_tools_test(tools_header_diag_c_${mname}
    COMMAND ${_check} -- ${CMAKE_C_COMPILER} -std=c11 -Wall -Wextra -Wundef -Werror ${mflags} ${_incs}
            -fsyntax-only -x c ${_tools_dir}/diag_header_use.c)
endforeach()

# ---- the reference test.h and testam.h after <gasnetex.h> --------------------------------
if(EXISTS ${GEX_REFERENCE_TESTS_DIR}/test.h)
  foreach(mode SEQ PAR)
    string(TOLOWER ${mode} lmode)
    gex_tools_test(tools_reference_test_h_${lmode}
      COMMAND ${_check} --needs-others -- ${CMAKE_C_COMPILER} -std=gnu11
              -Werror=implicit-function-declaration -DGASNET_${mode} ${_incs}
              -I${GEX_REFERENCE_TESTS_DIR} -fsyntax-only -x c ${_tools_dir}/use_test_h.c)
    if(EXISTS ${GEX_REFERENCE_TESTS_DIR}/testam.h) # (older releases; 2025.8.0 has none)
      gex_tools_test(tools_reference_testam_h_${lmode}
        COMMAND ${_check} --needs-others -- ${CMAKE_C_COMPILER} -std=gnu11
                -Werror=implicit-function-declaration -DGASNET_${mode} -DUSE_TESTAM_H ${_incs}
                -I${GEX_REFERENCE_TESTS_DIR} -fsyntax-only -x c ${_tools_dir}/use_test_h.c)
    endif()
  endforeach()
endif()

# ---- C++: the header compile tests and testtoolscxx --------------------------------------
include(CheckLanguage)
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  enable_language(CXX)
  gex_tools_test(tools_header_platform_cxx
    COMMAND ${_check} -- ${CMAKE_CXX_COMPILER} -Wall -Wextra -pedantic -Wundef -Werror
            -I${_tools_inc} -fsyntax-only -x c++ ${_tools_dir}/t_platform_header.c)
  foreach(m IN LISTS _modes)
    string(REPLACE "|" ";" f "${m}")
    list(GET f 0 mname)
    list(GET f 1 mflags)
    separate_arguments(mflags)
    gex_tools_test(tools_header_cxx_${mname}
      COMMAND ${_check} -- ${CMAKE_CXX_COMPILER} -Wall -Wextra -Wundef -Werror ${mflags} ${_incs}
              -fsyntax-only -x c++ ${_tools_dir}/header_use.c)
  endforeach()
  foreach(m IN LISTS _diag_modes)
    string(REPLACE "|" ";" f "${m}")
    list(GET f 0 mname)
    list(GET f 1 mflags)
    separate_arguments(mflags)
    gex_tools_test(tools_header_diag_cxx_${mname}
      COMMAND ${_check} -- ${CMAKE_CXX_COMPILER} -Wall -Wextra -Wundef -Werror ${mflags} ${_incs}
              -fsyntax-only -x c++ ${_tools_dir}/diag_header_use.c)
  endforeach()
else()
  gex_tools_test(tools_cxx_skip
    COMMAND ${GEX_BASH} -c "echo 'SKIP: no C++ compiler found: C++ tools tests not built' && exit 77")
endif()

# ---- the reference testtools -----------------------------------------------------------
if(EXISTS ${GEX_REFERENCE_TESTS_DIR}/testtools.c)
  set(_tools_variants "testtools|${GEX_REFERENCE_TESTS_DIR}/testtools.c|")
  if(CMAKE_CXX_COMPILER)
    # Sections B..R: all but A, the timer check (run by the C programs).
    list(APPEND _tools_variants
         "testtoolscxx|${GEX_REFERENCE_TESTS_DIR}/testtoolscxx.cc|BCDEFGHIJKLMNOPQR")
  endif()
  foreach(tv IN LISTS _tools_variants)
    string(REPLACE "|" ";" f "${tv}")
    list(GET f 0 prog)
    list(GET f 1 src)
    list(GET f 2 sections)
    foreach(v seq par)
      add_executable(${prog}_${v} ${src})
      target_link_libraries(${prog}_${v} PRIVATE gasnet_tools_${v})
      target_include_directories(${prog}_${v} PRIVATE ${GEX_REFERENCE_TESTS_DIR})
      # The reference programs are not ours: their own warnings (unused
      # parameters, ...) are neither errors nor shown here (the headers'
      # own cleanliness is checked by the tools_header_* tests).
      target_compile_options(${prog}_${v} PRIVATE -Wno-error -Wno-unused-parameter
        -Wno-unused-function -Wno-unused-variable -Wno-address -Wno-sign-compare)
      if(sections)
        if(v STREQUAL "seq")
          set(args 100 1 ${sections})
        else()
          set(args 100 10 ${sections})
        endif()
      else()
        set(args)
      endif()
      if(v STREQUAL "par" AND GEX_SANITIZE STREQUAL "thread")
        # Its membar checks race on plain variables by design.
        gex_tools_test(tools_${prog}_${v}
          COMMAND ${GEX_BASH} -c "echo 'SKIP: ${prog} races on plain variables on purpose (ThreadSanitizer build)' && exit 77")
      else()
        gex_tools_test(tools_${prog}_${v}
          COMMAND ${GEX_BASH} ${GEX_EXPECT} --status 0 --nogrep ERROR --within ${GEX_TEST_WITHIN} --
                  $<TARGET_FILE:${prog}_${v}> ${args})
      endif()
    endforeach()
  endforeach()
else()
  gex_tools_test(tools_reference_skip
    COMMAND ${GEX_BASH} -c
            "echo 'SKIP: reference tests not found at ${GEX_REFERENCE_TESTS_DIR}' && exit 77")
endif()
