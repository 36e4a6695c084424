% SPDX-License-Identifier: BSD-3-Clause
% The toolbox-named functions (H100TC, B200TC, MI300XMC) and mmaemu_gemm on
% seeded random inputs give the C API's bits (octave_ref) for every input
% format the toolbox accepts, under every name it accepts for it; formats a
% model has no unit for, and values beyond a format's range, are refused
% with a message; H100TC's time on 256 x 256 x 256.
% Run: octave-cli --norc -q toolbox_bits_test.m (environment: MMAEMU_MATLAB_DIR,
% MMAEMU_MEX_DIR, MMAEMU_OCTAVE_REF).
1;

function r = read_ref(file)
  f = fopen(file, 'r');
  dims = fread(f, 3, 'int32');
  ab = fread(f, 2, 'double');
  m = dims(1); n = dims(2); k = dims(3);
  r.alpha = ab(1); r.beta = ab(2);
  r.A = reshape(fread(f, m * k, 'double'), m, k);
  r.B = reshape(fread(f, k * n, 'double'), k, n);
  r.C = reshape(fread(f, m * n, 'double'), m, n);
  r.D = reshape(fread(f, m * n, 'double'), m, n);
  fclose(f);
end

function r = reference(args)
  file = [tempname() '.bin'];
  cmd = sprintf('"%s" %s "%s"', getenv('MMAEMU_OCTAVE_REF'), args, file);
  [status, out] = system(cmd);
  if status ~= 0
    error('octave_ref failed (%s): %s', cmd, out);
  end
  r = read_ref(file);
  delete(file);
end

% Bits of got and want equal; prints the case and the first mismatches.
function ok = same_bits(got, want, what)
  g = typecast(got(:), 'uint64');
  w = typecast(want(:), 'uint64');
  ok = isequal(size(got), size(want)) && all(g == w);
  if ~ok
    printf('FAILED: %s\n', what);
    bad = find(g ~= w);
    for i = bad(1:min(5, numel(bad)))'
      printf('  D(%d): got 0x%s, C API 0x%s\n', i, dec2hex(g(i), 16), dec2hex(w(i), 16));
    end
  end
end

function f = mmaemu_fmt(name)
  switch name
    case {'binary16', 'half', 'fp16'}, f = 'fp16';
    case {'bfloat16', 'bf16'}, f = 'bf16';
    otherwise, f = name;
  end
end

addpath(getenv('MMAEMU_MATLAB_DIR'));
addpath(getenv('MMAEMU_MEX_DIR'));
passed = 0; failed = 0;
seed = 1000;
% Toolbox names -> libmmaemu's format of them, per family.
nvidia = {'fp8-e5m2', 'e5m2'; 'fp8-e4m3', 'e4m3'; 'e5m2', 'e5m2'; 'e4m3', 'e4m3'; 'fp16', 'fp16'; ...
          'binary16', 'fp16'; 'half', 'fp16'; 'bf16', 'bf16'; 'bfloat16', 'bf16'; 'tensorfloat32', 'tf32'; 'tf32', 'tf32'};
cdna3 = {'fp16', 'fp16'; 'binary16', 'fp16'; 'half', 'fp16'; 'bf16', 'bf16'; 'bfloat16', 'bf16'; ...
         'brainfloat16', 'bf16'; 'tf32', 'tf32'; 'tensorfloat32', 'tf32'; 'xf32', 'tf32'; 'fp8-e5m2', 'e5m2fnuz'; ...
         'fp8-e4m3', 'e4m3fnuz'; 'e5m2', 'e5m2fnuz'; 'e4m3', 'e4m3fnuz'; 'fp8', 'e4m3fnuz'; 'bf8', 'e5m2fnuz'};
