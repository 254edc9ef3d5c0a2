/* SPDX-License-Identifier: GPL-2.0-only */
/* The commands of the cgperf program, one do_<verb>() each, in the bpftool
 * style: main.c's table names them. argv[0] is the command's name, its
 * options follow; each returns the process exit status (EXIT_OK,
 * EXIT_RUNTIME, EXIT_USAGE: cmd/cli.h). */
#pragma once

/* `cgperf agent`: the node agent (agent/agent.h does the work). */
int do_agent(int argc, char **argv);
/* `cgperf release`: end the agent's persistent session (final rows, pins removed). */
int do_release(int argc, char **argv);
/* `cgperf check-config [--print] FILE... | --default`: validate agent
 * configuration files (docs/CONFIG.md). EXIT_OK when every file is valid,
 * EXIT_USAGE (2) when one is not (its "FILE:LINE:COL: message" line is on
 * stderr) or on a usage error. */
int do_check_config(int argc, char **argv);
/* `cgperf stat`: count events for a target (docs/STAT.md). */
int do_stat(int argc, char **argv);
/* `cgperf top`: live view of the monitored cgroups (docs/TOP.md). */
int do_top(int argc, char **argv);
/* `cgperf events [--json] [--all]`: which events and PMUs this host supports. */
int do_events(int argc, char **argv);
/* `cgperf list`: the cgroups the agent would monitor, with what they are. */
int do_list(int argc, char **argv);
/* `cgperf plot`: charts of the agent's CSV logs (docs/PLOT.md). */
int do_plot(int argc, char **argv);
