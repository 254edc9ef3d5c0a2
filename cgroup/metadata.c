/* Container and pod names from the runtimes' files on disk. Every source is
 * best effort: a missing, unreadable, oversized or malformed file leaves the
 * fields empty (with a debug line when the file existed) and the caller shows
 * the short id instead. Nothing here fails a lookup.
 *
 * These files belong to root-owned runtime state, but a container's name and
 * labels are chosen by whoever started it. So: no symlinks are followed below
 * a root (a root itself may be a symlink: /var/lib/docker -> /data/docker is
 * common), only regular files are read (a FIFO would block), reads are capped,
 * and values are copied as raw bytes for the writers to escape. */
#include "cgroup/metadata.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"

#define DEFAULT_DOCKER_ROOT "/var/lib/docker"
#define DEFAULT_CONTAINERD_ROOT "/run/containerd/io.containerd.runtime.v2.task"
#define DEFAULT_CRIO_ROOT "/run/containers/storage/overlay-containers"
#define DEFAULT_PODMAN_ROOT "/var/lib/containers/storage/overlay-containers"
#define DEFAULT_POD_LOGS_ROOT "/var/log/pods"

/* containerd namespace directories looked into per lookup; a host has a
 * handful (k8s.io, moby, default). Bounds the work on a strange root. */
#define MAX_CONTAINERD_NAMESPACES 256

/* Each root can be moved through the environment (CGPERF_DOCKER_ROOT, ...):
 * for hosts with non-default runtime directories, and for tests. */
static const char *root_from_env(const char *var, const char *fallback)
{
	const char *v = getenv(var);
	return v ? v : fallback;
}

void metadata_roots_default(struct metadata_roots *ret)
{
	*ret = (struct metadata_roots){
		.docker = root_from_env("CGPERF_DOCKER_ROOT", DEFAULT_DOCKER_ROOT),
		.containerd = root_from_env("CGPERF_CONTAINERD_ROOT", DEFAULT_CONTAINERD_ROOT),
		.crio = root_from_env("CGPERF_CRIO_ROOT", DEFAULT_CRIO_ROOT),
		.podman = root_from_env("CGPERF_PODMAN_ROOT", DEFAULT_PODMAN_ROOT),
		.pod_logs = root_from_env("CGPERF_POD_LOGS_ROOT", DEFAULT_POD_LOGS_ROOT),
	};
}

/* ---------------------------------------------------------------------------
 * Copying values
 * ------------------------------------------------------------------------- */

/* Set dst from src[0..len) unless dst already has a value: sources are tried
 * best first. A value longer than dst is cut, backing up over at most three
 * UTF-8 continuation bytes so the cut never splits a character. */
