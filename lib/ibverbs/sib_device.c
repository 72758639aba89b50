/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Devices, contexts and their queries; completion channels and
 * asynchronous events (doc/ibverbs.md).
 *
 * A device is a configured port: softrnic_<index>, one port (number 1),
 * link layer Ethernet, a GID table of one RoCEv2 entry (the port's IPv4
 * address, IPv4-mapped), one P_Key (0xffff).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>

#include "rnic_attach.h"
#include "sib.h"

#define SIB_FW_VER "softrnic 0.1.0"

/* ibv_port_attr.active_width / active_speed codes (IBA 14.2.5.6, as
 * ibv_devinfo prints them; rdma-core's headers do not name them) */
enum { W_1X = 1, W_4X = 2 };
enum { S_SDR = 1, S_FDR10 = 8, S_EDR = 32 };

static struct sib_device *devices;
static unsigned int n_devices;
static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;

/* EUI-64 from the MAC (U/L bit flipped), as RoCE NICs derive node GUIDs;
 * a port without a configured MAC uses 02:00 + its IPv4 address. */
static __be64
make_guid(unsigned int idx)
{
	uint8_t mac[6], g[8];
	uint32_t ip;
	uint16_t vlan;
	__be64 guid;

	sib_engine_port_addr(idx, mac, &ip, &vlan);
	if (!(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5])) {
		mac[0] = 0x02;
		memcpy(&mac[2], &ip, 4);
	}
	g[0] = mac[0] ^ 0x02;
	g[1] = mac[1];
	g[2] = mac[2];
	g[3] = 0xff;
	g[4] = 0xfe;
	g[5] = mac[3];
	g[6] = mac[4];
	g[7] = mac[5];
	memcpy(&guid, g, 8);
	return guid;
}

struct ibv_device **
ibv_get_device_list(int *num_devices)
{
	unsigned int n = sib_engine_ports();
	struct ibv_device **list;

	pthread_mutex_lock(&dev_lock);
	if (devices == NULL && n > 0) {
		devices = calloc(n, sizeof(*devices));
		for (unsigned int i = 0; devices != NULL && i < n; i++) {
			struct sib_device *d = &devices[i];

			d->ibdev.node_type = IBV_NODE_CA;
			d->ibdev.transport_type = IBV_TRANSPORT_IB;
			snprintf(d->ibdev.name, sizeof(d->ibdev.name), "softrnic_%u", i);
			snprintf(d->ibdev.dev_name, sizeof(d->ibdev.dev_name), "softrnic_%u", i);
			snprintf(d->ibdev.dev_path, sizeof(d->ibdev.dev_path),
				 "/sys/class/infiniband_verbs/softrnic_%u", i);
			snprintf(d->ibdev.ibdev_path, sizeof(d->ibdev.ibdev_path),
				 "/sys/class/infiniband/softrnic_%u", i);
			d->port_idx = i;
			d->guid = make_guid(i);
		}
		n_devices = devices != NULL ? n : 0;
	}
	list = calloc(n_devices + 1, sizeof(*list));
	for (unsigned int i = 0; list != NULL && i < n_devices; i++)
		list[i] = &devices[i].ibdev;
	pthread_mutex_unlock(&dev_lock);
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	if (num_devices != NULL)
		*num_devices = (int)n_devices;
	return list;
}

void
ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *
ibv_get_device_name(struct ibv_device *device)
{
	return device != NULL ? device->name : NULL;
}

__be64
ibv_get_device_guid(struct ibv_device *device)
{
	return ((struct sib_device *)device)->guid;
}

int
ibv_get_device_index(struct ibv_device *device)
{
	return (int)((struct sib_device *)device)->port_idx;
}

/* ------------------------------------------------------------------ */
/* Queries                                                             */
/* ------------------------------------------------------------------ */

static enum ibv_mtu
mtu_enum(unsigned int bytes)
{
	enum ibv_mtu m = IBV_MTU_256;

	while (m < IBV_MTU_4096 && (256u << (m - IBV_MTU_256 + 1)) <= bytes)
		m++;
	return m;
}

int
ibv_query_device(struct ibv_context *context, struct ibv_device_attr *a)
{
	struct sib_context *c = SIB_CTX(context);
	struct rnic_dev_attr da;

	rnic_dev_get_attr(c->dev, &da);
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "%s", SIB_FW_VER);
	a->node_guid = c->sdev->guid;
	a->sys_image_guid = c->sdev->guid;
	a->max_mr_size = UINT32_MAX;         /* a message's length is 32 bits */
	a->page_size_cap = 0xfffff000;
	a->max_qp = (int)da.max_qps;
	a->max_qp_wr = 65536;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN;
	a->max_sge = 32;
	a->max_sge_rd = 32;
	a->max_cq = (int)da.max_cqs;
	a->max_cqe = RNIC_MAX_CQE;
	a->max_mr = (int)da.max_mrs;
	a->max_pd = 65536;
	a->max_qp_rd_atom = RNIC_MAX_RD_ATOMIC;
	a->max_res_rd_atom = RNIC_MAX_RD_ATOMIC * (int)da.max_qps;
	a->max_qp_init_rd_atom = RNIC_MAX_RD_ATOMIC;
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_ah = 65536;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	a->phys_port_cnt = 1;
	return 0;
}

