/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the configuration parser's files (config.c: document, events,
 * cgroups; config_outputs.c: outputs; config_read.c: values of an expected
 * shape and key tables). Internal to config/. */
#pragma once
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "config/yaml_cursor.h"

/* How much of a user's value is echoed back in a message. */
#define ECHO_MAX 64
#define MAX_KEYS_PER_SECTION 16

struct parse_ctx {
	struct ycursor cur;
	struct agent_config *cfg;
	char key[96]; /* dotted name of the key being read, for messages */
	bool syslog_format_given;
	/* What the events read so far resolved to, to refuse duplicates. */
	struct perf_event_attr event_attrs[CONFIG_MAX_EVENTS];
	bool event_resolved[CONFIG_MAX_EVENTS];
	yaml_mark_t event_marks[CONFIG_MAX_EVENTS];
	/* Where each output's `derived` list was, for the check against the
	 * events once the whole document is read (config_outputs.c). */
	struct derived_list *derived_list; /* the list being read */
	yaml_mark_t csv_derived_mark, syslog_derived_mark;
	bool csv_derived_given, syslog_derived_given;
	yaml_mark_t prom_labels_mark; /* outputs.prometheus.container_labels */
};

/* One key of a section: parse() is called with the cursor on the key and
 * reads the value (and nothing more). */
struct key_def {
	const char *name;
	int (*parse)(struct parse_ctx *p);
};

/* Copy with the rest of the field zeroed, so that configurations compare
 * byte-for-byte (reload detects "nothing changed" that way). */
void cfg_set_string(char *dst, size_t size, const char *src);
const yaml_event_t *cfg_event(const struct parse_ctx *p);
/* Move the cursor one event on and return that event. 0 or the cursor's error. */
int cfg_advance(struct parse_ctx *p, const yaml_event_t **ret_event);
/* The current scalar, escaped and cut for a message; returns buf. */
const char *cfg_echo(const struct parse_ctx *p, char *buf, size_t len);

/* Advance to the next value and require its shape. Each returns 0 or
 * -EINVAL / -ENOMEM with the "FILE:LINE:COL: key: message" line written.
 * Strings returned are valid until the cursor moves. `what` names the
 * expected value in messages ("a duration", "a mapping"). */
int cfg_next_scalar(struct parse_ctx *p, const char *what, const char **ret_value);
int cfg_next_collection(struct parse_ctx *p, yaml_event_type_t type, const char *what);
int cfg_next_uint(struct parse_ctx *p, uint64_t min, uint64_t max, uint64_t *ret);
int cfg_next_bool(struct parse_ctx *p, bool *ret);
/* The YAML words for true and false (true, True, TRUE, ...): 0, or -EINVAL. */
int cfg_bool_word(const char *s, bool *ret);
/* A duration key's bounds and wording: `what` is the expected value in
 * messages, `examples` what an invalid one is told ("expected e.g. ...");
 * above max_ms "'X' is longer than <max_text>" (max_text NULL: no bound but
 * the number's, "'X' is too long"); positive: 0 and negatives refused. */
struct cfg_duration {
	const char *what, *examples;
	uint64_t max_ms;
	const char *max_text;
	bool positive;
};
int cfg_next_duration(struct parse_ctx *p, const struct cfg_duration *d, uint64_t *ret_ms);
int cfg_next_string(struct parse_ctx *p, const char *what, size_t max_len, const char **ret);

/* Walk a list: cb(p, index) for each item, with the cursor on the item's
 * first event. Returns the number of items or a negative errno. */
int cfg_for_each_item(struct parse_ctx *p, const char *what,
		      int (*cb)(struct parse_ctx *p, int index));
/* The item under the cursor as a non-empty string (in cfg_for_each_item callbacks). */
int cfg_item_scalar(struct parse_ctx *p, const char *what, size_t max_len, const char **ret);

/* The cursor is on a section's MAPPING-START; reads its keys (unknown and
 * duplicate keys are errors) up to its end. section is NULL at the top level. */
int cfg_parse_section(struct parse_ctx *p, const char *section, const struct key_def *keys,
		      size_t n_keys);

/* What fd holds, at most max bytes (config_file.c): 0, -EFBIG past max,
 * -ENOMEM or read's -errno. *ret_text is malloc'd, not NUL-terminated. */
int cfg_read_fd(int fd, size_t max, char **ret_text, size_t *ret_len);

/* The `bpf_programs` key (config_bpf.c). */
int cfg_parse_bpf_programs(struct parse_ctx *p);

/* The `outputs` key (config_outputs.c). */
int cfg_parse_outputs(struct parse_ctx *p);
/* After the document: every output's derived metrics have their events. */
int cfg_check_derived(struct parse_ctx *p);

/* The `metadata` key (config_metadata.c): one string per runtime root. */
struct config_root_key {
	const char *name;
	size_t offset; /* of its char[CONFIG_ROOT_MAX] in struct agent_config */
	bool per_user; /* a template: %u (uid), %h (home), %% */
	const char *default_root;
};
#define CONFIG_NR_ROOT_KEYS METADATA_NR_ROOTS
extern const struct config_root_key config_root_keys[CONFIG_NR_ROOT_KEYS];
int cfg_parse_metadata(struct parse_ctx *p);
void cfg_metadata_defaults(struct agent_config *c);
