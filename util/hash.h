/* SPDX-License-Identifier: GPL-2.0-only */
/* The tree's hashes: 64-bit keys (cgroup ids and inotify wds are sequential:
 * mix before masking) and byte strings (paths, file stems, labels). */
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

/* FNV-1a, 32 bits: where the value is seen or kept (syslog's shortened
 * SD-NAMEs, the online CPU list's signature), so it must stay this one. */
static inline uint32_t hash_bytes32(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}