static int
query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
		struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex a;

	if (input != NULL && input->comp_mask != 0)
		return EINVAL;
	if (attr_size < sizeof(a.orig_attr) + sizeof(a.comp_mask))
		return EINVAL;
	memset(&a, 0, sizeof(a));
	ibv_query_device(context, &a.orig_attr);
	a.max_dm_size = 0;
	a.raw_packet_caps = 0;
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	return 0;
}

static void
link_speed(uint16_t port_id, uint8_t *width, uint8_t *speed, uint8_t *phys)
{
	struct rte_eth_link link;

	memset(&link, 0, sizeof(link));
	rte_eth_link_get_nowait(port_id, &link);
	*phys = link.link_status == RTE_ETH_LINK_UP ? 5 : 2;  /* LinkUp : Polling */
	*width = W_1X;
	if (link.link_speed >= 100000 && link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN) {
		*width = W_4X;
		*speed = S_EDR;               /* 4 x 25 Gb/s */
	} else if (link.link_speed >= 40000 && link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN) {
		*width = W_4X;
		*speed = S_FDR10;             /* 4 x 10 Gb/s */
	} else if (link.link_speed >= 25000 && link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN) {
		*speed = S_EDR;
	} else if (link.link_speed >= 10000 && link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN) {
		*speed = S_FDR10;
	} else {
		*speed = S_SDR;
	}
}

static int
query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *pa,
	   size_t len)
{
	struct sib_context *c = SIB_CTX(context);
	struct ibv_port_attr a;
	struct rnic_dev_attr da;

	if (port_num != 1)
		return EINVAL;
	rnic_dev_get_attr(c->dev, &da);
	memset(&a, 0, sizeof(a));
	/* Active while the engine runs the port; phys_state says whether the
	 * Ethernet link is up (a memif server's comes up with its client). */
	a.state = IBV_PORT_ACTIVE;
	a.max_mtu = IBV_MTU_4096;
	a.active_mtu = mtu_enum(da.mtu);
	a.gid_tbl_len = (int)rnic_dev_gid_count(c->dev);
	a.port_cap_flags = IBV_PORT_CM_SUP;
	a.max_msg_sz = UINT32_MAX;
	a.pkey_tbl_len = 1;
	a.max_vl_num = 1;
	a.link_layer = IBV_LINK_LAYER_ETHERNET;
	if (rnic_dev_is_attached(c->dev)) {   /* the daemon keeps its links up */
		a.active_width = W_1X;
		a.active_speed = S_FDR10;
		a.phys_state = 5;
	} else {
		link_speed(da.port_id, &a.active_width, &a.active_speed, &a.phys_state);
	}
	memcpy(pa, &a, len < sizeof(a) ? len : sizeof(a));
	return 0;
}

#undef ibv_query_port
/* The IBVERBS_1.1 entry (programs built before verbs_context.query_port):
 * the old port_attr ends before port_cap_flags2 and the fields after. */
int
ibv_query_port(struct ibv_context *context, uint8_t port_num,
	       struct _compat_ibv_port_attr *port_attr)
{
	return query_port(context, port_num, (struct ibv_port_attr *)port_attr,
			  offsetof(struct ibv_port_attr, flags));
}

/* GID @p index of the context's port: the engine's table (the IPv4
 * address as ::ffff:a.b.c.d, then the port's IPv6 addresses), all RoCE v2. */
static int
gid_of(struct sib_context *c, uint32_t index, union ibv_gid *gid)
{
	return rnic_dev_query_gid(c->dev, index, gid->raw) == 0 ? 0 : -1;
}

int
ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	if (port_num != 1 || index < 0 || gid_of(SIB_CTX(context), (uint32_t)index, gid) != 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
_ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		  struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;

	if (flags != 0 || port_num != 1 || entry_size < sizeof(e))
		return EINVAL;
	memset(&e, 0, sizeof(e));
	if (gid_of(SIB_CTX(context), gid_index, &e.gid) != 0)
		return ENODATA;
	e.gid_index = gid_index;
	e.port_num = port_num;
	e.gid_type = IBV_GID_TYPE_ROCE_V2;
	e.ndev_ifindex = 0;       /* no kernel netdev behind a DPDK port */
	memcpy(entry, &e, sizeof(e));
	return 0;
}

