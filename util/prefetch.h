/* SPDX-License-Identifier: GPL-2.0-only */
/* Fetching memory into the cache ahead of a walk over cold objects (the
 * agent's records and the CSV sink's entries at each collection). */
#pragma once

/* Every cache line of [from, to): a prefetch never faults. */
static inline void prefetch_range(const void *from, const void *to)
{
	for (const char *p = from; p < (const char *)to; p += 64)
		__builtin_prefetch(p);
	__builtin_prefetch((const char *)to - 1);
}
