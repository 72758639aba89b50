/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests for the JSON configuration loader (lib/config).
 *
 * Negative cases first: a table of raw documents (empty, invalid JSON, wrong
 * top level) and a table of edits to a valid base document, one per field
 * and problem (wrong type, out of range, bad enum string, unknown key,
 * duplicate name, dangling reference, missing key, cross-field rule); each
 * must fail with the exact "<json path>: <problem>" prefix; a table of
 * files that must not load (errno and message). Then positive cases, a
 * table of documents that must load each with its check: every value of
 * the base document as given, defaults, the rq_psn default from the
 * peer's sq_psn, dump/reload round trip, workload "wait" "transmit" (its
 * rules and the RC budget counted across entries are edit cases, where an
 * empty expected prefix marks an edit that must load); and a 16384-QP
 * document loaded under a generous time bound. Values are checked as
 * tables of W() rows (expression, expected value), each failure reported
 * at its row's line.
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
#include "test_common.h"

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

/*
 * Load @p json: it must fail with errno EINVAL and a one-line message that
 * starts with @p want, or, where @p want is "", load. @p what names the
 * case in a failure. @return 0, or -1 (reported).
 */
static int check_load(const char *json, const char *want, const char *what)
{
	char err[512] = "";
	struct rnic_config *cfg;
	int e;

	errno = 0;
	cfg = rnic_config_load_string(json, err, sizeof(err));
	e = errno;
	rnic_config_free(cfg);
	if (want[0] == '\0') {   /* must load: a boundary that is allowed */
		VERIFY(cfg != NULL, "%s must load\n  got:  %s", what, err);
		return 0;
	}
	VERIFY(!cfg && e == EINVAL && strncmp(err, want, strlen(want)) == 0 && !strchr(err, '\n'),
	       "%s\n  want: %s\n  got:  %s (errno %d)", what, want, cfg ? "(loaded)" : err, e);
	return 0;
}