outs = {'fp32', 'fp32'; 'single', 'fp32'; 'binary32', 'fp32'; 'fp16', 'fp16'; 'binary16', 'fp16'; 'half', 'fp16'};
alphas = [1, 0.5, 0.3];
betas = [1, 2, 0.7];
cases = {'H100TC', 'H100', nvidia, outs; 'B200TC', 'B200', nvidia, outs; 'MI300XMC', 'MI300X', cdna3, {'binary32', 'fp32'}};
for c = 1:rows(cases)
  [fname, model, ins, os] = cases{c, :};
  for i = 1:rows(ins)
    for o = 1:rows(os)
      seed = seed + 1;
      alpha = alphas(mod(seed, 3) + 1); beta = betas(mod(seed, 3) + 1);
      what = sprintf('%s(%g, A, B, %g, C, ''%s'', ''%s''), 9 x 7 x 45, seed %d', fname, alpha, beta, ins{i, 1}, ...
                     os{o, 1}, seed);
      try
        r = reference(sprintf('toolbox %s %s %s 9 7 45 %.17g %.17g %d', model, ins{i, 2}, os{o, 2}, alpha, beta, seed));
      catch err
        % The model has no such unit: the front end must refuse it too.
        try
          if strcmp(fname, 'MI300XMC')
            feval(fname, alpha, zeros(9, 45), zeros(45, 7), beta, zeros(9, 7), ins{i, 1});
          else
            feval(fname, alpha, zeros(9, 45), zeros(45, 7), beta, zeros(9, 7), ins{i, 1}, os{o, 1});
          end
          printf('FAILED: %s: accepted, the C API refuses it (%s)\n', what, err.message);
          failed = failed + 1;
        catch e
          ok = ~isempty(strfind(e.message, 'has no unit'));
          if ~ok, printf('FAILED: %s: %s\n', what, e.message); end
          passed = passed + ok; failed = failed + ~ok;
        end
        continue;
      end
      if strcmp(fname, 'MI300XMC')
        D = feval(fname, r.alpha, r.A, r.B, r.beta, r.C, ins{i, 1});
      else
        D = feval(fname, r.alpha, r.A, r.B, r.beta, r.C, ins{i, 1}, os{o, 1});
      end
      ok = same_bits(D, r.D, what);
      passed = passed + ok; failed = failed + ~ok;
    end
  end
end

% mmaemu_gemm: libmmaemu's semantics, every accumulate mode of the C API's
% table (mmaemu_accumulate_name) and its other spelling of blas-into-c; the
% modes mmaemu_gemm's help advertises are those.
modes = strsplit(mmaemu_mex('accumulate_modes'), ',');
advertised = regexp(get_help_text('mmaemu_gemm'), '''([a-z]+(?:-[a-z]+)+)''', 'tokens');
advertised = unique(cellfun(@(t) t{1}, advertised, 'UniformOutput', false));
ok = isequal(advertised, unique([modes, {'accumulate-into-c'}]));
if ~ok, printf('FAILED: mmaemu_gemm''s help names %s; the table: %s\n', strjoin(advertised, ', '), strjoin(modes, ', ')); end
passed = passed + ok; failed = failed + ~ok;
gemm_cases = {'H100', 'fp16', 'fp32'; 'H100', 'binary16', 'fp16'; 'H100', 'bf16', 'fp32'; 'H100', 'tf32', 'fp32'; ...
              'H100', 'tensorfloat32:rna', 'fp32'; 'H100', 'fp8-e4m3', 'fp32'; 'B200', 'e5m2', 'fp16'; ...
              'MI300X', 'fp8', 'fp32'; 'MI300X', 'bf8', 'fp32'; 'MI300X', 'xf32', 'fp32'; 'MI250', 'fp32', 'fp32'; ...
              'A100', 'fp64', 'fp64'};
for c = 1:rows(gemm_cases)
  for acc = [modes, {'accumulate-into-c'}]
    [model, in, out] = gemm_cases{c, :};
    seed = seed + 1;
    what = sprintf('mmaemu_gemm(0.75, A, B, 1.5, C, ''%s'', ''%s'', ''%s'', ''%s''), seed %d', in, out, model, acc{1}, seed);
    r = reference(sprintf('gemm %s %s %s 8 6 70 0.75 1.5 %d %s', model, in, out, seed, acc{1}));
    D = mmaemu_gemm(r.alpha, r.A, r.B, r.beta, r.C, in, out, model, acc{1});
    ok = same_bits(D, r.D, what);
    passed = passed + ok; failed = failed + ~ok;
    if strcmp(acc{1}, 'accumulate-into-c')  % the other spelling of blas-into-c: its bits
      ok = same_bits(D, mmaemu_gemm(r.alpha, r.A, r.B, r.beta, r.C, in, out, model, 'blas-into-c'), [what ' = blas-into-c']);
      passed = passed + ok; failed = failed + ~ok;
    end
  end
end

