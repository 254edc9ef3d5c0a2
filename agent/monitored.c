#include "agent/monitored.h"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static void fill_sink_view(struct monitored *m)
{
	/* Container id as people know it from `docker ps`: 12 characters. */
	snprintf(m->short_id, sizeof(m->short_id), "%.12s", m->ident.container_id);
	m->sink = (struct sink_cgroup){
		.id = m->id,
		.path = m->path,
		.kind = cg_kind_name(m->ident.kind),
		/* The path does not always say (cgroupfs-driver Kubernetes); the
		 * runtime whose files named the container does. */
		.runtime = m->ident.runtime[0] ? m->ident.runtime : m->meta.runtime,
		.container_id = m->short_id,
		/* Unnamed containers are known by their short id (`docker ps`). */
		.container_name = m->meta.container_name[0] ? m->meta.container_name
			: m->ident.kind == CG_KIND_CONTAINER && m->short_id[0] ? m->short_id
										: m->ident.lxc_name,
		.pod = m->meta.pod_name,
		.pod_namespace = m->meta.pod_namespace,
	};
}

struct monitored *monitored_add(struct monitored_set *set, uint64_t id, int slot, const char *path,
				const struct cg_identity *ident, const struct cg_metadata *meta)
{
	struct monitored *m;

	if (set->nr == set->cap) {
		int cap = set->cap ? set->cap * 2 : 64;
		struct monitored **items = realloc(set->items, cap * sizeof(*items));
		if (!items)
			return NULL;
		set->items = items;
		set->cap = cap;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->path = strdup(path);
	if (!m->path) {
		free(m);
		return NULL;
	}
	m->id = id;
	m->slot = slot;
	m->ident = *ident;
	m->meta = *meta;
	clock_gettime(CLOCK_REALTIME, &m->since);
	fill_sink_view(m);
	set->items[set->nr++] = m;
	return m;
}

struct monitored *monitored_find(const struct monitored_set *set, uint64_t id)
{
	for (int i = 0; i < set->nr; i++)
		if (set->items[i]->id == id)
			return set->items[i];
	return NULL;
}

void monitored_set_meta(struct monitored *m, const struct cg_metadata *meta)
{
	m->meta = *meta;
	fill_sink_view(m);
}

static void monitored_free(struct monitored *m)
{
	if (!m)
		return;
	free(m->path);
	free(m);
}

void monitored_remove(struct monitored_set *set, uint64_t id)
{
	for (int i = 0; i < set->nr; i++)
		if (set->items[i]->id == id) {
			monitored_free(set->items[i]);
			set->items[i] = set->items[--set->nr];
			return;
		}
}

void monitored_clear(struct monitored_set *set)
{
	for (int i = 0; i < set->nr; i++)
		monitored_free(set->items[i]);
	free(set->items);
	*set = (struct monitored_set){ 0 };
}
