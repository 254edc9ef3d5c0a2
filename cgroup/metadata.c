// SPDX-License-Identifier: GPL-2.0-only
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
#include "cgroup/metadata_parse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/log.h"
#include "util/mountinfo.h"

/* containerd namespace directories looked into per lookup; a host has a
 * handful (k8s.io, moby, default). Bounds the work on a strange root. */
#define MAX_CONTAINERD_NAMESPACES 256
/* json-c's own cost of a kept entry beyond its strings (object, hash entry,
 * key copy), an estimate for the budget. */
#define ENTRY_OVERHEAD 160
/* Pod records in bolt_state.db: nesting a pod's config never reaches, and
 * the most bytes one record is parsed over. Scanning costs at most depth x
 * the file (below). */
#define POD_DB_DEPTH 8
#define POD_RECORD_MAX 65536

void metadata_roots_default(struct metadata_roots *ret)
{
#define DEFAULT(field, default_root, per_user) .field = default_root,
	*ret = (struct metadata_roots){ METADATA_ROOT_FIELDS(DEFAULT) };
#undef DEFAULT
}

/* Where a source's files are read, and for a rootless user's storage, whose
 * they must be: that user can put anything in it, including hard links to
 * other users' files (or root's, where protected_hardlinks is off). */
struct place {
	const char *root;
	/* A rootless user's storage: root's first base_len bytes are the
	 * user's base directory (the component the template's %h or %u ends
	 * in); below it, no FUSE or network mount is entered (check_mounts). */
	size_t base_len;
	bool check_owner;
	uid_t owner;
	struct metadata_cache *cache;
	const struct metadata_roots *labels; /* whose label_keys to read; NULL: none */
	bool kubernetes; /* a Kubernetes container (its path has a pod) */
};

/* ---------------------------------------------------------------------------
 * Copying values
 * ------------------------------------------------------------------------- */

/* Set dst (size bytes) from src[0..len) unless dst already has a value:
 * sources are tried best first. A value longer than dst is cut, backing up
 * over at most three UTF-8 continuation bytes so the cut never splits a
 * character. */
static void fill_cut(char *dst, size_t size, const char *src, size_t len)
{
	size_t n = len;

	if (dst[0] || !src || len == 0)
		return;
	if (n > size - 1) {
		n = size - 1;
		for (int back = 0; back < 3 && n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80;
		     back++)
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void fill_n(char dst[CG_NAME_MAX], const char *src, size_t len)
{
	fill_cut(dst, CG_NAME_MAX, src, len);
}

static void fill(char dst[CG_NAME_MAX], const char *src)
{
	if (src)
		fill_n(dst, src, strlen(src));
}

/* ---------------------------------------------------------------------------
 * Reading files below a root
 * ------------------------------------------------------------------------- */

/* Filesystems a lookup must not enter under a tenant's storage: a read there
 * can block for as long as a FUSE daemon (the tenant's own, where the admin
 * allowed user_allow_other) or a network server wants, uninterruptibly: the
 * lookup thread could never end, nor the process exit. */
static bool fstype_may_block(const char *t)
{
	static const char *const remote[] = { "nfs",  "nfs4",	   "cifs",   "smb3", "smbfs",
					      "ceph", "glusterfs", "lustre", "afs",  "ncpfs" };

	if (strncmp(t, "fuse", 4) == 0)
		return true;
	for (size_t i = 0; i < sizeof(remote) / sizeof(remote[0]); i++)
		if (strcmp(t, remote[i]) == 0)
			return true;
	return false;
}

/* fd is where a walk below a tenant's base arrived; dev the filesystem it
 * came from (0: the base itself). A different filesystem is looked up in
 * mountinfo and refused (-EXDEV) if it may block. statx with no fields and
 * AT_STATX_DONT_SYNC asks the filesystem nothing: a FUSE daemon never sees
 * it, so this check cannot block where entering would. */
static int check_mount(const struct place *pl, int fd, dev_t *dev)
{
	static struct log_ratelimit rl;
	struct statx stx;
	char type[64];
	dev_t here;
	int r;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, 0, &stx) < 0)
		return -errno;
	here = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	if (*dev && here == *dev)
		return 0;
	r = mountinfo_fstype_of(here, type, sizeof(type));
	if (r < 0 || fstype_may_block(type)) {
		log_ratelimited(
			&rl, 60, LOG_LVL_WARN,
			"metadata: %s (user %u's storage) is on %s: not entered (a read there "
			"could block for good); their containers get no names",
			log_name(pl->root), (unsigned)pl->owner,
			r < 0 ? "an unknown filesystem" : type);
		return -EXDEV;
	}
	*dev = here;
	return 0;
}

/* path_fd (O_PATH) opened again with flags, through /proc: the very inode,
 * whatever has been put in its place since. -ENOENT without /proc. */
