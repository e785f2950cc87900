/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/apparmor.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "linux/procfs.h"
#include "util/cleanup.h"
#include "util/error.h"

#define ENABLED_PARAM "/sys/module/apparmor/parameters/enabled"

bool brig_apparmor_enabled(void)
{
	_cleanup_close_ int fd = open(ENABLED_PARAM, O_RDONLY | O_CLOEXEC);
	char c = 0;

	if (fd < 0 || read(fd, &c, 1) != 1 || c != 'Y')
		return false;
	/* the LSM-specific directory since Linux 5.8; before it, AppArmor
	 * enabled means AppArmor owns the shared attr files */
	return access("/proc/self/attr/apparmor/exec", F_OK) == 0 ||
	       access("/proc/self/attr/exec", F_OK) == 0;
}

int brig_apparmor_check(const char *profile, struct brig_error *err)
{
	if (!profile || !profile[0] || brig_apparmor_enabled())
		return 0;
	return brig_error_set(err, "AppArmor is not enabled on this host");
}

int brig_apparmor_set_exec(int procfd, const char *profile, struct brig_error *err)
{
	_cleanup_free_ char *cmd = NULL;
	char dir[64], path[96];

	if (!profile || !profile[0])
		return 0;
	snprintf(dir, sizeof(dir), "%d/task/%d/attr", (int)getpid(), (int)gettid());
	/* which of the two exists is asked of the private procfs too */
	snprintf(path, sizeof(path), "%s/apparmor/exec", dir);
	if (faccessat(procfd, path, F_OK, 0) < 0)
		snprintf(path, sizeof(path), "%s/exec", dir);
	cmd = brig_xasprintf("exec %s", profile);
	if (brig_procfs_write(procfd, path, cmd, strlen(cmd), err) < 0)
		return brig_error_wrap(err, "apply the AppArmor profile \"%s\"", profile);
	return 0;
}
