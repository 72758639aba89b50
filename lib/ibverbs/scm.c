/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librdmacm.so.1 over softrnic (issue 21, doc/ibverbs.md "rdma_cm"):
 * rdma-core's connection manager API for unmodified programs (rping,
 * ucmatose, perftest -R), on lib/cm's IB CM over QP1 of the devices that
 * softrnic's libibverbs.so.1 opens in the program.
 *
 * The shape is the kernel's rdma_cm as rdma-core presents it: event
 * channels are file descriptors (an eventfd counting queued events, so
 * poll() works), events are delivered and acknowledged, rdma_destroy_id
 * waits for its events to be acknowledged. The IB CM runs in a thread of
 * this library (the kernel's role): it polls every device's CM, turns its
 * events into rdma_cm events on the channels, retransmits on time. One
 * lock (g.lock) covers the CM agents, the ids and the channels' queues.
 *
 * Supported: the TCP port space (RDMA_PS_TCP) over IPv4 and IPv6 GIDs;
 * bind, listen, resolve_addr/route, connect, accept, reject, disconnect,
 * create/destroy_qp (CQs made when the caller gives none), the options TOS,
 * ACK_TIMEOUT, REUSEADDR and AFONLY, rdma_getaddrinfo, rdma_get_devices.
 * Not: the UDP and IB port spaces (SIDR), multicast, rdma_create_ep and
 * rdma_get_request (synchronous ids), QPs the caller manages itself
 * (rdma_init_qp_attr, rdma_establish), ECE, rsockets (scm_stubs.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/eventfd.h>

#include <rdma/rdma_cma.h>

#include "sib.h"
#include "rnic_cm.h"

#define SCM_MAX_DEV   16
#define SCM_GIDS      16
#define SCM_POLL_NS   100000          /* the CM thread's period: 100 us */

struct scm_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;             /* QP1's, and rdma_create_qp's default */
	struct rnic_cm *cm;
};

struct scm_event {
	struct rdma_cm_event ev;       /* first: the application's pointer */
	struct scm_event *next;
	struct scm_id *owner;          /* whose count it holds until acked */
	uint8_t pdata[RNIC_CM_PDATA_MAX];
};

struct scm_channel {
	struct rdma_event_channel ch;
	struct scm_event *head, *tail; /* queued, not yet delivered */
	struct scm_channel *next_dead; /* destroyed_channels */
};

/*
 * Channels the application destroyed, kept (reachable) with their
 * eventfd open and never signalled again (g.lock). A program whose CM
 * thread calls rdma_get_cm_event again while its main thread destroys
 * the channel (rping of rdma-core 44 does, at exit) then blocks in it,
 * as it does with rdma-core when its read() began before the close; it
 * read freed memory and a closed fd here (EBADF, and rping exited 255).
 * One fd and a few bytes per channel an application destroys: channels
 * the library made for synchronous ids are freed at once.
 */
static struct scm_channel *destroyed_channels;

struct scm_id {
	struct rdma_cm_id id;          /* first: the application's pointer */
	struct scm_dev *dev;           /* NULL: not bound, or bound to any */
	struct rnic_cm_id *cid;        /* a connection's */
	struct rnic_cm_id *lid[SCM_MAX_DEV];   /* a listener's, per device */
	bool bound, listening, addr_ok, route_ok, own_channel, own_cqs;
	bool afonly;                   /* RDMA_OPTION_ID_AFONLY */
	uint8_t sgid_index;
	uint8_t tos, ack_timeout;
	/* a CONNECT_REQUEST's: what accept without parameters agrees to */
	uint8_t req_resp, req_init;
	unsigned int events_out;       /* delivered, not acknowledged */
	struct ibv_sa_path_rec path;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t acked;
	pthread_once_t once;
	int init_err;
	unsigned int ndev;
	struct scm_dev dev[SCM_MAX_DEV];
	pthread_t thread;
	bool running, stop;
	bool down;                     /* at exit: the CMs and engine are gone */
	uint16_t next_port;
} g = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.acked = PTHREAD_COND_INITIALIZER,
	.once = PTHREAD_ONCE_INIT,
};

/* ------------------------------------------------------------------ */
/* Addresses                                                           */
/* ------------------------------------------------------------------ */

/* @p sa as a RoCEv2 GID (IPv4-mapped for AF_INET); -1 for other families. */
static int
sa_gid(const struct sockaddr *sa, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (sa->sa_family == AF_INET) {
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		memcpy(gid, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 0;
	}
	return -1;
}

static bool
gid_is_v4(const uint8_t gid[16])
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(gid, pfx, 12) == 0;
}

static bool
gid_is_any(const uint8_t gid[16])
{
	static const uint8_t zero[16];

	return memcmp(gid, zero, 16) == 0 ||
	       (gid_is_v4(gid) && memcmp(gid + 12, zero, 4) == 0);
}

/* The socket address of @p gid and @p port (network order). */
static void
gid_sa(const uint8_t gid[16], uint16_t port_be, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (gid_is_v4(gid)) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;

		s->sin_family = AF_INET;
		s->sin_port = port_be;
		memcpy(&s->sin_addr, gid + 12, 4);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = port_be;
		memcpy(&s->sin6_addr, gid, 16);
	}
}

static uint16_t
sa_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_port;
	if (sa->sa_family == AF_INET6)
		return ((const struct sockaddr_in6 *)sa)->sin6_port;
	return 0;
}

static void
sa_set_port(struct sockaddr *sa, uint16_t port_be)
{
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)sa)->sin_port = port_be;
	else if (sa->sa_family == AF_INET6)
		((struct sockaddr_in6 *)sa)->sin6_port = port_be;
}

