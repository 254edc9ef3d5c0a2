/* SPDX-License-Identifier: GPL-2.0-only */
#pragma once
int do_top(int argc, char **argv);
