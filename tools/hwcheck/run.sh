#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The hardware check: build the harness for the GPU at hand, run the real instructions on
# the ensembles, check the SASS with cuobjdump, and validate the models.
#
#   tools/hwcheck/run.sh [--n N] [--seed S] [--out DIR] [--build DIR] [--gpu NAME]
#                        [--instr LIST] [--formats LIST] [--sets LIST] [--arch 90a]
#
# Default size (--n 20000 samples per set; 5 sets, edge split over its 13
# cases) gives ~90k samples per (instruction, format) and ~0.9M in all, which
# runs in well under a minute of GPU time on an H100/H200; the rest of the
# 5-minute budget is the build and `mmaemu validate`. --n 1000000 is the
# papers' size per set (text output ~20 GB, validation-bound).
# Environment: CUDACXX (nvcc), CUOBJDUMP, JOBS.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
n=20000 seed=1 out="$root/out/hwcheck" build="$root/build-hwcheck" gpu="" arch=""
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --n) n=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --gpu) gpu=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --instr|--formats|--sets|--packing|--device) extra+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
cuda_bin=$(dirname "$nvcc")
cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || echo "$cuda_bin/cuobjdump")}
jobs=${JOBS:-$(nproc)}

# 1. architecture of device 0 (sm_90 -> 90a, for wgmma)
if [[ -z "$arch" ]]; then
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .' || true)
  case "$cc" in
    90) arch=90a ;;
    "") echo "run.sh: cannot read the compute capability (nvidia-smi); pass --arch" >&2; exit 2 ;;
    *) arch=$cc ;;
  esac
fi
echo "== build (sm_$arch) in $build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMMAEMU_BUILD_TESTS=OFF -DMMAEMU_BUILD_TOOLS=ON \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DMMAEMU_HWCHECK_CUDA_ARCHS="$arch" >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j "$jobs" --target mmaemu-hwcheck
bin="$build/tools/hwcheck/mmaemu-hwcheck"
[[ -x "$bin" ]] || { echo "run.sh: $bin was not built (no CUDA compiler?)" >&2; exit 1; }
# the CLI (target mmaemu_cli, output src/mmaemu; older trees: target mmaemu)
cmake --build "$build" -j "$jobs" --target mmaemu_cli 2>/dev/null ||
  cmake --build "$build" -j "$jobs" --target mmaemu || true
have_validate=1
[[ -x "$build/src/mmaemu" && ! -d "$build/src/mmaemu" ]] ||
  { have_validate=0; echo "run.sh: WARNING: $build/src/mmaemu did not build; no validation"; }

# 2. SASS: which tensor-core instructions each kernel uses (PN §4.2 does the same)
mkdir -p "$out"
echo "== cuobjdump -sass ($cuobjdump)"
if [[ -x "$cuobjdump" ]] || command -v "$cuobjdump" >/dev/null; then
  "$cuobjdump" -sass "$bin" >"$out/sass.txt"
  filt=$(command -v cu++filt || echo "$cuda_bin/cu++filt")
  awk '/Function :/ { fn = $3 }
       /(HMMA|QMMA|HGMMA|QGMMA|IMMA|UTCHMMA|UTCQMMA)/ {
         if (match($0, /(UTCHMMA|UTCQMMA|HGMMA|QGMMA|HMMA|QMMA|IMMA)[.A-Za-z0-9_]*/)) n[fn " " substr($0, RSTART, RLENGTH)]++ }
       END { for (k in n) print k, n[k] }' "$out/sass.txt" | sort >"$out/sass_summary.txt"
  if [[ -x "$filt" ]]; then
    while read -r fn op cnt; do printf '  %-60s %-22s x%s\n' "$("$filt" "$fn" | sed 's/(anonymous namespace):://; s/(.*//')" "$op" "$cnt"; done <"$out/sass_summary.txt"
  else
    cat "$out/sass_summary.txt"
  fi
  for op in HMMA QMMA HGMMA QGMMA; do
    printf '  %-6s %s\n' "$op" "$(grep -q " $op" "$out/sass_summary.txt" && echo present || echo absent)"
  done
else
  echo "  cuobjdump not found; SASS not checked"
fi

# 3. the instructions on the ensembles
echo "== mmaemu-hwcheck --n $n --seed $seed"
gpu_args=()
[[ -n "$gpu" ]] && gpu_args=(--gpu "$gpu")
start=$(date +%s)
status=0
"$bin" --out "$out" --seed "$seed" --n "$n" --decisive "$here/decisive.txt" "${gpu_args[@]}" "${extra[@]}" ||
  status=$?
echo "   ($(( $(date +%s) - start )) s on the device)"

# 4. validation, one instruction root at a time
if [[ $have_validate -eq 1 ]]; then
  for dir in "$out"/mma.sync "$out"/wmma "$out"/wgmma; do
    [[ -d "$dir" ]] || continue
    echo "== mmaemu validate $dir"
    "$build/src/mmaemu" validate "$dir" || status=1
  done
fi
# 5. the decisive vectors (docs/models.md §9): which reading this GPU follows
echo "== decisive vectors"
python3 "$here/decide.py" "$out" "$here/decisive.txt" || status=1
exit $status
