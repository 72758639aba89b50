/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PD, MR and AH objects, and VirtToPhys: the key, PD, access and bounds
 * checks every memory access of the engine goes through (seed 7.1.3).
 * Keys are (table index << 8) | 8-bit variant, so a lookup is O(1) and a
 * re-registered slot gets a different key.
 */
#include <errno.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "rnic_verbs_pvt.h"

struct rnic_pd *
rnic_alloc_pd(struct rnic_device *dev)
{
	struct rnic_pd *pd;

	if (dev == NULL)
		return rnic_fail_null(EINVAL);
	if (RNIC_REMOTE(dev))
		return dev->ops->alloc_pd(dev);
	pd = rnic_obj_zalloc("rnic_pd", sizeof(*pd));
	if (pd == NULL)
		return NULL;
	pd->dev = dev;
	pd->handle = ++dev->n_pds;
	STORE_RLX(&dev->live_pds, dev->live_pds + 1);
	TAILQ_INSERT_TAIL(&dev->pds, pd, next);
	return pd;
}

int
rnic_dealloc_pd(struct rnic_pd *pd)
{
	if (pd == NULL)
		return -EINVAL;
	if (RNIC_REMOTE(pd->dev))
		return pd->dev->ops->dealloc_pd(pd);
	if (pd->refs)
		return -EBUSY;
	TAILQ_REMOVE(&pd->dev->pds, pd, next);
	STORE_RLX(&pd->dev->live_pds, pd->dev->live_pds - 1);
	rte_free(pd);
	return 0;
}

struct rnic_mr *
rnic_reg_mr(struct rnic_pd *pd, void *addr, uint64_t length, int access)
{
	return rnic_reg_mr_iova(pd, addr, length, (uint64_t)(uintptr_t)addr, access);
}

struct rnic_mr *
rnic_reg_mr_iova(struct rnic_pd *pd, void *addr, uint64_t length, uint64_t iova, int access)
{
	struct rnic_device *dev;
	struct rnic_mr *mr;
	uint32_t i, key;

	if (pd == NULL || addr == NULL || length == 0 || (access & ~RNIC_ACCESS_ALL) ||
	    ((uint64_t)(uintptr_t)addr + length < (uint64_t)(uintptr_t)addr) ||
	    iova + length < iova)
		return rnic_fail_null(EINVAL);
	/* IBA 10.6.3.1: remote write/atomic need local write. */
	if ((access & (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & RNIC_ACCESS_LOCAL_WRITE))
		return rnic_fail_null(EINVAL);
	dev = pd->dev;
	if (RNIC_REMOTE(dev))
		return dev->ops->reg_mr(pd, addr, length, iova, access);
	for (i = 0; i < dev->max_mrs; i++)
		if (dev->mrs[i] == NULL)
			break;
	if (i == dev->max_mrs)
			return rnic_fail_null(ENOSPC);
	mr = rte_zmalloc("rnic_mr", sizeof(*mr), 0);
	if (mr == NULL)
		return rnic_fail_null(ENOMEM);
	key = (i << 8) | (++dev->mr_key_seq & 0xff);
	mr->pd = pd;
	mr->addr = addr;
	mr->iova = iova;
	mr->length = length;
	mr->lkey = key;
	mr->rkey = key;
	mr->access = access;
	mr->index = i;
	mr->rkey_valid = 1;
	mr->valid = 1;
	pd->refs++;
	if (iova != (uint64_t)(uintptr_t)addr)
		__atomic_fetch_add(&dev->iova_mrs, 1, __ATOMIC_RELEASE);
	STORE_RLX(&dev->live_mrs, dev->live_mrs + 1);
	STORE_REL(&dev->mrs[i], mr);
	return mr;
}

int
rnic_dereg_mr(struct rnic_mr *mr)
{
	struct rnic_device *dev;

	if (mr == NULL)
		return -EINVAL;
	dev = mr->pd->dev;
	if (RNIC_REMOTE(dev))
		return dev->ops->dereg_mr(mr);
	STORE_REL(&mr->valid, 0);
	STORE_REL(&dev->mrs[mr->index], NULL);
	rnic_dev_quiesce(dev);   /* no lcore still holds the pointer */
	if (mr->iova != (uint64_t)(uintptr_t)mr->addr)
		__atomic_fetch_sub(&dev->iova_mrs, 1, __ATOMIC_RELEASE);
	mr->pd->refs--;
	STORE_RLX(&dev->live_mrs, dev->live_mrs - 1);
	rte_free(mr);
	return 0;
}

uint32_t rnic_mr_lkey(const struct rnic_mr *mr) { return mr->lkey; }
uint32_t rnic_mr_rkey(const struct rnic_mr *mr) { return mr->rkey; }

struct rnic_ah *
rnic_create_ah(struct rnic_pd *pd, const struct rnic_ah_attr *attr)
{
	struct rnic_ah_int *ah;

	if (pd == NULL || attr == NULL || !rnic_ah_valid(pd->dev, attr))
		return rnic_fail_null(EINVAL);
	if (RNIC_REMOTE(pd->dev))
		return pd->dev->ops->create_ah(pd, attr);
	ah = rte_zmalloc("rnic_ah", sizeof(*ah), 0);
	if (ah == NULL)
		return rnic_fail_null(ENOMEM);
	ah->pub.attr = *attr;
	ah->pd = pd;
	pd->refs++;
	TAILQ_INSERT_TAIL(&pd->dev->ahs, ah, next);
	STORE_RLX(&pd->dev->live_ahs, pd->dev->live_ahs + 1);
	return &ah->pub;
}

int
rnic_destroy_ah(struct rnic_ah *pub)
{
	struct rnic_ah_int *ah = (struct rnic_ah_int *)pub;

	if (ah == NULL)
		return -EINVAL;
	if (RNIC_REMOTE(ah->pd->dev))
		return ah->pd->dev->ops->destroy_ah(pub);
	ah->pd->refs--;
	TAILQ_REMOVE(&ah->pd->dev->ahs, ah, next);
	STORE_RLX(&ah->pd->dev->live_ahs, ah->pd->dev->live_ahs - 1);
	rte_free(ah);
	return 0;
}