static int test_raw_cases(void)
{
	char what[300];
	unsigned int i;
	int bad = 0;

	for (i = 0; i < RTE_DIM(raw_cases); i++) {
		char *json = sq(raw_cases[i].json);

		snprintf(what, sizeof(what), "raw case %u: %s", i, raw_cases[i].json);
		bad |= check_load(json, raw_cases[i].prefix, what);
		free(json);
	}
	return bad;
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
	/* ports[].ipv6 and qps[].gid_index (issue 21) */
	{ E1("ports[0]", "ipv6", "7"),
	  "ports[0].ipv6: expected an address or a list of 1..15 addresses" },
	{ E1("ports[0]", "ipv6", "[]"),
	  "ports[0].ipv6: expected an address or a list of 1..15 addresses" },
	{ E1("ports[0]", "ipv6", "'fd00::zz'"), "ports[0].ipv6: \"fd00::zz\" is not an IPv6 address" },
	{ E1("ports[0]", "ipv6", "['fd00::1', 10]"), "ports[0].ipv6[1]: expected a string, got integer" },
	{ E1("ports[0]", "ipv6", "['ff02::1']"),
	  "ports[0].ipv6[0]: \"ff02::1\" is not a unicast IPv6 address" },
	{ E1("ports[0]", "ipv6", "['::ffff:10.0.0.9']"),
	  "ports[0].ipv6[0]: \"::ffff:10.0.0.9\" is not a unicast IPv6 address" },
	{ E1("ports[0]", "ipv6", "'::'"), "ports[0].ipv6: \"::\" is not a unicast IPv6 address" },
	{ E1("ports[0]", "ipv6", "['fd00::1', 'fd00:0::1']"),
	  "ports[0].ipv6[1]: \"fd00:0::1\" is given twice" },
	{ E2("ports[0]", "ipv6", "'fd00::1'", "ports[1]", "ipv6", "['fd00::2', 'fd00::1']"),
	  "ports[1].ipv6: fd00::1 is already used by ports[0]" },
	{ E1("qps[0]", "gid_index", "16"), "qps[0].gid_index: 16 is out of range 0..15" },
	{ E1("qps[0]", "ecn", "1"), "qps[0].ecn: expected a boolean, got integer" },
	/* qps[].selective_repeat (issue 17) */
	{ E1("qps[0]", "selective_repeat", "1"),
	  "qps[0].selective_repeat: expected a boolean, got integer" },
	{ E1("qps[0]", "selective_repeat", "true"),
	  "qps[1].selective_repeat: false here, true on its remote QP \"a\": both ends or neither" },
	{ E1("qps[2]", "selective_repeat", "true"), "qps[2].selective_repeat: RC only (QP \"u\" is UC)" },
	{ E2("qps[0]", "selective_repeat", "true", "qps[1]", "selective_repeat", "true"), "" },
	/* remote.cm_port (issue 21) */
	{ E1("qps[0]", "remote", "{'qp': 'b', 'cm_port': 0}"),
	  "qps[0].remote.cm_port: 0 is out of range 1..65535" },
	{ E1("qps[4]", "remote", "{'mac': '02:00:00:00:01:02', 'ipv4': '10.0.1.2', 'qpn': 77, "
	     "'cm_port': 7471}"),
	  "qps[4].remote.cm_port: the CM connects QPs of this configuration: give \"qp\"" },
	{ E1("qps[2]", "remote", "{'qp': 'v', 'cm_port': 7471}"),
	  "qps[2].remote.cm_port: only an RC pair brought to RTS is connected by the CM" },
	{ E2("qps[0]", "remote", "{'qp': 'b', 'cm_port': 7471}",
	     "qps[1]", "remote", "{'qp': 'a', 'cm_port': 7472}"),
	  "qps[1].remote.cm_port: QP \"a\" names cm_port too" },
	{ E1("qps[0]", "gid_index", "1"),
	  "qps[0].gid_index: 1: port \"p0\" has 1 GIDs (ipv4, then 0 ipv6)" },
	{ E2("ports[0]", "ipv6", "'fd00::1'", "qps[0]", "gid_index", "1"),
	  "qps[0].remote.qp: QP \"b\" has gid_index 0 (IPv4), this QP 1 (IPv6)" },
	{ E2("ports[2]", "ipv6", "'fd00::1'", "qps[4]", "gid_index", "1"),
	  "qps[4].remote.ipv4: gid_index 1 sends from an IPv6 address: give \"ipv6\"" },
	{ E1("qps[4]", "remote", "{'mac': '02:00:00:00:01:02', 'ipv6': 'fd00::2', 'qpn': 77}"),
	  "qps[4].remote.ipv6: gid_index 0 sends from an IPv4 address: give \"ipv4\"" },
	{ E1("qps[0]", "remote", "{'qp': 'b', 'ipv6': 'fd00::2'}"),
	  "qps[0].remote: give either \"qp\" or \"mac\", \"ipv4\" (or \"ipv6\") and \"qpn\"" },
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
	{ E1("ports[0]", "mtu", "1000"), "ports[0].mtu: 1000 is not one of 256,512,1024,2048,4096" },
	{ E1("ports[0]", "mtu", "8192"), "ports[0].mtu: 8192 is out of range 256..4096" },
	{ E1("ports[0]", "ring_size", "2097152"), "ports[0].ring_size: 2097152 is out of range" },
	{ E1("ports[0]", "ring_size", "1000"), "ports[0].ring_size: 1000 is not a power of two" },
	{ E1("ports[0]", "burst", "false"), "ports[0].burst: expected an integer, got boolean" },
	{ E1("ports[0]", "burst", "0"), "ports[0].burst: 0 is out of range 1..256" },
	/* issue 13.2: past 256 the RX role never polled (rnic_dev_poll_rx) */
	{ E1("ports[0]", "burst", "257"), "ports[0].burst: 257 is out of range 1..256" },
	{ E1("ports[0]", "burst", "512"), "ports[0].burst: 512 is out of range 1..256" },
	{ E1("ports[0]", "burst", "256"), "" },
	{ E1("ports[0]", "burst", "1"), "" },
	{ E1("ports[0]", "max_inflight", "15"), "ports[0].max_inflight: 15 is out of range 16..512" },
	{ E1("ports[0]", "max_inflight", "513"),
	  "ports[0].max_inflight: 513 is out of range 16..512" },
	{ E1("ports[0]", "max_inflight", "16"), "" },
	{ E1("ports[0]", "max_inflight", "512"), "" },
	{ E1("ports[0]", "cnp_dscp", "64"), "ports[0].cnp_dscp: 64 is out of range 0..63" },
	{ E1("ports[0]", "cnp_dscp", "0"), "" },
	{ E1("ports[0]", "cnp_interval_us", "0"),
	  "ports[0].cnp_interval_us: 0 is out of range 1..1000000" },
	{ E1("ports[0]", "ecn", "1"), "ports[0].ecn: expected a boolean, got integer" },
	{ E1("ports[0]", "ecn", "false"), "" },
	{ E1("ports[0]", "dcqcn", "{\"rpg_ai_rat\": 5}"), "ports[0].dcqcn: unknown key \"rpg_ai_rat\"" },
	{ E1("ports[0]", "dcqcn", "{\"rpg_min_dec_fac\": 101}"),
	  "ports[0].dcqcn.rpg_min_dec_fac: 101 is out of range 0..100" },
	{ E1("ports[0]", "dcqcn", "{\"line_mbps\": 100, \"rpg_min_rate\": 200}"),
	  "ports[0].dcqcn.rpg_min_rate: 200 exceeds line_mbps 100" },
	{ E1("ports[0]", "dcqcn", "[]"), "ports[0].dcqcn: expected an object, got array" },
	{ E1("ports[0]", "dcqcn", "{\"enabled\": false, \"rpg_hai_rate\": 100}"), "" },
	/* issue 16: workers, and what bounds them */
	{ E1("ports[2]", "workers", "'2'"), "ports[2].workers: expected an integer, got string" },
	{ E1("ports[2]", "workers", "2.0"), "ports[2].workers: expected an integer, got real" },
	{ E1("ports[2]", "workers", "0"), "ports[2].workers: 0 is out of range 1..64" },
	{ E1("ports[2]", "workers", "65"), "ports[2].workers: 65 is out of range 1..64" },
	{ E1("ports[2]", "workers", "64"), "" },
	{ E1("ports[2]", "workers", "1"), "" },
	{ E2("ports[2]", "max_qps", "3", "ports[2]", "workers", "4"),
	  "ports[2].workers: 4 exceeds max_qps 3 (a worker owns at least one QP)" },
	{ E2("ports[2]", "max_qps", "4", "ports[2]", "workers", "4"), "" },
	{ E1("ports[1]", "workers", "2"), "ports[0].workers: 1 differs from ring_peer \"p1\" (2): "
	  "both ends of a ring pair need the same workers" },
	{ E1("ports[0]", "workers", "3"), "ports[0].workers: 3 differs from ring_peer \"p1\" (1): "
	  "both ends of a ring pair need the same workers" },
	{ E2("ports[0]", "workers", "9", "ports[1]", "workers", "9"),
	  "ports[0].workers: 9 is out of range 1..8 for a ring_peer port (two TX queues per "
	  "worker, a net_ring port has 16)" },
	{ { { "ports[0]", "workers", "8" }, { "ports[1]", "workers", "8" }, { "", "lcores", DEL } },
	  "" },

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
	/* lcores[].worker (issue 16): one of the port's workers, each of their
	 * roles on exactly one lcore */
	{ E1("lcores[0]", "worker", "'0'"), "lcores[0].worker: expected an integer, got string" },
	{ E1("lcores[0]", "worker", "true"), "lcores[0].worker: expected an integer, got boolean" },
	{ E1("lcores[0]", "worker", "1"),
	  "lcores[0].worker: 1 is out of range 0..0 (ports[0] has 1 worker)" },
	{ E1("lcores[0]", "worker", "-1"),
	  "lcores[0].worker: -1 is out of range 0..0 (ports[0] has 1 worker)" },
	{ E1("lcores[0]", "worker", "0"), "" },
	{ E1("lcores[0]", "workr", "0"),
	  "lcores[0]: unknown key \"workr\" (did you mean \"worker\"?)" },
	{ { { "ports[0]", "workers", "2" }, { "ports[1]", "workers", "2" },
	    { "lcores[2]", "worker", "2" } },
	  "lcores[2].worker: 2 is out of range 0..1 (ports[1] has 2 workers)" },
	{ { { "ports[0]", "workers", "2" }, { "ports[1]", "workers", "2" },
	    { "lcores[2]", "worker", "3" } },
	  "lcores[2].worker: 3 is out of range 0..1 (ports[1] has 2 workers)" },
	{ { { "ports[0]", "workers", "2" }, { "ports[1]", "workers", "2" },
	    { "", "lcores", "[{'lcore': 1, 'port': 'p0'}, {'lcore': 2, 'port': 'p0', 'worker': 1,"
	      " 'roles': ['tx']}, {'lcore': 1, 'port': 'p0', 'worker': 1, 'roles': ['rx', 'tx']}]" } },
	  "lcores[2].roles: port \"p0\" worker 1 role \"tx\" is already on lcore 2" },
	{ { { "ports[0]", "workers", "2" }, { "ports[1]", "workers", "2" },
	    { "", "lcores", "[{'lcore': 1, 'port': 'p0', 'worker': 1}, {'lcore': 2, 'port': 'p0',"
	      " 'worker': 1, 'roles': 'all'}]" } },
	  "lcores[1].roles: port \"p0\" worker 1 role \"tx\" is already on lcore 1" },
	/* a named port's workers are all placed: none is left to a default */
	{ { { "ports[0]", "workers", "2" }, { "ports[1]", "workers", "2" } },
	  "lcores: port \"p0\" worker 1 has no lcore for role \"tx\"" },
	{ { { "ports[0]", "workers", "2" }, { "ports[1]", "workers", "2" },
	    { "", "lcores", "[{'lcore': 1, 'port': 'p0', 'worker': 1}, {'lcore': 2, 'port': 'p0',"
	      " 'roles': ['tx', 'rx']}]" } },
	  "lcores: port \"p0\" worker 0 has no lcore for role \"timer\"" },
	{ { { "ports[0]", "workers", "2" }, { "ports[1]", "workers", "2" },
	    { "", "lcores", "[{'lcore': 1, 'port': 'p0'}, {'lcore': 2, 'port': 'p0', 'worker': 1,"
	      " 'roles': ['rx', 'timer']}]" } },
	  "lcores: port \"p0\" worker 1 has no lcore for role \"tx\"" },
	{ { { "ports[0]", "workers", "2" }, { "ports[1]", "workers", "2" },
	    { "", "lcores", "[{'lcore': 1, 'port': 'p0'}, {'lcore': 1, 'port': 'p0', 'worker': 1}]" } },
	  "" /* loads: p1 not named, its workers get lcores by default */ },

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
	  "qps[0].remote: give either \"qp\" or \"mac\", \"ipv4\" (or \"ipv6\") and \"qpn\", not both" },
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
	{ E1("qps[0]", "max_rd_atomic", "129"), "qps[0].max_rd_atomic: 129 is out of range 0..128" },
	{ E1("qps[0]", "sl", "8"), "qps[0].sl: 8 is out of range 0..7" },
	{ E1("qps[0]", "dscp", "64"), "qps[0].dscp: 64 is out of range 0..63" },
	{ E1("qps[0]", "dscp", "\"ef\""), "qps[0].dscp: expected an integer, got string" },
	{ E1("qps[0]", "max_dest_rd_atomic", "[]"),
	  "qps[0].max_dest_rd_atomic: expected an integer, got array" },
	{ E1("qps[0]", "max_dest_rd_atomic", "129"),
	  "qps[0].max_dest_rd_atomic: 129 is out of range 0..128" },
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
	/* attach (issue 20) */
	{ E1("", "attach", "{}"), "attach: missing required key \"socket\"" },
	{ E1("", "attach", "{'socket': 'run/a.sock'}"),
	  "attach.socket: \"run/a.sock\" is not an absolute path" },
	{ E1("", "attach", "{'socket': '/run/a.sock', 'max_apps': 0}"),
	  "attach.max_apps: 0 is out of range" },
	{ E1("", "attach", "{'socket': '/run/a.sock', 'app': {'max_qp': 4}}"),
	  "attach.app: unknown key \"max_qp\" (did you mean \"max_qps\"?)" },
	{ E1("", "attach", "{'socket': '/run/a.sock', 'app': {'max_cqe': 0}}"),
	  "attach.app.max_cqe: 0 is out of range" },
	{ E1("", "attach", "{'socket': '/run/a.sock', 'app': []}"),
	  "attach.app: expected an object, got array" },
	{ E1("", "attach", "{'socket': '/run/a.sock', 'app': {'max_qps': 8}}"), "" },
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
	char what[300];
	unsigned int i;
	int bad = 0;

	for (i = 0; i < RTE_DIM(edit_cases); i++) {
		const struct edit *e = edit_cases[i].e;
		char *json = apply_edits(e, RTE_DIM(edit_cases[i].e));

		snprintf(what, sizeof(what), "edit case %u (%s %s = %s)", i, e[0].obj, e[0].key,
			 e[0].val ? e[0].val : "(deleted)");
		if (!TEST_CHECK(json != NULL, "%s: the edit does not apply", what))
			bad = -1;
		else
			bad |= check_load(json, edit_cases[i].prefix, what);
		free(json);
	}
	return bad;
}

