# cmake/gasnet_fragments_main.cmake -- write a GASNet build directory for an
# installed libgex from the command line (the gasnet-tests stage does this
# for its own prefix):
#
#   cmake -DCONFIG=<build>/gasnet_layout_config.cmake -DPREFIX=<prefix> \
#         -DOUT=<dir> -DTOP_SRCDIR=<dir> -P cmake/gasnet_fragments_main.cmake
foreach(v CONFIG PREFIX OUT TOP_SRCDIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "gasnet_fragments_main.cmake: -D${v}=... is required")
  endif()
endforeach()
include("${CONFIG}")
include("${CMAKE_CURRENT_LIST_DIR}/GasnetFragments.cmake")
gex_gasnet_write_fragments(KIND builddir PREFIX "${PREFIX}" OUT "${OUT}" TOP_SRCDIR "${TOP_SRCDIR}")
