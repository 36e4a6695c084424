% SPDX-License-Identifier: BSD-3-Clause
% matlab/compat/cpfloat.m (docs/octave.md): the CPFloat subset the toolbox's
% experiment scripts call. Every format and rounding it implements gives the
% bits of mmaemu_round and of the C API (octave_ref round: mmaemu_convert),
% on values spanning each format's range (subnormals, ties, overflow, NaN,
% Inf, signed zeros); the options it returns hold CPFloat's [t, emin, emax];
% single inputs come back single; what it does not implement is refused.
1;

function b = bits(x)
  b = typecast(double(x(:)), 'uint64');
end

function y = capi_round(x, fmt, rounding)
  in = [tempname() '.in']; out = [tempname() '.out'];
  f = fopen(in, 'w'); fwrite(f, x(:), 'double'); fclose(f);
  [status, msg] = system(sprintf('"%s" round %s %s "%s" "%s"', getenv('MMAEMU_OCTAVE_REF'), fmt, rounding, in, out));
  delete(in);
  if status ~= 0, error('octave_ref round: %s', msg); end
  f = fopen(out, 'r'); y = reshape(fread(f, numel(x), 'double'), size(x)); fclose(f);
  delete(out);
end

function ok = refused(fpopts, x, expect)
  ok = false;
  try
    cpfloat(x, fpopts);
  catch err
    ok = ~isempty(strfind(err.message, expect));
    if ~ok, printf('  wrong message: %s\n', err.message); end
  end
end

addpath(getenv('MMAEMU_MATLAB_DIR'));
addpath(getenv('MMAEMU_MEX_DIR'));
addpath(fullfile(getenv('MMAEMU_MATLAB_DIR'), 'compat'));

passed = 0; failed = 0;
function r = check(ok, what)
  r = ok;
  if ~ok, printf('FAILED: %s\n', what); end
end

rand('seed', 7); randn('seed', 7);
% Magnitudes 2^-160 .. 2^140 with random significands, exact ties of binary16
% and bfloat16, the extremes.
x = [(randn(1, 400) .* 2.^round(300 * rand(1, 400) - 160)), ...
     1 + 2^-11, 1 + 3 * 2^-11, -(1 + 2^-8), 1 + 2^-3 * 3, 2^-24 * 1.5, 2^-25, 65520, -65519.9, ...
     57344, 61440, 2^-17 * 1.25, 0, -0, Inf, -Inf, NaN, realmax, realmin, 2^-149, 2^-1074];
formats = {'binary16', 'binary16', [11, -14, 15]; 'half', 'binary16', [11, -14, 15]; ...
           'bfloat16', 'bfloat16', [8, -126, 127]; 'b', 'bfloat16', [8, -126, 127]; ...
           'tf32', 'tensorfloat32', [11, -126, 127]; 'single', 'single', [24, -126, 127]; ...
           'fp8-e5m2', 'fp8-e5m2', [3, -14, 15]; 'E5M2', 'fp8-e5m2', [3, -14, 15]};
roundings = {1, 'rne'; -1, 'rna'; 2, 'ru'; 3, 'rd'; 4, 'rz'};
for i = 1:rows(formats)
  for j = 1:rows(roundings)
    opts = struct('format', formats{i, 1}, 'round', roundings{j, 1}, 'subnormal', 1);
    what = sprintf('%s round %d', formats{i, 1}, roundings{j, 1});
    [y, o] = cpfloat(x, opts);
    ok = isequal(bits(y), bits(mmaemu_round(x, formats{i, 2}, roundings{j, 2}))) && ...
         isequal(bits(y), bits(capi_round(x, formats{i, 2}, roundings{j, 2}))) && isequal(size(y), size(x));
    ok = ok && isequal(o.params, formats{i, 3}) && strcmp(o.format, formats{i, 1}) && o.round == roundings{j, 1};
    if check(ok, what), passed++; else, failed++; end
  end
end

