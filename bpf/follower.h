/* SPDX-License-Identifier: GPL-2.0-only */
/* What the follower kinds of a session (bpf/counter_int.h) share: sizing a
 * follower object's maps, running a sync program on a CPU, listing the
 * programs loaded. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct bpf_map;
struct bpf_object;
struct counter;

/* PID/TGID filters forget tasks as they go (pids get reused): at their last
 * switch out, or when freed. */
bool follower_tracks_tasks(const struct counter *c);
/* Before load: the filter and accumulator maps (and threads_left, where the
 * object keeps thread counts; NULL: it does not) sized for c. */
void follower_size_maps(const struct counter *c, struct bpf_map *filter, struct bpf_map *accum,
			struct bpf_map *threads);
/* Run prog_fd on cpu; a CPU gone offline since is not an error. */
int follower_run_on_cpu(int prog_fd, int cpu);
/* One CPU's sync where one program (c->sync_fd) serves all events. */
int follower_sync_prog(struct counter *c, int cpu);
/* Append the id of the program fd holds (fd < 0: none) to ids[*nr..max). */
int follower_add_prog_id(int fd, uint32_t *ids, int *nr, int max);
/* The same for the loaded programs of obj (NULL: none). */
int follower_add_obj_ids(struct bpf_object *obj, uint32_t *ids, int *nr, int max);
