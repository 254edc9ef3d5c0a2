/* SPDX-License-Identifier: GPL-2.0-only */
/* The agent's configuration: YAML (libyaml), an embedded default, validation
 * with FILE:LINE:COL errors. See docs/CONFIG.md. */
#pragma once
#include "cgroup/metadata.h"
#include "events/derived.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CONFIG_MAX_EVENTS 8
#define CONFIG_MAX_PATTERNS 64
#define CONFIG_PROG_GLOB_MAX 64 /* a BPF program name has at most 15 bytes */
/* Larger files are refused before parsing (a config is a few hundred bytes). */
#define CONFIG_FILE_MAX (1024 * 1024)
#define CONFIG_DEFAULT_ENTERPRISE_ID 32473 /* RFC 5612 documentation placeholder PEN */

enum syslog_format {
	SYSLOG_RFC5424,
	SYSLOG_RFC3164
};
enum syslog_transport {
	SYSLOG_UNIX,
	SYSLOG_UDP,
	SYSLOG_TCP
};

struct syslog_config {
	bool enabled;
	enum syslog_transport transport;
	char target[256]; /* as written: unix:/dev/log, udp://HOST:PORT, tcp://HOST:PORT */
	char host[256]; /* udp/tcp */
	char port[16];
	char socket_path[256]; /* unix */
	enum syslog_format format;
	int facility; /* 0..23 (daemon = 3) */
	char app_name[49]; /* RFC 5424 APP-NAME: printable ASCII, at most 48 */
	uint32_t enterprise_id; /* SD-ID cgperf@<id>; default 32473 (documentation placeholder) */
	size_t queue_max; /* messages kept while the receiver is down */
	struct derived_list derived; /* params after the counters */
};

struct csv_config {
	bool enabled;
	char directory[512];
	uint64_t max_size; /* bytes; rotate past this (0: never) */
	unsigned max_files; /* rotated files kept per cgroup */
	uint64_t keep_removed_ms; /* files of cgroups no longer written: deleted after (0: kept) */
	uint64_t max_total_size; /* bytes of all the directory's CSV files (0: no limit) */
	/* A file's rows are written together at most this often, when the
	 * interval is shorter (0: each row at once). docs/CSV.md "Writing". */
	uint64_t flush_interval_ms;
	bool safe_cells; /* neutralise formula-like name cells */
	struct derived_list derived; /* columns after the events */
};

/* csv.flush_interval at most (rows held per file are bounded too). */
#define CONFIG_CSV_FLUSH_MAX_MS (3600ULL * 1000)

#define CONFIG_ROOT_MAX 256

/* Where runtimes keep the files that name containers (docs/IDENTITY.md);
 * "" turns a source off. rootless_*: templates with %u, %h. */
struct metadata_config {
#define CONFIG_ROOT_MEMBER(field, ...) char field[CONFIG_ROOT_MAX];
	METADATA_ROOT_FIELDS(CONFIG_ROOT_MEMBER)
#undef CONFIG_ROOT_MEMBER
};
#define CONFIG_INSTANCE_MAX 64

enum listen_kind {
	LISTEN_TCP,
	LISTEN_UNIX
};

/* Which names the per-cgroup families are exposed under (bits). */
enum prom_names {
	PROM_NAMES_CGPERF = 1, /* cgperf_events_total{cgroup,kind,...} */
	PROM_NAMES_CADVISOR = 2, /* container_perf_events_total{id,name,image,...} */
};

struct prometheus_config {
	bool enabled;
	char listen[256]; /* as written: 127.0.0.1:9464, [::]:9464, :9464, unix:/PATH */
	enum listen_kind kind;
	char host[256]; /* tcp: address or name; "" = every address */
	char port[16];
	char socket_path[108]; /* unix */
	char path[128]; /* URL path of the metrics, default /metrics */
	uint64_t keep_removed_ms; /* removed cgroups stay this long (default 5m) */
	unsigned max_connections; /* concurrent HTTP connections (default 64) */
	unsigned names; /* enum prom_names bits: cgperf (default), cadvisor or both */
	/* Runtime labels exposed as container_label_<key> (cAdvisor's names):
	 * keys whose sanitized names are distinct. */
	char container_labels[METADATA_MAX_LABELS][METADATA_LABEL_MAX];
	int nr_container_labels;
	/* The exporter toolkit's web configuration (TLS, basic auth): an
	 * absolute path, checked at load; "" none. Not served yet: the agent
	 * refuses to start with one (config/web_config.h). */
	char web_config[256];
};

struct textfile_config {
	bool enabled;
	char path[512]; /* absolute, ends in .prom (node_exporter reads only those) */
};

