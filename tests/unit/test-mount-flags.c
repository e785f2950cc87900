/* SPDX-License-Identifier: Apache-2.0 */
/* The mount option parser (runtime/linux/mounts.c): no kernel, no root. */
#include "config.h"

#include <string.h>
#include <sys/mount.h>

#include "linux/mounts.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/error.h"

#define ATIME_MASK ((uint64_t)MOUNT_ATTR__ATIME)

static struct brig_mount_flags parse_n(const char *const *opts, size_t n)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_mount_flags f;

	if (brig_mount_flags_parse(opts, n, &f, &err) < 0) {
		printf("# unexpected error: %s\n", err.msg);
		brig_error_release(&err);
		memset(&f, 0xff, sizeof(f));
		f.data = NULL;
	}
	return f;
}

#define PARSE(...)                                                  \
	({                                                          \
		static const char *const opts_[] = { __VA_ARGS__ }; \
		parse_n(opts_, ARRAY_SIZE(opts_));                  \
	})

struct attr_case {
	const char *set, *clear;
	uint64_t bit;
};

static const struct attr_case top_attrs[] = {
	{ "nosuid", "suid", MOUNT_ATTR_NOSUID },
	{ "nodev", "dev", MOUNT_ATTR_NODEV },
	{ "noexec", "exec", MOUNT_ATTR_NOEXEC },
	{ "nodiratime", "diratime", MOUNT_ATTR_NODIRATIME },
	{ "nosymfollow", "symfollow", MOUNT_ATTR_NOSYMFOLLOW },
};

static const struct attr_case rec_attrs[] = {
	{ "rro", "rrw", MOUNT_ATTR_RDONLY },
	{ "rnosuid", "rsuid", MOUNT_ATTR_NOSUID },
	{ "rnodev", "rdev", MOUNT_ATTR_NODEV },
	{ "rnoexec", "rexec", MOUNT_ATTR_NOEXEC },
	{ "rnodiratime", "rdiratime", MOUNT_ATTR_NODIRATIME },
	{ "rnosymfollow", "rsymfollow", MOUNT_ATTR_NOSYMFOLLOW },
};

static void test_attrs(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(top_attrs); i++) {
		const struct attr_case *c = &top_attrs[i];
		const char *on[] = { c->set }, *off[] = { c->set, c->clear },
		           *back[] = { c->clear, c->set };
		struct brig_mount_flags f;

		f = parse_n(on, 1);
		ok(f.attr_set == c->bit && f.attr_clr == 0 && !f.rec_attr_set && !f.data,
		   "\"%s\" sets its bit on the top mount only", c->set);
		f = parse_n(off, 2);
		ok(f.attr_set == 0 && f.attr_clr == c->bit, "\"%s\" after \"%s\" clears it",
		   c->clear, c->set);
		f = parse_n(back, 2);
		ok(f.attr_set == c->bit && f.attr_clr == 0, "the last of \"%s\"/\"%s\" wins",
		   c->clear, c->set);
	}
	for (size_t i = 0; i < ARRAY_SIZE(rec_attrs); i++) {
		const struct attr_case *c = &rec_attrs[i];
		const char *on[] = { c->set }, *off[] = { c->set, c->clear };
		struct brig_mount_flags f;

		f = parse_n(on, 1);
		ok(f.rec_attr_set == c->bit && !f.rec_attr_clr && !f.attr_set && !f.attr_clr &&
		       !f.sb_ro,
		   "\"%s\" sets its bit recursively only", c->set);
		f = parse_n(off, 2);
		ok(!f.rec_attr_set && f.rec_attr_clr == c->bit, "\"%s\" clears it recursively",
		   c->clear);
	}
}

