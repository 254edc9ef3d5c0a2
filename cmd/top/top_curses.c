// SPDX-License-Identifier: GPL-2.0-only
#include "cmd/top/top_curses.h"
#include "cmd/cli.h"
#include "util/text.h"
#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

enum input_mode {
	INPUT_NONE,
	INPUT_FILTER,
	INPUT_DELAY
};

struct top_curses {
	SCREEN *screen;
	int saved_stderr, log_fd; /* fd 2 while open; the memory file behind it */
	bool help;
	enum input_mode input;
	char text[256]; /* what is being typed */
	char old_filter[256]; /* Esc gives it back */
	char message[128]; /* a refused delay, ... */
};

static const char *const help_lines[] = {
	"cgperf top: keys",
	"",
	"  < >        sort by the previous / next column",
	"  N C O I M B S F G R  sort by NAME, CPU%, CORES, IPC, MISS%, BMISS%, CS/s,",
	"             FAULTS/s, MIGR/s, %RUN (the same key again: reverse)",
	"  r          reverse the order",
	"  t          tree (slice > pod > container) or flat",
	"  /          filter by name or path (Enter keeps it, Esc drops it, empty: all)",
	"  space, p   pause / resume",
	"  d          change the delay (seconds)",
	"  h, ?       this help (any key closes it)",
	"  q          quit",
	"",
	"A parent's numbers include its children's (a pod's, its containers').",
};

/* Log lines to a memory file while the screen is ours. */
static void hold_logs(struct top_curses *ui)
{
	ui->saved_stderr = dup(STDERR_FILENO);
	ui->log_fd = memfd_create("cgperf-top-log", MFD_CLOEXEC);
	if (ui->saved_stderr >= 0 && ui->log_fd >= 0 && dup2(ui->log_fd, STDERR_FILENO) >= 0)
		return;
	if (ui->log_fd >= 0)
		close(ui->log_fd);
	if (ui->saved_stderr >= 0)
		close(ui->saved_stderr);
	ui->log_fd = ui->saved_stderr = -1;
}

static void release_logs(struct top_curses *ui)
{
	char buf[4096];
	ssize_t n;

	if (ui->saved_stderr < 0)
		return;
	dup2(ui->saved_stderr, STDERR_FILENO);
	close(ui->saved_stderr);
	lseek(ui->log_fd, 0, SEEK_SET);
	while ((n = read(ui->log_fd, buf, sizeof(buf))) > 0)
		if (write(STDERR_FILENO, buf, (size_t)n) != n)
			break;
	close(ui->log_fd);
}

void top_curses_locale(void)
{
	setlocale(LC_CTYPE, "");
}

int top_curses_open(struct top_curses **ret)
{
	struct top_curses *ui = calloc(1, sizeof(*ui));

	if (!ui)
		return -ENOMEM;
	ui->screen = newterm(NULL, stdout, stdin);
	if (!ui->screen) {
		fprintf(stderr, "cgperf top: cannot drive this terminal (TERM=%s); use -b\n",
			getenv("TERM") ? getenv("TERM") : "");
		free(ui);
		return -ENOTTY;
	}
	set_escdelay(25);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	hold_logs(ui);
	*ret = ui;
	return 0;
}

void top_curses_close(struct top_curses *ui)
{
	if (!ui)
		return;
	endwin();
	delscreen(ui->screen);
	release_logs(ui);
	free(ui);
}

