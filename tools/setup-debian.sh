#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian 12 packages libmmaemu builds with (docs/building.md).
#   tools/setup-debian.sh          the library, the mmaemu tool, the Python
#                                  package, mmaemu-bench and the demo
#   tools/setup-debian.sh --tests  also what the tests and the optional front
#                                  ends need (doctest, MPFR, Octave, torch,
#                                  MPI and ScaLAPACK, LAPACK and its testers)
set -euo pipefail
case "${1:-}" in
  "") tests=0 ;;
  --tests) tests=1 ;;
  *) echo "usage: tools/setup-debian.sh [--tests]" >&2; exit 2 ;;
esac
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive

packages=(
  build-essential cmake pkg-config xz-utils libhwy-dev libopenblas-dev libboost-dev libeigen3-dev
  gnuplot-nox python3-dev python3-numpy pybind11-dev python3-pybind11
)
if [ "$tests" = 1 ]; then
  packages+=(
    doctest-dev libmpfr-dev libgmp-dev libtbb-dev gfortran libblas-test liblapack3 liblapack-dev
    libscalapack-openmpi-dev libopenmpi-dev openmpi-bin python3-pytest python3-matplotlib python3-scipy
    octave liboctave-dev python3-torch
    git python3-pip python3-setuptools python3-wheel python3-build python3-venv
  )
fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
echo "setup-debian: packages installed$([ "$tests" = 1 ] && echo " (with the tests' packages)")"
