# tests/install/install.cmake -- the installed layout of the reference
# GASNet-EX (label install): see tests/install/install_test.sh.
gex_add_driver_test(install_layout LABELS install TIMEOUT 180
  COMMAND ${GEX_BASH} ${GEX_EXPECT} --status 0 --within 170 --grep "^install_test: ok$"
          -- ${GEX_BASH} ${CMAKE_CURRENT_LIST_DIR}/install_test.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}
             @TOKEN@)
