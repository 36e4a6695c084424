// SPDX-License-Identifier: BSD-3-Clause
// doctest's main() for the format test executables.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
