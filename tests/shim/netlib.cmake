# SPDX-License-Identifier: BSD-3-Clause
# netlib's level-3 BLAS testers (Debian's libblas-test: xblat3s, xblat3d and
# the CBLAS testers xscblat3, xdcblat3) under the preload. Included from
# tests/shim/CMakeLists.txt (PRELOAD is set there).
#   error exits: every model through the CBLAS tester (n = 0 only), a few
#     through the Fortran one, dgemm on two models with an fp64 unit;
#   computational tests: MI250 (IEEE-like fp32 and fp64 units), also under
#     MMA_ACCUMULATE=accumulate-into-c, and with MMA_MODEL unset (every call
#     forwarded to the system BLAS).
# One thread per call: the testers make ~10^5 calls of n <= 9.
set(_netlib_dir /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/blas)
find_file(NETLIB_XSCBLAT3 xscblat3 PATHS ${_netlib_dir} /usr/lib/x86_64-linux-gnu/blas NO_DEFAULT_PATH)
if(NOT NETLIB_XSCBLAT3)
  message(STATUS "shim tests: Debian's libblas-test not found, netlib testers skipped")
  return()
endif()
get_filename_component(_netlib_dir ${NETLIB_XSCBLAT3} DIRECTORY)

# The CBLAS testers expect RowMajorStrg and CBLAS_CallFromC from the CBLAS library.
add_library(cblas_test_globals SHARED netlib/cblas_test_globals.c)
set(_netlib_run ${CMAKE_CURRENT_SOURCE_DIR}/netlib/run_tester.sh)
set(_netlib_preload "${PRELOAD}:$<TARGET_FILE:cblas_test_globals>")

# netlib_test(NAME TESTER INPUT SUMMARY MODE ENV EMULATED)
function(netlib_test name tester input summary mode env emulated)
  add_test(NAME ${name} COMMAND ${_netlib_run} ${_netlib_dir}/${tester} ${_netlib_dir}/${input} ${summary} ${mode})
  set(pass "netlib ${tester}: ok")
  if(emulated)  # the calls did reach libmmaemu
    set(pass "libmmaemu: ${emulated} +[1-9][0-9]* calls.*${pass}")
  endif()
  set_tests_properties(${name} PROPERTIES LABELS quick PASS_REGULAR_EXPRESSION "${pass}"
    ENVIRONMENT "${env};MMA_NUM_THREADS=1;MMA_VERBOSE=1;LD_PRELOAD=${_netlib_preload};ASAN_OPTIONS=detect_leaks=0")
endfunction()

foreach(model V100 A100 A2 A30 L40S RTX1000 H100 H200 B200 B200-RN RTXPRO6000 MI100 MI210 MI250 MI300A MI300X
              H100@mma.sync)
  string(REPLACE "@" "_" id ${model})
  netlib_test(netlib_errexits_xscblat3_${id} xscblat3 sin3 stdout errexits "MMA_MODEL=${model}" sgemm)
endforeach()
# (The Fortran entries' checks do not depend on the model: a few suffice.)
foreach(model V100 H100 MI300X)
  netlib_test(netlib_errexits_xblat3s_${model} xblat3s sblat3.in sblat3.out errexits "MMA_MODEL=${model}" sgemm)
endforeach()
foreach(model H100 MI300X)
  netlib_test(netlib_errexits_xdcblat3_${model} xdcblat3 din3 stdout errexits "MMA_MODEL=${model};MMA_DGEMM=model" dgemm)
  netlib_test(netlib_errexits_xblat3d_${model} xblat3d dblat3.in dblat3.out errexits "MMA_MODEL=${model};MMA_DGEMM=model" dgemm)
endforeach()

netlib_test(netlib_xscblat3_MI250 xscblat3 sin3 stdout full "MMA_MODEL=MI250" sgemm)
netlib_test(netlib_xblat3s_MI250 xblat3s sblat3.in sblat3.out full "MMA_MODEL=MI250" sgemm)
netlib_test(netlib_xdcblat3_MI250 xdcblat3 din3 stdout full "MMA_MODEL=MI250;MMA_DGEMM=model" dgemm)
netlib_test(netlib_xblat3d_MI250 xblat3d dblat3.in dblat3.out full "MMA_MODEL=MI250;MMA_DGEMM=model" dgemm)
# accumulate-into-c keeps the BLAS contract (docs/c-api.md, "Accumulation semantics").
netlib_test(netlib_xblat3s_MI250_accumulate_into_c xblat3s sblat3.in sblat3.out full
            "MMA_MODEL=MI250;MMA_ACCUMULATE=accumulate-into-c" sgemm)
netlib_test(netlib_xscblat3_MI250_accumulate_into_c xscblat3 sin3 stdout full
            "MMA_MODEL=MI250;MMA_ACCUMULATE=accumulate-into-c" sgemm)
netlib_test(netlib_xblat3d_MI250_accumulate_into_c xblat3d dblat3.in dblat3.out full
            "MMA_MODEL=MI250;MMA_DGEMM=model;MMA_ACCUMULATE=accumulate-into-c" dgemm)
netlib_test(netlib_xdcblat3_MI250_accumulate_into_c xdcblat3 din3 stdout full
            "MMA_MODEL=MI250;MMA_DGEMM=model;MMA_ACCUMULATE=accumulate-into-c" dgemm)
foreach(tester "xscblat3;sin3;stdout" "xblat3s;sblat3.in;sblat3.out" "xdcblat3;din3;stdout" "xblat3d;dblat3.in;dblat3.out")
  list(GET tester 0 exe)
  list(GET tester 1 input)
  list(GET tester 2 summary)
  netlib_test(netlib_${exe}_forwarded ${exe} ${input} ${summary} full "MMA_MODEL=" "")
endforeach()
