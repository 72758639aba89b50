/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The JSON configuration loader: reads a softrnic run description (EAL
 * arguments, ports, lcore roles, MRs, CQs, QPs, a workload, options) and
 * turns it into plain C structures. Every value is checked against the
 * schema (types, ranges, enums, unknown keys, names and cross references)
 * and the first problem is reported as one line naming its JSON path:
 *
 *     qps[3].pmtu: 3000 is not one of 256,512,1024,2048,4096
 *
 * Cross references are resolved to array indices (`*_idx` fields, -1 when
 * absent). The result holds no jansson object: the data path never sees
 * JSON. The schema, with defaults, is documented in config/README.md.
 */
#ifndef RNIC_CONFIG_H
#define RNIC_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_byteorder.h>

#include "rnic_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Names are 1..31 characters: [A-Za-z_][A-Za-z0-9_-]*. */
#define RNIC_CFG_NAME_MAX    32
/** DPDK device string (name plus devargs), at most 255 characters. */
#define RNIC_CFG_DEVICE_MAX  256
/** A configuration file is a regular file of at most 4 MiB. */
#define RNIC_CFG_FILE_MAX    (4u << 20)
/** Largest ports[].workers (the engine's RNIC_MAX_WORKERS). */
#define RNIC_CFG_WORKERS_MAX 64
/**
 * Largest ports[].workers of a ring_peer port: its ring pair has a queue
 * pair per worker, two TX queues each, and a net_ring port has at most 16
 * TX queues (RTE_PMD_RING_MAX_TX_RINGS).
 */
#define RNIC_CFG_RING_WORKERS_MAX 8

/** Index of a role in rnic_cfg_port.lcore[]: bit n of RNIC_ROLE_* is index n. */
enum rnic_cfg_role {
	RNIC_CFG_ROLE_TX,        /**< RNIC_ROLE_TX */
	RNIC_CFG_ROLE_RX,        /**< RNIC_ROLE_RX */
	RNIC_CFG_ROLE_TIMER,     /**< RNIC_ROLE_TIMER */
	RNIC_CFG_NROLES,
};

/** ports[]: one rnic_device. */
struct rnic_cfg_port {
	char name[RNIC_CFG_NAME_MAX];
	/** DPDK device ("net_memif0", "net_pcap0,iface=x"); "" with ring_peer. */
	char device[RNIC_CFG_DEVICE_MAX];
	/**
	 * net_impair devargs without "port=" (e.g. "drop=0.01,seed=7"): this
	 * ring_peer port's link goes through a net_impair vdev. "" for none.
	 */
	char impair[RNIC_CFG_DEVICE_MAX];
	/** The port joined to this one by an in-process ring pair, or -1. */
	int ring_peer_idx;
	bool has_mac;            /**< false: use the DPDK port's own MAC */
	uint8_t mac[6];
	rte_be32_t ipv4;         /**< network order, as rnic_dev_attr */
	/** "ipv6": its IPv6 addresses (a string or a list); the GID table is
	 *  ipv4 (index 0), then these (rnic_dev_attr.ipv6). */
	uint8_t ipv6[RNIC_IPV6_MAX][16];
	uint8_t n_ipv6;
	uint16_t vlan;           /**< 0: untagged, else VLAN ID 1..4094 */
	uint16_t burst;
	uint8_t queues;          /**< 0: auto (two when the port has them), 1, 2 */
	uint32_t max_qps;
	uint32_t max_mrs;
	uint32_t max_cqs;
	uint32_t mbufs;
	uint32_t ring_size;      /**< power of two */
	uint32_t max_inflight;   /**< rnic_dev_attr.max_inflight */
	uint16_t mtu;            /**< rnic_dev_attr.mtu: the RoCE MTU (256..4096) */
	bool ecn;                /**< ECT(0) on data packets (!no_ecn) */
	uint8_t cnp_dscp;        /**< rnic_dev_attr.cnp_dscp */
	uint32_t cnp_interval_us; /**< rnic_dev_attr.cnp_interval_us */
	bool dcqcn_on;           /**< !rnic_dev_attr.no_dcqcn */
	struct rnic_dcqcn_params dcqcn; /**< rnic_dev_attr.dcqcn */
	/** Engine workers (rnic_dev_attr.workers), 1..RNIC_CFG_WORKERS_MAX. */
	uint16_t workers;
	/**
	 * worker_lcore[w][role]: the lcore polling role @c role (enum
	 * rnic_cfg_role) of worker @c w, from lcores[]; @c workers rows. All
	 * -1 when lcores[] does not name the port: the application picks one
	 * lcore per worker for all three roles (run to completion).
	 */
	int (*worker_lcore)[RNIC_CFG_NROLES];
};

