/* SPDX-License-Identifier: GPL-2.0-only */
#pragma once
int do_agent(int argc, char **argv);

/* `cgperf release`: end the agent's persistent session (final rows, pins removed). */
int do_release(int argc, char **argv);
