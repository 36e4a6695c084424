function D = B200TCRN(alpha, A, B, beta, C, informat, outformat)
% B200TCRN  D = A*B + C on libmmaemu's bit-exact model of the hypothetical round-to-nearest B200 (NVIDIA paper, Section 5).
%   D = B200TCRN(alpha, A, B, beta, C, informat, outformat)
%   The MATLAB Tensor Core toolbox's function of this name, run on libmmaemu:
%   alpha*A and B are rounded to the input format (RNE; tf32 toward zero) and
%   beta*C to the output format (binary32 toward zero, binary16 RNE), as the
%   toolbox's GEMM does with CPFloat; C is the first accumulator of the chain.
%   Inputs are real double matrices; D holds output-format values as doubles.
%   informat as the toolbox's list for this GPU; outformat 'fp32' (default),
%   'single', 'binary32', 'fp16', 'binary16' or 'half'.
%   Differences from the toolbox and what is refused: docs/octave.md.
if nargin < 6
  error('mmaemu:nargin', 'B200TCRN: give the input format (informat)');
end
if nargin < 7
  outformat = 'fp32';
end
D = mmaemu_tc('B200TCRN', 'B200-RN', 'nvidia', alpha, A, B, beta, C, informat, outformat);
end
