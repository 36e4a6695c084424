function [Y, options] = cpfloat(X, fpopts, varargin)
% CPFLOAT  The part of CPFloat's cpfloat that the toolbox's experiment scripts
%   use, on libmmaemu's rounding (mmaemu_round), for users without CPFloat:
%   add matlab/compat to the path after matlab/ (docs/octave.md).
%
%   [Y, OPTIONS] = cpfloat(X, FPOPTS) rounds the real double or single matrix
%   X to the format FPOPTS.format and returns Y in X's class; OPTIONS holds
%   the settings used (format, params = [t, emin, emax], subnormal, round,
%   flip, p, explim). [~, OPTIONS] = cpfloat([], FPOPTS) gives the format's
%   parameters.
%     FPOPTS.format     'h', 'half', 'binary16', 'fp16'      binary16  [11, -14, 15]
%                       'b', 'bf16', 'bfloat16'              bfloat16  [8, -126, 127]
%                       't', 'tf32', 'TensorFloat-32'        TF32      [11, -126, 127]
%                       's', 'single', 'binary32', 'fp32'    binary32  [24, -126, 127]
%                       'q52', 'fp8-e5m2', 'E5M2'            OCP E5M2  [3, -14, 15]
%                       (default 'h')
%     FPOPTS.round      1 to nearest, ties to even (default); -1 to nearest,
%                       ties away from zero; 2 up; 3 down; 4 toward zero
%     FPOPTS.subnormal  1 (default; bfloat16: 0): subnormals kept. With 0, an
%                       input below the smallest normal number is refused.
%     FPOPTS.explim     1 only (the format's exponent range; the default)
%     FPOPTS.flip       0 only (no soft errors; the default); FPOPTS.p is
%                       then unused
%     FPOPTS.params     only as OPTIONS returns it (the format's own)
%   Anything else (another format, custom parameters, stochastic or
%   round-to-odd rounding, bit flips, a third argument, another field) is an
%   error, never replaced. Unlike CPFloat, no setting persists between
%   calls: a field left out takes its default.
if nargin < 1 || nargin > 2 || ~isempty(varargin)
  error('cpfloat (mmaemu compat): takes X and FPOPTS only (no algorithm argument)');
end
if nargin < 2
  fpopts = struct();
end
if ~isstruct(fpopts) || numel(fpopts) ~= 1
  error('cpfloat (mmaemu compat): FPOPTS must be a scalar struct');
end
known = {'format', 'params', 'subnormal', 'round', 'flip', 'p', 'explim'};
names = fieldnames(fpopts);
for i = 1:numel(names)
  if ~any(strcmp(names{i}, known))
    error('cpfloat (mmaemu compat): field ''%s'' is not implemented (fields: %s)', names{i}, ...
          strjoin(known, ', '));
  end
end

[fmt, name, params] = target_format(field_or(fpopts, 'format', 'h'));
rounding = rounding_name(field_or(fpopts, 'round', 1));
subnormal = field_or(fpopts, 'subnormal', double(~strcmp(fmt, 'bfloat16')));
explim = field_or(fpopts, 'explim', 1);
flip = field_or(fpopts, 'flip', 0);
p = field_or(fpopts, 'p', 0.5);
check_scalar(subnormal, 'subnormal', [0 1]);
check_scalar(explim, 'explim', 1);
check_scalar(flip, 'flip', 0);
if isfield(fpopts, 'params') && ~isempty(fpopts.params) && ~isequal(double(fpopts.params(:)'), params)
  error('cpfloat (mmaemu compat): params %s are not those of format ''%s'', %s (custom formats are not implemented)', ...
        mat2str(double(fpopts.params(:)')), name, mat2str(params));
end

if ~(isa(X, 'double') || isa(X, 'single')) || ~isreal(X) || issparse(X) || ndims(X) ~= 2
  error('cpfloat (mmaemu compat): X must be a real double or single matrix');
end
if subnormal == 0
  tiny = X ~= 0 & abs(X) < 2^params(2);
  if any(tiny(:))
    error(['cpfloat (mmaemu compat): subnormal = 0 with an input below %s''s smallest normal number ', ...
           '(2^%d) is not implemented'], name, params(2));
  end
end
if isempty(X)
  Y = X;
elseif isa(X, 'single')
  Y = single(mmaemu_round(double(X), fmt, rounding));  % exact: every target fits in single
else
  Y = mmaemu_round(X, fmt, rounding);
end
options = struct('format', name, 'params', params, 'subnormal', subnormal, 'round', ...
                 field_or(fpopts, 'round', 1), 'flip', flip, 'p', p, 'explim', explim);
end

function v = field_or(s, f, default)
if isfield(s, f) && ~isempty(s.(f))
  v = s.(f);
else
  v = default;
end
end

function check_scalar(v, what, allowed)
if ~isnumeric(v) || ~isscalar(v) || ~any(v == allowed)
  error('cpfloat (mmaemu compat): %s = %s is not implemented (implemented: %s)', what, num2str(v), ...
        num2str(allowed));
end
end

% The target format: libmmaemu's name, CPFloat's name as given, [t, emin, emax].
function [fmt, name, params] = target_format(name)
if ~ischar(name)
  error('cpfloat (mmaemu compat): format must be a string');
end
switch name
  case {'h', 'half', 'binary16', 'fp16'}
    fmt = 'binary16'; params = [11, -14, 15];
  case {'b', 'bf16', 'bfloat16'}
    fmt = 'bfloat16'; params = [8, -126, 127];
  case {'t', 'tf32', 'TensorFloat-32'}
    fmt = 'tensorfloat32'; params = [11, -126, 127];
  case {'s', 'single', 'binary32', 'fp32'}
    fmt = 'single'; params = [24, -126, 127];
  case {'q52', 'fp8-e5m2', 'E5M2'}
    fmt = 'fp8-e5m2'; params = [3, -14, 15];
  otherwise
    error(['cpfloat (mmaemu compat): format ''%s'' is not implemented (implemented: binary16, bfloat16, ', ...
           'tf32, binary32, fp8-e5m2 and their CPFloat aliases)'], name);
end
end

% CPFloat's round codes as mmaemu_round's rounding names.
function r = rounding_name(code)
codes = [1, -1, 2, 3, 4];
names = {'rne', 'rna', 'ru', 'rd', 'rz'};
if ~isnumeric(code) || ~isscalar(code) || ~any(code == codes)
  error(['cpfloat (mmaemu compat): round = %s is not implemented (implemented: 1 nearest-even, ', ...
         '-1 nearest-away, 2 up, 3 down, 4 toward zero)'], num2str(code));
end
r = names{code == codes};
end