struct agent_config {
	uint64_t interval_ms;
	/* The persistent counting session's name: its pinned state lives in
	 * cgperf's bpffs directory under instances/<instance>. */
	char instance[CONFIG_INSTANCE_MAX + 1];
	/* Keep counting across agent restarts. persist_auto (the default,
	 * `persist: auto`): the agent sets persist at start, true unless it
	 * runs in a terminal. */
	bool persist;
	bool persist_auto;
	char events[CONFIG_MAX_EVENTS][128];
	int nr_events;
	struct {
		/* Where the runtimes' layouts are anchored (docs/IDENTITY.md):
		 * "/" on a host; normalised: one '/' between components, none
		 * at the end. */
		char root[256];
		char include[CONFIG_MAX_PATTERNS][256];
		int nr_include;
		char exclude[CONFIG_MAX_PATTERNS][256];
		int nr_exclude;
		bool containers_only;
		bool include_infrastructure; /* conmon, *.mount, *.socket, *.swap, init.scope */
		unsigned max; /* monitored cgroups cap (default 4096) */
		/* of them below user@UID.service or a container (default 256) */
		unsigned max_delegated;
		unsigned
			max_watches; /* inotify watches on the tree (8192; 0: the kernel's limit) */
		int max_depth; /* 0: no limit */
		uint64_t rescan_interval_ms; /* full walk of the tree: what inotify missed (60 s) */
	} cgroups;
	/* BPF programs logged per interval, by fnmatch globs on their names;
	 * no include: none (no BPF statistics are turned on). */
	struct {
		char include[CONFIG_MAX_PATTERNS][CONFIG_PROG_GLOB_MAX];
		int nr_include;
		char exclude[CONFIG_MAX_PATTERNS][CONFIG_PROG_GLOB_MAX];
		int nr_exclude;
		/* The events counted inside them too (fentry/fexit on them while
		 * they run, where trampolines work); off by default: it adds
		 * to every run of theirs, run_ns included. */
		bool events;
	} bpf_programs;
	struct metadata_config metadata;
	struct csv_config csv;
	struct syslog_config syslog;
	struct prometheus_config prometheus;
	struct textfile_config textfile;
};

/* The embedded default (used when no file is given). */
extern const char config_default_yaml[];

/* Parse YAML text. name is used in error messages ("FILE:LINE:COL: message").
 * On error writes that one line to err and returns -EINVAL (or -ENOMEM). */
int config_parse(const char *text, size_t len, const char *name, struct agent_config *ret,
		 char *err, size_t err_len);
/* Read and parse a file. */
int config_load_file(const char *path, struct agent_config *ret, char *err, size_t err_len);
/* The files a valid config names, read and checked (outputs.prometheus.
 * web_config): what check-config reports beyond the YAML. 0 or -errno with
 * the error in err. */
int config_check_files(const struct agent_config *c, char *err, size_t err_len);
/* Embedded default. */
int config_load_default(struct agent_config *ret);

/* Parse "10s", "500ms", "1m", "2h" -> ms; "64MiB", "10MB", "4096" -> bytes. */
int config_parse_duration_ms(const char *s, uint64_t *ret);
int config_parse_size(const char *s, uint64_t *ret);
/* "unix:/dev/log", "udp://h:514", "tcp://[::1]:601" into c. */
int config_parse_syslog_target(const char *s, struct syslog_config *c, char *err, size_t err_len);

/* Check and normalise a cgroup path given as cgroups.root: absolute, no "."
 * or ".." component; repeated and trailing '/' dropped. 0 or -EINVAL
 * (message in err), -ENAMETOOLONG. */
int config_normalize_cgroup_root(const char *s, char *ret, size_t ret_len, char *err,
				 size_t err_len);
/* An instance name: 1..64 of [A-Za-z0-9_.-], not starting with '.'. */
bool config_instance_name_ok(const char *s);

/* "127.0.0.1:9464", "[::]:9464", ":9464" (every address), "unix:/run/x.sock"
 * into c's listen fields; c untouched on failure. */
int config_parse_listen(const char *s, struct prometheus_config *c, char *err, size_t err_len);

/* Syslog facility names (RFC 5424 numbering 0..23): "kern" .. "local7".
 * config_facility_names() is NULL-terminated, indexed by number. */
int config_parse_facility(const char *s, int *ret);
const char *config_facility_name(int facility);
const char *const *config_facility_names(void);

/* Write every setting of c as YAML that config_parse() reads back to the same
 * values (`cgperf check-config --print`). Returns 0 or -EIO. */
int config_write_yaml(const struct agent_config *c, FILE *f);