static int reopen(int path_fd, int flags)
{
	char proc_path[32];
	int fd;

	snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", path_fd);
	fd = open(proc_path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Open root/rel without following a symlink anywhere in rel: one component
 * at a time, each with O_NOFOLLOW (a symlink gives ELOOP). openat2's
 * RESOLVE_NO_SYMLINKS would do the same in one call, but is missing on older
 * kernels and refused by older seccomp profiles, and a fallback that only
 * guards the last component would quietly be weaker. rel is built here from
 * validated ids and directory entries; ".." is refused anyway. Below a
 * tenant's base, the walk starts at the base and every component is opened
 * O_PATH and checked (check_mount) before anything below it is looked up.
 * Returns an fd or a negative errno. */
static int open_below(const struct place *pl, const char *rel, int flags)
{
	char base[PATH_MAX], walk[PATH_MAX];
	bool checked = pl->base_len > 0;
	dev_t dev = 0;
	int dir_fd, r;

	if (checked) {
		if (pl->base_len >= sizeof(base) ||
		    snprintf(walk, sizeof(walk), "%s/%s", pl->root + pl->base_len, rel) >=
			    (int)sizeof(walk))
			return -ENAMETOOLONG;
		memcpy(base, pl->root, pl->base_len);
		base[pl->base_len] = '\0';
		dir_fd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dir_fd < 0)
			return -errno;
		r = check_mount(pl, dir_fd, &dev);
		if (r < 0) {
			close(dir_fd);
			return r;
		}
		rel = walk;
	} else {
		dir_fd = open(pl->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dir_fd < 0)
			return -errno;
	}
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
		if (checked && (!last || flags != O_PATH)) {
			/* Looked at first: opening for real could enter it. */
			fd = openat(dir_fd, name,
				    O_PATH | O_CLOEXEC | O_NOFOLLOW | (last ? 0 : O_DIRECTORY));
			r = fd < 0 ? -errno : check_mount(pl, fd, &dev);
			if (r == 0 && last) {
				/* The inode looked at, not what may be mounted on it since. */
				int again = reopen(fd, flags);

				close(fd);
				fd = again;
				r = fd < 0 ? fd : 0;
			}
		} else {
			fd = openat(dir_fd, name,
				    last ? flags | O_CLOEXEC | O_NOFOLLOW
					 : O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			r = fd < 0 ? -errno : checked ? check_mount(pl, fd, &dev) : 0;
		}
		if (r < 0) {
			if (fd >= 0)
				close(fd);
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

/* root/rel opened for reading if it is a regular file (st: its fstat).
 * Whatever stands there is first opened with O_PATH and looked at: opening
 * a FIFO could wait for a writer and opening a device has its driver's side
 * effects (a tape rewinds, a tty becomes ours). The regular file is then
 * opened through that very inode, so nothing can be swapped in between.
 * -ELOOP for a symlink, -EINVAL for anything else that is not a file. */
static int open_regular_below(const struct place *pl, const char *rel, struct stat *st)
{
	int path_fd, fd;

	path_fd = open_below(pl, rel, O_PATH);
	if (path_fd < 0)
		return path_fd;
	fd = fstat(path_fd, st) < 0  ? -errno
	     : S_ISLNK(st->st_mode)  ? -ELOOP
	     : !S_ISREG(st->st_mode) ? -EINVAL
				     : 0;
	if (fd == 0) {
		/* O_NONBLOCK: a write lease the file's owner holds (F_SETLEASE)
		 * would make a plain open wait for its break (lease-break-time,
		 * 45 s), again after each lease the owner takes anew. */
		fd = reopen(path_fd, O_RDONLY | O_NONBLOCK | O_NOCTTY);
		if (fd == -ENOENT) {
			/* No /proc here (a chroot): open by name again, and keep
			 * it only if it is the inode looked at. */
			struct stat again;

			fd = open_below(pl, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
			if (fd >= 0 && (fstat(fd, &again) < 0 || again.st_dev != st->st_dev ||
					again.st_ino != st->st_ino)) {
				close(fd);
				fd = -ESTALE;
			}
		}
	}
	close(path_fd);
	return fd;
}

/* pl's root for listing: opened like a file below it (a tenant's root
 * through the checked walk). NULL if it cannot be. */
static DIR *opendir_below(const struct place *pl)
{
	int fd;
	DIR *d;

	if (!pl->base_len)
		return opendir(pl->root);
	fd = open_below(pl, ".", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

/* The whole of a regular file, NUL-terminated, if it has at most cap bytes
 * (checked while reading too: the file may grow). st is the file's fstat. */
static int read_capped(int fd, const struct stat *st, size_t cap, char **ret_buf, size_t *ret_len)
{
	size_t size, len = 0;
	char *buf;
	int r;

	if (st->st_size > (off_t)cap)
		return -EFBIG;

	size = (size_t)st->st_size + 1; /* room to notice growth */
	buf = malloc(size + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == size) {
			char *grown;

			if (size > cap) {
				r = -EFBIG;
				goto fail;
			}
			size = size * 2 > cap + 1 ? cap + 1 : size * 2;
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

/* Parse buf as strict JSON. The runtimes write standard JSON (Go's
 * encoding/json); json-c's lenient extras (trailing commas, single quotes)
 * would only ever accept a file that was cut or mangled. */
static int parse_json(const char *buf, size_t len, json_object **ret, const char **ret_why)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error jerr;
	json_object *obj;

	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	obj = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (!obj || jerr != json_tokener_success) {
		*ret_why = len == 0			   ? "empty"
			   : jerr == json_tokener_continue ? "truncated"
							   : json_tokener_error_desc(jerr);
		json_object_put(obj);
		return -EBADMSG;
	}
	*ret = obj;
	return 0;
}

/* How a file becomes the object a lookup uses: the JSON itself, or an
 * index built from it once (and cached, at *ret_cost estimated bytes). */
struct file_kind {
	size_t cap;
	int (*parse)(const char *buf, size_t len, json_object **ret, const char **ret_why,
		     struct metadata_parse_cost *ret_cost);
	bool cached;
};

static int parse_json_file(const char *buf, size_t len, json_object **ret, const char **ret_why,
			   struct metadata_parse_cost *ret_cost)
{
	*ret_cost = (struct metadata_parse_cost){ .parsed = len, .kept = len };
	return parse_json(buf, len, ret, ret_why);
}

static const struct file_kind json_file = { METADATA_MAX_FILE_BYTES, parse_json_file, false };

/* ---- the cache ---- */

struct cache_entry {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	off_t size;
	const struct file_kind *kind;
	json_object *obj; /* the index (NULL and not over_budget: a free slot) */
	bool over_budget; /* this version's index is over the budget: no object */
	size_t cost;
	unsigned long long used;
};

struct metadata_cache {
	struct cache_entry e[METADATA_CACHE_SLOTS];
	unsigned long long clock;
	size_t cost; /* of all entries, at most METADATA_CACHE_BUDGET_BYTES */
	struct metadata_cache_stats stats;
	/* A tenant who rewrites an index over the budget again and again
	 * gets a warning a minute, not one per version. */
	struct log_ratelimit over_budget_rl;
};

int metadata_cache_new(struct metadata_cache **ret)
{
	struct metadata_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	*ret = c;
	return 0;
}

void metadata_cache_free(struct metadata_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < METADATA_CACHE_SLOTS; i++)
		json_object_put(c->e[i].obj);
	free(c);
}

void metadata_cache_get_stats(const struct metadata_cache *c, struct metadata_cache_stats *ret)
{
	*ret = c ? c->stats : (struct metadata_cache_stats){ 0 };
	ret->kept = c ? c->cost : 0;
}

static bool in_use(const struct cache_entry *e)
{
	return e->obj || e->over_budget;
}

static bool same_version(const struct cache_entry *e, const struct stat *st,
			 const struct file_kind *k)
{
	return in_use(e) && e->kind == k && e->dev == st->st_dev && e->ino == st->st_ino &&
	       e->size == st->st_size && e->mtime.tv_sec == st->st_mtim.tv_sec &&
	       e->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* This version of the file in the cache: 0 and a new reference to its index,
 * -E2BIG when its index is known to be over the budget, -ENOENT when it is
 * not there. */
static int cache_get(struct metadata_cache *c, const struct stat *st, const struct file_kind *k,
		     json_object **ret)
{
	for (size_t i = 0; c && i < METADATA_CACHE_SLOTS; i++) {
		struct cache_entry *e = &c->e[i];

		if (!same_version(e, st, k))
			continue;
		e->used = ++c->clock;
		if (e->over_budget) {
			c->stats.over_budget++;
			return -E2BIG;
		}
		c->stats.hits++;
		*ret = json_object_get(e->obj);
		return 0;
	}
	return -ENOENT;
}

static void cache_drop(struct metadata_cache *c, struct cache_entry *e)
{
	json_object_put(e->obj);
	c->cost -= e->cost;
	*e = (struct cache_entry){ 0 };
}

/* The least recently used entry; with_index: among those holding an index
 * (what frees bytes of the budget). */
static struct cache_entry *cache_lru(struct metadata_cache *c, bool with_index)
{
	struct cache_entry *lru = NULL;

	for (size_t i = 0; i < METADATA_CACHE_SLOTS; i++) {
		struct cache_entry *e = &c->e[i];

		if (in_use(e) && (e->obj || !with_index) && (!lru || e->used < lru->used))
			lru = e;
	}
	return lru;
}

/* A free slot for a new version of st's file costing cost bytes: the older
 * version dropped, then the least recently used entries while the budget
 * or the slots are full. */
static struct cache_entry *cache_slot(struct metadata_cache *c, const struct stat *st, size_t cost)
{
	struct cache_entry *slot = NULL;

	for (size_t i = 0; i < METADATA_CACHE_SLOTS; i++)
		if (in_use(&c->e[i]) && c->e[i].dev == st->st_dev && c->e[i].ino == st->st_ino)
			cache_drop(c, &c->e[i]);
	while (c->cost + cost > METADATA_CACHE_BUDGET_BYTES) {
		cache_drop(c, cache_lru(c, true));
		c->stats.evictions++;
	}
	for (size_t i = 0; i < METADATA_CACHE_SLOTS && !slot; i++)
		if (!in_use(&c->e[i]))
			slot = &c->e[i];
	if (!slot) {
		slot = cache_lru(c, false);
		cache_drop(c, slot);
		c->stats.evictions++;
	}
	return slot;
}

/* Keep obj for this version of the file; if it alone is over the budget,
 * keep only that verdict, so the file is not parsed again until it
 * changes. */
static void cache_put(struct metadata_cache *c, const struct stat *st, const struct file_kind *k,
		      json_object *obj, size_t cost)
{
	bool over = cost > METADATA_CACHE_BUDGET_BYTES;
	struct cache_entry *e;

	if (!c)
		return;
	e = cache_slot(c, st, over ? 0 : cost);
	*e = (struct cache_entry){
		.dev = st->st_dev,
		.ino = st->st_ino,
		.mtime = st->st_mtim,
		.size = st->st_size,
		.kind = k,
		.obj = over ? NULL : json_object_get(obj),
		.over_budget = over,
		.cost = over ? 0 : cost,
		.used = ++c->clock,
	};
	c->cost += e->cost;
}

/* Parse a file read whole; of a cached kind, keep its index (or the verdict
 * that it is over the budget). -E2BIG for an index over the budget, said in
 * a warning when found (a debug line without a cache: then every lookup
 * parses it again). */
static int parse_and_keep(const struct place *pl, const char *rel, const struct stat *st,
			  const struct file_kind *k, const char *buf, size_t len, json_object **ret,
			  const char **ret_why)
{
	struct metadata_parse_cost cost;
	struct metadata_cache *c = pl->cache;
	json_object *obj;
	int r = k->parse(buf, len, &obj, ret_why, &cost);

	if (r < 0 || !k->cached) {
		if (r == 0)
			*ret = obj;
		return r;
	}
	cache_put(c, st, k, obj, cost.kept);
	if (c)
		c->stats.parses++;
	if (cost.kept <= METADATA_CACHE_BUDGET_BYTES) {
		*ret = obj;
		return 0;
	}
	json_object_put(obj);
	if (c) {
		c->stats.over_budget++;
		log_ratelimited(&c->over_budget_rl, 60, LOG_LVL_WARN,
				"metadata: %s/%s: its index would keep %zu MiB, more than the %u "
				"MiB of the cache: no names from it until it changes",
				log_name(pl->root), log_name(rel), cost.kept >> 20,
				METADATA_CACHE_BUDGET_BYTES >> 20);
	} else {
		log_debug("metadata: %s/%s: its index would keep %zu MiB, more than %u MiB, "
			  "ignored",
			  log_name(pl->root), log_name(rel), cost.kept >> 20,
			  METADATA_CACHE_BUDGET_BYTES >> 20);
	}
	return -E2BIG;
}

/* root/rel as the object of its kind. A file that is not there is the
 * common case and says nothing; one that is there but unusable gets a
 * debug line (an index over the cache's budget a warning, once). */
static int load_file(const struct place *pl, const char *rel, const struct file_kind *k,
		     json_object **ret)
{
	const char *why = NULL;
	json_object *obj = NULL;
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int fd, r;

	fd = open_regular_below(pl, rel, &st);
	if (fd < 0) {
		if (fd != -ENOENT)
			log_debug("metadata: %s/%s: %s, ignored", log_name(pl->root), log_name(rel),
				  fd == -ELOOP	  ? "a symlink"
				  : fd == -EINVAL ? "not a regular file"
						  : strerror(-fd));
		return fd;
	}
	r = pl->check_owner && st.st_uid != pl->owner ? -EPERM : 0;
	if (r == 0 && k->cached) {
		r = cache_get(pl->cache, &st, k, &obj);
		if (r != -ENOENT) {
			/* kept, or known to be over the budget (said when found) */
			close(fd);
			if (r == 0)
				*ret = obj;
			return r;
		}
		r = 0;
	}
	if (r == 0)
		r = read_capped(fd, &st, k->cap, &buf, &len);
	close(fd);
	if (r == 0) {
		r = parse_and_keep(pl, rel, &st, k, buf, len, &obj, &why);
		free(buf);
	}
	if (r == -EFBIG)
		log_debug("metadata: %s/%s: larger than %zu bytes, ignored", log_name(pl->root),
			  log_name(rel), k->cap);
	else if (r == -EPERM)
		log_debug("metadata: %s/%s: not owned by uid %u, ignored", log_name(pl->root),
			  log_name(rel), (unsigned)pl->owner);
	else if (r == -EBADMSG)
		log_debug("metadata: %s/%s: not valid JSON (%s), ignored", log_name(pl->root),
			  log_name(rel), why);
	else if (r < 0 && r != -E2BIG)
		log_debug("metadata: %s/%s: %s, ignored", log_name(pl->root), log_name(rel),
			  strerror(-r));
	if (r < 0)
		return r;
	*ret = obj;
	return 0;
}

static int load_json(const struct place *pl, const char *rel, json_object **ret)
{
	return load_file(pl, rel, &json_file, ret);
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
	"io.kubernetes.container.name",
	"io.kubernetes.cri.container-name",
	"nerdctl/name",
};
static const char *const pod_name_keys[] = {
	"io.kubernetes.pod.name",
	"io.kubernetes.cri.sandbox-name",
};
static const char *const pod_namespace_keys[] = {
	"io.kubernetes.pod.namespace",
	"io.kubernetes.cri.sandbox-namespace",
};
static const char *const image_keys[] = {
	"io.kubernetes.cri.image-name",
	"io.kubernetes.cri-o.ImageName",
};

static void fill_first_key(char dst[CG_NAME_MAX], json_object *map, const char *const *keys,
			   size_t n)
{
	for (size_t i = 0; i < n && !dst[0]; i++)
		fill(dst, member_string(map, keys[i]));
}

#define FILL_FIRST_KEY(dst, map, keys) \
	fill_first_key(dst, map, keys, sizeof(keys) / sizeof(keys[0]))

static void fill_from_annotations(json_object *map, struct cg_metadata *md)
{
	FILL_FIRST_KEY(md->container_name, map, container_name_keys);
	FILL_FIRST_KEY(md->pod_name, map, pod_name_keys);
	FILL_FIRST_KEY(md->pod_namespace, map, pod_namespace_keys);
	FILL_FIRST_KEY(md->image, map, image_keys);
}

/* The allow-listed labels found in map (Docker's Config.Labels, an OCI
 * bundle's annotations): only the keys asked for are read, whatever the
 * tenant put there. */
static void fill_labels(json_object *map, const struct metadata_roots *keys, struct cg_metadata *md)
{
	for (int i = 0; keys && i < keys->nr_label_keys; i++) {
		const char *v = member_string(map, keys->label_keys[i]);

		if (v)
			fill_cut(md->labels[i], METADATA_LABEL_MAX, v, strlen(v));
	}
}

/* The Kubernetes keys cAdvisor users select by, where the runtime's files
 * spell them otherwise (containerd's and CRI-O's annotations): from the
 * names found for a Kubernetes container. */
static void fill_kubernetes_labels(const struct metadata_roots *keys, struct cg_metadata *md)
{
	static const struct {
		const char *key;
		size_t offset;
	} k8s[] = {
		{ "io.kubernetes.pod.name", offsetof(struct cg_metadata, pod_name) },
		{ "io.kubernetes.pod.namespace", offsetof(struct cg_metadata, pod_namespace) },
		{ "io.kubernetes.container.name", offsetof(struct cg_metadata, container_name) },
	};

	for (int i = 0; keys && i < keys->nr_label_keys; i++)
		for (size_t j = 0; j < sizeof(k8s) / sizeof(k8s[0]); j++)
			if (!strcmp(keys->label_keys[i], k8s[j].key)) {
				const char *v = (const char *)md + k8s[j].offset;

				fill_cut(md->labels[i], METADATA_LABEL_MAX, v, strlen(v));
			}
}

/* ---------------------------------------------------------------------------
 * One function per runtime; each returns true when it found the
 * container's file (even one without names), which ends the search.
 * ------------------------------------------------------------------------- */

/* <root>/containers/<id>/config.v2.json: "Name" ("/web"),
 * "Config": { "Image", "Labels" }. Under Kubernetes (dockershim,
 * cri-dockerd: the cgroup path says so) the labels carry the pod and the
 * container's own name; the Docker name is then a generated k8s_<...>
 * string, so labels go first there. Elsewhere Docker's own Name and Image
 * do: labels are anyone's to set (an image's LABEL lines too), and a
 * label must not rename a container. */
static void fill_from_docker_config(json_object *obj, const struct metadata_roots *keys,
				    bool kubernetes, struct cg_metadata *md)
{
	json_object *config = member_of_type(obj, "Config", json_type_object);
	json_object *labels = member_of_type(config, "Labels", json_type_object);
	const char *name = member_string(obj, "Name");

	if (!kubernetes) {
		fill(md->container_name, name && name[0] == '/' ? name + 1 : name);
		fill(md->image, member_string(config, "Image"));
	}
	fill_from_annotations(labels, md);
	fill_labels(labels, keys, md);
	fill(md->container_name, name && name[0] == '/' ? name + 1 : name);
	fill(md->image, member_string(config, "Image"));
}

static bool lookup_docker(const struct place *pl, const char *cid, struct cg_metadata *md)
{
	json_object *obj;
	char rel[128];

	snprintf(rel, sizeof(rel), "containers/%s/config.v2.json", cid);
	if (load_json(pl, rel, &obj) < 0)
		return false;
	fill_from_docker_config(obj, pl->labels, pl->kubernetes, md);
	json_object_put(obj);
	return true;
}

/* An OCI config.json's "annotations". */
static void fill_from_oci_config(json_object *obj, const struct metadata_roots *keys,
				 struct cg_metadata *md)
{
	json_object *annotations = member_of_type(obj, "annotations", json_type_object);

	fill_from_annotations(annotations, md);
	fill_labels(annotations, keys, md);
}

static bool lookup_oci_bundle(const struct place *pl, const char *rel, struct cg_metadata *md)
{
	json_object *obj;

	if (load_json(pl, rel, &obj) < 0)
		return false;
	fill_from_oci_config(obj, pl->labels, md);
	json_object_put(obj);
	return true;
}

/* <root>/<namespace>/<id>/config.json, in whichever namespace holds it
 * (k8s.io for Kubernetes, default for nerdctl, moby for Docker's). */
static bool lookup_containerd(const struct place *pl, const char *cid, struct cg_metadata *md)
{
	struct dirent *de;
	bool found = false;
	DIR *dir;

	dir = opendir_below(pl);
	if (!dir)
		return false;
	for (int seen = 0; !found && seen < MAX_CONTAINERD_NAMESPACES && (de = readdir(dir));
	     seen++) {
		char rel[NAME_MAX + 128];

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%s/%s/config.json", de->d_name, cid);
		found = lookup_oci_bundle(pl, rel, md);
	}
	closedir(dir);
	return found;
}

/* <root>/<id>/userdata/config.json */
static bool lookup_crio(const struct place *pl, const char *cid, struct cg_metadata *md)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "%s/userdata/config.json", cid);
	return lookup_oci_bundle(pl, rel, md);
}

/* Add id -> value to an index (kept), unless id is not one a lookup can
 * ask for (longer than an id) or the value is empty. Values were cut to
 * what a field holds: a tenant's megabyte of name is not kept. */
static void index_add(json_object *by_id, const char *id, json_object *value, size_t value_len,
		      struct metadata_parse_cost *cost)
{
	size_t id_len = id ? strlen(id) : 0;

	if (!value || id_len == 0 || id_len >= CG_ID_MAX || value_len == 0 ||
	    json_object_object_add(by_id, id, value) < 0) {
		json_object_put(value);
		return;
	}
	cost->kept += ENTRY_OVERHEAD + id_len + value_len;
}

/* src cut as fill() would cut it into a field: a new json string, or NULL
 * for NULL/"". *len grows by its length. */
static json_object *cut_string(const char *src, size_t *len)
{
	char field[CG_NAME_MAX] = "";

	fill(field, src);
	*len += strlen(field);
	return field[0] ? json_object_new_string(field) : NULL;
}

/* containers/storage's index (containers.json, and volatile-containers.json
 * for `--rm` containers): [{ "id", "names": [...], "metadata": "<JSON text
 * with image-name, name>" }], kept as { id: [name, image] } so that a
 * lookup is one hash probe instead of a parse of the whole file (3.5 MB:
 * 70 ms), and the cache keeps two short strings per container. */
static int parse_storage_index(const char *buf, size_t len, json_object **ret, const char **ret_why,
			       struct metadata_parse_cost *ret_cost)
{
	struct metadata_parse_cost cost = { .parsed = len };
	json_object *list, *by_id;
	size_t n;
	int r = parse_json(buf, len, &list, ret_why);

	if (r < 0)
		return r;
	by_id = json_object_new_object();
	if (!by_id) {
		json_object_put(list);
		return -ENOMEM;
	}
	n = json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(list, i), *names, *meta, *entry;
		const char *id = member_string(c, "id"), *name = NULL, *meta_text;
		size_t value_len = 0;

		if (!id || json_object_object_get_ex(by_id, id, NULL))
			continue;
		names = member_of_type(c, "names", json_type_array);
		if (names && json_object_array_length(names) > 0 &&
		    json_object_is_type(json_object_array_get_idx(names, 0), json_type_string))
			name = json_object_get_string(json_object_array_get_idx(names, 0));
		meta_text = member_string(c, "metadata");
		meta = meta_text ? json_tokener_parse(meta_text) : NULL;
		if (meta_text)
			cost.parsed += strlen(meta_text);
		if (!name || !name[0])
			name = member_string(meta, "name");
		entry = json_object_new_array_ext(2);
		if (entry) {
			json_object *v = cut_string(name, &value_len);

			json_object_array_add(entry, v ? v : json_object_new_string(""));
			v = cut_string(member_string(meta, "image-name"), &value_len);
			json_object_array_add(entry, v ? v : json_object_new_string(""));
		}
		json_object_put(meta);
		index_add(by_id, id, entry, value_len, &cost);
	}
	json_object_put(list);
	*ret = by_id;
	*ret_cost = cost;
	return 0;
}

static const struct file_kind storage_index = { METADATA_MAX_FILE_BYTES, parse_storage_index,
						true };

static void fill_from_index_entry(json_object *by_id, const char *cid, struct cg_metadata *md)
{
	json_object *entry;

	if (!json_object_object_get_ex(by_id, cid, &entry))
		return;
	fill(md->container_name, json_object_get_string(json_object_array_get_idx(entry, 0)));
	fill(md->image, json_object_get_string(json_object_array_get_idx(entry, 1)));
}

static void fill_from_storage_index(const struct place *pl, const char *file, const char *cid,
				    struct cg_metadata *md)
{
	json_object *by_id;

	if (load_file(pl, file, &storage_index, &by_id) < 0)
		return;
	fill_from_index_entry(by_id, cid, md);
	json_object_put(by_id);
}

/* podman's pod records live in libpod/bolt_state.db, a BoltDB file. Bolt
 * keeps each value as contiguous bytes, and a pod's config is the JSON
 * {"id":"<64 hex>","name":"<name>",...}: found by scanning for that start
 * and parsing the object that begins there. Reading the B+tree properly
 * would add nothing for these two keys (and no page pointer is followed, so
 * a page graph with loops costs nothing); pages freed by a removed pod may
 * still hold its record, harmless since its id is gone with it. The result
 * is { pod id: name }.
 *
 * Bounds: a record parsed whole is skipped (a pod's config holds no other),
 * and json-c gives up below POD_DB_DEPTH, so a byte is parsed again only by
 * the records still open around it that failed: at most POD_DB_DEPTH times,
 * not once per start before it (nested starts made that quadratic). */
static int parse_pod_db(const char *buf, size_t len, json_object **ret, const char **ret_why,
			struct metadata_parse_cost *ret_cost)
{
	static const char start[] = "{\"id\":\"";
	struct metadata_parse_cost cost = { 0 };
	json_object *by_id = json_object_new_object();
	struct json_tokener *tok = json_tokener_new_ex(POD_DB_DEPTH);
	const char *p = buf, *end = buf + len;

	(void)ret_why;
	if (!by_id || !tok) {
		json_object_put(by_id);
		if (tok)
			json_tokener_free(tok);
		return -ENOMEM;
	}
	while ((p = memmem(p, (size_t)(end - p), start, sizeof(start) - 1))) {
		size_t name_len = 0;
		json_object *pod, *name;

		/* Not strict: strict mode refuses the binary that follows the
		 * object; the object itself must still be complete. */
		json_tokener_reset(tok);
		pod = json_tokener_parse_ex(
			tok, p,
			(int)((size_t)(end - p) > POD_RECORD_MAX ? POD_RECORD_MAX : end - p));
		cost.parsed += json_tokener_get_parse_end(tok);
		if (pod && strlen(member_string(pod, "id") ?: "") == 64) {
			name = cut_string(member_string(pod, "name"), &name_len);
			index_add(by_id, member_string(pod, "id"), name, name_len, &cost);
		}
		p += pod ? json_tokener_get_parse_end(tok) : sizeof(start) - 1;
		json_object_put(pod);
	}
	json_tokener_free(tok);
	*ret = by_id;
	*ret_cost = cost;
	return 0;
}

static const struct file_kind pod_db = { METADATA_MAX_DB_BYTES, parse_pod_db, true };

/* The storage driver's directory of containers below podman's root. */
static const char *const podman_drivers[] = {
	"overlay-containers",
	"vfs-containers",
	"btrfs-containers",
	"zfs-containers",
};

static bool lookup_podman(const struct place *pl, const char *cid, struct cg_metadata *md)
{
	for (size_t i = 0; i < sizeof(podman_drivers) / sizeof(podman_drivers[0]); i++) {
		char rel[256];
		bool found;

		snprintf(rel, sizeof(rel), "%s/%s/userdata/config.json", podman_drivers[i], cid);
		found = lookup_oci_bundle(pl, rel, md);
		if (!md->container_name[0] || !md->image[0]) {
			snprintf(rel, sizeof(rel), "%s/containers.json", podman_drivers[i]);
			fill_from_storage_index(pl, rel, cid, md);
			snprintf(rel, sizeof(rel), "%s/volatile-containers.json",
				 podman_drivers[i]);
			fill_from_storage_index(pl, rel, cid, md);
		}
		if (found || md->container_name[0])
			return true;
	}
	return false;
}

static void fill_pod_name(json_object *by_id, const char *pod_id, struct cg_metadata *md)
{
	json_object *name;

	if (json_object_object_get_ex(by_id, pod_id, &name))
		fill(md->pod_name, json_object_get_string(name));
}

static void lookup_podman_pod(const struct place *pl, const char *pod_id, struct cg_metadata *md)
{
	json_object *by_id;

	if (load_file(pl, "libpod/bolt_state.db", &pod_db, &by_id) < 0)
		return;
	fill_pod_name(by_id, pod_id, md);
	json_object_put(by_id);
}

int metadata_parse(enum metadata_format fmt, const char *buf, size_t len, const char *id,
		   const struct metadata_roots *keys, struct cg_metadata *md,
		   struct metadata_parse_cost *ret_cost)
{
	static const struct file_kind *const kinds[] = {
		[METADATA_DOCKER_CONFIG] = &json_file,
		[METADATA_OCI_CONFIG] = &json_file,
		[METADATA_STORAGE_INDEX] = &storage_index,
		[METADATA_POD_DB] = &pod_db,
	};
	struct metadata_parse_cost cost;
	const char *why = NULL;
	json_object *obj;
	int r;

	if ((unsigned)fmt >= sizeof(kinds) / sizeof(kinds[0]) || !md)
		return -EINVAL;
	r = kinds[fmt]->parse(buf, len, &obj, &why, &cost);
	if (r < 0)
		return r;
	if (fmt == METADATA_DOCKER_CONFIG)
		fill_from_docker_config(obj, keys, false, md);
	else if (fmt == METADATA_OCI_CONFIG)
		fill_from_oci_config(obj, keys, md);
	else if (fmt == METADATA_STORAGE_INDEX)
		fill_from_index_entry(obj, id ?: "", md);
	else
		fill_pod_name(obj, id ?: "", md);
	json_object_put(obj);
	if (ret_cost)
		*ret_cost = cost;
	return 0;
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
 * Rootless storage: a template per runtime, expanded for the user
 * ------------------------------------------------------------------------- */

/* The user's home from /etc/passwd, read directly: NSS could ask a network
 * directory and stall the agent. Users known only there have no %h. */
static int home_of(uid_t uid, char *ret, size_t len)
{
	struct passwd *pw;
	FILE *f = fopen("/etc/passwd", "re");
	int r = -ENOENT;

	if (!f)
		return -errno;
	while ((pw = fgetpwent(f)))
		if (pw->pw_uid == uid && pw->pw_dir && pw->pw_dir[0] == '/') {
			r = snprintf(ret, len, "%s", pw->pw_dir) < (int)len ? 0 : -ENAMETOOLONG;
			break;
		}
	fclose(f);
	return r;
}

/* tmpl with %u, %h, %% expanded. -ENOENT when %h is needed and unknown.
 * ret_base_len: the length of the user's base, the path up to the end of
 * the component where the first %u or %h ends (the home, /run/user/UID):
 * what the admin made; below it is the tenant's. */
static int expand_root(const char *tmpl, uid_t uid, char *ret, size_t len, size_t *ret_base_len)
{
	char home[PATH_MAX];
	size_t w = 0, base = 0;
	bool in_base = false; /* in the component of the first %u or %h */

	for (const char *p = tmpl; *p; p++) {
		char num[16];
		const char *add = num;
		bool user = false;

		if (in_base && *p == '/') {
			base = w;
			in_base = false;
		}
		if (*p != '%' || !p[1]) {
			num[0] = *p;
			num[1] = '\0';
		} else if (*++p == 'u') {
			snprintf(num, sizeof(num), "%u", (unsigned)uid);
			user = true;
		} else if (*p == 'h') {
			if (home_of(uid, home, sizeof(home)) < 0)
				return -ENOENT;
			add = home;
			user = true;
		} else {
			num[0] = *p;
			num[1] = '\0';
		}
		if (w + strlen(add) >= len)
			return -ENAMETOOLONG;
		memcpy(ret + w, add, strlen(add));
		w += strlen(add);
		if (user && !base && !in_base)
			in_base = true;
	}
	ret[w] = '\0';
	/* A template with neither: all of it is the admin's choice. */
	*ret_base_len = base ? base : w;
	return 0;
}

/* ---------------------------------------------------------------------------
 * Dispatch
 * ------------------------------------------------------------------------- */

/* Its roots: offsets in struct metadata_roots, the host's and the rootless
 * users' (NO_ROOT: only docker, podman and nerdctl run rootless). Kept in
 * the row, not in arrays beside the table that must follow its order. */
struct source {
	const char *runtime;
	bool (*lookup)(const struct place *pl, const char *cid, struct cg_metadata *md);
	bool when_runtime_unknown;
	size_t host_root, rootless_root;
};

#define ROOT(field) offsetof(struct metadata_roots, field)
#define NO_ROOT SIZE_MAX
static const struct source sources[] = {
	{ "docker", lookup_docker, true, ROOT(docker), ROOT(rootless_docker) },
	{ "containerd", lookup_containerd, true, ROOT(containerd), NO_ROOT },
	{ "nerdctl", lookup_containerd, false, ROOT(containerd), ROOT(rootless_containerd) },
	{ "crio", lookup_crio, true, ROOT(crio), NO_ROOT },
	{ "podman", lookup_podman, true, ROOT(podman), ROOT(rootless_podman) },
};
#undef ROOT

/* The root a source reads for id: the host's, or the rootless user's
 * expanded template. */
static int source_place(const struct metadata_roots *r, const struct source *src,
			const struct cg_identity *id, char *buf, size_t len, struct place *ret)
{
	size_t at = id->rootless ? src->rootless_root : src->host_root;
	const char *root = at == NO_ROOT ? NULL : *(const char *const *)((const char *)r + at);
	size_t base_len;

	if (!root || !root[0])
		return -ENOENT;
	*ret = (struct place){ .root = root,
			       .cache = r->cache,
			       .labels = r,
			       .kubernetes = id->pod_uid[0] && strcmp(id->runtime, "podman") };
	if (!id->rootless)
		return 0;
	if (expand_root(root, id->uid, buf, len, &base_len) < 0)
		return -ENOENT;
	*ret = (struct place){ .root = buf,
			       .base_len = base_len,
			       .check_owner = true,
			       .owner = id->uid,
			       .cache = r->cache,
			       .labels = r,
			       .kubernetes = id->pod_uid[0] && strcmp(id->runtime, "podman") };
	return 0;
}

static void lookup_container(const struct metadata_roots *roots, const struct cg_identity *id,
			     struct cg_metadata *md)
{
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
		char buf[PATH_MAX];
		struct place pl;

		if (id->runtime[0] ? strcmp(id->runtime, sources[i].runtime) != 0
				   : !sources[i].when_runtime_unknown)
			continue;
		if (source_place(roots, &sources[i], id, buf, sizeof(buf), &pl) < 0)
			continue;
		if (sources[i].lookup(&pl, id->container_id, md)) {
			snprintf(md->runtime, sizeof(md->runtime), "%s", sources[i].runtime);
			return;
		}
	}
}

/* A podman pod (or a container in one): its name from podman's database. */
static void lookup_pod_of_podman(const struct metadata_roots *roots, const struct cg_identity *id,
				 struct cg_metadata *md)
{
	const struct source *podman = &sources[sizeof(sources) / sizeof(sources[0]) - 1];
	char buf[PATH_MAX];
	struct place pl;

	if (source_place(roots, podman, id, buf, sizeof(buf), &pl) == 0)
		lookup_podman_pod(&pl, id->pod_uid, md);
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
#define OVERRIDE(field, ...) r.field = roots->field ? roots->field : r.field;
		METADATA_ROOT_FIELDS(OVERRIDE)
#undef OVERRIDE
		r.cache = roots->cache;
		memcpy(r.label_keys, roots->label_keys, sizeof(r.label_keys));
		r.nr_label_keys = roots->nr_label_keys;
	}

	if (id->kind == CG_KIND_CONTAINER)
		lookup_container(&r, id, &md);
	if ((id->kind == CG_KIND_CONTAINER || id->kind == CG_KIND_POD) && id->pod_uid[0]) {
		if (!strcmp(id->runtime, "podman"))
			lookup_pod_of_podman(&r, id, &md);
		/* A Kubernetes pod has no file of its own: kubelet's log
		 * directory names it, and the pod of a container whose own
		 * files did not. Host pods only: kubelet does not run
		 * rootless here. */
		else if ((!md.pod_name[0] || !md.pod_namespace[0]) && r.pod_logs[0] &&
			 !id->rootless)
			lookup_pod_logs(r.pod_logs, id->pod_uid, &md);
	}
	if (id->kind == CG_KIND_CONTAINER && id->pod_uid[0] && strcmp(id->runtime, "podman"))
		fill_kubernetes_labels(&r, &md);

	*ret = md;
	return 0;
}
