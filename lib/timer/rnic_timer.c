/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TimerControl (seed 3.4.2): a hierarchical timing wheel and the service
 * that drives the per-QP loss and RNR timers from event rings (seed 7.1.4).
 *
 * The wheel. Every timer is on exactly one circular doubly linked list: a
 * slot of some level, or the due list. Lists are index-linked through one
 * array whose first max_timers entries are the timers and whose tail holds
 * the list heads, so unlinking needs no knowledge of the list (O(1) stop).
 *
 * "cur" is the last tick processed. A timer with deadline tick e is filed
 * relative to a reference tick r (cur, or the tick being processed when
 * cascading) by d = e - r:
 *   d == 0 (or e < r)        -> the due list;
 *   256^L <= d < 256^(L+1)   -> level L, slot (e >> 8L) & 255.
 * Level L slot s is visited at the ticks t = b << 8L with b & 255 == s, and
 * for such a filing the first visit after r is b = e >> 8L: at or before e,
 * after r. A visit re-files the slot's timers relative to t, which puts each
 * strictly lower (d < 256^L) or due. Level 0 visits at t = e exactly, so a
 * timer fires at its own tick. Deadlines beyond 2^40 ticks are filed as if
 * at r + 2^40 - 1 and re-filed when that visit comes.
 *
 * Occupancy bitmaps, one bit per slot, let advance jump straight to the next
 * visit of a non-empty slot. Bits are cleared lazily: stop leaves a bit set,
 * and the scan clears it when it finds the slot empty.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_memzone.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "rnic_timer.h"

RTE_LOG_REGISTER(rnic_timer_logtype, softrnic.timer, NOTICE);
#define RTE_LOGTYPE_RNIC_TIMER rnic_timer_logtype

#define TW_NIL       UINT32_MAX
#define TW_MASK      (RNIC_TW_SLOTS - 1)
#define TW_WORDS     (RNIC_TW_SLOTS / 64)
#define TW_SPAN_BITS (RNIC_TW_LEVELS * RNIC_TW_SLOT_BITS)
#define TW_HEADS     (RNIC_TW_LEVELS * RNIC_TW_SLOTS + 1)  /* slots + due list */

struct tw_link {
	uint32_t next;
	uint32_t prev;  /* TW_NIL in both when the timer is idle */
};

struct rnic_tw {
	uint64_t tick_ns;
	uint64_t cur;          /* last tick processed */
	uint32_t max_timers;
	uint32_t n_pending;
	uint32_t due;          /* head index of the due list */
	uint64_t next_hint;    /* no slot is visited before this tick (0: unknown) */
	uint64_t *expire;      /* [max_timers] deadline ticks */
	struct tw_link *link;  /* [max_timers + TW_HEADS] */
	uint64_t occ[RNIC_TW_LEVELS][TW_WORDS];  /* a set bit may be stale */
};

static_assert(sizeof(struct tw_link) + sizeof(uint64_t) ==
	      RNIC_TW_BYTES_PER_TIMER, "documented bytes per timer");
static_assert(TW_SPAN_BITS < 64, "wheel span must fit a tick count");

static inline uint32_t
tw_head(const struct rnic_tw *tw, unsigned level, unsigned slot)
{
	return tw->max_timers + level * RNIC_TW_SLOTS + slot;
}

static inline void
tw_list_init(struct rnic_tw *tw, uint32_t h)
{
	tw->link[h].next = h;
	tw->link[h].prev = h;
}

static inline bool
tw_list_empty(const struct rnic_tw *tw, uint32_t h)
{
	return tw->link[h].next == h;
}

static inline void
tw_list_add_tail(struct rnic_tw *tw, uint32_t h, uint32_t x)
{
	uint32_t p = tw->link[h].prev;

	tw->link[x].next = h;
	tw->link[x].prev = p;
	tw->link[p].next = x;
	tw->link[h].prev = x;
}

static inline void
tw_list_del(struct rnic_tw *tw, uint32_t x)
{
	uint32_t n = tw->link[x].next;
	uint32_t p = tw->link[x].prev;

	tw->link[p].next = n;
	tw->link[n].prev = p;
	tw->link[x].next = TW_NIL;
	tw->link[x].prev = TW_NIL;
}

