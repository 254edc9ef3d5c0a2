// SPDX-License-Identifier: GPL-2.0-only
/* What a cgroup is, from its path alone. The layouts are those of the
 * runtimes' cgroup drivers (docs/IDENTITY.md has the table), and each is
 * recognised only where its runtime puts it, counted from the configured
 * cgroup root: kubelet's tree at the root (or under kind's kubelet.slice),
 * rootful runtimes at their parents (system.slice, machine.slice, docker,
 * libpod_parent), rootless ones only in their user's manager. Tenants name
 * cgroups freely in delegated subtrees; a layout recognised anywhere would
 * let them pass for a host container or pod (its name, labels, CSV file).
 * Nothing below a container is another container: it is part of that one.
 *
 * Matching is strict too: a container id must be exactly 64 lowercase hex
 * digits and a pod uid a Kubernetes UID. Everything is byte comparisons on
 * the path: odd bytes (spaces, quotes, non-UTF-8) match no pattern. */
#include "cgroup/identity.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Components kept from the root down. The deepest layout, a container in a
 * rootless podman pod, is user.slice/user-N.slice/user@N.service/user.slice/
 * <pod slice>/<container> + "container" = 7; below that only the leaf and
 * the count matter. */
#define PREFIX_MAX 12
#define CONTAINER_ID_LEN 64

struct component {
	const char *s;
	size_t len;
};

struct path_view {
	struct component c[PREFIX_MAX]; /* the first components below the root */
	size_t n; /* all components below the root */
	struct component leaf;
	bool below_root; /* false: outside cgroups.root, nothing is anchored */
};

/* ---------------------------------------------------------------------------
 * Small matchers on one component
 * ------------------------------------------------------------------------- */

static bool comp_eq(struct component c, const char *s)
{
	return c.len == strlen(s) && memcmp(c.s, s, c.len) == 0;
}

static bool comp_has_prefix(struct component c, const char *prefix)
{
	size_t n = strlen(prefix);

	return c.len >= n && memcmp(c.s, prefix, n) == 0;
}

static bool comp_has_suffix(struct component c, const char *suffix)
{
	size_t n = strlen(suffix);

	return c.len >= n && memcmp(c.s + c.len - n, suffix, n) == 0;
}

static struct component comp_sub(struct component c, size_t skip_front, size_t skip_back)
{
	if (skip_front + skip_back > c.len)
		return (struct component){ c.s, 0 };
	return (struct component){ c.s + skip_front, c.len - skip_front - skip_back };
}

/* Lowercase only: runtimes print ids in lowercase, and an uppercase "id" is
 * more likely a name someone chose than a container. */
static bool is_lower_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool is_container_id(struct component c)
{
	return c.len == CONTAINER_ID_LEN && is_lower_hex(c.s, c.len);
}

/* c is exactly prefix + <64 hex> + suffix; the id goes to ret_id. */
static bool match_prefixed_id(struct component c, const char *prefix, const char *suffix,
			      char ret_id[CG_ID_MAX])
{
	struct component id;

	if (!comp_has_prefix(c, prefix) || !comp_has_suffix(c, suffix))
		return false;
	id = comp_sub(c, strlen(prefix), strlen(suffix));
	if (!is_container_id(id))
		return false;
	memcpy(ret_id, id.s, id.len);
	ret_id[id.len] = '\0';
	return true;
}

/* A Kubernetes pod UID as kubelet writes it into cgroup names: a UUID with
 * `sep` between the groups (systemd driver '_', since '-' means nesting in
 * slice names; cgroupfs '-'), or the 32-hex config hash static pods get.
 * Written to ret_uid in the API's form, with dashes. */
