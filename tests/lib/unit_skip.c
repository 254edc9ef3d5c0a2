// SPDX-License-Identifier: GPL-2.0-only
/* Skips of unit tests reported to ctest; see unit_skip.h. */
#include "tests/lib/unit_skip.h"
#include <stdarg.h>
#include <stdio.h>

static int skipped;

void unit_skip_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("SKIP: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	va_end(ap);
	skipped++;
}

int unit_result(int failed)
{
	if (failed)
		return failed;
	return skipped ? UNIT_SKIP_CODE : 0;
}
