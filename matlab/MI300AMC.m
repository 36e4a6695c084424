function D = MI300AMC(alpha, A, B, beta, C, informat)
% MI300AMC  D = A*B + C on libmmaemu's bit-exact model of the MI300A matrix cores (CDNA3).
%   D = MI300AMC(alpha, A, B, beta, C, informat)
%   The MATLAB Tensor Core toolbox's function of this name, run on libmmaemu:
%   alpha*A and B are rounded to the input format (RNE; tf32 toward zero) and
%   beta*C to the output format (binary32 toward zero, binary16 RNE), as the
%   toolbox's GEMM does with CPFloat; C is the first accumulator of the chain.
%   Inputs are real double matrices; D holds output-format values as doubles.
%   informat 'fp16', 'bf16', 'tf32'/'xf32' or the fp8 names ('fp8-e4m3', 'e4m3',
%   'fp8': E4M3FNUZ; 'fp8-e5m2', 'e5m2', 'bf8': E5M2FNUZ); D is binary32.
%   Differences from the toolbox and what is refused: docs/octave.md.
if nargin < 6
  error('mmaemu:nargin', 'MI300AMC: give the input format (informat)');
end
D = mmaemu_tc('MI300AMC', 'MI300A', 'cdna3', alpha, A, B, beta, C, informat, 'binary32');
end
