/* SPDX-License-Identifier: GPL-2.0-only */
#pragma once
/* `cgperf plot`: charts of the agent's CSV logs (docs/PLOT.md). */
int do_plot(int argc, char **argv);
