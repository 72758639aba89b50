/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rest of libibverbs' public ABI: strings, rate conversions, fork
 * support (nothing to do: no kernel pins pages for softrnic), sysfs
 * helpers, and the verbs softrnic does not offer, which fail with
 * EOPNOTSUPP (doc/ibverbs.md lists them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sib.h"

const char *
ibv_wc_status_str(enum ibv_wc_status status)
{
	static const char *const s[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IBV_WC_REM_ABORT_ERR] = "aborted error",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IBV_WC_GENERAL_ERR] = "general error",
		[IBV_WC_TM_ERR] = "TM error",
		[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
	};

	return (unsigned int)status < sizeof(s) / sizeof(s[0]) && s[status] ? s[status] :
	       "unknown";
}

const char *
ibv_node_type_str(enum ibv_node_type t)
{
	static const char *const s[] = {
		[IBV_NODE_CA] = "InfiniBand channel adapter", [IBV_NODE_SWITCH] = "InfiniBand switch",
		[IBV_NODE_ROUTER] = "InfiniBand router", [IBV_NODE_RNIC] = "iWARP NIC",
		[IBV_NODE_USNIC] = "usNIC", [IBV_NODE_USNIC_UDP] = "usNIC UDP",
		[IBV_NODE_UNSPECIFIED] = "unspecified",
	};

	return (unsigned int)t < sizeof(s) / sizeof(s[0]) && s[t] ? s[t] : "unknown";
}

const char *
ibv_port_state_str(enum ibv_port_state st)
{
	static const char *const s[] = {
		[IBV_PORT_NOP] = "no state change (NOP)", [IBV_PORT_DOWN] = "down",
		[IBV_PORT_INIT] = "init", [IBV_PORT_ARMED] = "armed",
		[IBV_PORT_ACTIVE] = "active", [IBV_PORT_ACTIVE_DEFER] = "active defer",
	};

	return (unsigned int)st < sizeof(s) / sizeof(s[0]) && s[st] ? s[st] : "unknown";
}

