% SPDX-License-Identifier: BSD-3-Clause
% Octave's own single(A)*single(B) under the BLAS shim's preload (Octave
% calls sgemm_): the bits of mmaemu_sgemm on the same operands
% (octave_ref sgemm). Run with LD_PRELOAD=libmmaemu.so, MMA_MODEL,
% MMA_INPUT_FORMAT and MMA_VERBOSE=1 (the report must show the calls).
1;

function s = ifelse_str(ok)
  if ok, s = 'the C API''s bits'; else, s = 'FAILED: differs from the C API'; end
end
function r = reference(args)
  file = [tempname() '.bin'];
  [status, out] = system(sprintf('env -u LD_PRELOAD "%s" %s "%s"', getenv('MMAEMU_OCTAVE_REF'), args, file));
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
model = getenv('MMA_MODEL'); policy = getenv('MMA_INPUT_FORMAT');
passed = 0; failed = 0;
for sz = [64 48 100; 33 200 17; 128 128 128]'
  r = reference(sprintf('sgemm %s %s %d %d %d %d', model, policy, sz(1), sz(2), sz(3), sum(sz)));
  C = single(r.A) * single(r.B);
  ok = strcmp(class(C), 'single') && all(typecast(C(:), 'uint32') == typecast(single(r.D(:)), 'uint32'));
  near = single(double(single(r.A)) * double(single(r.B)));  % the binary64 product rounded to binary32
  printf(['single(A)*single(B), %d x %d x %d on %s %s: %s (%d of %d elements differ from the binary64 ' ...
          'product rounded to binary32)\n'], sz(1), sz(2), sz(3), model, policy, ifelse_str(ok), nnz(C ~= near), numel(C));
  passed = passed + ok; failed = failed + ~ok;
end
printf('octave single preload: %d passed, %d failed\n', passed, failed);
exit(failed > 0);