static void fill_n(char dst[CG_NAME_MAX], const char *src, size_t len)
{
	size_t n = len;

	if (dst[0] || !src || len == 0)
		return;
	if (n > CG_NAME_MAX - 1) {
		n = CG_NAME_MAX - 1;
		for (int back = 0; back < 3 && n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80; back++)
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void fill(char dst[CG_NAME_MAX], const char *src)
{
	if (src)
		fill_n(dst, src, strlen(src));
}

/* ---------------------------------------------------------------------------
 * Reading files below a root
 * ------------------------------------------------------------------------- */

/* Open root/rel without following a symlink anywhere in rel: one component
 * at a time, each with O_NOFOLLOW (a symlink gives ELOOP). openat2's
 * RESOLVE_NO_SYMLINKS would do the same in one call, but is missing on older
 * kernels and refused by older seccomp profiles, and a fallback that only
 * guards the last component would quietly be weaker. rel is built here from
 * validated ids and directory entries; ".." is refused anyway. Returns an
 * fd or a negative errno. */
static int open_below(const char *root, const char *rel, int flags)
{
	int dir_fd, r;

	dir_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return -errno;
	for (const char *p = rel;;) {
		char name[NAME_MAX + 1];
		size_t len;
		bool last;
		int fd;

		p += strspn(p, "/");
		len = strcspn(p, "/");
		if (len == 0 || len > NAME_MAX || (len == 2 && p[0] == '.' && p[1] == '.')) {
			r = -EINVAL;
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		last = p[strspn(p, "/")] == '\0';
		/* O_NONBLOCK: opening a FIFO must not wait for a writer */
		fd = openat(dir_fd, name,
			    last ? flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
				 : O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0) {
			r = -errno;
			break;
		}
		close(dir_fd);
		dir_fd = fd;
		if (last)
			return fd;
	}
	close(dir_fd);
	return r;
}

/* The whole of a regular file, NUL-terminated, if it has at most
 * METADATA_MAX_FILE_BYTES (checked while reading too: the file may grow). */
static int read_capped(int fd, char **ret_buf, size_t *ret_len)
{
	struct stat st;
	size_t size, len = 0;
	char *buf;
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size > (off_t)METADATA_MAX_FILE_BYTES)
		return -EFBIG;

	size = (size_t)st.st_size + 1; /* room to notice growth */
	buf = malloc(size + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == size) {
			char *grown;

			if (size > METADATA_MAX_FILE_BYTES) {
				r = -EFBIG;
				goto fail;
			}
			size = size * 2 > METADATA_MAX_FILE_BYTES + 1 ? METADATA_MAX_FILE_BYTES + 1 : size * 2;
			grown = realloc(buf, size + 1);
			if (!grown) {
				r = -ENOMEM;
				goto fail;
			}
			buf = grown;
		}
		n = read(fd, buf + len, size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret_buf = buf;
	*ret_len = len;
	return 0;
fail:
	free(buf);
	return r;
}

/* Parse root/rel as JSON. A file that is not there is the common case and
 * says nothing; one that is there but unusable gets a debug line. */
static int load_json(const char *root, const char *rel, json_object **ret)
{
	struct json_tokener *tok = NULL;
	enum json_tokener_error jerr;
	json_object *obj;
	char *buf = NULL;
	size_t len = 0;
	int fd, r;

	fd = open_below(root, rel, O_RDONLY);
	if (fd < 0) {
		if (fd != -ENOENT)
			log_debug("metadata: %s/%s: %s, ignored", root, rel,
				  fd == -ELOOP ? "a symlink" : strerror(-fd));
		return fd;
	}
	r = read_capped(fd, &buf, &len);
	close(fd);
	if (r == -EFBIG)
		log_debug("metadata: %s/%s: larger than %u bytes, ignored", root, rel,
			  METADATA_MAX_FILE_BYTES);
	else if (r < 0)
		log_debug("metadata: %s/%s: %s, ignored", root, rel,
			  r == -EINVAL ? "not a regular file" : strerror(-r));
	if (r < 0)
		return r;

	tok = json_tokener_new();
	if (!tok) {
		r = -ENOMEM;
		goto out;
	}
	/* The runtimes write standard JSON (Go's encoding/json). json-c's
	 * lenient extras (trailing commas, single quotes) would only ever
	 * accept a file that was cut or mangled. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	obj = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	if (!obj || jerr != json_tokener_success) {
		const char *why = len == 0 ? "empty" :
				  jerr == json_tokener_continue ? "truncated" :
				  json_tokener_error_desc(jerr);

		log_debug("metadata: %s/%s: not valid JSON (%s), ignored", root, rel, why);
		json_object_put(obj);
		r = -EBADMSG;
		goto out;
	}
	*ret = obj;
	r = 0;
out:
	json_tokener_free(tok);
	free(buf);
	return r;
}

/* ---------------------------------------------------------------------------
 * JSON access that tolerates any shape: a member of the wrong type is absent
 * ------------------------------------------------------------------------- */

static json_object *member_of_type(json_object *obj, const char *key, enum json_type type)
{
	json_object *v;

	if (!obj || !json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

static const char *member_string(json_object *obj, const char *key)
{
	json_object *v = member_of_type(obj, key, json_type_string);

	return v ? json_object_get_string(v) : NULL;
}

/* Kubernetes names as annotations (OCI config.json) or labels (Docker):
 * containerd's CRI keys and CRI-O's/dockershim's are both accepted wherever
 * they appear; the first key present wins. nerdctl names its containers
 * with "nerdctl/name". */
static const char *const container_name_keys[] = {
	"io.kubernetes.container.name", "io.kubernetes.cri.container-name", "nerdctl/name",
};
static const char *const pod_name_keys[] = {
	"io.kubernetes.pod.name", "io.kubernetes.cri.sandbox-name",
};
static const char *const pod_namespace_keys[] = {
	"io.kubernetes.pod.namespace", "io.kubernetes.cri.sandbox-namespace",
};
static const char *const image_keys[] = {
	"io.kubernetes.cri.image-name", "io.kubernetes.cri-o.ImageName",
};

static void fill_first_key(char dst[CG_NAME_MAX], json_object *map, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n && !dst[0]; i++)
		fill(dst, member_string(map, keys[i]));
}

#define FILL_FIRST_KEY(dst, map, keys) fill_first_key(dst, map, keys, sizeof(keys) / sizeof(keys[0]))

static void fill_from_annotations(json_object *map, struct cg_metadata *md)
{
	FILL_FIRST_KEY(md->container_name, map, container_name_keys);
	FILL_FIRST_KEY(md->pod_name, map, pod_name_keys);
	FILL_FIRST_KEY(md->pod_namespace, map, pod_namespace_keys);
	FILL_FIRST_KEY(md->image, map, image_keys);
}

/* ---------------------------------------------------------------------------
 * One function per runtime; each returns true when it found the
 * container's file (even one without names), which ends the search.
 * ------------------------------------------------------------------------- */

/* <root>/containers/<id>/config.v2.json: "Name" ("/web"),
 * "Config": { "Image", "Labels" }. Under Kubernetes (dockershim,
 * cri-dockerd) the labels carry the pod and the container's own name; the
 * Docker name is then a generated k8s_<...> string, so labels go first. */
static bool lookup_docker(const char *root, const char *cid, struct cg_metadata *md)
{
	json_object *obj, *config;
	const char *name;
	char rel[128];

	snprintf(rel, sizeof(rel), "containers/%s/config.v2.json", cid);
	if (load_json(root, rel, &obj) < 0)
		return false;
	config = member_of_type(obj, "Config", json_type_object);
	fill_from_annotations(member_of_type(config, "Labels", json_type_object), md);
	name = member_string(obj, "Name");
	fill(md->container_name, name && name[0] == '/' ? name + 1 : name);
	fill(md->image, member_string(config, "Image"));
	json_object_put(obj);
	return true;
}

/* An OCI config.json's "annotations". */
static bool lookup_oci_bundle(const char *root, const char *rel, struct cg_metadata *md)
{
	json_object *obj;

	if (load_json(root, rel, &obj) < 0)
		return false;
	fill_from_annotations(member_of_type(obj, "annotations", json_type_object), md);
	json_object_put(obj);
	return true;
}

/* <root>/<namespace>/<id>/config.json, in whichever namespace holds it
 * (k8s.io for Kubernetes, default for nerdctl, moby for Docker's). */
static bool lookup_containerd(const char *root, const char *cid, struct cg_metadata *md)
{
	struct dirent *de;
	bool found = false;
	DIR *dir;

	dir = opendir(root);
	if (!dir)
		return false;
	for (int seen = 0; !found && seen < MAX_CONTAINERD_NAMESPACES && (de = readdir(dir)); seen++) {
		char rel[NAME_MAX + 128];

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%s/%s/config.json", de->d_name, cid);
		found = lookup_oci_bundle(root, rel, md);
	}
	closedir(dir);
	return found;
}

/* <root>/<id>/userdata/config.json */
static bool lookup_userdata(const char *root, const char *cid, struct cg_metadata *md)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "%s/userdata/config.json", cid);
	return lookup_oci_bundle(root, rel, md);
}

/* containers/storage's index (<root>/containers.json, and
 * volatile-containers.json for `--rm` containers): [{ "id", "names": [...],
 * "metadata": "<JSON text with image-name, name>" }]. Podman does not put a
 * container's name in its config.json unless it came from `kube play`. */
static void fill_from_storage_index(const char *root, const char *file, const char *cid,
				    struct cg_metadata *md)
{
	json_object *list;
	size_t n;

	if (load_json(root, file, &list) < 0)
		return;
	n = json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(list, i), *names, *meta;
		const char *id = member_string(c, "id"), *meta_text;

		if (!id || strcmp(id, cid) != 0)
			continue;
		names = member_of_type(c, "names", json_type_array);
		if (names && json_object_array_length(names) > 0) {
			json_object *first = json_object_array_get_idx(names, 0);

			if (json_object_is_type(first, json_type_string))
				fill(md->container_name, json_object_get_string(first));
		}
		meta_text = member_string(c, "metadata");
		meta = meta_text ? json_tokener_parse(meta_text) : NULL;
		fill(md->container_name, member_string(meta, "name"));
		fill(md->image, member_string(meta, "image-name"));
		json_object_put(meta);
		break;
	}
	json_object_put(list);
}

static bool lookup_podman(const char *root, const char *cid, struct cg_metadata *md)
{
	bool found = lookup_userdata(root, cid, md);

	if (!md->container_name[0] || !md->image[0]) {
		fill_from_storage_index(root, "containers.json", cid, md);
		fill_from_storage_index(root, "volatile-containers.json", cid, md);
	}
	return found || md->container_name[0];
}

/* <root>/<namespace>_<pod>_<uid>/: kubelet's log directory of a pod.
 * Namespaces and pod names cannot contain '_' (DNS labels/subdomains), so
 * the split is unambiguous. */
static void lookup_pod_logs(const char *root, const char *uid, struct cg_metadata *md)
{
	size_t uid_len = strlen(uid);
	struct dirent *de;
	DIR *dir;

	dir = opendir(root);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		const char *name = de->d_name, *ns_end;
		size_t len = strlen(name), pod_end;

		if (len < uid_len + 4 || strcmp(name + len - uid_len, uid) != 0)
			continue;
		pod_end = len - uid_len - 1;
		if (name[pod_end] != '_')
			continue;
		ns_end = memchr(name, '_', pod_end);
		if (!ns_end || ns_end == name || (size_t)(ns_end - name) + 1 >= pod_end)
			continue;
		fill_n(md->pod_namespace, name, (size_t)(ns_end - name));
		fill_n(md->pod_name, ns_end + 1, pod_end - (size_t)(ns_end - name) - 1);
		break;
	}
	closedir(dir);
}

/* ---------------------------------------------------------------------------
 * Dispatch
 * ------------------------------------------------------------------------- */

static void lookup_container(const struct metadata_roots *roots, const struct cg_identity *id,
			     struct cg_metadata *md)
{
	const struct {
		const char *runtime, *root;
		bool (*lookup)(const char *root, const char *cid, struct cg_metadata *md);
		bool when_runtime_unknown;
	} sources[] = {
		{ "docker", roots->docker, lookup_docker, true },
		{ "containerd", roots->containerd, lookup_containerd, true },
		{ "nerdctl", roots->containerd, lookup_containerd, false },
		{ "crio", roots->crio, lookup_userdata, true },
		{ "podman", roots->podman, lookup_podman, true },
	};

	if (!strcmp(id->runtime, "lxc")) {
		/* LXC's cgroup is named after the container: nothing to read. */
		fill(md->container_name, id->lxc_name);
		snprintf(md->runtime, sizeof(md->runtime), "lxc");
		return;
	}
	if (!id->container_id[0])
		return;
	/* Kubernetes' cgroupfs driver names a container by its bare id: try
	 * every runtime's files (ids are unique across them). */
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		if (id->runtime[0] ? strcmp(id->runtime, sources[i].runtime) != 0
				   : !sources[i].when_runtime_unknown)
			continue;
		if (!sources[i].root[0])
			continue;
		if (sources[i].lookup(sources[i].root, id->container_id, md)) {
			snprintf(md->runtime, sizeof(md->runtime), "%s", sources[i].runtime);
			return;
		}
	}
}

int cg_metadata_lookup(const struct metadata_roots *roots, const struct cg_identity *id,
		       struct cg_metadata *ret)
{
	struct metadata_roots r;
	struct cg_metadata md = { 0 };

	if (!id || !ret)
		return -EINVAL;

	metadata_roots_default(&r);
	if (roots) {
		r.docker = roots->docker ? roots->docker : r.docker;
		r.containerd = roots->containerd ? roots->containerd : r.containerd;
		r.crio = roots->crio ? roots->crio : r.crio;
		r.podman = roots->podman ? roots->podman : r.podman;
		r.pod_logs = roots->pod_logs ? roots->pod_logs : r.pod_logs;
	}

	if (id->kind == CG_KIND_CONTAINER)
		lookup_container(&r, id, &md);
	/* A pod has no file of its own: kubelet's log directory names it, and
	 * the pod of a container whose own files did not. */
	if ((id->kind == CG_KIND_CONTAINER || id->kind == CG_KIND_POD) && id->pod_uid[0] &&
	    (!md.pod_name[0] || !md.pod_namespace[0]) && r.pod_logs[0])
		lookup_pod_logs(r.pod_logs, id->pod_uid, &md);

	*ret = md;
	return 0;
}
