# FindGASNet.cmake -- a find module written for libgex's tests: it finds a
# GASNet-EX installation the way Legion/Realm's FindGASNet.cmake does, from
# the installed files only (no pkg-config, no CMake package):
#
#   - GASNET_ROOT (CMake or environment variable): the install prefix, which
#     must have include/gasnet.h;
#   - every file include/*-conduit/*.mak (a glob) must be named
#     <conduit>-<mode>.mak and is a candidate; GASNet_CONDUIT and
#     GASNet_THREADING pick one (defaults: the only conduit, par);
#   - the settings are read by running make on a small makefile that
#     includes the fragment and prints GASNET_CC, GASNET_CPPFLAGS,
#     GASNET_CFLAGS, GASNET_LDFLAGS, GASNET_LIBS and GASNET_LD_REQUIRES_MPI;
#   - the -I and -D words of GASNET_CPPFLAGS become include directories and
#     definitions, the -L and -l words of GASNET_LIBS are found with
#     find_library (the first, gasnet-<conduit>-<mode>, is the library), the
#     rest of GASNET_LDFLAGS are link options.
#
# Result: GASNet_FOUND, GASNet_CONDUITS, GASNet_CONDUIT, GASNet_THREADING,
# GASNet_LIBRARY, GASNet_LD_REQUIRES_MPI and the imported target GASNet::GASNet.

if(NOT GASNET_ROOT AND DEFINED ENV{GASNET_ROOT})
  set(GASNET_ROOT "$ENV{GASNET_ROOT}")
endif()
find_path(GASNet_INCLUDE_DIR gasnet.h HINTS "${GASNET_ROOT}/include" NO_DEFAULT_PATH)

set(GASNet_CONDUITS "")
set(_gasnet_fragments "")
if(GASNet_INCLUDE_DIR)
  # Every *.mak of a conduit directory, each name read as <conduit>-<mode>
  # (Legion/Realm's FindGASNet.cmake does this, and stops at a name that
  # is not of that form).
  file(GLOB _gasnet_fragments "${GASNet_INCLUDE_DIR}/*-conduit/*.mak")
  foreach(f IN LISTS _gasnet_fragments)
    get_filename_component(_name "${f}" NAME_WE)
    if(NOT _name MATCHES "^([^-]+)-([^-]+)$")
      message(FATAL_ERROR "FindGASNet: ${f}: not named <conduit>-<mode>.mak")
    endif()
    set(_conduit "${CMAKE_MATCH_1}")
    set(_mode "${CMAKE_MATCH_2}")
    if(NOT _mode MATCHES "^(seq|par|parsync)$")
      message(FATAL_ERROR "FindGASNet: ${f}: '${_mode}' is not a thread mode")
    endif()
    list(APPEND GASNet_CONDUITS ${_conduit})
  endforeach()
  list(REMOVE_DUPLICATES GASNet_CONDUITS)
endif()
if(NOT GASNet_CONDUIT)
  list(LENGTH GASNet_CONDUITS _n)
  if(_n EQUAL 1)
    set(GASNet_CONDUIT ${GASNet_CONDUITS})
  endif()
endif()
if(NOT GASNet_THREADING)
  set(GASNet_THREADING par)
endif()

# _gasnet_read_fragment(<fragment>): GASNet_MAK_<VAR> for each variable.
function(_gasnet_read_fragment fragment)
  find_program(GASNet_MAKE NAMES gmake make REQUIRED)
  set(vars GASNET_CC GASNET_CPPFLAGS GASNET_CFLAGS GASNET_LDFLAGS GASNET_LIBS GASNET_LD_REQUIRES_MPI)
  set(probe "${CMAKE_BINARY_DIR}/CMakeFiles/gasnet_probe.mak")
  set(text "include ${fragment}\ngasnet_probe:\n")
  foreach(v IN LISTS vars)
    string(APPEND text "\t@echo '${v}=$(${v})'\n")
  endforeach()
  file(WRITE "${probe}" "${text}")
  execute_process(COMMAND ${GASNet_MAKE} --no-print-directory -s -f "${probe}" gasnet_probe
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FindGASNet: make on ${fragment} failed: ${err}")
  endif()
  string(REPLACE "\n" ";" lines "${out}")
  foreach(line IN LISTS lines)
    foreach(v IN LISTS vars)
      if(line MATCHES "^${v}=(.*)$")
        string(STRIP "${CMAKE_MATCH_1}" val)
        set(GASNet_MAK_${v} "${val}" PARENT_SCOPE)
      endif()
    endforeach()
  endforeach()
endfunction()

set(GASNet_FRAGMENT "${GASNet_INCLUDE_DIR}/${GASNet_CONDUIT}-conduit/${GASNet_CONDUIT}-${GASNet_THREADING}.mak")
if(GASNet_INCLUDE_DIR AND GASNet_CONDUIT AND EXISTS "${GASNet_FRAGMENT}")
  _gasnet_read_fragment("${GASNet_FRAGMENT}")
  separate_arguments(_cppflags UNIX_COMMAND "${GASNet_MAK_GASNET_CPPFLAGS}")
  separate_arguments(_libs UNIX_COMMAND "${GASNet_MAK_GASNET_LIBS}")
  separate_arguments(_ldflags UNIX_COMMAND "${GASNet_MAK_GASNET_LDFLAGS}")
  set(_incdirs "")
  set(_defs "")
  foreach(w IN LISTS _cppflags)
    if(w MATCHES "^-I(.+)$")
      list(APPEND _incdirs "${CMAKE_MATCH_1}")
    elseif(w MATCHES "^-D(.+)$")
      list(APPEND _defs "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(_libdirs "")
  foreach(w IN LISTS _libs)
    if(w MATCHES "^-L(.+)$")
      list(APPEND _libdirs "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(_deps "")
  foreach(w IN LISTS _libs)
    if(w MATCHES "^-l(.+)$")
      set(name "${CMAKE_MATCH_1}")
      string(MAKE_C_IDENTIFIER "GASNet_LIB_${name}" cachevar)
      find_library(${cachevar} NAMES ${name} HINTS ${_libdirs})
      if(${cachevar})
        list(APPEND _deps "${${cachevar}}")
      else()
        list(APPEND _deps "${w}") # a system library (-lpthread, -lrt, -lm)
      endif()
    endif()
  endforeach()
  find_library(GASNet_LIBRARY NAMES gasnet-${GASNet_CONDUIT}-${GASNet_THREADING}
               HINTS ${_libdirs} NO_DEFAULT_PATH)
  list(REMOVE_ITEM _deps "${GASNet_LIBRARY}")
  set(GASNet_LD_REQUIRES_MPI "${GASNet_MAK_GASNET_LD_REQUIRES_MPI}")
  set(GASNet_DEFINITIONS "${_defs}")
endif()

include(FindPackageHandleStandardArgs)
# (GASNet_LD_REQUIRES_MPI is 0 or 1: checked by the caller, "0" would read as missing here)
find_package_handle_standard_args(GASNet
  REQUIRED_VARS GASNet_INCLUDE_DIR GASNet_CONDUIT GASNet_LIBRARY)

if(GASNet_FOUND AND NOT TARGET GASNet::GASNet)
  add_library(GASNet::GASNet UNKNOWN IMPORTED)
  set_target_properties(GASNet::GASNet PROPERTIES
    IMPORTED_LOCATION "${GASNet_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${_incdirs}"
    INTERFACE_COMPILE_DEFINITIONS "${_defs}"
    INTERFACE_LINK_LIBRARIES "${_deps}"
    INTERFACE_LINK_OPTIONS "${_ldflags}")
endif()
