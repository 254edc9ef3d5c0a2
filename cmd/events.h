/* SPDX-License-Identifier: GPL-2.0-only */
/* `cgperf events [--json] [--all]`: which events and PMUs this host supports. */
#pragma once

/* argv[0] is the subcommand name ("events"); options follow. Returns the
 * process exit status (EXIT_OK, EXIT_RUNTIME, EXIT_USAGE from cmd/cli.h). */
int do_events(int argc, char **argv);
