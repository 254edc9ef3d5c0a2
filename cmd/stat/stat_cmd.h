/* SPDX-License-Identifier: GPL-2.0-only */
#pragma once
int do_stat(int argc, char **argv);
