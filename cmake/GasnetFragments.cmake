# cmake/GasnetFragments.cmake -- writes the GASNet-style build fragments of
# libgex (the templates in cmake/gasnet/) for one install prefix or for the
# build tree.
#
# The GEXF_* variables of the generated gasnet_layout_config.cmake must be
# set (include it first).  Used at configure time (build/gasnet), at install
# time (install(CODE) in cmake/gasnet_layout.cmake) and by the gasnet-tests
# stage through cmake/gasnet_fragments_main.cmake.
#
# gex_gasnet_write_fragments(KIND install PREFIX <p> [DESTDIR <d>])
#   under <d><p>: include/<c>-conduit/<c>-{seq,par}.mak (nothing else named
#   *.mak there: Realm's FindGASNet.cmake parses every name as <c>-<mode>),
#   include/gasnet_config.h, lib/pkgconfig/gasnet-<c>-{seq,par}.pc, and, for
#   the tools libraries that exist, include/gasnet_tools-<m>.mak and
#   lib/pkgconfig/gasnet_tools-<m>.pc.  The files are added to the install
#   manifest.
# gex_gasnet_write_fragments(KIND builddir PREFIX <p> OUT <dir> TOP_SRCDIR <s>)
#   a GASNet build directory in <dir> whose fragments describe the libgex
#   installed in <p>.
# gex_gasnet_write_fragments(KIND buildtree OUT <dir>)
#   a GASNet build directory in <dir> whose fragments describe the libgex
#   build tree itself (headers of the source tree, libraries and gexrun as
#   built), usable before anything is installed; its TOP_SRCDIR is <dir>.
#
# A GASNet build directory holds: Makefile (TOP_SRCDIR, CONDUITS, ...;
# targets all, install, clean, echovar, the tools fragments and libraries),
# gasnet_config.h, config.status, other/gasnet_portable_platform.h,
# gasnet_tools-{seq,par}.mak, <c>-conduit/{Makefile,<c>-{seq,par}.mak}, and
# the spawner scripts <c>-conduit/contrib/gasnetrun_<c> and bin/gasnetrun_<c>
# (udp: other/amudp/amudprun and bin/amudprun).
# docs/installed-layout.md describes them.
#
# A file whose content is unchanged is not rewritten (make compares the
# times of included fragments).  All paths in the files are absolute.

# gexf_write(<template name> <destination>): configure one template with the
# variables of the calling scope (@VAR@ only).
macro(gexf_write tpl dest)
  file(READ "${GEXF_TEMPLATES}/${tpl}" _gexf_in)
  string(CONFIGURE "${_gexf_in}" _gexf_out @ONLY)
  gexf_write_text("${dest}" "${_gexf_out}")
endmacro()

# gexf_write_text(<destination> <content>): write unless unchanged, and
# record the file in the caller's _gexf_written.  (A function: a macro would
# expand the ${...} of pkg-config files in <content>.)
function(gexf_write_text dest content)
  set(old "")
  if(EXISTS "${dest}")
    file(READ "${dest}" old)
  endif()
  if(NOT old STREQUAL content)
    file(WRITE "${dest}" "${content}")
  endif()
  if(KIND STREQUAL "install")
    message(STATUS "Installing: ${dest}")
  endif()
  set(_gexf_written ${_gexf_written} "${dest}" PARENT_SCOPE)
endfunction()

