/* SPDX-License-Identifier: GPL-2.0-only */
/* A loaded program's maps, found by name: how the parts of a hub or a
 * session this process did not load (adopted from pins, found through a
 * registry) are reached. */
#pragma once
#include <linux/types.h>

/* fd of the map of prog_fd's program named name (bpf_map_info.name; a name
 * starting with '.', as ".bss": the map whose name ends so, libbpf naming
 * such maps after a prefix of their object's name) of this type. -ENOENT:
 * none. */
int prog_map_by_name(int prog_fd, const char *name, __u32 type, int *ret_fd);