/* File timer x with deadline tick e relative to reference tick r. */
static void
tw_insert(struct rnic_tw *tw, uint32_t x, uint64_t e, uint64_t r)
{
	unsigned level, slot;
	uint64_t d;

	if (e <= r) {
		tw_list_add_tail(tw, tw->due, x);
		return;
	}
	d = e - r;
	level = (63 - __builtin_clzll(d)) / RNIC_TW_SLOT_BITS;
	if (level >= RNIC_TW_LEVELS) {
		/* Park at the far end of the span; re-filed on that visit,
		 * which comes before e. */
		level = RNIC_TW_LEVELS - 1;
		e = r + (UINT64_C(1) << TW_SPAN_BITS) - 1;
	}
	slot = (e >> (level * RNIC_TW_SLOT_BITS)) & TW_MASK;
	tw_list_add_tail(tw, tw_head(tw, level, slot), x);
	tw->occ[level][slot / 64] |= UINT64_C(1) << (slot % 64);
}

/* First set bit at or after from, wrapping round; -1 if none. */
static int
tw_scan(const uint64_t occ[TW_WORDS], unsigned from)
{
	unsigned w = from / 64, b = from % 64, i;
	uint64_t bits;

	bits = occ[w] & (~UINT64_C(0) << b);
	if (bits != 0)
		return (int)(w * 64 + __builtin_ctzll(bits));
	for (i = 1; i < TW_WORDS; i++) {
		unsigned k = (w + i) % TW_WORDS;

		if (occ[k] != 0)
			return (int)(k * 64 + __builtin_ctzll(occ[k]));
	}
	bits = occ[w] & ((UINT64_C(1) << b) - 1);
	if (bits != 0)
		return (int)(w * 64 + __builtin_ctzll(bits));
	return -1;
}

/* The next tick after cur at which a non-empty slot is visited. */
static uint64_t
tw_next_event(struct rnic_tw *tw)
{
	uint64_t best = UINT64_MAX;
	unsigned level;

	for (level = 0; level < RNIC_TW_LEVELS; level++) {
		unsigned shift = level * RNIC_TW_SLOT_BITS;
		uint64_t base = (tw->cur >> shift) + 1;
		uint64_t blk;
		int s;

		for (;;) {
			s = tw_scan(tw->occ[level], base & TW_MASK);
			if (s < 0)
				break;
			if (!tw_list_empty(tw, tw_head(tw, level, s)))
				break;
			tw->occ[level][s / 64] &= ~(UINT64_C(1) << (s % 64));
		}
		if (s < 0)
			continue;
		blk = base + (((uint64_t)s - base) & TW_MASK);
		if (blk > (UINT64_MAX >> shift))
			continue;
		best = RTE_MIN(best, blk << shift);
	}
	return best;
}

/* Visit level/slot at tick t: re-file its timers relative to t. */
static void
tw_cascade(struct rnic_tw *tw, unsigned level, unsigned slot, uint64_t t)
{
	uint32_t h = tw_head(tw, level, slot);
	uint32_t x, nx;

	tw->occ[level][slot / 64] &= ~(UINT64_C(1) << (slot % 64));
	if (tw_list_empty(tw, h))
		return;
	x = tw->link[h].next;
	tw_list_init(tw, h);
	/* The old chain still ends at h; tw_insert never files back here. */
	for (; x != h; x = nx) {
		nx = tw->link[x].next;
		tw_insert(tw, x, tw->expire[x], t);
	}
}

static void
tw_process_tick(struct rnic_tw *tw, uint64_t t)
{
	unsigned level, slot;
	uint32_t h, first, last, tail;

	for (level = 1; level < RNIC_TW_LEVELS; level++) {
		unsigned shift = level * RNIC_TW_SLOT_BITS;

		if ((t & ((UINT64_C(1) << shift) - 1)) != 0)
			break;
		tw_cascade(tw, level, (t >> shift) & TW_MASK, t);
	}

	/* Level 0 slot t holds exactly the timers due at t: splice it whole
	 * onto the due list. */
	slot = t & TW_MASK;
	h = tw_head(tw, 0, slot);
	tw->occ[0][slot / 64] &= ~(UINT64_C(1) << (slot % 64));
	if (!tw_list_empty(tw, h)) {
		first = tw->link[h].next;
		last = tw->link[h].prev;
		tail = tw->link[tw->due].prev;
		tw->link[tail].next = first;
		tw->link[first].prev = tail;
		tw->link[last].next = tw->due;
		tw->link[tw->due].prev = last;
		tw_list_init(tw, h);
	}
	tw->cur = t;
}

