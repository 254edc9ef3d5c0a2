// SPDX-License-Identifier: GPL-2.0-only
#include "agent/admission.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum adm_class adm_class_of(const struct cg_identity *ident)
{
	bool container = ident->kind == CG_KIND_CONTAINER || ident->kind == CG_KIND_POD;

	if (ident->rootless || ident->nested)
		return container ? ADM_DELEGATED_CONTAINER : ADM_DELEGATED_OTHER;
	return container ? ADM_HOST_CONTAINER : ADM_HOST_OTHER;
}

bool adm_delegated(enum adm_class cls)
{
	return cls >= ADM_DELEGATED_CONTAINER;
}

bool adm_before(struct adm_key a, struct adm_key b)
{
	return a.cls != b.cls ? a.cls < b.cls : a.id < b.id;
}

enum adm_need adm_need(const struct adm_limits *l, const struct adm_use *u, enum adm_class cls)
{
	if (adm_delegated(cls) && u->delegated >= l->max_delegated)
		return ADM_FULL_DELEGATED;
	return u->held >= l->max ? ADM_FULL : ADM_FREE;
}

bool adm_may_evict(enum adm_class cls, enum adm_class holder)
{
	return holder > cls;
}

/* ---- the waiting set: sorted worst first, so the best is popped at the end ---- */

static int cmp_worst_first(const void *pa, const void *pb)
{
	const struct adm_key *a = pa, *b = pb;

	return adm_before(*a, *b) ? 1 : adm_before(*b, *a) ? -1 : 0;
}

/* Where k is or would go. */
static size_t lower_bound(const struct adm_waiting *w, struct adm_key k)
{
	size_t lo = 0, hi = w->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (adm_before(k, w->items[mid]))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool locate_linear(const struct adm_waiting *w, uint64_t id, size_t *ret)
{
	for (size_t i = 0; i < w->nr; i++) {
		if (w->items[i].id == id) {
			*ret = i;
			return true;
		}
	}
	return false;
}

/* An id is in one class: one binary search per class. */
static bool locate(const struct adm_waiting *w, uint64_t id, size_t *ret)
{
	if (w->bulk)
		return locate_linear(w, id, ret);
	for (int c = 0; c < ADM_NR_CLASSES; c++) {
		size_t i = lower_bound(w, (struct adm_key){ id, (enum adm_class)c });

		if (i < w->nr && w->items[i].id == id) {
			*ret = i;
			return true;
		}
	}
	return false;
}

static int make_room(struct adm_waiting *w)
{
	size_t cap = w->cap ? w->cap * 2 : 64;
	struct adm_key *items;

	if (w->nr < w->cap)
		return 0;
	items = realloc(w->items, cap * sizeof(*items));
	if (!items)
		return -ENOMEM;
	w->items = items;
	w->cap = cap;
	return 0;
}

int adm_wait_add(struct adm_waiting *w, struct adm_key k)
{
	size_t i;

	if (locate(w, k.id, &i))
		return -EEXIST;
	if (make_room(w) < 0)
		return -ENOMEM;
	i = w->bulk ? w->nr : lower_bound(w, k);
	memmove(&w->items[i + 1], &w->items[i], (w->nr - i) * sizeof(*w->items));
	w->items[i] = k;
	w->nr++;
	w->nr_class[k.cls]++;
	return 0;
}

bool adm_wait_remove(struct adm_waiting *w, uint64_t id)
{
	size_t i;

	if (!locate(w, id, &i))
		return false;
	w->nr_class[w->items[i].cls]--;
	w->nr--;
	memmove(&w->items[i], &w->items[i + 1], (w->nr - i) * sizeof(*w->items));
	return true;
}

bool adm_wait_find(const struct adm_waiting *w, uint64_t id, enum adm_class *ret_cls)
{
	size_t i;

	if (!locate(w, id, &i))
		return false;
	*ret_cls = w->items[i].cls;
	return true;
}

bool adm_wait_best(const struct adm_waiting *w, struct adm_key *ret)
{
	if (w->bulk || !w->nr)
		return false;
	*ret = w->items[w->nr - 1];
	return true;
}

void adm_wait_sort(struct adm_waiting *w)
{
	if (w->nr)
		qsort(w->items, w->nr, sizeof(*w->items), cmp_worst_first);
	w->bulk = false;
}

unsigned adm_wait_delegated(const struct adm_waiting *w)
{
	return w->nr_class[ADM_DELEGATED_CONTAINER] + w->nr_class[ADM_DELEGATED_OTHER];
}

void adm_wait_clear(struct adm_waiting *w)
{
	free(w->items);
	*w = (struct adm_waiting){ 0 };
}
