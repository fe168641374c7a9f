# tests/security.cmake -- the security tests (label "security"; docs/security.md).
#
#   t_siphash            known-answer test of the SipHash-2-4 MAC (published vectors)
add_executable(t_siphash t_siphash.c ${CMAKE_SOURCE_DIR}/src/sec/siphash.c)
target_include_directories(t_siphash PRIVATE ${CMAKE_SOURCE_DIR}/src)
add_test(NAME t_siphash COMMAND ${GEX_BASH} ${GEX_EXPECT} --pass --within ${GEX_TEST_WITHIN} --
         $<TARGET_FILE:t_siphash> @TOKEN@)
set_tests_properties(t_siphash PROPERTIES TIMEOUT ${GEX_TEST_TIMEOUT} LABELS "security"
                     ENVIRONMENT "${_gex_env}" SKIP_RETURN_CODE 77)
