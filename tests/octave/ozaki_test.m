% SPDX-License-Identifier: BSD-3-Clause
% mmaemu_gemm with an Ozaki scheme (docs/ozaki.md) against Octave's own
% double A*B under the BLAS shim's preload with MMA_DGEMM=ozaki2:14 on
% H100's int8 unit (Octave calls dgemm_, the shim runs mmaemu_dgemm_ex):
% the same bits by two routes; with 18 moduli the error is native's order,
% with 6 it is larger; a wrong outformat and a unit that cannot carry the
% scheme are errors saying what works. Run with LD_PRELOAD=libmmaemu.so,
% MMA_MODEL=H100, MMA_DGEMM=ozaki2:14.
1;
addpath(getenv('MMAEMU_MATLAB_DIR'));
addpath(getenv('MMAEMU_MEX_DIR'));
passed = 0; failed = 0;
function [p, f] = tally(ok, what, p, f)
  if ok, p = p + 1; else, f = f + 1; printf('FAILED: %s\n', what); end
end
rand('seed', 7); randn('seed', 7);
phi = 1;
A = (rand(60, 70) - 0.5) .* exp(phi * randn(60, 70));
B = (rand(70, 50) - 0.5) .* exp(phi * randn(70, 50));
D_shim = A * B;  % dgemm_ through the preloaded shim: ozaki2:14
D_mex = mmaemu_gemm(1, A, B, 0, [], 'int8', 'fp64', 'H100', 'ozaki2:14');
[passed, failed] = tally(isequal(typecast(D_shim(:), 'uint64'), typecast(D_mex(:), 'uint64')), ...
                         'A*B under the shim and mmaemu_gemm with ozaki2:14 differ', passed, failed);
W = abs(A) * abs(B);
R = mmaemu_gemm(1, A, B, 0, [], 'int8', 'fp64', 'H100', 'ozaki2:20');  % the reference: 20 moduli
e18 = max(max(abs(mmaemu_gemm(1, A, B, 0, [], 'int8', 'fp64', 'H100', 'ozaki2:18') - R) ./ W));
e6 = max(max(abs(mmaemu_gemm(1, A, B, 0, [], 'int8', 'fp64', 'H100', 'ozaki2:6') - R) ./ W));
printf('octave ozaki: error of ozaki2:18 %.3g, ozaki2:6 %.3g\n', e18, e6);
[passed, failed] = tally(e18 < 1e-15 && e6 > 1e-8, 'errors against 20 moduli', passed, failed);
% alpha, beta, C
C = reshape(1:3000, 60, 50);
E = mmaemu_gemm(2, A, B, -1, C, 'fp16', 'fp64', 'H100', 'ozaki1:9');
F = mmaemu_gemm(1, A, B, 0, [], 'fp16', 'fp64', 'H100', 'ozaki1:9');
[passed, failed] = tally(isequal(E, 2 * F + -1 * C), 'alpha, beta', passed, failed);
try
  mmaemu_gemm(1, A, B, 0, [], 'int8', 'fp32', 'H100', 'ozaki2:14');
  [passed, failed] = tally(false, 'outformat fp32 accepted', passed, failed);
catch err
  [passed, failed] = tally(!isempty(strfind(err.message, "'fp64'")), err.message, passed, failed);
end
try
  mmaemu_gemm(1, A, B, 0, [], 'fp16', 'fp64', 'H100', 'ozaki2:14');
  [passed, failed] = tally(false, 'ozaki2 on fp16 accepted', passed, failed);
catch err
  [passed, failed] = tally(!isempty(strfind(err.message, 'input int8 works')), err.message, passed, failed);
end
printf('octave ozaki: %d passed, %d failed\n', passed, failed);
