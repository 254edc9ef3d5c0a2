/* SPDX-License-Identifier: GPL-2.0-only */
/* The version cgperf was built as: the CMake project version, and the git
 * description of the source tree when it was built from git ("" otherwise).
 * Both are generated at build time (cmake/version.cmake). */
#pragma once

extern const char cgperf_version[];
extern const char cgperf_git_describe[];
