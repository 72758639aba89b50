/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests for the JSON configuration loader (lib/config).
 *
 * Negative cases first: a table of raw documents (empty, invalid JSON, wrong
 * top level) and a table of edits to a valid base document, one per field
 * and problem (wrong type, out of range, bad enum string, unknown key,
 * duplicate name, dangling reference, missing key, cross-field rule); each
 * must fail with the exact "<json path>: <problem>" prefix. Then positive
 * cases: every value of the base document as given, defaults, the rq_psn
 * default from the peer's sq_psn, dump/reload round trip, workload "wait"
 * "transmit" (its rules and the RC budget counted across entries; an empty
 * expected prefix marks an edit that must load), and a 16384-QP document
 * loaded under a generous time bound.
 *
 * With "--samples DIR" it instead loads every .json file in DIR (the
 * samples under config/).
 *
 * JSON in this file is written with single quotes; sq() turns them into
 * double quotes before parsing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_common.h>

#include "rnic_config.h"

static unsigned int n_pass, n_fail;

#define VERIFY(cond, fmt, ...) do {						\
	if (!(cond)) {								\
		printf("FAIL %s:%d: %s: " fmt "\n", __func__, __LINE__, #cond,	\
		       ##__VA_ARGS__);						\
		goto fail;							\
	}									\
} while (0)

/* Single quotes to double quotes (no test value contains an apostrophe). */
static char *sq(const char *s)
{
	char *d = strdup(s), *p;

	for (p = d; p && *p; p++)
		if (*p == '\'')
			*p = '"';
	return d;
}

static const char base_json[] =
"{"
" 'eal': ['--no-huge', '--no-pci', '--lcores=0@0,1@1,2@1'],"
" 'ports': ["
"  {'name': 'p0', 'ring_peer': 'p1', 'mac': '02:00:00:00:00:01', 'ipv4': '10.0.0.1',"
"   'vlan': 100, 'max_qps': 64, 'max_mrs': 16, 'max_cqs': 8, 'mbufs': 4096,"
"   'ring_size': 1024, 'burst': 16},"
"  {'name': 'p1', 'ring_peer': 'p0', 'mac': '02:00:00:00:00:02', 'ipv4': '10.0.0.2'},"
"  {'name': 'p2', 'device': 'net_null0', 'ipv4': '10.0.1.1'},"
"  {'name': 'p3', 'device': 'net_null1', 'ipv4': '10.0.1.2'}"
" ],"
" 'lcores': ["
"  {'lcore': 1, 'port': 'p0', 'roles': ['tx', 'rx']},"
"  {'lcore': 2, 'port': 'p0', 'roles': ['timer']},"
"  {'lcore': 2, 'port': 'p1', 'roles': 'all'}"
" ],"
" 'mrs': ["
"  {'name': 'm0', 'port': 'p0', 'size': 65536,"
"   'access': ['local_write', 'remote_write', 'remote_read', 'remote_atomic'],"
"   'fill': {'pattern': 'byte', 'value': 171}},"
"  {'name': 'm1', 'port': 'p1', 'size': 17179869184,"
"   'access': ['local_write', 'remote_write', 'remote_read', 'remote_atomic'],"
"   'fill': {'pattern': 'random', 'seed': 42}},"
"  {'name': 'm2', 'port': 'p2', 'size': 4096},"
"  {'name': 'm3', 'port': 'p0', 'size': 100, 'access': ['remote_read'],"
"   'fill': {'pattern': 'counter'}}"
" ],"
" 'cqs': ["
"  {'name': 'c0', 'port': 'p0', 'depth': 512},"
"  {'name': 'c1', 'port': 'p1'},"
"  {'name': 'c2', 'port': 'p2'}"
" ],"
" 'qps': ["
"  {'name': 'a', 'port': 'p0', 'type': 'RC', 'qpn': 100, 'send_cq': 'c0', 'recv_cq': 'c0',"
"   'max_send_wr': 128, 'max_recv_wr': 64, 'max_send_sge': 2, 'max_recv_sge': 3,"
"   'max_inline': 128, 'remote': {'qp': 'b'}, 'sq_psn': 16777200, 'pmtu': 4096,"
"   'timeout': 10, 'retry_cnt': 3, 'rnr_retry': 6, 'min_rnr_timer': 5,"
"   'max_rd_atomic': 4, 'max_dest_rd_atomic': 8,"
"   'access': ['remote_write', 'remote_read', 'remote_atomic'],"
"   'pkey': 32769, 'qkey': 4294967295, 'state': 'RTS'},"
"  {'name': 'b', 'port': 'p1', 'type': 'RC', 'send_cq': 'c1', 'recv_cq': 'c1',"
"   'remote': {'qp': 'a'}, 'sq_psn': 5},"
"  {'name': 'u', 'port': 'p0', 'type': 'UC', 'send_cq': 'c0', 'recv_cq': 'c0',"
"   'remote': {'qp': 'v'}, 'rq_psn': 9, 'access': ['remote_write']},"
"  {'name': 'v', 'port': 'p1', 'type': 'UC', 'qpn': 101, 'send_cq': 'c1', 'recv_cq': 'c1',"
"   'remote': {'qp': 'u'}},"
"  {'name': 'd', 'port': 'p2', 'type': 'UD', 'qpn': 'auto', 'send_cq': 'c2',"
"   'recv_cq': 'c2', 'remote': {'mac': '02:00:00:00:01:02', 'ipv4': '10.0.1.2',"
"   'qpn': 77}},"
"  {'name': 'e', 'port': 'p2', 'type': 'RC', 'send_cq': 'c2', 'recv_cq': 'c2',"
"   'state': 'INIT'}"
" ],"
" 'workload': ["
"  {'qp': 'a', 'opcode': 'write', 'sizes': [0, 1, 4096], 'count': 10,"
"   'signaled_every': 4, 'local_mr': 'm0', 'remote_mr': 'm1', 'inline': false,"
"   'verify': true, 'depth': 8},"
"  {'qp': 'b', 'opcode': 'fetch_add', 'duration_ms': 100, 'local_mr': 'm1',"
"   'remote_mr': 'm0'},"
"  {'qp': 'd', 'opcode': 'send', 'size': 512, 'local_mr': 'm2', 'verify': false}"
" ],"
" 'options': {'stats_interval_ms': 0, 'exit_when_done': false,"
"  'timeout_s': 5}"
"}";

/* ------------------------------------------------------------------ */
/* Raw documents that must fail                                        */
/* ------------------------------------------------------------------ */

static const struct {
	const char *json;
	const char *prefix;
} raw_cases[] = {
	{ "", "empty configuration" },
	{ " \n\t ", "empty configuration" },
	{ "{'ports': [}", "invalid JSON at line 1, column 12:" },
	{ "{\n  'ports': [\n    {'name': 'p0',,}\n  ]\n}", "invalid JSON at line 3, column 19:" },
	{ "{'ports': [], 'ports': []}", "invalid JSON at line 1, column " },
	{ "[1, 2]", "top level: expected an object, got array" },
	{ "42", "top level: expected an object, got integer" },
	{ "'ports'", "top level: expected an object, got string" },
	{ "{}", "top level: missing required key \"ports\"" },
	{ "{'port': []}", "top level: unknown key \"port\" (did you mean \"ports\"?)" },
	{ "{'zzz': 1, 'ports': []}", "top level: unknown key \"zzz\"" },
	{ "{'ports': {}}", "ports: expected an array, got object" },
	{ "{'ports': []}", "ports: at least one port is required" },
	{ "{'ports': [5]}", "ports[0]: expected an object, got integer" },
	{ "{'ports': [{'name': 'p0', 'device': 'net_null0'}]}",
	  "ports[0]: missing required key \"ipv4\"" },
	{ "{'ports': [{'device': 'net_null0', 'ipv4': '1.2.3.4'}]}",
	  "ports[0]: missing required key \"name\"" },
	{ "{'ports': [{'name': 'p0', 'device': 'net_null0', 'ipv4': '1.2.3.4'}], 'lcores': [7]}",
	  "lcores[0]: expected an object, got integer" },
	{ "{'ports': [{'name': 'p0', 'device': 'net_null0', 'ipv4': '1.2.3.4'}], 'qps': [[]]}",
	  "qps[0]: expected an object, got array" },
	{ "{'ports': [{'name': 'p0', 'device': 'net_null0', 'ipv4': '1.2.3.4'}],"
	  " 'options': {'pcap': 'a'}, 'eal': ['x', 3]}", "eal[1]: expected a string, got integer" },
};

static int test_raw_cases(void)
{
	char err[512];
	unsigned int i;
	int bad = 0;

	for (i = 0; i < RTE_DIM(raw_cases); i++) {
		char *json = sq(raw_cases[i].json);
		struct rnic_config *cfg;

		errno = 0;
		cfg = rnic_config_load_string(json, err, sizeof(err));
		if (cfg || errno != EINVAL ||
		    strncmp(err, raw_cases[i].prefix, strlen(raw_cases[i].prefix)) != 0 ||
		    strchr(err, '\n')) {
			printf("FAIL %s:%d: raw case %u: %s\n  want: %s\n  got:  %s (errno %d)\n",
			       __func__, __LINE__, i, raw_cases[i].json, raw_cases[i].prefix,
			       cfg ? "(loaded)" : err, errno);
			bad++;
			n_fail++;
		} else {
			n_pass++;
		}
		rnic_config_free(cfg);
		free(json);
	}
	return bad ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Edits to the base document that must fail                           */
/* ------------------------------------------------------------------ */

/* Set @c key of the object at @c obj (a path like "qps[0].remote", "" for
 * the top level) to the JSON @c val, or delete it when @c val is NULL. */
struct edit {
	const char *obj;
	const char *key;
	const char *val;
};

#define DEL NULL
#define E1(o, k, v) { { o, k, v } }
#define E2(o1, k1, v1, o2, k2, v2) { { o1, k1, v1 }, { o2, k2, v2 } }
/* QP "e" (RC, port p2) in RTS towards a peer outside the process, and the
 * workload replaced by @p wl (a JSON array); TX_WR is one "transmit" entry
 * on it with @p extra keys. */
#define E_RC_OUT(wl) { { "qps[5]", "state", "'RTS'" },				\
	{ "qps[5]", "remote", "{'mac': '02:00:00:00:01:02', 'ipv4': '10.0.1.2', 'qpn': 9}" }, \
	{ "", "workload", wl } }
