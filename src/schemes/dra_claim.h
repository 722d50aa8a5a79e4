/* ResourceClaims folded, as they arrive, into the little the DRA scheme
 * reads of them: per result the device (driver, pool, name), the share and
 * the memory it consumes, the pods the claim is reserved for, and the
 * sharing its allocation's configuration sets.  A cluster has as many
 * claims as pods holding devices: the records and their strings live in
 * one arena, and the strings many claims repeat (namespaces, drivers,
 * pools, device and request names, strategies) are kept once.
 *
 * Uses the client's object structs and quantities (kube.h); no I/O.
 */
#ifndef DRA_CLAIM_H
#define DRA_CLAIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube.h"

/* Blocks that records are cut from, all freed at once, and a table of
 * the strings kept once (each in the blocks). */
struct dra_arena {
	struct dra_arena_block *blocks;
	size_t used; /* of the newest block */
	const char **strings; /* open addressing, a power of two long */
	size_t nstrings, cap_strings;
	size_t bytes; /* the blocks' sizes, for tests and figures */
};

/* A configuration of an allocation, as far as it says how a device is shared. */
struct dra_sharing {
	bool from_claim; /* source FromClaim (else FromClass) */
	const char **requests;
	size_t nrequests;
	const char *driver;
	const char *strategy, *interval, *mps_memory_limit;
	int64_t mps_threads;
	bool has_mps_threads;
};

struct dra_index_entry;

struct dra_claim_result {
	const char *request, *driver, *pool, *device;
	int64_t mem_consumed; /* consumedCapacity memory in bytes, 0 when none */
	/* the device it names, as the inventory's last finish found it; NULL when none */
	const struct dra_index_entry *entry;
};

struct dra_claim_consumer {
	const char *name;
};

struct dra_claim {
	const char *namespace, *name;
	const char *resource_version; /* what the live view's relist compares */
	bool deleting;
	int ask_gpus; /* what its requests ask, where the filter kept them; 0 else */
	struct dra_claim_result *results;
	size_t nresults;
	struct dra_sharing *configs; /* status.allocation.devices.config */
	size_t nconfigs;
	struct dra_claim_consumer *reserved;
	size_t nreserved;
	/* A claim not allocated yet, as listed (its requests in full), for
	 * the reason its pods wait; NULL for the others. */
	const struct k8s_resource_claim *waiting;
};

/* s kept once in a: the same pointer for the same string; NULL for NULL
 * and when out of memory (*oom set). */
const char *dra_arena_intern(struct dra_arena *a, const char *s, bool *oom);
/* The string kept in a that equals s, without keeping it; NULL when none. */
const char *dra_arena_find(const struct dra_arena *a, const char *s);
/* claim c folded into a record in a; NULL when out of memory.  c stays the caller's. */
struct dra_claim *dra_claim_fold(struct dra_arena *a, const struct k8s_resource_claim *c);
void dra_arena_release(struct dra_arena *a);

#endif