static bool parse_pod_uid(struct component c, char sep, char ret_uid[CG_ID_MAX])
{
	static const size_t dash_at[] = { 8, 13, 18, 23 };

	if (c.len == 32) {
		if (!is_lower_hex(c.s, c.len))
			return false;
		memcpy(ret_uid, c.s, c.len);
		ret_uid[c.len] = '\0';
		return true;
	}
	if (c.len != 36)
		return false;
	for (size_t i = 0, d = 0; i < c.len; i++) {
		if (d < 4 && i == dash_at[d]) {
			if (c.s[i] != sep)
				return false;
			ret_uid[i] = '-';
			d++;
		} else {
			if (!is_lower_hex(c.s + i, 1))
				return false;
			ret_uid[i] = c.s[i];
		}
	}
	ret_uid[c.len] = '\0';
	return true;
}

static bool parse_qos(struct component c, char ret_qos[16])
{
	static const char *const classes[] = { "burstable", "besteffort" };

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (comp_eq(c, classes[i])) {
			strcpy(ret_qos, classes[i]);
			return true;
		}
	return false;
}

static int hex_value(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* systemd escapes bytes in unit names as \xNN (most often \x2d for a '-'
 * that is not a nesting separator). \x00 stays as written: it would end the
 * C string. Longer names are cut at dst_len - 1 bytes; real cgroup names are
 * at most 255 bytes, which always fit. */
static void unescape_unit(struct component c, char *dst, size_t dst_len)
{
	size_t w = 0;

	for (size_t i = 0; i < c.len && w + 1 < dst_len; i++) {
		if (c.s[i] == '\\' && i + 3 < c.len && c.s[i + 1] == 'x') {
			int hi = hex_value(c.s[i + 2]), lo = hex_value(c.s[i + 3]);

			if (hi >= 0 && lo >= 0 && (hi | lo) != 0) {
				dst[w++] = (char)(hi << 4 | lo);
				i += 3;
				continue;
			}
		}
		dst[w++] = c.s[i];
	}
	dst[w] = '\0';
}

/* ---------------------------------------------------------------------------
 * Path -> components below the root
 * ------------------------------------------------------------------------- */

static struct component next_component(const char **p)
{
	struct component c;

	*p += strspn(*p, "/");
	c = (struct component){ *p, strcspn(*p, "/") };
	*p += c.len;
	return c;
}

static void split_path(const char *root, const char *path, struct path_view *ret)
{
	const char *p = path, *r = root ? root : "/";

	*ret = (struct path_view){ .below_root = true };
	/* The root's components must be the path's first ones, whole. */
	for (;;) {
		struct component rc = next_component(&r), pc;

		if (rc.len == 0)
			break;
		pc = next_component(&p);
		if (pc.len != rc.len || memcmp(pc.s, rc.s, rc.len) != 0) {
			ret->below_root = false;
			p = path;
			break;
		}
	}
	for (;;) {
		struct component c = next_component(&p);

		if (c.len == 0)
			break;
		if (ret->n < PREFIX_MAX)
			ret->c[ret->n] = c;
		ret->n++;
		ret->leaf = c;
	}
}

/* Component i exists and is kept. */
static bool have(const struct path_view *v, size_t i)
{
	return i < v->n && i < PREFIX_MAX;
}

/* ---------------------------------------------------------------------------
 * What any cgroup is from its own name: systemd units
 * ------------------------------------------------------------------------- */

static void set_runtime(struct cg_identity *id, const char *runtime)
{
	snprintf(id->runtime, sizeof(id->runtime), "%s", runtime);
}

/* What systemd's unit suffix says about a component. This is the answer
 * for every cgroup that is not at a runtime's place. */
static void classify_unit(struct component c, struct cg_identity *id)
{
	static const struct {
		const char *suffix;
		enum cg_kind kind;
		bool infrastructure;
	} units[] = {
		{ ".service", CG_KIND_SERVICE, false }, { ".slice", CG_KIND_SLICE, false },
		{ ".scope", CG_KIND_OTHER, false },	{ ".mount", CG_KIND_OTHER, true },
		{ ".socket", CG_KIND_OTHER, true },	{ ".swap", CG_KIND_OTHER, true },
	};

	*id = (struct cg_identity){ 0 };
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!comp_has_suffix(c, units[i].suffix) || c.len == strlen(units[i].suffix))
			continue;
		id->kind = units[i].kind;
		id->infrastructure = units[i].infrastructure || comp_eq(c, "init.scope");
		set_runtime(id, "systemd");
		unescape_unit(c, id->unit, sizeof(id->unit));
		return;
	}
}

