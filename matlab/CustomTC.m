function D = CustomTC(alpha, A, B, beta, C, informat, outformat, def_params)
% CUSTOMTC  D = A*B + C on a matrix unit described by the toolbox's parameters (libmmaemu).
%   D = CustomTC(alpha, A, B, beta, C, informat, outformat, def_params)
%   The toolbox's CustomTC: def_params holds the fields of the toolbox's model
%   files (fma, neab, frmode, armode, stkbitenabled, global_alignment,
%   late_partial_sum, odd_even_grouping, pair_wise_sum, denorm_prd,
%   min_exp_limit, c_min_exp_limit, prd_limit, correct_rounding,
%   in_subnormals, out_subnormals, fp8_fnuz), translated into a libmmaemu
%   custom: row (docs/octave.md §4 gives the table): fma -> block (and the
%   instruction's k), 23 + neab -> frac, frmode -> round, min_exp_limit ->
%   floor, late_partial_sum with armode 'rd' -> c=late_rd (single-stage, as
%   the toolbox rounds), ... Parameters with no libmmaemu counterpart
%   (stkbitenabled = 1, armode 'rd' without late_partial_sum) are refused.
%   The semantics of alpha, beta and the rounding of the inputs are those of
%   the other toolbox-named functions (H100TC).
if nargin < 8 || ~isstruct(def_params)
  error('mmaemu:nargin', 'CustomTC: give def_params, a struct of the toolbox''s model parameters');
end
p = def_params;
field = @(name, default) getfield_or(p, name, default);
in = lower(informat);
fnuz = field('fp8_fnuz', 0);
switch in
  case {'fp16', 'binary16', 'half'}, in = 'fp16';
  case {'bf16', 'bfloat16', 'brainfloat16'}, in = 'bf16';
  case {'tf32', 'tensorfloat32', 'xf32'}, in = 'tf32';
  case {'fp8-e4m3', 'e4m3'}, in = ifelse(fnuz, 'e4m3fnuz', 'e4m3');
  case {'fp8-e5m2', 'e5m2'}, in = ifelse(fnuz, 'e5m2fnuz', 'e5m2');
  case 'fp8', in = 'e4m3fnuz';
  case 'bf8', in = 'e5m2fnuz';
  otherwise
    error('mmaemu:format', 'CustomTC: the input format ''%s'' is not supported', informat);
end
switch lower(outformat)
  case {'fp32', 'single', 'binary32'}, out = 'fp32';
  case {'fp16', 'binary16', 'half'}, out = 'fp16';
  otherwise
    error('mmaemu:format', 'CustomTC: the output format ''%s'' is not supported', outformat);
end
if field('stkbitenabled', 0)
  error('mmaemu:unsupported', 'CustomTC: stkbitenabled = 1 (a sticky bit in the alignment) is not modelled by libmmaemu');
end
block = field('fma', 4);
keys = sprintf('in=%s,out=%s,k=%d,in_sub=%d,out_sub=%d', in, out, block, field('in_subnormals', 1), ...
               field('out_subnormals', 1));
if field('correct_rounding', 0)
  keys = [keys sprintf(',accum=exact,block=%d,round=%s', block, field('frmode', 'rne'))];
elseif field('pair_wise_sum', 0)
  keys = [keys ',accum=pairwise'];
else
  late = field('late_partial_sum', 0);
  armode = field('armode', 'rz');
  if strcmp(armode, 'rd') && ~late
    error('mmaemu:unsupported', 'CustomTC: armode ''rd'' without late_partial_sum is not modelled by libmmaemu');
  end
  c = 'early';
  if late, c = 'late_rd,late_rd=single_stage'; end
  floor_exp = field('min_exp_limit', -1024);
  if floor_exp <= -1000, floor_s = 'none'; else, floor_s = sprintf('%d', floor_exp); end
  keys = [keys sprintf(',accum=aligned,block=%d,frac=%d,round=%s,floor=%s,c=%s,product=%s,grouping=%s,zero_c=%s', ...
          block, 23 + field('neab', 0), field('frmode', 'rz'), floor_s, c, ...
          ifelse(field('denorm_prd', 1), 'denormalised', 'normalised'), ...
          ifelse(field('odd_even_grouping', 0), 'odd_even', 'contiguous'), ...
          ifelse(field('c_min_exp_limit', 0), '-126', 'ignore'))];
  if any(strcmp(in, {'bf16', 'tf32'}))
    keys = [keys sprintf(',prd_ovf=%d', field('prd_limit', 0))];
  end
end
D = mmaemu_mex('toolbox', 'CustomTC', ['custom:' keys], alpha, A, B, beta, C, in, out);
end

function v = getfield_or(s, name, default)
if isfield(s, name), v = s.(name); else, v = default; end
end

function v = ifelse(c, a, b)
if c, v = a; else, v = b; end
end
