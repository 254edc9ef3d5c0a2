/* What a cgroup is, from its path alone. The layouts are those of the
 * runtimes' cgroup drivers (docs/IDENTITY.md has the table). Matching is
 * strict on purpose: a container id must be exactly 64 lowercase hex digits
 * and a pod uid a Kubernetes UID, so a unit or directory that merely looks
 * similar stays a plain service/scope/other instead of a made-up container.
 * Everything is byte comparisons on the path: odd bytes (spaces, quotes,
 * non-UTF-8) are just bytes that match no pattern. */
#include "cgroup/identity.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Only the end of the path decides: the deepest layout (Kubernetes under a
 * kind prefix) needs kubepods + QoS + pod + container + "container" = 5
 * components; whatever sits above them (kind's node container, a user
 * manager) does not change what the cgroup is. */
#define TAIL_MAX 8
#define CONTAINER_ID_LEN 64

struct component {
	const char *s;
	size_t len;
};

struct path_tail {
	struct component c[TAIL_MAX]; /* the last n components, c[n - 1] is the leaf */
	size_t n;
	bool under_user_manager;      /* some ancestor is user@<uid>.service */
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

static bool comp_contains(struct component c, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= c.len; i++)
		if (memcmp(c.s + i, needle, n) == 0)
			return true;
	return false;
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
static bool parse_pod_uid(struct component c, char sep, char ret_uid[40])
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
 * Path -> tail
 * ------------------------------------------------------------------------- */

static bool is_user_manager(struct component c)
{
	struct component uid;

	if (!comp_has_prefix(c, "user@") || !comp_has_suffix(c, ".service"))
		return false;
	uid = comp_sub(c, strlen("user@"), strlen(".service"));
	if (uid.len == 0)
		return false;
	for (size_t i = 0; i < uid.len; i++)
		if (uid.s[i] < '0' || uid.s[i] > '9')
			return false;
	return true;
}

static void split_tail(const char *path, struct path_tail *ret)
{
	*ret = (struct path_tail){ 0 };
	for (const char *p = path;;) {
		struct component c;

		p += strspn(p, "/");
		c = (struct component){ p, strcspn(p, "/") };
		if (c.len == 0)
			break;
		p += c.len;
		/* The leaf itself being user@N.service is the manager, not
		 * something under it; checked once the walk is done. */
		if (ret->n > 0 && is_user_manager(ret->c[ret->n - 1]))
			ret->under_user_manager = true;
		if (ret->n == TAIL_MAX) {
			memmove(ret->c, ret->c + 1, (TAIL_MAX - 1) * sizeof(ret->c[0]));
			ret->n--;
		}
		ret->c[ret->n++] = c;
	}
}

/* ---------------------------------------------------------------------------
 * Classifiers. Each fills a scratch identity and returns true when the path
 * is its layout; the caller keeps the first that matches.
 * ------------------------------------------------------------------------- */

static void set_runtime(struct cg_identity *id, const char *runtime)
{
	snprintf(id->runtime, sizeof(id->runtime), "%s", runtime);
}

/* What systemd's unit suffix says about the leaf. Container scopes are
 * refined afterwards; this is the answer for everything else. */
static void classify_unit(struct component leaf, struct cg_identity *id)
{
	static const struct {
		const char *suffix;
		enum cg_kind kind;
		bool infrastructure;
	} units[] = {
		{ ".service", CG_KIND_SERVICE, false },
		{ ".slice", CG_KIND_SLICE, false },
		{ ".scope", CG_KIND_OTHER, false },
		{ ".mount", CG_KIND_OTHER, true },
		{ ".socket", CG_KIND_OTHER, true },
		{ ".swap", CG_KIND_OTHER, true },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!comp_has_suffix(leaf, units[i].suffix) || leaf.len == strlen(units[i].suffix))
			continue;
		id->kind = units[i].kind;
		id->infrastructure = units[i].infrastructure || comp_eq(leaf, "init.scope");
		set_runtime(id, "systemd");
		unescape_unit(leaf, id->unit, sizeof(id->unit));
		return;
	}
}

/* kubepods.slice (or kind's kubelet-kubepods.slice: any "<x>-kubepods"
 * slice) for the systemd driver, "kubepods" for cgroupfs. ret_stem is the
 * slice name without ".slice": kubelet names the QoS and pod slices below
 * by appending to it. */