% Clear errors for what is not modelled.
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
A = ones(4, 3); B = ones(3, 2);
checks = {
  @() H100TC(1, A, B, 0, 0, 'fp4', 'fp32'), 'the input format ''fp4'' is not supported (supported: fp8-e5m2';
  @() H100TC(1, A, B, 0, 0, 'bf16', 'fp16'), 'H100 has no unit for bf16 -> fp16';
  @() MI300XMC(1, A, B, 0, 0, 'e4m3fn'), 'the input format ''e4m3fn'' is not supported';
  @() H100TC(1, A * 1e6, B, 0, 0, 'fp16', 'fp32'), 'alpha*A(1,1) = 1e+06 is beyond the range of fp16';
  @() H100TC(1, A, ones(2), 0, 0, 'fp16', 'fp32'), 'Matrix dimensions are not compatible for multiplication: A is 4x3, B is 2x2';
  @() H100TC(1, single(A), B, 0, 0, 'fp16', 'fp32'), 'A must be a real double matrix';
  @() H100TC(1, A, B, 0, ones(3), 'fp16', 'fp32'), 'C is 3x3, but A*B is 4x2';
  @() H100TC(1, A, B, 0, 0), 'give the input format';
  @() mmaemu_gemm(1, A, B, 0, 0, 'fp16', 'fp32', 'H101'), 'unknown model ''H101''';
  @() mmaemu_gemm(1, A, B, 0, 0, 'fp16', 'fp32', 'H100', 'into-d'), 'unknown accumulate ''into-d'' (valid: gpu-blas, into-c, blas-into-c (accumulate-into-c = blas-into-c))';
  @() V100TC(1, A, B, 0, 0, 'fp64'), 'the output format ''fp64'' is not supported'};
for i = 1:rows(checks)
  ok = refused(checks{i, 1}, checks{i, 2});
  passed = passed + ok; failed = failed + ~ok;
end

% CustomTC with a model file's own parameters gives that function's bits.
base = struct('armode', 'rz', 'stkbitenabled', 0, 'global_alignment', 1, 'late_partial_sum', 0, ...
              'odd_even_grouping', 0, 'pair_wise_sum', 0, 'denorm_prd', 1, 'c_min_exp_limit', 0, 'prd_limit', 0, ...
              'correct_rounding', 0, 'in_subnormals', 1, 'out_subnormals', 1);
custom = {'H100TC', 16, 2, 'rz', -133, 'binary16'; 'H100TC', 16, 2, 'rz', -133, 'bfloat16'; ...
          'A100TC', 8, 1, 'rz', -132, 'fp16'; 'A100TC', 8, 1, 'rz', -132, 'tf32'; 'B200TC', 16, 2, 'rz', -133, 'half'};
for i = 1:rows(custom)
  [fname, fma, neab, frmode, emin, in] = custom{i, :};
  if strcmp(in, 'tf32'), fma = 4; end  % the model files' tf32 block
  p = base; p.fma = fma; p.neab = neab; p.frmode = frmode; p.min_exp_limit = emin;
  seed = seed + 1;
  r = reference(sprintf('toolbox %s %s fp32 6 5 70 1 1 %d', fname(1:4), mmaemu_fmt(in), seed));
  ok = same_bits(CustomTC(1, r.A, r.B, 1, r.C, in, 'fp32', p), feval(fname, 1, r.A, r.B, 1, r.C, in, 'fp32'), ...
                 sprintf('CustomTC with %s''s parameters, %s, seed %d', fname, in, seed)) && ...
       same_bits(CustomTC(1, r.A, r.B, 1, r.C, in, 'fp32', p), r.D, sprintf('CustomTC = C API, %s', in));
  passed = passed + ok; failed = failed + ~ok;
end
p = base; p.stkbitenabled = 1;
ok = refused(@() CustomTC(1, A, B, 0, 0, 'fp16', 'fp32', p), 'stkbitenabled = 1 (a sticky bit in the alignment) is not modelled');
passed = passed + ok; failed = failed + ~ok;

% A C of zeros given as 0 or [] (as the toolbox's GEMM) is the zero matrix.
X = mmaemu_round(rand(5, 8), 'fp16'); Y = mmaemu_round(rand(8, 3), 'fp16');
ok = same_bits(H100TC(1, X, Y, 1, 0, 'fp16', 'fp32'), H100TC(1, X, Y, 1, zeros(5, 3), 'fp16', 'fp32'), 'C = 0') && ...
     same_bits(H100TC(1, X, Y, 1, [], 'fp16', 'fp32'), H100TC(1, X, Y, 1, zeros(5, 3), 'fp16', 'fp32'), 'C = []');
passed = passed + ok; failed = failed + ~ok;

% The time of H100TC on 256 x 256 x 256 (fp16 -> fp32).
X = mmaemu_round(rand(256) - 0.5, 'fp16'); Y = mmaemu_round(rand(256) - 0.5, 'fp16');
H100TC(1, X, Y, 0, 0, 'fp16', 'fp32');
t = tic(); for rep = 1:5, H100TC(1, X, Y, 0, 0, 'fp16', 'fp32'); end
printf('H100TC(1, A, B, 0, 0, ''fp16'', ''fp32''), 256 x 256 x 256: %.3f s per call (MMA_NUM_THREADS=%s)\n', ...
       toc(t) / 5, getenv('MMA_NUM_THREADS'));
printf('octave toolbox: %d passed, %d failed\n', passed, failed);
exit(failed > 0);
