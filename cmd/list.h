/* SPDX-License-Identifier: GPL-2.0-only */
#pragma once
int do_list(int argc, char **argv);
