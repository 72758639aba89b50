/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma-core's private provider ABI (IBVERBS_PRIVATE_34), which Debian's
 * libmlx5 and libefa import and perftest links (doc/ibverbs.md). Nothing
 * here is a verb: providers are never used over softrnic, so each entry
 * only has to exist (the programs are linked with BIND_NOW) and fail
 * cleanly if a provider ever called it. The providers' constructors call
 * verbs_register_driver_34 at load time: it accepts and ignores them.
 *
 * No prototypes are visible here (driver.h is not installed): each stub
 * ignores its arguments, which the x86-64 and aarch64 calling conventions
 * allow.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

/* rdma-core: destroy calls succeed on a disassociated device. */
bool verbs_allow_disassociate_destroy;

#define SIB_STUB_INT(n) int n(void); int n(void) { errno = EOPNOTSUPP; return EOPNOTSUPP; }
#define SIB_STUB_PTR(n) void *n(void); void *n(void) { errno = EOPNOTSUPP; return NULL; }
#define SIB_STUB_VOID(n) void n(void); void n(void) { }

SIB_STUB_INT(__ioctl_final_num_attrs)
SIB_STUB_VOID(__verbs_log)
SIB_STUB_PTR(_verbs_init_and_alloc_context)
SIB_STUB_INT(execute_ioctl)
SIB_STUB_INT(ibv_cmd_advise_mr)
SIB_STUB_INT(ibv_cmd_alloc_dm)
SIB_STUB_INT(ibv_cmd_alloc_mw)
SIB_STUB_INT(ibv_cmd_alloc_pd)
SIB_STUB_INT(ibv_cmd_attach_mcast)
SIB_STUB_INT(ibv_cmd_close_xrcd)
SIB_STUB_INT(ibv_cmd_create_ah)
SIB_STUB_INT(ibv_cmd_create_counters)
SIB_STUB_INT(ibv_cmd_create_cq)
SIB_STUB_INT(ibv_cmd_create_cq_ex)
SIB_STUB_INT(ibv_cmd_create_flow)
SIB_STUB_INT(ibv_cmd_create_flow_action_esp)
SIB_STUB_INT(ibv_cmd_create_qp)
SIB_STUB_INT(ibv_cmd_create_qp_ex)
SIB_STUB_INT(ibv_cmd_create_qp_ex2)
SIB_STUB_INT(ibv_cmd_create_rwq_ind_table)
SIB_STUB_INT(ibv_cmd_create_srq)
SIB_STUB_INT(ibv_cmd_create_srq_ex)
SIB_STUB_INT(ibv_cmd_create_wq)
SIB_STUB_INT(ibv_cmd_dealloc_mw)
SIB_STUB_INT(ibv_cmd_dealloc_pd)
SIB_STUB_INT(ibv_cmd_dereg_mr)
SIB_STUB_INT(ibv_cmd_destroy_ah)
SIB_STUB_INT(ibv_cmd_destroy_counters)
SIB_STUB_INT(ibv_cmd_destroy_cq)
SIB_STUB_INT(ibv_cmd_destroy_flow)
SIB_STUB_INT(ibv_cmd_destroy_flow_action)
SIB_STUB_INT(ibv_cmd_destroy_qp)
SIB_STUB_INT(ibv_cmd_destroy_rwq_ind_table)
SIB_STUB_INT(ibv_cmd_destroy_srq)
SIB_STUB_INT(ibv_cmd_destroy_wq)
SIB_STUB_INT(ibv_cmd_detach_mcast)
SIB_STUB_INT(ibv_cmd_free_dm)
SIB_STUB_INT(ibv_cmd_get_context)
SIB_STUB_INT(ibv_cmd_modify_cq)
SIB_STUB_INT(ibv_cmd_modify_flow_action_esp)
SIB_STUB_INT(ibv_cmd_modify_qp)
SIB_STUB_INT(ibv_cmd_modify_qp_ex)
SIB_STUB_INT(ibv_cmd_modify_srq)
SIB_STUB_INT(ibv_cmd_modify_wq)
SIB_STUB_INT(ibv_cmd_open_qp)
SIB_STUB_INT(ibv_cmd_open_xrcd)
SIB_STUB_INT(ibv_cmd_poll_cq)
SIB_STUB_INT(ibv_cmd_post_recv)
SIB_STUB_INT(ibv_cmd_post_send)
SIB_STUB_INT(ibv_cmd_post_srq_recv)
SIB_STUB_INT(ibv_cmd_query_context)
SIB_STUB_INT(ibv_cmd_query_device_any)
SIB_STUB_INT(ibv_cmd_query_mr)
SIB_STUB_INT(ibv_cmd_query_port)
SIB_STUB_INT(ibv_cmd_query_qp)
SIB_STUB_INT(ibv_cmd_query_srq)
SIB_STUB_INT(ibv_cmd_read_counters)
SIB_STUB_INT(ibv_cmd_reg_dm_mr)
SIB_STUB_INT(ibv_cmd_reg_dmabuf_mr)
SIB_STUB_INT(ibv_cmd_reg_mr)
SIB_STUB_INT(ibv_cmd_req_notify_cq)
SIB_STUB_INT(ibv_cmd_rereg_mr)
SIB_STUB_INT(ibv_cmd_resize_cq)
SIB_STUB_INT(ibv_read_ibdev_sysfs_file)
SIB_STUB_VOID(verbs_init_cq)
SIB_STUB_PTR(verbs_open_device)
SIB_STUB_VOID(verbs_register_driver_34)
SIB_STUB_VOID(verbs_set_ops)
SIB_STUB_VOID(verbs_uninit_context)
