% SPDX-License-Identifier: BSD-3-Clause
% A toolbox-style multi-word loop: the inner loop of the toolbox's multi-word
% experiment (docs/octave.md §6): the word split, then matmul(), the word
% products on the model's tensor cores with u^(j+k-2) as alpha, accumulated
% into C, written as a toolbox user writes it, with mmaemu_round where the script calls CPFloat
% (round to nearest). It must run unchanged on the toolbox-named functions
% and give the bits of the same loop through the C API (octave_ref multiword).
1;

function s = ifelse_str(ok)
  if ok, s = 'the C API''s bits'; else, s = 'DIFFERS from the C API'; end
end

function C = matmul(A, B, model, p, u, inopt, outopt)
  C = zeros(size(A{1}, 1), size(B{1}, 2));
  for j = 1:p
    for k = 1:p
      if (j + k - 2 < p)
        if strcmp(model, 'v100')
          C = V100TC(u^(j+k-2), A{j}, B{k}, 1, C, outopt.format);
        elseif strcmp(model, 'h100')
          C = H100TC(u^(j+k-2), A{j}, B{k}, 1, C, inopt.format, outopt.format);
        elseif strcmp(model, 'a100')
          C = A100TC(u^(j+k-2), A{j}, B{k}, 1, C, inopt.format, outopt.format);
        elseif strcmp(model, 'b200')
          C = B200TC(u^(j+k-2), A{j}, B{k}, 1, C, inopt.format, outopt.format);
        elseif strcmp(model, 'b200rn')
          C = B200TCRN(u^(j+k-2), A{j}, B{k}, 1, C, inopt.format, outopt.format);
        elseif strcmp(model, 'l40s')
          C = L40STC(u^(j+k-2), A{j}, B{k}, 1, C, inopt.format, outopt.format);
        end
      end
    end
  end
end

function r = reference(args)
  file = [tempname() '.bin'];
  [status, out] = system(sprintf('"%s" %s "%s"', getenv('MMAEMU_OCTAVE_REF'), args, file));
  if status ~= 0, error('octave_ref: %s', out); end
  f = fopen(file, 'r');
  d = fread(f, 3, 'int32'); fread(f, 2, 'double');
  r.A = reshape(fread(f, d(1) * d(3), 'double'), d(1), d(3));
  r.B = reshape(fread(f, d(3) * d(2), 'double'), d(3), d(2));
  fread(f, d(1) * d(2), 'double');
  r.D = reshape(fread(f, d(1) * d(2), 'double'), d(1), d(2));
  fclose(f);
  delete(file);
end

addpath(getenv('MMAEMU_MATLAB_DIR'));
addpath(getenv('MMAEMU_MEX_DIR'));
passed = 0; failed = 0;
% (model, libmmaemu model, CPFloat format, libmmaemu format, precision t, words p)
runs = {'h100', 'H100', 'binary16', 'fp16', 11, 2; 'b200', 'B200', 'bfloat16', 'bf16', 8, 3;
        'l40s', 'L40S', 'fp8-e5m2', 'e5m2', 3, 4; 'v100', 'V100', 'binary16', 'fp16', 11, 3;
        'a100', 'A100', 'bfloat16', 'bf16', 8, 2; 'b200rn', 'B200-RN', 'binary16', 'fp16', 11, 1};
for i = 1:rows(runs)
  [model, name, fmt, ours, t, p] = runs{i, :};
  seed = 500 + i;
  r = reference(sprintf('multiword %s %s %d 10 10 300 %d', name, ours, p, seed));
  inopt.format = fmt; outopt.format = 'binary32';
  u = 2^-t;
  % The experiment's split (CPFloat -> mmaemu_round).
  temp1 = r.A; temp2 = r.B;
  LA{1} = mmaemu_round(temp1, fmt);
  BM{1} = mmaemu_round(temp2, fmt);
  for j = 2:p
    temp1 = temp1 - LA{j-1}*u^(j-2);
    temp2 = temp2 - BM{j-1}*u^(j-2);
    LA{j} = mmaemu_round(temp1/u^(j-1), fmt);
    BM{j} = mmaemu_round(temp2/u^(j-1), fmt);
  end
  C = matmul(LA, BM, model, p, u, inopt, outopt);
  err = norm(C - r.A * r.B, 'inf') / norm(r.A, 'inf') / norm(r.B, 'inf');
  g = typecast(C(:), 'uint64'); w = typecast(r.D(:), 'uint64');
  ok = all(g == w);
  printf('%s %s p = %d: error %.3e, %s\n', model, fmt, p, err, ifelse_str(ok));
  if ~ok
    bad = find(g ~= w);
    printf('FAILED: seed %d: C(%d) = 0x%s, C API 0x%s\n', seed, bad(1), dec2hex(g(bad(1)), 16), dec2hex(w(bad(1)), 16));
  end
  passed = passed + ok; failed = failed + ~ok;
  clear LA BM;
end
printf('octave multiword: %d passed, %d failed\n', passed, failed);
exit(failed > 0);
