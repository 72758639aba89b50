/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Applications attached to a running softrnic daemon (issue 20,
 * doc/design.md "Applications attached to the daemon").
 *
 * The application's side: rnic_attach_open() connects to the daemon's
 * socket and returns its ports as devices; every rnic_* verb on them (and
 * on the PDs, MRs, CQs, QPs and AHs made on them) then goes to the daemon
 * (rnic_remote.h): control calls as requests over the socket, post_send,
 * post_recv and poll_cq through rings in shared memory that the daemon's
 * lcores serve. The application runs no engine and no DPDK lcore.
 *
 * The daemon's side: a server on the socket (rnic_attach_server_*), whose
 * control part runs on the daemon's main thread and whose data part (the
 * doorbell role: send and receive rings into the engine, completions out)
 * runs on the engine lcores beside the roles they poll.
 */
#ifndef RNIC_ATTACH_H
#define RNIC_ATTACH_H

#include <stdbool.h>
#include <stdint.h>

#include "rnic_attach_proto.h"
#include "rnic_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Application                                                         */
/* ------------------------------------------------------------------ */

/**
 * Attach to the daemon listening on unix socket @p path: up to @p max of
 * its ports as devices in @p devs (*@p n of them). Each is freed with
 * rnic_dev_destroy(), which also frees what was made on it; the
 * connection closes with the last. Memory registered on them must be
 * anonymous private memory (malloc, mmap MAP_PRIVATE|MAP_ANONYMOUS; it is
 * moved into shared memory the daemon maps, in place, at registration) or
 * memory registered before; other memory is refused with EFAULT.
 * @return 0, or a negative errno (-ECONNREFUSED: nobody listens;
 *         -EPROTO: not a softrnic daemon of this version; -EUSERS: the
 *         daemon serves its maximum of applications).
 */
int rnic_attach_open(const char *path, struct rnic_device **devs, unsigned int max,
		     unsigned int *n);

/** The daemon's name for the port behind @p dev (its configuration's
 *  ports[].name), or NULL when @p dev is not attached. */
const char *rnic_attach_port_name(const struct rnic_device *dev);

/** True when @p dev is a daemon's port (rnic_attach_open). */
bool rnic_dev_is_attached(const struct rnic_device *dev);

/** What the daemon holds for applications now (SERVER_STATS). 0 or a
 *  negative errno. */
int rnic_attach_server_stats_get(struct rnic_device *dev, struct rnic_att_server_stats *st);

/** The application page's state (enum rnic_att_state): RNIC_ATT_STOPPING
 *  or RNIC_ATT_GONE once the daemon stops; its QPs are then in Error. */
int rnic_attach_state(const struct rnic_device *dev);

/* ------------------------------------------------------------------ */
/* Daemon                                                              */
/* ------------------------------------------------------------------ */

/** What one application may hold (config "attach.app"; 0: the default). */
struct rnic_attach_limits {
	uint32_t max_apps;       /**< applications at once, default 16 */
	uint32_t max_pds;        /**< per application, default 16 */
	uint32_t max_mrs;        /**< default 256 */
	uint64_t max_mr_bytes;   /**< registered bytes, default 1 GiB */
	uint32_t max_cqs;        /**< default 64 */
	uint32_t max_cqe;        /**< depth of one CQ, default 65536 */
	uint32_t max_qps;        /**< default 256 */
	uint32_t max_ahs;        /**< default 256 */
};

struct rnic_attach_server;

/**
 * Listen on unix socket @p path (an existing socket file is replaced) for
 * applications, which may use @p n_ports ports: @p devs with their
 * configuration names @p names. Main thread.
 * @return the server, or NULL with errno.
 */
struct rnic_attach_server *rnic_attach_server_create(const char *path,
						     struct rnic_device *const *devs,
						     const char *const *names, unsigned int n_ports,
						     const struct rnic_attach_limits *lim);

/**
 * Before the lcores start: lcore @p lcore polls @p roles of worker
 * @p worker of @p dev. The lcore polling a worker's TX role is that
 * worker's doorbell role: it serves the rings of the attached QPs the
 * worker owns, and of the CQs of worker 0. 0 or -EINVAL.
 */
int rnic_attach_server_add_lcore(struct rnic_attach_server *srv, unsigned int lcore,
				 struct rnic_device *dev, unsigned int worker, unsigned int roles);

/** Whether lcores poll the server (the default, once one is added) or
 *  the caller does, between its control calls (tests, the fuzzer): then
 *  nothing waits for an lcore to pass ([ATT-QUIESCE] is immediate). */
void rnic_attach_server_set_polled(struct rnic_attach_server *srv, bool polled);

/** The doorbell role of lcore @p lcore (its engine loop calls it every
 *  pass): WQEs from the applications' rings into the engine, completions
 *  into theirs. @return the work done. */
unsigned int rnic_attach_server_poll(struct rnic_attach_server *srv, unsigned int lcore);

/** Main thread: accept applications, answer their requests, route async
 *  events and tear down those that went away; waits up to @p timeout_ms
 *  for something to do. @return the requests served. */
int rnic_attach_server_serve(struct rnic_attach_server *srv, int timeout_ms);

/**
 * Main thread, lcores still polling: a clean stop. Every attached QP is
 * moved to Error (what its application posted first goes to the engine,
 * then everything is flushed) and the flushed completions reach the
 * applications' rings (up to @p timeout_ms); the applications are told
 * (RNIC_ATT_STOPPING). @return the QPs errored.
 */
unsigned int rnic_attach_server_stop(struct rnic_attach_server *srv, unsigned int timeout_ms);

/** Main thread, after the lcores stopped: free every application's
 *  objects, close the socket, free @p srv. */
void rnic_attach_server_destroy(struct rnic_attach_server *srv);

void rnic_attach_server_stats(struct rnic_attach_server *srv, struct rnic_att_server_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* RNIC_ATTACH_H */
