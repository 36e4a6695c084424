# SPDX-License-Identifier: BSD-3-Clause
# cmake --install BUILD --prefix P: libmmaemu, its headers, the tools, a CMake
# package (find_package(mmaemu CONFIG) -> mmaemu::mmaemu), mmaemu.pc and the
# bundled validation data. Everything installed is relocatable: the package
# files and mmaemu-run find the rest relative to themselves.
include(CMakePackageConfigHelpers)

set(MMAEMU_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/mmaemu)

install(TARGETS mmaemu EXPORT mmaemuTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# libmmaemu's engine, beside it (its RUNPATH $ORIGIN): internal, so no
# development link (libmmaemu_engine.so); in the export set only because
# libmmaemu.so needs it at link time (mmaemu::mmaemu_engine: not for users).
install(TARGETS mmaemu_engine EXPORT mmaemuTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_SKIP)
install(FILES ${PROJECT_SOURCE_DIR}/include/mmaemu/mmaemu.h ${PROJECT_BINARY_DIR}/include/mmaemu/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mmaemu)
if(TARGET mmaemu_cli)
  install(TARGETS mmaemu_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # `mmaemu sweep` runs these (src/cli/sweep_cmd.cpp looks in share/mmaemu).
  install(FILES ${PROJECT_SOURCE_DIR}/python/mmaemu/sweep.py ${PROJECT_SOURCE_DIR}/python/mmaemu/sweep_compare.py
    ${PROJECT_SOURCE_DIR}/python/mmaemu/sweep_report.py DESTINATION ${CMAKE_INSTALL_DATADIR}/mmaemu)
endif()
if(TARGET mmaemu_bench)
  install(TARGETS mmaemu_bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# The CMake package.
install(EXPORT mmaemuTargets NAMESPACE mmaemu:: DESTINATION ${MMAEMU_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mmaemuConfig.cmake.in
  ${PROJECT_BINARY_DIR}/mmaemuConfig.cmake INSTALL_DESTINATION ${MMAEMU_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mmaemuConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mmaemuConfig.cmake ${PROJECT_BINARY_DIR}/mmaemuConfigVersion.cmake
  DESTINATION ${MMAEMU_CMAKE_DIR})

# mmaemu.pc, with the prefix found from the file's own place (${pcfiledir}).
set(_mmaemu_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH MMAEMU_PC_TO_PREFIX /_prefix/${_mmaemu_pc_dir} /_prefix)
string(REGEX REPLACE "/$" "" MMAEMU_PC_TO_PREFIX "${MMAEMU_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/mmaemu.pc.in ${PROJECT_BINARY_DIR}/mmaemu.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/mmaemu.pc DESTINATION ${_mmaemu_pc_dir})

# mmaemu-run, installed: preloads the libmmaemu installed beside it.
if(MMAEMU_BUILD_BLAS_SHIM)
  file(RELATIVE_PATH _mmaemu_bin_to_lib /_prefix/${CMAKE_INSTALL_BINDIR} /_prefix/${CMAKE_INSTALL_LIBDIR})
  set(MMAEMU_LIBRARY_PATH
    "$(cd \"$(dirname \"$(readlink -f \"\${BASH_SOURCE[0]}\")\")/${_mmaemu_bin_to_lib}\" && pwd)/libmmaemu.so.${PROJECT_VERSION_MAJOR}")
  configure_file(${PROJECT_SOURCE_DIR}/blas_shim/mmaemu-run.in ${PROJECT_BINARY_DIR}/install/mmaemu-run @ONLY)
  install(PROGRAMS ${PROJECT_BINARY_DIR}/install/mmaemu-run DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# The bundled hardware and reference data, for `mmaemu validate`.
install(DIRECTORY ${MMAEMU_DATA_DIR}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/mmaemu/data PATTERN .stamp EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/tests/data/LICENCE ${PROJECT_SOURCE_DIR}/tests/data/refdata-errata.txt
  DESTINATION ${CMAKE_INSTALL_DATADIR}/mmaemu/data)
