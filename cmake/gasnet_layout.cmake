# cmake/gasnet_layout.cmake -- the installed layout of the reference GASNet-EX
# implementation, for clients that find GASNet through its files (runtimes'
# build systems, the reference's own tests Makefile) rather than through
# gex.pc or find_package(gex).  Included at the end of the top-level
# CMakeLists.txt, after every library target exists.  docs/installed-layout.md
# describes the result:
#
#   lib/libgasnet-<conduit>-<mode>.{a,so}      libgex under the reference's names
#   include/<conduit>-conduit/<conduit>-<mode>.mak (the only *.mak there)
#   lib/pkgconfig/gasnet-<conduit>-<mode>.pc
#   include/gasnet_tools-<mode>.mak, lib/pkgconfig/gasnet_tools-<mode>.pc
#                                              (when the tools libraries exist)
#   bin/gasnetrun_<conduit>                    the spawner scripts (over gexrun);
#   bin/amudprun                               the udp identity's, as the reference's
#   share/doc/GASNet/version.git               libgex-<release>[-g<commit>], one line
#
# for <conduit> in GEX_GASNET_CONDUITS and <mode> in seq, par.  The .mak and
# .pc files hold absolute paths of the prefix given at install time
# (cmake --install build --prefix P): they are written by install(CODE) with
# the function of cmake/GasnetFragments.cmake, which also writes the GASNet
# build directory (build/gasnet/, see there) and is run again by the
# gasnet-tests stage for its own prefix.

# Listed as the reference lists its conduits, smp first: UPC++'s configure
# takes the last one of its build directory's CONDUITS as its default network
# (ofi).  udp: the Ethernet identity that Chapel's and UPC++'s udp settings
# ask for, served by the same library (include/udp-conduit/gex_conduit.h).
set(GEX_GASNET_CONDUITS smp udp ofi)
set(GEX_GASNET_MODES seq par)