/* ------------------------------------------------------------------ */
/* Other failure paths                                                 */
/* ------------------------------------------------------------------ */

/* Files that must not load, each with its errno and message. */
#define BIG_FILE NULL   /* a sparse file one byte over RNIC_CFG_FILE_MAX */
enum match { PREFIX, EXACT, CONTAINS };

static const struct {
	const char *path;
	int errnum;
	enum match match;
	const char *msg;
} file_cases[] = {
	{ "/nonexistent/softrnic.json", ENOENT, PREFIX, "/nonexistent/softrnic.json: " },
	/* Not a regular file: refused before any read (/dev/zero once grew
	 * to gigabytes, /dev/urandom read forever, a directory said EIO). */
	{ "/dev/zero", EINVAL, EXACT, "/dev/zero: not a regular file (a character device)" },
	{ "/dev/urandom", EINVAL, PREFIX, "" },
	{ "/", EINVAL, EXACT, "/: not a regular file (a directory)" },
	/* Over the size cap: nothing read. */
	{ BIG_FILE, EFBIG, CONTAINS, "over the 4194304-byte limit" },
};

static int test_file_errors(void)
{
	struct rnic_config *cfg;
	char err[256], small[8];
	char *json = sq("{'ports': [{'name': 'p0', 'device': 'x', 'ipv4': '1.2.3.4', 'burst': 0}]}");
	unsigned int i;
	int e;

	for (i = 0; i < RTE_DIM(file_cases); i++) {
		char big[] = "/tmp/softrnic-test-config-XXXXXX";
		const char *path = file_cases[i].path, *want = file_cases[i].msg;
		bool match;

		if (path == BIG_FILE) {
			int fd = mkstemp(big), trunc_rc;

			VERIFY_GOTO(fd >= 0, fail, "mkstemp: %s", strerror(errno));
			trunc_rc = ftruncate(fd, (off_t)RNIC_CFG_FILE_MAX + 1);
			close(fd);
			if (trunc_rc != 0)
				unlink(big);
			VERIFY_GOTO(trunc_rc == 0, fail, "ftruncate");
			path = big;
		}
		errno = 0;
		cfg = rnic_config_load_file(path, err, sizeof(err));
		e = errno;
		if (path == big)
			unlink(big);
		rnic_config_free(cfg);
		match = file_cases[i].match == EXACT ? strcmp(err, want) == 0 :
			file_cases[i].match == PREFIX ? strncmp(err, want, strlen(want)) == 0 :
			strstr(err, want) != NULL;
		VERIFY_GOTO(!cfg && e == file_cases[i].errnum && match, fail,
			    "%s: errno %d (want %d): %s", path, e, file_cases[i].errnum, err);
	}

	/* A short buffer gets a truncated, terminated message. */
	memset(small, 'X', sizeof(small));
	cfg = rnic_config_load_string(json, small, sizeof(small));
	VERIFY_GOTO(!cfg && strlen(small) == sizeof(small) - 1, fail, "%.8s", small);
	VERIFY_GOTO(strncmp(small, "ports[0", 7) == 0, fail, "%s", small);

	/* No buffer at all is allowed. */
	cfg = rnic_config_load_string(json, NULL, 0);
	VERIFY_GOTO(!cfg && errno == EINVAL, fail, "errno %d", errno);
	free(json);
	return 0;
fail:
	free(json);
	rnic_config_free(cfg);
	return -1;
}

