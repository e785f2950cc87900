/* SPDX-License-Identifier: Apache-2.0 */
/*
 * subreaper CMD [ARGS...]: run CMD as a child subreaper, as conmon and
 * containerd's shim are, so that the container inits `brig create` leaves
 * behind are reparented to us (and reaped) rather than to the machine's
 * PID 1.  Exits with CMD's status once CMD and every adopted process are
 * gone.  CMD finds our pid in $BRIG_SUBREAPER_PID: what it leaves behind
 * shows up in /proc/$BRIG_SUBREAPER_PID/task/.../children.
 *
 * CMD also runs in a cgroup of its own, "brig-tests.<our pid>" under ours
 * in every hierarchy under /sys/fs/cgroup (on a pure v2 host in its leaf
 * "shell", since a v2 cgroup with processes cannot give controllers to
 * its children).  The containers of one test file therefore never meet
 * those of another running in parallel, even with the same ids.  The
 * directories where the containers' cgroups appear are in
 * $BRIG_TEST_CGROUPS (colon-separated), for the per-test leak check.
 * At the end, a cgroup directory left under them is reported, removed,
 * and makes the exit status 1.
 *
 * $BRIG_TEST_CGROUP_PARENT, when set, names the directory of the pure v2
 * hierarchy under which "brig-tests.<our pid>" goes instead of ours: a
 * cgroup with no process of its own and its controllers enabled for its
 * children, which ours cannot be unless it is the root (we are in it).
 * The systemd guest (tests/vm/systemd/unit.sh) gives its delegated unit's.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_DIRS 32

static char *dirs[MAX_DIRS]; /* brig-tests.<pid> in each hierarchy */
static bool v2_shell[MAX_DIRS];
static int n_dirs;

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static int write_str(const char *dir, const char *file, const char *value)
{
	char path[4096];
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "we");
	if (!f)
		return -1;
	r = fputs(value, f) < 0 ? -1 : 0;
	if (fclose(f) != 0)
		r = -1;
	return r;
}

/* Is every comma-separated word of @want among those of @have? */
static bool includes(const char *have, const char *want)
{
	char w[256], h[1024];

	snprintf(w, sizeof(w), "%s", want);
	for (char *s1 = NULL, *t = strtok_r(w, ",", &s1); t; t = strtok_r(NULL, ",", &s1)) {
		bool found = false;

		snprintf(h, sizeof(h), "%s", have);
		for (char *s2 = NULL, *u = strtok_r(h, ",", &s2); u && !found;
		     u = strtok_r(NULL, ",", &s2))
			found = !strcmp(t, u);
		if (!found)
			return false;
	}
	return true;
}

/* The cgroup of ours (from /proc/self/cgroup) in the hierarchy mounted
 * with @superopts, v1 or v2. */