# ---- the libraries under the reference's names --------------------------------
# Same objects as libgex.{a,so} but the conduit identity's (src/identity/): one
# library serves every thread model (libgex is always thread-safe), and the
# identity a program gets from its headers is also the library's at run time.
foreach(conduit IN LISTS GEX_GASNET_CONDUITS)
  foreach(mode IN LISTS GEX_GASNET_MODES)
    foreach(kind static shared)
      set(t gasnet_${conduit}_${mode}_${kind})
      if(kind STREQUAL "static")
        add_library(${t} STATIC $<TARGET_OBJECTS:gex_objs> $<TARGET_OBJECTS:gex_identity_${conduit}>)
      else()
        add_library(${t} SHARED $<TARGET_OBJECTS:gex_objs> $<TARGET_OBJECTS:gex_identity_${conduit}>)
      endif()
      set_target_properties(${t} PROPERTIES OUTPUT_NAME gasnet-${conduit}-${mode})
      # (libfabric and the CUDA driver are loaded at run time: dlopen)
      target_link_libraries(${t} PUBLIC Threads::Threads ${CMAKE_DL_LIBS})
      if(GEX_HAVE_PMIX)
        target_link_libraries(${t} PRIVATE PkgConfig::GEX_PMIX)
      endif()
      install(TARGETS ${t} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
                           LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
    endforeach()
  endforeach()
endforeach()

# ---- spawner scripts: bin/gasnetrun_<conduit>, bin/amudprun (also next to gexrun in build/bin) ----
# The udp identity's spawner is amudprun, as in the reference (which has no
# gasnetrun_udp); every other identity's is gasnetrun_<conduit>.
foreach(conduit IN LISTS GEX_GASNET_CONDUITS)
  if(conduit STREQUAL "udp")
    set(script tools/gasnetrun/amudprun)
    set(name amudprun)
  else()
    set(script tools/gasnetrun/gasnetrun)
    set(name gasnetrun_${conduit})
  endif()
  configure_file(${script} ${CMAKE_BINARY_DIR}/bin/${name} COPYONLY
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                     WORLD_READ WORLD_EXECUTE)
  install(PROGRAMS ${script} DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME ${name})
endforeach()

# ---- what the generated fragments say ------------------------------------------------
# The C++ compiler clients use for C++ GASNet programs (libgex itself is C).
include(CheckLanguage)
check_language(CXX)
set(GEX_GASNET_CXX "${CMAKE_CXX_COMPILER}")
# The release version, from gasnetex.h (it names the .pc files' Version).
file(STRINGS include/gasnetex.h _gex_rel REGEX "^#define GASNET_RELEASE_VERSION_(MAJOR|MINOR|PATCH) ")
set(GEX_GASNET_RELEASE "")
foreach(part MAJOR MINOR PATCH)
  string(REGEX MATCH "GASNET_RELEASE_VERSION_${part} ([0-9]+)" _m "${_gex_rel}")
  list(APPEND GEX_GASNET_RELEASE "${CMAKE_MATCH_1}")
endforeach()
list(GET GEX_GASNET_RELEASE 0 GEX_GASNET_RELEASE_MAJOR)
list(GET GEX_GASNET_RELEASE 1 GEX_GASNET_RELEASE_MINOR)
list(GET GEX_GASNET_RELEASE 2 GEX_GASNET_RELEASE_PATCH)

# ---- share/doc/GASNet/version.git: which implementation this is, in one line ------------
# The reference installs its git description there, and UPC++'s
# 'upcxx --version' prints that file's first line after its own version.
# libgex's line: libgex-<release>[-g<commit of the sources installed>]:
# the commit is looked up again at every install, since a build directory
# outlives commits.  Installs from one build directory may run at once (the
# tests' install_test, cmake_client, install_prefix): each writes a file of
# its own (mktemp) and renames it over version.git, so none copies one that
# another has just truncated (install_layout found it empty once).
set(GEX_VERSION_LINE "libgex-${GEX_GASNET_RELEASE_MAJOR}.${GEX_GASNET_RELEASE_MINOR}.${GEX_GASNET_RELEASE_PATCH}")
file(WRITE "${CMAKE_BINARY_DIR}/version.git" "${GEX_VERSION_LINE}\n")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${CMAKE_SOURCE_DIR}/.git")
  install(CODE "
    execute_process(COMMAND \"${GIT_EXECUTABLE}\" -C \"${CMAKE_SOURCE_DIR}\" rev-parse --short HEAD
                    OUTPUT_VARIABLE _c OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                    RESULT_VARIABLE _rc)
    set(_line \"${GEX_VERSION_LINE}\")
    if(_rc EQUAL 0 AND _c)
      string(APPEND _line \"-g\${_c}\")
    endif()
    execute_process(COMMAND mktemp \"${CMAKE_BINARY_DIR}/version.git.XXXXXX\"
                    OUTPUT_VARIABLE _tmp OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR \"mktemp ${CMAKE_BINARY_DIR}/version.git.XXXXXX failed\")
    endif()
    file(WRITE \"\${_tmp}\" \"\${_line}\\n\")
    file(RENAME \"\${_tmp}\" \"${CMAKE_BINARY_DIR}/version.git\")")
endif()
install(FILES "${CMAKE_BINARY_DIR}/version.git" DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/doc/GASNet")
list(JOIN GEX_GASNET_RELEASE "." GEX_GASNET_RELEASE)
# The GASNet-EX specification version (gasnet_config.h of the build directory).
file(STRINGS include/gasnetex.h _gex_spec REGEX "^#define GEX_SPEC_VERSION_(MAJOR|MINOR) ")
string(REGEX MATCH "GEX_SPEC_VERSION_MAJOR ([0-9]+)" _m "${_gex_spec}")
set(GEX_GASNET_SPEC_MAJOR "${CMAKE_MATCH_1}")
string(REGEX MATCH "GEX_SPEC_VERSION_MINOR ([0-9]+)" _m "${_gex_spec}")
set(GEX_GASNET_SPEC_MINOR "${CMAKE_MATCH_1}")
# The compiler families, as gasnet_portable_platform.h names them for the C
# and the C++ compiler (what config.status substitutes for CC_FAMILY and
# CXX_FAMILY; clients compare them through the same header).
function(gex_gasnet_compiler_family out compiler lang)
  set(${out} UNKNOWN PARENT_SCOPE)
  if(NOT compiler)
    return()
  endif()
  set(probe "${CMAKE_BINARY_DIR}/CMakeFiles/gex_family_probe.h")
  file(WRITE "${probe}" "#include <gasnet_portable_platform.h>\ngex_family=PLATFORM_COMPILER_FAMILYNAME\n")
  execute_process(COMMAND "${compiler}" -E -x ${lang} -I${CMAKE_SOURCE_DIR}/include "${probe}"
                  OUTPUT_VARIABLE pp ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND pp MATCHES "gex_family=([A-Z]+)")
    set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  endif()
endfunction()
gex_gasnet_compiler_family(GEX_GASNET_CC_FAMILY "${CMAKE_C_COMPILER}" c)
gex_gasnet_compiler_family(GEX_GASNET_CXX_FAMILY "${GEX_GASNET_CXX}" c++)
find_program(GEX_PERL perl)
if(GEX_PERL)
  set(GEX_GASNET_PERL "${GEX_PERL}")
else()
  set(GEX_GASNET_PERL perl)
endif()
# What 'make all' of the GASNet build directory brings up to date.
set(GEX_GASNET_BUILD_TARGETS gex_static gex_shared gexrun)
foreach(conduit IN LISTS GEX_GASNET_CONDUITS)
  foreach(mode IN LISTS GEX_GASNET_MODES)
    list(APPEND GEX_GASNET_BUILD_TARGETS gasnet_${conduit}_${mode}_static gasnet_${conduit}_${mode}_shared)
  endforeach()
endforeach()
foreach(mode IN LISTS GEX_GASNET_MODES)
  if(TARGET gasnet_tools_${mode})
    list(APPEND GEX_GASNET_BUILD_TARGETS gasnet_tools_${mode})
  endif()
endforeach()
# GASNETI_CONFIGURE_ARGS: the settings this build was configured with.
set(GEX_GASNET_CONFIGURE_ARGS "cmake -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE} -DGEX_CHECKS=${GEX_CHECKS}")
if(GEX_SANITIZE)
  string(APPEND GEX_GASNET_CONFIGURE_ARGS " -DGEX_SANITIZE=${GEX_SANITIZE}")
endif()
string(APPEND GEX_GASNET_CONFIGURE_ARGS " -DCMAKE_INSTALL_PREFIX=${CMAKE_INSTALL_PREFIX} (libgex")
if(GEX_HAVE_OFI)
  string(APPEND GEX_GASNET_CONFIGURE_ARGS ", libfabric")
endif()
if(GEX_HAVE_PMIX)
  string(APPEND GEX_GASNET_CONFIGURE_ARGS ", PMIx")
endif()
string(APPEND GEX_GASNET_CONFIGURE_ARGS ")")
# (a C string in gasnet_config.h and a CMake string: no quotes or backslashes)
string(REGEX REPLACE "[\"\\]" "'" GEX_GASNET_CONFIGURE_ARGS "${GEX_GASNET_CONFIGURE_ARGS}")
# Flags every client needs: a sanitizer build's libraries need the sanitizer
# runtime in the client too.
set(GEX_GASNET_MISC_FLAGS "${GEX_CLIENT_SANITIZE_FLAGS}")
# Libraries after -lgasnet-<conduit>-<mode>: what the static library needs
# (harmless with the shared one, which the linker prefers).
set(GEX_GASNET_DEP_LIBS "")
if(CMAKE_DL_LIBS)
  string(APPEND GEX_GASNET_DEP_LIBS " -l${CMAKE_DL_LIBS}") # libfabric, the CUDA driver: loaded at run time
endif()
if(GEX_HAVE_PMIX)
  # only -L and -l (GASNET_LIBS holds nothing else)
  foreach(f IN LISTS GEX_PMIX_LDFLAGS)
    if(f MATCHES "^-[Ll]")
      string(APPEND GEX_GASNET_DEP_LIBS " ${f}")
    endif()
  endforeach()
endif()
string(APPEND GEX_GASNET_DEP_LIBS " -lpthread -lrt -lm")
string(STRIP "${GEX_GASNET_DEP_LIBS}" GEX_GASNET_DEP_LIBS)
# The tools libraries (libgasnet_tools-seq.a, -par.a) are CMake targets of
# their own; their fragments are written only when they exist.
set(GEX_GASNET_TOOLS_MODES "")
foreach(mode IN LISTS GEX_GASNET_MODES)
  if(TARGET gasnet_tools_${mode})
    list(APPEND GEX_GASNET_TOOLS_MODES ${mode})
  endif()
endforeach()
configure_file(cmake/gasnet/layout_config.cmake.in ${CMAKE_BINARY_DIR}/gasnet_layout_config.cmake @ONLY)

# ---- install time: .mak and .pc files for the prefix actually used --------------------
install(CODE "
  include(\"${CMAKE_BINARY_DIR}/gasnet_layout_config.cmake\")
  include(\"${CMAKE_SOURCE_DIR}/cmake/GasnetFragments.cmake\")
  gex_gasnet_write_fragments(KIND install PREFIX \"\${CMAKE_INSTALL_PREFIX}\"
                             DESTDIR \"\$ENV{DESTDIR}\")
")

# ---- the GASNet build directory in the build tree (build/gasnet) ----------------------
# For clients that are pointed at a GASNet build directory (UPC++'s configure
# --with-gasnet=build/gasnet); its fragments describe the build tree, so it
# is usable before anything is installed, and 'make install prefix=P' there
# installs libgex.  The gasnet-tests stage writes another one, describing
# its own install prefix (tests/gasnet-tests/).
include(${CMAKE_BINARY_DIR}/gasnet_layout_config.cmake)
include(cmake/GasnetFragments.cmake)
gex_gasnet_write_fragments(KIND buildtree OUT "${CMAKE_BINARY_DIR}/gasnet")
