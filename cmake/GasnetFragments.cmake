# cmake/GasnetFragments.cmake -- writes the GASNet-style build fragments of
# libgex (the templates in cmake/gasnet/) for one install prefix.
#
# The GEXF_* variables of the generated gasnet_layout_config.cmake must be
# set (include it first).  Used at configure time (build/gasnet), at install
# time (install(CODE) in cmake/gasnet_layout.cmake) and by the gasnet-tests
# stage through cmake/gasnet_fragments_main.cmake.
#
# gex_gasnet_write_fragments(KIND install PREFIX <p> [DESTDIR <d>])
#   under <d><p>: include/<c>-conduit/<c>-{seq,par}.mak and conduit.mak,
#   lib/pkgconfig/gasnet-<c>-{seq,par}.pc, and, for the tools libraries that
#   exist, include/gasnet_tools-<m>.mak and lib/pkgconfig/gasnet_tools-<m>.pc.
#   The files are added to the install manifest.
# gex_gasnet_write_fragments(KIND builddir PREFIX <p> OUT <dir> TOP_SRCDIR <s>)
#   a GASNet build directory in <dir> whose fragments describe the libgex
#   installed in <p>: Makefile, gasnet_tools-{seq,par}.mak and
#   <c>-conduit/{Makefile,<c>-{seq,par}.mak,conduit.mak}.
#
# A file whose content is unchanged is not rewritten (make compares the
# times of included fragments).  All paths in the files are absolute.

# gexf_write(<template name> <destination>): configure one template with the
# variables of the calling scope (@VAR@ only).
macro(gexf_write tpl dest)
  file(READ "${GEXF_TEMPLATES}/${tpl}" _gexf_in)
  string(CONFIGURE "${_gexf_in}" _gexf_out @ONLY)
  set(_gexf_old "")
  if(EXISTS "${dest}")
    file(READ "${dest}" _gexf_old)
  endif()
  if(NOT _gexf_old STREQUAL _gexf_out)
    file(WRITE "${dest}" "${_gexf_out}")
  endif()
  if(KIND STREQUAL "install")
    message(STATUS "Installing: ${dest}")
  endif()
  list(APPEND _gexf_written "${dest}")
endmacro()

function(gex_gasnet_write_fragments)
  cmake_parse_arguments(F "" "KIND;PREFIX;OUT;DESTDIR;TOP_SRCDIR" "" ${ARGN})
  set(KIND "${F_KIND}")
  get_filename_component(PREFIX "${F_PREFIX}" ABSOLUTE)
  set(INCDIR "${PREFIX}/${GEXF_INCLUDEDIR}")
  set(LIBPATH "${PREFIX}/${GEXF_LIBDIR}")
  set(BINPATH "${PREFIX}/${GEXF_BINDIR}")
  set(CC "${GEXF_CC}")
  set(CXX "${GEXF_CXX}")
  set(OPT_FLAGS "${GEXF_OPT_FLAGS}")
  set(MISC_FLAGS "${GEXF_MISC_FLAGS}")
  set(DEP_LIBS "${GEXF_DEP_LIBS}")
  string(STRIP "${MISC_FLAGS} -Wl,-rpath,${LIBPATH}" LD_FLAGS)
  set(RELEASE "${GEXF_RELEASE}")
  list(JOIN GEXF_CONDUITS " " CONDUITS)
  set(_gexf_written "")

  if(KIND STREQUAL "install")
    set(root "${F_DESTDIR}${PREFIX}")
    set(conduit_root "${root}/${GEXF_INCLUDEDIR}")
    set(tools_mak_dir "${root}/${GEXF_INCLUDEDIR}")
    set(pc_dir "${root}/${GEXF_LIBDIR}/pkgconfig")
    set(tools_modes "${GEXF_TOOLS_MODES}")
  elseif(KIND STREQUAL "builddir")
    get_filename_component(OUT "${F_OUT}" ABSOLUTE)
    set(TOP_SRCDIR "${F_TOP_SRCDIR}")
    set(conduit_root "${OUT}")
    set(tools_mak_dir "${OUT}")
    set(pc_dir "")
    # The build directory always has both tools fragments: its Makefile
    # reports a missing tools library when a client asks for it.
    set(tools_modes "${GEXF_MODES}")
    file(MAKE_DIRECTORY "${OUT}")
    gexf_write(builddir.Makefile.in "${OUT}/Makefile")
  else()
    message(FATAL_ERROR "gex_gasnet_write_fragments: KIND install or builddir, not '${KIND}'")
  endif()
  if(pc_dir)
    file(MAKE_DIRECTORY "${pc_dir}")
  endif()

  foreach(CONDUIT IN LISTS GEXF_CONDUITS)
    set(cdir "${conduit_root}/${CONDUIT}-conduit")
    file(MAKE_DIRECTORY "${cdir}")
    gexf_write(conduit.mak.in "${cdir}/conduit.mak")
    if(KIND STREQUAL "builddir")
      gexf_write(builddir-conduit.Makefile.in "${cdir}/Makefile")
    endif()
    foreach(MODE IN LISTS GEXF_MODES)
      string(TOUPPER "${MODE}" MODE_UC)
      if(MODE STREQUAL "seq")
        set(MODE_DEFINES "-D_GNU_SOURCE=1 -DGASNET_SEQ")
      else()
        set(MODE_DEFINES "-D_GNU_SOURCE=1 -D_REENTRANT -DGASNET_PAR")
      endif()
      gexf_write(conduit-mode.mak.in "${cdir}/${CONDUIT}-${MODE}.mak")
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
