/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CVE-2019-5736: a container process can reach brig's own binary through
 * /proc/<pid>/exe of a process brig made, or by running /proc/self/exe
 * itself (a "#!/proc/self/exe" script started by exec or run: the kernel
 * resolves it in the process that is still brig's image).  The init and
 * exec processes are born non-dumpable, which closes the first way until
 * execve; the second needs the binary itself to be unwritable.
 *
 * So create, run and exec re-execute brig once from a private, detached,
 * read-only bind mount of its binary (open_tree + mount_setattr, no copy):
 * from then on /proc/self/exe of brig and of every process it makes leads
 * to a read-only mount, and opening it for writing fails with EROFS,
 * whatever the container's privileges.  runc 1.1.12 does the same with
 * its "bindfd"; crun copies itself into a sealed memfd.
 *
 * A container whose user namespace maps neither the binary's owner nor,
 * when it is group-writable, its group (and whose binary is not writable
 * by others and has no ACL) cannot write it whatever path leads there:
 * its processes have only the mapped ids and no capability outside their
 * namespace (and CAP_DAC_OVERRIDE inside it does not cover an inode whose
 * owner is not mapped).  Such a container needs no re-execution: brig job
 * and a bundle with a user namespace of its own save an exec of brig.
 */
#ifndef BRIG_LINUX_SELFEXE_H
#define BRIG_LINUX_SELFEXE_H

#include <stdbool.h>
#include <stddef.h>

struct brig_error;
struct brig_id_mapping;
struct brig_linux;

/*
 * Whether no process that has only the host ids a user namespace maps
 * (@uids, @gids: their host_id and size) could open brig's binary for
 * writing or change its mode: see above.  False when it cannot tell.
 */
bool brig_selfexe_out_of_reach(const struct brig_id_mapping *uids, size_t n_uids,
                               const struct brig_id_mapping *gids, size_t n_gids);

/*
 * brig_selfexe_protect(@argv), unless the container's processes will run
 * in a user namespace of their own that maps only the host ids @uids and
 * @gids, and those are out of reach of the binary (none given: no such
 * namespace).  Nothing when @argv is NULL.
 */
int brig_selfexe_protect_ids(char **argv, const struct brig_id_mapping *uids, size_t n_uids,
                             const struct brig_id_mapping *gids, size_t n_gids,
                             struct brig_error *err);

/*
 * brig_selfexe_protect_ids() for the container of @lx: its mappings when
 * it makes a user namespace of its own (create, run, exec).
 */
int brig_selfexe_protect_for(char **argv, const struct brig_linux *lx, struct brig_error *err);

/*
 * Before the config is parsed: brig_selfexe_protect(@argv) at once when
 * the text of @path (relative to @dirfd) does not name "uidMappings".
 * Only a user namespace's mappings can spare the re-execution
 * (brig_selfexe_protect_for), and a config without the word has none: the
 * first image then parses nothing (the re-executed one parses it once).
 * A config that names it (an annotation may, or an escaped key may hide
 * it: then brig re-executes when it need not, never the other way), or
 * that cannot be read, is left for brig_selfexe_protect_for: 0.  Nothing
 * in the re-executed brig.
 */
int brig_selfexe_protect_early(char **argv, int dirfd, const char *path, struct brig_error *err);

/*
 * Re-execute with @argv from a read-only mount of the binary, unless it is
 * already on one (this is the re-executed brig, or an installation on a
 * read-only /usr).  Returns 0 without doing anything for an unprivileged
 * brig that cannot make mounts; -1 when it could not.
 */
int brig_selfexe_protect(char **argv, struct brig_error *err);

#endif
