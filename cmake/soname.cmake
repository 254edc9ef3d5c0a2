# SPDX-License-Identifier: GPL-2.0-only
# cgperf_soname(VAR NAME PKG): the SONAME of libNAME.so from pkg-config
# module PKG's libdir, what dlopen() opens at run time (util/dl_lib.h).
function(cgperf_soname var name pkg)
  pkg_get_variable(libdir ${pkg} libdir)
  find_library(CGPERF_LIB_${name} NAMES ${name} HINTS ${libdir})
  if(NOT CGPERF_LIB_${name})
    message(FATAL_ERROR "lib${name}.so (pkg-config ${pkg}) not found")
  endif()
  set(objdump ${CMAKE_OBJDUMP})
  if(NOT objdump)
    find_program(objdump objdump REQUIRED)
  endif()
  execute_process(COMMAND ${objdump} -p ${CGPERF_LIB_${name}}
    OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  string(REGEX MATCH "SONAME +([^ \n]+)" match "${out}")
  if(NOT rc EQUAL 0 OR NOT CMAKE_MATCH_1)
    message(FATAL_ERROR "no SONAME in ${CGPERF_LIB_${name}}")
  endif()
  set(soname ${CMAKE_MATCH_1})
  # Outside the loader's own directories (a prefix of its own): by path,
  # since nothing links it (no RPATH leads there).
  if(NOT libdir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
    set(soname ${libdir}/${soname})
  endif()
  message(STATUS "${name}: opened at run time as ${soname}")
  set(${var} ${soname} PARENT_SCOPE)
endfunction()
