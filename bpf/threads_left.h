/* A TGID session's threads_left map (follower_common.bpf.h): for each
 * process counted, how many of its threads are still to be switched out for
 * the last time. The followers keep it for the children they add and the
 * threads created; user space sets it for a target as it enters the filter
 * and clears it as it leaves. */
#pragma once
#include <stdint.h>

/* Before tgid enters the filter: its threads now (/proc/TGID/task). An entry
 * already there is kept (on_fork made it); a process gone (-ENOENT) or
 * unreadable gets none (on_free forgets it then). */
int threads_left_seed(int fd, uint64_t tgid);
/* After tgid left the filter (absent already is fine). */
int threads_left_forget(int fd, uint64_t tgid);