/* ---------------------------------------------------------------------------
 * Layouts. Each matcher looks at the components from index `at` (the first
 * below the root or the user manager) and returns the depth of the deepest
 * level it recognises on this path, with that level's identity in *m; 0
 * when the path is not its layout. The caller decides what a deeper leaf is.
 * ------------------------------------------------------------------------- */

/* A runtime's cgroup directly under its parent: "<prefix><64 hex><suffix>". */
struct scope_layout {
	const char *parent, *prefix, *suffix, *runtime;
	bool infrastructure; /* conmon: the runtime's helper, not the container */
};

static const struct scope_layout host_scopes[] = {
	{ "system.slice", "docker-", ".scope", "docker", false },
	{ "system.slice", "cri-containerd-", ".scope", "containerd", false },
	{ "system.slice", "crio-", ".scope", "crio", false },
	{ "system.slice", "crio-conmon-", ".scope", "crio", true },
	{ "system.slice", "nerdctl-", ".scope", "nerdctl", false },
	{ "machine.slice", "libpod-", ".scope", "podman", false },
	{ "machine.slice", "libpod-conmon-", ".scope", "podman", true },
	/* cgroupfs drivers */
	{ "docker", "", "", "docker", false },
	{ "libpod_parent", "libpod-", "", "podman", false },
	{ "libpod_parent", "libpod-conmon-", "", "podman", true },
};

/* Rootless runtimes put their containers in the user manager's user.slice. */
static const struct scope_layout rootless_scopes[] = {
	{ "user.slice", "docker-", ".scope", "docker", false },
	{ "user.slice", "libpod-", ".scope", "podman", false },
	{ "user.slice", "libpod-conmon-", ".scope", "podman", true },
	{ "user.slice", "nerdctl-", ".scope", "nerdctl", false },
};

/* Podman pods: a cgroup per pod under the parent, its containers in it. */
struct pod_layout {
	const char *parent, *prefix, *suffix, *child_suffix;
};

static const struct pod_layout host_pods[] = {
	{ "machine.slice", "machine-libpod_pod_", ".slice", ".scope" },
	{ "libpod_parent", "", "", "" },
};

static const struct pod_layout rootless_pods[] = {
	{ "user.slice", "user-libpod_pod_", ".slice", ".scope" },
};

/* c is the cgroup of a container (or of conmon, with infrastructure). */
static void set_container(struct component c, const char *runtime, bool infrastructure,
			  struct cg_identity *m, const char id[CG_ID_MAX])
{
	classify_unit(c, m);
	m->kind = infrastructure ? CG_KIND_OTHER : CG_KIND_CONTAINER;
	m->infrastructure = infrastructure;
	set_runtime(m, runtime);
	snprintf(m->container_id, sizeof(m->container_id), "%s", id);
}

/* The container (or conmon) cgroup c named by one of the prefixes. */
static bool match_scope_name(struct component c, const char *prefix, const char *suffix,
			     const char *runtime, bool infrastructure, struct cg_identity *m)
{
	char id[CG_ID_MAX];

	if (!match_prefixed_id(c, prefix, suffix, id))
		return false;
	set_container(c, runtime, infrastructure, m, id);
	return true;
}

static size_t match_scopes(const struct path_view *v, size_t at, const struct scope_layout *t,
			   size_t nt, struct cg_identity *m)
{
	if (!have(v, at + 1))
		return 0;
	for (size_t i = 0; i < nt; i++)
		if (comp_eq(v->c[at], t[i].parent) &&
		    match_scope_name(v->c[at + 1], t[i].prefix, t[i].suffix, t[i].runtime,
				     t[i].infrastructure, m))
			return at + 2;
	return 0;
}

