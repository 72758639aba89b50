/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the C tests share (test/lib, linked in through test_common_dep):
 * the check macros (every C test's only assertions), and for the tests
 * that drive engines by hand one end of a test link (a
 * device with a PD, a CQ and a registered buffer), bringing a QP from
 * RESET to RTS, and polling until completions arrive.
 */
#ifndef RNIC_TEST_COMMON_H
#define RNIC_TEST_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_byteorder.h>

#include "rnic_engine.h"
#include "rnic_verbs.h"

/*
 * The check every C test makes. On a false @p cond it prints one line
 *
 *     [<tag>] FAIL <function>:<line>: <cond>: <message>
 *
 * ("[<tag>] " only while test_verify_tag is set; ": <message>" only where
 * the printf-style @p fmt, a string literal, gives one), counts it in
 * test_verify_failed and then
 *   VERIFY(cond, fmt, ...)              returns -1 (a function returning int);
 *   VERIFY_GOTO(cond, label, fmt, ...)  jumps to @p label (to clean up first);
 *   EXPECT(cond, fmt, ...)              goes on (independent checks in a row);
 *   TEST_CHECK(cond, fmt, ...)          is an expression: true, or false
 *                                       once reported (to act on it).
 * A true @p cond counts in test_verify_passed. TEST_FAIL(fmt, ...) is the
 * VERIFY of a failure already known: it prints "FAIL <function>:<line>:
 * <message>" and returns -1.
 */
#define TEST_CHECK(cond, fmt, ...) TEST_CHECK_AS_(cond, #cond, fmt, ##__VA_ARGS__)

#define VERIFY(cond, fmt, ...) do { \
	if (!TEST_CHECK_AS_(cond, #cond, fmt, ##__VA_ARGS__)) \
		return -1; \
} while (0)

#define VERIFY_GOTO(cond, label, fmt, ...) do { \
	if (!TEST_CHECK_AS_(cond, #cond, fmt, ##__VA_ARGS__)) \
		goto label; \
} while (0)

#define EXPECT(cond, fmt, ...) ((void)TEST_CHECK_AS_(cond, #cond, fmt, ##__VA_ARGS__))

/* Each macro writes #cond itself: the condition as written, macros unexpanded. */
#define TEST_CHECK_AS_(cond, text, fmt, ...) \
	((cond) ? (test_verify_passed++, true) : \
	 (test_verify_report(__func__, __LINE__, text, fmt "\n", ##__VA_ARGS__), false))

#define TEST_FAIL(fmt, ...) do { \
	test_verify_report(__func__, __LINE__, NULL, fmt "\n", ##__VA_ARGS__); \
	return -1; \
} while (0)

/* The checks made in this process so far, for a summary line. */
extern unsigned int test_verify_passed, test_verify_failed;
/* Printed in brackets before FAIL where not NULL (processes sharing an output). */
extern const char *test_verify_tag;

/*
 * Print a failed check (@p cond NULL: a failure without a condition) as
 * above and count it. @p fmt ends in a newline (the macros add it, so that
 * an empty message is not an empty format); the newline is not printed
 * twice. For checks whose place is not the caller's (a table row).
 */
void test_verify_report(const char *func, int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* One end of a test link, as test_side_up leaves it. */
struct test_side {
	struct rnic_device *dev;
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	struct rnic_mr *mr;
	uint8_t *buf;           /* rte_zmalloc'd, registered as mr */
	uint8_t mac[6];         /* 02:00:00:00:00:<last> */
	rte_be32_t ip;          /* 10.0.0.<last> */
	uint16_t port;
	uint32_t mbufs;         /* the packet pool's size (attr.mbufs or 16384) */
};

/*
 * A device on @p attr's port_id (a copy of @p attr, whose MAC and IPv4 are
 * replaced by 02:00:00:00:00:<last> and 10.0.0.<last>), a PD, a CQ of
 * @p cq_entries, a zeroed buffer of @p buf_size aligned to @p align and an
 * MR over it with local write and every remote access right.
 * @return 0, or -1: s->dev is NULL when rnic_dev_create failed (rte_errno
 * says why), otherwise what exists is left for the caller to destroy.
 */
int test_side_up(struct test_side *s, const struct rnic_dev_attr *attr, uint8_t last,
		 uint32_t cq_entries, size_t buf_size, size_t align);

/*
 * One round of polling for two devices: TX of both, RX of both, the timers
 * of both (in that order). @p b may be NULL (only @p a is polled).
 * @return the work done (the sum of what the poll calls return).
 */
unsigned int test_poll_pair(const struct test_side *a, const struct test_side *b);

/*
 * Call @p poll and drain @p cq into @p wc until @p n completions arrived or
 * @p max_rounds rounds passed. @return how many arrived.
 */
int test_wait_wc(struct rnic_cq *cq, struct rnic_wc *wc, int n, long max_rounds,
		 unsigned int (*poll)(void));

/* The QP's current state (rnic_query_qp). */
enum rnic_qp_state test_qp_state(struct rnic_qp *qp);

/* Where a QP connects to, and the attributes the tests vary. */
struct test_qp_conn {
	const uint8_t *dmac;    /* the peer's MAC (6 bytes) */
	rte_be32_t dip;         /* the peer's IPv4 */
	uint32_t dest_qpn;
	uint32_t qkey;          /* UD */
	enum rnic_mtu mtu;
	uint32_t sq_psn, rq_psn;
	uint8_t timeout;        /* RC: loss timer exponent, 0 = no timer */
	uint8_t retry_cnt;      /* RC */
	uint8_t sr;             /* RC: selective repeat (RNIC_QP_SR) */
};

/*
 * RESET -> INIT -> RTR -> RTS with the attributes each transition requires
 * for the QP's type (RC, UC or UD): port 1, pkey index 0, remote write,
 * read and atomic access (RC, UC) or the qkey (UD); the path, PMTU, peer
 * QPN and rq_psn (RC, UC); on RC also max_dest_rd_atomic 16,
 * min_rnr_timer 1, rnr_retry 7, max_rd_atomic 16, timeout and retry_cnt.
 * @return 0, or the failing rnic_modify_qp's result, with @p failed (when
 * not NULL) set to the state the QP was to move to.
 */
int test_qp_to_rts(struct rnic_qp *qp, const struct test_qp_conn *c,
		   enum rnic_qp_state *failed);

/*
 * test_qp_to_rts towards @p pqp on @p peer (its MAC and IPv4), qkey
 * 0x11111111.
 */
int test_qp_connect(struct rnic_qp *qp, const struct test_side *peer, struct rnic_qp *pqp,
		    enum rnic_mtu mtu, uint32_t sq_psn, uint32_t rq_psn, uint8_t timeout,
		    uint8_t retry_cnt);

/*
 * @p n RC QP pairs of @p attr (its CQs replaced by each side's; NULL:
 * RC, 16 send and receive WRs of one SGE), qa[i]
 * on @p a connected to qb[i] on @p b, both ways (MTU 1024, PSN 0,
 * timeout 14, retry 7). @return 0, or -1 with what was created left in
 * qa/qb (NULL from the first not created) for test_rc_pairs_destroy.
 */
int test_rc_pairs(struct test_side *a, struct test_side *b, const struct rnic_qp_init_attr *attr,
		  struct rnic_qp **qa, struct rnic_qp **qb, unsigned int n);

/* Destroy the non-NULL QPs of @p qa and @p qb (n each) and clear them. */
void test_rc_pairs_destroy(struct rnic_qp **qa, struct rnic_qp **qb, unsigned int n);

#endif /* RNIC_TEST_COMMON_H */