#define TX_WR(extra) "{'qp': 'e', 'local_mr': 'm2', 'remote_mr': 'm2', 'verify': false," \
	" 'wait': 'transmit', " extra "}"

static const struct {
	struct edit e[4];
	const char *prefix;
} edit_cases[] = {
	/* top level sections: wrong types */
	{ E1("", "eal", "5"), "eal: expected an array, got integer" },
	{ E1("", "eal", "[true]"), "eal[0]: expected a string, got boolean" },
	{ E1("", "eal", "['--no-pci', '']"), "eal[1]: must not be empty" },
	{ E1("", "lcores", "{}"), "lcores: expected an array, got object" },
	{ E1("", "mrs", "'m'"), "mrs: expected an array, got string" },
	{ E1("", "cqs", "1.5"), "cqs: expected an array, got real" },
	{ E1("", "qps", "null"), "qps: expected an array, got null" },
	{ E1("", "workload", "{}"), "workload: expected an array, got object" },
	{ E1("", "options", "[]"), "options: expected an object, got array" },
	{ E1("", "ports", DEL), "top level: missing required key \"ports\"" },
	{ E1("", "Ports", "[]"), "top level: unknown key \"Ports\" (did you mean \"ports\"?)" },

	/* ports[] */
	{ E1("ports[0]", "nmae", "'x'"),
	  "ports[0]: unknown key \"nmae\" (did you mean \"name\"?)" },
	{ E1("ports[0]", "name", "5"), "ports[0].name: expected a string, got integer" },
	{ E1("ports[0]", "name", "''"), "ports[0].name: must not be empty" },
	{ E1("ports[0]", "name", "'a23456789012345678901234567890123'"),
	  "ports[0].name: \"a23456789012345678901234567890123...\" is longer than 31 characters" },
	{ E1("ports[0]", "name", "'p 0'"), "ports[0].name: \"p 0\" is not a name" },
	{ E1("ports[0]", "name", "'0p'"), "ports[0].name: \"0p\" is not a name" },
	{ E1("ports[1]", "name", "'p0'"), "ports[1].name: \"p0\" is already used by ports[0]" },
	{ E1("ports[0]", "name", DEL), "ports[0]: missing required key \"name\"" },
	{ E1("ports[2]", "ring_peer", "'p3'"),
	  "ports[2]: give exactly one of \"device\" and \"ring_peer\"" },
	{ E1("ports[2]", "device", DEL),
	  "ports[2]: give exactly one of \"device\" and \"ring_peer\"" },
	{ E1("ports[2]", "device", "7"), "ports[2].device: expected a string, got integer" },
	{ E1("ports[2]", "device", "''"), "ports[2].device: must not be empty" },
	{ E1("ports[3]", "device", "'net_null0'"),
	  "ports[3].device: \"net_null0\" is already used by ports[2]" },
	{ E1("ports[0]", "ring_peer", "1"), "ports[0].ring_peer: expected a string, got integer" },
	{ E1("ports[0]", "ring_peer", "'p9'"), "ports[0].ring_peer: no port named \"p9\"" },
	{ E2("ports[0]", "ring_peer", "'p0'", "ports[1]", "ring_peer", "'p0'"),
	  "ports[0].ring_peer: a port cannot be its own ring peer" },
	{ E2("ports[1]", "ring_peer", "'p3'", "ports[3]", "device", DEL),
	  "ports[3]: give exactly one of" },
	{ { { "ports[1]", "ring_peer", "'p3'" }, { "ports[3]", "device", DEL },
	    { "ports[3]", "ring_peer", "'p1'" } },
	  "ports[0].ring_peer: port \"p1\" does not name \"p0\" as its ring_peer" },
	{ E1("ports[0]", "mac", "true"), "ports[0].mac: expected a string, got boolean" },
	/* two ports, one address */
	{ E1("ports[1]", "ipv4", "'10.0.0.1'"), "ports[1].ipv4: 10.0.0.1 is already used by "
	  "ports[0]" },
	{ E1("ports[3]", "ipv4", "'10.0.0.2'"), "ports[3].ipv4: 10.0.0.2 is already used by "
	  "ports[1]" },
	{ E1("ports[1]", "mac", "'02:00:00:00:00:01'"), "ports[1].mac: 02:00:00:00:00:01 is "
	  "already used by ports[0]" },
	{ E2("ports[2]", "mac", "'02:00:00:00:00:09'", "ports[3]", "mac", "'02:00:00:00:00:09'"),
	  "ports[3].mac: 02:00:00:00:00:09 is already used by ports[2]" },
	{ E1("ports[0]", "mac", "'02:00:00:00:00'"),
	  "ports[0].mac: \"02:00:00:00:00\" is not a MAC address" },
	{ E1("ports[0]", "mac", "'02-00-00-00-00-01'"),
	  "ports[0].mac: \"02-00-00-00-00-01\" is not a MAC address" },
	{ E1("ports[0]", "mac", "'0g:00:00:00:00:01'"),
	  "ports[0].mac: \"0g:00:00:00:00:01\" is not" },
	{ E1("ports[0]", "mac", "'01:00:5e:00:00:01'"),
	  "ports[0].mac: \"01:00:5e:00:00:01\" is a multicast MAC address" },
	{ E1("ports[0]", "mac", "'00:00:00:00:00:00'"),
	  "ports[0].mac: \"00:00:00:00:00:00\" is the zero" },
	{ E1("ports[0]", "ipv4", "167772161"), "ports[0].ipv4: expected a string, got integer" },
	{ E1("ports[0]", "ipv4", "'10.0.0.300'"),
	  "ports[0].ipv4: \"10.0.0.300\" is not an IPv4 address" },
	{ E1("ports[0]", "ipv4", "'10.0.0'"), "ports[0].ipv4: \"10.0.0\" is not an IPv4 address" },
	{ E1("ports[0]", "ipv4", "'10.0.0.01'"), "ports[0].ipv4: \"10.0.0.01\" is not an IPv4" },
	{ E1("ports[0]", "ipv4", "'10.0.0.1 '"), "ports[0].ipv4: \"10.0.0.1 \" is not an IPv4" },
	{ E1("ports[0]", "ipv4", "'224.0.0.1'"),
	  "ports[0].ipv4: \"224.0.0.1\" is not a unicast IPv4 address" },
	{ E1("ports[0]", "ipv4", "'0.0.0.0'"), "ports[0].ipv4: \"0.0.0.0\" is not a unicast" },
	{ E1("ports[0]", "ipv4", DEL), "ports[0]: missing required key \"ipv4\"" },
	{ E1("ports[0]", "vlan", "'100'"), "ports[0].vlan: expected an integer, got string" },
	{ E1("ports[0]", "vlan", "0"), "ports[0].vlan: 0 is out of range 1..4094" },
	{ E1("ports[0]", "vlan", "4095"), "ports[0].vlan: 4095 is out of range 1..4094" },
	{ E1("ports[0]", "max_qps", "64.0"), "ports[0].max_qps: expected an integer, got real" },
	{ E1("ports[0]", "max_qps", "0"), "ports[0].max_qps: 0 is out of range 1..1048576" },
	{ E1("ports[0]", "max_qps", "1048577"), "ports[0].max_qps: 1048577 is out of range" },
	{ E1("ports[0]", "max_mrs", "null"), "ports[0].max_mrs: expected an integer, got null" },
	{ E1("ports[0]", "max_mrs", "65537"), "ports[0].max_mrs: 65537 is out of range 1..65536" },
	{ E1("ports[0]", "max_cqs", "[]"), "ports[0].max_cqs: expected an integer, got array" },
	{ E1("ports[0]", "max_cqs", "0"), "ports[0].max_cqs: 0 is out of range 1..65536" },
	{ E1("ports[0]", "mbufs", "'x'"), "ports[0].mbufs: expected an integer, got string" },
	{ E1("ports[0]", "mbufs", "255"), "ports[0].mbufs: 255 is out of range 256..16777216" },
	{ E1("ports[0]", "mbufs", "16777217"), "ports[0].mbufs: 16777217 is out of range" },
	{ E1("ports[0]", "ring_size", "{}"),
	  "ports[0].ring_size: expected an integer, got object" },
	{ E1("ports[0]", "ring_size", "32"), "ports[0].ring_size: 32 is out of range 64..1048576" },
	{ E1("ports[0]", "ring_size", "2097152"), "ports[0].ring_size: 2097152 is out of range" },
	{ E1("ports[0]", "ring_size", "1000"), "ports[0].ring_size: 1000 is not a power of two" },
	{ E1("ports[0]", "burst", "false"), "ports[0].burst: expected an integer, got boolean" },
	{ E1("ports[0]", "burst", "0"), "ports[0].burst: 0 is out of range 1..256" },
	/* issue 13.2: past 256 the RX role never polled (rnic_dev_poll_rx) */
	{ E1("ports[0]", "burst", "257"), "ports[0].burst: 257 is out of range 1..256" },
	{ E1("ports[0]", "burst", "512"), "ports[0].burst: 512 is out of range 1..256" },
	{ E1("ports[0]", "burst", "256"), "" },
	{ E1("ports[0]", "burst", "1"), "" },

	/* lcores[] */
	{ E1("lcores[0]", "core", "1"), "lcores[0]: unknown key \"core\"" },
	{ E1("lcores[0]", "lcore", "'1'"), "lcores[0].lcore: expected an integer, got string" },
	{ E1("lcores[0]", "lcore", "0"), "lcores[0].lcore: 0 is out of range 1..127" },
	{ E1("lcores[0]", "lcore", "128"), "lcores[0].lcore: 128 is out of range 1..127" },
	{ E1("lcores[0]", "lcore", DEL), "lcores[0]: missing required key \"lcore\"" },
	{ E1("lcores[0]", "port", "0"), "lcores[0].port: expected a string, got integer" },
	{ E1("lcores[0]", "port", "'p9'"), "lcores[0].port: no port named \"p9\"" },
	{ E1("lcores[0]", "port", DEL), "lcores[0]: missing required key \"port\"" },
	{ E1("lcores[0]", "roles", "7"),
	  "lcores[0].roles: expected \"all\" or an array, got integer" },
	{ E1("lcores[0]", "roles", "'tx'"),
	  "lcores[0].roles: \"tx\": expected \"all\" or an array" },
	{ E1("lcores[0]", "roles", "['tx', 'rcv']"),
	  "lcores[0].roles[1]: \"rcv\" is not one of \"tx\",\"rx\",\"timer\"" },
	{ E1("lcores[0]", "roles", "['tx', 1]"),
	  "lcores[0].roles[1]: expected a string, got integer" },
	{ E1("lcores[0]", "roles", "['tx', 'tx', 'rx']"),
	  "lcores[0].roles[1]: \"tx\" is given twice" },
	{ E1("lcores[0]", "roles", "[]"), "lcores[0].roles: no role given" },
	{ E1("lcores[1]", "roles", "['timer', 'rx']"),
	  "lcores[1].roles: port \"p0\" role \"rx\" is already on lcore 1" },
	{ E1("lcores[2]", "port", "'p0'"), "lcores[2].roles: port \"p0\" role \"tx\" is already" },
	{ E1("lcores[1]", "port", "'p2'"), "lcores: port \"p0\" has no lcore for role \"timer\"" },

	/* mrs[] */
	{ E1("mrs[0]", "sise", "1"), "mrs[0]: unknown key \"sise\" (did you mean \"size\"?)" },
	{ E1("mrs[0]", "name", "[]"), "mrs[0].name: expected a string, got array" },
	{ E1("mrs[1]", "name", "'m0'"), "mrs[1].name: \"m0\" is already used by mrs[0]" },
	{ E1("mrs[0]", "port", "'p7'"), "mrs[0].port: no port named \"p7\"" },
	{ E1("mrs[0]", "port", DEL), "mrs[0]: missing required key \"port\"" },
	{ E1("mrs[0]", "size", "'1M'"), "mrs[0].size: expected an integer, got string" },
	{ E1("mrs[0]", "size", "0"), "mrs[0].size: 0 is out of range 1..17179869184" },
	{ E1("mrs[0]", "size", "17179869185"), "mrs[0].size: 17179869185 is out of range" },
	{ E1("mrs[0]", "size", DEL), "mrs[0]: missing required key \"size\"" },
	{ E1("mrs[0]", "access", "'local_write'"), "mrs[0].access: expected an array, got string" },
	{ E1("mrs[0]", "access", "['local_read']"),
	  "mrs[0].access[0]: \"local_read\" is not one of \"local_write\",\"remote_write\"," },
	{ E1("mrs[0]", "access", "['local_write', 'local_write']"),
	  "mrs[0].access[1]: \"local_write\" is given twice" },
	{ E1("mrs[0]", "access", "['remote_write']"),
	  "mrs[0].access: \"remote_write\" requires \"local_write\"" },
	{ E1("mrs[0]", "access", "['remote_read', 'remote_atomic']"),
	  "mrs[0].access: \"remote_atomic\" requires \"local_write\"" },
	{ E1("mrs[0]", "fill", "'zero'"), "mrs[0].fill: expected an object, got string" },
	{ E1("mrs[0]", "fill", "{'patern': 'zero'}"), "mrs[0].fill: unknown key \"patern\"" },
	{ E1("mrs[0].fill", "pattern", "'ones'"),
	  "mrs[0].fill.pattern: \"ones\" is not one of \"zero\",\"byte\",\"counter\",\"random\"" },
	{ E1("mrs[0].fill", "pattern", "0"),
	  "mrs[0].fill.pattern: expected a string, got integer" },
	{ E1("mrs[0].fill", "value", "'ab'"),
	  "mrs[0].fill.value: expected an integer, got string" },
	{ E1("mrs[0].fill", "value", "256"), "mrs[0].fill.value: 256 is out of range 0..255" },
	{ E1("mrs[0].fill", "pattern", "'zero'"),
	  "mrs[0].fill.value: only used with pattern \"byte\"" },
	{ E1("mrs[1].fill", "seed", "'x'"), "mrs[1].fill.seed: expected an integer, got string" },
	{ E1("mrs[1].fill", "seed", "-1"),
	  "mrs[1].fill.seed: -1 is out of range 0..9223372036854775807" },
	{ E1("mrs[1].fill", "pattern", "'counter'"),
	  "mrs[1].fill.seed: only used with pattern \"random\"" },
	{ E1("ports[0]", "max_mrs", "1"), "mrs[3].port: port \"p0\" has room for 1 MRs (max_mrs)" },

	/* cqs[] */
	{ E1("cqs[0]", "dpth", "1"), "cqs[0]: unknown key \"dpth\" (did you mean \"depth\"?)" },
	{ E1("cqs[0]", "name", "'c-1.5'"), "cqs[0].name: \"c-1.5\" is not a name" },
	{ E1("cqs[2]", "name", "'c1'"), "cqs[2].name: \"c1\" is already used by cqs[1]" },
	{ E1("cqs[0]", "port", "'p5'"), "cqs[0].port: no port named \"p5\"" },
	{ E1("cqs[0]", "depth", "'1'"), "cqs[0].depth: expected an integer, got string" },
	{ E1("cqs[0]", "depth", "0"), "cqs[0].depth: 0 is out of range 1..4194304" },
	{ E1("cqs[0]", "depth", "4194305"), "cqs[0].depth: 4194305 is out of range 1..4194304" },
	{ E1("ports[2]", "max_cqs", "0"), "ports[2].max_cqs: 0 is out of range" },

	/* qps[] */
	{ E1("qps[1]", "pmut", "1024"), "qps[1]: unknown key \"pmut\" (did you mean \"pmtu\"?)" },
	{ E1("qps[0]", "name", "{}"), "qps[0].name: expected a string, got object" },
	{ E1("qps[1]", "name", "'a'"), "qps[1].name: \"a\" is already used by qps[0]" },
	{ E1("qps[0]", "port", "'pp'"), "qps[0].port: no port named \"pp\"" },
	{ E1("ports[0]", "max_qps", "1"), "qps[2].port: port \"p0\" has room for 1 QPs (max_qps)" },
	{ E1("qps[0]", "type", "'RD'"), "qps[0].type: \"RD\" is not one of \"RC\",\"UC\",\"UD\"" },
	{ E1("qps[0]", "type", "2"), "qps[0].type: expected a string, got integer" },
	{ E1("qps[0]", "type", DEL), "qps[0]: missing required key \"type\"" },
	{ E1("qps[0]", "qpn", "true"), "qps[0].qpn: expected an integer or \"auto\", got boolean" },
	{ E1("qps[0]", "qpn", "'any'"), "qps[0].qpn: \"any\" is not an integer or \"auto\"" },
	{ E1("qps[0]", "qpn", "1"), "qps[0].qpn: 1 is out of range 2..16777215 (0xffffff)" },
	{ E1("qps[0]", "qpn", "16777216"), "qps[0].qpn: 16777216 is out of range 2..16777215" },
	{ E1("qps[2]", "qpn", "100"), "qps[2].qpn: 100 is already used by qps[0] on port \"p0\"" },
	{ E1("qps[0]", "send_cq", "'c9'"), "qps[0].send_cq: no CQ named \"c9\"" },
	{ E1("qps[0]", "send_cq", "0"), "qps[0].send_cq: expected a string, got integer" },
	{ E1("qps[0]", "send_cq", "'c1'"),
	  "qps[0].send_cq: CQ \"c1\" is on port \"p1\", not \"p0\"" },
	{ E1("qps[0]", "send_cq", DEL), "qps[0]: missing required key \"send_cq\"" },
	{ E1("qps[0]", "recv_cq", "'cq9'"), "qps[0].recv_cq: no CQ named \"cq9\"" },
	{ E1("qps[0]", "recv_cq", DEL), "qps[0]: missing required key \"recv_cq\"" },
	{ E1("qps[0]", "max_send_wr", "'1'"),
	  "qps[0].max_send_wr: expected an integer, got string" },
	{ E1("qps[0]", "max_send_wr", "0"), "qps[0].max_send_wr: 0 is out of range 1..65536" },
	{ E1("qps[0]", "max_send_wr", "65537"), "qps[0].max_send_wr: 65537 is out of range" },
	{ E1("qps[0]", "max_recv_wr", "[1]"),
	  "qps[0].max_recv_wr: expected an integer, got array" },
	{ E1("qps[0]", "max_recv_wr", "65537"),
	  "qps[0].max_recv_wr: 65537 is out of range 1..65536" },
	{ E1("qps[0]", "max_send_sge", "1.0"),
	  "qps[0].max_send_sge: expected an integer, got real" },
	{ E1("qps[0]", "max_send_sge", "33"), "qps[0].max_send_sge: 33 is out of range 1..32" },
	{ E1("qps[0]", "max_recv_sge", "null"),
	  "qps[0].max_recv_sge: expected an integer, got null" },
	{ E1("qps[0]", "max_recv_sge", "0"), "qps[0].max_recv_sge: 0 is out of range 1..32" },
	{ E1("qps[0]", "max_inline", "true"),
	  "qps[0].max_inline: expected an integer, got boolean" },
	{ E1("qps[0]", "max_inline", "1025"), "qps[0].max_inline: 1025 is out of range 0..1024" },
	{ E1("qps[0]", "max_inline", "-1"), "qps[0].max_inline: -1 is out of range 0..1024" },
	{ E1("qps[0]", "remote", "'b'"), "qps[0].remote: expected an object, got string" },
	{ E1("qps[0]", "remote", "{'qp': 'b', 'port': 'p1'}"),
	  "qps[0].remote: unknown key \"port\"" },
	{ E1("qps[0]", "remote", "{'qp': 'b', 'qpn': 5}"),
	  "qps[0].remote: give either \"qp\" or \"mac\", \"ipv4\" and \"qpn\", not both" },
	{ E1("qps[0]", "remote", "{'mac': '02:00:00:00:00:09', 'ipv4': '10.0.0.9'}"),
	  "qps[0].remote: missing required key \"qpn\"" },
	{ E1("qps[0]", "remote", "{'qp': 'zz'}"), "qps[0].remote.qp: no QP named \"zz\"" },
	{ E1("qps[0]", "remote", "{'qp': 5}"), "qps[0].remote.qp: expected a string, got integer" },
	{ E1("qps[0]", "remote", "{'qp': 'v'}"), "qps[0].remote.qp: QP \"v\" is UC, not RC" },
	{ E1("qps[0]", "remote", "{'qp': 'a'}"),
	  "qps[0].remote.qp: QP \"a\" is on port \"p0\", which the ring of port \"p0\" does not "
	  "reach (it joins \"p1\")" },
	{ E1("qps[4].remote", "mac", "'zz'"), "qps[4].remote.mac: \"zz\" is not a MAC address" },
	{ E1("qps[4].remote", "ipv4", "'1.2.3'"), "qps[4].remote.ipv4: \"1.2.3\" is not an IPv4" },
	{ E1("qps[4].remote", "ipv4", "5"), "qps[4].remote.ipv4: expected a string, got integer" },
	{ E1("qps[4].remote", "qpn", "'auto'"),
	  "qps[4].remote.qpn: expected an integer, got string" },
	{ E1("qps[4].remote", "qpn", "16777216"), "qps[4].remote.qpn: 16777216 is out of range" },
	{ E1("qps[1]", "remote", DEL),
	  "qps[1]: missing required key \"remote\" (a RC QP in state RTS needs a peer)" },
	{ E2("qps[3]", "remote", DEL, "qps[3]", "state", "'RTR'"),
	  "qps[3]: missing required key \"remote\" (a UC QP in state RTR" },
	{ E1("qps[0]", "sq_psn", "'0'"), "qps[0].sq_psn: expected an integer, got string" },
	{ E1("qps[0]", "sq_psn", "-1"),
	  "qps[0].sq_psn: -1 is out of range 0..16777215 (0xffffff)" },
	{ E1("qps[0]", "sq_psn", "16777216"),
	  "qps[0].sq_psn: 16777216 is out of range 0..16777215" },
	{ E1("qps[0]", "rq_psn", "false"), "qps[0].rq_psn: expected an integer, got boolean" },
	{ E1("qps[0]", "rq_psn", "16777216"), "qps[0].rq_psn: 16777216 is out of range" },
	{ E1("qps[3]", "pmtu", "3000"), "qps[3].pmtu: 3000 is not one of 256,512,1024,2048,4096" },
	{ E1("qps[0]", "pmtu", "'4096'"), "qps[0].pmtu: expected an integer, got string" },
	{ E1("qps[0]", "pmtu", "0"), "qps[0].pmtu: 0 is not one of 256,512,1024,2048,4096" },
	{ E1("qps[0]", "timeout", "'14'"), "qps[0].timeout: expected an integer, got string" },
	{ E1("qps[0]", "timeout", "32"), "qps[0].timeout: 32 is out of range 0..31" },
	{ E1("qps[0]", "retry_cnt", "1.5"), "qps[0].retry_cnt: expected an integer, got real" },
	{ E1("qps[0]", "retry_cnt", "8"), "qps[0].retry_cnt: 8 is out of range 0..7" },
	{ E1("qps[0]", "rnr_retry", "{}"), "qps[0].rnr_retry: expected an integer, got object" },
	{ E1("qps[0]", "rnr_retry", "-1"), "qps[0].rnr_retry: -1 is out of range 0..7" },
	{ E1("qps[0]", "min_rnr_timer", "null"),
	  "qps[0].min_rnr_timer: expected an integer, got null" },
	{ E1("qps[0]", "min_rnr_timer", "32"), "qps[0].min_rnr_timer: 32 is out of range 0..31" },
	{ E1("qps[0]", "max_rd_atomic", "'4'"),
	  "qps[0].max_rd_atomic: expected an integer, got string" },
	{ E1("qps[0]", "max_rd_atomic", "17"), "qps[0].max_rd_atomic: 17 is out of range 0..16" },
	{ E1("qps[0]", "max_dest_rd_atomic", "[]"),
	  "qps[0].max_dest_rd_atomic: expected an integer, got array" },
	{ E1("qps[0]", "max_dest_rd_atomic", "17"),
	  "qps[0].max_dest_rd_atomic: 17 is out of range 0..16" },
	{ E1("qps[0]", "access", "{}"), "qps[0].access: expected an array, got object" },
	{ E1("qps[0]", "access", "['local_write']"),
	  "qps[0].access[0]: \"local_write\" is not one of \"remote_write\",\"remote_read\","
	  "\"remote_atomic\"" },
	{ E1("qps[0]", "access", "['remote_read', 'remote_read']"),
	  "qps[0].access[1]: \"remote_read\" is given twice" },
	{ E1("qps[0]", "pkey", "'ffff'"), "qps[0].pkey: expected an integer, got string" },
	{ E1("qps[0]", "pkey", "65536"), "qps[0].pkey: 65536 is out of range 0..65535 (0xffff)" },
	{ E1("qps[0]", "qkey", "true"), "qps[0].qkey: expected an integer, got boolean" },
	{ E1("qps[0]", "qkey", "4294967296"),
	  "qps[0].qkey: 4294967296 is out of range 0..4294967295" },
	{ E1("qps[0]", "qkey", "-1"), "qps[0].qkey: -1 is out of range" },
	{ E1("qps[0]", "state", "'SQD'"),
	  "qps[0].state: \"SQD\" is not one of \"RESET\",\"INIT\",\"RTR\",\"RTS\"" },
	{ E1("qps[0]", "state", "3"), "qps[0].state: expected a string, got integer" },

	/* workload[] */
	{ E1("workload[0]", "opcod", "'write'"),
	  "workload[0]: unknown key \"opcod\" (did you mean \"opcode\"?)" },
	{ E1("workload[0]", "qp", "'qq'"), "workload[0].qp: no QP named \"qq\"" },
	{ E1("workload[0]", "qp", "1"), "workload[0].qp: expected a string, got integer" },
	{ E1("workload[0]", "qp", DEL), "workload[0]: missing required key \"qp\"" },
	{ E1("workload[0]", "opcode", "'rdma_write'"),
	  "workload[0].opcode: \"rdma_write\" is not one of \"write\",\"write_imm\",\"read\"," },
	{ E1("workload[0]", "opcode", "0"), "workload[0].opcode: expected a string, got integer" },
	{ E1("workload[0]", "opcode", DEL), "workload[0]: missing required key \"opcode\"" },
	{ E2("workload[0]", "qp", "'u'", "workload[0]", "opcode", "'read'"),
	  "workload[0].opcode: \"read\" is not allowed on UC QP \"u\"" },
	{ E2("workload[0]", "qp", "'u'", "workload[0]", "opcode", "'cmp_swap'"),
	  "workload[0].opcode: \"cmp_swap\" is not allowed on UC QP \"u\"" },
	{ E2("workload[0]", "qp", "'u'", "workload[0]", "opcode", "'send_inv'"),
	  "workload[0].opcode: \"send_inv\" is not allowed on UC QP \"u\"" },
	{ E1("workload[2]", "opcode", "'write'"),
	  "workload[2].opcode: \"write\" is not allowed on UD QP \"d\"" },
	{ E1("workload[2]", "opcode", "'fetch_add'"),
	  "workload[2].opcode: \"fetch_add\" is not allowed on UD QP \"d\"" },
	{ E1("workload[0]", "qp", "'e'"),
	  "workload[0].qp: QP \"e\" is in state INIT; posting sends needs RTS" },
	{ E1("qps[1]", "state", "'INIT'"),
	  "workload[0].qp: the remote QP \"b\" is in state INIT; it must be RTR or RTS" },
	{ E1("qps[4]", "remote", DEL), "workload[2].qp: QP \"d\" has no \"remote\" to send to" },
	{ E1("workload[0]", "sizes", "4096"), "workload[0].sizes: expected an array, got integer" },
	{ E1("workload[0]", "sizes", "[]"), "workload[0].sizes: at least one size is required" },
	{ E1("workload[0]", "sizes", "[1, '2']"),
	  "workload[0].sizes[1]: expected an integer, got string" },
	{ E1("workload[0]", "sizes", "[1, 2147483649]"),
	  "workload[0].sizes[1]: 2147483649 is out of range 0..2147483648" },
	{ E1("workload[0]", "sizes", "[-1]"), "workload[0].sizes[0]: -1 is out of range" },
	{ E1("workload[0]", "size", "1"), "workload[0]: give \"sizes\" or \"size\", not both" },
	{ E1("workload[0]", "sizes", DEL),
	  "workload[0]: missing required key \"sizes\" (or \"size\")" },
	{ E1("workload[2]", "size", "'512'"), "workload[2].size: expected an integer, got string" },
	{ E1("workload[2]", "size", "2147483649"), "workload[2].size: 2147483649 is out of range" },
	{ E1("workload[1]", "sizes", "[8, 16]"),
	  "workload[1].sizes[1]: atomics are 8 bytes, got 16" },
	{ E1("workload[1]", "size", "4"), "workload[1].size: atomics are 8 bytes, got 4" },
	{ E1("workload[2]", "size", "1025"),
	  "workload[2].size: 1025 exceeds the UD QP's pmtu (1024)" },
	{ E1("workload[0]", "count", "'10'"),
	  "workload[0].count: expected an integer, got string" },
	{ E1("workload[0]", "count", "0"), "workload[0].count: 0 is out of range 1..4294967296" },
	{ E1("workload[0]", "count", "4294967297"),
	  "workload[0].count: 4294967297 is out of range" },
	{ E1("workload[0]", "duration_ms", "5"),
	  "workload[0]: give \"count\" or \"duration_ms\", not both" },
	{ E1("workload[1]", "duration_ms", "1.5"),
	  "workload[1].duration_ms: expected an integer, got real" },
	{ E1("workload[1]", "duration_ms", "0"),
	  "workload[1].duration_ms: 0 is out of range 1..86400000" },
	{ E1("workload[1]", "duration_ms", "86400001"),
	  "workload[1].duration_ms: 86400001 is out" },
	{ E1("workload[0]", "signaled_every", "true"),
	  "workload[0].signaled_every: expected an integer, got boolean" },
	{ E1("workload[0]", "signaled_every", "0"),
	  "workload[0].signaled_every: 0 is out of range 1..65536" },
	{ E1("workload[0]", "signaled_every", "65537"),
	  "workload[0].signaled_every: 65537 is out" },
	{ E1("workload[0]", "signaled_every", "9"),
	  "workload[0].signaled_every: 9 exceeds depth 8" },
	{ E1("workload[0]", "depth", "[8]"), "workload[0].depth: expected an integer, got array" },
	{ E1("workload[0]", "depth", "0"), "workload[0].depth: 0 is out of range 1..65536" },
	{ E1("workload[0]", "depth", "65537"),
	  "workload[0].depth: 65537 is out of range 1..65536" },
	{ E1("workload[0]", "depth", "129"),
	  "workload[0].depth: 129 exceeds max_send_wr 128 of QP \"a\"" },
	{ E1("workload[0]", "inline", "0"), "workload[0].inline: expected a boolean, got integer" },
	{ E1("workload[0]", "inline", "true"),
	  "workload[0].inline: message size 4096 exceeds max_inline 128 of QP \"a\"" },
	{ E1("workload[1]", "inline", "true"), "workload[1].inline: not allowed with fetch_add" },
	{ E1("workload[0]", "verify", "'yes'"),
	  "workload[0].verify: expected a boolean, got string" },
	{ E1("workload[0]", "local_mr", "'mm'"), "workload[0].local_mr: no MR named \"mm\"" },
	{ E1("workload[0]", "local_mr", "3"),
	  "workload[0].local_mr: expected a string, got integer" },
	{ E1("workload[0]", "local_mr", DEL), "workload[0]: missing required key \"local_mr\"" },
	{ E1("workload[0]", "local_mr", "'m1'"),
	  "workload[0].local_mr: MR \"m1\" is on port \"p1\", not on the QP's port \"p0\"" },
	{ E1("workload[0]", "remote_mr", "'m7'"), "workload[0].remote_mr: no MR named \"m7\"" },
	{ E1("workload[0]", "remote_mr", "false"),
	  "workload[0].remote_mr: expected a string, got boolean" },
	{ E1("workload[0]", "remote_mr", "'m0'"),
	  "workload[0].remote_mr: MR \"m0\" is on port \"p0\", not on the remote QP's port \"p1\"" },
	{ E1("workload[0]", "remote_mr", DEL),
	  "workload[0]: missing required key \"remote_mr\" (write needs a target)" },
	{ E1("workload[2]", "verify", "true"),
	  "workload[2]: missing required key \"remote_mr\" (verifying a send" },
	{ E1("workload[0]", "local_mr", "'m3'"),
	  "workload[0].local_mr: MR \"m3\" (100 bytes) is smaller than the largest message (4096)" },
	{ E2("workload[1]", "local_mr", "'m0'", "workload[1]", "qp", "'a'"),
	  "workload[1].remote_mr: MR \"m0\" is on port \"p0\", not on the remote QP's port \"p1\"" },
	{ E2("mrs[1]", "access", "['local_write']", "workload[1]", "qp", "'a'"),
	  "workload[0].remote_mr: MR \"m1\" needs \"remote_write\" access for write" },
	{ E1("qps[1]", "access", "['remote_read']"),
	  "workload[0].qp: the remote QP \"b\" does not allow \"remote_write\"" },
	{ E1("qps[0]", "access", "['remote_write']"),
	  "workload[1].qp: the remote QP \"a\" does not allow \"remote_atomic\"" },
	{ E1("qps[0]", "max_dest_rd_atomic", "0"),
	  "workload[1].qp: the remote QP \"a\" has max_dest_rd_atomic 0" },
	{ E1("qps[1]", "max_rd_atomic", "0"), "workload[1].qp: QP \"b\" has max_rd_atomic 0" },
	{ E2("mrs[0]", "access", "['remote_read']", "workload[0]", "opcode", "'read'"),
	  "workload[0].local_mr: MR \"m0\" needs \"local_write\" access for read" },

	/* workload[].wait */
	{ E1("workload[2]", "wait", "'sent'"),
	  "workload[2].wait: \"sent\" is not one of \"completion\",\"transmit\"" },
	{ E1("workload[2]", "wait", "1"), "workload[2].wait: expected a string, got integer" },
	{ E1("workload[2]", "wiat", "'transmit'"),
	  "workload[2]: unknown key \"wiat\" (did you mean \"wait\"?)" },
	{ E1("workload[0]", "wait", "'transmit'"),
	  "workload[0].wait: \"transmit\" cannot verify anything: set \"verify\": false" },
	{ E2("workload[0]", "wait", "'transmit'", "workload[0]", "verify", "false"),
	  "workload[0].wait: \"transmit\" is for a peer outside this process, but QP \"a\" has "
	  "remote.qp \"b\" (use \"completion\")" },
	{ E2("workload[2]", "wait", "'transmit'", "workload[2]", "duration_ms", "10"),
	  "workload[2].wait: \"transmit\" needs \"count\", not \"duration_ms\"" },
	{ E2("workload[2]", "wait", "'transmit'", "workload[2]", "size", "4097"),
	  "workload[2].size: 4097 exceeds the UD QP's pmtu (1024)" },
	{ E2("workload[2]", "wait", "'transmit'", "workload[2]", "size", "1024"),
	  "" /* loads: UD, up to one pmtu */ },
	{ E2("workload[2]", "wait", "'transmit'", "mrs[2]", "size", "100"),
	  "workload[2].local_mr: MR \"m2\" (100 bytes) is smaller than the largest message (512)" },
	{ E_RC_OUT("[" TX_WR("'opcode': 'read', 'size': 8") "]"),
	  "" /* loads */ },
	{ E_RC_OUT("[" TX_WR("'opcode': 'write', 'size': 5000") "]"),
	  "workload[0].local_mr: MR \"m2\" (4096 bytes) is smaller than the largest message (5000)" },
	{ { { "qps[5]", "state", "'RTS'" },
	    { "qps[5]", "remote", "{'mac': '02:00:00:00:01:02', 'ipv4': '10.0.1.2', 'qpn': 9}" },
	    { "mrs[2]", "access", "[]" },
	    { "", "workload", "[" TX_WR("'opcode': 'fetch_add'") "]" } },
	  "workload[0].local_mr: MR \"m2\" needs \"local_write\" access for fetch_add" },
	{ E_RC_OUT("[" TX_WR("'opcode': 'write', 'sizes': [0, 1], 'count': 100") ","
		   TX_WR("'opcode': 'send', 'size': 1, 'count': 56") "]"),
	  "" /* loads: 256 WRs, the default max_send_wr */ },
	{ E_RC_OUT("[" TX_WR("'opcode': 'write', 'sizes': [0, 1], 'count': 100") ","
		   TX_WR("'opcode': 'send', 'size': 1, 'count': 57") "]"),
	  "workload[1].count: RC QP \"e\" would hold 257 WRs that never complete (no peer "
	  "acknowledges them with \"wait\": \"transmit\"); its max_send_wr is 256" },
	{ E_RC_OUT("[" TX_WR("'opcode': 'read', 'size': 1, 'count': 10") ","
		   TX_WR("'opcode': 'cmp_swap', 'count': 6") ","
		   TX_WR("'opcode': 'fetch_add', 'count': 1") "]"),
	  "workload[2].count: RC QP \"e\" would have 17 READ/atomic WRs outstanding with no "
	  "peer to answer them; its max_rd_atomic is 16" },
	{ E_RC_OUT("[" TX_WR("'opcode': 'read', 'size': 1, 'count': 16") ","
		   "{'qp': 'e', 'opcode': 'read', 'size': 1, 'count': 100, 'local_mr': 'm2',"
		   " 'remote_mr': 'm2', 'verify': false}]"),
	  "" /* loads: "completion" entries are not counted */ },

	/* options */
	{ E1("options", "timeout", "5"), "options: unknown key \"timeout\" (did you mean \"timeout_s\"?)" },
	{ E1("ports[0]", "queues", "3"), "ports[0].queues: 3 is out of range" },
	{ E1("ports[0]", "queues", "'one'"), "ports[0].queues: expected an integer, got string" },
	/* ports[].impair and the soak */
	{ E1("ports[2]", "impair", "'drop=0.1'"),
	  "ports[2].impair: only a ring_peer port can be impaired" },
	{ E1("ports[0]", "impair", "1"), "ports[0].impair: expected a string, got integer" },
	{ E1("ports[0]", "impair", "'port=x,drop=0.1'"),
	  "ports[0].impair: leave out \"port=\"" },
	{ E1("", "soak", "[]"), "soak: expected an object, got array" },
	{ E1("", "soak", "{'qp': 'a'}"), "soak: missing required key \"baseline_qp\"" },
	{ E1("", "soak", "{'qp': 'a', 'baseline_qp': 'a'}"),
	  "soak.baseline_qp: must be another QP than \"qp\"" },
	{ E1("", "soak", "{'qp': 'a', 'baseline_qp': 'zz'}"),
	  "soak.baseline_qp: no QP named \"zz\"" },
	{ E1("", "soak", "{'qp': 'u', 'baseline_qp': 'a'}"), "soak.qp: \"u\" is not an RC QP" },
	{ E1("", "soak", "{'qp': 'a', 'baseline_qp': 'e'}"),
	  "soak.baseline_qp: \"e\" must be in RTS with remote.qp naming its peer" },
	{ E1("", "soak", "{'qp': 'a', 'baseline_qp': 'b', 'depth': 100}"),
	  "soak.depth: 100 exceeds max_send_wr" },
	{ E1("", "soak", "{'qp': 'a', 'baseline_qp': 'b', 'max_size': 7}"),
	  "soak.max_size: 7 is out of range" },
	{ E1("", "soak", "{'qp': 'a', 'baseline_qp': 'b', 'messages': 0}"),
	  "soak.messages: 0 is out of range" },
	{ E1("", "soak", "{'qp': 'a', 'baseline_qp': 'b', 'mesages': 5}"),
	  "soak: unknown key \"mesages\" (did you mean \"messages\"?)" },
	{ E1("options", "stats_interval_ms", "'1s'"),
	  "options.stats_interval_ms: expected an integer, got string" },
	{ E1("options", "stats_interval_ms", "3600001"),
	  "options.stats_interval_ms: 3600001 is out of range 0..3600000" },
	{ E1("options", "stats_interval_ms", "-1"),
	  "options.stats_interval_ms: -1 is out of range" },
	/* issue 13.8: accepted and ignored once, now refused */
	{ E1("options", "pcap", "'out.pcap'"), "options.pcap: not supported: capture with a "
	  "net_pcap port (config/transmit-pcap.json) or with dpdk-dumpcap" },
	{ E1("options", "pcap", "1"), "options.pcap: not supported" },
	{ E1("options", "exit_when_done", "'true'"),
	  "options.exit_when_done: expected a boolean, got string" },
	{ E1("options", "timeout_s", "false"),
	  "options.timeout_s: expected an integer, got boolean" },
	{ E1("options", "timeout_s", "86401"),
	  "options.timeout_s: 86401 is out of range 0..86400" },
};