static bool is_kubepods(struct component c, bool *ret_systemd, struct component *ret_stem)
{
	struct component stem;

	if (comp_eq(c, "kubepods")) {
		*ret_systemd = false;
		return true;
	}
	if (!comp_has_suffix(c, ".slice"))
		return false;
	stem = comp_sub(c, 0, strlen(".slice"));
	if (!comp_eq(stem, "kubepods") && !comp_has_suffix(stem, "-kubepods"))
		return false;
	*ret_systemd = true;
	*ret_stem = stem;
	return true;
}

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
			    char ret_uid[40])
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

/* A container directly under a pod. The systemd driver names it
 * "<rt>-<id>.scope" after the runtime; cgroupfs uses the bare id
 * (containerd, docker: the runtime is not in the path) or "crio-<id>". */
static bool match_pod_container(struct component c, bool systemd, struct cg_identity *id)
{
	static const struct {
		const char *prefix, *runtime;
	} systemd_scopes[] = {
		{ "cri-containerd-", "containerd" },
		{ "crio-", "crio" },
		{ "docker-", "docker" },
	};

	if (systemd) {
		for (size_t i = 0; i < sizeof(systemd_scopes) / sizeof(systemd_scopes[0]); i++)
			if (match_prefixed_id(c, systemd_scopes[i].prefix, ".scope", id->container_id)) {
				set_runtime(id, systemd_scopes[i].runtime);
				return true;
			}
		return false;
	}
	if (match_prefixed_id(c, "crio-", "", id->container_id)) {
		set_runtime(id, "crio");
		return true;
	}
	if (match_prefixed_id(c, "", "", id->container_id)) {
		set_runtime(id, "");
		return true;
	}
	return false;
}

/* .../kubepods[.slice]/[<qos>]/pod<uid>/[<container>[/container]].
 * Anything else below kubepods (conmon scopes, unknown children of a pod)
 * is left to the generic rules. */
static bool classify_kubernetes(const struct path_tail *t, struct cg_identity *id)
{
	struct component stem = { "", 0 };
	bool systemd = false;
	size_t k, i;
	char qos[16] = "";

	for (k = t->n; k > 0; k--)
		if (is_kubepods(t->c[k - 1], &systemd, &stem))
			break;
	if (k == 0)
		return false;
	i = k; /* first component below kubepods */
	if (i == t->n)
		return false; /* kubepods itself: a slice or a plain directory */

	if (systemd ? match_qos_slice(t->c[i], stem, qos) : parse_qos(t->c[i], qos)) {
		if (++i == t->n) {
			strcpy(id->qos, qos);
			return true; /* the QoS level: kind from its unit suffix */
		}
	}
	if (systemd) {
		if (!match_pod_slice(t->c[i], stem, qos, id->pod_uid))
			return false;
	} else {
		if (!comp_has_prefix(t->c[i], "pod") ||
		    !parse_pod_uid(comp_sub(t->c[i], 3, 0), '-', id->pod_uid))
			return false;
	}
	strcpy(id->qos, *qos ? qos : "guaranteed");
	if (++i == t->n) {
		id->kind = CG_KIND_POD;
		set_runtime(id, "");
		return true;
	}

	if (!match_pod_container(t->c[i], systemd, id))
		return false;
	id->kind = CG_KIND_CONTAINER;
	id->infrastructure = false;
	/* The scope's unit name, also for its inner "container" cgroup. */
	id->unit[0] = '\0';
	if (systemd)
		unescape_unit(t->c[i], id->unit, sizeof(id->unit));
	if (++i == t->n)
		return true;
	if (i + 1 == t->n && comp_eq(t->c[i], "container")) {
		id->container_inner = true;
		return true;
	}
	return false;
}

/* Runtime scopes outside Kubernetes (and the cgroupfs forms that have a
 * recognisable name). */
static const struct {
	const char *prefix, *suffix, *runtime;
} container_names[] = {
	{ "docker-", ".scope", "docker" },
	{ "cri-containerd-", ".scope", "containerd" },
	{ "crio-", ".scope", "crio" },
	{ "libpod-", ".scope", "podman" },
	{ "nerdctl-", ".scope", "nerdctl" },
	/* cgroupfs cgroup managers of CRI-O and podman */
	{ "crio-", "", "crio" },
	{ "libpod-", "", "podman" },
};