struct rnic_tw *
rnic_tw_create(uint32_t max_timers, uint64_t tick_ns, int socket_id)
{
	size_t n_links, size;
	struct rnic_tw *tw;
	uint32_t i;

	if (max_timers == 0 || max_timers > RNIC_TW_MAX_TIMERS || tick_ns == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	n_links = (size_t)max_timers + TW_HEADS;
	size = RTE_ALIGN_CEIL(sizeof(*tw), RTE_CACHE_LINE_SIZE) +
		(size_t)max_timers * sizeof(uint64_t) +
		n_links * sizeof(struct tw_link);
	tw = rte_zmalloc_socket("rnic_tw", size, RTE_CACHE_LINE_SIZE, socket_id);
	if (tw == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	tw->tick_ns = tick_ns;
	tw->max_timers = max_timers;
	tw->expire = (uint64_t *)RTE_PTR_ADD(tw,
		RTE_ALIGN_CEIL(sizeof(*tw), RTE_CACHE_LINE_SIZE));
	tw->link = (struct tw_link *)(tw->expire + max_timers);
	for (i = 0; i < max_timers; i++) {
		tw->link[i].next = TW_NIL;
		tw->link[i].prev = TW_NIL;
	}
	for (i = max_timers; i < n_links; i++)
		tw_list_init(tw, i);
	tw->due = max_timers + TW_HEADS - 1;
	return tw;
}

void
rnic_tw_free(struct rnic_tw *tw)
{
	rte_free(tw);
}

int
rnic_tw_start(struct rnic_tw *tw, uint32_t id, uint64_t expire_at_ns)
{
	uint64_t e;

	if (tw == NULL || id >= tw->max_timers)
		return -EINVAL;
	if (tw->link[id].next != TW_NIL)
		tw_list_del(tw, id);
	else
		tw->n_pending++;
	/* Round up: a timer must never fire before its deadline. */
	e = expire_at_ns / tw->tick_ns;
	if (expire_at_ns % tw->tick_ns != 0)
		e++;
	tw->expire[id] = e;
	tw_insert(tw, id, e, tw->cur);
	tw->next_hint = 0;
	return 0;
}

int
rnic_tw_stop(struct rnic_tw *tw, uint32_t id)
{
	if (tw == NULL || id >= tw->max_timers)
		return -EINVAL;
	if (tw->link[id].next == TW_NIL)
		return -ENOENT;
	tw_list_del(tw, id);
	tw->n_pending--;
	return 0;
}

bool
rnic_tw_pending(const struct rnic_tw *tw, uint32_t id)
{
	return tw != NULL && id < tw->max_timers && tw->link[id].next != TW_NIL;
}

uint32_t
rnic_tw_count(const struct rnic_tw *tw)
{
	return tw != NULL ? tw->n_pending : 0;
}

unsigned
rnic_tw_advance(struct rnic_tw *tw, uint64_t now_ns, uint32_t *expired,
		unsigned max)
{
	uint64_t now, t;
	unsigned n = 0;
	uint32_t x;

	if (tw == NULL || expired == NULL)
		return 0;
	now = now_ns / tw->tick_ns;
	while (n < max) {
		if (!tw_list_empty(tw, tw->due)) {
			x = tw->link[tw->due].next;
			tw_list_del(tw, x);
			tw->n_pending--;
			expired[n++] = x;
			continue;
		}
		if (tw->cur >= now)
			break;
		/* The common case, polled every few hundred ns: nothing is
		 * filed before the tick found last time (starts reset it). */
		if (now < tw->next_hint) {
			tw->cur = now;
			break;
		}
		t = tw_next_event(tw);
		if (t > now) {
			/* Nothing is visited up to now: skip the gap. */
			tw->cur = now;
			tw->next_hint = t;
			break;
		}
		tw_process_tick(tw, t);
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* IBA timeout encodings                                               */
/* ------------------------------------------------------------------ */

uint64_t
rnic_ib_timeout_ns(uint8_t timeout)
{
	timeout &= 0x1f;
	if (timeout == 0)
		return RNIC_TIMEOUT_INFINITE;
	return UINT64_C(4096) << timeout;
}

uint64_t
rnic_rnr_timer_ns(uint8_t code)
{
	/* IBA table 45, in units of 10 us. */
	static const uint32_t rnr_10us[32] = {
		65536, 1, 2, 3, 4, 6, 8, 12,
		16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072,
		4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
	};

	return (uint64_t)rnr_10us[code & 0x1f] * 10000;
}

/* ------------------------------------------------------------------ */
/* TimerControl service                                                */
/* ------------------------------------------------------------------ */

#define SVC_BURST 32

/* One timer's parameters: the seed's RAM entry (3.4.2.2, table 3.5) less
 * the current value and active bit, which live in the wheel. Written only
 * by the timer lcore. */
struct timer_state {
	uint64_t value_ns;   /* duration from the last SET, for RESTART */
	uint8_t init_retry;  /* CV from the last SET */
	uint8_t retry;       /* counter now */
	uint8_t set;         /* a SET has been seen */
	uint8_t rsvd[5];
};

struct rnic_timer_svc {
	struct rnic_tw *tw;
	struct rte_ring *in;
	struct rte_ring *out;
	uint32_t max_qps;
	struct rnic_timer_stats stats;
	struct timer_state st[];  /* [max_qps * RNIC_TIMER_KINDS] by timer id */
};

static_assert(sizeof(struct rnic_timer_event) == 16, "ring element size");
static_assert(sizeof(struct timer_state) == 16, "documented bytes per timer");

struct rnic_timer_svc *
rnic_timer_svc_create(uint32_t max_qps, uint64_t tick_ns, struct rte_ring *in,
		      struct rte_ring *out)
{
	struct rnic_timer_svc *svc;
	int socket_id;

	RTE_BUILD_BUG_ON(sizeof(struct rnic_timer_event) != 16);
	if (max_qps == 0 || max_qps > RNIC_TW_MAX_TIMERS / RNIC_TIMER_KINDS ||
	    tick_ns == 0 || in == NULL || out == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	socket_id = in->memzone != NULL ? in->memzone->socket_id : SOCKET_ID_ANY;
	svc = rte_zmalloc_socket("rnic_timer_svc", sizeof(*svc) +
		(size_t)max_qps * RNIC_TIMER_KINDS * sizeof(svc->st[0]),
		RTE_CACHE_LINE_SIZE, socket_id);
	if (svc == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	svc->tw = rnic_tw_create(max_qps * RNIC_TIMER_KINDS, tick_ns, socket_id);
	if (svc->tw == NULL) {
		rte_free(svc);
		rte_errno = ENOMEM;
		return NULL;
	}
	svc->in = in;
	svc->out = out;
	svc->max_qps = max_qps;
	return svc;
}

void
rnic_timer_svc_free(struct rnic_timer_svc *svc)
{
	if (svc == NULL)
		return;
	rnic_tw_free(svc->tw);
	rte_free(svc);
}

static void
svc_arm(struct rnic_timer_svc *svc, uint32_t id, uint64_t now_ns)
{
	uint64_t v = svc->st[id].value_ns;

	if (v == RNIC_TIMEOUT_INFINITE || v > UINT64_MAX - now_ns) {
		/* IBA timeout 0: the timer is disabled, not due at once. */
		rnic_tw_stop(svc->tw, id);
		return;
	}
	rnic_tw_start(svc->tw, id, now_ns + v);
}

static void
svc_command(struct rnic_timer_svc *svc, const struct rnic_timer_event *ev,
	    uint64_t now_ns)
{
	struct timer_state *st;
	uint32_t id;

	if (ev->qp >= svc->max_qps || ev->timer >= RNIC_TIMER_KINDS)
		goto bad;
	id = rnic_timer_id(ev->qp, ev->timer);
	st = &svc->st[id];
	switch (ev->type) {
	case RNIC_TIMER_SET:
		if (ev->retry > RNIC_TIMER_RETRY_INFINITE)
			goto bad;
		st->value_ns = ev->value_ns;
		st->init_retry = ev->retry;
		st->retry = ev->retry;
		st->set = 1;
		svc_arm(svc, id, now_ns);
		return;
	case RNIC_TIMER_RESTART:
		if (!st->set)
			goto bad;
		if (!(ev->flags & RNIC_TIMER_F_KEEP_COUNT))
			st->retry = st->init_retry;
		svc_arm(svc, id, now_ns);
		return;
	case RNIC_TIMER_STOP:
		rnic_tw_stop(svc->tw, id);  /* -ENOENT: already idle, fine */
		return;
	default:
		break;
	}
bad:
	svc->stats.bad_commands++;
	RTE_LOG_DP(DEBUG, RNIC_TIMER, "rnic_timer: bad command type %u qp %u timer %u\n",
		   ev->type, ev->qp, ev->timer);
}

/* The event for an expiry of timer id, decided by the seed's rule
 * (3.4.2.4.1): counter at 0 -> retry exceeded, else decrement and expire.
 * The counter itself is only written once the event is on the ring. */
static void
svc_expiry(const struct rnic_timer_svc *svc, uint32_t id, uint64_t now_ns,
	   struct rnic_timer_event *ev)
{
	const struct timer_state *st = &svc->st[id];

	ev->qp = id / RNIC_TIMER_KINDS;
	ev->timer = id % RNIC_TIMER_KINDS;
	ev->flags = 0;
	ev->value_ns = now_ns;
	if (ev->timer == RNIC_TIMER_RNR &&
	    st->retry == RNIC_TIMER_RETRY_INFINITE) {
		ev->type = RNIC_TIMER_EXPIRED;
		ev->retry = st->retry;
	} else if (st->retry == 0) {
		ev->type = RNIC_TIMER_RETRY_EXCEEDED;
		ev->retry = 0;
	} else {
		ev->type = RNIC_TIMER_EXPIRED;
		ev->retry = st->retry - 1;
	}
}

unsigned
rnic_timer_svc_poll(struct rnic_timer_svc *svc, uint64_t now_ns)
{
	struct rnic_timer_event ev[SVC_BURST];
	uint32_t ids[SVC_BURST];
	unsigned n, i, room, max, sent;

	if (svc == NULL)
		return 0;

	n = rte_ring_dequeue_burst_elem(svc->in, ev, sizeof(ev[0]), SVC_BURST,
					NULL);
	for (i = 0; i < n; i++)
		svc_command(svc, &ev[i], now_ns);
	svc->stats.commands += n;

	/* Take no more expiries than the output ring can hold; the rest stay
	 * due in the wheel, where a STOP can still cancel them. */
	room = rte_ring_free_count(svc->out);
	max = RTE_MIN(room, (unsigned)SVC_BURST);
	sent = 0;
	if (max > 0) {
		unsigned m = rnic_tw_advance(svc->tw, now_ns, ids, max);

		if (m == max && max < SVC_BURST)
			svc->stats.out_stalls++;
		for (i = 0; i < m; i++)
			svc_expiry(svc, ids[i], now_ns, &ev[i]);
		sent = rte_ring_enqueue_burst_elem(svc->out, ev, sizeof(ev[0]),
						   m, NULL);
		for (i = 0; i < sent; i++) {
			svc->st[ids[i]].retry = ev[i].retry;
			if (ev[i].type == RNIC_TIMER_EXPIRED)
				svc->stats.expired++;
			else
				svc->stats.exceeded++;
		}
		/* Another producer took the room: put the rest back as due. */
		for (i = sent; i < m; i++)
			rnic_tw_start(svc->tw, ids[i], 0);
	} else {
		svc->stats.out_stalls++;
	}
	return n + sent;
}

bool
rnic_timer_svc_idle(const struct rnic_timer_svc *svc)
{
	return svc == NULL || (svc->tw->n_pending == 0 && rte_ring_empty(svc->in));
}

bool
rnic_timer_svc_pending(const struct rnic_timer_svc *svc, uint32_t qp,
		       enum rnic_timer_kind timer)
{
	if (svc == NULL || qp >= svc->max_qps ||
	    (unsigned)timer >= RNIC_TIMER_KINDS)
		return false;
	return rnic_tw_pending(svc->tw, rnic_timer_id(qp, timer));
}

int
rnic_timer_svc_stats(const struct rnic_timer_svc *svc,
		     struct rnic_timer_stats *stats)
{
	if (svc == NULL || stats == NULL)
		return -EINVAL;
	*stats = svc->stats;
	return 0;
}