static void test_ro_rw(void)
{
	struct brig_mount_flags f;

	f = PARSE("ro");
	ok(f.sb_ro && f.attr_set == MOUNT_ATTR_RDONLY && !f.attr_clr, "ro: superblock and mount");
	f = PARSE("ro", "rw");
	ok(!f.sb_ro && !f.attr_set && f.attr_clr == MOUNT_ATTR_RDONLY, "rw after ro");
	f = PARSE("rw", "ro");
	ok(f.sb_ro && f.attr_set == MOUNT_ATTR_RDONLY && !f.attr_clr, "ro after rw");
	f = PARSE("rro");
	ok(!f.sb_ro && !f.attr_set && f.rec_attr_set == MOUNT_ATTR_RDONLY,
	   "rro leaves the superblock and top flag alone");
	f = PARSE("nosuid", "nodev", "noexec", "ro", "relatime");
	ok(f.attr_set == (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
	                  MOUNT_ATTR_RDONLY | MOUNT_ATTR_RELATIME) &&
	       f.attr_clr == ATIME_MASK,
	   "a typical option list");
}

static void test_atime(void)
{
	struct brig_mount_flags f;

	f = PARSE("noatime");
	ok((f.attr_set & ATIME_MASK) == MOUNT_ATTR_NOATIME &&
	       (f.attr_clr & ATIME_MASK) == ATIME_MASK,
	   "noatime selects the mode and clears the whole atime field");
	f = PARSE("strictatime");
	ok((f.attr_set & ATIME_MASK) == MOUNT_ATTR_STRICTATIME && f.attr_clr == ATIME_MASK,
	   "strictatime");
	f = PARSE("relatime");
	ok(f.attr_set == 0 && f.attr_clr == ATIME_MASK,
	   "relatime is mode 0 with the field cleared");
	f = PARSE("noatime", "strictatime");
	ok(f.attr_set == MOUNT_ATTR_STRICTATIME, "the last atime mode wins");
	f = PARSE("strictatime", "noatime");
	ok(f.attr_set == MOUNT_ATTR_NOATIME, "in either order");
	f = PARSE("relatime", "norelatime");
	ok(!f.attr_set && !f.attr_clr, "norelatime undoes relatime");
	f = PARSE("noatime", "norelatime");
	ok(f.attr_set == MOUNT_ATTR_NOATIME, "norelatime leaves noatime alone");
	f = PARSE("strictatime", "nostrictatime");
	ok(!f.attr_set && !f.attr_clr, "nostrictatime undoes strictatime");
	f = PARSE("nostrictatime");
	ok(!f.attr_set && !f.attr_clr, "nostrictatime alone is nothing");
	f = PARSE("noatime", "atime");
	ok(f.attr_set == 0 && f.attr_clr == ATIME_MASK, "atime after noatime: relatime");
	f = PARSE("strictatime", "atime");
	ok(f.attr_set == MOUNT_ATTR_STRICTATIME, "atime keeps strictatime");
	f = PARSE("noatime", "nodiratime");
	ok(f.attr_set == (MOUNT_ATTR_NOATIME | MOUNT_ATTR_NODIRATIME),
	   "nodiratime is a flag beside the atime mode");

	f = PARSE("rnoatime");
	ok(f.rec_attr_set == MOUNT_ATTR_NOATIME && f.rec_attr_clr == ATIME_MASK && !f.attr_clr,
	   "rnoatime");
	f = PARSE("rstrictatime");
	ok(f.rec_attr_set == MOUNT_ATTR_STRICTATIME && f.rec_attr_clr == ATIME_MASK,
	   "rstrictatime");
	f = PARSE("rrelatime");
	ok(f.rec_attr_set == 0 && f.rec_attr_clr == ATIME_MASK, "rrelatime");
	f = PARSE("rnoatime", "ratime");
	ok(f.rec_attr_set == 0 && f.rec_attr_clr == ATIME_MASK, "ratime: relatime recursively");
	f = PARSE("ratime");
	ok(f.rec_attr_clr == ATIME_MASK, "ratime alone never clears a partial atime field");
	f = PARSE("rrelatime", "rnorelatime");
	ok(!f.rec_attr_set && !f.rec_attr_clr, "rnorelatime undoes rrelatime");
	f = PARSE("rstrictatime", "rnostrictatime");
	ok(!f.rec_attr_set && !f.rec_attr_clr, "rnostrictatime undoes rstrictatime");
	f = PARSE("noatime", "rstrictatime");
	ok(f.attr_set == MOUNT_ATTR_NOATIME && f.rec_attr_set == MOUNT_ATTR_STRICTATIME,
	   "top and recursive atime are separate");
}