const char *
ibv_event_type_str(enum ibv_event_type e)
{
	static const char *const s[] = {
		[IBV_EVENT_CQ_ERR] = "CQ error", [IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[IBV_EVENT_COMM_EST] = "communication established",
		[IBV_EVENT_SQ_DRAINED] = "send queue drained",
		[IBV_EVENT_PATH_MIG] = "path migrated", [IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
		[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[IBV_EVENT_PORT_ACTIVE] = "port active", [IBV_EVENT_PORT_ERR] = "port error",
		[IBV_EVENT_LID_CHANGE] = "LID change", [IBV_EVENT_PKEY_CHANGE] = "P_Key change",
		[IBV_EVENT_SM_CHANGE] = "SM change", [IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[IBV_EVENT_GID_CHANGE] = "GID table change", [IBV_EVENT_WQ_FATAL] = "WQ fatal",
	};

	return (unsigned int)e < sizeof(s) / sizeof(s[0]) && s[e] ? s[e] : "unknown";
}

/* enum ibv_rate <-> multiples of 2.5 Gb/s and Mb/s (IBA table 224's rates) */
static const struct {
	enum ibv_rate r;
	int mult, mbps;
} rates[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 }, { IBV_RATE_5_GBPS, 2, 5000 },
	{ IBV_RATE_10_GBPS, 4, 10000 }, { IBV_RATE_20_GBPS, 8, 20000 },
	{ IBV_RATE_30_GBPS, 12, 30000 }, { IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 }, { IBV_RATE_80_GBPS, 32, 80000 },
	{ IBV_RATE_120_GBPS, 48, 120000 }, { IBV_RATE_14_GBPS, 5, 14062 },
	{ IBV_RATE_56_GBPS, 22, 56250 }, { IBV_RATE_112_GBPS, 45, 112500 },
	{ IBV_RATE_168_GBPS, 67, 168750 }, { IBV_RATE_25_GBPS, 10, 25781 },
	{ IBV_RATE_100_GBPS, 40, 103125 }, { IBV_RATE_200_GBPS, 80, 206250 },
	{ IBV_RATE_300_GBPS, 120, 309375 }, { IBV_RATE_28_GBPS, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 53125 }, { IBV_RATE_400_GBPS, 160, 425000 },
	{ IBV_RATE_600_GBPS, 240, 637500 }, { IBV_RATE_800_GBPS, 320, 850000 },
	{ IBV_RATE_1200_GBPS, 480, 1275000 },
};
#define NRATES (sizeof(rates) / sizeof(rates[0]))

int
ibv_rate_to_mult(enum ibv_rate rate)
{
	for (unsigned int i = 0; i < NRATES; i++)
		if (rates[i].r == rate)
			return rates[i].mult;
	return -1;
}

enum ibv_rate
mult_to_ibv_rate(int mult)
{
	for (unsigned int i = 0; i < NRATES; i++)
		if (rates[i].mult == mult)
			return rates[i].r;
	return IBV_RATE_MAX;
}

int
ibv_rate_to_mbps(enum ibv_rate rate)
{
	for (unsigned int i = 0; i < NRATES; i++)
		if (rates[i].r == rate)
			return rates[i].mbps;
	return -1;
}

enum ibv_rate
mbps_to_ibv_rate(int mbps)
{
	for (unsigned int i = 0; i < NRATES; i++)
		if (rates[i].mbps == mbps)
			return rates[i].r;
	return IBV_RATE_MAX;
}

/* Fork: the engine reads registered memory by address, nothing is pinned
 * by a kernel, so there is nothing to protect across fork(). */
int
ibv_fork_init(void)
{
	return 0;
}

enum ibv_fork_status
ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

int
ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

int
ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

/* sysfs helpers (driver.h): real reads, though no softrnic device has a
 * sysfs directory. */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);

const char *
ibv_get_sysfs_path(void)
{
	return "/sys";
}

int
ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	char path[512];
	ssize_t len;
	int fd;

	if (size == 0 || snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len <= 0)
		return -1;
	if ((size_t)len == size)
		len--;
	if (buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	return (int)len;
}

/* ------------------------------------------------------------------ */
/* Not offered                                                         */
/* ------------------------------------------------------------------ */

/* Kernel ABI copies (rdma_cm's kernel path): softrnic has no kernel. */
void ibv_copy_path_rec_from_kern(void *dst, const void *src);
void ibv_copy_path_rec_to_kern(void *dst, const void *src);
void ibv_copy_qp_attr_from_kern(void *dst, const void *src);
void ibv_copy_ah_attr_from_kern(void *dst, const void *src);

void
ibv_copy_path_rec_from_kern(void *dst, const void *src)
{
	(void)dst;
	(void)src;
}

void
ibv_copy_path_rec_to_kern(void *dst, const void *src)
{
	(void)dst;
	(void)src;
}

void
ibv_copy_qp_attr_from_kern(void *dst, const void *src)
{
	(void)dst;
	(void)src;
}

void
ibv_copy_ah_attr_from_kern(void *dst, const void *src)
{
	(void)dst;
	(void)src;
}

void ibv_register_driver(const char *name, void *init);

void
ibv_register_driver(const char *name, void *init)
{
	(void)name;
	(void)init;
}

int ibv_resolve_eth_l2_from_gid(struct ibv_context *context, struct ibv_ah_attr *attr,
				uint8_t eth_mac[6], uint16_t *vid);

int
ibv_resolve_eth_l2_from_gid(struct ibv_context *context, struct ibv_ah_attr *attr,
			    uint8_t eth_mac[6], uint16_t *vid)
{
	(void)context;
	(void)attr;
	(void)eth_mac;
	(void)vid;
	return EOPNOTSUPP;
}

/* The one's-complement sum of an IPv4 header is 0xffff when it is intact. */
static bool
ipv4_hdr_ok(const uint8_t *h)
{
	uint32_t sum = 0;

	if (h[0] != 0x45)
		return false;
	for (unsigned int i = 0; i < 20; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* The index of @p gid in the port's table, or -1. */
static int
gid_index_of(struct ibv_context *context, uint8_t port_num, const union ibv_gid *gid)
{
	union ibv_gid g;
	struct ibv_port_attr pa;

	if (ibv_query_port(context, port_num, &pa) != 0)
		return -1;
	for (int i = 0; i < pa.gid_tbl_len; i++)
		if (ibv_query_gid(context, port_num, i, &g) == 0 &&
		    memcmp(g.raw, gid->raw, sizeof(g.raw)) == 0)
			return i;
	return -1;
}

/*
 * An address handle back to the sender of a UD receive, as rdma-core
 * builds it for RoCE: the GRH area holds either a GRH (IPv6) or, in its
 * last 20 bytes, the IPv4 header (told apart by version and checksum);
 * the destination is the sender's GID, the source index the table entry
 * the packet was addressed to. EINVAL without IBV_WC_GRH (RoCE needs a
 * GRH) or with an address not in the table.
 */
int
ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc,
		    struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
{
	const uint8_t *ip = (const uint8_t *)grh + 20;
	union ibv_gid dst;
	int idx;

	if (context == NULL || wc == NULL || grh == NULL || ah_attr == NULL ||
	    !(wc->wc_flags & IBV_WC_GRH)) {
		errno = EINVAL;
		return -1;
	}
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	ah_attr->is_global = 1;
	ah_attr->grh.hop_limit = 0xff;
	if (ipv4_hdr_ok(ip)) {
		memset(&ah_attr->grh.dgid, 0, sizeof(ah_attr->grh.dgid));
		ah_attr->grh.dgid.raw[10] = ah_attr->grh.dgid.raw[11] = 0xff;
		memcpy(&ah_attr->grh.dgid.raw[12], ip + 12, 4);    /* source address */
		memset(&dst, 0, sizeof(dst));
		dst.raw[10] = dst.raw[11] = 0xff;
		memcpy(&dst.raw[12], ip + 16, 4);                  /* destination */
		ah_attr->grh.traffic_class = ip[1];
	} else if ((((const uint8_t *)grh)[0] >> 4) == 6) {
		uint32_t vcf = be32toh(grh->version_tclass_flow);

		ah_attr->grh.dgid = grh->sgid;
		dst = grh->dgid;
		ah_attr->grh.traffic_class = (uint8_t)(vcf >> 20);
		ah_attr->grh.flow_label = vcf & 0xfffff;
	} else {
		errno = EINVAL;
		return -1;
	}
	idx = gid_index_of(context, port_num, &dst);
	if (idx < 0) {
		errno = EINVAL;
		return -1;
	}
	ah_attr->grh.sgid_index = (uint8_t)idx;
	return 0;
}

struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
		      uint8_t port_num)
{
	struct ibv_ah_attr a;

	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &a) != 0)
		return NULL;
	return ibv_create_ah(pd, &a);
}

int
ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length,
	     int access)
{
	(void)mr;
	(void)flags;
	(void)pd;
	(void)addr;
	(void)length;
	(void)access;
	errno = EOPNOTSUPP;
	return IBV_REREG_MR_ERR_INPUT;
}

struct ibv_mr *
ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd,
		  int access)
{
	(void)pd;
	(void)offset;
	(void)length;
	(void)iova;
	(void)fd;
	(void)access;
	errno = EOPNOTSUPP;
	return NULL;
}

int
ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

int
ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

int
ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	(void)qp;
	(void)op;
	(void)flags;
	return 0;     /* no promise beyond IBA's: the last byte may land first */
}

/* Import (sharing a kernel context's objects): no kernel context. */
struct ibv_context *
ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	errno = EOPNOTSUPP;
	return NULL;
}

struct ibv_pd *
ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	(void)context;
	(void)pd_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void
ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

struct ibv_mr *
ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd;
	(void)mr_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void
ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

struct ibv_dm *
ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	(void)context;
	(void)dm_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void
ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}