/* ------------------------------------------------------------------ */
/* Positive cases                                                      */
/* ------------------------------------------------------------------ */

static rte_be32_t ip(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	return rte_cpu_to_be_32((uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 | d);
}

/*
 * One value of a loaded configuration and what the document makes it: an
 * integer (W), a string (W_STR) or 6 bytes of MAC address (W_MAC). A table
 * of them is built after the load and checked row by row, each failure
 * reported at its row's line.
 */
struct want {
	int line;
	const char *what;            /* the expression, as written */
	long long got, want;         /* W */
	const char *got_s, *want_s;  /* W_STR, W_MAC (NULL for W) */
	bool mac;
};
#define W(e, v) { __LINE__, #e, (long long)(e), (long long)(v), NULL, NULL, false }
#define W_STR(e, v) { __LINE__, #e, 0, 0, (e), (v), false }
#define W_MAC(e, v) { __LINE__, #e, 0, 0, (const char *)(e), (const char *)(v), true }

static void mac_str(const char *m, char out[18])
{
	const uint8_t *b = (const uint8_t *)m;

	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3], b[4], b[5]);
}

/* @return 0, or -1 when a row differs (each such row reported). */
static int check_wants(const char *func, const struct want *w, unsigned int n)
{
	int bad = 0;

	for (; n--; w++) {
		char g[18], x[18];

		if (!w->got_s && w->got == w->want) {
			test_verify_passed++;
		} else if (!w->got_s) {
			test_verify_report(func, w->line, w->what, "%lld (%#llx), want %lld (%#llx)\n",
					   w->got, w->got, w->want, w->want);
			bad = -1;
		} else if (w->mac ? memcmp(w->got_s, w->want_s, 6) == 0 :
			   strcmp(w->got_s, w->want_s) == 0) {
			test_verify_passed++;
		} else if (w->mac) {
			mac_str(w->got_s, g);
			mac_str(w->want_s, x);
			test_verify_report(func, w->line, w->what, "%s, want %s\n", g, x);
			bad = -1;
		} else {
			test_verify_report(func, w->line, w->what, "\"%s\", want \"%s\"\n", w->got_s,
					   w->want_s);
			bad = -1;
		}
	}
	return bad;
}
#define CHECK_WANTS(t) check_wants(__func__, (t), RTE_DIM(t))

/* Load single-quoted @p json; NULL (reported) when it does not load. */
static struct rnic_config *load_sq(const char *json)
{
	char *d = sq(json), err[512] = "";
	struct rnic_config *cfg = d ? rnic_config_load_string(d, err, sizeof(err)) : NULL;

	free(d);
	EXPECT(cfg != NULL, "%s", err);
	return cfg;
}

