/* SPDX-License-Identifier: GPL-2.0-only */
/* Whether the agent's fentry/fexit belongs on a BPF program it logs
 * (bpf_programs, docs/AGENT.md "Events inside programs"), decided at each
 * collection from what the kernel's statistics say. Pure: no I/O.
 *
 * A program is profiled only while it runs. Our trampoline holds the
 * program in the kernel, so its owner's unload does not free it; but every
 * program that can run is held by someone else (an fd, a link, a hook, a
 * prog array), and one held by our links alone cannot run at all. So a
 * collection that finds a profiled program's run count unchanged lets it
 * go; if that was its last reference it is gone at once. */
#pragma once
#include <stdbool.h>

enum prof_step {
	PROF_STAY, /* as it is */
	PROF_ATTACH, /* not attached, and it ran (or was never attached yet) */
	PROF_DETACH, /* attached, and its run count stood still */
};

/* attached: our fentry/fexit is on it; never: it cannot take fentry, or it
 * is cgperf's own (not tried again); held_off: an attach failed for a
 * reason that may pass, and its retry is not due yet; ever: attached at
 * some time before; ran: its run count moved since the previous
 * collection. */
enum prof_step prof_rule_step(bool attached, bool never, bool held_off, bool ever, bool ran);