static socklen_t
sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	       sizeof(struct sockaddr_in);
}

/* The device and GID index holding @p gid; -1 when none does. */
static int
find_local(const uint8_t gid[16], struct scm_dev **devp, uint8_t *idx)
{
	for (unsigned int d = 0; d < g.ndev; d++) {
		if (g.dev[d].cm == NULL)
			continue;
		for (int i = 0; i < SCM_GIDS; i++) {
			union ibv_gid x;

			if (ibv_query_gid(g.dev[d].ctx, 1, i, &x) != 0)
				break;
			if (memcmp(x.raw, gid, 16) == 0) {
				*devp = &g.dev[d];
				*idx = (uint8_t)i;
				return 0;
			}
		}
	}
	return -1;
}

/* A source GID of @p dgid's family (and scope, for IPv6 link-local) on
 * @p dev, or on the first device that has one when @p dev is NULL. */
static int
pick_source(const uint8_t dgid[16], struct scm_dev **devp, uint8_t *idx)
{
	bool v4 = gid_is_v4(dgid);
	bool ll = !v4 && dgid[0] == 0xfe && (dgid[1] & 0xc0) == 0x80;

	for (unsigned int d = 0; d < g.ndev; d++) {
		struct scm_dev *dev = &g.dev[d];

		if (dev->cm == NULL || (*devp != NULL && *devp != dev))
			continue;
		for (int i = 0; i < SCM_GIDS; i++) {
			union ibv_gid x;
			bool xll;

			if (ibv_query_gid(dev->ctx, 1, i, &x) != 0)
				break;
			if (gid_is_any(x.raw) || gid_is_v4(x.raw) != v4)
				continue;
			xll = x.raw[0] == 0xfe && (x.raw[1] & 0xc0) == 0x80;
			if (!v4 && xll != ll)
				continue;
			*devp = dev;
			*idx = (uint8_t)i;
			return 0;
		}
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* The devices and the CM thread                                       */
/* ------------------------------------------------------------------ */

static void dispatch(struct scm_dev *dev, const struct rnic_cm_event *ev);

static void *
cm_thread(void *arg)
{
	const struct timespec period = { 0, SCM_POLL_NS };

	(void)arg;
	pthread_mutex_lock(&g.lock);
	while (!g.stop) {
		for (unsigned int d = 0; d < g.ndev; d++) {
			struct rnic_cm_event ev;

			while (g.dev[d].cm != NULL && rnic_cm_poll(g.dev[d].cm, &ev) == 1)
				dispatch(&g.dev[d], &ev);
		}
		pthread_mutex_unlock(&g.lock);
		nanosleep(&period, NULL);
		pthread_mutex_lock(&g.lock);
	}
	pthread_mutex_unlock(&g.lock);
	return NULL;
}

/* Every device softrnic's libibverbs offers, each with its CM on QP1. */
static void
scm_init(void)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (list == NULL || n <= 0) {
		g.init_err = ENODEV;
		if (list)
			ibv_free_device_list(list);
		return;
	}
	for (int i = 0; i < n && g.ndev < SCM_MAX_DEV; i++) {
		struct scm_dev *dev = &g.dev[g.ndev];
		struct sib_context *sc;

		dev->ctx = ibv_open_device(list[i]);
		if (dev->ctx == NULL)
			continue;
		sc = SIB_CTX(dev->ctx);
		dev->pd = ibv_alloc_pd(dev->ctx);
		if (dev->pd != NULL)
			dev->cm = rnic_cm_create(sc->dev, ((struct sib_pd *)dev->pd)->pd);
		if (dev->cm == NULL) {
			fprintf(stderr, "softrnic rdma_cm: no CM on %s\n",
				ibv_get_device_name(list[i]));
			if (dev->pd)
				ibv_dealloc_pd(dev->pd);
			ibv_close_device(dev->ctx);
			memset(dev, 0, sizeof(*dev));
			continue;
		}
		g.ndev++;
	}
	ibv_free_device_list(list);
	if (g.ndev == 0) {
		g.init_err = ENODEV;
		return;
	}
	g.next_port = (uint16_t)(0x8000 | (getpid() & 0x3fff));
	if (pthread_create(&g.thread, NULL, cm_thread, NULL) != 0) {
		g.init_err = EAGAIN;
		return;
	}
	g.running = true;
}

static int
scm_ready(void)
{
	pthread_once(&g.once, scm_init);
	if (g.init_err) {
		errno = g.init_err;
		return -1;
	}
	return 0;
}

/* At exit, before libibverbs.so.1 stops the engine (its destructor runs
 * after ours): the thread stops, the CMs (QP1) go. Connections are not
 * disconnected, as a process that exits without rdma_disconnect. */
static void __attribute__((destructor))
scm_exit(void)
{
	if (!g.running)
		return;
	pthread_mutex_lock(&g.lock);
	g.stop = true;
	pthread_mutex_unlock(&g.lock);
	pthread_join(g.thread, NULL);
	g.running = false;
	/* Another thread of the program may still be in (or come to) an
	 * rdma_* call: after this, they touch no CM (g.down). */
	pthread_mutex_lock(&g.lock);
	g.down = true;
	for (unsigned int d = 0; d < g.ndev; d++) {
		rnic_cm_destroy(g.dev[d].cm);
		g.dev[d].cm = NULL;
	}
	pthread_mutex_unlock(&g.lock);
}

/* Under g.lock: false (errno ENODEV) once the library is shutting down. */
static bool
cm_up(void)
{
	if (!g.down)
		return true;
	errno = ENODEV;
	return false;
}

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

static struct scm_event *
event_new(struct scm_id *id, enum rdma_cm_event_type type, int status)
{
	struct scm_event *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	e->ev.id = &id->id;
	e->ev.event = type;
	e->ev.status = status;
	e->owner = id;
	return e;
}

/* Queue @p e on @p id's channel (g.lock held). */
static void
event_post(struct scm_id *id, struct scm_event *e)
{
	struct scm_channel *ch = (struct scm_channel *)id->id.channel;
	uint64_t one = 1;

	e->next = NULL;
	if (ch->tail)
		ch->tail->next = e;
	else
		ch->head = e;
	ch->tail = e;
	if (write(ch->ch.fd, &one, sizeof(one)) != sizeof(one))
		fprintf(stderr, "softrnic rdma_cm: event channel write: %s\n", strerror(errno));
}

/* An event the caller's own call produces (the address, the route):
 * queued at once. 0, or -1 with errno ENOMEM. */
static int
queue_event(struct scm_id *id, enum rdma_cm_event_type type, int status)
{
	struct scm_event *e = event_new(id, type, status);

	if (e == NULL) {
		errno = ENOMEM;
		return -1;
	}
	pthread_mutex_lock(&g.lock);
	event_post(id, e);
	pthread_mutex_unlock(&g.lock);
	return 0;
}

static void
conn_param_out(struct scm_event *e, const struct rnic_cm_param *p)
{
	struct rdma_conn_param *c = &e->ev.param.conn;

	memcpy(e->pdata, p->private_data, sizeof(e->pdata));
	c->private_data = e->pdata;
	c->private_data_len = p->private_data_len;
	c->responder_resources = p->responder_resources;
	c->initiator_depth = p->initiator_depth;
	c->flow_control = 1;
	c->retry_count = p->retry_count;
	c->rnr_retry_count = p->rnr_retry_count;
}

/* The UD parameters of an event (the UDP port space): the private data;
 * for the active side's ESTABLISHED also the service's QP, Q_Key and the
 * address to reach it (@p s: the id, its GIDs and traffic class). */
static void
ud_param_out(struct scm_event *e, const struct rnic_cm_event *ev, const struct scm_id *s)
{
	struct rdma_ud_param *u = &e->ev.param.ud;

	memcpy(e->pdata, ev->param.private_data, sizeof(e->pdata));
	u->private_data = e->pdata;
	u->private_data_len = ev->param.private_data_len;
	if (s == NULL)
		return;
	u->qp_num = ev->peer_qpn;
	u->qkey = ev->qkey;
	u->ah_attr.is_global = 1;
	u->ah_attr.port_num = 1;
	memcpy(u->ah_attr.grh.dgid.raw, ev->peer_gid, 16);
	u->ah_attr.grh.sgid_index = s->sgid_index;
	u->ah_attr.grh.hop_limit = 64;
	u->ah_attr.grh.traffic_class = s->tos;
}

static struct scm_id *id_alloc(struct rdma_event_channel *ch, void *context);

static void
path_fill(struct scm_id *id)
{
	struct rdma_addr *a = &id->id.route.addr;
	struct ibv_sa_path_rec *p = &id->path;
	struct ibv_port_attr pa;

	memset(p, 0, sizeof(*p));
	/* the port's RoCE MTU, as the kernel's path for RoCE */
	p->mtu = id->id.verbs && ibv_query_port(id->id.verbs, 1, &pa) == 0 ? pa.active_mtu :
		 IBV_MTU_1024;
	p->sgid = a->addr.ibaddr.sgid;
	p->dgid = a->addr.ibaddr.dgid;
	p->pkey = htobe16(0xffff);
	p->hop_limit = 64;
	p->traffic_class = id->tos;
	p->reversible = 1;
	p->numb_path = 1;
	id->id.route.path_rec = p;
	id->id.route.num_paths = 1;
}

/* Whether the listener @p lis takes a request sent to GID @p idx of @p
 * dev, as the kernel's: bound to an address, that one; to the IPv4
 * wildcard, any IPv4 address; to the IPv6 wildcard, any address (IPv4 too,
 * unless AFONLY). A request no listener takes is refused (REJ 28). */
static bool
listener_takes(const struct scm_id *lis, struct scm_dev *dev, uint8_t idx)
{
	const struct sockaddr *sa = &lis->id.route.addr.src_addr;
	union ibv_gid gid;
	uint8_t want[16];

	if (ibv_query_gid(dev->ctx, 1, idx, &gid) != 0 || sa_gid(sa, want) != 0)
		return false;
	if (!gid_is_any(want))
		return memcmp(want, gid.raw, 16) == 0;
	if (sa->sa_family == AF_INET)
		return gid_is_v4(gid.raw);
	return !lis->afonly || !gid_is_v4(gid.raw);
}

/* A connection request for the listener @p lis: a new id on its channel. */
static void
on_connect_request(struct scm_dev *dev, const struct rnic_cm_event *ev)
{
	struct scm_id *lis = rnic_cm_id_context(ev->listen_id);
	struct scm_id *id;
	struct scm_event *e;
	struct rdma_addr *a;
	union ibv_gid sgid;

	id = lis && listener_takes(lis, dev, ev->local_gid_index) ?
	     id_alloc(lis->id.channel, lis->id.context) : NULL;
	e = id ? event_new(lis, RDMA_CM_EVENT_CONNECT_REQUEST, 0) : NULL;
	if (e == NULL) {
		free(id);
		rnic_cm_reject(ev->id);
		rnic_cm_destroy_id(ev->id);
		return;
	}
	id->id.ps = lis->id.ps;
	id->id.verbs = dev->ctx;
	id->id.port_num = 1;
	id->id.qp_type = lis->id.qp_type;
	id->dev = dev;
	id->cid = ev->id;
	id->bound = id->addr_ok = id->route_ok = true;
	id->tos = lis->tos;
	id->ack_timeout = lis->ack_timeout;
	/* from this side's view, as the kernel reports them: what the
	 * peer has outstanding is what we serve, and the other way round */
	id->req_resp = ev->param.initiator_depth;
	id->req_init = ev->param.responder_resources;
	rnic_cm_id_set_context(ev->id, id);
	a = &id->id.route.addr;
	/* our address: the GID the peer asked for, on the listener's port */
	id->sgid_index = ev->local_gid_index;
	if (ibv_query_gid(dev->ctx, 1, ev->local_gid_index, &sgid) != 0)
		memset(&sgid, 0, sizeof(sgid));
	gid_sa(sgid.raw, sa_port(&lis->id.route.addr.src_addr), &a->src_storage);
	gid_sa(ev->peer_gid, htons(ev->peer_port), &a->dst_storage);
	memcpy(a->addr.ibaddr.sgid.raw, sgid.raw, 16);
	memcpy(a->addr.ibaddr.dgid.raw, ev->peer_gid, 16);
	a->addr.ibaddr.pkey = htobe16(0xffff);
	path_fill(id);
	e->ev.id = &id->id;
	e->ev.listen_id = &lis->id;
	if (ev->ud) {
		ud_param_out(e, ev, NULL);
	} else {
		conn_param_out(e, &ev->param);
		e->ev.param.conn.responder_resources = id->req_resp;
		e->ev.param.conn.initiator_depth = id->req_init;
		e->ev.param.conn.qp_num = ev->peer_qpn;
	}
	event_post(lis, e);
}

/* One event of a device's CM, as rdma_cm's (g.lock held). */
static void
dispatch(struct scm_dev *dev, const struct rnic_cm_event *ev)
{
	struct scm_id *id;
	struct scm_event *e;

	if (ev->type == RNIC_CM_EV_CONNECT_REQUEST) {
		on_connect_request(dev, ev);
		return;
	}
	if (ev->id == NULL || (id = rnic_cm_id_context(ev->id)) == NULL)
		return;
	switch (ev->type) {
	case RNIC_CM_EV_ESTABLISHED:
		e = event_new(id, RDMA_CM_EVENT_ESTABLISHED, 0);
		if (e && ev->ud)
			ud_param_out(e, ev, id);
		else if (e)
			conn_param_out(e, &ev->param);
		break;
	case RNIC_CM_EV_REJECTED:
		e = event_new(id, RDMA_CM_EVENT_REJECTED, ev->reject_reason);
		break;
	case RNIC_CM_EV_UNREACHABLE:
		/* a SIDR_REP's status when there was one (as the kernel) */
		e = event_new(id, RDMA_CM_EVENT_UNREACHABLE,
			      ev->timed_out ? -ETIMEDOUT : ev->reject_reason);
		break;
	case RNIC_CM_EV_DISCONNECTED:
		e = event_new(id, RDMA_CM_EVENT_DISCONNECTED, 0);
		break;
	default:
		return;
	}
	if (e != NULL)
		event_post(id, e);
}

/* ------------------------------------------------------------------ */
/* Channels                                                            */
/* ------------------------------------------------------------------ */

struct rdma_event_channel *
rdma_create_event_channel(void)
{
	struct scm_channel *ch;

	if (scm_ready() != 0)
		return NULL;
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL)
		return NULL;
	ch->ch.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (ch->ch.fd < 0) {
		free(ch);
		return NULL;
	}
	return &ch->ch;
}

