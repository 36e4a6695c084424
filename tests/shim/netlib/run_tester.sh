#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run_tester.sh TESTER INPUT SUMMARY [errexits]
# Runs one of netlib's level-3 BLAS testers (Debian's libblas-test) in a
# scratch folder with INPUT on stdin and judges its summary (SUMMARY: the
# file the tester writes, or "stdout"). "errexits": only n = 0, so every
# routine's error exits run and the computational tests are quick returns
# (the models with non-IEEE units fail the fp32 accuracy threshold by
# design). Prints "netlib <tester>: ok" or the failing lines; status 0/1.
set -eu
tester=$1 input=$2 summary=$3 mode=${4:-full}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
if [ "$mode" = errexits ]; then
  # The N grid (count, values) becomes one value, 0.
  awk '/NUMBER OF VALUES OF N/ { print "1  NUMBER OF VALUES OF N"; n = 1; next }
       n == 1 { print "0  VALUES OF N"; n = 0; next } { print }' "$input" > input
else
  cp "$input" input
fi
"$tester" < input > stdout 2>&1 || true
[ "$summary" = stdout ] && summary=stdout
cat "$summary"
[ "$summary" = stdout ] || cat stdout
exits=$(grep -c "PASSED THE TESTS OF ERROR-EXITS" "$summary" || true)
computed=$(grep -c "PASSED THE .*COMPUTATIONAL TESTS" "$summary" || true)
if grep -qi "FAIL\|INSTEAD OF\|NOT DETECTED\|ILLEGAL VALUE" "$summary" stdout || [ "$exits" -ne 6 ] || [ "$computed" -lt 6 ]; then
  echo "netlib $(basename "$tester"): FAILED ($exits of 6 routines passed the error exits, $computed computational passes)"
  exit 1
fi
echo "netlib $(basename "$tester"): ok ($exits error-exit and $computed computational passes)"