ssize_t
_ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
		     size_t max_entries, uint32_t flags, size_t entry_size)
{
	unsigned int n = rnic_dev_gid_count(SIB_CTX(context)->dev);

	if (max_entries < n || entry_size < sizeof(*entries))
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++)
		if (_ibv_query_gid_ex(context, 1, i, (struct ibv_gid_entry *)
				      ((uint8_t *)entries + i * entry_size), flags,
				      entry_size) != 0)
			return -EINVAL;
	return n;
}

/* rdma-core's private (driver.h) query of the GID type: 1 is RoCE v2. */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
		       int *type);
int
ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
		   int *type)
{
	if (port_num != 1 || index >= rnic_dev_gid_count(SIB_CTX(context)->dev)) {
		errno = EINVAL;
		return -1;
	}
	*type = 1;    /* IBV_GID_TYPE_SYSFS_ROCE_V2 */
	return 0;
}

int
ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey)
{
	(void)context;
	if (port_num != 1 || index != 0) {
		errno = EINVAL;
		return -1;
	}
	*pkey = rte_cpu_to_be_16(0xffff);
	return 0;
}

int
ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
	(void)context;
	if (port_num == 1 && (rte_be_to_cpu_16(pkey) & 0x7fff) == 0x7fff)
		return 0;
	errno = ENOENT;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Contexts                                                            */
/* ------------------------------------------------------------------ */

struct ibv_qp *sib_create_qp_ex(struct ibv_context *context,
				struct ibv_qp_init_attr_ex *attr);

struct ibv_qp *sib_qp_by_num(struct sib_context *c, uint32_t qpn);

/* Every open context, for sib_async_pump. */
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sib_context *ctx_list;

struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	struct sib_device *sd = (struct sib_device *)device;
	struct sib_context *c;
	struct rnic_device *dev;

	if (sd == NULL || devices == NULL || sd < devices || sd >= devices + n_devices) {
		errno = ENODEV;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	dev = sib_engine_get(sd->port_idx);
	if (dev == NULL) {
		int e = errno;

		free(c);
		errno = e;
		return NULL;
	}
	c->sdev = sd;
	c->dev = dev;
	c->vctx.sz = sizeof(c->vctx);
	c->vctx.query_port = query_port;
	c->vctx.query_device_ex = query_device_ex;
	c->vctx.create_qp_ex = sib_create_qp_ex;
	c->vctx.context.device = device;
	c->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	c->vctx.context.ops.poll_cq = sib_poll_cq;
	c->vctx.context.ops.req_notify_cq = sib_req_notify_cq;
	c->vctx.context.ops.post_send = sib_post_send;
	c->vctx.context.ops.post_recv = sib_post_recv;
	c->vctx.context.cmd_fd = -1;
	c->vctx.context.async_fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	c->vctx.context.num_comp_vectors = 1;
	pthread_mutex_init(&c->vctx.context.mutex, NULL);
	pthread_mutex_init(&c->qlock, NULL);
	pthread_mutex_init(&c->evlock, NULL);
	pthread_mutex_lock(&ctx_lock);
	c->next = ctx_list;
	ctx_list = c;
	pthread_mutex_unlock(&ctx_lock);
	return &c->vctx.context;
}

int
ibv_close_device(struct ibv_context *context)
{
	struct sib_context *c = SIB_CTX(context);

	pthread_mutex_lock(&ctx_lock);
	for (struct sib_context **pp = &ctx_list; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	pthread_mutex_unlock(&ctx_lock);
	if (context->async_fd >= 0)
		close(context->async_fd);
	pthread_mutex_destroy(&context->mutex);
	pthread_mutex_destroy(&c->qlock);
	pthread_mutex_destroy(&c->evlock);
	free(c);
	sib_engine_put();
	return 0;
}

/* ------------------------------------------------------------------ */
/* Completion channels                                                 */
/* ------------------------------------------------------------------ */

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	struct sib_channel *ch = calloc(1, sizeof(*ch));

	if (ch == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ch->ch.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (ch->ch.fd < 0) {
		int e = errno;

		free(ch);
		errno = e;
		return NULL;
	}
	ch->ch.context = context;
	pthread_mutex_init(&ch->lock, NULL);
	return &ch->ch;
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct sib_channel *ch = (struct sib_channel *)channel;

	if (channel->refcnt != 0)
		return EBUSY;
	close(channel->fd);
	pthread_mutex_destroy(&ch->lock);
	free(ch->fired);
	free(ch);
	return 0;
}

int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	struct sib_channel *ch = (struct sib_channel *)channel;

	for (;;) {
		struct sib_cq *fired = NULL;
		uint64_t v;

		if (read(channel->fd, &v, sizeof(v)) != sizeof(v))
			return -1;    /* errno from read: EAGAIN on a non-blocking fd */
		pthread_mutex_lock(&ch->lock);
		if (ch->n > 0) {
			fired = ch->fired[ch->head];
			ch->head = (ch->head + 1) % ch->cap;
			ch->n--;
		}
		pthread_mutex_unlock(&ch->lock);
		if (fired != NULL) {   /* NULL: its CQ was destroyed meanwhile */
			*cq = &fired->ibcq;
			*cq_context = fired->ibcq.cq_context;
			return 0;
		}
	}
}