/* Every value of base_json, as given or defaulted. */
static int check_full_config(const struct rnic_config *cfg)
{
	static const uint8_t mac0[6] = { 2, 0, 0, 0, 0, 1 }, mac1[6] = { 2, 0, 0, 0, 0, 2 };
	static const uint8_t dmac[6] = { 2, 0, 0, 0, 1, 2 };
	const int all_mr = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
			   RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC;
	const int all_qp = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
			   RNIC_ACCESS_REMOTE_ATOMIC;
	const struct want counts[] = {
		W(cfg->eal_argc, 3), W(cfg->n_ports, 4), W(cfg->n_lcores, 3), W(cfg->n_mrs, 4),
		W(cfg->n_cqs, 3), W(cfg->n_qps, 6), W(cfg->n_work, 3),
	};
	const struct rnic_cfg_port *p0 = &cfg->ports[0], *p1 = &cfg->ports[1],
				   *p2 = &cfg->ports[2];
	const struct rnic_cfg_lcore *l = cfg->lcores;
	const struct rnic_cfg_mr *m = cfg->mrs;
	const struct rnic_cfg_qp *a = &cfg->qps[0], *b = &cfg->qps[1], *u = &cfg->qps[2],
				 *d = &cfg->qps[4], *e = &cfg->qps[5];
	const struct rnic_cfg_work *w = cfg->work;

	/* the arrays are as long as the document says: then read them */
	if (CHECK_WANTS(counts) != 0)
		return -1;
	const struct want fields[] = {
		W_STR(cfg->eal_argv[2], "--lcores=0@0,1@1,2@1"), W(cfg->eal_argv[3] == NULL, true),
		/* ports[0]: every key given */
		W_STR(p0->name, "p0"), W_STR(p0->device, ""), W(p0->ring_peer_idx, 1),
		W(p0->has_mac, true), W_MAC(p0->mac, mac0), W(p0->ipv4, ip(10, 0, 0, 1)),
		W(p0->vlan, 100), W(p0->max_qps, 64), W(p0->max_mrs, 16), W(p0->max_cqs, 8),
		W(p0->mbufs, 4096), W(p0->ring_size, 1024), W(p0->burst, 16),
		W(p0->workers, 1), W(p0->worker_lcore[0][RNIC_CFG_ROLE_TX], 1),
		W(p0->worker_lcore[0][RNIC_CFG_ROLE_RX], 1),
		W(p0->worker_lcore[0][RNIC_CFG_ROLE_TIMER], 2),
		/* ports[1]: defaults */
		W(p1->ring_peer_idx, 0), W_MAC(p1->mac, mac1), W(p1->workers, 1),
		W(p1->worker_lcore[0][0], 2), W(p1->worker_lcore[0][1], 2),
		W(p1->worker_lcore[0][2], 2),
		W(p1->vlan, 0), W(p1->max_qps, 1024), W(p1->max_mrs, 1024), W(p1->max_cqs, 256),
		W(p1->mbufs, 16384), W(p1->ring_size, 4096), W(p1->burst, 32),
		/* ports[2]: a device, no MAC, no lcore */
		W_STR(p2->device, "net_null0"), W(p2->ring_peer_idx, -1), W(p2->has_mac, false),
		W(p2->ipv4, ip(10, 0, 1, 1)),
		W(p2->worker_lcore[0][0], -1), W(p2->worker_lcore[0][1], -1),
		W(p2->worker_lcore[0][2], -1),
		/* lcores */
		W(l[0].lcore, 1), W(l[0].port_idx, 0), W(l[0].roles, RNIC_ROLE_TX | RNIC_ROLE_RX),
		W(l[0].worker, 0), W(l[1].roles, RNIC_ROLE_TIMER), W(l[1].worker, 0),
		W(l[2].lcore, 2), W(l[2].port_idx, 1), W(l[2].roles, RNIC_ROLE_ALL),
		W(l[2].worker, 0),
		/* mrs */
		W(m[0].port_idx, 0), W(m[0].size, 65536), W(m[0].access, all_mr),
		W(m[0].fill, RNIC_CFG_FILL_BYTE), W(m[0].fill_value, 171),
		W(m[1].size, UINT64_C(1) << 34), W(m[1].fill, RNIC_CFG_FILL_RANDOM),
		W(m[1].fill_seed, 42),
		W(m[2].access, RNIC_ACCESS_LOCAL_WRITE), W(m[2].fill, RNIC_CFG_FILL_ZERO),
		W(m[3].access, RNIC_ACCESS_REMOTE_READ), W(m[3].fill, RNIC_CFG_FILL_COUNTER),
		/* cqs */
		W(cfg->cqs[0].depth, 512), W(cfg->cqs[1].depth, 1024), W(cfg->cqs[1].port_idx, 1),
		/* qps[0] "a": every key given */
		W_STR(a->name, "a"), W(a->port_idx, 0), W(a->type, RNIC_QPT_RC), W(a->qpn, 100),
		W(a->send_cq_idx, 0), W(a->recv_cq_idx, 0),
		W(a->cap.max_send_wr, 128), W(a->cap.max_recv_wr, 64), W(a->cap.max_send_sge, 2),
		W(a->cap.max_recv_sge, 3), W(a->cap.max_inline_data, 128),
		W(a->has_remote, true), W(a->remote.qp_idx, 1), W(a->remote.has_mac, true),
		W_MAC(a->remote.mac, mac1), W(a->remote.ipv4, ip(10, 0, 0, 2)), W(a->remote.qpn, 0),
		W(a->sq_psn, 0xFFFFF0), W(a->rq_psn, 5 /* the peer's sq_psn */),
		W(a->pmtu, RNIC_MTU_4096), W(a->timeout, 10), W(a->retry_cnt, 3),
		W(a->rnr_retry, 6), W(a->min_rnr_timer, 5), W(a->max_rd_atomic, 4),
		W(a->max_dest_rd_atomic, 8),
		W(a->access, all_qp), W(a->pkey, 0x8001), W(a->qkey, 0xFFFFFFFF),
		W(a->state, RNIC_QPS_RTS),
		/* qps[1] "b": defaults, and rq_psn from a's sq_psn */
		W(b->qpn, 0), W(b->remote.qp_idx, 0), W(b->remote.qpn, 100),
		W_MAC(b->remote.mac, mac0), W(b->sq_psn, 5), W(b->rq_psn, 0xFFFFF0),
		W(b->cap.max_send_wr, 256), W(b->cap.max_recv_wr, 256), W(b->cap.max_send_sge, 4),
		W(b->cap.max_recv_sge, 4), W(b->cap.max_inline_data, 64),
		W(b->pmtu, RNIC_MTU_1024), W(b->timeout, 14), W(b->retry_cnt, 7),
		W(b->rnr_retry, 7), W(b->min_rnr_timer, 12), W(b->max_rd_atomic, 16),
		W(b->max_dest_rd_atomic, 16),
		W(b->access, all_qp), W(b->pkey, 0xFFFF), W(b->qkey, 0x11111111),
		W(b->state, RNIC_QPS_RTS),
		/* qps[2] "u": an explicit rq_psn wins over the peer's sq_psn */
		W(u->type, RNIC_QPT_UC), W(u->rq_psn, 9), W(u->access, RNIC_ACCESS_REMOTE_WRITE),
		W(u->remote.qpn, 101),
		W(cfg->qps[3].rq_psn, 0),
		/* qps[4] "d": UD, remote by address */
		W(d->type, RNIC_QPT_UD), W(d->qpn, 0), W(d->has_remote, true),
		W(d->remote.qp_idx, -1), W(d->remote.has_mac, true), W_MAC(d->remote.mac, dmac),
		W(d->remote.ipv4, ip(10, 0, 1, 2)), W(d->remote.qpn, 77),
		/* qps[5] "e": INIT, no remote */
		W(e->state, RNIC_QPS_INIT), W(e->has_remote, false), W(e->remote.qp_idx, -1),
		/* workload */
		W(w[0].qp_idx, 0), W(w[0].opcode, RNIC_WR_RDMA_WRITE), W(w[0].n_sizes, 3),
		W(w[0].sizes[0], 0), W(w[0].sizes[1], 1), W(w[0].sizes[2], 4096),
		W(w[0].count, 10), W(w[0].duration_ms, 0), W(w[0].signaled_every, 4),
		W(w[0].local_mr_idx, 0), W(w[0].remote_mr_idx, 1), W(w[0].inline_data, false),
		W(w[0].verify, true), W(w[0].depth, 8),
		W(w[1].opcode, RNIC_WR_ATOMIC_FETCH_AND_ADD), W(w[1].n_sizes, 1),
		W(w[1].sizes[0], 8), W(w[1].count, 0), W(w[1].duration_ms, 100),
		W(w[1].signaled_every, 1), W(w[1].depth, 16), W(w[1].verify, true),
		W(w[2].opcode, RNIC_WR_SEND), W(w[2].n_sizes, 1), W(w[2].sizes[0], 512),
		W(w[2].count, 1), W(w[2].remote_mr_idx, -1), W(w[2].verify, false),
		W(w[0].wait, RNIC_CFG_WAIT_COMPLETION), W(w[1].wait, RNIC_CFG_WAIT_COMPLETION),
		W(w[2].wait, RNIC_CFG_WAIT_COMPLETION),
		/* options */
		W(cfg->options.stats_interval_ms, 0), W(cfg->options.exit_when_done, false),
		W(cfg->options.timeout_s, 5),
	};

	return CHECK_WANTS(fields);
}

