// SPDX-License-Identifier: GPL-2.0
/*
 * GNU make can only exit with 0, 1 or 2.  This load module adds
 * $(exit-status N), so that "make vm" exits with the guest command's status.
 */
#include <stdlib.h>
#include <gnumake.h>

int plugin_is_GPL_compatible;

static char *exit_status(const char *name, unsigned int argc, char **argv)
{
	int status = atoi(argv[0]);

	if (status)
		exit(status);
	return NULL;
}

int make_exit_gmk_setup(const gmk_floc *floc)
{
	gmk_add_function("exit-status", exit_status, 1, 1, GMK_FUNC_DEFAULT);
	return 1;
}
