/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * In-run A/B: two variants of the engine taking turns every few
 * milliseconds inside one run, each credited with the work the TX role
 * did in its turns (doc/benchmarks.md, "Small differences: two variants
 * in one run"). On a machine whose speed moves by tens of percent from
 * run to run, variants that share every phase of the run can be told
 * apart to about 1%.
 *
 * Built only with meson -Dab_toggle=true (scripts/ab.sh). A change under
 * test reads RNIC_AB() (0 or 1) where the variants differ; the tree holds
 * no such sites. Otherwise RNIC_AB() is 0 and rnic_ab_tick() nothing.
 */
#ifndef RNIC_AB_H
#define RNIC_AB_H

#ifdef RNIC_AB_TOGGLE
extern int rnic_ab_variant;
#define RNIC_AB() __atomic_load_n(&rnic_ab_variant, __ATOMIC_RELAXED)
/* The TX role's pass did @p work (frames and doorbells); only the first
 * thread that calls it (every device it polls) counts and switches
 * variants. */
void rnic_ab_tick(unsigned int work);
#else
#define RNIC_AB() 0
#define rnic_ab_tick(work) ((void)(work))
#endif

#endif /* RNIC_AB_H */