/* Drop @p ch's queued events; with @p keep it goes to destroyed_channels,
 * else it is closed and freed. */
static void
channel_destroy(struct scm_channel *ch, bool keep)
{
	struct scm_event *e, *nx;

	pthread_mutex_lock(&g.lock);
	for (e = ch->head; e != NULL; e = nx) {
		nx = e->next;
		free(e);
	}
	ch->head = ch->tail = NULL;
	if (keep) {
		ch->next_dead = destroyed_channels;
		destroyed_channels = ch;
	}
	pthread_mutex_unlock(&g.lock);
	if (!keep) {
		close(ch->ch.fd);
		free(ch);
	}
}

void
rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	if (channel != NULL)
		channel_destroy((struct scm_channel *)channel, true);
}

int
rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	struct scm_channel *ch = (struct scm_channel *)channel;

	if (ch == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		uint64_t v;
		struct scm_event *e;

		/* One count per queued event (a semaphore eventfd): blocks, or
		 * EAGAIN on a non-blocking channel, as rdma-core's read does. */
		if (read(ch->ch.fd, &v, sizeof(v)) != sizeof(v)) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		pthread_mutex_lock(&g.lock);
		e = ch->head;
		if (e != NULL) {
			ch->head = e->next;
			if (ch->head == NULL)
				ch->tail = NULL;
			e->owner->events_out++;
			e->owner->id.event = &e->ev;
		}
		pthread_mutex_unlock(&g.lock);
		if (e != NULL) {
			*event = &e->ev;
			return 0;
		}
		/* its id was destroyed before it was read: the next one */
	}
}