static size_t match_pods(const struct path_view *v, size_t at, const struct pod_layout *t,
			 size_t nt, struct cg_identity *m)
{
	if (!have(v, at + 1))
		return 0;
	for (size_t i = 0; i < nt; i++) {
		char pod_id[CG_ID_MAX];

		if (!comp_eq(v->c[at], t[i].parent) ||
		    !match_prefixed_id(v->c[at + 1], t[i].prefix, t[i].suffix, pod_id))
			continue;
		if (have(v, at + 2) && (match_scope_name(v->c[at + 2], "libpod-", t[i].child_suffix,
							 "podman", false, m) ||
					match_scope_name(v->c[at + 2], "libpod-conmon-",
							 t[i].child_suffix, "podman", true, m))) {
			snprintf(m->pod_uid, sizeof(m->pod_uid), "%s", pod_id);
			return at + 3;
		}
		classify_unit(v->c[at + 1], m);
		m->kind = CG_KIND_POD;
		set_runtime(m, "podman");
		snprintf(m->pod_uid, sizeof(m->pod_uid), "%s", pod_id);
		return at + 2;
	}
	return 0;
}

/* LXC 4+: /lxc.payload.<name>, its monitor and pivot next to it. */
static size_t match_lxc(const struct path_view *v, size_t at, struct cg_identity *m)
{
	struct component c;

	if (!have(v, at))
		return 0;
	c = v->c[at];
	if (comp_has_prefix(c, "lxc.payload.") && c.len > strlen("lxc.payload.")) {
		struct component name = comp_sub(c, strlen("lxc.payload."), 0);

		/* Container names may end like units ("web.mount"); they are not. */
		*m = (struct cg_identity){ .kind = CG_KIND_CONTAINER };
		snprintf(m->lxc_name, sizeof(m->lxc_name), "%.*s", (int)name.len, name.s);
		set_runtime(m, "lxc");
		return at + 1;
	}
	if (comp_has_prefix(c, "lxc.monitor.") || comp_eq(c, "lxc.monitor") ||
	    comp_eq(c, "lxc.pivot")) {
		*m = (struct cg_identity){ .kind = CG_KIND_OTHER, .infrastructure = true };
		set_runtime(m, "lxc");
		return at + 1;
	}
	return 0;
}

/* ---- Kubernetes ---- */

/* "<stem>-<qos>.slice" -> qos. */
static bool match_qos_slice(struct component c, struct component stem, char ret_qos[16])
{
	if (c.len <= stem.len + 1 || memcmp(c.s, stem.s, stem.len) != 0 || c.s[stem.len] != '-' ||
	    !comp_has_suffix(c, ".slice"))
		return false;
	return parse_qos(comp_sub(c, stem.len + 1, strlen(".slice")), ret_qos);
}

/* "<stem>[-<qos>]-pod<uid_with_underscores>.slice" -> uid with dashes.
 * Slice names spell out their whole ancestry, so the prefix must be exactly
 * that of the slices above. */
static bool match_pod_slice(struct component c, struct component stem, const char *qos,
			    char ret_uid[CG_ID_MAX])
{
	char prefix[CG_NAME_MAX + 32];
	int n;

	n = snprintf(prefix, sizeof(prefix), "%.*s%s%s-pod", (int)stem.len, stem.s, *qos ? "-" : "",
		     qos);
	if (n < 0 || (size_t)n >= sizeof(prefix))
		return false;
	if (!comp_has_prefix(c, prefix) || !comp_has_suffix(c, ".slice"))
		return false;
	return parse_pod_uid(comp_sub(c, (size_t)n, strlen(".slice")), '_', ret_uid);
}

/* A container (or CRI-O's conmon) directly under a pod. The systemd driver
 * names it "<rt>-<id>.scope" after the runtime; cgroupfs uses the bare id
 * (containerd, docker: the runtime is not in the path) or "crio-<id>". */
static bool match_pod_container(struct component c, bool systemd, struct cg_identity *m)
{
	static const struct {
		const char *prefix, *runtime;
		bool systemd, infrastructure;
	} names[] = {
		{ "cri-containerd-", "containerd", true, false },
		{ "crio-", "crio", true, false },
		{ "docker-", "docker", true, false },
		{ "crio-conmon-", "crio", true, true },
		{ "crio-", "crio", false, false },
		{ "crio-conmon-", "crio", false, true },
		{ "", "", false, false },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].systemd == systemd &&
		    match_scope_name(c, names[i].prefix, systemd ? ".scope" : "", names[i].runtime,
				     names[i].infrastructure, m))
			return true;
	return false;
}