/**
 * lcores[]: lcore @c lcore polls roles @c roles of worker @c worker of
 * port @c port_idx.
 */
struct rnic_cfg_lcore {
	int lcore;               /**< 1..127; lcore 0 is the main lcore */
	int port_idx;
	unsigned int worker;     /**< < the port's workers */
	unsigned int roles;      /**< RNIC_ROLE_* bits */
};

/** mrs[].fill.pattern: the MR's initial contents. */
enum rnic_cfg_fill {
	RNIC_CFG_FILL_ZERO,
	RNIC_CFG_FILL_BYTE,      /**< every byte is fill_value */
	RNIC_CFG_FILL_COUNTER,   /**< byte i is (uint8_t)i */
	RNIC_CFG_FILL_RANDOM,    /**< pseudo-random from fill_seed */
};

/** mrs[]: a registered memory region. */
struct rnic_cfg_mr {
	char name[RNIC_CFG_NAME_MAX];
	int port_idx;
	uint64_t size;           /**< bytes, 1..2^34 */
	int access;              /**< enum rnic_access_flags bits */
	enum rnic_cfg_fill fill;
	uint8_t fill_value;      /**< RNIC_CFG_FILL_BYTE */
	uint64_t fill_seed;      /**< RNIC_CFG_FILL_RANDOM */
};

/** cqs[]: a completion queue. */
struct rnic_cfg_cq {
	char name[RNIC_CFG_NAME_MAX];
	int port_idx;
	uint32_t depth;
};

/**
 * qps[].remote: the peer of a connected QP, or the destination of a UD
 * QP's workload. Either @c qp_idx names a QP of this config (loopback) and
 * the rest is copied from it and its port, or the address is given.
 */
struct rnic_cfg_remote {
	int qp_idx;              /**< the peer QP, or -1 */
	/**
	 * false only with qp_idx, when the peer's port has no "mac": use the
	 * MAC that DPDK reports for that port.
	 */
	bool has_mac;
	uint8_t mac[6];
	rte_be32_t ipv4;         /**< network order (when !ipv6) */
	bool ipv6;               /**< the peer's address is IPv6: ipv6_addr */
	uint8_t ipv6_addr[16];
	/** "cm_port" (with "qp", RC, both QPs in RTS): the pair is connected by
	 *  the CM (lib/cm) instead of by QPN: this QP connects to its peer,
	 *  which listens on this port; 0: not. Both ends naming it is an
	 *  error, so is a peer whose "remote" is not this QP. */
	uint16_t cm_port;
	/** 0 only with qp_idx, when the peer's qpn is "auto": read it back. */
	uint32_t qpn;
};

/** qps[]: a queue pair and the state the application brings it to. */
struct rnic_cfg_qp {
	char name[RNIC_CFG_NAME_MAX];
	int port_idx;
	enum rnic_qp_type type;
	uint32_t qpn;            /**< 0: "auto", the device allocates one */
	int send_cq_idx;
	int recv_cq_idx;
	struct rnic_qp_cap cap;
	bool has_remote;
	struct rnic_cfg_remote remote;
	uint32_t sq_psn;
	/** Default: the peer's sq_psn when remote.qp is used, else 0. */
	uint32_t rq_psn;
	enum rnic_mtu pmtu;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	int access;              /**< enum rnic_access_flags bits, remote only */
	uint16_t pkey;
	uint32_t qkey;           /**< used by UD only */
	bool sr;                 /**< "selective_repeat": RC, both ends (doc/reliability.md) */
	enum rnic_qp_state state;
	uint8_t sl;              /**< service level: the 802.1Q priority (PCP) of
				  *   its frames on a port with a VLAN */
	uint8_t dscp;            /**< DSCP of its frames (the ECN bits stay the
				  *   port's: ECT(0) unless "ecn" is false) */
	int8_t ecn;              /**< "ecn": 1 ECT(0), 0 Not-ECT, -1 (absent):
				  *   the port's "ecn" */
	uint8_t gid_index;       /**< its source address: the port's GID table
				  *   (0: ipv4, 1..: ipv6[]); the remote's
				  *   address is of the same family */
};

/** workload[].wait: when a work request of the entry counts as done. */
enum rnic_cfg_wait {
	/** Its completion (and the peer's receive): the default. */
	RNIC_CFG_WAIT_COMPLETION,
	/**
	 * Its transmission: the peer is outside this process and may not
	 * exist (a capture port). RC WRs are never waited for, as nothing
	 * acknowledges them; UC and UD WRs complete on transmit. Requires
	 * verify false, a remote given by address and a count.
	 */
	RNIC_CFG_WAIT_TRANSMIT,
};