static bool classify_container_leaf(const struct path_tail *t, size_t n, struct cg_identity *id)
{
	struct component leaf = t->c[n - 1];

	for (size_t i = 0; i < sizeof(container_names) / sizeof(container_names[0]); i++)
		if (match_prefixed_id(leaf, container_names[i].prefix, container_names[i].suffix,
				      id->container_id)) {
			set_runtime(id, container_names[i].runtime);
			id->kind = CG_KIND_CONTAINER;
			return true;
		}
	/* Docker's cgroupfs driver: /docker/<id> (also nested, docker in docker). */
	if (n >= 2 && comp_eq(t->c[n - 2], "docker") &&
	    match_prefixed_id(leaf, "", "", id->container_id)) {
		set_runtime(id, "docker");
		id->kind = CG_KIND_CONTAINER;
		return true;
	}
	if (comp_has_prefix(leaf, "lxc.payload.") && leaf.len > strlen("lxc.payload.")) {
		struct component name = comp_sub(leaf, strlen("lxc.payload."), 0);

		snprintf(id->lxc_name, sizeof(id->lxc_name), "%.*s", (int)name.len, name.s);
		set_runtime(id, "lxc");
		id->kind = CG_KIND_CONTAINER;
		/* Container names may end like units ("web.mount"); they are not. */
		id->unit[0] = '\0';
		id->infrastructure = false;
		return true;
	}
	return false;
}

/* Runtime helpers that live next to containers and would otherwise look like
 * containers or plain scopes: conmon (CRI-O, podman), LXC's monitor. */
static bool classify_helper_leaf(struct component leaf, struct cg_identity *id)
{
	static const struct {
		const char *prefix, *runtime;
	} conmons[] = {
		{ "crio-conmon-", "crio" },
		{ "libpod-conmon-", "podman" },
	};

	if (comp_contains(leaf, "-conmon-")) {
		for (size_t i = 0; i < sizeof(conmons) / sizeof(conmons[0]); i++)
			if (match_prefixed_id(leaf, conmons[i].prefix, ".scope", id->container_id)) {
				set_runtime(id, conmons[i].runtime);
				break;
			}
		id->kind = CG_KIND_OTHER;
		id->infrastructure = true;
		return true;
	}
	if (comp_has_prefix(leaf, "lxc.monitor.") || comp_eq(leaf, "lxc.monitor") ||
	    comp_eq(leaf, "lxc.pivot")) {
		set_runtime(id, "lxc");
		id->kind = CG_KIND_OTHER;
		id->infrastructure = true;
		return true;
	}
	return false;
}

/* The first n components of t, classified. Not Kubernetes: that layout is
 * matched as a whole before. */
static void classify_generic(const struct path_tail *t, size_t n, bool allow_inner,
			     struct cg_identity *id)
{
	struct component leaf = t->c[n - 1];

	*id = (struct cg_identity){ 0 };
	classify_unit(leaf, id);
	if (classify_helper_leaf(leaf, id))
		return;
	if (classify_container_leaf(t, n, id))
		return;
	/* crun's inner "container" cgroup: the container one level up. */
	if (allow_inner && n >= 2 && comp_eq(leaf, "container")) {
		struct cg_identity parent;

		classify_generic(t, n - 1, false, &parent);
		if (parent.kind == CG_KIND_CONTAINER) {
			*id = parent;
			id->container_inner = true;
		}
	}
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

int cg_identify(const char *rel_path, struct cg_identity *ret)
{
	struct path_tail t;
	struct cg_identity id = { 0 };

	if (!rel_path || !*rel_path || !ret)
		return -EINVAL;

	split_tail(rel_path, &t);
	if (t.n == 0) {
		*ret = id; /* the root */
		return 0;
	}

	/* Kubernetes first: its containers are scopes like any other runtime's
	 * (docker-<id>.scope), but carry the pod and QoS around them. */
	classify_unit(t.c[t.n - 1], &id);
	if (!classify_kubernetes(&t, &id))
		classify_generic(&t, t.n, true, &id);
	id.rootless = t.under_user_manager;
	*ret = id;
	return 0;
}
