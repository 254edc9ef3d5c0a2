/* SPDX-License-Identifier: GPL-2.0-only */
/* Naming the capability a refused call needs, so an agent started with too
 * few (a unit's CapabilityBoundingSet, a container's securityContext) says
 * which one is missing. The calls and their capabilities are listed in
 * docs/PACKAGING.md. */
#pragma once

/* " (needs CAPS)" when err (a positive errno) is EPERM or EACCES, "" for any
 * other error: append it to the error line of the refused call. */
const char *caps_needed(int err, const char *caps);