static void test_propagation(void)
{
	static const struct {
		const char *name;
		uint64_t flag;
		bool rec;
	} cases[] = {
		{ "private", MS_PRIVATE, false },       { "rprivate", MS_PRIVATE, true },
		{ "shared", MS_SHARED, false },         { "rshared", MS_SHARED, true },
		{ "slave", MS_SLAVE, false },           { "rslave", MS_SLAVE, true },
		{ "unbindable", MS_UNBINDABLE, false }, { "runbindable", MS_UNBINDABLE, true },
	};
	struct brig_mount_flags f;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *opts[] = { cases[i].name };

		f = parse_n(opts, 1);
		ok(f.propagation == cases[i].flag && f.rec_propagation == cases[i].rec &&
		       !f.attr_set && !f.data,
		   "\"%s\"", cases[i].name);
	}
	f = PARSE();
	ok(f.propagation == 0 && !f.rec_propagation, "no propagation option: 0");
	f = PARSE("rshared", "private");
	ok(f.propagation == MS_PRIVATE && !f.rec_propagation, "the last propagation option wins");
}

static void test_kinds(void)
{
	struct brig_mount_flags f;

	f = PARSE();
	ok(!f.bind && !f.rbind && !f.remount && !f.tmpcopyup && !f.idmap && !f.ridmap &&
	       !f.attr_set && !f.attr_clr && !f.rec_attr_set && !f.rec_attr_clr && !f.sb_ro &&
	       !f.data,
	   "no options: nothing set");
	f = PARSE("bind");
	ok(f.bind && !f.rbind, "bind");
	f = PARSE("rbind");
	ok(f.rbind && !f.bind, "rbind");
	f = PARSE("remount");
	ok(f.remount && !f.data, "remount");
	f = PARSE("tmpcopyup");
	ok(f.tmpcopyup && !f.data, "tmpcopyup");
	f = PARSE("idmap");
	ok(f.idmap && !f.ridmap, "idmap");
	f = PARSE("ridmap");
	ok(f.ridmap && !f.idmap, "ridmap");
	f = PARSE("defaults", "silent", "loud", "iversion", "noiversion");
	ok(!f.data && !f.attr_set && !f.attr_clr && !f.sb_ro, "ignored options leave no trace");
}

static void test_data(void)
{
	struct brig_mount_flags f;

	f = PARSE("mode=755", "nosuid", "size=65536k");
	is_str(f.data, "mode=755,size=65536k", "data keeps its order and skips flags");
	ok(f.attr_set == MOUNT_ATTR_NOSUID, "flags among data still parse");
	brig_mount_flags_release(&f);
	ok(f.data == NULL, "release clears data");

	f = PARSE("sync", "async", "dirsync", "lazytime", "nolazytime", "mand", "nomand");
	is_str(f.data, "sync,async,dirsync,lazytime,nolazytime,mand,nomand",
	       "superblock flags go to fsconfig as data");
	ok(!f.attr_set && !f.attr_clr, "and set no mount attribute");
	brig_mount_flags_release(&f);

	f = PARSE("newinstance", "ptmxmode=0666", "mode=0620", "gid=5");
	is_str(f.data, "newinstance,ptmxmode=0666,mode=0620,gid=5", "devpts data");
	brig_mount_flags_release(&f);

	f = PARSE("lowerdir=/a,b:/c\\:d", "upperdir=/u", "workdir=/w", "ro");
	is_str(f.data, "lowerdir=/a,b:/c\\:d,upperdir=/u,workdir=/w",
	       "values with ',' and ':' are kept as they are");
	ok(f.sb_ro, "ro beside overlay data");
	brig_mount_flags_release(&f);

	f = PARSE("z", "Z", "RO", "nosuid=1", "context=\"a,b\"");
	is_str(f.data, "z,Z,RO,nosuid=1,context=\"a,b\"",
	       "unknown names (case matters, = makes a key) are data");
	ok(!f.attr_set, "none of them is a flag");
	brig_mount_flags_release(&f);
}

