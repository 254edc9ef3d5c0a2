/* A TGID session's threads_left map (follower_common.bpf.h): for each
 * process counted, how many of its threads are still to be switched out for
 * the last time. The followers keep it for the children they add and the
 * threads created; user space sets it for a target as it enters the filter
 * and clears it as it leaves. */
#pragma once
#include <stdint.h>

/* Before tgid enters the filter: its threads now (/proc/TGID/task). An entry
 * already there is kept (on_fork made it); a process gone (-ENOENT) or
 * unreadable gets none. The count can be off by a thread that comes or goes
 * while it is taken: one released (gone from the list) but not yet switched
 * out, or created but not yet counted by on_new_thread, is missed (the
 * process is then forgotten a thread early: that thread's last stint is
 * lost); one created and listed before on_new_thread ran, or a zombie (a
 * leader ended early), counts twice or for nothing (the count never runs
 * out: the process is forgotten when freed). */
int threads_left_seed(int fd, uint64_t tgid);
/* After tgid left the filter (absent already is fine). */
int threads_left_forget(int fd, uint64_t tgid);
