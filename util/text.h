/* SPDX-License-Identifier: GPL-2.0-only */
/* Text from the outside world (cgroup names, container metadata) may hold
 * any byte. These make it safe for a terminal line (escape.h) or a JSON
 * string. */
#pragma once
#include "util/escape.h"
#include <stddef.h>
#include <json-c/json.h>

/* A json-c string of s where invalid UTF-8 bytes are replaced by U+FFFD
 * (JSON text must be UTF-8; json-c escapes control characters itself). */
json_object *json_string_utf8(const char *s);
