/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * TimerControl (seed 3.4.2): the per-QP loss timer and RNR timer of the
 * requester, in two layers.
 *
 * 1. A hierarchical timing wheel (struct rnic_tw), in the spirit of VPP's
 *    tw_timer: timers are small integer ids chosen by the caller, start and
 *    stop are O(1), and expirations come out in batches with a per-call cap.
 *    It is plain C over plain memory with no lcore or ring in it, so it can
 *    be driven by a fake clock.
 *
 *    Geometry: RNIC_TW_LEVELS levels of RNIC_TW_SLOTS slots. Level L slots
 *    are 256^L ticks wide; timers cascade down as the wheel turns, so every
 *    timer fires at the exact tick of its deadline whatever its length. With
 *    a 1 us tick the wheel spans 2^40 us (~12.7 days), far beyond the IBA
 *    maximum local ACK timeout (4.096 us * 2^31, ~2.4 hours) and the RNR
 *    timer table (0.01 ms .. 655.36 ms); a deadline beyond the span is parked
 *    in the top level and re-filed when it comes round, so it is never early.
 *    The seed's hardware table scans 16384 QPs for a 64 us granularity
 *    (3.4.2.4.2); the wheel's granularity is one tick at any QP count.
 *
 *    Memory: RNIC_TW_BYTES_PER_TIMER (16) bytes per timer (two 32-bit list
 *    links and a 64-bit deadline tick) plus a fixed ~10 KiB of slot heads.
 *
 * 2. The TimerControl service (struct rnic_timer_svc): two timers per QP
 *    (id = qp * 2 + timer), driven by 16-byte events on rte_rings with the
 *    set / stop / restart and expired / retry-exceeded codes of seed 7.1.4.
 *    All per-QP timer state is written only by the lcore that calls
 *    rnic_timer_svc_poll(). Memory: 32 bytes per timer, 64 bytes per QP.
 */
#ifndef RNIC_TIMER_H
#define RNIC_TIMER_H

#include <stdbool.h>
#include <stdint.h>

struct rte_ring;

/* ------------------------------------------------------------------ */
/* Timing wheel                                                        */
/* ------------------------------------------------------------------ */

#define RNIC_TW_SLOT_BITS        8
#define RNIC_TW_SLOTS            (1u << RNIC_TW_SLOT_BITS)  /**< slots per level */
#define RNIC_TW_LEVELS           5   /**< span: 2^40 ticks */
#define RNIC_TW_MAX_TIMERS       (1u << 30)  /**< largest max_timers accepted */
#define RNIC_TW_BYTES_PER_TIMER  16  /**< links (8) + deadline tick (8) */

struct rnic_tw;

/**
 * Create a timing wheel.
 *
 * The wheel starts at tick 0; the first rnic_tw_advance() moves it to the
 * caller's clock in one step however far that is.
 *
 * @param max_timers
 *   Number of timers; ids are 0 .. max_timers - 1.
 * @param tick_ns
 *   Length of one tick (level 0 slot) in nanoseconds; the timer granularity.
 * @param socket_id
 *   NUMA socket for the memory, or SOCKET_ID_ANY.
 * @return
 *   The wheel, or NULL with rte_errno set to:
 *   - EINVAL: max_timers is 0 or above RNIC_TW_MAX_TIMERS, or tick_ns is 0.
 *   - ENOMEM: out of memory.
 */
struct rnic_tw *rnic_tw_create(uint32_t max_timers, uint64_t tick_ns,
			       int socket_id);

/**
 * Free a timing wheel. NULL is accepted.
 */
void rnic_tw_free(struct rnic_tw *tw);

/**
 * Start a timer, or re-arm it if it is already pending (the old deadline is
 * forgotten). O(1).
 *
 * The timer fires in the first rnic_tw_advance() whose now_ns reaches the
 * tick holding expire_at_ns rounded up, so never before expire_at_ns. A
 * deadline at or before the wheel's current tick fires in the next advance.
 *
 * @param tw
 *   The wheel.
 * @param id
 *   Timer id, below max_timers.
 * @param expire_at_ns
 *   Absolute deadline, on the clock passed to rnic_tw_advance().
 * @return
 *   0, or -EINVAL if tw is NULL or id is out of range.
 */
int rnic_tw_start(struct rnic_tw *tw, uint32_t id, uint64_t expire_at_ns);

/**
 * Stop a pending timer, including one that is due but not yet returned by
 * rnic_tw_advance(). O(1).
 *
 * @param tw
 *   The wheel.
 * @param id
 *   Timer id, below max_timers.
 * @return
 *   0, or
 *   - -EINVAL: tw is NULL or id is out of range.
 *   - -ENOENT: the timer was not pending.
 */
