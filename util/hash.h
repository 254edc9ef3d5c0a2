/* SPDX-License-Identifier: GPL-2.0-only */
/* The tree's hashes: 64-bit keys (cgroup ids and inotify wds are sequential:
 * mix before masking) and byte strings (paths, file stems). */
#pragma once
#include <stddef.h>
#include <stdint.h>

static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* FNV-1a over LEN bytes (S need not be NUL-terminated). */
static inline uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}
