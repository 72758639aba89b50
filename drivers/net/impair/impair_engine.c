/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Impairment decisions for one direction of one queue: numbering, the
 * seeded generator, drop / duplicate / corrupt / hold-back, and the release
 * of held packets. Knows mbufs, not ethdev.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "impair_pvt.h"

/* splitmix64 finaliser: spreads a seed over all 64 bits. */
static uint64_t
impair_mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint32_t
impair_draw(struct impair_engine *e)
{
	return rnic_impair_xorshift(&e->rng);
}

/* p in [0,1] -> threshold a 32-bit draw is compared against; 1 -> 2^32. */
static uint64_t
impair_threshold(double p)
{
	return (uint64_t)(p * 4294967296.0);
}

static int
impair_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool
impair_prob_ok(double p)
{
	return p >= 0.0 && p <= 1.0; /* false for NaN too */
}

void
rnic_impair_cfg_init(struct impair_cfg *c)
{
	struct rnic_impair_params p = {
		.reorder_depth = IMPAIR_DEFAULT_DEPTH,
		.reorder_idle = IMPAIR_DEFAULT_IDLE,
		.seed = IMPAIR_DEFAULT_SEED,
	};

	memset(c, 0, sizeof(*c));
	rnic_impair_cfg_load(c, &p);
}

int
rnic_impair_cfg_load(struct impair_cfg *c,
		     const struct rnic_impair_params *p)
{
	uint64_t list[RNIC_IMPAIR_MAX_DROP_PKTS];
	uint16_t i, n = 0;

	if (p == NULL || !impair_prob_ok(p->drop) || !impair_prob_ok(p->dup) ||
	    !impair_prob_ok(p->reorder) || !impair_prob_ok(p->corrupt) ||
	    p->reorder_depth < 1 ||
	    p->reorder_depth > RNIC_IMPAIR_MAX_DEPTH ||
	    p->reorder_idle < 1 ||
	    p->nb_drop_pkts > RNIC_IMPAIR_MAX_DROP_PKTS ||
	    (p->nb_drop_pkts > 0 && p->drop_pkts == NULL))
		return -EINVAL;
	/* Copy first: p->drop_pkts may point at c->drop_pkts. */
	for (i = 0; i < p->nb_drop_pkts; i++) {
		if (p->drop_pkts[i] == 0)
			return -EINVAL;
		list[i] = p->drop_pkts[i];
	}
	qsort(list, p->nb_drop_pkts, sizeof(list[0]), impair_cmp_u64);
	for (i = 0; i < p->nb_drop_pkts; i++)
		if (n == 0 || list[i] != list[n - 1])
			list[n++] = list[i];

	c->p = *p;
	memcpy(c->drop_pkts, list, n * sizeof(list[0]));
	c->p.drop_pkts = n > 0 ? c->drop_pkts : NULL;
	c->p.nb_drop_pkts = n;
	c->drop_thr = impair_threshold(p->drop);
	c->dup_thr = impair_threshold(p->dup);
	c->reorder_thr = impair_threshold(p->reorder);
	c->corrupt_thr = impair_threshold(p->corrupt);
	/* Publish last: an engine that sees the new gen sees the program. */
	__atomic_store_n(&c->gen, c->gen + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Start the program c describes: fresh generator and numbering. */
static void
impair_engine_restart(struct impair_engine *e, const struct impair_cfg *c)
{
	e->gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
	e->rng = impair_mix64(c->p.seed ^ impair_mix64(e->stream));
	if (e->rng == 0)
		e->rng = 1;
	e->pkt_no = 0;
	e->drop_idx = 0;
	e->idle = 0;
}

static inline void
impair_engine_sync(struct impair_engine *e, const struct impair_cfg *c)
{
	if (unlikely(e->gen != __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE)))
		impair_engine_restart(e, c);
}

void
rnic_impair_engine_init(struct impair_engine *e,
			const struct impair_cfg *c, int dir, uint16_t qid)
{
	memset(e, 0, sizeof(*e));
	e->stream = ((uint64_t)(dir + 1) << 16) | qid;
	impair_engine_restart(e, c);
}

static bool
impair_listed(struct impair_engine *e, const struct impair_cfg *c,
	      uint64_t no)
{
	while (e->drop_idx < c->p.nb_drop_pkts &&
	       c->drop_pkts[e->drop_idx] < no)
		e->drop_idx++;
	return e->drop_idx < c->p.nb_drop_pkts &&
	       c->drop_pkts[e->drop_idx] == no;
}

/* A segment someone else may read: writing it would corrupt their copy. */
static bool
impair_shared(const struct rte_mbuf *m)
{
	for (; m != NULL; m = m->next)
		if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) > 1)
			return true;
	return false;
}

