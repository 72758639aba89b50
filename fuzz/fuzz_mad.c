/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_mad: the CM MAD decoder (lib/wire/rnic_mad.c, issue 21) and the
 * rdma_cm header on arbitrary bytes, with two oracles.
 *
 *  1. Whatever the bytes, rnic_cm_decode reads no more than it is given
 *     (the input is copied into an exactly sized heap block: ASan sees a
 *     read past its end) and says OK only for a 256-byte-or-longer MAD of
 *     the CM class, version 1/2, method Send and a known attribute.
 *  2. A MAD that decodes is encoded again and decoded: the same message
 *     (every field maps back onto the bits it came from); encoding that
 *     gives the same bytes (the encoder is a function of the message).
 *     The rdma_cm header of a REQ's private data, when it decodes, encodes
 *     back to the same 36 bytes.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_mad.h"
#include "fuzz_common.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	uint8_t enc[RNIC_MAD_LEN], enc2[RNIC_MAD_LEN];
	struct rnic_cm_msg m, m2;
	enum rnic_mad_err e;

	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	e = rnic_cm_decode(copy, size, &m);
	if (e == RNIC_MAD_OK) {
		FZ_CHECK(size >= RNIC_MAD_LEN && copy[0] == 1 && copy[1] == RNIC_MGMT_CLASS_CM &&
			 copy[2] == 2 && copy[3] == RNIC_MAD_METHOD_SEND &&
			 rnic_cm_attr_name(m.hdr.attr_id) != NULL, "decoded a MAD that is not one");
		FZ_CHECK(rnic_cm_encode(&m, enc) == 0, "a decoded MAD does not encode");
		FZ_CHECK(rnic_cm_decode(enc, sizeof(enc), &m2) == RNIC_MAD_OK &&
			 memcmp(&m, &m2, sizeof(m)) == 0, "decode(encode(m)) != m (attr 0x%x)",
			 m.hdr.attr_id);
		FZ_CHECK(rnic_cm_encode(&m2, enc2) == 0 && memcmp(enc, enc2, sizeof(enc)) == 0,
			 "encoding is not a function of the message");
		if (m.hdr.attr_id == RNIC_CM_REQ) {
			struct rnic_cma_hdr h;
			uint8_t pd[RNIC_CMA_HDR_LEN];

			if (rnic_cma_hdr_decode(m.req.private_data, sizeof(m.req.private_data),
						&h) == 0) {
				rnic_cma_hdr_encode(&h, pd);
				/* byte 1's low nibble is reserved: not carried */
				FZ_CHECK(pd[0] == m.req.private_data[0] &&
					 (pd[1] & 0xf0) == (m.req.private_data[1] & 0xf0) &&
					 memcmp(pd + 2, m.req.private_data + 2, RNIC_CMA_HDR_LEN - 2) == 0,
					 "rdma_cm header does not encode back");
			}
		}
	} else {
		FZ_CHECK(e > RNIC_MAD_OK && e <= RNIC_MAD_ATTR, "unknown outcome %d", e);
	}
	free(copy);
	return 0;
}
