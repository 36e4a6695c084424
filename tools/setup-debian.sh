#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian 12 packages libmmaemu builds and tests with.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake pkg-config xz-utils \
  doctest-dev libmpfr-dev libgmp-dev libhwy-dev libopenblas-dev libtbb-dev \
  python3-numpy libeigen3-dev gfortran gnuplot-nox libblas-test liblapack3 \
  libboost-dev libscalapack-openmpi-dev libopenmpi-dev openmpi-bin \
  pybind11-dev python3-pybind11 python3-pytest python3-matplotlib \
  liblapack3 liblapack-dev python3-scipy octave liboctave-dev \
  git python3-pip python3-setuptools python3-wheel python3-build python3-venv python3-torch >/dev/null
echo "setup-debian: packages installed"