# gexf_sed_quote(<var> <text>): <text> as the replacement of a sed s|||
# command inside a single-quoted shell word.
function(gexf_sed_quote out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "&" "\\&" text "${text}")
  string(REPLACE "|" "\\|" text "${text}")
  string(REPLACE "'" "'\\''" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# gexf_config_status_script(<var>): the sed command of config.status, one
# -e per variable it knows, from the variables of the calling scope.
macro(gexf_config_status_script out)
  set(_gexf_cs_vars
    "PERL=${GEXF_PERL}" "CONDUITS=${CONDUITS}" "EXESUFFIX="
    "CC_FAMILY=${GEXF_CC_FAMILY}" "CXX_FAMILY=${GEXF_CXX_FAMILY}"
    "CC_SUBFAMILY=NONE" "CXX_SUBFAMILY=NONE"
    "GASNET_THREAD_DEFINES=-D_REENTRANT" "GASNET_THREAD_LIBS=-lpthread"
    "CC=${CC}" "CXX=${CXX}" "CFLAGS=${OPT_FLAGS} ${MISC_FLAGS}"
    "CXXFLAGS=${OPT_FLAGS} ${MISC_FLAGS}" "CPPFLAGS=" "LDFLAGS=${MISC_FLAGS}" "LIBS="
    "prefix=${PREFIX}" "exec_prefix=${PREFIX}" "bindir=${BINPATH}" "libdir=${LIBPATH}"
    "includedir=${INCDIR}" "srcdir=${TOP_SRCDIR}" "top_srcdir=${TOP_SRCDIR}"
    "TOP_SRCDIR=${TOP_SRCDIR}" "builddir=${OUT}" "top_builddir=${OUT}" "TOP_BUILDDIR=${OUT}"
    "VERSION=${RELEASE}" "PACKAGE_VERSION=${RELEASE}" "GASNET_RELEASE_VERSION=${RELEASE}"
    "SHELL=/bin/sh")
  set(${out} "")
  set(CS_NAMES "")
  foreach(kv IN LISTS _gexf_cs_vars)
    string(FIND "${kv}" "=" _eq)
    string(SUBSTRING "${kv}" 0 ${_eq} _key)
    math(EXPR _eq "${_eq} + 1")
    string(SUBSTRING "${kv}" ${_eq} -1 _val)
    string(STRIP "${_val}" _val)
    gexf_sed_quote(_val "${_val}")
    string(APPEND ${out} " \\\n    -e 's|@${_key}@|${_val}|g'")
    string(APPEND CS_NAMES " ${_key}")
  endforeach()
endmacro()

function(gex_gasnet_write_fragments)
  cmake_parse_arguments(F "" "KIND;PREFIX;OUT;DESTDIR;TOP_SRCDIR" "" ${ARGN})
  set(KIND "${F_KIND}")
  set(CC "${GEXF_CC}")
  set(CXX "${GEXF_CXX}")
  set(OPT_FLAGS "${GEXF_OPT_FLAGS}")
  set(MISC_FLAGS "${GEXF_MISC_FLAGS}")
  set(DEP_LIBS "${GEXF_DEP_LIBS}")
  set(RELEASE "${GEXF_RELEASE}")
  list(JOIN GEXF_CONDUITS " " CONDUITS)
  set(BINARY_DIR "${GEXF_BINARY_DIR}")
  set(CMAKE_CMD "${GEXF_CMAKE_COMMAND}")
  list(JOIN GEXF_BUILD_TARGETS " " BUILD_TARGETS)
  set(_gexf_written "")

  # Where the headers, libraries and programs the fragments name are.
  if(KIND STREQUAL "buildtree")
    set(PREFIX "${GEXF_CONFIGURED_PREFIX}") # where 'make install' puts it by default
    set(INCDIR "${GEXF_SOURCE_DIR}/include")
    set(BASE_INCLUDES "-I${GEXF_SOURCE_DIR}/include -I${GEXF_BINARY_DIR}/include")
    set(LIBPATH "${GEXF_BINARY_DIR}") # where the library targets are built
    set(BINPATH "${GEXF_BINARY_DIR}/bin")
    set(DESCRIBES "the libgex build tree ${GEXF_BINARY_DIR} (sources ${GEXF_SOURCE_DIR})")
    set(TREE 1)
  else()
    get_filename_component(PREFIX "${F_PREFIX}" ABSOLUTE)
    set(INCDIR "${PREFIX}/${GEXF_INCLUDEDIR}")
    set(BASE_INCLUDES "-I${INCDIR}")
    set(LIBPATH "${PREFIX}/${GEXF_LIBDIR}")
    set(BINPATH "${PREFIX}/${GEXF_BINDIR}")
    set(DESCRIBES "the libgex installed in ${PREFIX}")
    set(TREE 0)
  endif()
  string(STRIP "${MISC_FLAGS} -Wl,-rpath,${LIBPATH}" LD_FLAGS)
  set(TOOLS_INCLUDES "${BASE_INCLUDES}")

  if(KIND STREQUAL "install")
    set(root "${F_DESTDIR}${PREFIX}")
    set(conduit_root "${root}/${GEXF_INCLUDEDIR}")
    set(tools_mak_dir "${root}/${GEXF_INCLUDEDIR}")
    set(config_h_dir "${root}/${GEXF_INCLUDEDIR}")
    set(pc_dir "${root}/${GEXF_LIBDIR}/pkgconfig")
    set(tools_modes "${GEXF_TOOLS_MODES}")
  elseif(KIND STREQUAL "builddir" OR KIND STREQUAL "buildtree")
    get_filename_component(OUT "${F_OUT}" ABSOLUTE)
    if(KIND STREQUAL "buildtree")
      set(TOP_SRCDIR "${OUT}") # it has other/gasnet_portable_platform.h
    else()
      set(TOP_SRCDIR "${F_TOP_SRCDIR}")
    endif()
    set(conduit_root "${OUT}")
    set(tools_mak_dir "${OUT}")
    set(config_h_dir "${OUT}")
    set(pc_dir "")
    # The build directory always has both tools fragments: its Makefile
    # reports a missing tools library when a client asks for it.
    set(tools_modes "${GEXF_MODES}")
    file(MAKE_DIRECTORY "${OUT}/other")
    gexf_write(builddir.Makefile.in "${OUT}/Makefile")
    file(READ "${GEXF_SOURCE_DIR}/include/gasnet_portable_platform.h" _platform_h)
    gexf_write_text("${OUT}/other/gasnet_portable_platform.h" "${_platform_h}")
    gexf_config_status_script(SED_SCRIPT)
    gexf_write(config.status.in "${OUT}/config.status")
    file(CHMOD "${OUT}/config.status" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
         GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  else()
    message(FATAL_ERROR "gex_gasnet_write_fragments: KIND install, builddir or buildtree, not '${KIND}'")
  endif()
  if(pc_dir)
    file(MAKE_DIRECTORY "${pc_dir}")
  endif()
  file(MAKE_DIRECTORY "${config_h_dir}")
  gexf_write(gasnet_config.h.in "${config_h_dir}/gasnet_config.h")

  foreach(CONDUIT IN LISTS GEXF_CONDUITS)
    set(cdir "${conduit_root}/${CONDUIT}-conduit")
    file(MAKE_DIRECTORY "${cdir}")
    set(INCLUDES "${BASE_INCLUDES} -I${INCDIR}/${CONDUIT}-conduit")
    if(NOT KIND STREQUAL "install")
      gexf_write(builddir-conduit.Makefile.in "${cdir}/Makefile")
      # The spawner where a GASNet build directory has it (the conduit's
      # contrib/, other/amudp/ for udp's amudprun) and where its install
      # puts it (bin/): UPC++'s upcxx-run looks in these.  Each forwards to
      # the libgex one.
      if(CONDUIT STREQUAL "udp")
        set(spawner amudprun)
        set(spawner_dirs "${OUT}/other/amudp" "${OUT}/bin")
      else()
        set(spawner gasnetrun_${CONDUIT})
        set(spawner_dirs "${cdir}/contrib" "${OUT}/bin")
      endif()
      foreach(spawner_dir IN LISTS spawner_dirs)
        file(MAKE_DIRECTORY "${spawner_dir}")
        gexf_write_text("${spawner_dir}/${spawner}"
          "#!/bin/sh\n# ${spawner} of a GASNet build directory for libgex: runs\n# ${BINPATH}/${spawner} (docs/gexrun.md).  Generated; do not edit.\nexec '${BINPATH}/${spawner}' \"$@\"\n")
        file(CHMOD "${spawner_dir}/${spawner}" PERMISSIONS OWNER_READ OWNER_WRITE
             OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
      endforeach()
    endif()
    foreach(MODE IN LISTS GEXF_MODES)
      string(TOUPPER "${MODE}" MODE_UC)
      if(MODE STREQUAL "seq")
        set(MODE_DEFINES "-D_GNU_SOURCE=1 -DGASNET_SEQ")
      else()
        set(MODE_DEFINES "-D_GNU_SOURCE=1 -D_REENTRANT -DGASNET_PAR")
      endif()
      set(MAK_PATH "${cdir}/${CONDUIT}-${MODE}.mak")
      gexf_write(conduit-mode.mak.in "${MAK_PATH}")
      if(pc_dir)
        gexf_write(gasnet-conduit-mode.pc.in "${pc_dir}/gasnet-${CONDUIT}-${MODE}.pc")
      endif()
    endforeach()
  endforeach()

  foreach(MODE IN LISTS tools_modes)
    if(MODE STREQUAL "seq")
      set(TOOLS_DEFINES "-D_GNU_SOURCE=1 -DGASNETT_THREAD_SINGLE")
    else()
      set(TOOLS_DEFINES "-D_GNU_SOURCE=1 -D_REENTRANT -DGASNETT_THREAD_SAFE=1")
    endif()
    gexf_write(gasnet_tools-mode.mak.in "${tools_mak_dir}/gasnet_tools-${MODE}.mak")
    if(pc_dir)
      gexf_write(gasnet_tools-mode.pc.in "${pc_dir}/gasnet_tools-${MODE}.pc")
    endif()
  endforeach()

  if(KIND STREQUAL "install")
    # cmake_install.cmake writes install_manifest.txt from this list.
    set(CMAKE_INSTALL_MANIFEST_FILES ${CMAKE_INSTALL_MANIFEST_FILES} ${_gexf_written} PARENT_SCOPE)
  endif()
endfunction()