int rnic_tw_stop(struct rnic_tw *tw, uint32_t id);

/**
 * @return
 *   true if the timer is pending (started, and not yet stopped or returned
 *   by rnic_tw_advance()); false otherwise or if id is out of range.
 */
bool rnic_tw_pending(const struct rnic_tw *tw, uint32_t id);

/**
 * @return
 *   Number of pending timers (0 if tw is NULL).
 */
uint32_t rnic_tw_count(const struct rnic_tw *tw);

/**
 * Advance the wheel to now_ns and collect expired timers.
 *
 * Returns at most max ids; the rest stay due (and stoppable) and come out
 * first on the next call, so a caller can bound the work of one call. Ids
 * come out in non-decreasing deadline-tick order, except that a timer
 * started with a deadline already behind the wheel joins the tail of the
 * due list. Empty stretches of time are skipped, so a jump of hours costs
 * a few slot scans, not one step per tick. A returned timer is no longer
 * pending. A clock that goes backwards is ignored.
 *
 * @param tw
 *   The wheel.
 * @param now_ns
 *   Current time on the caller's clock.
 * @param expired
 *   Array of at least max entries for the expired ids.
 * @param max
 *   Largest number of ids to return; 0 returns without doing any work.
 * @return
 *   Number of ids written to expired (0 if tw is NULL).
 */
unsigned rnic_tw_advance(struct rnic_tw *tw, uint64_t now_ns,
			 uint32_t *expired, unsigned max);

/* ------------------------------------------------------------------ */
/* IBA timeout encodings                                               */
/* ------------------------------------------------------------------ */

/** A duration that never expires. */
#define RNIC_TIMEOUT_INFINITE  UINT64_MAX

/**
 * Local ACK timeout (IBA 9.7.6.1.3, QP attribute timeout): 4.096 us *
 * 2^timeout. Only the low 5 bits are used, as in the QP context.
 *
 * @param timeout
 *   The 5-bit code; 0 disables the timer.
 * @return
 *   The timeout in nanoseconds, or RNIC_TIMEOUT_INFINITE for code 0.
 */
uint64_t rnic_ib_timeout_ns(uint8_t timeout);

/**
 * RNR NAK timer (IBA table 45): the minimum time to wait before retrying
 * after an RNR NAK. Only the low 5 bits are used, as in the AETH syndrome.
 *
 * @param code
 *   The 5-bit code: 0 is 655.36 ms, 1 .. 31 run from 0.01 ms to 491.52 ms.
 * @return
 *   The wait in nanoseconds.
 */
uint64_t rnic_rnr_timer_ns(uint8_t code);

/* ------------------------------------------------------------------ */
/* TimerControl service (seed 3.4.2, events of 7.1.4)                  */
/* ------------------------------------------------------------------ */

/** The two timers of a QP (seed 3.4.2.1). */
enum rnic_timer_kind {
	RNIC_TIMER_LOSS = 0,  /**< local ACK timeout: retransmit from UPSN */
	RNIC_TIMER_RNR = 1,   /**< RNR NAK wait: retry after the receiver's delay */
	RNIC_TIMER_KINDS = 2,
};

/** Commands to the service; the codes are the OpCodes of seed 7.1.4.1. */
enum rnic_timer_op {
	/** Store value_ns and retry, reset the counter to retry, and arm. */
	RNIC_TIMER_SET = 0x00,
	/** Re-arm with the stored value and reset the counter to the stored
	 * retry (seed 7.1.4.1); with RNIC_TIMER_F_KEEP_COUNT, keep it. */
	RNIC_TIMER_RESTART = 0x01,
	/** Disarm; a stopped timer does not fire. */
	RNIC_TIMER_STOP = 0xFF,
};

/** Events from the service; the codes are the Events of seed 7.1.4.2. */
enum rnic_timer_evt {
	/** Fired; retry holds the counter after the decrement. Not re-armed:
	 * the requester retransmits and sends RESTART (seed 3.4.5.1.4). */
	RNIC_TIMER_EXPIRED = 0x00,
	/** Fired with the counter already 0: the requester moves the QP to
	 * the Error state (seed 3.4.2.4.1, 3.4.5.1.4). */
	RNIC_TIMER_RETRY_EXCEEDED = 0xFF,
};

/**
 * RESTART flag: keep the current retry counter. The requester re-arms this
 * way after a timeout-driven retransmission, so that the counter only goes
 * back to its initial value on forward progress (IBA 9.7.6.1.3); a plain
 * RESTART, as in the seed, resets it.
 */
#define RNIC_TIMER_F_KEEP_COUNT  0x01

