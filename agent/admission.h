/* SPDX-License-Identifier: GPL-2.0-only */
/* Who gets one of the agent's counter slots (cgroups.max) when there are
 * more cgroups than slots: classes by kind and place, within a class the
 * earliest created (cgroup ids grow with creation), and what holds a slot
 * keeps it against its own class. Cgroups without a slot wait in a set of
 * (class, id) pairs. Pure: no I/O. See docs/AGENT.md, "The cap". */
#pragma once
#include "cgroup/identity.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Best first. Delegated: below a user manager (user@UID.service) or below a
 * container, where tenants make cgroups; bounded by cgroups.max_delegated. */
enum adm_class {
	ADM_HOST_CONTAINER, /* containers and pods at their runtime's place */
	ADM_HOST_OTHER, /* the host's services, slices and other cgroups */
	ADM_DELEGATED_CONTAINER, /* rootless containers and pods */
	ADM_DELEGATED_OTHER,
	ADM_NR_CLASSES
};

struct adm_key {
	uint64_t id;
	enum adm_class cls;
};

enum adm_class adm_class_of(const struct cg_identity *ident);
bool adm_delegated(enum adm_class cls);
/* a goes before b: a better class, or the same class and older. */
bool adm_before(struct adm_key a, struct adm_key b);

struct adm_limits {
	unsigned max, max_delegated;
};

struct adm_use {
	unsigned held; /* slots held (removed cgroups too, until their last rows are out) */
	unsigned delegated; /* delegated cgroups counted */
};

enum adm_need {
	ADM_FREE, /* a slot is free */
	ADM_FULL, /* only the slot of a worse class */
	ADM_FULL_DELEGATED /* only the slot of a worse delegated class */
};

enum adm_need adm_need(const struct adm_limits *l, const struct adm_use *u, enum adm_class cls);
/* A cgroup of class cls may take the slot of one of class holder. */
bool adm_may_evict(enum adm_class cls, enum adm_class holder);

/* The waiting cgroups, best last. Appends while `bulk` (the initial scan),
 * sorted by adm_wait_sort(). */
struct adm_waiting {
	struct adm_key *items;
	size_t nr, cap;
	bool bulk;
	unsigned nr_class[ADM_NR_CLASSES];
};

int adm_wait_add(struct adm_waiting *w, struct adm_key k); /* 0, -EEXIST, -ENOMEM */
bool adm_wait_remove(struct adm_waiting *w, uint64_t id);
bool adm_wait_find(const struct adm_waiting *w, uint64_t id, enum adm_class *ret_cls);
bool adm_wait_best(const struct adm_waiting *w, struct adm_key *ret);
void adm_wait_sort(struct adm_waiting *w); /* ends bulk */
unsigned adm_wait_delegated(const struct adm_waiting *w);
void adm_wait_clear(struct adm_waiting *w);
