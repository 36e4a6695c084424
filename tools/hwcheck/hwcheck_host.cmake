# SPDX-License-Identifier: BSD-3-Clause
# The CPU side of the hardware harness (ensembles, tile packing, layout probe,
# options, file writer): plain C++, always built, tested in tests/hwcheck.
# Included from tools/hwcheck/CMakeLists.txt and, when the tools are not
# built, from tests/hwcheck/CMakeLists.txt.
if(NOT TARGET mmaemu_hwcheck_host)
  set(_hwcheck_dir ${CMAKE_CURRENT_LIST_DIR})
  add_library(mmaemu_hwcheck_host STATIC
    ${_hwcheck_dir}/formats.cpp
    ${_hwcheck_dir}/ensemble.cpp
    ${_hwcheck_dir}/decisive.cpp
    ${_hwcheck_dir}/tiles.cpp
    ${_hwcheck_dir}/writer.cpp
    ${_hwcheck_dir}/options.cpp
  )
  target_include_directories(mmaemu_hwcheck_host PUBLIC ${_hwcheck_dir})
  target_compile_features(mmaemu_hwcheck_host PUBLIC cxx_std_20)
  unset(_hwcheck_dir)
endif()