static struct rte_mbuf *
impair_corrupt(struct impair_engine *e, struct rte_mbuf *m)
{
	struct rte_mbuf *seg;
	uint32_t off;

	if (m->pkt_len < RNIC_IMPAIR_CORRUPT_MIN_LEN)
		return m;
	if (impair_shared(m)) {
		struct rte_mbuf *c = rte_pktmbuf_copy(m, m->pool, 0,
						      UINT32_MAX);

		if (c == NULL) {
			e->cnt.copy_failed++;
			return m;
		}
		rte_pktmbuf_free(m);
		m = c;
	}
	off = m->pkt_len - RNIC_IMPAIR_CORRUPT_TAIL;
	for (seg = m; off >= seg->data_len; seg = seg->next)
		off -= seg->data_len;
	*rte_pktmbuf_mtod_offset(seg, uint8_t *, off) ^= 0xff;
	e->cnt.corrupted++;
	return m;
}

/* One later packet went by: release the held ones whose count ran out. */
static uint16_t
impair_tick(struct impair_engine *e, struct rte_mbuf **out, uint16_t k)
{
	uint16_t i, keep = 0;

	for (i = 0; i < e->nb_held; i++) {
		if (--e->held[i].left == 0)
			out[k++] = e->held[i].m;
		else
			e->held[keep++] = e->held[i];
	}
	e->nb_held = keep;
	return k;
}

static uint16_t
impair_hold(struct impair_engine *e, struct rte_mbuf *m, uint16_t left,
	    struct rte_mbuf **out, uint16_t k)
{
	/* Full only after a program change shrank the depth: let the oldest
	 * go rather than lose a packet. */
	if (e->nb_held == RNIC_IMPAIR_MAX_DEPTH) {
		out[k++] = e->held[0].m;
		memmove(&e->held[0], &e->held[1],
			(e->nb_held - 1) * sizeof(e->held[0]));
		e->nb_held--;
	}
	e->held[e->nb_held].m = m;
	e->held[e->nb_held].left = left;
	e->nb_held++;
	e->cnt.reordered++;
	return k;
}

uint16_t
rnic_impair_engine_run(struct impair_engine *e, const struct impair_cfg *c,
		       struct rte_mbuf **in, uint16_t n,
		       struct rte_mbuf **out)
{
	uint16_t i, k = 0;

	impair_engine_sync(e, c);
	e->idle = 0;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = in[i], *copy = NULL;
		uint64_t no = ++e->pkt_no;
		/* Five draws per packet, whatever happens to it. */
		uint32_t r_drop = impair_draw(e);
		uint32_t r_corrupt = impair_draw(e);
		uint32_t r_dup = impair_draw(e);
		uint32_t r_reorder = impair_draw(e);
		uint32_t r_left = impair_draw(e);
		bool drop = false, corrupt = false, dup = false, hold = false;
		uint16_t left = 0;
		int act = RNIC_IMPAIR_PASS;

		e->cnt.seen++;
		if (c->hook != NULL)
			act = c->hook(m, no, c->hook_arg);
		switch (act) {
		case RNIC_IMPAIR_DROP:
			drop = true;
			break;
		case RNIC_IMPAIR_DUP:
			dup = true;
			break;
		case RNIC_IMPAIR_CORRUPT:
			corrupt = true;
			break;
		case RNIC_IMPAIR_DELAY:
			hold = true;
			left = c->p.reorder_depth;
			break;
		default:
			if (impair_listed(e, c, no) || r_drop < c->drop_thr) {
				drop = true;
				break;
			}
			corrupt = r_corrupt < c->corrupt_thr;
			dup = r_dup < c->dup_thr;
			if (r_reorder < c->reorder_thr) {
				hold = true;
				left = 1 + r_left % c->p.reorder_depth;
			}
			break;
		}

		if (drop) {
			rte_pktmbuf_free(m);
			e->cnt.dropped++;
		} else {
			if (corrupt)
				m = impair_corrupt(e, m);
			if (dup) {
				copy = rte_pktmbuf_copy(m, m->pool, 0,
							UINT32_MAX);
				if (copy == NULL)
					e->cnt.copy_failed++;
				else
					e->cnt.duplicated++;
			}
			if (!hold)
				out[k++] = m;
			if (copy != NULL)
				out[k++] = copy;
		}
		k = impair_tick(e, out, k);
		if (hold && !drop)
			k = impair_hold(e, m, left, out, k);
	}
	e->cnt.passed += k;
	return k;
}

uint16_t
rnic_impair_engine_release(struct impair_engine *e, struct rte_mbuf **out)
{
	uint16_t i, k = e->nb_held;

	for (i = 0; i < k; i++)
		out[i] = e->held[i].m;
	e->nb_held = 0;
	e->cnt.passed += k;
	return k;
}

uint16_t
rnic_impair_engine_idle(struct impair_engine *e,
			const struct impair_cfg *c, struct rte_mbuf **out)
{
	impair_engine_sync(e, c);
	if (e->nb_held == 0)
		return 0;
	if (++e->idle < c->p.reorder_idle)
		return 0;
	e->idle = 0;
	return rnic_impair_engine_release(e, out);
}

uint16_t
rnic_impair_engine_discard(struct impair_engine *e)
{
	uint16_t i, k = e->nb_held;

	for (i = 0; i < k; i++)
		rte_pktmbuf_free(e->held[i].m);
	e->nb_held = 0;
	return k;
}