void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* ------------------------------------------------------------------ */
/* Asynchronous events                                                 */
/* ------------------------------------------------------------------ */

/* The context of @p dev that owns QP @p qpn, or NULL (ctx_lock held). */
static struct sib_context *
owner_of(struct rnic_device *dev, uint32_t qpn)
{
	for (struct sib_context *c = ctx_list; c != NULL; c = c->next)
		if (c->dev == dev && sib_qp_by_num(c, qpn) != NULL)
			return c;
	return NULL;
}

/*
 * The poller thread, every pass: move the engine's asynchronous events
 * (one ring per device) to the contexts whose QPs they name, and count
 * each in that context's async_fd, as the kernel makes a uverbs async fd
 * readable. An event for a QP no context holds any more is dropped (the
 * QP is gone, nobody to tell); so is one for a context that already holds
 * SIB_EVQ unread ones (said once on stderr).
 */
void
sib_async_pump(void)
{
	static bool warned;
	struct rnic_async_event ev;
	uint64_t one = 1;

	if (__atomic_load_n(&ctx_list, __ATOMIC_RELAXED) == NULL ||
	    pthread_mutex_trylock(&ctx_lock) != 0)
		return;
	for (struct sib_context *c = ctx_list; c != NULL; c = c->next) {
		while (rnic_get_async_event(c->dev, &ev) == 1) {
			struct sib_context *o = owner_of(c->dev, ev.qp_num);
			bool queued = false;

			if (o == NULL)
				continue;
			pthread_mutex_lock(&o->evlock);
			if (o->evn < SIB_EVQ) {
				o->evq[(o->evh + o->evn++) % SIB_EVQ] = ev;
				queued = true;
			}
			pthread_mutex_unlock(&o->evlock);
			if (queued && write(o->vctx.context.async_fd, &one, sizeof(one)) == sizeof(one))
				continue;
			if (!warned) {
				warned = true;
				fprintf(stderr, "softrnic ibverbs: a context holds %u unread "
					"asynchronous events: QP %#x's dropped\n", SIB_EVQ,
					ev.qp_num);
			}
		}
	}
	pthread_mutex_unlock(&ctx_lock);
}

/* Blocks on async_fd as rdma-core does (EAGAIN when it is non-blocking
 * and nothing is queued). */
int
ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	struct sib_context *c = SIB_CTX(context);

	for (;;) {
		struct rnic_async_event ev;
		struct ibv_qp *qp;
		uint64_t n;
		bool have = false;

		if (read(context->async_fd, &n, sizeof(n)) != sizeof(n))
			return -1;     /* errno: EAGAIN when non-blocking */
		pthread_mutex_lock(&c->evlock);
		if (c->evn > 0) {
			ev = c->evq[c->evh];
			c->evh = (c->evh + 1) % SIB_EVQ;
			c->evn--;
			have = true;
		}
		pthread_mutex_unlock(&c->evlock);
		if (!have)
			continue;
		qp = sib_qp_by_num(c, ev.qp_num);
		if (qp == NULL)
			continue;     /* destroyed since: nobody to tell */
		memset(event, 0, sizeof(*event));
		switch (ev.type) {
		case RNIC_EVENT_QP_FATAL:
		case RNIC_EVENT_CQ_ERR:   /* the QP whose CQ overflowed */
			event->event_type = IBV_EVENT_QP_FATAL;
			break;
		case RNIC_EVENT_SQ_DRAINED:
			event->event_type = IBV_EVENT_SQ_DRAINED;
			break;
		case RNIC_EVENT_QP_REQ_ERR:
			event->event_type = IBV_EVENT_QP_REQ_ERR;
			break;
		case RNIC_EVENT_QP_ACCESS_ERR:
			event->event_type = IBV_EVENT_QP_ACCESS_ERR;
			break;
		default:
			continue;
		}
		event->element.qp = qp;
		return 0;
	}
}

void
ibv_ack_async_event(struct ibv_async_event *event)
{
	(void)event;
}