/** Largest retry count (3-bit CV, seed 7.1.4.1); on the RNR timer it means
 * retry forever (IBA rnr_retry 7). */
#define RNIC_TIMER_RETRY_INFINITE  7

/** One event on the input or output ring (seed 7.1.4, widened to 16 bytes
 * so the time can be carried in nanoseconds). */
struct rnic_timer_event {
	uint32_t qp;        /**< QP index, below max_qps */
	uint8_t type;       /**< enum rnic_timer_op in, enum rnic_timer_evt out */
	uint8_t timer;      /**< enum rnic_timer_kind */
	uint8_t retry;      /**< SET: counter value (CV); out: counter now */
	uint8_t flags;      /**< RNIC_TIMER_F_*; 0 on output */
	/** SET: duration in ns (RNIC_TIMEOUT_INFINITE: never fires);
	 * out: the now_ns of the poll that saw the expiry. */
	uint64_t value_ns;
};

/** Service counters, read with rnic_timer_svc_stats(). */
struct rnic_timer_stats {
	uint64_t commands;    /**< input events consumed */
	uint64_t bad_commands; /**< of those, rejected (bad qp, timer, type,
				 * retry, or RESTART before any SET) */
	uint64_t expired;     /**< RNIC_TIMER_EXPIRED events sent */
	uint64_t exceeded;    /**< RNIC_TIMER_RETRY_EXCEEDED events sent */
	uint64_t out_stalls;  /**< polls in which the output ring's free room
			       * limited the expiries taken */
};

struct rnic_timer_svc;

/** Timer id of a (qp, timer) pair in the service's wheel. */
static inline uint32_t
rnic_timer_id(uint32_t qp, enum rnic_timer_kind timer)
{
	return qp * RNIC_TIMER_KINDS + (uint32_t)timer;
}

/**
 * Create the TimerControl service.
 *
 * The rings must have been created with rte_ring_create_elem() and an
 * element size of sizeof(struct rnic_timer_event). The input ring is
 * multi-producer if both the TX and RX lcores arm timers (seed 3.4.2.4.1:
 * RequesterTransControl and RequesterRecvControl); the service is its only
 * consumer. The service is the only producer of the output ring, which it
 * never overfills: expiries that do not fit wait in the wheel.
 *
 * @param max_qps
 *   Number of QPs; qp in events is below it.
 * @param tick_ns
 *   Timer granularity in nanoseconds.
 * @param in
 *   Ring of struct rnic_timer_event commands.
 * @param out
 *   Ring of struct rnic_timer_event expiries.
 * @return
 *   The service, or NULL with rte_errno set to:
 *   - EINVAL: max_qps is 0 or above RNIC_TW_MAX_TIMERS / 2, tick_ns is 0,
 *     or a ring is NULL.
 *   - ENOMEM: out of memory.
 *   Memory is taken on the input ring's socket.
 */
struct rnic_timer_svc *rnic_timer_svc_create(uint32_t max_qps,
					     uint64_t tick_ns,
					     struct rte_ring *in,
					     struct rte_ring *out);

/**
 * Free the service (not its rings). NULL is accepted.
 */
void rnic_timer_svc_free(struct rnic_timer_svc *svc);

/**
 * One turn of the service, for the timer lcore's loop: consume a burst of
 * commands, advance the wheel to now_ns, and send a burst of expiries.
 * Commands are applied before the wheel moves, so a STOP that arrives with
 * the deadline already passed still wins. Never blocks.
 *
 * @param svc
 *   The service.
 * @param now_ns
 *   Current time; commands' durations count from it.
 * @return
 *   Work done: commands consumed plus events sent (0 if svc is NULL).
 */
unsigned rnic_timer_svc_poll(struct rnic_timer_svc *svc, uint64_t now_ns);

/**
 * @return
 *   true when a turn now would do nothing: no timer armed and no command
 *   waiting (or svc is NULL). A poller may then skip the turn, and the
 *   clock read it needs; the wheel skips the ticks it missed.
 */
bool rnic_timer_svc_idle(const struct rnic_timer_svc *svc);

/**
 * @return
 *   true if the timer of the QP is armed and will fire (a SET with an
 *   infinite duration is not); false otherwise or on bad arguments.
 */
bool rnic_timer_svc_pending(const struct rnic_timer_svc *svc, uint32_t qp,
			    enum rnic_timer_kind timer);

/**
 * Copy the service counters.
 *
 * @return
 *   0, or -EINVAL if svc or stats is NULL.
 */
int rnic_timer_svc_stats(const struct rnic_timer_svc *svc,
			 struct rnic_timer_stats *stats);

#endif /* RNIC_TIMER_H */
