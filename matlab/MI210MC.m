function D = MI210MC(alpha, A, B, beta, C, informat)
% MI210MC  D = A*B + C on libmmaemu's bit-exact model of the MI210 matrix cores (CDNA2).
%   D = MI210MC(alpha, A, B, beta, C, informat)
%   The MATLAB Tensor Core toolbox's function of this name, run on libmmaemu:
%   alpha*A and B are rounded to the input format (RNE; tf32 toward zero) and
%   beta*C to the output format (binary32 toward zero, binary16 RNE), as the
%   toolbox's GEMM does with CPFloat; C is the first accumulator of the chain.
%   Inputs are real double matrices; D holds output-format values as doubles.
%   informat 'fp16', 'binary16', 'half', 'bf16', 'bfloat16' or 'brainfloat16';
%   D is binary32.
%   Differences from the toolbox and what is refused: docs/octave.md.
if nargin < 6
  error('mmaemu:nargin', 'MI210MC: give the input format (informat)');
end
D = mmaemu_tc('MI210MC', 'MI210', 'cdna12', alpha, A, B, beta, C, informat, 'binary32');
end
