/* SPDX-License-Identifier: GPL-2.0-only */
/* Remove a test's directory or cgroup tree. */
#pragma once
#include <stdbool.h>

/* Removes dfd/name and everything below it, bottom-up, never following
 * symlinks; plain files are unlinked only when unlink_files (cgroupfs
 * interface files go with the rmdir of their cgroup). 0 or the first
 * negative errno; a missing tree is 0. */
int rm_tree_at(int dfd, const char *name, bool unlink_files);