/* Find the object at @p path ("qps[0].remote"; "" is the root). */
static json_t *walk(json_t *root, const char *path)
{
	char buf[128], *tok, *save = NULL;
	json_t *o = root;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save)) {
		char *br = strchr(tok, '[');

		if (br)
			*br = '\0';
		o = json_object_get(o, tok);
		if (br)
			o = json_array_get(o, strtoul(br + 1, NULL, 10));
	}
	return o;
}

/* The base document with @p e applied, as a string (free it). */
static char *apply_edits(const struct edit *e, unsigned int n)
{
	char *base = sq(base_json), *out = NULL;
	json_error_t je;
	json_t *root = json_loads(base, 0, &je);
	unsigned int i;

	if (!root) {
		printf("base document: line %d: %s\n", je.line, je.text);
		goto out;
	}
	for (i = 0; i < n && e[i].obj; i++) {
		json_t *o = walk(root, e[i].obj);

		if (!json_is_object(o)) {
			printf("edit %u: no object at %s\n", i, e[i].obj);
			goto out;
		}
		if (e[i].val) {
			char *v = sq(e[i].val);
			json_t *jv = json_loads(v, JSON_DECODE_ANY, &je);

			free(v);
			if (!jv) {
				printf("edit %u: bad value %s: %s\n", i, e[i].val, je.text);
				goto out;
			}
			json_object_set_new(o, e[i].key, jv);
		} else {
			json_object_del(o, e[i].key);
		}
	}
	out = json_dumps(root, JSON_PRESERVE_ORDER);
out:
	json_decref(root);
	free(base);
	return out;
}

