% SPDX-License-Identifier: BSD-3-Clause
% The integer units through the three front ends, bit for bit: mmaemu_gemm
% with int8/uint8 matrices (informat 'int8', 'uint8', 'int4', 'uint4' or a
% pair for mixed signedness; wrap and satfinite) equals the C API's
% mmaemu_gemm_int (octave_ref) and Python's mmaemu.matmul and mmaemu.dot
% (int_gemm.py) on the same seeded codes; saturate on an AMD unit, and the
% other combinations the integer path does not take, are refused.
% Run: octave-cli --norc -q integer_bits_test.m (environment: MMAEMU_MATLAB_DIR,
% MMAEMU_MEX_DIR, MMAEMU_OCTAVE_REF; MMAEMU_PYTHON and PYTHONPATH for the
% Python comparison, skipped with a message where unset).
1;

function r = reference(args)
  file = [tempname() '.bin'];
  cmd = sprintf('"%s" int %s "%s"', getenv('MMAEMU_OCTAVE_REF'), args, file);
  [status, out] = system(cmd);
  if status ~= 0
    error('octave_ref failed (%s): %s', cmd, out);
  end
  r.file = file;  % kept for the Python side; the caller deletes it
  f = fopen(file, 'r');
  dims = fread(f, 4, 'int32');
  m = dims(1); n = dims(2); k = dims(3); r.sat = dims(4);
  r.A = reshape(fread(f, m * k, 'int8=>int8'), m, k);
  r.B = reshape(fread(f, k * n, 'int8=>int8'), k, n);
  r.C = reshape(fread(f, m * n, 'int32=>int32'), m, n);
  r.D = reshape(fread(f, m * n, 'int32=>int32'), m, n);
  fclose(f);
end

% Python's matmul and dot results for the runs (one process for all of them;
% empty where Python is not configured): runs(i) has file, model, afmt, bfmt, D.
function [pm, pd] = python_side(runs)
  pm = {}; pd = {};
  py = getenv('MMAEMU_PYTHON');
  if isempty(py), return; end
  script = fullfile(fileparts(mfilename('fullpath')), 'int_gemm.py');
  cmd = sprintf('"%s" "%s"', py, script);
  for i = 1:numel(runs)
    runs(i).out = [runs(i).file '.py'];
    cmd = [cmd sprintf(' "%s" %s %s %s "%s"', runs(i).file, runs(i).model, runs(i).afmt, runs(i).bfmt, runs(i).out)];
  end
  [status, msg] = system(cmd);
  if status ~= 0
    error('int_gemm.py failed (%s): %s', cmd, msg);
  end
  for i = 1:numel(runs)
    f = fopen(runs(i).out, 'r');
    [m, n] = size(runs(i).D);
    pm{i} = reshape(fread(f, m * n, 'int32=>int32'), m, n);
    pd{i} = reshape(fread(f, m * n, 'int32=>int32'), m, n);
    fclose(f);
    delete(runs(i).out);
  end
end

function ok = same(got, want, what)
  ok = isa(got, 'int32') && isequal(size(got), size(want)) && all(got(:) == want(:));
  if ~ok
    printf('FAILED: %s (class %s)\n', what, class(got));
    bad = find(got(:) ~= want(:));
    for i = bad(1:min(5, numel(bad)))'
      printf('  D(%d): got %d, C API %d\n', i, got(i), want(i));
    end
  end
end

% Octave's class for a format's codes.
function x = as_class(x, fmt)
  if fmt(1) == 'u', x = typecast(x(:), 'uint8'); else, x = x(:); end
end

addpath(getenv('MMAEMU_MATLAB_DIR'));
addpath(getenv('MMAEMU_MEX_DIR'));
passed = 0; failed = 0;
if isempty(getenv('MMAEMU_PYTHON')), printf('Python comparison skipped (MMAEMU_PYTHON unset)\n'); end
seed = 3000;
cases = {'H100', 'int8', 'int8'; 'H100', 'uint8', 'uint8'; 'H100', 'int8', 'uint8'; 'H100', 'uint8', 'int8'; ...
         'A100', 'int4', 'int4'; 'A100', 'uint4', 'int4'; 'T4', 'uint4', 'uint4'; 'B200', 'int8', 'int8'; ...
         'MI300X', 'int8', 'int8'; 'MI100', 'int8', 'int8'};