static void test_errors(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_mount_flags f;
	const char *empty[] = { "ro", "" };
	const char *null[] = { "size=1k", NULL };

	ok(brig_mount_flags_parse(empty, 2, &f, &err) < 0, "an empty option fails");
	is_str(err.msg, "mount option 1 is empty", "and says which");
	brig_error_release(&err);
	ok(brig_mount_flags_parse(null, 2, &f, &err) < 0 && f.data == NULL,
	   "a NULL option fails and leaves no data behind");
	brig_error_release(&err);
}

static void test_names(void)
{
	static const char *const required[] = {
		"ro",           "rw",         "suid",         "nosuid",
		"dev",          "nodev",      "exec",         "noexec",
		"atime",        "noatime",    "diratime",     "nodiratime",
		"relatime",     "norelatime", "strictatime",  "nostrictatime",
		"nosymfollow",  "symfollow",  "sync",         "async",
		"dirsync",      "mand",       "nomand",       "lazytime",
		"nolazytime",   "silent",     "loud",         "iversion",
		"noiversion",   "remount",    "bind",         "rbind",
		"private",      "rprivate",   "shared",       "rshared",
		"slave",        "rslave",     "unbindable",   "runbindable",
		"rro",          "rrw",        "rnosuid",      "rsuid",
		"rnodev",       "rdev",       "rnoexec",      "rexec",
		"rnodiratime",  "rdiratime",  "rrelatime",    "rnorelatime",
		"rnoatime",     "ratime",     "rstrictatime", "rnostrictatime",
		"rnosymfollow", "rsymfollow", "tmpcopyup",    "idmap",
		"ridmap",       "defaults",
	};
	size_t n = 0;
	bool sorted = true, all_known = true;

	for (; brig_mount_option_names[n]; n++) {
		const char *opts[] = { brig_mount_option_names[n] };
		struct brig_mount_flags f = parse_n(opts, 1);
		const char *name = brig_mount_option_names[n];
		bool sb = !strcmp(name, "sync") || !strcmp(name, "async") ||
		          !strcmp(name, "dirsync") || !strcmp(name, "lazytime") ||
		          !strcmp(name, "nolazytime") || !strcmp(name, "mand") ||
		          !strcmp(name, "nomand");

		if (n && strcmp(brig_mount_option_names[n - 1], name) >= 0)
			sorted = false;
		if (!sb && f.data) {
			all_known = false;
			printf("# \"%s\" went to data\n", name);
		}
		brig_mount_flags_release(&f);
	}
	ok(sorted, "the names are sorted (the parser looks them up by bisection)");
	ok(all_known, "every listed name is understood (only superblock flags reach data)");
	is_int((long long)n, (long long)ARRAY_SIZE(required), "as many names as runc knows");
	for (size_t i = 0; i < ARRAY_SIZE(required); i++) {
		bool found = false;

		for (size_t j = 0; j < n && !found; j++)
			found = !strcmp(brig_mount_option_names[j], required[i]);
		if (!found)
			ok(false, "\"%s\" is listed", required[i]);
	}
	ok(true, "every runc option is listed");
}

int main(void)
{
	test_attrs();
	test_ro_rw();
	test_atime();
	test_propagation();
	test_kinds();
	test_data();
	test_errors();
	test_names();
	return tap_done();
}
