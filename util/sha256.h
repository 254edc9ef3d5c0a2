/* SPDX-License-Identifier: GPL-2.0-only */
/* SHA-256 (FIPS 180-4) of a byte string. Used where a name derived from
 * tenant-chosen text must not be claimable by choosing other text (CSV file
 * names): a non-cryptographic hash can be steered into a collision. */
#pragma once
#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32

void sha256(const void *data, size_t len, uint8_t ret[SHA256_DIGEST_LEN]);