static int test_edit_cases(void)
{
	char err[512];
	unsigned int i;
	int bad = 0;

	for (i = 0; i < RTE_DIM(edit_cases); i++) {
		const char *want = edit_cases[i].prefix;
		char *json = apply_edits(edit_cases[i].e, RTE_DIM(edit_cases[i].e));
		struct rnic_config *cfg = NULL;

		errno = 0;
		if (json)
			cfg = rnic_config_load_string(json, err, sizeof(err));
		if (json && want[0] == '\0') {
			/* must load: a boundary that is allowed */
			if (!cfg) {
				printf("FAIL %s:%d: edit case %u must load\n  got:  %s\n",
				       __func__, __LINE__, i, err);
				bad++;
				n_fail++;
			} else {
				n_pass++;
			}
		} else if (!json || cfg || errno != EINVAL ||
			   strncmp(err, want, strlen(want)) != 0 || strchr(err, '\n')) {
			printf("FAIL %s:%d: edit case %u (%s %s = %s)\n  want: %s\n  got:  %s\n",
			       __func__, __LINE__, i, edit_cases[i].e[0].obj, edit_cases[i].e[0].key,
			       edit_cases[i].e[0].val ? edit_cases[i].e[0].val : "(deleted)", want,
			       cfg ? "(loaded)" : json ? err : "(edit failed)");
			bad++;
			n_fail++;
		} else {
			n_pass++;
		}
		rnic_config_free(cfg);
		free(json);
	}
	return bad ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Other failure paths                                                 */
/* ------------------------------------------------------------------ */

static int test_file_errors(void)
{
	struct rnic_config *cfg;
	char err[256], small[8];
	char *json = sq("{'ports': [{'name': 'p0', 'device': 'x', 'ipv4': '1.2.3.4', 'burst': 0}]}");

	errno = 0;
	cfg = rnic_config_load_file("/nonexistent/softrnic.json", err, sizeof(err));
	VERIFY(!cfg && errno == ENOENT, "errno %d", errno);
	VERIFY(strncmp(err, "/nonexistent/softrnic.json: ", 28) == 0, "%s", err);

	/* A short buffer gets a truncated, terminated message. */
	memset(small, 'X', sizeof(small));
	cfg = rnic_config_load_string(json, small, sizeof(small));
	VERIFY(!cfg && strlen(small) == sizeof(small) - 1, "%.8s", small);
	VERIFY(strncmp(small, "ports[0", 7) == 0, "%s", small);

	/* No buffer at all is allowed. */
	cfg = rnic_config_load_string(json, NULL, 0);
	VERIFY(!cfg && errno == EINVAL, "errno %d", errno);

	/* Not a regular file: refused before any read (/dev/zero once grew
	 * to gigabytes, /dev/urandom read forever, a directory said EIO). */
	cfg = rnic_config_load_file("/dev/zero", err, sizeof(err));
	VERIFY(!cfg && errno == EINVAL &&
	       strcmp(err, "/dev/zero: not a regular file (a character device)") == 0, "%s", err);
	cfg = rnic_config_load_file("/dev/urandom", err, sizeof(err));
	VERIFY(!cfg && errno == EINVAL, "%s", err);
	cfg = rnic_config_load_file("/", err, sizeof(err));
	VERIFY(!cfg && errno == EINVAL && strcmp(err, "/: not a regular file (a directory)") == 0,
	       "%s", err);
	/* Over the size cap: a sparse file, nothing read. */
	{
		char big[] = "/tmp/softrnic-test-config-XXXXXX";
		int fd = mkstemp(big), trunc_rc;

		VERIFY(fd >= 0, "mkstemp: %s", strerror(errno));
		trunc_rc = ftruncate(fd, (off_t)RNIC_CFG_FILE_MAX + 1);
		close(fd);
		cfg = trunc_rc == 0 ? rnic_config_load_file(big, err, sizeof(err)) : NULL;
		unlink(big);
		VERIFY(trunc_rc == 0, "ftruncate");
		VERIFY(!cfg && errno == EFBIG && strstr(err, "over the 4194304-byte limit") != NULL,
		       "%s", err);
	}
	free(json);
	n_pass++;
	return 0;
fail:
	free(json);
	rnic_config_free(cfg);
	n_fail++;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Positive cases                                                      */
/* ------------------------------------------------------------------ */

static rte_be32_t ip(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	return rte_cpu_to_be_32((uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 | d);
}

static int test_full_config(void)
{
	static const uint8_t mac0[6] = { 2, 0, 0, 0, 0, 1 }, mac1[6] = { 2, 0, 0, 0, 0, 2 };
	static const uint8_t dmac[6] = { 2, 0, 0, 0, 1, 2 };
	const int all_mr = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
			   RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;
	const int all_qp = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
			   RNIC_ACCESS_REMOTE_ATOMIC;
	char *json = sq(base_json);
	char err[512] = "";
	struct rnic_config *cfg = rnic_config_load_string(json, err, sizeof(err));
	const struct rnic_cfg_port *p;
	const struct rnic_cfg_qp *q;
	const struct rnic_cfg_work *w;

	VERIFY(cfg, "%s", err);
	VERIFY(cfg->eal_argc == 3 && strcmp(cfg->eal_argv[2], "--lcores=0@0,1@1,2@1") == 0 &&
	       cfg->eal_argv[3] == NULL, "eal_argc %u", cfg->eal_argc);

	VERIFY(cfg->n_ports == 4, "%u", cfg->n_ports);
	p = &cfg->ports[0];
	VERIFY(strcmp(p->name, "p0") == 0 && p->device[0] == '\0' && p->ring_peer_idx == 1, " ");
	VERIFY(p->has_mac && memcmp(p->mac, mac0, 6) == 0, " ");
	VERIFY(p->ipv4 == ip(10, 0, 0, 1) && p->vlan == 100, "%08x", p->ipv4);
	VERIFY(p->max_qps == 64 && p->max_mrs == 16 && p->max_cqs == 8 && p->mbufs == 4096 &&
	       p->ring_size == 1024 && p->burst == 16, " ");
	VERIFY(p->lcore[RNIC_CFG_ROLE_TX] == 1 && p->lcore[RNIC_CFG_ROLE_RX] == 1 &&
	       p->lcore[RNIC_CFG_ROLE_TIMER] == 2, " ");
	p = &cfg->ports[1];
	VERIFY(p->ring_peer_idx == 0 && memcmp(p->mac, mac1, 6) == 0, " ");
	VERIFY(p->lcore[0] == 2 && p->lcore[1] == 2 && p->lcore[2] == 2, " ");
	/* defaults */
	VERIFY(p->vlan == 0 && p->max_qps == 1024 && p->max_mrs == 1024 && p->max_cqs == 256 &&
	       p->mbufs == 16384 && p->ring_size == 4096 && p->burst == 32, " ");
	p = &cfg->ports[2];
	VERIFY(strcmp(p->device, "net_null0") == 0 && p->ring_peer_idx == -1 && !p->has_mac, " ");
	VERIFY(p->ipv4 == ip(10, 0, 1, 1), " ");
	VERIFY(p->lcore[0] == -1 && p->lcore[1] == -1 && p->lcore[2] == -1, " ");

	VERIFY(cfg->n_lcores == 3, " ");
	VERIFY(cfg->lcores[0].lcore == 1 && cfg->lcores[0].port_idx == 0 &&
	       cfg->lcores[0].roles == (RNIC_ROLE_TX | RNIC_ROLE_RX), " ");
	VERIFY(cfg->lcores[1].roles == RNIC_ROLE_TIMER, " ");
	VERIFY(cfg->lcores[2].lcore == 2 && cfg->lcores[2].port_idx == 1 &&
	       cfg->lcores[2].roles == RNIC_ROLE_ALL, " ");

	VERIFY(cfg->n_mrs == 4, " ");
	VERIFY(cfg->mrs[0].port_idx == 0 && cfg->mrs[0].size == 65536 &&
	       cfg->mrs[0].access == all_mr && cfg->mrs[0].fill == RNIC_CFG_FILL_BYTE &&
	       cfg->mrs[0].fill_value == 171, " ");
	VERIFY(cfg->mrs[1].size == (UINT64_C(1) << 34) && cfg->mrs[1].fill == RNIC_CFG_FILL_RANDOM &&
	       cfg->mrs[1].fill_seed == 42, " ");
	VERIFY(cfg->mrs[2].access == RNIC_ACCESS_LOCAL_WRITE && cfg->mrs[2].fill == RNIC_CFG_FILL_ZERO,
	       "access %d", cfg->mrs[2].access);
	VERIFY(cfg->mrs[3].access == RNIC_ACCESS_REMOTE_READ &&
	       cfg->mrs[3].fill == RNIC_CFG_FILL_COUNTER, " ");

	VERIFY(cfg->n_cqs == 3 && cfg->cqs[0].depth == 512 && cfg->cqs[1].depth == 1024 &&
	       cfg->cqs[1].port_idx == 1, " ");

	VERIFY(cfg->n_qps == 6, " ");
	q = &cfg->qps[0];
	VERIFY(strcmp(q->name, "a") == 0 && q->port_idx == 0 && q->type == RNIC_QPT_RC &&
	       q->qpn == 100 && q->send_cq_idx == 0 && q->recv_cq_idx == 0, " ");
	VERIFY(q->cap.max_send_wr == 128 && q->cap.max_recv_wr == 64 && q->cap.max_send_sge == 2 &&
	       q->cap.max_recv_sge == 3 && q->cap.max_inline_data == 128, " ");
	VERIFY(q->has_remote && q->remote.qp_idx == 1 && q->remote.has_mac &&
	       memcmp(q->remote.mac, mac1, 6) == 0 && q->remote.ipv4 == ip(10, 0, 0, 2) &&
	       q->remote.qpn == 0, "qpn %u", q->remote.qpn);
	VERIFY(q->sq_psn == 0xFFFFF0 && q->rq_psn == 5, "rq_psn %u (peer sq_psn 5)", q->rq_psn);
	VERIFY(q->pmtu == RNIC_MTU_4096 && q->timeout == 10 && q->retry_cnt == 3 &&
	       q->rnr_retry == 6 && q->min_rnr_timer == 5 && q->max_rd_atomic == 4 &&
	       q->max_dest_rd_atomic == 8, " ");
	VERIFY(q->access == all_qp && q->pkey == 0x8001 && q->qkey == 0xFFFFFFFF &&
	       q->state == RNIC_QPS_RTS, " ");
	/* b: defaults, and rq_psn from a's sq_psn */
	q = &cfg->qps[1];
	VERIFY(q->qpn == 0 && q->remote.qp_idx == 0 && q->remote.qpn == 100 &&
	       memcmp(q->remote.mac, mac0, 6) == 0, " ");
	VERIFY(q->sq_psn == 5 && q->rq_psn == 0xFFFFF0, "rq_psn %#x", q->rq_psn);
	VERIFY(q->cap.max_send_wr == 256 && q->cap.max_recv_wr == 256 && q->cap.max_send_sge == 4 &&
	       q->cap.max_recv_sge == 4 && q->cap.max_inline_data == 64, " ");
	VERIFY(q->pmtu == RNIC_MTU_1024 && q->timeout == 14 && q->retry_cnt == 7 &&
	       q->rnr_retry == 7 && q->min_rnr_timer == 12 && q->max_rd_atomic == 16 &&
	       q->max_dest_rd_atomic == 16, " ");
	VERIFY(q->access == all_qp && q->pkey == 0xFFFF && q->qkey == 0x11111111 &&
	       q->state == RNIC_QPS_RTS, " ");
	/* u: an explicit rq_psn wins over the peer's sq_psn */
	q = &cfg->qps[2];
	VERIFY(q->type == RNIC_QPT_UC && q->rq_psn == 9 && q->access == RNIC_ACCESS_REMOTE_WRITE &&
	       q->remote.qpn == 101, " ");
	VERIFY(cfg->qps[3].rq_psn == 0, " ");
	q = &cfg->qps[4];
	VERIFY(q->type == RNIC_QPT_UD && q->qpn == 0 && q->has_remote && q->remote.qp_idx == -1 &&
	       q->remote.has_mac && memcmp(q->remote.mac, dmac, 6) == 0 &&
	       q->remote.ipv4 == ip(10, 0, 1, 2) && q->remote.qpn == 77, " ");
	q = &cfg->qps[5];
	VERIFY(q->state == RNIC_QPS_INIT && !q->has_remote && q->remote.qp_idx == -1, " ");

	VERIFY(cfg->n_work == 3, " ");
	w = &cfg->work[0];
	VERIFY(w->qp_idx == 0 && w->opcode == RNIC_WR_RDMA_WRITE && w->n_sizes == 3 &&
	       w->sizes[0] == 0 && w->sizes[1] == 1 && w->sizes[2] == 4096, " ");
	VERIFY(w->count == 10 && w->duration_ms == 0 && w->signaled_every == 4 &&
	       w->local_mr_idx == 0 && w->remote_mr_idx == 1 && !w->inline_data && w->verify &&
	       w->depth == 8, " ");
	w = &cfg->work[1];
	VERIFY(w->opcode == RNIC_WR_ATOMIC_FETCH_AND_ADD && w->n_sizes == 1 && w->sizes[0] == 8 &&
	       w->count == 0 && w->duration_ms == 100 && w->signaled_every == 1 &&
	       w->depth == 16 && w->verify, " ");
	w = &cfg->work[2];
	VERIFY(w->opcode == RNIC_WR_SEND && w->n_sizes == 1 && w->sizes[0] == 512 &&
	       w->count == 1 && w->remote_mr_idx == -1 && !w->verify, " ");
	for (unsigned int i = 0; i < cfg->n_work; i++)
		VERIFY(cfg->work[i].wait == RNIC_CFG_WAIT_COMPLETION, "work[%u] wait %d", i,
		       cfg->work[i].wait);

	VERIFY(cfg->options.stats_interval_ms == 0 &&
	       !cfg->options.exit_when_done && cfg->options.timeout_s == 5, " ");
	rnic_config_free(cfg);
	free(json);
	n_pass++;
	return 0;
fail:
	rnic_config_free(cfg);
	free(json);
	n_fail++;
	return -1;
}

static int test_minimal_defaults(void)
{
	char *json = sq("{'ports': [{'name': 'only', 'device': 'net_pcap0,iface=lo',"
			" 'ipv4': '192.168.1.1'}]}");
	char err[256] = "";
	struct rnic_config *cfg = rnic_config_load_string(json, err, sizeof(err));

	VERIFY(cfg, "%s", err);
	VERIFY(cfg->eal_argc == 0 && cfg->n_ports == 1 && cfg->n_lcores == 0 && cfg->n_mrs == 0 &&
	       cfg->n_cqs == 0 && cfg->n_qps == 0 && cfg->n_work == 0, " ");
	VERIFY(strcmp(cfg->ports[0].device, "net_pcap0,iface=lo") == 0, " ");
	VERIFY(cfg->options.stats_interval_ms == 1000 &&
	       cfg->options.exit_when_done && cfg->options.timeout_s == 60, " ");
	rnic_config_free(cfg);
	free(json);
	n_pass++;
	return 0;
fail:
	rnic_config_free(cfg);
	free(json);
	n_fail++;
	return -1;
}

/* dump -> load -> dump gives the same text: the dump is complete. */
static int roundtrip(const struct rnic_config *cfg, const char *what)
{
	char *a = NULL, *b = NULL, err[512] = "";
	size_t la, lb;
	FILE *f = open_memstream(&a, &la);
	struct rnic_config *again = NULL;

	VERIFY(f && rnic_config_dump(f, cfg) == 0, "%s", what);
	fclose(f);
	again = rnic_config_load_string(a, err, sizeof(err));
	VERIFY(again, "%s: the dump does not load: %s", what, err);
	f = open_memstream(&b, &lb);
	VERIFY(f && rnic_config_dump(f, again) == 0, "%s", what);
	fclose(f);
	VERIFY(la == lb && strcmp(a, b) == 0, "%s: dumps differ", what);
	rnic_config_free(again);
	free(a);
	free(b);
	return 0;
fail:
	rnic_config_free(again);
	free(a);
	free(b);
	return -1;
}

static int test_dump_roundtrip(void)
{
	char *json = sq(base_json);
	char err[512] = "";
	struct rnic_config *cfg = rnic_config_load_string(json, err, sizeof(err));

	VERIFY(cfg, "%s", err);
	VERIFY(roundtrip(cfg, "base") == 0, " ");
	rnic_config_free(cfg);
	free(json);
	n_pass++;
	return 0;
fail:
	rnic_config_free(cfg);
	free(json);
	n_fail++;
	return -1;
}

/* wait "transmit": the value, and the dump writes it back. */
static int test_wait_transmit(void)
{
	static const struct edit e[] = {
		{ "workload[2]", "wait", "'transmit'" },
		{ "workload[2]", "sizes", "[0, 1, 1023, 1024]" },
		{ "workload[2]", "size", NULL },
		{ "workload[2]", "count", "3" },
	};
	char *json = apply_edits(e, RTE_DIM(e));
	char err[512] = "";
	struct rnic_config *cfg = json ? rnic_config_load_string(json, err, sizeof(err)) : NULL;
	const struct rnic_cfg_work *w;

	VERIFY(cfg, "%s", err);
	w = &cfg->work[2];
	VERIFY(w->wait == RNIC_CFG_WAIT_TRANSMIT && !w->verify && w->count == 3 &&
	       w->n_sizes == 4 && w->sizes[3] == 1024, "wait %d", w->wait);
	VERIFY(cfg->work[0].wait == RNIC_CFG_WAIT_COMPLETION &&
	       cfg->work[1].wait == RNIC_CFG_WAIT_COMPLETION, " ");
	VERIFY(roundtrip(cfg, "wait transmit") == 0, " ");
	rnic_config_free(cfg);
	free(json);
	n_pass++;
	return 0;
fail:
	rnic_config_free(cfg);
	free(json);
	n_fail++;
	return -1;
}

/* 16384 QPs in 8192 loopback pairs across a ring-joined port pair. */
#define BIG_QPS 16384

static char *big_config(void)
{
	size_t cap = (size_t)BIG_QPS * 300 + 4096, n = 0;
	char *s = malloc(cap);
	unsigned int i;

	if (!s)
		return NULL;
	n += snprintf(s + n, cap - n,
		      "{\"ports\": ["
		      "{\"name\": \"p0\", \"ring_peer\": \"p1\", \"ipv4\": \"10.0.0.1\", \"max_qps\": %d},"
		      "{\"name\": \"p1\", \"ring_peer\": \"p0\", \"ipv4\": \"10.0.0.2\", \"max_qps\": %d}],"
		      "\"cqs\": [{\"name\": \"c0\", \"port\": \"p0\", \"depth\": 4194304},"
		      "{\"name\": \"c1\", \"port\": \"p1\", \"depth\": 4194304}],"
		      "\"qps\": [", BIG_QPS / 2, BIG_QPS / 2);
	for (i = 0; i < BIG_QPS; i++) {
		unsigned int side = i & 1, pair = i / 2;

		char qpn[16] = "\"auto\"";

		/* half the QPs with fixed QPNs, to exercise the duplicate check */
		if (side == 0)
			snprintf(qpn, sizeof(qpn), "%u", 0x1000 + pair);
		n += snprintf(s + n, cap - n,
			      "%s{\"name\": \"q%u_%u\", \"port\": \"p%u\", \"type\": \"RC\","
			      " \"qpn\": %s, \"send_cq\": \"c%u\", \"recv_cq\": \"c%u\","
			      " \"sq_psn\": %u, \"max_send_wr\": 64, \"remote\": {\"qp\": \"q%u_%u\"}}",
			      i ? "," : "", pair, side, side, qpn, side, side, pair, pair, side ^ 1);
	}
	snprintf(s + n, cap - n, "]}");
	return s;
}

static int test_big_config(void)
{
	char *json = big_config();
	char err[512] = "";
	struct rnic_config *cfg = NULL;
	struct timespec t0, t1;
	double ms;

	VERIFY(json, "out of memory");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cfg = rnic_config_load_string(json, err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("%u QPs (%zu bytes of JSON) loaded in %.1f ms\n", BIG_QPS, strlen(json), ms);
	VERIFY(cfg, "%s", err);
	VERIFY(cfg->n_qps == BIG_QPS, "%u", cfg->n_qps);
	VERIFY(cfg->qps[BIG_QPS - 1].remote.qp_idx == BIG_QPS - 2 &&
	       cfg->qps[BIG_QPS - 2].remote.qp_idx == BIG_QPS - 1, " ");
	VERIFY(cfg->qps[0].rq_psn == 0 && cfg->qps[3].rq_psn == 1, " ");
	/* no flaky timing: only a generous bound */
	VERIFY(ms < 5000, "%.1f ms", ms);
	rnic_config_free(cfg);
	cfg = NULL;

	/* A duplicate name in the last QP is still found (hash, not scan):
	 * rename q8191_1 to q0_0 in place, padding with spaces. */
	{
		char *at = strstr(json, "\"name\": \"q8191_1\"");

		VERIFY(at, "no q8191_1");
		memcpy(at + strlen("\"name\": \""), "q0_0\"   ", strlen("q8191_1\""));
	}
	cfg = rnic_config_load_string(json, err, sizeof(err));
	VERIFY(!cfg && strncmp(err, "qps[16383].name: \"q0_0\" is already used by qps[0]",
			       strlen("qps[16383].name: \"q0_0\" is already used by qps[0]")) == 0,
	       "%s", cfg ? "(loaded)" : err);
	free(json);
	n_pass++;
	return 0;
fail:
	rnic_config_free(cfg);
	free(json);
	n_fail++;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Samples                                                             */
/* ------------------------------------------------------------------ */

static int test_samples(const char *dir)
{
	struct dirent **list = NULL;
	char path[4096], err[512];
	int i, n, found = 0, bad = 0;

	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0) {
		printf("FAIL %s:%d: %s: %s\n", __func__, __LINE__, dir, strerror(errno));
		n_fail++;
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *name = list[i]->d_name;
		size_t len = strlen(name);
		struct rnic_config *cfg;

		if (len < 6 || strcmp(name + len - 5, ".json") != 0)
			continue;
		found++;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		cfg = rnic_config_load_file(path, err, sizeof(err));
		if (!cfg || roundtrip(cfg, name) < 0) {
			printf("FAIL %s:%d: %s: %s\n", __func__, __LINE__, path, cfg ? "round trip" : err);
			bad++;
			n_fail++;
		} else {
			printf("%s: %u ports, %u MRs, %u CQs, %u QPs, %u workload entries\n", name,
			       cfg->n_ports, cfg->n_mrs, cfg->n_cqs, cfg->n_qps, cfg->n_work);
			n_pass++;
		}
		rnic_config_free(cfg);
	}
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
	if (!found) {
		printf("FAIL %s:%d: no *.json in %s\n", __func__, __LINE__, dir);
		n_fail++;
		return -1;
	}
	return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--samples") == 0) {
		test_samples(argv[2]);
	} else {
		/* negative cases first */
		test_raw_cases();
		test_edit_cases();
		test_file_errors();
		/* then positive */
		test_full_config();
		test_minimal_defaults();
		test_dump_roundtrip();
		test_wait_transmit();
		test_big_config();
	}
	printf("%u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