/* Where kubelet puts its tree: kubepods.slice (systemd driver) or kubepods
 * (cgroupfs) at the root, or below kind's kubelet root (kubelet.slice/
 * kubelet-kubepods.slice, kubelet/kubepods) when cgperf runs in a kind
 * node. Returns the index of the kubepods component, or 0 when there is
 * none; ret_stem is the slice name without ".slice", which kubelet extends
 * to name the slices below. */
static size_t find_kubepods(const struct path_view *v, size_t at, bool *ret_systemd,
			    struct component *ret_stem)
{
	static const struct {
		const char *outer, *kubepods;
		bool systemd;
	} roots[] = {
		{ NULL, "kubepods.slice", true },
		{ NULL, "kubepods", false },
		{ "kubelet.slice", "kubelet-kubepods.slice", true },
		{ "kubelet", "kubepods", false },
	};

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		size_t k = at + (roots[i].outer ? 1 : 0);

		if (!have(v, k) || (roots[i].outer && !comp_eq(v->c[at], roots[i].outer)) ||
		    !comp_eq(v->c[k], roots[i].kubepods))
			continue;
		*ret_systemd = roots[i].systemd;
		*ret_stem = comp_sub(v->c[k], 0, roots[i].systemd ? strlen(".slice") : 0);
		return k + 1;
	}
	return 0;
}

/* kubepods[.slice]/[<qos>]/pod<uid>/<container>. Other children of a pod
 * (unknown runtimes' scopes) are judged on their own names by the caller. */
static size_t match_kubernetes(const struct path_view *v, size_t at, struct cg_identity *m)
{
	struct component stem;
	bool systemd;
	char qos[16] = "", uid[CG_ID_MAX];
	size_t i = find_kubepods(v, at, &systemd, &stem);

	if (i == 0)
		return 0;
	classify_unit(v->c[i - 1], m);
	if (!have(v, i))
		return i;
	if (systemd ? match_qos_slice(v->c[i], stem, qos) : parse_qos(v->c[i], qos)) {
		classify_unit(v->c[i], m);
		strcpy(m->qos, qos);
		if (!have(v, ++i))
			return i;
	}
	if (systemd ? !match_pod_slice(v->c[i], stem, qos, uid)
		    : !comp_has_prefix(v->c[i], "pod") ||
			      !parse_pod_uid(comp_sub(v->c[i], 3, 0), '-', uid))
		return i; /* the deepest level recognised is the one above */
	classify_unit(v->c[i], m);
	m->kind = CG_KIND_POD;
	m->runtime[0] = '\0';
	strcpy(m->pod_uid, uid);
	strcpy(m->qos, *qos ? qos : "guaranteed");
	if (!have(v, ++i) || !match_pod_container(v->c[i], systemd, m))
		return i;
	strcpy(m->pod_uid, uid);
	strcpy(m->qos, *qos ? qos : "guaranteed");
	return i + 1;
}

/* user.slice/user-<uid>.slice/user@<uid>.service: systemd's place for a
 * user's manager, the same uid in all three. Returns the index below it. */
