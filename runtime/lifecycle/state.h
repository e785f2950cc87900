/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The state store: one directory per container under --root.
 *
 *   <root>/                  0700, created on first use
 *   <root>/<id>/             claimed atomically by mkdir(2)
 *   <root>/<id>/state.json   replaced atomically (write + rename)
 *
 * Every command that touches a container holds flock(2) on its directory:
 * shared to read, exclusive to change, so concurrent commands on one id
 * serialize while different ids never contend.  Listing is one readdir of
 * <root> plus one small read per container.
 */
#ifndef BRIG_STATE_H
#define BRIG_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "spec/state.h"

struct brig_error;

struct brig_store {
	char *root;
	int rootfd; /* -1 when the root does not exist (nothing to find) */
};

#define BRIG_STORE_INIT  \
	{                \
		NULL, -1 \
	}

/* A container directory, open and locked. */
struct brig_entry {
	char *id;
	int dirfd;
	int rootfd; /* borrowed from the store */
};

#define BRIG_ENTRY_INIT      \
	{                    \
		NULL, -1, -1 \
	}

enum brig_lock {
	BRIG_LOCK_SHARED,
	BRIG_LOCK_EXCLUSIVE,
	/* exclusive, and an entry whose state.json was never written (a
	 * create that died half-way) is found rather than "does not exist",
	 * so that delete can clean it up */
	BRIG_LOCK_EXCLUSIVE_ANY,
};

/* Open @root; with @create, make it (0700) when missing. */
int brig_store_open(struct brig_store *st, const char *root, bool create, struct brig_error *err);
void brig_store_close(struct brig_store *st);

/*
 * Claim @id for a new container: fails with 'container "<id>" already
 * exists' when taken.  The entry is returned locked exclusively.
 */
int brig_store_claim(struct brig_store *st, const char *id, struct brig_entry *out,
                     struct brig_error *err);

/* Find and lock @id; fails with 'container "<id>" does not exist'. */
int brig_store_lookup(struct brig_store *st, const char *id, enum brig_lock lock,
                      struct brig_entry *out, struct brig_error *err);

/* Sorted ids of every container in the store. */
int brig_store_list(struct brig_store *st, char ***ids, size_t *n, struct brig_error *err);
void brig_store_free_list(char **ids, size_t n);

int brig_entry_load(struct brig_entry *e, struct brig_state **out, struct brig_error *err);
int brig_entry_save(struct brig_entry *e, const struct brig_state *state, struct brig_error *err);

/*
 * What create is about to make before its state is saved (today: the
 * cgroup directories, cgroup.h's record), in the file "cgroups" of the
 * state directory: a create killed before the save leaves them named for
 * delete --force.  Written in place (a line cut short by a crash is
 * ignored by its reader).  brig_entry_recorded: the text, or NULL when
 * there is none.
 */
int brig_entry_record(struct brig_entry *e, const char *text, struct brig_error *err);
char *brig_entry_recorded(struct brig_entry *e);
/* Remove the directory and everything in it; the entry stays locked until
 * released (the lock dies with the last fd). */
int brig_entry_remove(struct brig_entry *e, struct brig_error *err);
void brig_entry_release(struct brig_entry *e);

/*
 * A container found in the store, locked, its state loaded: the one way a
 * command opens an existing container.  After a failed open, @e.dirfd
 * tells a lookup that failed (-1) from a state that could not be loaded
 * (delete removes such a half-created entry).  Close it in any case.
 */
struct brig_container_ref {
	struct brig_store st;
	struct brig_entry e;
	struct brig_state *s; /* NULL until loaded */
};

#define BRIG_CONTAINER_REF_INIT                        \
	{                                              \
		BRIG_STORE_INIT, BRIG_ENTRY_INIT, NULL \
	}

int brig_container_ref_open(struct brig_container_ref *c, const char *root, const char *id,
                            enum brig_lock lock, struct brig_error *err);
/* Unlock and free; the store is closed (and c->s freed) too. */
void brig_container_ref_close(struct brig_container_ref *c);

/*
 * The status of a container as of now: the recorded status, unless its
 * init is gone (no such pid, a zombie, or a reused pid with another start
 * time), which makes it stopped.
 */
enum brig_status brig_state_status(const struct brig_state *state);

#endif