/* The defaults of everything but the one port. */
static int check_minimal_defaults(const struct rnic_config *cfg)
{
	const struct want fields[] = {
		W(cfg->eal_argc, 0), W(cfg->n_ports, 1), W(cfg->n_lcores, 0), W(cfg->n_mrs, 0),
		W(cfg->n_cqs, 0), W(cfg->n_qps, 0), W(cfg->n_work, 0),
		W_STR(cfg->ports[0].device, "net_pcap0,iface=lo"),
		W(cfg->options.stats_interval_ms, 1000), W(cfg->options.exit_when_done, true),
		W(cfg->options.timeout_s, 60),
	};

	return CHECK_WANTS(fields);
}

/* @p cfg dumped (the text in *text: free it) and loaded back; NULL
 * (reported) when the dump fails or does not load. */
static struct rnic_config *reload(const struct rnic_config *cfg, char **text, const char *what)
{
	char err[512] = "";
	size_t len;
	FILE *f = open_memstream(text, &len);
	bool dumped = f && rnic_config_dump(f, cfg) == 0;
	struct rnic_config *again;

	if (f)
		fclose(f);
	if (!TEST_CHECK(dumped, "%s", what))
		return NULL;
	again = rnic_config_load_string(*text, err, sizeof(err));
	EXPECT(again, "%s: the dump does not load: %s", what, err);
	return again;
}

/* dump -> load -> dump gives the same text: the dump is complete. */
static int roundtrip(const struct rnic_config *cfg, const char *what)
{
	char *a = NULL, *b = NULL;
	struct rnic_config *again = reload(cfg, &a, what);
	struct rnic_config *third = again ? reload(again, &b, what) : NULL;
	int r = third && TEST_CHECK(strcmp(a, b) == 0, "%s: dumps differ", what) ? 0 : -1;

	rnic_config_free(third);
	rnic_config_free(again);
	free(a);
	free(b);
	return r;
}

static int check_dump_roundtrip(const struct rnic_config *cfg)
{
	return roundtrip(cfg, "base");
}

/* wait "transmit": the value, and the dump writes it back. */
static const struct edit wait_transmit_edits[] = {
	{ "workload[2]", "wait", "'transmit'" },
	{ "workload[2]", "sizes", "[0, 1, 1023, 1024]" },
	{ "workload[2]", "size", NULL },
	{ "workload[2]", "count", "3" },
};

