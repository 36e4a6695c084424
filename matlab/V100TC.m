function D = V100TC(alpha, A, B, beta, C, outformat)
% V100TC  D = A*B + C on libmmaemu's bit-exact model of the V100 tensor cores (Volta).
%   D = V100TC(alpha, A, B, beta, C, outformat)
%   The MATLAB Tensor Core toolbox's function of this name, run on libmmaemu:
%   alpha*A and B are rounded to the input format (RNE; tf32 toward zero) and
%   beta*C to the output format (binary32 toward zero, binary16 RNE), as the
%   toolbox's GEMM does with CPFloat; C is the first accumulator of the chain.
%   Inputs are real double matrices; D holds output-format values as doubles.
%   A and B binary16; outformat 'fp32' (default), 'single', 'binary32',
%   'fp16', 'binary16' or 'half'.
%   Differences from the toolbox and what is refused: docs/octave.md.
if nargin < 6
  outformat = 'fp32';
end
D = mmaemu_tc('V100TC', 'V100', 'volta', alpha, A, B, beta, C, 'binary16', outformat);
end
