// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the agent configuration (config/) and `cgperf
 * check-config` (cmd/check_config.c): every kind of bad input gets its
 * exact "NAME:LINE:COL: message" (table-driven), good files round-trip every
 * field, and the command is run in a child process against real files. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd/commands.h"
#include "config/config.h"
#include "tests/lib/test_files.h"

/* ------------------------------------------------------------------------- */
/* Bad input: one row per kind of problem                                    */

struct bad_case {
	const char *yaml;
	const char *expect; /* exact prefix of the error line */
};

static const struct bad_case bad_cases[] = {
	/* Empty documents. */
	{ "", "t.yaml:1:1: empty configuration" },
	{ "# only a comment\n", "t.yaml:2:1: empty configuration" },
	{ "---\n", "t.yaml:2:1: empty configuration" },
	{ "~\n", "t.yaml:1:1: empty configuration" },
	/* The top level must be a mapping. */
	{ "- interval: 10s\n",
	  "t.yaml:1:1: expected a mapping of settings at the top level, got a list" },
	{ "hello\n",
	  "t.yaml:1:1: expected a mapping of settings at the top level, got a single value" },
	/* Unknown keys, with and without a close match. */
	{ "intervl: 10s\n", "t.yaml:1:1: unknown key 'intervl' (did you mean 'interval'?)" },
	{ "Events: [cycles]\n", "t.yaml:1:1: unknown key 'Events' (did you mean 'events'?)" },
	{ "foo: 1\n",
	  "t.yaml:1:1: unknown key 'foo' (valid keys: interval, instance, persist, events, cgroups, bpf_programs, metadata, outputs)" },
	{ "outputs:\n  csv:\n    dirctory: /x\n",
	  "t.yaml:3:5: unknown key 'dirctory' in outputs.csv (did you mean 'directory'?)" },
	{ "outputs:\n  kafka: {}\n",
	  "t.yaml:2:3: unknown key 'kafka' in outputs (valid keys: csv, syslog, prometheus, textfile)" },
	{ "cgroups: {maximum: 3}\n", "t.yaml:1:11: unknown key 'maximum' in cgroups" },
	{ "bpf_programs: {includ: [a]}\n",
	  "t.yaml:1:16: unknown key 'includ' in bpf_programs (did you mean 'include'?)" },
	{ "bpf_programs: [a]\n", "t.yaml:1:15: bpf_programs: expected a mapping, got a list" },
	{ "bpf_programs:\n  include: [a, \"\"]\n",
	  "t.yaml:2:16: bpf_programs.include: empty item" },
	{ "bpf_programs:\n  exclude: "
	  "[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n",
	  "t.yaml:2:13: bpf_programs.exclude: item longer than 63 bytes" },
	{ "bpf_programs:\n  include: [a]\n  events: yes\n",
	  "t.yaml:3:11: bpf_programs.events: expected true or false, got 'yes'" },
	{ "bpf_programs:\n  events: [true]\n",
	  "t.yaml:2:11: bpf_programs.events: expected true or false, got a list" },
	{ "bpf_programs: {evnts: true}\n",
	  "t.yaml:1:16: unknown key 'evnts' in bpf_programs (did you mean 'events'?)" },
	/* Duplicate keys, top level and nested. */
	{ "interval: 10s\nevents: [cycles]\ninterval: 5s\n",
	  "t.yaml:3:1: duplicate key 'interval' (first at line 1, column 1)" },
	{ "outputs:\n  syslog:\n    facility: daemon\n    facility: user\n",
	  "t.yaml:4:5: duplicate key 'facility' (first at line 3, column 5)" },
	/* Wrong types. */
	{ "interval: [10]\n",
	  "t.yaml:1:11: interval: expected a duration (10s, 500ms, 1m30s) or whole seconds, got a list" },
	{ "interval: {s: 10}\n",
	  "t.yaml:1:11: interval: expected a duration (10s, 500ms, 1m30s) or whole seconds, got a mapping" },
	{ "interval:\nevents: [cycles]\n", "t.yaml:1:10: interval: missing value" },
	{ "events: cycles\n",
	  "t.yaml:1:9: events: expected a list of event names ([cycles, cpu-clock]), got a single value" },
	{ "events:\n  - [cycles]\n", "t.yaml:2:5: events: expected an event name, got a list" },
	{ "events: [cycles, ~]\n", "t.yaml:1:18: events: empty item" },
	{ "cgroups: [a]\n", "t.yaml:1:10: cgroups: expected a mapping, got a list" },
	{ "cgroups:\n  containers_only: {a: 1}\n",
	  "t.yaml:2:20: cgroups.containers_only: expected true or false, got a mapping" },
	{ "cgroups:\n  include: [{a: 1}]\n",
	  "t.yaml:2:13: cgroups.include: expected a glob, got a mapping" },
	{ "outputs: csv\n", "t.yaml:1:10: outputs: expected a mapping, got a single value" },
	{ "outputs:\n  csv:\n",
	  "t.yaml:2:7: outputs.csv: expected a mapping, got null (write {} for all defaults)" },
	{ "? [a]\n: 1\n", "t.yaml:1:3: keys must be names, got a list" },
	{ "outputs: {? {a: 1} : 2}\n", "t.yaml:1:13: outputs: keys must be names, got a mapping" },
	/* interval values. */
	{ "interval: -5s\n", "t.yaml:1:11: interval: must be greater than 0, got '-5s'" },
	{ "interval: -1\n", "t.yaml:1:11: interval: must be greater than 0, got '-1'" },
	{ "interval: 0\n", "t.yaml:1:11: interval: must be greater than 0" },
	{ "interval: 0ms\n", "t.yaml:1:11: interval: must be greater than 0" },
	{ "interval: 25h\n", "t.yaml:1:11: interval: '25h' is longer than 24h" },
	{ "interval: 86401\n", "t.yaml:1:11: interval: '86401' is longer than 24h" },
	{ "interval: 99999999999999999999999h\n",
	  "t.yaml:1:11: interval: '99999999999999999999999h' is longer than 24h" },
	{ "interval: 1.5s\n", "t.yaml:1:11: interval: invalid duration '1.5s' (expected e.g. 10s" },
	{ "interval: 10x\n", "t.yaml:1:11: interval: invalid duration '10x'" },
	{ "interval: s\n", "t.yaml:1:11: interval: invalid duration 's'" },
	{ "interval: 10 s\n", "t.yaml:1:11: interval: invalid duration '10 s'" },
	/* events values. */
	{ "events: [cycles, cyclse]\n",
	  "t.yaml:1:18: events: unknown event 'cyclse' (did you mean cycles?)" },
	{ "events:\n  - cycles\n  - qwertyuiop\n",
	  "t.yaml:3:5: events: unknown event 'qwertyuiop' (see 'cgperf events --all')" },
	{ "events: [\"cy\\x01cles\"]\n", "t.yaml:1:10: events: unknown event 'cy\\x01cles'" },
	{ "events: [cycles, rzz]\n", "t.yaml:1:18: events: invalid raw event 'rzz'" },
	{ "events: [cycles, \"cpu/event=0x3c\"]\n",
	  "t.yaml:1:18: events: event 'cpu/event=0x3c': missing trailing '/'" },
	{ "events: [cycles, instructions, cycles]\n",
	  "t.yaml:1:32: events: duplicate event 'cycles' (first at line 1, column 10)" },
	{ "events: [context-switches, cs]\n",
	  "t.yaml:1:28: events: 'cs' counts the same as 'context-switches' (line 1, column 10)" },
	{ "events: []\n", "t.yaml:1:10: events: at least one event is required" },
	{ "events: [cycles, instructions, cpu-clock, task-clock, page-faults, cs, cpu-migrations,"
	  " minor-faults, major-faults]\n",
	  "t.yaml:1:102: events: at most 8 events" },
	/* cgroups values. */
	{ "cgroups:\n  include: []\n",
	  "t.yaml:2:13: cgroups.include: empty list selects no cgroup" },
	{ "cgroups:\n  include: [\"\"]\n",
	  "t.yaml:2:13: cgroups.include: empty item (expected a glob)" },
	{ "cgroups:\n  exclude: [\"runtime:\"]\n",
	  "t.yaml:2:13: cgroups.exclude: empty glob after 'runtime:'" },
	{ "cgroups:\n  max: 0\n", "t.yaml:2:8: cgroups.max: 0 is out of range 1..1000000" },
	{ "cgroups:\n  max: 1000001\n",
	  "t.yaml:2:8: cgroups.max: 1000001 is out of range 1..1000000" },
	{ "cgroups:\n  max: -1\n", "t.yaml:2:8: cgroups.max: -1 is out of range 1..1000000" },
	{ "cgroups:\n  max: 184467440737095516160\n",
	  "t.yaml:2:8: cgroups.max: 184467440737095516160 is out of range" },
	{ "cgroups:\n  max: 0x10\n",
	  "t.yaml:2:8: cgroups.max: expected a decimal integer, got '0x10'" },
	{ "cgroups:\n  max: 4.5\n",
	  "t.yaml:2:8: cgroups.max: expected a decimal integer, got '4.5'" },
	{ "cgroups:\n  max_depth: -2\n",
	  "t.yaml:2:14: cgroups.max_depth: -2 is out of range 0..2147483647" },
	{ "cgroups:\n  rescan_interval: 0s\n",
	  "t.yaml:2:20: cgroups.rescan_interval: must be greater than 0" },
	{ "cgroups:\n  max_delegated: -1\n",
	  "t.yaml:2:18: cgroups.max_delegated: -1 is out of range 0..1000000" },
	{ "cgroups:\n  max_watches: -1\n",
	  "t.yaml:2:16: cgroups.max_watches: -1 is out of range 0..10000000" },
	{ "cgroups:\n  containers_only: yes\n",
	  "t.yaml:2:20: cgroups.containers_only: expected true or false, got 'yes'" },
	{ "cgroups:\n  root: relative/x\n",
	  "t.yaml:2:9: cgroups.root: must be an absolute cgroup path" },
	{ "cgroups:\n  root: /a/../b\n",
	  "t.yaml:2:9: cgroups.root: '.' and '..' are not allowed in the path" },
	{ "cgroups:\n  root: \"\"\n", "t.yaml:2:9: cgroups.root: must be an absolute cgroup path" },
	{ "cgroups:\n  root: [/]\n", "t.yaml:2:9: cgroups.root: expected a cgroup path" },
	/* metadata values. */
	{ "metadata:\n  docker: var/lib/docker\n",
	  "t.yaml:2:11: metadata.docker: 'var/lib/docker' is not an absolute path" },
	{ "metadata:\n  podman: \"%h/x\"\n",
	  "t.yaml:2:11: metadata.podman: '%h/x' is not an absolute path" },
	{ "metadata:\n  rootless_podman: \"~/x\"\n",
	  "t.yaml:2:20: metadata.rootless_podman: '~/x' is not an absolute path (or %h/...)" },
	{ "metadata:\n  rootless_docker: \"%h/%x\"\n",
	  "t.yaml:2:20: metadata.rootless_docker: '%h/%x' has an unknown %-sequence" },
	{ "metadata:\n  rootless_docker: \"%hx\"\n",
	  "t.yaml:2:20: metadata.rootless_docker: '%hx' is not an absolute path" },
	{ "metadata:\n  dockr: /x\n",
	  "t.yaml:2:3: unknown key 'dockr' in metadata (did you mean 'docker'?)" },
	{ "metadata:\n  docker: {a: 1}\n", "t.yaml:2:11: metadata.docker: expected a directory" },
	/* outputs.csv values. */
	{ "outputs:\n  csv:\n    directory: var/log\n",
	  "t.yaml:3:16: outputs.csv.directory: 'var/log' is not an absolute path" },
	{ "outputs:\n  csv:\n    directory: \"\"\n",
	  "t.yaml:3:16: outputs.csv.directory: must not be empty" },
	{ "outputs:\n  csv:\n    max_size: 64M\n",
	  "t.yaml:3:15: outputs.csv.max_size: invalid size '64M' (expected bytes" },
	{ "outputs:\n  csv:\n    max_size: -1\n",
	  "t.yaml:3:15: outputs.csv.max_size: invalid size '-1'" },
	{ "outputs:\n  csv:\n    max_size: 1.5GiB\n",
	  "t.yaml:3:15: outputs.csv.max_size: invalid size '1.5GiB'" },
	{ "outputs:\n  csv:\n    max_size: 20000000TiB\n",
	  "t.yaml:3:15: outputs.csv.max_size: '20000000TiB' is too large" },
	{ "outputs:\n  csv:\n    max_files: 1001\n",
	  "t.yaml:3:16: outputs.csv.max_files: 1001 is out of range 0..1000" },
	{ "outputs:\n  csv:\n    enabled: maybe\n",
	  "t.yaml:3:14: outputs.csv.enabled: expected true or false, got 'maybe'" },
	{ "outputs:\n  csv:\n    keep_removed: 7x\n",
	  "t.yaml:3:19: outputs.csv.keep_removed: invalid duration '7x'" },
	{ "outputs:\n  csv:\n    keep_removed: -1d\n",
	  "t.yaml:3:19: outputs.csv.keep_removed: invalid duration '-1d'" },
	{ "outputs:\n  csv:\n    flush_interval: 2h\n",
	  "t.yaml:3:21: outputs.csv.flush_interval: '2h' is longer than 1h" },
	{ "outputs:\n  csv:\n    flush_interval: soon\n",
	  "t.yaml:3:21: outputs.csv.flush_interval: invalid duration 'soon' (expected e.g. 7d, 12h, "
	  "30m, 5s or whole seconds; 0: every row written at once)" },
	{ "outputs:\n  csv:\n    flush_interval: [1s]\n",
	  "t.yaml:3:21: outputs.csv.flush_interval: expected a duration (7d, 12h, 30m, 5s) or whole "
	  "seconds, got a list" },
	{ "outputs:\n  csv:\n    keep_removed: 99999999999999999999999h\n",
	  "t.yaml:3:19: outputs.csv.keep_removed: '99999999999999999999999h' is too long" },
	{ "outputs:\n  prometheus: {keep_removed: 25h}\n",
	  "t.yaml:2:30: outputs.prometheus.keep_removed: '25h' is longer than 24h" },
	{ "outputs:\n  csv:\n    max_total_size: 1.5GiB\n",
	  "t.yaml:3:21: outputs.csv.max_total_size: invalid size '1.5GiB'" },
	{ "outputs:\n  csv:\n    safe_cells: 1\n",
	  "t.yaml:3:17: outputs.csv.safe_cells: expected true or false, got '1'" },
	/* outputs.syslog values. */
	{ "outputs:\n  syslog:\n    target: http://logs:514\n",
	  "t.yaml:3:13: outputs.syslog.target: invalid target 'http://logs:514': unknown kind of target" },
	{ "outputs:\n  syslog:\n    target: udp://::1:514\n",
	  "t.yaml:3:13: outputs.syslog.target: invalid target 'udp://::1:514': IPv6 addresses must be in brackets" },
	{ "outputs:\n  syslog:\n    target: udp://logs\n",
	  "t.yaml:3:13: outputs.syslog.target: invalid target 'udp://logs': missing :PORT" },
	{ "outputs:\n  syslog:\n    target: \"tcp://logs:\"\n",
	  "t.yaml:3:13: outputs.syslog.target: invalid target 'tcp://logs:': missing port number" },
	{ "outputs:\n  syslog:\n    target: tcp://logs:0\n",
	  "t.yaml:3:13: outputs.syslog.target: invalid target 'tcp://logs:0': invalid port (expected a number 1..65535)" },
	{ "outputs:\n  syslog:\n    target: tcp://logs:65536\n",
	  "t.yaml:3:13: outputs.syslog.target: invalid target 'tcp://logs:65536': invalid port" },
	{ "outputs:\n  syslog:\n    target: \"tcp://[::1]:514/x\"\n",
	  "t.yaml:3:13: outputs.syslog.target: invalid target 'tcp://[::1]:514/x': invalid port" },
	{ "outputs:\n  syslog:\n    target: \"tcp://[::g]:514\"\n",
	  "t.yaml:3:13: outputs.syslog.target: invalid target 'tcp://[::g]:514': invalid IPv6 address" },
	{ "outputs:\n  syslog:\n    target: \"tcp://[::1:514\"\n",
	  "t.yaml:3:13: outputs.syslog.target: invalid target 'tcp://[::1:514': missing ']'" },
	{ "outputs:\n  syslog:\n    target: udp://999.1.1.1:514\n",
	  "t.yaml:3:13: outputs.syslog.target: invalid target 'udp://999.1.1.1:514': invalid IPv4 address" },
	{ "outputs:\n  syslog:\n    target: \"udp://lo gs:514\"\n",
	  "t.yaml:3:13: outputs.syslog.target: invalid target 'udp://lo gs:514': invalid character in host name" },
	{ "outputs:\n  syslog:\n    target: unix:dev/log\n",
	  "t.yaml:3:13: outputs.syslog.target: invalid target 'unix:dev/log': expected an absolute socket path" },
	{ "outputs:\n  syslog:\n    target: \"udp://lo\\ngs:514\"\n",
	  "t.yaml:3:13: outputs.syslog.target: invalid target 'udp://lo\\ngs:514'" },
	{ "outputs:\n  syslog:\n    format: rfc1234\n",
	  "t.yaml:3:13: outputs.syslog.format: expected rfc5424 or rfc3164, got 'rfc1234'" },
	{ "outputs:\n  syslog:\n    facility: deamon\n",
	  "t.yaml:3:15: outputs.syslog.facility: unknown facility 'deamon' (did you mean 'daemon'?)" },
	{ "outputs:\n  syslog:\n    facility: printer\n",
	  "t.yaml:3:15: outputs.syslog.facility: unknown facility 'printer' (expected kern, user" },
	{ "outputs:\n  syslog:\n    app_name: \"cg perf\"\n",
	  "t.yaml:3:15: outputs.syslog.app_name: only printable ASCII without spaces is allowed" },
	{ "outputs:\n  syslog:\n    app_name: cgpérf\n",
	  "t.yaml:3:15: outputs.syslog.app_name: only printable ASCII without spaces is allowed" },
	{ "outputs:\n  syslog:\n    app_name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	  "t.yaml:3:15: outputs.syslog.app_name: longer than 48 bytes" },
	{ "outputs:\n  syslog:\n    enterprise_id: 0\n",
	  "t.yaml:3:20: outputs.syslog.enterprise_id: 0 is out of range 1..4294967295" },
	{ "outputs:\n  syslog:\n    enterprise_id: 4294967296\n",
	  "t.yaml:3:20: outputs.syslog.enterprise_id: 4294967296 is out of range" },
	{ "outputs:\n  syslog:\n    queue_max: 0\n",
	  "t.yaml:3:16: outputs.syslog.queue_max: 0 is out of range 1..1000000" },
	/* Derived metrics: known names, once each, and their events counted. */
	{ "outputs:\n  csv:\n    derived: [ipc, mips]\n",
	  "t.yaml:3:20: outputs.csv.derived: unknown metric 'mips' (expected ipc, cpi, cpu_cores" },
	{ "outputs:\n  csv:\n    derived: [ipc, cpi, ipc]\n",
	  "t.yaml:3:25: outputs.csv.derived: 'ipc' is listed twice" },
	{ "outputs:\n  csv:\n    derived: ipc\n",
	  "t.yaml:3:14: outputs.csv.derived: expected a list of metric names" },
	{ "events: [cycles, cpu-clock]\noutputs:\n  csv:\n    derived: [cpu_cores, ipc]\n",
	  "t.yaml:4:5: outputs.csv.derived: ipc needs the events instructions and cycles, which "
	  "'events' does not count" },
	/* Checked after the whole file: events may come after outputs. */
	{ "outputs:\n  syslog:\n    derived: [branch_miss_pct]\nevents: [branches]\n",
	  "t.yaml:3:5: outputs.syslog.derived: branch_miss_pct needs the events branch-misses "
	  "and branches" },
	/* Left out: the default events (cycles, instructions, cpu-clock, ...). */
	{ "outputs:\n  csv:\n    derived: [cache_miss_pct]\n",
	  "t.yaml:3:5: outputs.csv.derived: cache_miss_pct needs the events cache-misses" },
	/* YAML features that are refused. */
	{ "interval: &i 10s\n", "t.yaml:1:11: anchors (&name) are not supported" },
	{ "interval: *i\n", "t.yaml:1:11: aliases (*name) are not supported" },
	{ "interval: !!str 10s\n", "t.yaml:1:11: YAML tags (!tag) are not supported" },
	{ "events: !!seq [cycles]\n", "t.yaml:1:9: YAML tags (!tag) are not supported" },
	{ "interval: 10s\n---\ninterval: 5s\n", "t.yaml:2:1: more than one YAML document" },
	/* "Billion laughs": refused at the first anchor, nothing is expanded. */
	{ "events: &a [cycles, cycles]\ncgroups: &b [*a, *a]\n",
	  "t.yaml:1:9: anchors (&name) are not supported" },
	/* Syntax errors: libyaml's problem at its mark. */
	{ "events: [cycles\n", "t.yaml:2:1: YAML syntax error: did not find expected ',' or ']'" },
	{ "interval: 10s\n- x\n",
	  "t.yaml:2:1: YAML syntax error: did not find expected key (while parsing a block mapping at line 1, column 1)" },
	{ "events: [cycles]\n  interval: 10s\n",
	  "t.yaml:2:3: YAML syntax error: did not find expected key" },
	{ "interval: \"a\\qb\"\n",
	  "t.yaml:1:13: YAML syntax error: found unknown escape character" },
	{ "interval: 10s\n\tevents: x\n",
	  "t.yaml:2:1: YAML syntax error: found a tab character that violates indentation" },
	{ "interval: \"10s\n", "t.yaml:2:1: YAML syntax error: found unexpected end of stream" },
	{ "outputs:\n  csv: {}\n bad: 1\n",
	  "t.yaml:3:2: YAML syntax error: did not find expected key" },
	/* Bytes that are not UTF-8 text, with their position. */
	{ "interval: 10s\n\xff\xfe\n",
	  "t.yaml:2:1: not valid UTF-8 text: invalid leading UTF-8 octet (byte 0xff)" },
	{ "interval: 10\xc3s\n",
	  "t.yaml:1:14: not valid UTF-8 text: invalid trailing UTF-8 octet (byte 0x73)" },
	{ "events: [cycles]\ninterval: 1\x01s\n",
	  "t.yaml:2:12: not valid UTF-8 text: control characters are not allowed (U+0001)" },
	/* The Prometheus endpoint and the textfile. */
	{ "outputs:\n  prometheus: {listen: \"::1:9\\n4\"}\n",
	  "t.yaml:2:24: outputs.prometheus.listen: invalid address '::1:9\\n4': IPv6 addresses must be in brackets ([::1]:9464)" },
	{ "outputs:\n  prometheus:\n    listen: 9464\n",
	  "t.yaml:3:13: outputs.prometheus.listen: invalid address '9464': missing :PORT (expected HOST:PORT)" },
	{ "outputs:\n  prometheus:\n    listen: \"::1:9464\"\n",
	  "t.yaml:3:13: outputs.prometheus.listen: invalid address '::1:9464': IPv6 addresses must be in brackets ([::1]:9464)" },
	{ "outputs:\n  prometheus:\n    listen: \":0\"\n",
	  "t.yaml:3:13: outputs.prometheus.listen: invalid address ':0': invalid port" },
	{ "outputs:\n  prometheus:\n    listen: unix:run/m.sock\n",
	  "t.yaml:3:13: outputs.prometheus.listen: invalid address 'unix:run/m.sock': expected an absolute socket path" },
	{ "outputs:\n  prometheus: {path: metrics}\n",
	  "t.yaml:2:22: outputs.prometheus.path: must start with '/'" },
	{ "outputs:\n  prometheus: {path: \"/a b\"}\n",
	  "t.yaml:2:22: outputs.prometheus.path: only printable ASCII" },
	{ "outputs:\n  prometheus: {keep_removed: soon}\n",
	  "t.yaml:2:30: outputs.prometheus.keep_removed: invalid duration 'soon'" },
	{ "outputs:\n  prometheus: {max_connections: 0}\n",
	  "t.yaml:2:33: outputs.prometheus.max_connections: " },
	{ "outputs:\n  prometheus: {names: prom}\n",
	  "t.yaml:2:23: outputs.prometheus.names: unknown value 'prom' (expected cgperf, cadvisor "
	  "or both)" },
	{ "outputs:\n  prometheus: {container_labels: [a]}\n",
	  "t.yaml:2:16: outputs.prometheus.container_labels: shown only under cAdvisor's names" },
	{ "outputs:\n  prometheus: {container_labels: [a, b, c, d, e]}\n",
	  "t.yaml:2:47: outputs.prometheus.container_labels: at most 4 labels" },
	{ "outputs:\n  prometheus: {container_labels: [\"a b\"]}\n",
	  "t.yaml:2:35: outputs.prometheus.container_labels: 'a b': only printable ASCII" },
	{ "outputs:\n  prometheus: {container_labels: [app.x, app_x]}\n",
	  "t.yaml:2:42: outputs.prometheus.container_labels: 'app_x' is the label "
	  "container_label_app_x, as 'app.x' already is" },
	{ "outputs:\n  prometheus: {container_labels: app}\n",
	  "t.yaml:2:34: outputs.prometheus.container_labels: expected a list of label keys" },
	{ "outputs:\n  prometheus: {listn: x}\n",
	  "t.yaml:2:16: unknown key 'listn' in outputs.prometheus (did you mean 'listen'?)" },
	{ "outputs:\n  textfile: {path: /tmp/cgperf.txt}\n",
	  "t.yaml:2:20: outputs.textfile.path: '/tmp/cgperf.txt' must be a file name ending in .prom" },
	{ "outputs:\n  textfile: {path: cgperf.prom}\n",
	  "t.yaml:2:20: outputs.textfile.path: 'cgperf.prom' is not an absolute path" },
	{ "outputs:\n  textfile: {path: /tmp/.prom}\n",
	  "t.yaml:2:20: outputs.textfile.path: '/tmp/.prom' must be a file name" },
	/* Escapes that would smuggle bytes into C strings or terminals. */
	{ "interval: \"10\\0s\"\n", "t.yaml:1:11: interval: value contains a NUL character" },
	{ "\"a\\nb\\u0085\\u2028\\e\": 1\n", "t.yaml:1:1: unknown key 'a\\nb\\u0085\\u2028\\x1b'" },
};

/* Inputs holding NUL bytes, with their length. */
static const struct {
	const char *yaml;
	size_t len;
	const char *expect;
} nul_cases[] = {
	{ "\xff\xfei\0n\0", 6,
	  "t.yaml:1:1: not valid UTF-8 text: invalid leading UTF-8 octet (byte 0xff); UTF-16?" },
	{ "interval: 1\0s\n", 14,
	  "t.yaml:1:12: not valid UTF-8 text: control characters are not allowed (U+0000)" },
	{ "\0", 1,
	  "t.yaml:1:1: not valid UTF-8 text: control characters are not allowed (U+0000)" },
};

static void expect_error(const char *yaml, size_t len, const char *expect)
{
	struct agent_config cfg, untouched;
	char err[1024];
	int r;

	/* Outputs are left as they were on failure. */
	memset(&cfg, 0xa5, sizeof(cfg));
	untouched = cfg;
	memset(err, 'x', sizeof(err));
	r = config_parse(yaml, len, "t.yaml", &cfg, err, sizeof(err));
	if (r != -EINVAL || strncmp(err, expect, strlen(expect)) != 0)
		fail_msg("input:\n%.*s\nexpected: %s\ngot (%d): %s", (int)len, yaml, expect, r,
			 err);
	/* One line, whatever the input held. */
	assert_null(strchr(err, '\n'));
	assert_memory_equal(&cfg, &untouched, sizeof(cfg));
}

static void test_bad_inputs(void **state)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		expect_error(bad_cases[i].yaml, strlen(bad_cases[i].yaml), bad_cases[i].expect);
	for (size_t i = 0; i < sizeof(nul_cases) / sizeof(nul_cases[0]); i++)
		expect_error(nul_cases[i].yaml, nul_cases[i].len, nul_cases[i].expect);
}

/* Inputs too big to write inline. */
static char *repeat(const char *head, const char *unit, int n, const char *tail)
{
	size_t len = strlen(head) + strlen(unit) * (size_t)n + strlen(tail) + 1;
	char *s = malloc(len), *p;

	assert_non_null(s);
	p = stpcpy(s, head);
	for (int i = 0; i < n; i++)
		p = stpcpy(p, unit);
	strcpy(p, tail);
	return s;
}

static void test_bad_generated(void **state)
{
	char *s;

	/* Deep nesting stops at the first level that cannot be a value. */
	s = repeat("interval: ", "[", 100000, "");
	expect_error(s, strlen(s), "t.yaml:1:11: interval: expected a duration");
	free(s);
	s = repeat("", "[", 100000, "");
	expect_error(s, strlen(s),
		     "t.yaml:1:1: expected a mapping of settings at the top level, got a list");
	free(s);
	s = repeat("events: ", "[", 50000, "");
	expect_error(s, strlen(s), "t.yaml:1:10: events: expected an event name, got a list");
	free(s);
	s = repeat("", "{a: ", 50000, "");
	expect_error(s, strlen(s), "t.yaml:1:2: unknown key 'a'");
	free(s);

	/* Too many patterns: the 65th is pointed at. */
	s = repeat("cgroups:\n  exclude:\n", "    - /a\n", 65, "");
	expect_error(s, strlen(s), "t.yaml:67:7: cgroups.exclude: at most 64 patterns");
	free(s);

	/* Over-long values are refused and echoed cut short. */
	s = repeat("cgroups:\n  include: [/", "a", 255, "]\n");
	expect_error(s, strlen(s), "t.yaml:2:13: cgroups.include: item longer than 255 bytes");
	free(s);
	s = repeat("outputs:\n  syslog:\n    target: unix:/", "s", 108, "\n");
	expect_error(s, strlen(s),
		     "t.yaml:3:13: outputs.syslog.target: invalid target 'unix:/sssss");
	free(s);
	/* (libyaml limits implicit keys to 1024 characters.) */
	s = repeat("", "k", 1000, ": 1\n");
	{
		struct agent_config cfg;
		char err[4096];

		assert_int_equal(config_parse(s, strlen(s), "t.yaml", &cfg, err, sizeof(err)),
				 -EINVAL);
		assert_true(strncmp(err, "t.yaml:1:1: unknown key 'kkkk", 29) == 0);
		assert_non_null(strstr(err, "...'"));
		assert_true(strlen(err) < 300);
	}
	free(s);
}

/* The file name is echoed escaped, like values. */
static void test_name_escaped(void **state)
{
	struct agent_config cfg;
	char err[512];

	assert_int_equal(config_parse("x: 1\n", 5, "odd\nname", &cfg, err, sizeof(err)), -EINVAL);
	assert_string_equal(
		err,
		"odd\\nname:1:1: unknown key 'x' (valid keys: interval, instance, persist, events, cgroups, bpf_programs, metadata, outputs)");
	/* A tiny buffer is cut, still terminated. */
	assert_int_equal(config_parse("x: 1\n", 5, "t.yaml", &cfg, err, 10), -EINVAL);
	assert_string_equal(err, "t.yaml:1:");
}

/* ------------------------------------------------------------------------- */
/* Good files                                                                */

static struct agent_config parse_ok(const char *yaml)
{
	struct agent_config cfg;
	char err[1024] = "";
	int r = config_parse(yaml, strlen(yaml), "ok.yaml", &cfg, err, sizeof(err));

	if (r != 0)
		fail_msg("expected success for:\n%s\ngot %d: %s", yaml, r, err);
	return cfg;
}

/* config_write_yaml() output reads back to the very same bytes. */
static void assert_round_trip(const struct agent_config *cfg)
{
	struct agent_config again;
	char *buf = NULL, err[1024] = "";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(config_write_yaml(cfg, f), 0);
	assert_int_equal(fclose(f), 0);
	if (config_parse(buf, len, "printed", &again, err, sizeof(err)) != 0)
		fail_msg("printed config does not parse: %s\n%s", err, buf);
	if (memcmp(cfg, &again, sizeof(again)) != 0)
		fail_msg("printed config reads back different:\n%s", buf);
	free(buf);
}

static const char full_yaml[] =
	"# every key, none at its default\n"
	"interval: 1m30s\n"
	"events:\n"
	"  - cpu-clock\n"
	"  - \"page-faults\"\n"
	"  - r1a8\n"
	"  - nosuchpmu/event=0x1/   # a PMU this host lacks: skipped at run time\n"
	"cgroups:\n"
	"  include: [\"/system.slice/**\", \"runtime:docker\", \"/caf\xc3\xa9,\\\"q\\\"/*\"]\n"
	"  exclude:\n"
	"    - name:k8s_POD*\n"
	"  containers_only: true\n"
	"  include_infrastructure: true\n"
	"  max: \"100\"\n"
	"  max_watches: 10000000\n"
	"  max_delegated: 7\n"
	"  max_depth: 3\n"
	"  rescan_interval: 1m30s\n"
	"  root: //test//tree/\n"
	"bpf_programs:\n"
	"  include: [\"cilium_*\", \"sd_*\"]\n"
	"  exclude: [sd_fw_*]\n"
	"  events: true\n"
	"metadata:\n"
	"  docker: /data/docker\n"
	"  containerd: \"\"\n"
	"  crio: /c\n"
	"  podman: /p%x\n"
	"  pod_logs: /logs\n"
	"  rootless_docker: \"%h/d\"\n"
	"  rootless_podman: /u/%u/%%\n"
	"  rootless_containerd: \"%h\"\n"
	"outputs:\n"
	"  csv:\n"
	"    directory: /srv/cgperf logs\n"
	"    max_size: 10MB\n"
	"    max_files: 0\n"
	"    keep_removed: 1d12h\n"
	"    flush_interval: 1h\n"
	"    max_total_size: 2GiB\n"
	"    safe_cells: false\n"
	"    derived: [ipc, cpu_cores]\n"
	"  syslog:\n"
	"    target: tcp://[2001:db8::1]:6514\n"
	"    format: rfc3164\n"
	"    facility: local7\n"
	"    app_name: cgperf-node\n"
	"    enterprise_id: 4294967295\n"
	"    queue_max: 1000000\n"
	"    derived:\n      - cpi\n"
	"  prometheus:\n"
	"    listen: \"[::]:19464\"\n"
	"    path: /cgperf/metrics\n"
	"    keep_removed: 0\n"
	"    max_connections: 10000\n"
	"    names: both\n"
	"    container_labels: [app, \"io.kubernetes.pod.name\"]\n"
	"  textfile:\n"
	"    path: /srv/node exporter/cgperf.prom\n";

static void test_full_file(void **state)
{
	struct agent_config c = parse_ok(full_yaml);

	assert_int_equal(c.interval_ms, 90000);
	assert_int_equal(c.nr_events, 4);
	assert_string_equal(c.events[0], "cpu-clock");
	assert_string_equal(c.events[1], "page-faults");
	assert_string_equal(c.events[2], "r1a8");
	assert_string_equal(c.events[3], "nosuchpmu/event=0x1/");
	assert_int_equal(c.cgroups.nr_include, 3);
	assert_string_equal(c.cgroups.include[0], "/system.slice/**");
	assert_string_equal(c.cgroups.include[1], "runtime:docker");
	assert_string_equal(c.cgroups.include[2], "/caf\xc3\xa9,\"q\"/*");
	assert_int_equal(c.cgroups.nr_exclude, 1);
	assert_string_equal(c.cgroups.exclude[0], "name:k8s_POD*");
	assert_true(c.cgroups.containers_only);
	assert_true(c.cgroups.include_infrastructure);
	assert_int_equal(c.cgroups.max, 100);
	assert_int_equal(c.cgroups.max_watches, 10000000);
	assert_int_equal(c.cgroups.max_delegated, 7);
	assert_int_equal(c.cgroups.max_depth, 3);
	assert_int_equal(c.cgroups.rescan_interval_ms, 90000);
	assert_string_equal(c.cgroups.root, "/test/tree");
	assert_int_equal(c.bpf_programs.nr_include, 2);
	assert_string_equal(c.bpf_programs.include[1], "sd_*");
	assert_int_equal(c.bpf_programs.nr_exclude, 1);
	assert_string_equal(c.bpf_programs.exclude[0], "sd_fw_*");
	assert_true(c.bpf_programs.events);
	assert_string_equal(c.metadata.docker, "/data/docker");
	assert_string_equal(c.metadata.containerd, "");
	assert_string_equal(c.metadata.crio, "/c");
	assert_string_equal(c.metadata.podman, "/p%x");
	assert_string_equal(c.metadata.pod_logs, "/logs");
	assert_string_equal(c.metadata.rootless_docker, "%h/d");
	assert_string_equal(c.metadata.rootless_podman, "/u/%u/%%");
	assert_string_equal(c.metadata.rootless_containerd, "%h");
	assert_true(c.csv.enabled);
	assert_string_equal(c.csv.directory, "/srv/cgperf logs");
	assert_int_equal(c.csv.max_size, 10000000);
	assert_int_equal(c.csv.max_files, 0);
	assert_int_equal(c.csv.keep_removed_ms, 36ULL * 3600 * 1000);
	assert_int_equal(c.csv.flush_interval_ms, 3600ULL * 1000);
	assert_int_equal(c.csv.max_total_size, 2ULL << 30);
	assert_false(c.csv.safe_cells);
	/* A PMU this host lacks among the events: the inputs check is the agent's. */
	assert_int_equal(c.csv.derived.nr, 2);
	assert_int_equal(c.csv.derived.m[0], DERIVED_IPC);
	assert_int_equal(c.csv.derived.m[1], DERIVED_CPU_CORES);
	assert_int_equal(c.syslog.derived.nr, 1);
	assert_int_equal(c.syslog.derived.m[0], DERIVED_CPI);
	assert_true(c.syslog.enabled);
	assert_int_equal(c.syslog.transport, SYSLOG_TCP);
	assert_string_equal(c.syslog.target, "tcp://[2001:db8::1]:6514");
	assert_string_equal(c.syslog.host, "2001:db8::1");
	assert_string_equal(c.syslog.port, "6514");
	assert_string_equal(c.syslog.socket_path, "");
	assert_int_equal(c.syslog.format, SYSLOG_RFC3164);
	assert_int_equal(c.syslog.facility, 23);
	assert_string_equal(c.syslog.app_name, "cgperf-node");
	assert_int_equal(c.syslog.enterprise_id, 4294967295u);
	assert_int_equal(c.syslog.queue_max, 1000000);
	assert_true(c.prometheus.enabled);
	assert_int_equal(c.prometheus.kind, LISTEN_TCP);
	assert_string_equal(c.prometheus.listen, "[::]:19464");
	assert_string_equal(c.prometheus.host, "::");
	assert_string_equal(c.prometheus.port, "19464");
	assert_string_equal(c.prometheus.path, "/cgperf/metrics");
	assert_int_equal(c.prometheus.keep_removed_ms, 0);
	assert_int_equal(c.prometheus.max_connections, 10000);
	assert_int_equal(c.prometheus.names, PROM_NAMES_CGPERF | PROM_NAMES_CADVISOR);
	assert_int_equal(c.prometheus.nr_container_labels, 2);
	assert_string_equal(c.prometheus.container_labels[1], "io.kubernetes.pod.name");
	assert_true(c.textfile.enabled);
	assert_string_equal(c.textfile.path, "/srv/node exporter/cgperf.prom");
	assert_round_trip(&c);
}

static void test_listen(void **state)
{
	static const struct {
		const char *s;
		int r;
		enum listen_kind kind;
		const char *host, *port, *path;
	} cases[] = {
		{ "127.0.0.1:9464", 0, LISTEN_TCP, "127.0.0.1", "9464", "" },
		{ "[::]:9464", 0, LISTEN_TCP, "::", "9464", "" },
		{ "[::1]:1", 0, LISTEN_TCP, "::1", "1", "" },
		{ ":9464", 0, LISTEN_TCP, "", "9464", "" },
		{ "localhost:65535", 0, LISTEN_TCP, "localhost", "65535", "" },
		{ "unix:/run/cgperf/metrics.sock", 0, LISTEN_UNIX, "", "",
		  "/run/cgperf/metrics.sock" },
		{ "127.0.0.1:65536", -EINVAL, LISTEN_TCP, "", "", "" },
		{ "127.0.0.1", -EINVAL, LISTEN_TCP, "", "", "" },
		{ ":", -EINVAL, LISTEN_TCP, "", "", "" },
		{ "", -EINVAL, LISTEN_TCP, "", "", "" },
		{ "[::1:9464", -EINVAL, LISTEN_TCP, "", "", "" },
		{ "300.1.1.1:80", -EINVAL, LISTEN_TCP, "", "", "" },
		{ "unix:", -EINVAL, LISTEN_TCP, "", "", "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct prometheus_config c = { .max_connections = 7 };
		char err[256] = "";
		int r = config_parse_listen(cases[i].s, &c, err, sizeof(err));

		if (r != cases[i].r)
			fail_msg("'%s': got %d (%s), expected %d", cases[i].s, r, err, cases[i].r);
		if (r < 0) {
			assert_string_equal(c.listen, ""); /* untouched */
			assert_true(err[0] != '\0');
			continue;
		}
		assert_int_equal(c.kind, cases[i].kind);
		assert_string_equal(c.listen, cases[i].s);
		assert_string_equal(c.host, cases[i].host);
		assert_string_equal(c.port, cases[i].port);
		assert_string_equal(c.socket_path, cases[i].path);
		assert_int_equal(c.max_connections, 7);
	}
}

/* The same settings in flow style, quoted, with comments: same result. */
static void test_styles_equivalent(void **state)
{
	struct agent_config block = parse_ok("interval: 90\n"
					     "events: [cycles, cs]\n"
					     "cgroups:\n  containers_only: True\n  max: 7\n"
					     "outputs:\n  csv:\n    directory: /d\n");
	struct agent_config flow =
		parse_ok("{\"interval\": '1m30s', events: [\"cycles\", 'cs'],\n"
			 " cgroups: {containers_only: TRUE, max: +7}, # comment\n"
			 " outputs: {csv: {directory: \"/d\"}}}\n");
	assert_memory_equal(&block, &flow, sizeof(block));
	assert_round_trip(&block);
}

static void test_default(void **state)
{
	struct agent_config c;

	assert_int_equal(config_load_default(&c), 0);
	assert_int_equal(c.interval_ms, 10000);
	assert_string_equal(c.cgroups.root, "/");
	assert_string_equal(c.metadata.docker, "/var/lib/docker");
	assert_string_equal(c.metadata.podman, "/var/lib/containers/storage");
	assert_string_equal(c.metadata.rootless_podman, "%h/.local/share/containers/storage");
	assert_int_equal(c.nr_events, 4);
	assert_string_equal(c.events[0], "cycles");
	assert_string_equal(c.events[1], "instructions");
	assert_string_equal(c.events[2], "cpu-clock");
	assert_string_equal(c.events[3], "context-switches");
	assert_int_equal(c.cgroups.nr_include, 1);
	assert_string_equal(c.cgroups.include[0], "/**");
	assert_int_equal(c.cgroups.nr_exclude, 0);
	assert_false(c.cgroups.containers_only);
	assert_false(c.cgroups.include_infrastructure);
	assert_int_equal(c.bpf_programs.nr_include, 0);
	assert_false(c.bpf_programs.events);
	assert_int_equal(c.cgroups.max, 4096);
	assert_int_equal(c.cgroups.max_watches, 8192);
	assert_int_equal(c.cgroups.max_delegated, 256);
	assert_int_equal(c.cgroups.max_depth, 0);
	assert_int_equal(c.cgroups.rescan_interval_ms, 60000);
	assert_true(c.csv.enabled);
	assert_string_equal(c.csv.directory, "/var/log/cgperf");
	assert_int_equal(c.csv.max_size, 64ULL << 20);
	assert_int_equal(c.csv.max_files, 10);
	assert_int_equal(c.csv.flush_interval_ms, 5000);
	assert_false(c.syslog.enabled);
	assert_false(c.prometheus.enabled);
	assert_string_equal(c.prometheus.listen, "127.0.0.1:9464");
	assert_string_equal(c.prometheus.path, "/metrics");
	assert_int_equal(c.prometheus.keep_removed_ms, 5 * 60 * 1000);
	assert_int_equal(c.prometheus.max_connections, 64);
	assert_int_equal(c.prometheus.names, PROM_NAMES_CGPERF);
	assert_int_equal(c.prometheus.nr_container_labels, 0);
	assert_false(c.textfile.enabled);
	assert_string_equal(c.textfile.path, "/var/lib/prometheus/node-exporter/cgperf.prom");
	assert_round_trip(&c);
}

/* Keys left out take the documented defaults; outputs only when present. */
static void test_defaults_in_file(void **state)
{
	struct agent_config def, c = parse_ok("interval: 10s\n");

	assert_int_equal(config_load_default(&def), 0);
	assert_false(c.csv.enabled);
	assert_false(c.syslog.enabled);
	/* Apart from the csv switch, the same as the embedded default. */
	c.csv.enabled = true;
	assert_memory_equal(&c, &def, sizeof(c));

	c = parse_ok("outputs:\n  syslog: {}\n");
	assert_true(c.syslog.enabled);
	assert_false(c.csv.enabled);
	assert_int_equal(c.syslog.transport, SYSLOG_UNIX);
	assert_string_equal(c.syslog.target, "unix:/dev/log");
	assert_string_equal(c.syslog.socket_path, "/dev/log");
	assert_int_equal(c.syslog.format, SYSLOG_RFC3164);
	assert_int_equal(c.syslog.facility, 3);
	assert_string_equal(c.syslog.app_name, "cgperf");
	assert_int_equal(c.syslog.enterprise_id, 32473);
	assert_int_equal(c.syslog.queue_max, 1000);

	/* Network targets default to RFC 5424; an explicit format wins. */
	c = parse_ok("outputs: {syslog: {target: \"udp://127.0.0.1:5514\"}}\n");
	assert_int_equal(c.syslog.transport, SYSLOG_UDP);
	assert_int_equal(c.syslog.format, SYSLOG_RFC5424);
	c = parse_ok("outputs: {syslog: {format: rfc5424, target: unix:/run/x.sock}}\n");
	assert_int_equal(c.syslog.format, SYSLOG_RFC5424);

	/* Present but switched off. */
	c = parse_ok(
		"outputs:\n  csv: {enabled: false, directory: /x}\n  syslog: {enabled: false}\n");
	assert_false(c.csv.enabled);
	assert_string_equal(c.csv.directory, "/x");
	assert_false(c.syslog.enabled);
	assert_round_trip(&c);

	/* Odd characters in strings are printed so that they read back: C0 and
	 * C1 controls, DEL, a byte-order mark, quotes, backslashes (a C1
	 * control printed raw was refused on reading: found by fuzz/config). */
	c = parse_ok(
		"cgroups:\n  include: [\"/a\\x8a\\ufeff\\x7f\\t\\\"\\\\\\u00e9\\U0001f600\\x85\"]\n");
	assert_string_equal(c.cgroups.include[0],
			    "/a\xc2\x8a\xef\xbb\xbf\x7f\t\"\\\xc3\xa9\xf0\x9f\x98\x80\xc2\x85");
	assert_round_trip(&c);
	/* Line and paragraph separators would be folded as line breaks if
	 * printed raw (also found by fuzz/config). */
	c = parse_ok("cgroups:\n  include: [\"/a\\u2028b\\u2029\\u2029c \"]\n");
	assert_string_equal(c.cgroups.include[0], "/a\xe2\x80\xa8"
						  "b\xe2\x80\xa9\xe2\x80\xa9"
						  "c ");
	assert_round_trip(&c);

	/* exclude may be empty (include may not). */
	c = parse_ok("cgroups: {exclude: []}\n");
	assert_int_equal(c.cgroups.nr_exclude, 0);
	/* A UTF-8 byte-order mark is allowed. */
	c = parse_ok("\xef\xbb\xbfinterval: 5s\n");
	assert_int_equal(c.interval_ms, 5000);
	/* An explicit document start and end. */
	c = parse_ok("---\ninterval: 2s\n...\n");
	assert_int_equal(c.interval_ms, 2000);
}

/* ------------------------------------------------------------------------- */
/* Value parsers                                                             */

static void test_durations(void **state)
{
	static const struct {
		const char *s;
		int r;
		uint64_t ms;
	} cases[] = {
		{ "10", 0, 10000 },
		{ "10s", 0, 10000 },
		{ "500ms", 0, 500 },
		{ "1m", 0, 60000 },
		{ "2h", 0, 7200000 },
		{ "1h30m", 0, 5400000 },
		{ "1m30s", 0, 90000 },
		{ "1s500ms", 0, 1500 },
		{ "0", 0, 0 },
		{ "", -EINVAL, 0 },
		{ "s", -EINVAL, 0 },
		{ "10x", -EINVAL, 0 },
		{ "1.5s", -EINVAL, 0 },
		{ "-1s", -EINVAL, 0 },
		{ "10 s", -EINVAL, 0 },
		{ "10sec", -EINVAL, 0 },
		{ "10m10", -EINVAL, 0 },
		{ "99999999999999999999", -ERANGE, 0 },
		{ "18446744073709551615h", -ERANGE, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t ms = 12345;
		int r = config_parse_duration_ms(cases[i].s, &ms);

		if (r != cases[i].r || (r == 0 && ms != cases[i].ms) || (r < 0 && ms != 12345))
			fail_msg("duration '%s': got %d / %llu", cases[i].s, r,
				 (unsigned long long)ms);
	}
}

static void test_sizes(void **state)
{
	static const struct {
		const char *s;
		int r;
		uint64_t bytes;
	} cases[] = {
		{ "0", 0, 0 },
		{ "4096", 0, 4096 },
		{ "10B", 0, 10 },
		{ "64MiB", 0, 64ULL << 20 },
		{ "10MB", 0, 10000000 },
		{ "1GiB", 0, 1ULL << 30 },
		{ "2kB", 0, 2000 },
		{ "2KiB", 0, 2048 },
		{ "3TB", 0, 3000000000000ULL },
		{ "1TiB", 0, 1ULL << 40 },
		{ "64 MiB", 0, 64ULL << 20 },
		{ "64mib", 0, 64ULL << 20 },
		{ "64M", -EINVAL, 0 },
		{ "1G", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "MiB", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "1.5GiB", -EINVAL, 0 },
		{ "64  MiB", -EINVAL, 0 },
		{ "20000000TiB", -ERANGE, 0 },
		{ "99999999999999999999", -ERANGE, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;
		int r = config_parse_size(cases[i].s, &v);

		if (r != cases[i].r || (r == 0 && v != cases[i].bytes) || (r < 0 && v != 12345))
			fail_msg("size '%s': got %d / %llu", cases[i].s, r, (unsigned long long)v);
	}
}

static void test_targets(void **state)
{
	static const struct {
		const char *s;
		int r;
		enum syslog_transport transport;
		const char *host, *port, *path;
	} cases[] = {
		{ "unix:/dev/log", 0, SYSLOG_UNIX, "", "", "/dev/log" },
		{ "udp://127.0.0.1:514", 0, SYSLOG_UDP, "127.0.0.1", "514", "" },
		{ "tcp://logs.example.org:601", 0, SYSLOG_TCP, "logs.example.org", "601", "" },
		{ "tcp://logs.example.org.:601", 0, SYSLOG_TCP, "logs.example.org.", "601", "" },
		{ "udp://[::1]:5514", 0, SYSLOG_UDP, "::1", "5514", "" },
		{ "udp://[fe80::1%eth0]:514", 0, SYSLOG_UDP, "fe80::1%eth0", "514", "" },
		{ "tcp://localhost:65535", 0, SYSLOG_TCP, "localhost", "65535", "" },
		{ "udp://h:1", 0, SYSLOG_UDP, "h", "1", "" },
		{ "unix:", -EINVAL, 0, 0, 0, 0 },
		{ "unix:log", -EINVAL, 0, 0, 0, 0 },
		{ "udp://:514", -EINVAL, 0, 0, 0, 0 },
		{ "udp://h:", -EINVAL, 0, 0, 0, 0 },
		{ "udp://h:0", -EINVAL, 0, 0, 0, 0 },
		{ "udp://h:65536", -EINVAL, 0, 0, 0, 0 },
		{ "udp://h:+5", -EINVAL, 0, 0, 0, 0 },
		{ "udp://h:5x", -EINVAL, 0, 0, 0, 0 },
		{ "udp://a..b:5", -EINVAL, 0, 0, 0, 0 },
		{ "udp://1.2.3:5", -EINVAL, 0, 0, 0, 0 },
		{ "udp://[1.2.3.4]:5", -EINVAL, 0, 0, 0, 0 },
		{ "udp://[::1]", -EINVAL, 0, 0, 0, 0 },
		{ "udp://[::1]x:5", -EINVAL, 0, 0, 0, 0 },
		{ "udp://[fe80::1%]:5", -EINVAL, 0, 0, 0, 0 },
		{ "UDP://h:5", -EINVAL, 0, 0, 0, 0 },
		{ "syslog://h:5", -EINVAL, 0, 0, 0, 0 },
		{ "h:514", -EINVAL, 0, 0, 0, 0 },
		{ "", -EINVAL, 0, 0, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct syslog_config c, before;
		char err[256] = "";
		int r;

		memset(&c, 0x5a, sizeof(c));
		before = c;
		r = config_parse_syslog_target(cases[i].s, &c, err, sizeof(err));
		if (r != cases[i].r)
			fail_msg("target '%s': got %d (%s)", cases[i].s, r, err);
		if (r < 0) {
			assert_memory_equal(&c, &before, sizeof(c));
			assert_true(err[0] != '\0');
			continue;
		}
		assert_int_equal(c.transport, cases[i].transport);
		assert_string_equal(c.target, cases[i].s);
		assert_string_equal(c.host, cases[i].host);
		assert_string_equal(c.port, cases[i].port);
		assert_string_equal(c.socket_path, cases[i].path);
		/* Fields it does not own are left alone. */
		assert_int_equal(c.facility, before.facility);
	}
}

static void test_facilities(void **state)
{
	const char *const *names = config_facility_names();
	int f = -1;

	for (int i = 0; i < 24; i++) {
		assert_non_null(names[i]);
		assert_int_equal(config_parse_facility(names[i], &f), 0);
		assert_int_equal(f, i);
		assert_string_equal(config_facility_name(i), names[i]);
	}
	assert_null(names[24]);
	assert_int_equal(config_parse_facility("kern", &f), 0);
	assert_int_equal(f, 0);
	assert_int_equal(config_parse_facility("daemon", &f), 0);
	assert_int_equal(f, 3);
	assert_int_equal(config_parse_facility("local0", &f), 0);
	assert_int_equal(f, 16);
	assert_int_equal(config_parse_facility("Daemon", &f), -EINVAL);
	assert_null(config_facility_name(24));
	assert_null(config_facility_name(-1));
}

/* ------------------------------------------------------------------------- */
/* Files and the check-config command                                        */

static char tmpdir[] = "/tmp/cgperf-test-config.XXXXXX";

static int setup_dir(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	return test_rmtemp(tmpdir);
}

/* tmpdir/name holding len bytes of text; its path, malloc'd. */
static char *write_file(const char *name, const char *text, size_t len)
{
	char *path;

	assert_true(asprintf(&path, "%s/%s", tmpdir, name) > 0);
	test_write_file(path, text, len);
	return path;
}

static void test_load_file(void **state)
{
	struct agent_config c, untouched;
	char err[1024], *path, *big, *dir;
	int r;

	path = write_file("good.yaml", full_yaml, strlen(full_yaml));
	assert_int_equal(config_load_file(path, &c, err, sizeof(err)), 0);
	assert_int_equal(c.interval_ms, 90000);
	free(path);

	path = write_file("bad.yaml", "events: [cycles]\ninterval: -1s\n", 31);
	memset(&c, 0x11, sizeof(c));
	untouched = c;
	assert_int_equal(config_load_file(path, &c, err, sizeof(err)), -EINVAL);
	assert_memory_equal(&c, &untouched, sizeof(c));
	{
		char expect[1024];

		snprintf(expect, sizeof(expect),
			 "%s:2:11: interval: must be greater than 0, got '-1s'", path);
		assert_string_equal(err, expect);
	}
	free(path);

	assert_true(asprintf(&path, "%s/missing.yaml", tmpdir) > 0);
	r = config_load_file(path, &c, err, sizeof(err));
	assert_int_equal(r, -ENOENT);
	assert_non_null(strstr(err, "missing.yaml: cannot open: No such file or directory"));
	assert_memory_equal(&c, &untouched, sizeof(c));
	free(path);

	assert_int_equal(config_load_file(tmpdir, &c, err, sizeof(err)), -EISDIR);
	assert_non_null(strstr(err, ": cannot read: Is a directory"));

	/* A file past the limit is refused without being parsed. */
	big = malloc(CONFIG_FILE_MAX + 1);
	assert_non_null(big);
	memset(big, '#', CONFIG_FILE_MAX + 1);
	path = write_file("big.yaml", big, CONFIG_FILE_MAX + 1);
	assert_int_equal(config_load_file(path, &c, err, sizeof(err)), -EFBIG);
	assert_non_null(strstr(err, "big.yaml: larger than 1048576 bytes"));
	free(path);
	/* Exactly at the limit it is read (and here, only comments: empty). */
	path = write_file("limit.yaml", big, CONFIG_FILE_MAX);
	assert_int_equal(config_load_file(path, &c, err, sizeof(err)), -EINVAL);
	if (!strstr(err, "limit.yaml:2:1: empty configuration"))
		fail_msg("got: %s", err);
	free(path);
	free(big);

	/* Unreadable: a directory without permission is not enough as root,
	 * so use a path through a regular file. */
	assert_true(asprintf(&dir, "%s/limit.yaml/x.yaml", tmpdir) > 0);
	assert_int_equal(config_load_file(dir, &c, err, sizeof(err)), -ENOTDIR);
	free(dir);
}

struct run_result {
	int status;
	char out[16384];
	char err[4096];
};

static void slurp(const char *path, char *buf, size_t len)
{
	char *text = test_read_file(path, NULL);

	assert_non_null(text);
	snprintf(buf, len, "%s", text);
	free(text);
}

/* Run do_check_config() in a child with stdout and stderr in files: the
 * command's real output and exit status, not a reimplementation. */
static void run_check_config(struct run_result *res, int argc, char **argv)
{
	char out_path[256], err_path[256];
	pid_t pid;
	int wstatus;

	snprintf(out_path, sizeof(out_path), "%s/stdout", tmpdir);
	snprintf(err_path, sizeof(err_path), "%s/stderr", tmpdir);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
			_exit(99);
		wstatus = do_check_config(argc, argv);
		/* _exit() skips stdio's flush; exit() would run the test
		 * runner's handlers in the child. */
		fflush(stdout);
		fflush(stderr);
		_exit(wstatus);
	}
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	assert_true(WIFEXITED(wstatus));
	res->status = WEXITSTATUS(wstatus);
	slurp(out_path, res->out, sizeof(res->out));
	slurp(err_path, res->err, sizeof(res->err));
}

static void test_check_config_cmd(void **state)
{
	struct run_result *res = malloc(sizeof(*res));
	char *good = write_file("cmd-good.yaml", full_yaml, strlen(full_yaml));
	char *bad = write_file("cmd-bad.yaml", "interval: 10s\nevents: [cycles, cyclse]\n", 38);
	char *quiet = write_file("cmd-quiet.yaml", "interval: 10s\n", 14);
	char *printed, expect[1024];
	struct agent_config from_file, from_print;
	char err[1024];

	assert_non_null(res);
	run_check_config(res, 2, (char *[]){ "check-config", good, NULL });
	assert_int_equal(res->status, 0);
	snprintf(expect, sizeof(expect), "%s: OK\n", good);
	assert_string_equal(res->out, expect);
	assert_string_equal(res->err, "");

	run_check_config(res, 2, (char *[]){ "check-config", bad, NULL });
	assert_int_equal(res->status, 2);
	assert_string_equal(res->out, "");
	snprintf(expect, sizeof(expect),
		 "%s:2:18: events: unknown event 'cyclse' (did you mean cycles?)\n", bad);
	assert_string_equal(res->err, expect);

	/* bpf_programs.events: true or false, located. */
	free(bad);
	bad = write_file("cmd-bad.yaml", "bpf_programs:\n  events: on\n", 27);
	run_check_config(res, 2, (char *[]){ "check-config", bad, NULL });
	assert_int_equal(res->status, 2);
	snprintf(expect, sizeof(expect),
		 "%s:2:11: bpf_programs.events: expected true or false, got 'on'\n", bad);
	assert_string_equal(res->err, expect);

	/* Several files: each reported, failure if any fails. */
	run_check_config(res, 3, (char *[]){ "check-config", bad, good, NULL });
	assert_int_equal(res->status, 2);
	snprintf(expect, sizeof(expect), "%s: OK\n", good);
	assert_string_equal(res->out, expect);

	/* Valid but without outputs: OK, with a warning. */
	run_check_config(res, 2, (char *[]){ "check-config", quiet, NULL });
	assert_int_equal(res->status, 0);
	assert_non_null(strstr(res->err, "warning: no output enabled"));

	/* --print writes every setting; it reads back to the same config. */
	run_check_config(res, 3, (char *[]){ "check-config", "--print", good, NULL });
	assert_int_equal(res->status, 0);
	snprintf(expect, sizeof(expect), "%s: OK\n", good);
	assert_true(strncmp(res->out, expect, strlen(expect)) == 0);
	printed = res->out + strlen(expect);
	assert_int_equal(config_load_file(good, &from_file, err, sizeof(err)), 0);
	assert_int_equal(
		config_parse(printed, strlen(printed), "printed", &from_print, err, sizeof(err)),
		0);
	assert_memory_equal(&from_file, &from_print, sizeof(from_file));

	/* --default prints the embedded default, which checks clean. */
	run_check_config(res, 2, (char *[]){ "check-config", "--default", NULL });
	assert_int_equal(res->status, 0);
	assert_string_equal(res->out, config_default_yaml);

	run_check_config(res, 2, (char *[]){ "check-config", "--help", NULL });
	assert_int_equal(res->status, 0);
	assert_non_null(strstr(res->out, "Usage: cgperf check-config"));

	/* Usage errors. */
	run_check_config(res, 1, (char *[]){ "check-config", NULL });
	assert_int_equal(res->status, 2);
	assert_non_null(strstr(res->err, "no FILE given"));
	run_check_config(res, 2, (char *[]){ "check-config", "--bogus", NULL });
	assert_int_equal(res->status, 2);
	assert_non_null(strstr(res->err, "unknown option '--bogus'"));
	run_check_config(res, 3, (char *[]){ "check-config", "--default", good, NULL });
	assert_int_equal(res->status, 2);

	/* Odd file names stay on one line. */
	free(quiet);
	quiet = write_file("odd\nname.yaml", full_yaml, strlen(full_yaml));
	run_check_config(res, 2, (char *[]){ "check-config", quiet, NULL });
	assert_int_equal(res->status, 0);
	snprintf(expect, sizeof(expect), "%s/odd\\nname.yaml: OK\n", tmpdir);
	assert_string_equal(res->out, expect);

	/* A missing file is a failure with the reason. */
	run_check_config(res, 2, (char *[]){ "check-config", "/nonexistent/cgperf.yaml", NULL });
	assert_int_equal(res->status, 2);
	assert_string_equal(res->err,
			    "/nonexistent/cgperf.yaml: cannot open: No such file or directory\n");

	free(good);
	free(bad);
	free(quiet);
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_bad_generated),
		cmocka_unit_test(test_name_escaped),
		cmocka_unit_test(test_full_file),
		cmocka_unit_test(test_styles_equivalent),
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_defaults_in_file),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_listen),
		cmocka_unit_test(test_facilities),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_check_config_cmd),
	};
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