static int check_wait_transmit(const struct rnic_config *cfg)
{
	const struct rnic_cfg_work *w = cfg->work;
	const struct want fields[] = {
		W(cfg->n_work, 3),
		W(w[2].wait, RNIC_CFG_WAIT_TRANSMIT), W(w[2].verify, false), W(w[2].count, 3),
		W(w[2].n_sizes, 4), W(w[2].n_sizes == 4 && w[2].sizes[3] == 1024, true),
		W(w[0].wait, RNIC_CFG_WAIT_COMPLETION), W(w[1].wait, RNIC_CFG_WAIT_COMPLETION),
	};

	if (CHECK_WANTS(fields) != 0)
		return -1;
	return roundtrip(cfg, "wait transmit");
}

/* Workers (issue 16): p0 and p1 with 2 each, their roles placed per worker
 * (a role of worker 0 and the same role of worker 1 on one lcore), p2 with 3
 * and not named. */
static const struct edit workers_edits[] = {
	{ "ports[0]", "workers", "2" },
	{ "ports[1]", "workers", "2" },
	{ "ports[2]", "workers", "3" },
	{ "", "lcores", "[{'lcore': 1, 'port': 'p0'},"
	  " {'lcore': 1, 'port': 'p0', 'worker': 1, 'roles': ['tx']},"
	  " {'lcore': 2, 'port': 'p0', 'worker': 1, 'roles': ['rx', 'timer']},"
	  " {'lcore': 2, 'port': 'p1', 'worker': 1}, {'lcore': 1, 'port': 'p1', 'worker': 0}]" },
};

static int check_workers(const struct rnic_config *cfg)
{
	const struct rnic_cfg_port *p = cfg->ports;
	const struct rnic_cfg_lcore *l = cfg->lcores;
	const struct want fields[] = {
		W(cfg->n_lcores, 5), W(p[0].workers, 2), W(p[1].workers, 2), W(p[2].workers, 3),
		W(p[3].workers, 1),
		W(p[0].worker_lcore[0][RNIC_CFG_ROLE_TX], 1),
		W(p[0].worker_lcore[0][RNIC_CFG_ROLE_RX], 1),
		W(p[0].worker_lcore[0][RNIC_CFG_ROLE_TIMER], 1),
		W(p[0].worker_lcore[1][RNIC_CFG_ROLE_TX], 1),
		W(p[0].worker_lcore[1][RNIC_CFG_ROLE_RX], 2),
		W(p[0].worker_lcore[1][RNIC_CFG_ROLE_TIMER], 2),
		W(p[1].worker_lcore[0][RNIC_CFG_ROLE_TX], 1),
		W(p[1].worker_lcore[1][RNIC_CFG_ROLE_TIMER], 2),
		W(p[2].worker_lcore[2][RNIC_CFG_ROLE_TX], -1),
		W(p[2].worker_lcore[0][RNIC_CFG_ROLE_TIMER], -1),
		W(l[0].worker, 0), W(l[0].roles, RNIC_ROLE_ALL),
		W(l[1].worker, 1), W(l[1].roles, RNIC_ROLE_TX),
		W(l[2].worker, 1), W(l[2].roles, RNIC_ROLE_RX | RNIC_ROLE_TIMER),
		W(l[3].port_idx, 1), W(l[3].worker, 1), W(l[4].worker, 0),
	};

	if (CHECK_WANTS(fields) != 0)
		return -1;
	return roundtrip(cfg, "workers");
}

/* ports[].impair and ports[].queues survive a dump and reload (the dump
 * once left them out: a round trip compares two dumps, so it could not
 * tell). */
static const struct edit impair_queues_edits[] = {
	{ "ports[0]", "impair", "'drop=0.01,seed=7'" },
	{ "ports[2]", "queues", "1" },
};

static int check_impair_queues(const struct rnic_config *cfg)
{
	char *text = NULL;
	struct rnic_config *again = reload(cfg, &text, "impair_queues");
	int r = -1;

	if (again) {
		const struct want fields[] = {
			W_STR(cfg->ports[0].impair, "drop=0.01,seed=7"), W(cfg->ports[2].queues, 1),
			W_STR(again->ports[0].impair, "drop=0.01,seed=7"),
			W_STR(again->ports[1].impair, ""),
			W(again->ports[2].queues, 1), W(again->ports[3].queues, 0),
		};

		r = CHECK_WANTS(fields);
	}
	rnic_config_free(again);
	free(text);
	return r;
}

/* IPv6 (issue 21): p0 and p1 with IPv6 addresses, RC a/b over them (a
 * from p0's second, b from p1's first), UD d to an IPv6 address. */
static const struct edit ipv6_edits[] = {
	{ "ports[0]", "ipv6", "['fd00::1', 'fd00:0:0:1::1']" },
	{ "ports[1]", "ipv6", "'fd00::2'" },
	{ "ports[2]", "ipv6", "['2001:db8::7']" },
	{ "qps[0]", "gid_index", "2" },
	{ "qps[1]", "gid_index", "1" },
	{ "qps[4]", "gid_index", "1" },
	{ "qps[4]", "remote", "{'mac': '02:00:00:00:01:02', 'ipv6': '2001:db8::8', 'qpn': 77}" },
	{ "qps[2]", "ecn", "false" },
	{ "qps[3]", "ecn", "true" },
};