void top_curses_resize(struct top_curses *ui)
{
	struct winsize ws;

	if (ui && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
}

static void draw_help(void)
{
	for (size_t i = 0; i < sizeof(help_lines) / sizeof(help_lines[0]); i++)
		mvaddnstr((int)i, 0, help_lines[i], COLS);
}

/* The line under the title: what is being typed, a message, or the keys. */
static void draw_prompt(const struct top_curses *ui, int y)
{
	char line[400];

	if (ui->input == INPUT_FILTER)
		snprintf(line, sizeof(line), "filter (name or path): %s_", ui->text);
	else if (ui->input == INPUT_DELAY)
		snprintf(line, sizeof(line), "delay in seconds: %s_", ui->text);
	else if (ui->message[0])
		snprintf(line, sizeof(line), "%s", ui->message);
	else
		snprintf(line, sizeof(line),
			 "< > sort  r reverse  t tree  / filter  space pause  "
			 "d delay  h help  q quit");
	mvaddnstr(y, 0, line, COLS);
}

/* The missing columns' reasons, one line each; returns the next line. */
static int draw_missing(const struct top_model *m, int y)
{
	const char *l = m->missing;

	while (*l && y < LINES - 2) {
		const char *nl = strchr(l, '\n');
		int len = nl ? (int)(nl - l) : (int)strlen(l);

		mvaddnstr(y++, 0, l, len < COLS ? len : COLS);
		l += len + (nl != NULL);
	}
	return y;
}

int top_curses_draw(struct top_curses *ui, const struct top_model *m, const struct top_status *st)
{
	char line[8192];
	int y = 0;

	erase();
	if (ui->help) {
		draw_help();
		return refresh() == ERR ? -EIO : 0;
	}
	top_view_title(m, st, line, sizeof(line));
	attron(A_BOLD);
	mvaddnstr(y++, 0, line, COLS);
	attroff(A_BOLD);
	y = draw_missing(m, y);
	draw_prompt(ui, y++);
	top_view_header(m, line, sizeof(line));
	attron(A_REVERSE);
	mvaddnstr(y, 0, line, COLS);
	mvchgat(y++, 0, -1, A_REVERSE, 0, NULL);
	attroff(A_REVERSE);
	for (int i = 0; i < m->nr_order && y < LINES; i++) {
		top_view_row(m, m->rows[m->order[i]], line, sizeof(line));
		mvaddnstr(y++, 0, line, COLS);
	}
	return refresh() == ERR ? -EIO : 0;
}

static void step_sort(struct top_model *m, int step)
{
	int n = m->nr_cols + 1; /* NAME, then the columns */
	int pos = (m->sort_col + 1 + step + n) % n;

	m->sort_col = pos - 1;
	m->reverse = false;
}

static unsigned finish_input(struct top_curses *ui, struct top_model *m, struct top_status *st)
{
	double s;

	if (ui->input == INPUT_DELAY) {
		if (parse_seconds(ui->text, &s) == 0 && s >= 0.1) {
			st->interval_s = s;
			ui->input = INPUT_NONE;
			return TOP_KEY_REDRAW | TOP_KEY_DELAY;
		}
		snprintf(ui->message, sizeof(ui->message), "invalid delay (seconds, at least 0.1)");
	}
	ui->input = INPUT_NONE;
	return TOP_KEY_REDRAW;
}

/* A key while typing a filter or a delay. */
static unsigned input_key(struct top_curses *ui, struct top_model *m, struct top_status *st, int c)
{
	size_t len = strlen(ui->text);

	if (c == 27) { /* Esc */
		if (ui->input == INPUT_FILTER)
			snprintf(m->filter, sizeof(m->filter), "%s", ui->old_filter);
		ui->input = INPUT_NONE;
		return TOP_KEY_REDRAW;
	}
	if (c == '\n' || c == '\r' || c == KEY_ENTER)
		return finish_input(ui, m, st);
	if ((c == KEY_BACKSPACE || c == 127 || c == 8) && len)
		ui->text[len - 1] = '\0';
	else if (c >= 32 && c < 256 && c != 127 && len + 1 < sizeof(ui->text))
		ui->text[len] = (char)c;
	if (ui->input == INPUT_FILTER)
		snprintf(m->filter, sizeof(m->filter), "%s", ui->text);
	return TOP_KEY_REDRAW;
}

static unsigned start_input(struct top_curses *ui, struct top_model *m, enum input_mode mode)
{
	ui->input = mode;
	memset(ui->text, 0, sizeof(ui->text));
	snprintf(ui->old_filter, sizeof(ui->old_filter), "%s", m->filter);
	if (mode == INPUT_FILTER)
		snprintf(ui->text, sizeof(ui->text), "%s", m->filter);
	return TOP_KEY_REDRAW;
}

static unsigned command_key(struct top_curses *ui, struct top_model *m, struct top_status *st,
			    int c)
{
	int col;

	switch (c) {
	case 'q':
		return TOP_KEY_QUIT;
	case '<':
	case '>':
		step_sort(m, c == '<' ? -1 : 1);
		return TOP_KEY_REDRAW;
	case 'r':
		m->reverse = !m->reverse;
		return TOP_KEY_REDRAW;
	case 't':
		m->tree = !m->tree;
		return TOP_KEY_REDRAW;
	case '/':
		return start_input(ui, m, INPUT_FILTER);
	case 'd':
		return start_input(ui, m, INPUT_DELAY);
	case ' ':
	case 'p':
		st->paused = !st->paused;
		return TOP_KEY_REDRAW;
	case 'h':
	case '?':
		ui->help = true;
		return TOP_KEY_REDRAW;
	}
	col = c > 0 && c < 128 && isupper(c) ? top_model_col_by_key(m, (char)c) : -2;
	if (col >= TOP_SORT_NAME)
		top_model_sort_by(m, col);
	return col >= TOP_SORT_NAME ? TOP_KEY_REDRAW : 0;
}

unsigned top_curses_keys(struct top_curses *ui, struct top_model *m, struct top_status *st)
{
	unsigned what = 0;
	int c;

	while (!(what & TOP_KEY_QUIT) && (c = getch()) != ERR) {
		if (ui->help) {
			ui->help = false;
			what |= TOP_KEY_REDRAW;
			continue;
		}
		ui->message[0] = '\0';
		what |= ui->input != INPUT_NONE ? input_key(ui, m, st, c)
						: command_key(ui, m, st, c);
	}
	return what;
}
