/* SPDX-License-Identifier: GPL-2.0-only */
/* The CSV file name of a monitored cgroup: readable, filesystem-safe, unique.
 * The rules are documented in docs/CSV.md ("File names"). Pure: no I/O. */
#pragma once
#include "sink/sink.h"
#include <stddef.h>
#include <stdint.h>

/* Longest stem in bytes, without ".csv" and rotation suffixes (".csv.10"),
 * so every name stays far below NAME_MAX (255): a readable part of at most
 * CSV_STEM_READABLE_MAX bytes, "_", CSV_STEM_HASH_HEX hex digits. */
#define CSV_STEM_HASH_HEX 16
#define CSV_STEM_READABLE_MAX 183
#define CSV_STEM_MAX (CSV_STEM_READABLE_MAX + 1 + CSV_STEM_HASH_HEX)

/* The stem for cg into buf (at least CSV_STEM_MAX + 1 bytes): a readable
 * part from the cgroup's identity ("web_1a2b3c4d5e6f", "pod_prod_api-0_0f1e2d3c",
 * "cron.service", "system.slice_x.scope") and a hash of its full path:
 * "cron.service_7d3f0a1b2c3d4e5f". Only [A-Za-z0-9._-] appear; every other
 * byte of a name becomes "_XX" (hex). Two paths never get the same stem
 * (short of a SHA-256 collision in 64 bits); one path always gets the same.
 * Returns 0, -EINVAL (no cg or path), -ENOBUFS (buf too small), -ENOMEM. */
int csv_file_stem(const struct sink_cgroup *cg, char *buf, size_t len);

/* The stem of a BPF program's file: "bpf-prog_<name>_<id>" (the name
 * escaped as above; no name: "bpf-prog_<id>"). It never equals a cgroup's
 * stem, which ends in 16 hex digits; program ids are unique while the
 * program exists. Returns 0, -EINVAL, -ENOBUFS (buf shorter than
 * CSV_STEM_MAX + 1 is enough), -ENOMEM. */
int csv_prog_file_stem(const struct sink_prog *p, char *buf, size_t len);