int
rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct scm_event *e = (struct scm_event *)event;

	if (e == NULL) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&g.lock);
	if (e->owner->id.event == event)
		e->owner->id.event = NULL;
	e->owner->events_out--;
	pthread_cond_broadcast(&g.acked);
	pthread_mutex_unlock(&g.lock);
	free(e);
	return 0;
}

const char *
rdma_event_str(enum rdma_cm_event_type event)
{
	static const char *const names[] = {
		[RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
		[RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
		[RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
		[RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
		[RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
		[RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
		[RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
		[RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
		[RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
		[RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
		[RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
		[RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
		[RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
		[RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
		[RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
		[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	if ((unsigned int)event < sizeof(names) / sizeof(names[0]) && names[event])
		return names[event];
	return "UNKNOWN EVENT";
}

/* ------------------------------------------------------------------ */
/* Ids                                                                 */
/* ------------------------------------------------------------------ */

static struct scm_id *
id_alloc(struct rdma_event_channel *ch, void *context)
{
	struct scm_id *id = calloc(1, sizeof(*id));

	if (id == NULL)
		return NULL;
	id->id.channel = ch;
	id->id.context = context;
	id->id.ps = RDMA_PS_TCP;
	id->id.qp_type = IBV_QPT_RC;
	return id;
}

int
rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,
	       void *context, enum rdma_port_space ps)
{
	struct scm_id *s;
	bool own = false;

	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (scm_ready() != 0)
		return -1;
	if (ps != RDMA_PS_TCP && ps != RDMA_PS_UDP) {
		/* the IB port space (AF_IB addressing) and IPoIB: not on RoCE here */
		errno = EPROTONOSUPPORT;
		return -1;
	}
	if (channel == NULL) {
		channel = rdma_create_event_channel();
		if (channel == NULL)
			return -1;
		own = true;
	}
	s = id_alloc(channel, context);
	if (s == NULL) {
		if (own)
			channel_destroy((struct scm_channel *)channel, false);
		errno = ENOMEM;
		return -1;
	}
	s->own_channel = own;
	s->id.ps = ps;
	s->id.qp_type = ps == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC;
	*id = &s->id;
	return 0;
}

/* Events of @p s still queued (not delivered) are dropped; connection
 * requests of a listener are refused (g.lock held). */
static void
purge_events(struct scm_id *s)
{
	struct scm_channel *ch = (struct scm_channel *)s->id.channel;
	struct scm_event **pp = &ch->head, *e;

	ch->tail = NULL;
	while ((e = *pp) != NULL) {
		if (e->owner == s) {
			*pp = e->next;
			if (e->ev.event == RDMA_CM_EVENT_CONNECT_REQUEST) {
				struct scm_id *child = (struct scm_id *)e->ev.id;

				rnic_cm_reject(child->cid);
				rnic_cm_destroy_id(child->cid);
				free(child);
			}
			free(e);
			continue;
		}
		ch->tail = e;
		pp = &e->next;
	}
}

int
rdma_destroy_id(struct rdma_cm_id *id)
{
	struct scm_id *s = (struct scm_id *)id;

	if (s == NULL) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&g.lock);
	if (!g.down) {
		purge_events(s);
		/* as rdma-core: every event delivered for it is acked first */
		while (s->events_out > 0 && !g.down)
			pthread_cond_wait(&g.acked, &g.lock);
	}
	for (unsigned int d = 0; d < SCM_MAX_DEV && !g.down; d++)
		if (s->lid[d] != NULL)
			rnic_cm_destroy_id(s->lid[d]);
	if (s->cid != NULL && !g.down)
		rnic_cm_release_id(s->cid);   /* a DREQ if still connected */
	pthread_mutex_unlock(&g.lock);
	if (s->own_channel)
		channel_destroy((struct scm_channel *)s->id.channel, false);
	free(s);
	return 0;
}

int
rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	struct scm_id *s = (struct scm_id *)id;

	if (s == NULL || channel == NULL) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&g.lock);
	if (!cm_up()) {
		pthread_mutex_unlock(&g.lock);
		return -1;
	}
	while (s->events_out > 0)
		pthread_cond_wait(&g.acked, &g.lock);
	purge_events(s);
	s->id.channel = channel;
	pthread_mutex_unlock(&g.lock);
	return 0;
}

int
rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct scm_id *s = (struct scm_id *)id;
	struct rdma_addr *a;
	uint8_t gid[16];
	uint16_t port;

	if (s == NULL || addr == NULL || sa_gid(addr, gid) != 0) {
		errno = addr && addr->sa_family != AF_INET && addr->sa_family != AF_INET6 ?
			EAFNOSUPPORT : EINVAL;
		return -1;
	}
	if (s->bound) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&g.lock);
	s->dev = NULL;
	if (!gid_is_any(gid) && find_local(gid, &s->dev, &s->sgid_index) != 0) {
		pthread_mutex_unlock(&g.lock);
		errno = EADDRNOTAVAIL;
		return -1;
	}
	port = sa_port(addr);
	if (port == 0) {
		port = htons(g.next_port);
		g.next_port = (uint16_t)(g.next_port == 0xffff ? 0x8000 : g.next_port + 1);
	}
	a = &s->id.route.addr;
	memcpy(&a->src_storage, addr, sa_len(addr));
	sa_set_port(&a->src_addr, port);
	if (s->dev != NULL) {
		s->id.verbs = s->dev->ctx;
		s->id.port_num = 1;
		memcpy(a->addr.ibaddr.sgid.raw, gid, 16);
	}
	s->bound = true;
	pthread_mutex_unlock(&g.lock);
	return 0;
}

/* SOFTRNIC_RDMACM_READY=FILE: "listen PORT" appended when a listener is
 * up, so a script starting a server knows when its client may connect
 * (an rdma_cm listener has no socket for it to probe). */
static void
note_listening(uint16_t port)
{
	const char *path = getenv("SOFTRNIC_RDMACM_READY");
	FILE *f;

	if (path == NULL || *path == '\0' || (f = fopen(path, "a")) == NULL)
		return;
	fprintf(f, "listen %u\n", port);
	fclose(f);
}

int
rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct scm_id *s = (struct scm_id *)id;
	uint16_t port;
	int err = 0;

	(void)backlog;
	if (s == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (s->listening)
		return 0;   /* already: as the kernel, a new backlog and no more */
	if (!s->bound) {
		struct sockaddr_in any = { .sin_family = AF_INET };

		if (rdma_bind_addr(id, (struct sockaddr *)&any) != 0)
			return -1;
	}
	pthread_mutex_lock(&g.lock);
	if (!cm_up()) {
		pthread_mutex_unlock(&g.lock);
		return -1;
	}
	port = ntohs(sa_port(&s->id.route.addr.src_addr));
	for (unsigned int d = 0; d < g.ndev && err == 0; d++) {
		if (g.dev[d].cm == NULL || (s->dev != NULL && s->dev != &g.dev[d]))
			continue;
		s->lid[d] = s->id.ps == RDMA_PS_UDP ? rnic_cm_listen_ud(g.dev[d].cm, port) :
			    rnic_cm_listen(g.dev[d].cm, port);
		if (s->lid[d] == NULL)
			err = EADDRINUSE;
		else
			rnic_cm_id_set_context(s->lid[d], s);
	}
	if (err != 0)
		for (unsigned int d = 0; d < SCM_MAX_DEV; d++) {
			rnic_cm_destroy_id(s->lid[d]);
			s->lid[d] = NULL;
		}
	else
		s->listening = true;
	pthread_mutex_unlock(&g.lock);
	if (err != 0) {
		errno = err;
		return -1;
	}
	note_listening(port);
	return 0;
}

int
rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		  struct sockaddr *dst_addr, int timeout_ms)
{
	struct scm_id *s = (struct scm_id *)id;
	struct rdma_addr *a;
	uint8_t dgid[16], mac[6];
	int rc;

	(void)timeout_ms;   /* the engine's resolve is bounded on its own */
	if (s == NULL || dst_addr == NULL || sa_gid(dst_addr, dgid) != 0) {
		errno = EINVAL;
		return -1;
	}
	if (src_addr != NULL && !s->bound && rdma_bind_addr(id, src_addr) != 0)
		return -1;
	pthread_mutex_lock(&g.lock);
	a = &s->id.route.addr;
	if (s->dev != NULL) {
		/* bound to one of our addresses: it must suit the destination */
		if (gid_is_v4(a->addr.ibaddr.sgid.raw) != gid_is_v4(dgid)) {
			pthread_mutex_unlock(&g.lock);
			errno = EINVAL;
			return -1;
		}
	} else if (pick_source(dgid, &s->dev, &s->sgid_index) != 0) {
		/* a GID of the destination's family (and IPv6 scope) */
		pthread_mutex_unlock(&g.lock);
		errno = EADDRNOTAVAIL;
		return -1;
	}
	ibv_query_gid(s->dev->ctx, 1, s->sgid_index, &a->addr.ibaddr.sgid);
	gid_sa(a->addr.ibaddr.sgid.raw, s->bound ? sa_port(&a->src_addr) : 0, &a->src_storage);
	if (!s->bound) {
		sa_set_port(&a->src_addr, htons(g.next_port));
		g.next_port = (uint16_t)(g.next_port == 0xffff ? 0x8000 : g.next_port + 1);
		s->bound = true;
	}
	memcpy(&a->dst_storage, dst_addr, sa_len(dst_addr));
	memcpy(a->addr.ibaddr.dgid.raw, dgid, 16);
	a->addr.ibaddr.pkey = htobe16(0xffff);
	s->id.verbs = s->dev->ctx;
	s->id.port_num = 1;
	pthread_mutex_unlock(&g.lock);
	/* ADDR_RESOLVED means the peer's MAC is known (ARP or ND), as the
	 * kernel's; outside g.lock: the engine's resolve waits (bounded). */
	if (!sib_live_enter()) {
		errno = ENODEV;
		return -1;
	}
	rc = sib_engine_resolve(SIB_CTX(s->dev->ctx)->dev, dgid, mac);
	sib_live_leave();
	s->addr_ok = rc == 0;
	return queue_event(s, rc == 0 ? RDMA_CM_EVENT_ADDR_RESOLVED : RDMA_CM_EVENT_ADDR_ERROR,
			   rc == 0 ? 0 : -EHOSTUNREACH);
}

int
rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct scm_id *s = (struct scm_id *)id;

	(void)timeout_ms;
	if (s == NULL || !s->addr_ok) {
		errno = EINVAL;
		return -1;
	}
	path_fill(s);
	s->route_ok = true;
	return queue_event(s, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
}

int
rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval, size_t optlen)
{
	struct scm_id *s = (struct scm_id *)id;

	if (s == NULL || optval == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (level != RDMA_OPTION_ID) {
		errno = ENOSYS;   /* RDMA_OPTION_IB_PATH: no SA paths on RoCE here */
		return -1;
	}
	switch (optname) {
	case RDMA_OPTION_ID_TOS:
		if (optlen != sizeof(uint8_t))
			break;
		s->tos = *(uint8_t *)optval;
		return 0;
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (optlen != sizeof(uint8_t) || *(uint8_t *)optval > 31)
			break;
		s->ack_timeout = *(uint8_t *)optval;
		return 0;
	case RDMA_OPTION_ID_AFONLY:
		if (optlen != sizeof(int))
			break;
		s->afonly = *(int *)optval != 0;
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
		/* accepted: nothing here holds a port after its id is gone */
		if (optlen != sizeof(int))
			break;
		return 0;
	default:
		errno = ENOSYS;
		return -1;
	}
	errno = EINVAL;
	return -1;
}

/* ------------------------------------------------------------------ */
/* QPs                                                                 */
/* ------------------------------------------------------------------ */

/* A UD QP of the UDP port space goes to RTS at once, with rdma_cm's
 * Q_Key (as rdma-core's ucma_init_ud_qp). */
static int
ud_qp_ready(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qkey = RNIC_CMA_UDP_QKEY,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* The QP to Init, so receives can be posted before the connection (as
 * rdma-core's rdma_create_qp does). */
static int
qp_to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			     IBV_QP_ACCESS_FLAGS);
}

static void
cqs_free(struct scm_id *s)
{
	if (!s->own_cqs)
		return;
	if (s->id.recv_cq && s->id.recv_cq != s->id.send_cq)
		ibv_destroy_cq(s->id.recv_cq);
	if (s->id.send_cq)
		ibv_destroy_cq(s->id.send_cq);
	if (s->id.recv_cq_channel)
		ibv_destroy_comp_channel(s->id.recv_cq_channel);
	s->id.send_cq = s->id.recv_cq = NULL;
	s->id.send_cq_channel = s->id.recv_cq_channel = NULL;
	s->own_cqs = false;
}

/* CQs for a QP whose caller gave none (rdma-core's ucma_create_cqs): one
 * completion channel, one CQ each way. */
static int
cqs_make(struct scm_id *s, const struct ibv_qp_cap *cap)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(s->id.verbs);

	if (ch == NULL)
		return -1;
	s->own_cqs = true;
	s->id.send_cq_channel = s->id.recv_cq_channel = ch;
	s->id.recv_cq = ibv_create_cq(s->id.verbs, cap->max_recv_wr ? (int)cap->max_recv_wr : 1,
				      s, ch, 0);
	s->id.send_cq = ibv_create_cq(s->id.verbs, cap->max_send_wr ? (int)cap->max_send_wr : 1,
				      s, ch, 0);
	if (s->id.recv_cq == NULL || s->id.send_cq == NULL) {
		cqs_free(s);
		return -1;
	}
	return 0;
}

int
rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	struct scm_id *s = (struct scm_id *)id;
	struct ibv_qp *qp;

	if (s == NULL || attr == NULL || s->id.verbs == NULL || s->id.qp != NULL) {
		errno = EINVAL;
		return -1;
	}
	if (attr->qp_type != s->id.qp_type) {
		/* the TCP port space connects RC QPs, the UDP one has UD QPs */
		errno = EOPNOTSUPP;
		return -1;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || attr->pd == NULL) {
		attr->pd = s->id.pd ? s->id.pd : s->dev->pd;
		attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
	}
	if (attr->pd->context != s->id.verbs) {
		errno = EINVAL;
		return -1;
	}
	if (attr->send_cq == NULL && attr->recv_cq == NULL) {
		if (cqs_make(s, &attr->cap) != 0)
			return -1;
		attr->send_cq = s->id.send_cq;
		attr->recv_cq = s->id.recv_cq;
	}
	qp = ibv_create_qp_ex(s->id.verbs, attr);
	if (qp == NULL || (attr->qp_type == IBV_QPT_UD ? ud_qp_ready(qp) : qp_to_init(qp)) != 0) {
		int err = errno ? errno : EINVAL;

		if (qp)
			ibv_destroy_qp(qp);
		cqs_free(s);
		errno = err;
		return -1;
	}
	s->id.qp = qp;
	s->id.pd = attr->pd;
	return 0;
}

int
rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex ax;
	int rc;

	if (qp_init_attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(&ax, 0, sizeof(ax));
	ax.qp_context = qp_init_attr->qp_context;
	ax.send_cq = qp_init_attr->send_cq;
	ax.recv_cq = qp_init_attr->recv_cq;
	ax.srq = qp_init_attr->srq;
	ax.cap = qp_init_attr->cap;
	ax.qp_type = qp_init_attr->qp_type;
	ax.sq_sig_all = qp_init_attr->sq_sig_all;
	ax.pd = pd;
	ax.comp_mask = pd ? IBV_QP_INIT_ATTR_PD : 0;
	rc = rdma_create_qp_ex(id, &ax);
	if (rc == 0) {
		qp_init_attr->cap = ax.cap;
		qp_init_attr->send_cq = ax.send_cq;
		qp_init_attr->recv_cq = ax.recv_cq;
	}
	return rc;
}

void
rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct scm_id *s = (struct scm_id *)id;

	if (s == NULL || s->id.qp == NULL)
		return;
	pthread_mutex_lock(&g.lock);
	if (!g.down)
		rnic_cm_id_forget_qp(s->cid);   /* the CM thread must not touch it now */
	pthread_mutex_unlock(&g.lock);
	ibv_destroy_qp(s->id.qp);
	s->id.qp = NULL;
	cqs_free(s);
}

/* ------------------------------------------------------------------ */
/* Connections                                                         */
/* ------------------------------------------------------------------ */

static int
param_in(const struct scm_id *s, const struct rdma_conn_param *c, struct rnic_cm_param *p)
{
	memset(p, 0, sizeof(*p));
	p->ack_timeout = s->ack_timeout;
	p->tclass = s->tos;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
	p->responder_resources = s->req_resp;
	p->initiator_depth = s->req_init;
	if (c == NULL)
		return 0;
	if (c->private_data_len > RNIC_CM_PDATA_MAX ||
	    (c->private_data_len && c->private_data == NULL))
		return -1;
	p->responder_resources = c->responder_resources;
	p->initiator_depth = c->initiator_depth;
	p->retry_count = c->retry_count > 7 ? 7 : c->retry_count;
	p->rnr_retry_count = c->rnr_retry_count > 7 ? 7 : c->rnr_retry_count;
	if (c->private_data_len > 0)
		memcpy(p->private_data, c->private_data, c->private_data_len);
	p->private_data_len = c->private_data_len;
	return 0;
}

int
rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct scm_id *s = (struct scm_id *)id;
	struct rnic_cm_param p;
	struct sib_qp *q;

	if (s == NULL || !s->route_ok || s->cid != NULL || param_in(s, conn_param, &p) != 0) {
		errno = EINVAL;
		return -1;
	}
	if (s->id.qp == NULL && s->id.ps == RDMA_PS_TCP) {
		/* a QP of the caller's own (conn_param->qp_num) would need
		 * rdma_init_qp_attr, which is not provided */
		errno = ENOSYS;
		return -1;
	}
	q = (struct sib_qp *)s->id.qp;
	pthread_mutex_lock(&g.lock);
	if (!cm_up()) {
		pthread_mutex_unlock(&g.lock);
		return -1;
	}
	if (s->id.ps == RDMA_PS_UDP)   /* SIDR: which QP serves the port */
		s->cid = rnic_cm_resolve_ud(s->dev->cm, s->id.route.addr.addr.ibaddr.dgid.raw,
					    s->sgid_index,
					    ntohs(sa_port(&s->id.route.addr.dst_addr)), &p);
	else
		s->cid = rnic_cm_connect(s->dev->cm, q->qp, s->id.route.addr.addr.ibaddr.dgid.raw,
					 s->sgid_index, ntohs(sa_port(&s->id.route.addr.dst_addr)),
					 &p);
	if (s->cid != NULL)
		rnic_cm_id_set_context(s->cid, s);
	pthread_mutex_unlock(&g.lock);
	if (s->cid == NULL) {
		errno = EHOSTUNREACH;
		return -1;
	}
	return 0;
}

int
rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct scm_id *s = (struct scm_id *)id;
	struct rnic_cm_param p;
	int rc;

	if (s == NULL || s->cid == NULL || param_in(s, conn_param, &p) != 0) {
		errno = EINVAL;
		return -1;
	}
	if (s->id.ps == RDMA_PS_UDP) {
		/* SIDR_REP: the QP (ours, or the one the caller names) and
		 * rdma_cm's Q_Key */
		uint32_t qpn = s->id.qp ? s->id.qp->qp_num : conn_param ? conn_param->qp_num : 0;

		if (qpn == 0) {
			errno = EINVAL;
			return -1;
		}
		pthread_mutex_lock(&g.lock);
		rc = g.down ? -ENODEV : rnic_cm_accept_ud(s->cid, qpn, RNIC_CMA_UDP_QKEY, &p);
		pthread_mutex_unlock(&g.lock);
		if (rc != 0) {
			errno = -rc;
			return -1;
		}
		return 0;
	}
	if (s->id.qp == NULL) {
		errno = ENOSYS;   /* as rdma_connect */
		return -1;
	}
	pthread_mutex_lock(&g.lock);
	rc = g.down ? -ENODEV : rnic_cm_accept(s->cid, ((struct sib_qp *)s->id.qp)->qp, &p);
	pthread_mutex_unlock(&g.lock);
	if (rc != 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

int
rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	struct scm_id *s = (struct scm_id *)id;
	int rc;

	(void)private_data;
	(void)private_data_len;   /* REJ goes out with reason 28 and no data */
	if (s == NULL || s->cid == NULL) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&g.lock);
	rc = g.down ? -ENODEV : rnic_cm_reject(s->cid);
	pthread_mutex_unlock(&g.lock);
	if (rc != 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

int
rdma_disconnect(struct rdma_cm_id *id)
{
	struct scm_id *s = (struct scm_id *)id;
	int rc;

	if (s == NULL || s->cid == NULL) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&g.lock);
	rc = g.down ? -ENODEV : rnic_cm_disconnect(s->cid);
	pthread_mutex_unlock(&g.lock);
	if (rc == -EINVAL && s->id.qp != NULL) {
		/* not established (any more): the QP to Error all the same,
		 * as the kernel's rdma_disconnect */
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

		ibv_modify_qp(s->id.qp, &a, IBV_QP_STATE);
		return 0;
	}
	if (rc != 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Devices and ports                                                   */
/* ------------------------------------------------------------------ */

struct ibv_context **
rdma_get_devices(int *num_devices)
{
	struct ibv_context **list;

	if (scm_ready() != 0)
		return NULL;
	list = calloc(g.ndev + 1, sizeof(*list));
	if (list == NULL)
		return NULL;
	for (unsigned int d = 0; d < g.ndev; d++)
		list[d] = g.dev[d].ctx;
	if (num_devices)
		*num_devices = (int)g.ndev;
	return list;
}

void
rdma_free_devices(struct ibv_context **list)
{
	free(list);
}

__be16
rdma_get_src_port(struct rdma_cm_id *id)
{
	return id ? sa_port(&id->route.addr.src_addr) : 0;
}

__be16
rdma_get_dst_port(struct rdma_cm_id *id)
{
	return id ? sa_port(&id->route.addr.dst_addr) : 0;
}