static int check_ipv6(const struct rnic_config *cfg)
{
	const struct rnic_cfg_port *p = cfg->ports;
	const struct rnic_cfg_qp *q = cfg->qps;
	const uint8_t fd1[16] = { 0xfd, [15] = 1 }, fd11[16] = { 0xfd, [7] = 1, [15] = 1 },
		      fd2[16] = { 0xfd, [15] = 2 },
		      db8[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 8 };
	const struct want fields[] = {
		W(p[0].n_ipv6, 2), W(p[1].n_ipv6, 1), W(p[2].n_ipv6, 1), W(p[3].n_ipv6, 0),
		W(memcmp(p[0].ipv6[0], fd1, 16), 0), W(memcmp(p[0].ipv6[1], fd11, 16), 0),
		W(q[0].gid_index, 2), W(q[1].gid_index, 1), W(q[2].gid_index, 0),
		/* a's peer b sends from p1's GID 1: fd00::2; b's peer a from fd00:0:0:1::1 */
		W(q[0].remote.ipv6, true), W(memcmp(q[0].remote.ipv6_addr, fd2, 16), 0),
		W(q[1].remote.ipv6, true), W(memcmp(q[1].remote.ipv6_addr, fd11, 16), 0),
		W(q[2].remote.ipv6, false),
		W(q[4].remote.ipv6, true), W(memcmp(q[4].remote.ipv6_addr, db8, 16), 0),
		W(q[0].ecn, -1), W(q[2].ecn, 0), W(q[3].ecn, 1),
	};

	if (CHECK_WANTS(fields) != 0)
		return -1;
	return roundtrip(cfg, "ipv6");
}

/*
 * Documents that must load, each with what to check of the result: the
 * single-quoted @c json, or (NULL) base_json with @c edits applied.
 */
static const struct {
	const char *name;
	const char *json;
	const struct edit *edits;
	unsigned int n_edits;
	int (*check)(const struct rnic_config *cfg);
} load_cases[] = {
	{ "full_config", base_json, NULL, 0, check_full_config },
	{ "minimal_defaults", "{'ports': [{'name': 'only', 'device': 'net_pcap0,iface=lo',"
	  " 'ipv4': '192.168.1.1'}]}", NULL, 0, check_minimal_defaults },
	{ "dump_roundtrip", base_json, NULL, 0, check_dump_roundtrip },
	{ "wait_transmit", NULL, wait_transmit_edits, RTE_DIM(wait_transmit_edits),
	  check_wait_transmit },
	{ "workers", NULL, workers_edits, RTE_DIM(workers_edits), check_workers },
	{ "impair_queues_dump", NULL, impair_queues_edits, RTE_DIM(impair_queues_edits),
	  check_impair_queues },
	{ "ipv6", NULL, ipv6_edits, RTE_DIM(ipv6_edits), check_ipv6 },
};

static int test_load_cases(void)
{
	unsigned int i;
	int bad = 0;

	for (i = 0; i < RTE_DIM(load_cases); i++) {
		struct rnic_config *cfg;

		if (load_cases[i].json) {
			cfg = load_sq(load_cases[i].json);
		} else {
			char *json = apply_edits(load_cases[i].edits, load_cases[i].n_edits);
			char err[512] = "";

			cfg = json ? rnic_config_load_string(json, err, sizeof(err)) : NULL;
			free(json);
			EXPECT(cfg != NULL, "%s", err);
		}
		if (!cfg || load_cases[i].check(cfg) != 0) {
			printf("  ^ case: %s\n", load_cases[i].name);
			bad = -1;
		}
		rnic_config_free(cfg);
	}
	return bad;
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
	char *at;

	VERIFY_GOTO(json, fail, "out of memory");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cfg = rnic_config_load_string(json, err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("%u QPs (%zu bytes of JSON) loaded in %.1f ms\n", BIG_QPS, strlen(json), ms);
	VERIFY_GOTO(cfg, fail, "%s", err);
	VERIFY_GOTO(cfg->n_qps == BIG_QPS, fail, "%u", cfg->n_qps);
	{
		const struct rnic_cfg_qp *q = cfg->qps;
		const struct want fields[] = {
			W(q[BIG_QPS - 1].remote.qp_idx, BIG_QPS - 2),
			W(q[BIG_QPS - 2].remote.qp_idx, BIG_QPS - 1),
			W(q[0].rq_psn, 0), W(q[3].rq_psn, 1),
		};

		if (CHECK_WANTS(fields) != 0)
			goto fail;
	}
	/* no flaky timing: only a generous bound */
	VERIFY_GOTO(ms < 5000, fail, "%.1f ms", ms);
	rnic_config_free(cfg);
	cfg = NULL;

	/* A duplicate name in the last QP is still found (hash, not scan):
	 * rename q8191_1 to q0_0 in place, padding with spaces. */
	at = strstr(json, "\"name\": \"q8191_1\"");
	VERIFY_GOTO(at, fail, "no q8191_1");
	memcpy(at + strlen("\"name\": \""), "q0_0\"   ", strlen("q8191_1\""));
	VERIFY_GOTO(check_load(json, "qps[16383].name: \"q0_0\" is already used by qps[0]",
			       "q8191_1 renamed q0_0") == 0, fail, " ");
	free(json);
	return 0;
fail:
	rnic_config_free(cfg);
	free(json);
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
	VERIFY(n >= 0, "%s: %s", dir, strerror(errno));
	for (i = 0; i < n; i++) {
		const char *name = list[i]->d_name;
		size_t len = strlen(name);
		struct rnic_config *cfg;

		if (len < 6 || strcmp(name + len - 5, ".json") != 0)
			continue;
		found++;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		cfg = rnic_config_load_file(path, err, sizeof(err));
		if (!TEST_CHECK(cfg != NULL, "%s: %s", path, err) || roundtrip(cfg, name) < 0)
			bad = -1;
		else
			printf("%s: %u ports, %u MRs, %u CQs, %u QPs, %u workload entries\n", name,
			       cfg->n_ports, cfg->n_mrs, cfg->n_cqs, cfg->n_qps, cfg->n_work);
		rnic_config_free(cfg);
	}
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
	VERIFY(found, "no *.json in %s", dir);
	return bad;
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
		test_load_cases();
		test_big_config();
	}
	printf("%u passed, %u failed\n", test_verify_passed, test_verify_failed);
	return test_verify_failed ? 1 : 0;
}
