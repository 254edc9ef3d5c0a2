/* SPDX-License-Identifier: GPL-2.0-only */
/* `cgperf top`'s full-screen view (ncurses): draws the model and turns keys
 * into changes of the model (sort, reverse, tree, filter) and of the status
 * (pause, delay). While it is open, log lines go to a memory file and are
 * printed when it closes: they would tear the screen. */
#pragma once
#include "cmd/top/top_model.h"
#include "cmd/top/top_view.h"

struct top_curses;

enum {
	TOP_KEY_REDRAW = 1,
	TOP_KEY_QUIT = 2,
	TOP_KEY_DELAY = 4, /* st->interval_s changed */
};

/* 0, or -ENOTTY when the terminal cannot be driven. Call
 * top_curses_locale() first, before any other thread runs. */
int top_curses_open(struct top_curses **ret);
/* The terminal's character set for names (UTF-8); numbers stay in the C
 * locale. setlocale() races with threads that use the locale (json-c's
 * duplocale in the name lookup thread): before they start. */
void top_curses_locale(void);
/* Restores the terminal. Accepts NULL. */
void top_curses_close(struct top_curses *ui);
int top_curses_draw(struct top_curses *ui, const struct top_model *m, const struct top_status *st);
/* Read every pending key; TOP_KEY_* bits. */
unsigned top_curses_keys(struct top_curses *ui, struct top_model *m, struct top_status *st);
/* SIGWINCH: take the terminal's new size. */
void top_curses_resize(struct top_curses *ui);
