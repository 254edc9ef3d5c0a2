/* Text from the outside world (cgroup names, container metadata) may hold
 * any byte. These make it safe for a terminal line or a JSON string. */
#pragma once
#include <stddef.h>
#include <json-c/json.h>

/* Copy s to out with control characters, backslash and bytes that are not
 * valid UTF-8 written as \n, \t, \\ or \xNN. Always NUL-terminates. */
void text_escape_control(const char *s, char *out, size_t out_len);

/* A json-c string of s where invalid UTF-8 bytes are replaced by U+FFFD
 * (JSON text must be UTF-8; json-c escapes control characters itself). */
json_object *json_string_utf8(const char *s);

/* Length of the valid UTF-8 sequence at s, or 0 if the byte at s starts none. */
size_t utf8_valid_len(const unsigned char *s);