/** workload[]: a stream of work requests posted on one QP. */
struct rnic_cfg_work {
	int qp_idx;
	enum rnic_wr_opcode opcode;
	unsigned int n_sizes;
	uint32_t *sizes;         /**< message sizes, each run in turn */
	/** WRs per size; 0 when duration_ms is set instead. */
	uint64_t count;
	uint32_t duration_ms;    /**< 0 when count is set */
	uint32_t signaled_every;
	int local_mr_idx;
	int remote_mr_idx;       /**< -1 when absent */
	bool inline_data;        /**< JSON key "inline" */
	bool verify;
	uint32_t depth;          /**< outstanding WRs */
	enum rnic_cfg_wait wait;
};

/** options: run control. */
struct rnic_cfg_options {
	uint32_t stats_interval_ms;  /**< 0: no periodic statistics */
	bool exit_when_done;
	uint32_t timeout_s;          /**< 0: no time limit */
};

/** A loaded configuration; every array has a count and may be NULL when empty. */
/** The soak (top-level "soak"); present is false when absent. */
struct rnic_cfg_soak {
	bool present;
	int qp_idx;              /**< requester of the impaired RC pair */
	int baseline_qp_idx;     /**< requester of the clean RC pair */
	uint64_t messages;
	uint32_t max_size;       /**< 8..16384 */
	uint32_t depth;          /**< messages in flight */
	uint64_t seed;
	uint32_t timeout_s;
};

/** Applications attached to the daemon (top-level "attach", issue 20);
 *  present is false when absent. Limits are per application; 0 is the
 *  attach layer's default. */
#define RNIC_CFG_PATH_MAX 108   /* a unix socket path (sun_path) */
struct rnic_cfg_attach {
	bool present;
	char socket[RNIC_CFG_PATH_MAX];
	uint32_t max_apps;
	uint32_t max_pds;
	uint32_t max_mrs;
	uint64_t max_mr_bytes;
	uint32_t max_cqs;
	uint32_t max_cqe;
	uint32_t max_qps;
	uint32_t max_ahs;
	uint32_t stop_timeout_ms; /**< a clean stop waits this long for the
				   *   flushed completions to reach them */
};

struct rnic_config {
	unsigned int eal_argc;
	char **eal_argv;         /**< EAL arguments, without argv[0] */
	unsigned int n_ports;
	struct rnic_cfg_port *ports;
	unsigned int n_lcores;
	struct rnic_cfg_lcore *lcores;
	unsigned int n_mrs;
	struct rnic_cfg_mr *mrs;
	unsigned int n_cqs;
	struct rnic_cfg_cq *cqs;
	unsigned int n_qps;
	struct rnic_cfg_qp *qps;
	unsigned int n_work;
	struct rnic_cfg_work *work;
	struct rnic_cfg_options options;
	struct rnic_cfg_soak soak;
	struct rnic_cfg_attach attach;
};

/**
 * Parse and check a configuration held in a string.
 * @param json   NUL-terminated JSON text
 * @param err    receives one line, "<json path>: <problem>", on failure
 * @param errlen size of @p err (the message is truncated to fit)
 * @return the configuration (free with rnic_config_free), or NULL with
 *         @p err filled in and errno set to EINVAL (bad configuration) or
 *         ENOMEM.
 */
struct rnic_config *rnic_config_load_string(const char *json, char *err, size_t errlen);

/**
 * Parse and check a configuration file; as rnic_config_load_string.
 * @return the configuration, or NULL with @p err filled in and errno set
 *         to EINVAL, ENOMEM or the error that opening or reading the file
 *         returned.
 */
struct rnic_config *rnic_config_load_file(const char *path, char *err, size_t errlen);

/** Free a configuration; NULL is allowed. */
void rnic_config_free(struct rnic_config *cfg);

/**
 * Write @p cfg as JSON with every default filled in. The output loads back
 * into the same configuration.
 * @return 0, or -EIO / -ENOMEM.
 */
int rnic_config_dump(FILE *f, const struct rnic_config *cfg);

/** Names used by the JSON schema, for messages. */
const char *rnic_cfg_opcode_name(enum rnic_wr_opcode op);
const char *rnic_cfg_qp_type_name(enum rnic_qp_type t);
const char *rnic_cfg_qp_state_name(enum rnic_qp_state s);

#ifdef __cplusplus
}
#endif

#endif /* RNIC_CONFIG_H */
