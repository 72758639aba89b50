/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librdmacm.so.1 over softrnic: the entry points not provided (scm.c says
 * which and why). Programs are linked with BIND_NOW, so each must exist;
 * each fails with ENOSYS (-1, or NULL). No prototypes are visible here
 * (rdma_cma.h and rsocket.h are not included): each stub ignores its
 * arguments, which the x86-64 and aarch64 calling conventions allow.
 */
#include <errno.h>
#include <stddef.h>

#define SCM_STUB_INT(n) int n(void); int n(void) { errno = ENOSYS; return -1; }

/* synchronous ids, SRQs on an id */
SCM_STUB_INT(rdma_create_ep)
SCM_STUB_INT(rdma_get_request)
SCM_STUB_INT(rdma_create_srq)
SCM_STUB_INT(rdma_create_srq_ex)
SCM_STUB_INT(rdma_destroy_srq)
/* multicast (the UDP port space) */
SCM_STUB_INT(rdma_join_multicast)
SCM_STUB_INT(rdma_join_multicast_ex)
SCM_STUB_INT(rdma_leave_multicast)
/* QPs the caller moves itself, and events it reports */
SCM_STUB_INT(rdma_init_qp_attr)
SCM_STUB_INT(rdma_establish)
SCM_STUB_INT(rdma_notify)
/* enhanced connection establishment */
SCM_STUB_INT(rdma_get_remote_ece)
SCM_STUB_INT(rdma_reject_ece)
SCM_STUB_INT(rdma_set_local_ece)
/* rsockets */
SCM_STUB_INT(rsocket)
SCM_STUB_INT(rbind)
SCM_STUB_INT(rlisten)
SCM_STUB_INT(raccept)
SCM_STUB_INT(rconnect)
SCM_STUB_INT(rshutdown)
SCM_STUB_INT(rclose)
SCM_STUB_INT(rrecv)
SCM_STUB_INT(rrecvfrom)
SCM_STUB_INT(rrecvmsg)
SCM_STUB_INT(rsend)
SCM_STUB_INT(rsendto)
SCM_STUB_INT(rsendmsg)
SCM_STUB_INT(rread)
SCM_STUB_INT(rreadv)
SCM_STUB_INT(rwrite)
SCM_STUB_INT(rwritev)
SCM_STUB_INT(rgetpeername)
SCM_STUB_INT(rgetsockname)
SCM_STUB_INT(rsetsockopt)
SCM_STUB_INT(rgetsockopt)
SCM_STUB_INT(rfcntl)
SCM_STUB_INT(riomap)
SCM_STUB_INT(riounmap)
SCM_STUB_INT(riowrite)

/* rdma_destroy_ep returns nothing */
void rdma_destroy_ep(void);
void rdma_destroy_ep(void) { }
