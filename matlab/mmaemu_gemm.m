function D = mmaemu_gemm(alpha, A, B, beta, C, informat, outformat, model, accumulate)
% MMAEMU_GEMM  D = alpha*A*B + beta*C on a GPU matrix unit, bit for bit (libmmaemu).
%   D = mmaemu_gemm(alpha, A, B, beta, C, informat, outformat, model)
%   D = mmaemu_gemm(..., accumulate)
%   libmmaemu's C API mmaemu_gemm on binary64 storage: A and B are converted to
%   informat as the sgemm policy of that name converts (RNE; 'tf32' and 'xf32'
%   truncate as the hardware does with fp32 registers, 'tf32:rna' rounds; fp8
%   saturates); the unit accumulates A*B; alpha and beta are applied outside the
%   unit (never folded into A). accumulate, a mode of the C API's table
%   (mmaemu_accumulate_name): 'gpu-blas' (default: the unit sums from zero,
%   then D = fma(alpha, acc, beta*C) in the output format), 'into-c' (beta*C
%   is the first accumulator, D = alpha*acc, as in the toolbox) or
%   'blas-into-c' (into-c where alpha = 1, else gpu-blas: the BLAS contract;
%   also spelt 'accumulate-into-c', as the BLAS shim's MMA_ACCUMULATE).
%   informat: fp16 ('binary16', 'half'), bf16 ('bfloat16'), tf32
%   ('tensorfloat32'), xf32, e4m3 ('fp8-e4m3'), e5m2 ('fp8-e5m2'), fp8
%   (E4M3FNUZ), bf8 (E5M2FNUZ), fp32, fp64. outformat: fp32 ('single',
%   'binary32'), fp16, fp64. model: 'H100', 'MI300X', 'sm_90', 'custom:...',
%   'B200@mma.sync', ... (mmaemu models lists them). C may be [] or 0 (zeros).
%
%   D = mmaemu_gemm(1, A, B, beta, C, informat, 'int32', model[, overflow])
%   The model's integer unit (libmmaemu's mmaemu_gemm_int): informat 'int8',
%   'uint8', 'int4' or 'uint4' (or 'int8,uint8' etc.: A's and B's, where the
%   unit takes mixed signedness); A and B int8 (signed inputs) or uint8
%   (unsigned) matrices, int4 values within [-8, 7] or [0, 15]; C an int32
%   matrix, [] or 0; beta 0 or 1. D = A*B + C is an int32 matrix, the chain
%   of the unit's instructions along k, each wrapping modulo 2^32 (overflow
%   'wrap', the default) or clamping to the int32 range ('satfinite', the
%   .satfinite variant; refused where the unit has none, as on AMD's).
%
%   D = mmaemu_gemm(alpha, A, B, beta, C, unit, 'fp64', model, scheme)
%   fp64 emulated by an Ozaki scheme (docs/ozaki.md): scheme 'ozaki1:S',
%   'ozaki1:S:all' or 'ozaki2:N' on the unit 'int8' ('int4'; scheme I also
%   'fp16', 'bf16', 'tf32', 'e4m3', ...); D = alpha*A*B + beta*C in fp64.
if nargin < 8
  error('mmaemu:nargin', 'usage: D = mmaemu_gemm(alpha, A, B, beta, C, informat, outformat, model[, accumulate, overflow or scheme])');
end
if nargin < 9
  D = mmaemu_mex('gemm', alpha, A, B, beta, C, informat, outformat, model);
else
  D = mmaemu_mex('gemm', alpha, A, B, beta, C, informat, outformat, model, accumulate);
end
end
