/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory ordering between the threads of one device: the application
 * (post_send, post_recv, poll_cq), the control thread (create, modify,
 * destroy), and the engine roles (TX, RX, timer), each role polled by one
 * thread at a time.
 *
 * Every field two threads touch has one writer. Where a reader must see
 * what the writer wrote before the field, the writer publishes with a
 * release store (STORE_REL) and the reader loads with an acquire load
 * (LOAD_ACQ); both ends carry the same tag in a comment, e.g. [SQ-PI],
 * and doc/design.md's ownership table lists every tag with its writer,
 * readers and ordering. A counter or flag read only for display
 * (telemetry, rnic_dev_stats_get) is loaded relaxed (LOAD_RLX).
 *
 * Three pairs need a store then a load on each side (Dekker: each side
 * stores its field, then loads the other's; with both sequentially
 * consistent, at least one side sees the other's store). They use
 * STORE_SC / LOAD_SC and say so at both ends: [DB] doorbells,
 * [MQ-ARM] the loss timer's arm, [QP-STATE] is a CAS instead.
 */
#ifndef RNIC_SYNC_H
#define RNIC_SYNC_H

#define LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define LOAD_RLX(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE_RLX(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define LOAD_SC(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define STORE_SC(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)

/* A hint that the line at @p p, just written, will next be read by
 * another CPU: CLDEMOTE moves it from this core's caches to the shared
 * one, where the reader finds it without a snoop of this core. Its
 * encoding is a NOP hint on x86 CPUs without it, but valgrind does not
 * decode it: callers check rnic_cpu_demote (rnic_core.h) first. */
#if defined(__x86_64__)
#define RNIC_DEMOTE(p) __asm__ volatile("cldemote %0" : : "m"(*(const volatile char *)(p)))
#else
#define RNIC_DEMOTE(p) ((void)(p))
#endif

#endif /* RNIC_SYNC_H */