runs = struct('file', {}, 'model', {}, 'afmt', {}, 'bfmt', {}, 'D', {}, 'what', {});
for c = 1:rows(cases)
  [model, afmt, bfmt] = cases{c, :};
  for sat = 0:(1 - strncmp(model, 'MI', 2))
    for shape = [9 7 100; 3 5 1; 16 8 1000]'
      seed = seed + 1;
      [m, n, k] = deal(shape(1), shape(2), shape(3));
      r = reference(sprintf('%s %s %s %d %d %d %d %d', model, afmt, bfmt, sat, m, n, k, seed));
      A = reshape(as_class(r.A, afmt), m, k); B = reshape(as_class(r.B, bfmt), k, n);
      informat = afmt;
      if ~strcmp(afmt, bfmt), informat = [afmt ',' bfmt]; end
      rule = 'wrap'; if sat, rule = 'satfinite'; end
      what = sprintf('mmaemu_gemm(1, A, B, 1, C, ''%s'', ''int32'', ''%s'', ''%s''), %dx%dx%d, seed %d', informat, ...
                     model, rule, m, n, k, seed);
      D = mmaemu_gemm(1, A, B, 1, r.C, informat, 'int32', model, rule);
      ok = same(D, r.D, [what ' = C API']);
      if ~sat  % the default rule is wrap
        ok = ok && same(mmaemu_gemm(1, A, B, 1, r.C, informat, 'int32', model), r.D, [what ', no overflow argument']);
      end
      passed = passed + ok; failed = failed + ~ok;
      runs(end + 1) = struct('file', r.file, 'model', model, 'afmt', afmt, 'bfmt', bfmt, 'D', r.D, 'what', what);
    end
  end
end
% The same codes through Python: matmul and dot equal the C API's (and so Octave's) bits.
[pm, pd] = python_side(runs);
for i = 1:numel(pm)
  ok = same(pm{i}, runs(i).D, [runs(i).what ' = Python matmul']) && same(pd{i}, runs(i).D, [runs(i).what ' = Python dot']);
  passed = passed + ok; failed = failed + ~ok;
end
for i = 1:numel(runs), delete(runs(i).file); end

% beta = 0 and C = [] or 0: D = A*B.
A = int8([1 2; 3 4]); B = int8([5 6; 7 8]);
ok = same(mmaemu_gemm(1, A, B, 0, int32([1 1; 1 1]), 'int8', 'int32', 'H100'), int32([19 22; 43 50]), 'beta 0') && ...
     same(mmaemu_gemm(1, A, B, 1, [], 'int8', 'int32', 'H100'), int32([19 22; 43 50]), 'C = []') && ...
     same(mmaemu_gemm(1, A, B, 1, 0, 's8', 's32', 'H100'), int32([19 22; 43 50]), 'C = 0');
passed = passed + ok; failed = failed + ~ok;

function ok = refused(f, expect)
  try
    f();
    printf('FAILED: accepted, expected an error containing "%s"\n', expect);
    ok = false;
  catch e
    ok = ~isempty(strfind(e.message, expect));
    if ~ok, printf('FAILED: "%s" does not contain "%s"\n', e.message, expect); end
  end
end
A = int8(ones(4, 32)); B = int8(ones(32, 2));
checks = {
  @() mmaemu_gemm(1, A, B, 1, [], 'int8', 'int32', 'MI300X', 'satfinite'), 'has no .satfinite variant (it wraps): saturate = 0 works';
  @() mmaemu_gemm(1, A, B, 1, [], 'int4', 'int32', 'H100'), 'H100 has no integer unit for s4 x s4';
  @() mmaemu_gemm(1, A, B, 1, [], 'uint8', 'int32', 'H100'), 'A must be a real uint8 matrix';
  @() mmaemu_gemm(1, double(A), B, 1, [], 'int8', 'int32', 'H100'), 'A must be a real int8 matrix';
  @() mmaemu_gemm(2, A, B, 1, [], 'int8', 'int32', 'H100'), 'alpha must be 1 and beta 0 or 1';
  @() mmaemu_gemm(1, A, B, 1, [], 'int8', 'fp32', 'H100'), 'the integer units give int32 (s32) results';
  @() mmaemu_gemm(1, A, B, 1, [], 'int8', 'int32', 'H100', 'into-c'), 'overflow ''into-c'' for an integer input (valid: wrap, satfinite)';
  @() mmaemu_gemm(1, A, B, 1, ones(4, 2), 'int8', 'int32', 'H100'), 'C must be an int32 4x2 matrix';
  @() mmaemu_gemm(1, A * 9, B, 1, [], 'int4', 'int32', 'A100'), 'A(1,1) = 9 is outside the 4-bit range [-8, 7]';
  @() mmaemu_gemm(1, A, B, 1, [], 'int8,fp16', 'int32', 'H100'), 'integer inputs are int8, uint8, int4, uint4'};
for i = 1:rows(checks)
  ok = refused(checks{i, 1}, checks{i, 2});
  passed = passed + ok; failed = failed + ~ok;
end
printf('octave integer: %d passed, %d failed\n', passed, failed);
exit(failed > 0);
