/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_pdump.h>

#include "rnic_app_capture.h"

static bool capture_on;

static int
probe_action(const struct rte_mp_msg *msg, const void *peer)
{
	RTE_SET_USED(msg);
	RTE_SET_USED(peer);
	return 0;
}

/* Whether the multi-process channel is up: rte_mp_action_register() fails
 * with ENOTSUP under --no-shconf (and --in-memory, which implies it).
 * rte_pdump_init() ignores that failure, so it cannot tell us. */
static bool
mp_channel_up(void)
{
	static const char name[] = "rnic_capture_probe";

	if (rte_mp_action_register(name, probe_action) != 0)
		return false;
	rte_mp_action_unregister(name);
	return true;
}

/* The --file-prefix of this process: the last component of its runtime
 * directory (/var/run/dpdk/PREFIX, or under $XDG_RUNTIME_DIR). */
static const char *
file_prefix(void)
{
	const char *dir = rte_eal_get_runtime_dir();
	const char *slash = dir ? strrchr(dir, '/') : NULL;

	return slash ? slash + 1 : "rte";
}

bool
rnic_app_capture_init(int logtype, const char *app)
{
	const char *why = NULL;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		why = "not the primary process";
	else if (!rte_eal_has_hugepages())
		why = "no hugepages (--no-huge): a secondary process cannot map this "
		      "process's memory";
	else if (!mp_channel_up())
		why = "multi-process is off (--no-shconf or --in-memory)";
	else if (rte_pdump_init() != 0)
		why = rte_strerror(rte_errno);
	if (why != NULL) {
		rte_log(RTE_LOG_INFO, logtype, "%s: capture: not available: %s\n", app, why);
		return false;
	}
	capture_on = true;
	rte_log(RTE_LOG_NOTICE, logtype, "%s: capture: available: dpdk-dumpcap "
		"--file-prefix=%s -i PORT -w FILE (or dpdk-pdump --file-prefix=%s)\n",
		app, file_prefix(), file_prefix());
	return true;
}

void
rnic_app_capture_port(int logtype, const char *app, const char *what, uint16_t port_id)
{
	char name[RTE_ETH_NAME_MAX_LEN];

	if (!capture_on || rte_eth_dev_get_name_by_port(port_id, name) != 0)
		return;
	rte_log(RTE_LOG_NOTICE, logtype, "%s: capture: %s is DPDK port %u, -i %s\n",
		app, what, port_id, name);
}

void
rnic_app_capture_uninit(void)
{
	if (capture_on)
		rte_pdump_uninit();
	capture_on = false;
}
