function D = mmaemu_tc(fname, model, family, alpha, A, B, beta, C, informat, outformat)
% MMAEMU_TC  The toolbox-named functions' common part (private): checks the
%   formats against the toolbox's lists for the family ('nvidia', 'ampere',
%   'volta', 'cdna12', 'cdna3'), maps the toolbox's names, and runs the
%   toolbox's GEMM semantics on libmmaemu's model (docs/octave.md).
nvidia_in = {'fp8-e5m2', 'fp8-e4m3', 'e5m2', 'e4m3', 'fp16', 'binary16', 'half', ...
             'bf16', 'bfloat16', 'tensorfloat32', 'tf32'};
out_all = {'fp32', 'single', 'binary32', 'fp16', 'binary16', 'half'};
switch family
  case 'nvidia'
    allowed_in = nvidia_in; allowed_out = out_all;
  case 'ampere'
    allowed_in = nvidia_in(5:end); allowed_out = out_all;
  case 'volta'
    allowed_in = {'binary16'}; allowed_out = out_all;
  case 'cdna12'
    allowed_in = {'fp16', 'binary16', 'half', 'bf16', 'bfloat16', 'brainfloat16'};
    allowed_out = {'binary32'};
  case 'cdna3'
    allowed_in = {'fp16', 'binary16', 'half', 'bf16', 'bfloat16', 'brainfloat16', 'tf32', ...
                  'tensorfloat32', 'xf32', 'fp8-e5m2', 'fp8-e4m3', 'e5m2', 'e4m3', 'fp8', 'bf8'};
    allowed_out = {'binary32'};
end
if ~ischar(informat) || ~any(strcmp(lower(informat), allowed_in))
  error('mmaemu:format', '%s: the input format ''%s'' is not supported (supported: %s).', ...
        fname, num2str(informat), strjoin(allowed_in, ', '));
end
if ~ischar(outformat) || ~any(strcmp(lower(outformat), allowed_out))
  error('mmaemu:format', '%s: the output format ''%s'' is not supported (supported: %s).', ...
        fname, num2str(outformat), strjoin(allowed_out, ', '));
end
informat = lower(informat);
if strcmp(family, 'cdna3')
  % CDNA3's fp8 formats are the FNUZ ones (the toolbox's fp8_fnuz).
  switch informat
    case {'fp8-e4m3', 'e4m3', 'fp8'}
      informat = 'e4m3fnuz';
    case {'fp8-e5m2', 'e5m2', 'bf8'}
      informat = 'e5m2fnuz';
  end
end
D = mmaemu_mex('toolbox', fname, model, alpha, A, B, beta, C, informat, lower(outformat));
end