static const char *own_path(char *self, bool v2, const char *superopts, char *out, size_t size)
{
	for (char *s = NULL, *line = strtok_r(self, "\n", &s); line;
	     line = strtok_r(NULL, "\n", &s)) {
		char copy[4096], *c1, *c2;

		snprintf(copy, sizeof(copy), "%s", line);
		c1 = strchr(copy, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c1 = *c2 = '\0';
		if (v2 ? (strcmp(copy, "0") || c1[1]) : (!c1[1] || !includes(superopts, c1 + 1)))
			continue;
		snprintf(out, size, "%s", c2 + 1);
		return out;
	}
	return NULL;
}

/* v1 cpuset: a new cgroup takes no task until cpus and mems are set. */
static void cpuset_copy(const char *dir)
{
	static const char *const files[] = { "cpuset.cpus", "cpuset.mems" };
	char parent[4096], path[4200];

	snprintf(parent, sizeof(parent), "%s", dir);
	*strrchr(parent, '/') = '\0';
	for (int i = 0; i < 2; i++) {
		char *v;

		snprintf(path, sizeof(path), "%s/%s", parent, files[i]);
		v = read_all(path);
		if (v)
			write_str(dir, files[i], v);
		free(v);
	}
}

/* Make brig-tests.<pid> in every hierarchy and remember where. */
static void make_cgroups(pid_t me)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *self = read_all("/proc/self/cgroup");
	size_t cap = 0;

	if (!f || !self) {
		if (f)
			fclose(f);
		free(self);
		return;
	}
	while (getline(&line, &cap, f) > 0 && n_dirs < MAX_DIRS) {
		char mnt[4096], root[4096], fstype[64], opts[1024], own[4096], *sep, *copy;
		bool v2;

		sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2 ||
		    sscanf(sep + 3, "%63s %*s %1023s", fstype, opts) != 2)
			continue;
		v2 = !strcmp(fstype, "cgroup2");
		if ((!v2 && strcmp(fstype, "cgroup")) || strncmp(mnt, "/sys/fs/cgroup", 14) ||
		    strchr(mnt + 14 + (mnt[14] == '/'), '/'))
			continue;
		copy = strdup(self);
		if (!copy || !own_path(copy, v2, opts, own, sizeof(own))) {
			free(copy);
			continue;
		}
		free(copy);
		if (strcmp(root, "/"))
			continue; /* a sub-tree is mounted: leave it alone */
		if (v2 && !strcmp(mnt, "/sys/fs/cgroup") && getenv("BRIG_TEST_CGROUP_PARENT")) {
			if (asprintf(&dirs[n_dirs], "%s/brig-tests.%d",
			             getenv("BRIG_TEST_CGROUP_PARENT"), (int)me) < 0)
				break;
		} else if (asprintf(&dirs[n_dirs], "%s%s/brig-tests.%d", mnt,
		                    strcmp(own, "/") ? own : "", (int)me) < 0) {
			break;
		}
		if (mkdir(dirs[n_dirs], 0755) < 0) {
			free(dirs[n_dirs]);
			continue;
		}
		/* pure v2 only: a hybrid host's v2 hierarchy nests as v1 */
		v2_shell[n_dirs] = v2 && !strcmp(mnt, "/sys/fs/cgroup");
		if (!v2 && strstr(opts, "cpuset"))
			cpuset_copy(dirs[n_dirs]);
		if (v2_shell[n_dirs]) {
			char shell[4200];

			snprintf(shell, sizeof(shell), "%s/shell", dirs[n_dirs]);
			mkdir(shell, 0755);
		}
		n_dirs++;
	}
	free(line);
	free(self);
	fclose(f);
}

/* In CMD's process, before exec: into the new cgroups. */
static void enter_cgroups(void)
{
	char list[MAX_DIRS * 512] = "";

	for (int i = 0; i < n_dirs; i++) {
		char dir[4200];

		snprintf(dir, sizeof(dir), "%s%s", dirs[i], v2_shell[i] ? "/shell" : "");
		if (write_str(dir, "cgroup.procs", "0") < 0)
			fprintf(stderr, "subreaper: cannot enter cgroup %s: %m\n", dir);
		if (*list)
			strncat(list, ":", sizeof(list) - strlen(list) - 1);
		strncat(list, dirs[i], sizeof(list) - strlen(list) - 1);
	}
	setenv("BRIG_TEST_CGROUPS", list, 1);
}

/* rmdir @dir bottom-up; the leftovers other than "shell" are reported. */
static int remove_tree(const char *dir, bool report)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int leaks = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char sub[4200];

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		if (report && strcmp(de->d_name, "shell")) {
			fprintf(stderr, "subreaper: leaked cgroup %s\n", sub);
			leaks++;
		}
		remove_tree(sub, false);
	}
	closedir(d);
	for (int tries = 0; rmdir(dir) < 0 && errno == EBUSY && tries < 100; tries++)
		usleep(10000);
	return leaks;
}

int main(int argc, char **argv)
{
	int status = 0, cmd_status = 127, leaks = 0;
	pid_t cmd, pid;

	if (argc < 2) {
		fprintf(stderr, "usage: subreaper CMD [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		perror("subreaper: prctl");
		return 1;
	}
	if (geteuid() == 0)
		make_cgroups(getpid());
	cmd = fork();
	if (cmd < 0) {
		perror("subreaper: fork");
		return 1;
	}
	if (cmd == 0) {
		char pid_str[32];

		snprintf(pid_str, sizeof(pid_str), "%d", (int)getppid());
		setenv("BRIG_SUBREAPER_PID", pid_str, 1);
		enter_cgroups();
		execvp(argv[1], argv + 1);
		perror("subreaper: exec");
		_exit(127);
	}
	while ((pid = wait(&status)) > 0 || errno == EINTR) {
		if (pid == cmd)
			cmd_status =
			    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	for (int i = 0; i < n_dirs; i++)
		leaks += remove_tree(dirs[i], true);
	return leaks && !cmd_status ? 1 : cmd_status;
}
