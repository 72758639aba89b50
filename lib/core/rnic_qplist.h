/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A QP work list: the QPs one engine role has work for (the TX role's
 * active QPs, the RX role's READ responses, pending ACKs and
 * retransmissions). Unordered, O(1) add and remove; a QP is on a list at
 * most once, which a flag in the QP's own role struct records, so the
 * list never holds more entries than the device has QP slots. The list,
 * its flag in each QP, and the walk belong to the role's thread only.
 *
 * A walk (rnic_qp_list_walk, rnic_qp.h) drops any QP found in Reset
 * ([QP-DEAD]): Reset and destroy store the state, then quiesce the roles
 * (rnic_dev_quiesce), and after two full passes of every role no list
 * names the QP any more, without the control thread ever touching a
 * role's list.
 */
#ifndef RNIC_QPLIST_H
#define RNIC_QPLIST_H

#include <stdint.h>

struct rnic_qp;

struct rnic_qp_list {
	struct rnic_qp **q;
	uint32_t n;
};

/* Add @p qp unless its flag @p on says it is there already. */
static inline void
rnic_qp_list_add(struct rnic_qp_list *l, struct rnic_qp *qp, uint8_t *on)
{
	if (!*on) {
		*on = 1;
		l->q[l->n++] = qp;
	}
}

/* Remove entry @p i (the last entry takes its place); clear its flag. */
static inline void
rnic_qp_list_del(struct rnic_qp_list *l, uint32_t i, uint8_t *on)
{
	*on = 0;
	l->q[i] = l->q[--l->n];
}

/* Remove entry @p i of a walk's visited part, the entries before
 * *@p cursor: the last visited one takes its place and the list's last
 * the cursor's, which moves back one, so that every entry not yet
 * visited still is ahead of the cursor. Clear its flag. */
static inline void
rnic_qp_list_del_visited(struct rnic_qp_list *l, uint32_t i, uint32_t *cursor, uint8_t *on)
{
	*on = 0;
	l->q[i] = l->q[*cursor - 1];
	l->q[*cursor - 1] = l->q[--l->n];
	(*cursor)--;
}

#endif /* RNIC_QPLIST_H */