static size_t match_user_manager(const struct path_view *v, unsigned *ret_uid)
{
	char slice[32], manager[32];
	struct component uid;
	unsigned long n = 0;

	if (!have(v, 2) || !comp_eq(v->c[0], "user.slice") || !comp_has_prefix(v->c[2], "user@") ||
	    !comp_has_suffix(v->c[2], ".service"))
		return 0;
	uid = comp_sub(v->c[2], strlen("user@"), strlen(".service"));
	if (uid.len == 0 || uid.len > 10 || (uid.s[0] == '0' && uid.len > 1))
		return 0;
	for (size_t i = 0; i < uid.len; i++) {
		if (uid.s[i] < '0' || uid.s[i] > '9')
			return 0;
		n = n * 10 + (unsigned long)(uid.s[i] - '0');
	}
	if (n > 0xfffffffeUL)
		return 0;
	snprintf(slice, sizeof(slice), "user-%lu.slice", n);
	snprintf(manager, sizeof(manager), "user@%lu.service", n);
	if (!comp_eq(v->c[1], slice) || !comp_eq(v->c[2], manager))
		return 0;
	*ret_uid = (unsigned)n;
	return 3;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The deepest recognised level on the path and its identity (0: none). */
static size_t match_layouts(const struct path_view *v, bool *ret_rootless, unsigned *ret_uid,
			    struct cg_identity *m)
{
	size_t at = match_user_manager(v, ret_uid), k;

	*ret_rootless = at > 0 && v->n > at;
	if (*ret_rootless) {
		k = match_scopes(v, at, rootless_scopes, N(rootless_scopes), m);
		return k ? k : match_pods(v, at, rootless_pods, N(rootless_pods), m);
	}
	if ((k = match_kubernetes(v, 0, m)) ||
	    (k = match_scopes(v, 0, host_scopes, N(host_scopes), m)) ||
	    (k = match_pods(v, 0, host_pods, N(host_pods), m)))
		return k;
	return match_lxc(v, 0, m);
}

const char *cg_kind_name(enum cg_kind k)
{
	switch (k) {
	case CG_KIND_CONTAINER:
		return "container";
	case CG_KIND_POD:
		return "pod";
	case CG_KIND_SERVICE:
		return "service";
	case CG_KIND_SLICE:
		return "slice";
	case CG_KIND_OTHER:
		break;
	}
	return "other";
}

int cg_identify_at(const char *root, const char *rel_path, struct cg_identity *ret)
{
	struct path_view v;
	struct cg_identity id, m;
	bool rootless = false;
	unsigned uid = 0;
	size_t k = 0;

	if (!rel_path || !*rel_path || !ret)
		return -EINVAL;

	split_path(root, rel_path, &v);
	if (v.n == 0) {
		*ret = (struct cg_identity){ 0 }; /* the root */
		return 0;
	}
	classify_unit(v.leaf, &id);
	if (v.below_root)
		k = match_layouts(&v, &rootless, &uid, &m);
	if (k == v.n) {
		id = m;
	} else if (k > 0 && m.kind == CG_KIND_CONTAINER) {
		/* crun's inner cgroup is the container's payload; anything
		 * else below is the container's own business. */
		if (k + 1 == v.n && comp_eq(v.leaf, "container")) {
			id = m;
			id.container_inner = true;
		} else {
			id.nested = true;
		}
	}
	id.rootless = rootless;
	id.uid = rootless ? uid : 0;
	*ret = id;
	return 0;
}

int cg_identify(const char *rel_path, struct cg_identity *ret)
{
	return cg_identify_at("/", rel_path, ret);
}

/* path is the root or one of its ancestors (both normalised). */
static bool is_root_or_above(const char *root, const char *path)
{
	size_t n = strlen(path);

	if (strcmp(path, "/") == 0)
		return true;
	return strncmp(root, path, n) == 0 && (root[n] == '\0' || root[n] == '/');
}

bool cg_may_hold_host_containers(const char *root, const char *rel_path)
{
	static const char *const parents[] = { "system.slice",	"machine.slice",  "docker",
					       "libpod_parent", "kubepods.slice", "kubepods",
					       "kubelet.slice", "kubelet" };
	struct cg_identity m;
	struct path_view v;

	if (!rel_path || is_root_or_above(root ? root : "/", rel_path))
		return true;
	split_path(root, rel_path, &v);
	if (!v.below_root)
		return false;
	for (size_t i = 0; v.n == 1 && i < N(parents); i++)
		if (comp_eq(v.c[0], parents[i]))
			return true;
	/* kubelet's levels above its pods (kubepods, QoS), and pods. */
	return match_kubernetes(&v, 0, &m) == v.n && m.kind != CG_KIND_CONTAINER;
}
