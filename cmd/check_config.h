/* SPDX-License-Identifier: GPL-2.0-only */
/* `cgperf check-config [--print] FILE... | --default`: validate agent
 * configuration files (docs/CONFIG.md). */
#pragma once

/* argv[0] is the subcommand name ("check-config"). Returns the process exit
 * status: EXIT_OK when every file is valid, EXIT_USAGE (2) when one is not
 * (its "FILE:LINE:COL: message" line is on stderr) or on a usage error. */
int do_check_config(int argc, char **argv);