% The scripts' calls: [~, options] = cpfloat([], inopt) for the parameters,
% cpfloat(X, inopt) with only the format given (round to nearest; bfloat16's
% default subnormal = 0 reached by none of their values).
inopt.format = 'binary16';
[e, o] = cpfloat([], inopt);
ok = isempty(e) && isequal(o.params, [11, -14, 15]) && o.subnormal == 1 && o.round == 1;
if check(ok, 'params of binary16'), passed++; else, failed++; end
inopt.format = 'bfloat16';
[~, o] = cpfloat([], inopt);
X = randn(10, 30) * 1e3;
ok = o.subnormal == 0 && isequal(bits(cpfloat(X, inopt)), bits(mmaemu_round(X, 'bfloat16')));
if check(ok, 'bfloat16 with the default options'), passed++; else, failed++; end
inopt.format = 'fp8-e5m2';
[~, o] = cpfloat([], inopt);
ok = isequal(o.params, [3, -14, 15]) && isequal(bits(cpfloat(X, inopt)), bits(mmaemu_round(X, 'fp8-e5m2')));
if check(ok, 'fp8-e5m2 with the default options'), passed++; else, failed++; end
% No format: CPFloat's default, binary16. The returned options go back in.
[~, o] = cpfloat([], struct());
ok = strcmp(o.format, 'h') && isequal(bits(cpfloat(X, o)), bits(mmaemu_round(X, 'binary16')));
if check(ok, 'default format and options passed back'), passed++; else, failed++; end
% A single input comes back single, with the same values.
s = single(randn(4, 5));
ys = cpfloat(s, struct('format', 'bfloat16'));
ok = isa(ys, 'single') && isequal(bits(ys), bits(mmaemu_round(double(s), 'bfloat16')));
if check(ok, 'single input'), passed++; else, failed++; end

% What it does not implement is refused, naming it.
tiny = 2^-130;  % a bfloat16 subnormal
cases = {struct('format', 'fp8-e4m3'), 1, 'format ''fp8-e4m3'' is not implemented'; ...
         struct('format', 'c', 'params', [5, 7]), 1, 'format ''c'' is not implemented'; ...
         struct('format', 'h', 'round', 5), 1, 'round = 5 is not implemented'; ...
         struct('format', 'h', 'round', 0), 1, 'round = 0 is not implemented'; ...
         struct('format', 'h', 'flip', 1), 1, 'flip = 1 is not implemented'; ...
         struct('format', 'h', 'explim', 0), 1, 'explim = 0 is not implemented'; ...
         struct('format', 'h', 'saturation', 1), 1, 'field ''saturation'' is not implemented'; ...
         struct('format', 'h', 'params', [8, -126, 127]), 1, 'params [8 -126 127] are not those of format ''h'', [11 -14 15]'; ...
         struct('format', 'bfloat16'), tiny, 'subnormal = 0 with an input below bfloat16''s smallest normal'; ...
         struct('format', 'h', 'subnormal', 0), 2^-20, 'subnormal = 0 with an input below h''s smallest normal'; ...
         struct('format', 'h'), int8(3), 'X must be a real double or single matrix'};
for i = 1:rows(cases)
  if check(refused(cases{i, 1}, cases{i, 2}, cases{i, 3}), ['refuses: ' cases{i, 3}]), passed++; else, failed++; end
end
ok = false;
try
  cpfloat(1, struct('format', 'h'), 1);
catch err
  ok = ~isempty(strfind(err.message, 'no algorithm argument'));
end
if check(ok, 'refuses a third argument'), passed++; else, failed++; end
% With subnormal = 1 the same bfloat16 subnormal rounds as mmaemu_round does.
ok = isequal(bits(cpfloat(tiny, struct('format', 'bfloat16', 'subnormal', 1))), bits(mmaemu_round(tiny, 'bfloat16')));
if check(ok, 'bfloat16 subnormal with subnormal = 1'), passed++; else, failed++; end

printf('octave cpfloat compat: %d passed, %d failed\n', passed, failed);
if failed, exit(1); end
