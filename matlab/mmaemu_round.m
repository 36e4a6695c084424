function Y = mmaemu_round(X, format, rounding)
% MMAEMU_ROUND  X rounded to a number format, as doubles (libmmaemu).
%   Y = mmaemu_round(X, format)            round to nearest, ties to even
%   Y = mmaemu_round(X, format, rounding)  'rne', 'rz', 'rd', 'ru' or 'rna'
%   format: 'binary16', 'bfloat16', 'tensorfloat32', 'fp8-e4m3', 'fp8-e5m2',
%   'fp8' (E4M3FNUZ), 'bf8' (E5M2FNUZ), 'e2m1', ..., 'single'. Values beyond the
%   range become Inf (NaN in formats without Inf). For the inputs of the
%   toolbox-named functions where the toolbox would call CPFloat.
if nargin < 3
  Y = mmaemu_mex('round', X, format);
else
  Y = mmaemu_mex('round', X, format, rounding);
end
end
