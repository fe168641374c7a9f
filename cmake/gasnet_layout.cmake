# cmake/gasnet_layout.cmake -- the installed layout of the reference GASNet-EX
# implementation, for clients that find GASNet through its files (runtimes'
# build systems, the reference's own tests Makefile) rather than through
# gex.pc or find_package(gex).  Included at the end of the top-level
# CMakeLists.txt, after every library target exists.  docs/installed-layout.md
# describes the result:
#
#   lib/libgasnet-<conduit>-<mode>.{a,so}      libgex under the reference's names
#   include/<conduit>-conduit/<conduit>-<mode>.mak, conduit.mak
#   lib/pkgconfig/gasnet-<conduit>-<mode>.pc
#   include/gasnet_tools-<mode>.mak, lib/pkgconfig/gasnet_tools-<mode>.pc
#                                              (when the tools libraries exist)
#   bin/gasnetrun_<conduit>                    the spawner scripts (over gexrun)
#
# for <conduit> in GEX_GASNET_CONDUITS and <mode> in seq, par.  The .mak and
# .pc files hold absolute paths of the prefix given at install time
# (cmake --install build --prefix P): they are written by install(CODE) with
# the function of cmake/GasnetFragments.cmake, which also writes the GASNet
# build directory (build/gasnet/, see there) and is run again by the
# gasnet-tests stage for its own prefix.

set(GEX_GASNET_CONDUITS ofi smp)
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
      target_link_libraries(${t} PUBLIC Threads::Threads)
      if(GEX_HAVE_OFI)
        target_link_libraries(${t} PUBLIC ${GEX_FABRIC_LIB})
      endif()
      if(GEX_HAVE_PMIX)
        target_link_libraries(${t} PRIVATE PkgConfig::GEX_PMIX)
      endif()
      install(TARGETS ${t} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
                           LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
    endforeach()
  endforeach()
endforeach()

# ---- spawner scripts: bin/gasnetrun_<conduit> (also next to gexrun in build/bin) ----
foreach(conduit IN LISTS GEX_GASNET_CONDUITS)
  configure_file(tools/gasnetrun/gasnetrun ${CMAKE_BINARY_DIR}/bin/gasnetrun_${conduit} COPYONLY
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                     WORLD_READ WORLD_EXECUTE)
  install(PROGRAMS tools/gasnetrun/gasnetrun DESTINATION ${CMAKE_INSTALL_BINDIR}
          RENAME gasnetrun_${conduit})
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
list(JOIN GEX_GASNET_RELEASE "." GEX_GASNET_RELEASE)
# Flags every client needs: a sanitizer build's libraries need the sanitizer
# runtime in the client too.
set(GEX_GASNET_MISC_FLAGS "")
if(GEX_SANITIZE STREQUAL "address")
  set(GEX_GASNET_MISC_FLAGS "-fsanitize=address,undefined -fno-omit-frame-pointer")
elseif(GEX_SANITIZE STREQUAL "thread")
  set(GEX_GASNET_MISC_FLAGS "-fsanitize=thread")
endif()
# Libraries after -lgasnet-<conduit>-<mode>: what the static library needs
# (harmless with the shared one, which the linker prefers).
set(GEX_GASNET_DEP_LIBS "")
if(GEX_HAVE_OFI)
  string(APPEND GEX_GASNET_DEP_LIBS " -lfabric")
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
# For clients that are pointed at a GASNet build directory; its fragments
# point at the configured install prefix.  The gasnet-tests stage writes
# another one for its own prefix (tests/gasnet-tests/).
include(${CMAKE_BINARY_DIR}/gasnet_layout_config.cmake)
include(cmake/GasnetFragments.cmake)
gex_gasnet_write_fragments(KIND builddir PREFIX "${CMAKE_INSTALL_PREFIX}"
                           OUT "${CMAKE_BINARY_DIR}/gasnet" TOP_SRCDIR "${CMAKE_SOURCE_DIR}")
