/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The JSON configuration loader. One pass per section in dependency order
 * (eal, ports, lcores, cqs, mrs, qps, workload, options, soak; the array
 * sections are the rows of sections[], read by parse_section); each value is
 * read by a small typed helper that knows the JSON path it sits at, so the
 * first problem becomes one message "<path>: <problem>". Names are looked
 * up through a hash so that a config with 10^5 QPs loads in linear time.
 * References that may point forward (ports[].ring_peer, qps[].remote.qp)
 * are resolved in a second pass over the same JSON array.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <sys/stat.h>
#include <jansson.h>
#include <rte_common.h>

#include "rnic_config.h"

#define PATH_LEN 512
#define MSG_LEN 384

/* ------------------------------------------------------------------ */
/* Parse context: the JSON path of the value being read and the error  */
/* ------------------------------------------------------------------ */

struct names {
	uint32_t mask;
	int *slot;               /* -1: empty, else an index into base */
	const char *base;        /* name of element 0 */
	size_t stride;           /* bytes between two elements' names */
};

struct ctx {
	char *err;
	size_t errlen;
	int errnum;              /* 0 until the first error */
	size_t plen;
	char path[PATH_LEN];
	struct rnic_config *cfg;
	struct names port_names, mr_names, cq_names, qp_names;
	/* the elements of the section being read on each port (check_port_limit) */
	uint32_t *n_on;
	/* wait "transmit": WRs (and READ/atomic WRs) each RC QP never completes */
	uint64_t *tx_wrs, *tx_rd;
};

static size_t push_key(struct ctx *c, const char *key)
{
	size_t old = c->plen;
	int n = snprintf(c->path + old, sizeof(c->path) - old, "%s%s", old ? "." : "", key);

	if (n > 0)
		c->plen = RTE_MIN(old + (size_t)n, sizeof(c->path) - 1);
	return old;
}

static size_t push_idx(struct ctx *c, size_t i)
{
	size_t old = c->plen;
	int n = snprintf(c->path + old, sizeof(c->path) - old, "[%zu]", i);

	if (n > 0)
		c->plen = RTE_MIN(old + (size_t)n, sizeof(c->path) - 1);
	return old;
}

static void pop(struct ctx *c, size_t old)
{
	c->plen = old;
	c->path[old] = '\0';
}

/* Record the first error, at the current path. Always returns -1. */
static int __attribute__((format(printf, 2, 3)))
fail(struct ctx *c, const char *fmt, ...)
{
	char msg[MSG_LEN];
	va_list ap;

	if (c->errnum)
		return -1;
	c->errnum = EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->errlen)
		snprintf(c->err, c->errlen, "%s: %s", c->plen ? c->path : "top level", msg);
	return -1;
}

static int fail_nomem(struct ctx *c)
{
	bool first = c->errnum == 0;

	fail(c, "out of memory");
	if (first)
		c->errnum = ENOMEM;
	return -1;
}

/* As fail(), at path @p key below the current one. */
#define fail_at(c, key, ...) ({					\
	size_t _old = push_key((c), (key));				\
	fail((c), __VA_ARGS__);						\
	pop((c), _old);							\
	-1;								\
})

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "object";
	case JSON_ARRAY: return "array";
	case JSON_STRING: return "string";
	case JSON_INTEGER: return "integer";
	case JSON_REAL: return "real";
	case JSON_TRUE:
	case JSON_FALSE: return "boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

/* ------------------------------------------------------------------ */
/* Keys                                                                */
/* ------------------------------------------------------------------ */

/* Edit distance counting a swap of neighbours as one edit (optimal string
 * alignment), so that "pmut" suggests "pmtu". Keys are short. */
static unsigned int edit_distance(const char *a, const char *b)
{
	unsigned int d[32][32], i, j;
	size_t la = strlen(a), lb = strlen(b);

	if (la >= RTE_DIM(d) || lb >= RTE_DIM(d))
		return UINT32_MAX;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			unsigned int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			best = RTE_MIN(best, d[i - 1][j] + 1);
			best = RTE_MIN(best, d[i][j - 1] + 1);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				best = RTE_MIN(best, d[i - 2][j - 2] + 1);
			d[i][j] = best;
		}
	return d[la][lb];
}

/* Every key of @p obj must be in the NULL-terminated list @p keys. */
static int check_keys(struct ctx *c, const json_t *obj, const char *const *keys)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)(uintptr_t)obj, key, v) {
		const char *best = NULL;
		unsigned int best_d = 3;  /* suggest only for 1 or 2 edits */
		const char *const *k;

		for (k = keys; *k; k++) {
			unsigned int d;

			if (strcmp(*k, key) == 0)
				break;
			d = edit_distance(*k, key);
			if (d < best_d) {
				best_d = d;
				best = *k;
			}
		}
		if (*k)
			continue;
		if (best)
			return fail(c, "unknown key \"%s\" (did you mean \"%s\"?)", key, best);
		return fail(c, "unknown key \"%s\"", key);
	}
	return 0;
}

static int need(struct ctx *c, const json_t *obj, const char *key)
{
	if (json_object_get(obj, key))
		return 0;
	return fail(c, "missing required key \"%s\"", key);
}

/* ------------------------------------------------------------------ */
/* Values at the current path                                          */
/* ------------------------------------------------------------------ */

static int val_int(struct ctx *c, const json_t *v, int64_t min, int64_t max, int64_t *out)
{
	int64_t x;

	if (!json_is_integer(v))
		return fail(c, "expected an integer, got %s", type_name(v));
	x = json_integer_value(v);
	if (x < min || x > max) {
		/* PSNs, QPNs and keys read better in hex */
		if (max >= 0xFFFF && max <= UINT32_MAX && (((uint64_t)max + 1) & (uint64_t)max) == 0 &&
		    min <= 2)
			return fail(c, "%" PRId64 " is out of range %" PRId64 "..%" PRId64
				    " (0x%" PRIx64 ")", x, min, max, max);
		return fail(c, "%" PRId64 " is out of range %" PRId64 "..%" PRId64, x, min, max);
	}
	*out = x;
	return 0;
}

static int val_bool(struct ctx *c, const json_t *v, bool *out)
{
	if (!json_is_boolean(v))
		return fail(c, "expected a boolean, got %s", type_name(v));
	*out = json_is_true(v);
	return 0;
}

/* A string of 1..bufsz-1 characters, copied to @p out. */
static int val_str(struct ctx *c, const json_t *v, char *out, size_t bufsz)
{
	size_t len;

	if (!json_is_string(v))
		return fail(c, "expected a string, got %s", type_name(v));
	len = json_string_length(v);
	if (len == 0)
		return fail(c, "must not be empty");
	if (len >= bufsz)
		return fail(c, "\"%.40s...\" is longer than %zu characters", json_string_value(v),
			    bufsz - 1);
	if (strlen(json_string_value(v)) != len)
		return fail(c, "contains a NUL character");
	memcpy(out, json_string_value(v), len + 1);
	return 0;
}

static int val_name(struct ctx *c, const json_t *v, char out[RNIC_CFG_NAME_MAX])
{
	const char *s;

	if (val_str(c, v, out, RNIC_CFG_NAME_MAX) < 0)
		return -1;
	for (s = out; *s; s++) {
		bool ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
			  (s != out && ((*s >= '0' && *s <= '9') || *s == '-'));
		if (!ok)
			return fail(c, "\"%s\" is not a name (letters, digits, '_' and '-', "
				    "starting with a letter or '_')", out);
	}
	return 0;
}

struct sym {
	const char *name;
	int value;
};

static void sym_list(const struct sym *t, bool quote, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (; t->name && n < len; t++)
		n += snprintf(buf + n, len - n, "%s%s%s%s", n ? "," : "", quote ? "\"" : "",
			      t->name, quote ? "\"" : "");
}

static int val_enum(struct ctx *c, const json_t *v, const struct sym *t, int *out)
{
	const struct sym *s;
	char list[200];

	if (!json_is_string(v))
		return fail(c, "expected a string, got %s", type_name(v));
	for (s = t; s->name; s++)
		if (strcmp(s->name, json_string_value(v)) == 0) {
			*out = s->value;
			return 0;
		}
	sym_list(t, true, list, sizeof(list));
	return fail(c, "\"%.40s\" is not one of %s", json_string_value(v), list);
}

/* An array of distinct names from @p t, OR-ed together. */
static int val_flags(struct ctx *c, const json_t *v, const struct sym *t, int *out)
{
	size_t i;
	json_t *e;
	int flags = 0;

	if (!json_is_array(v))
		return fail(c, "expected an array, got %s", type_name(v));
	json_array_foreach((json_t *)(uintptr_t)v, i, e) {
		size_t old = push_idx(c, i);
		int f;

		if (val_enum(c, e, t, &f) < 0)
			return -1;
		if (flags & f)
			return fail(c, "\"%s\" is given twice", json_string_value(e));
		pop(c, old);
		flags |= f;
	}
	*out = flags;
	return 0;
}

/* Strict dotted quad: four decimal octets, no leading zeros. */
static bool parse_ipv4(const char *s, rte_be32_t *out)
{
	uint32_t a = 0;
	int part;

	for (part = 0; part < 4; part++) {
		unsigned int x = 0, digits = 0;
		const char *start;

		if (part && *s++ != '.')
			return false;
		for (start = s; *s >= '0' && *s <= '9' && digits < 4; digits++)
			x = x * 10 + (unsigned int)(*s++ - '0');
		if (digits == 0 || digits > 3 || x > 255 || (digits > 1 && *start == '0'))
			return false;
		a = a << 8 | x;
	}
	if (*s)
		return false;
	*out = rte_cpu_to_be_32(a);
	return true;
}

static int val_ipv4(struct ctx *c, const json_t *v, rte_be32_t *out)
{
	uint32_t a;

	if (!json_is_string(v))
		return fail(c, "expected a string, got %s", type_name(v));
	if (!parse_ipv4(json_string_value(v), out))
		return fail(c, "\"%.40s\" is not an IPv4 address", json_string_value(v));
	a = rte_be_to_cpu_32(*out);
	if (a == 0 || a == UINT32_MAX || (a >> 28) == 0xE)
		return fail(c, "\"%s\" is not a unicast IPv4 address", json_string_value(v));
	return 0;
}

/* A unicast IPv6 address: not ::, not multicast, not IPv4-mapped. */
static int val_ipv6(struct ctx *c, const json_t *v, uint8_t out[16])
{
	static const uint8_t zero[16];

	if (!json_is_string(v))
		return fail(c, "expected a string, got %s", type_name(v));
	if (inet_pton(AF_INET6, json_string_value(v), out) != 1)
		return fail(c, "\"%.60s\" is not an IPv6 address", json_string_value(v));
	if (memcmp(out, zero, 16) == 0 || out[0] == 0xff || rnic_gid_is_ipv4(out))
		return fail(c, "\"%s\" is not a unicast IPv6 address (not ::, multicast or "
			    "IPv4-mapped)", json_string_value(v));
	return 0;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static int val_mac(struct ctx *c, const json_t *v, uint8_t mac[6])
{
	const char *s;
	int i;

	if (!json_is_string(v))
		return fail(c, "expected a string, got %s", type_name(v));
	s = json_string_value(v);
	if (strlen(s) != 17)
		goto bad;
	for (i = 0; i < 6; i++) {
		int hi = hexval(s[3 * i]), lo = hexval(s[3 * i + 1]);

		if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != ':'))
			goto bad;
		mac[i] = (uint8_t)(hi << 4 | lo);
	}
	if (mac[0] & 1)
		return fail(c, "\"%s\" is a multicast MAC address", s);
	if ((mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]) == 0)
		return fail(c, "\"%s\" is the zero MAC address", s);
	return 0;
bad:
	return fail(c, "\"%.40s\" is not a MAC address (xx:xx:xx:xx:xx:xx)", s);
}

/* ------------------------------------------------------------------ */
/* Values at obj[key]: absent keys take the default                    */
/* ------------------------------------------------------------------ */

/* Required: the caller checked presence with need(). */
#define GET_REQ(fn, c, obj, key, ...) ({				\
	size_t _old = push_key((c), (key));				\
	int _r = fn((c), json_object_get((obj), (key)), __VA_ARGS__);	\
	pop((c), _old);							\
	_r;								\
})

/* Optional: obj[key] read by @p fn at its path as GET_REQ does, or @p def
 * where absent. @p out comes last in fn's arguments, after the others. */
#define GET_OPT(fn, c, obj, key, def, out, ...) ({				\
	json_t *_v = json_object_get((obj), (key));				\
	size_t _old;								\
	int _r = 0;								\
										\
	if (!_v) {								\
		*(out) = (def);							\
	} else {								\
		_old = push_key((c), (key));					\
		_r = fn((c), _v, ##__VA_ARGS__, (out));				\
		pop((c), _old);							\
	}									\
	_r;									\
})

static int get_int(struct ctx *c, const json_t *obj, const char *key, int64_t min, int64_t max,
		   int64_t def, int64_t *out)
{
	return GET_OPT(val_int, c, obj, key, def, out, min, max);
}

#define GET_UINT(type)								\
static int get_##type(struct ctx *c, const json_t *obj, const char *key,	\
		      int64_t min, int64_t max, int64_t def, type *out)		\
{										\
	int64_t x;								\
										\
	if (get_int(c, obj, key, min, max, def, &x) < 0)			\
		return -1;							\
	*out = (type)x;								\
	return 0;								\
}
GET_UINT(uint8_t)
GET_UINT(uint16_t)
GET_UINT(uint32_t)
GET_UINT(uint64_t)

static int get_bool(struct ctx *c, const json_t *obj, const char *key, bool def, bool *out)
{
	return GET_OPT(val_bool, c, obj, key, def, out);
}

/* enum: one name of @p t; flags: an array of them (val_enum, val_flags) */
static int get_enum(struct ctx *c, const json_t *obj, const char *key, const struct sym *t,
		    int def, int *out)
{
	return GET_OPT(val_enum, c, obj, key, def, out, t);
}

static int get_flags(struct ctx *c, const json_t *obj, const char *key, const struct sym *t,
		     int def, int *out)
{
	return GET_OPT(val_flags, c, obj, key, def, out, t);
}

/* An array section: absent is empty, otherwise an array of objects. */
static json_t *get_section(struct ctx *c, const json_t *root, const char *key, bool *bad)
{
	json_t *v = json_object_get(root, key);

	*bad = false;
	if (!v)
		return NULL;
	if (!json_is_array(v)) {
		*bad = true;
		fail_at(c, key, "expected an array, got %s", type_name(v));
		return NULL;
	}
	return v;
}

/* @p fn on each element of the array @p a, at path "[i]" below the current
 * one; an element that is not an object is an error. */
static int each_object(struct ctx *c, const json_t *a,
		       int (*fn)(struct ctx *c, const json_t *o, unsigned int i))
{
	size_t i, old;
	json_t *o;

	json_array_foreach((json_t *)(uintptr_t)a, i, o) {
		old = push_idx(c, i);
		if (!json_is_object(o))
			return fail(c, "expected an object, got %s", type_name(o));
		if (fn(c, o, (unsigned int)i) < 0)
			return -1;
		pop(c, old);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Name index: open addressing over the names already in the arrays    */
/* ------------------------------------------------------------------ */

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;  /* FNV-1a */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static int names_init(struct names *h, unsigned int n, const char *base, size_t stride)
{
	uint32_t cap = 16;

	while (cap < 2 * (uint64_t)n)
		cap <<= 1;
	h->slot = malloc(cap * sizeof(*h->slot));
	if (!h->slot)
		return -1;
	memset(h->slot, 0xff, cap * sizeof(*h->slot));
	h->mask = cap - 1;
	h->base = base;
	h->stride = stride;
	return 0;
}

static const char *names_at(const struct names *h, int i)
{
	return h->base + (size_t)i * h->stride;
}

/* @return the index of @p name, or -1. */
static int names_find(const struct names *h, const char *name)
{
	uint32_t i;

	if (!h->slot)
		return -1;
	for (i = name_hash(name) & h->mask; h->slot[i] >= 0; i = (i + 1) & h->mask)
		if (strcmp(names_at(h, h->slot[i]), name) == 0)
			return h->slot[i];
	return -1;
}

/* Add element @p idx. @return -1, or the index that already has the name. */
static int names_add(struct names *h, int idx)
{
	const char *name = names_at(h, idx);
	uint32_t i;

	for (i = name_hash(name) & h->mask; h->slot[i] >= 0; i = (i + 1) & h->mask)
		if (strcmp(names_at(h, h->slot[i]), name) == 0)
			return h->slot[i];
	h->slot[i] = idx;
	return -1;
}

/* Read the required "name" of element @p idx and add it to @p h. */
static int get_unique_name(struct ctx *c, const json_t *obj, struct names *h, int idx,
			   const char *section, char out[RNIC_CFG_NAME_MAX])
{
	int prev;

	if (need(c, obj, "name") < 0 || GET_REQ(val_name, c, obj, "name", out) < 0)
		return -1;
	prev = names_add(h, idx);
	if (prev >= 0)
		return fail_at(c, "name", "\"%s\" is already used by %s[%d]", out, section, prev);
	return 0;
}

/* obj[key] names an element of @p h; @p what is "port", "CQ"... for messages. */
static int get_ref(struct ctx *c, const json_t *obj, const char *key, const struct names *h,
		   const char *what, int *idx)
{
	char name[RNIC_CFG_NAME_MAX];
	size_t old;
	int r = 0;

	if (need(c, obj, key) < 0)
		return -1;
	old = push_key(c, key);
	if (val_name(c, json_object_get(obj, key), name) < 0)
		r = -1;
	else if ((*idx = names_find(h, name)) < 0)
		r = fail(c, "no %s named \"%s\"", what, name);
	pop(c, old);
	return r;
}

/* ------------------------------------------------------------------ */
/* Symbol tables                                                       */
/* ------------------------------------------------------------------ */

static const struct sym mr_access_syms[] = {
	{ "local_write", RNIC_ACCESS_LOCAL_WRITE },
	{ "remote_write", RNIC_ACCESS_REMOTE_WRITE },
	{ "remote_read", RNIC_ACCESS_REMOTE_READ },
	{ "remote_atomic", RNIC_ACCESS_REMOTE_ATOMIC },
	{ NULL, 0 },
};
#define QP_ACCESS_SYMS (mr_access_syms + 1)  /* no local_write on a QP */

static const struct sym role_syms[] = {
	{ "tx", RNIC_ROLE_TX },
	{ "rx", RNIC_ROLE_RX },
	{ "timer", RNIC_ROLE_TIMER },
	{ NULL, 0 },
};

static const struct sym fill_syms[] = {
	{ "zero", RNIC_CFG_FILL_ZERO },
	{ "byte", RNIC_CFG_FILL_BYTE },
	{ "counter", RNIC_CFG_FILL_COUNTER },
	{ "random", RNIC_CFG_FILL_RANDOM },
	{ NULL, 0 },
};

static const struct sym qp_type_syms[] = {
	{ "RC", RNIC_QPT_RC },
	{ "UC", RNIC_QPT_UC },
	{ "UD", RNIC_QPT_UD },
	{ NULL, 0 },
};

static const struct sym wait_syms[] = {
	{ "completion", RNIC_CFG_WAIT_COMPLETION },
	{ "transmit", RNIC_CFG_WAIT_TRANSMIT },
	{ NULL, 0 },
};

static const struct sym qp_state_syms[] = {
	{ "RESET", RNIC_QPS_RESET },
	{ "INIT", RNIC_QPS_INIT },
	{ "RTR", RNIC_QPS_RTR },
	{ "RTS", RNIC_QPS_RTS },
	{ NULL, 0 },
};

/* Which QP types may post each opcode (IBA table 39: UC has no READ or
 * atomics, and SEND with Invalidate is RC only here; UD only SEND). */
#define T_RC (1u << RNIC_QPT_RC)
#define T_UC (1u << RNIC_QPT_UC)
#define T_UD (1u << RNIC_QPT_UD)

static const struct {
	const char *name;
	enum rnic_wr_opcode op;
	unsigned int types;
} opcodes[] = {
	{ "write", RNIC_WR_RDMA_WRITE, T_RC | T_UC },
	{ "write_imm", RNIC_WR_RDMA_WRITE_WITH_IMM, T_RC | T_UC },
	{ "read", RNIC_WR_RDMA_READ, T_RC },
	{ "send", RNIC_WR_SEND, T_RC | T_UC | T_UD },
	{ "send_imm", RNIC_WR_SEND_WITH_IMM, T_RC | T_UC | T_UD },
	{ "send_inv", RNIC_WR_SEND_WITH_INV, T_RC },
	{ "cmp_swap", RNIC_WR_ATOMIC_CMP_AND_SWP, T_RC },
	{ "fetch_add", RNIC_WR_ATOMIC_FETCH_AND_ADD, T_RC },
};

static const char *sym_name(const struct sym *t, int value)
{
	for (; t->name; t++)
		if (t->value == value)
			return t->name;
	return "?";
}

const char *rnic_cfg_opcode_name(enum rnic_wr_opcode op)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(opcodes); i++)
		if (opcodes[i].op == op)
			return opcodes[i].name;
	return "?";
}

const char *rnic_cfg_qp_type_name(enum rnic_qp_type t)
{
	return sym_name(qp_type_syms, t);
}

const char *rnic_cfg_qp_state_name(enum rnic_qp_state s)
{
	return sym_name(qp_state_syms, s);
}

static bool is_atomic(enum rnic_wr_opcode op)
{
	return op == RNIC_WR_ATOMIC_CMP_AND_SWP || op == RNIC_WR_ATOMIC_FETCH_AND_ADD;
}

static bool is_send(enum rnic_wr_opcode op)
{
	return op == RNIC_WR_SEND || op == RNIC_WR_SEND_WITH_IMM || op == RNIC_WR_SEND_WITH_INV;
}

/* ------------------------------------------------------------------ */
/* eal                                                                 */
/* ------------------------------------------------------------------ */

static int parse_eal(struct ctx *c, const json_t *root)
{
	struct rnic_config *cfg = c->cfg;
	json_t *v = json_object_get(root, "eal"), *e;
	size_t i, old;

	if (!v)
		return 0;
	old = push_key(c, "eal");
	if (!json_is_array(v))
		return fail(c, "expected an array, got %s", type_name(v));
	cfg->eal_argv = calloc(json_array_size(v) + 1, sizeof(char *));
	if (!cfg->eal_argv)
		return fail_nomem(c);
	json_array_foreach(v, i, e) {
		size_t o = push_idx(c, i);

		if (!json_is_string(e))
			return fail(c, "expected a string, got %s", type_name(e));
		if (strlen(json_string_value(e)) != json_string_length(e))
			return fail(c, "contains a NUL character");
		/* rte_eal_init takes "" as a non-option argument and fails
		 * with an unrelated errno ("Permission denied"). */
		if (json_string_length(e) == 0)
			return fail(c, "must not be empty");
		cfg->eal_argv[i] = strdup(json_string_value(e));
		if (!cfg->eal_argv[i])
			return fail_nomem(c);
		cfg->eal_argc++;
		pop(c, o);
	}
	pop(c, old);
	return 0;
}

/* ------------------------------------------------------------------ */
/* ports                                                               */
/* ------------------------------------------------------------------ */

static const char *const port_keys[] = {
	"name", "device", "ring_peer", "impair", "mac", "ipv4", "vlan", "max_qps", "max_mrs",
	"max_cqs", "mbufs", "ring_size", "burst", "queues", "workers",
	"max_inflight", "ecn", "cnp_dscp", "cnp_interval_us", "dcqcn", "mtu", "ipv6", NULL
};

/* "ipv6": one address or a list of them, each unique on the port. */
static int port_ipv6(struct ctx *c, const json_t *port, struct rnic_cfg_port *p)
{
	json_t *v = json_object_get(port, "ipv6"), *e;
	size_t old, i;

	p->n_ipv6 = 0;
	if (v == NULL)
		return 0;
	old = push_key(c, "ipv6");
	if (json_is_string(v)) {
		if (val_ipv6(c, v, p->ipv6[0]) < 0)
			return -1;
		p->n_ipv6 = 1;
		pop(c, old);
		return 0;
	}
	if (!json_is_array(v) || json_array_size(v) == 0 ||
	    json_array_size(v) > RNIC_IPV6_MAX)
		return fail(c, "expected an address or a list of 1..%u addresses",
			    RNIC_IPV6_MAX);
	json_array_foreach(v, i, e) {
		size_t o2 = push_idx(c, i);

		if (val_ipv6(c, e, p->ipv6[i]) < 0)
			return -1;
		for (size_t j = 0; j < i; j++)
			if (memcmp(p->ipv6[j], p->ipv6[i], 16) == 0)
				return fail(c, "\"%s\" is given twice", json_string_value(e));
		pop(c, o2);
		p->n_ipv6 = (uint8_t)(i + 1);
	}
	pop(c, old);
	return 0;
}

static const char *const dcqcn_keys[] = {
	"enabled", "line_mbps", "rpg_time_reset", "rpg_byte_reset", "rpg_threshold",
	"rpg_ai_rate", "rpg_hai_rate", "rpg_min_rate", "rpg_min_dec_fac",
	"rate_reduce_monitor_period", "initial_alpha_value", "alpha_period", "dce_tcp_g_shift",
	NULL
};

/* "dcqcn": the reaction point's switch and parameters (NVIDIA's names;
 * times in us, rates in Mb/s), each defaulting to rnic_dcqcn_defaults. */
static int port_dcqcn(struct ctx *c, const json_t *port, struct rnic_cfg_port *p)
{
	json_t *o = json_object_get(port, "dcqcn");
	struct rnic_dcqcn_params *d = &p->dcqcn, def;
	size_t old;

	p->dcqcn_on = true;
	rnic_dcqcn_defaults(&def, 100000);
	*d = def;
	if (!o)
		return 0;
	old = push_key(c, "dcqcn");
	if (!json_is_object(o))
		return fail(c, "expected an object, got %s", type_name(o));
	if (check_keys(c, o, dcqcn_keys) < 0 ||
	    get_bool(c, o, "enabled", true, &p->dcqcn_on) < 0 ||
	    get_uint32_t(c, o, "line_mbps", 1, 1000000, def.line_mbps, &d->line_mbps) < 0 ||
	    get_uint32_t(c, o, "rpg_time_reset", 1, 10000000, def.rpg_time_reset_us,
			 &d->rpg_time_reset_us) < 0 ||
	    get_uint32_t(c, o, "rpg_byte_reset", 1, 1u << 30, def.rpg_byte_reset,
			 &d->rpg_byte_reset) < 0 ||
	    get_uint32_t(c, o, "rpg_threshold", 0, 1000, def.rpg_threshold,
			 &d->rpg_threshold) < 0 ||
	    get_uint32_t(c, o, "rpg_ai_rate", 0, 1000000, def.rpg_ai_rate_mbps,
			 &d->rpg_ai_rate_mbps) < 0 ||
	    get_uint32_t(c, o, "rpg_hai_rate", 0, 1000000, def.rpg_hai_rate_mbps,
			 &d->rpg_hai_rate_mbps) < 0 ||
	    get_uint32_t(c, o, "rpg_min_rate", 1, 1000000, def.rpg_min_rate_mbps,
			 &d->rpg_min_rate_mbps) < 0 ||
	    get_uint32_t(c, o, "rpg_min_dec_fac", 0, 100, def.rpg_min_dec_fac,
			 &d->rpg_min_dec_fac) < 0 ||
	    get_uint32_t(c, o, "rate_reduce_monitor_period", 0, 10000000,
			 def.rate_reduce_monitor_period_us, &d->rate_reduce_monitor_period_us) < 0 ||
	    get_uint32_t(c, o, "initial_alpha_value", 0, 1024, def.initial_alpha_value,
			 &d->initial_alpha_value) < 0 ||
	    get_uint32_t(c, o, "alpha_period", 1, 10000000, def.alpha_period_us,
			 &d->alpha_period_us) < 0 ||
	    get_uint32_t(c, o, "dce_tcp_g_shift", 1, 10, def.dce_tcp_g_shift,
			 &d->dce_tcp_g_shift) < 0)
		return -1;
	if (d->rpg_min_rate_mbps > d->line_mbps)
		return fail_at(c, "rpg_min_rate", "%u exceeds line_mbps %u", d->rpg_min_rate_mbps,
			       d->line_mbps);
	pop(c, old);
	return 0;
}

/* "workers", after max_qps: a worker owns at least one QPN of the port's,
 * and a ring pair has a queue pair per worker. Its lcore table, all -1
 * until lcores[] places a role. */
static int port_workers(struct ctx *c, const json_t *o, struct rnic_cfg_port *p)
{
	uint16_t w;

	if (get_uint16_t(c, o, "workers", 1, RNIC_CFG_WORKERS_MAX, 1, &p->workers) < 0)
		return -1;
	if (p->workers > p->max_qps)
		return fail_at(c, "workers", "%u exceeds max_qps %u (a worker owns at least "
			       "one QP)", p->workers, p->max_qps);
	if (json_object_get(o, "ring_peer") && p->workers > RNIC_CFG_RING_WORKERS_MAX)
		return fail_at(c, "workers", "%u is out of range 1..%u for a ring_peer port (two "
			       "TX queues per worker, a net_ring port has 16)", p->workers,
			       RNIC_CFG_RING_WORKERS_MAX);
	p->worker_lcore = malloc(p->workers * sizeof(*p->worker_lcore));
	if (!p->worker_lcore)
		return fail_nomem(c);
	for (w = 0; w < p->workers; w++)
		for (int r = 0; r < RNIC_CFG_NROLES; r++)
			p->worker_lcore[w][r] = -1;
	return 0;
}

static int parse_port(struct ctx *c, const json_t *o, unsigned int idx)
{
	struct rnic_cfg_port *p = &c->cfg->ports[idx];
	bool dev = json_object_get(o, "device"), peer = json_object_get(o, "ring_peer");
	unsigned int j;

	p->ring_peer_idx = -1;
	if (check_keys(c, o, port_keys) < 0 ||
	    get_unique_name(c, o, &c->port_names, idx, "ports", p->name) < 0)
		return -1;
	if (dev == peer)
		return fail(c, "give exactly one of \"device\" and \"ring_peer\"");
	if (dev && GET_REQ(val_str, c, o, "device", p->device, sizeof(p->device)) < 0)
		return -1;
	if (json_object_get(o, "impair")) {
		if (!peer)
			return fail_at(c, "impair", "only a ring_peer port can be impaired");
		if (GET_REQ(val_str, c, o, "impair", p->impair, sizeof(p->impair) - 32) < 0)
			return -1;
		if (strstr(p->impair, "port=") != NULL)
			return fail_at(c, "impair", "leave out \"port=\": softrnic fills it in");
	}
	/* ring_peer is resolved once every port is known */
	if (json_object_get(o, "mac")) {
		if (GET_REQ(val_mac, c, o, "mac", p->mac) < 0)
			return -1;
		p->has_mac = true;
	}
	if (need(c, o, "ipv4") < 0 || GET_REQ(val_ipv4, c, o, "ipv4", &p->ipv4) < 0 ||
	    port_ipv6(c, o, p) < 0)
		return -1;
	if (get_uint16_t(c, o, "vlan", 1, 4094, 0, &p->vlan) < 0 ||
	    get_uint32_t(c, o, "max_qps", 1, 1 << 20, 1024, &p->max_qps) < 0 ||
	    get_uint32_t(c, o, "max_mrs", 1, 65536, 1024, &p->max_mrs) < 0 ||
	    get_uint32_t(c, o, "max_cqs", 1, 65536, 256, &p->max_cqs) < 0 ||
	    get_uint32_t(c, o, "mbufs", 256, 1 << 24, 16384, &p->mbufs) < 0 ||
	    get_uint32_t(c, o, "ring_size", 64, 1 << 20, 4096, &p->ring_size) < 0 ||
	    get_uint16_t(c, o, "burst", 1, RNIC_MAX_BURST, 32, &p->burst) < 0 ||
	    get_uint8_t(c, o, "queues", 1, 2, 0, &p->queues) < 0 ||
	    get_uint32_t(c, o, "max_inflight", RNIC_INFLIGHT_MIN, RNIC_INFLIGHT_MAX, RNIC_INFLIGHT_DEFAULT,
			 &p->max_inflight) < 0 ||
	    get_bool(c, o, "ecn", true, &p->ecn) < 0 ||
	    get_uint16_t(c, o, "mtu", 256, 4096, 4096, &p->mtu) < 0 ||
	    get_uint8_t(c, o, "cnp_dscp", 0, 63, 48, &p->cnp_dscp) < 0 ||
	    get_uint32_t(c, o, "cnp_interval_us", 1, RNIC_CNP_INTERVAL_US_MAX,
			 RNIC_CNP_INTERVAL_US_DEFAULT, &p->cnp_interval_us) < 0 ||
	    port_workers(c, o, p) < 0 || port_dcqcn(c, o, p) < 0)
		return -1;
	if (p->ring_size & (p->ring_size - 1))
		return fail_at(c, "ring_size", "%u is not a power of two", p->ring_size);
	if (p->mtu & (p->mtu - 1))
		return fail_at(c, "mtu", "%u is not one of 256,512,1024,2048,4096", p->mtu);
	for (j = 0; j < idx && p->device[0]; j++)
		if (strcmp(c->cfg->ports[j].device, p->device) == 0)
			return fail_at(c, "device", "\"%s\" is already used by ports[%u]", p->device,
				       j);
	return 0;
}

/* ring_peer, once every port is known */
static int port_peer(struct ctx *c, const json_t *o, unsigned int i)
{
	if (json_object_get(o, "ring_peer") &&
	    get_ref(c, o, "ring_peer", &c->port_names, "port", &c->cfg->ports[i].ring_peer_idx) < 0)
		return -1;
	return 0;
}

/* Two ports with one address: ARP and the RX address check could not tell
 * them apart, and a peer's frames would reach either. */
static int port_unique_addr(struct ctx *c, const json_t *o, unsigned int i)
{
	const struct rnic_cfg_port *p = &c->cfg->ports[i], *q;
	unsigned int j;

	RTE_SET_USED(o);
	for (j = 0; j < i; j++) {
		q = &c->cfg->ports[j];
		if (p->ipv4 == q->ipv4) {
			char ip[INET_ADDRSTRLEN];

			inet_ntop(AF_INET, &p->ipv4, ip, sizeof(ip));
			return fail_at(c, "ipv4", "%s is already used by ports[%u]", ip, j);
		}
		for (unsigned int a = 0; a < p->n_ipv6; a++)
			for (unsigned int b = 0; b < q->n_ipv6; b++)
				if (memcmp(p->ipv6[a], q->ipv6[b], 16) == 0) {
					char ip[INET6_ADDRSTRLEN];

					inet_ntop(AF_INET6, p->ipv6[a], ip, sizeof(ip));
					return fail_at(c, "ipv6", "%s is already used by ports[%u]",
						       ip, j);
				}
		if (p->has_mac && q->has_mac && memcmp(p->mac, q->mac, 6) == 0)
			return fail_at(c, "mac", "%02x:%02x:%02x:%02x:%02x:%02x is already used by "
				       "ports[%u]", p->mac[0], p->mac[1], p->mac[2], p->mac[3],
				       p->mac[4], p->mac[5], j);
	}
	return 0;
}

/* Both ends of a ring name each other. */
static int port_peer_pair(struct ctx *c, const json_t *o, unsigned int i)
{
	const struct rnic_config *cfg = c->cfg;
	const struct rnic_cfg_port *p = &cfg->ports[i];

	RTE_SET_USED(o);
	if (p->ring_peer_idx == (int)i)
		return fail_at(c, "ring_peer", "a port cannot be its own ring peer");
	if (p->ring_peer_idx >= 0 && cfg->ports[p->ring_peer_idx].ring_peer_idx != (int)i)
		return fail_at(c, "ring_peer", "port \"%s\" does not name \"%s\" as its "
			       "ring_peer", cfg->ports[p->ring_peer_idx].name, p->name);
	/* worker k of one end talks to worker k of the other (a queue pair each) */
	if (p->ring_peer_idx >= 0 && cfg->ports[p->ring_peer_idx].workers != p->workers)
		return fail_at(c, "workers", "%u differs from ring_peer \"%s\" (%u): both ends "
			       "of a ring pair need the same workers", p->workers,
			       cfg->ports[p->ring_peer_idx].name,
			       cfg->ports[p->ring_peer_idx].workers);
	return 0;
}

static int ports_finish(struct ctx *c, const json_t *a)
{
	if (each_object(c, a, port_peer) < 0 || each_object(c, a, port_unique_addr) < 0)
		return -1;
	return each_object(c, a, port_peer_pair);
}

/* ------------------------------------------------------------------ */
/* lcores                                                              */
/* ------------------------------------------------------------------ */

static const char *const lcore_keys[] = { "lcore", "port", "worker", "roles", NULL };

static int parse_roles(struct ctx *c, const json_t *o, unsigned int *roles)
{
	json_t *v = json_object_get(o, "roles");
	size_t old;
	int r = 0, flags = 0;

	if (!v) {
		*roles = RNIC_ROLE_ALL;
		return 0;
	}
	old = push_key(c, "roles");
	if (json_is_string(v) && strcmp(json_string_value(v), "all") == 0)
		flags = RNIC_ROLE_ALL;
	else if (json_is_string(v))
		r = fail(c, "\"%.40s\": expected \"all\" or an array of \"tx\",\"rx\",\"timer\"",
			 json_string_value(v));
	else if (!json_is_array(v))
		r = fail(c, "expected \"all\" or an array, got %s", type_name(v));
	else if (val_flags(c, v, role_syms, &flags) < 0)
		r = -1;
	else if (flags == 0)
		r = fail(c, "no role given");
	pop(c, old);
	*roles = (unsigned int)flags;
	return r;
}

/* "port \"p0\"", with " worker N" where the port has several. */
static const char *port_worker_str(const struct rnic_cfg_port *p, unsigned int w, char *buf,
				   size_t len)
{
	if (p->workers > 1)
		snprintf(buf, len, "port \"%s\" worker %u", p->name, w);
	else
		snprintf(buf, len, "port \"%s\"", p->name);
	return buf;
}

/* "worker" (0): one of the port's workers. */
static int lcore_worker(struct ctx *c, const json_t *o, struct rnic_cfg_lcore *l)
{
	const struct rnic_cfg_port *p = &c->cfg->ports[l->port_idx];
	int64_t w;

	if (get_int(c, o, "worker", INT64_MIN, INT64_MAX, 0, &w) < 0)
		return -1;
	if (w < 0 || w >= p->workers)
		return fail_at(c, "worker", "%" PRId64 " is out of range 0..%u (ports[%d] has %u "
			       "worker%s)", w, p->workers - 1, l->port_idx, p->workers,
			       p->workers > 1 ? "s" : "");
	l->worker = (unsigned int)w;
	return 0;
}

static int parse_lcore(struct ctx *c, const json_t *o, unsigned int i)
{
	struct rnic_cfg_lcore *l = &c->cfg->lcores[i];
	struct rnic_cfg_port *port;
	char who[RNIC_CFG_NAME_MAX + 32];
	int64_t id;
	int role;

	if (check_keys(c, o, lcore_keys) < 0 || need(c, o, "lcore") < 0 ||
	    get_int(c, o, "lcore", 1, 127, 0, &id) < 0 ||
	    get_ref(c, o, "port", &c->port_names, "port", &l->port_idx) < 0 ||
	    lcore_worker(c, o, l) < 0 || parse_roles(c, o, &l->roles) < 0)
		return -1;
	l->lcore = (int)id;
	port = &c->cfg->ports[l->port_idx];
	for (role = 0; role < RNIC_CFG_NROLES; role++) {
		int *at = &port->worker_lcore[l->worker][role];

		if (!(l->roles & (1u << role)))
			continue;
		if (*at >= 0)
			return fail_at(c, "roles", "%s role \"%s\" is already on lcore %d",
				       port_worker_str(port, l->worker, who, sizeof(who)),
				       role_syms[role].name, *at);
		*at = l->lcore;
	}
	return 0;
}

/* A port named in lcores[] must have every role of every worker placed. */
static int lcores_finish(struct ctx *c, const json_t *a)
{
	const struct rnic_config *cfg = c->cfg;
	char who[RNIC_CFG_NAME_MAX + 32];
	unsigned int p, w;
	int role;

	RTE_SET_USED(a);
	for (p = 0; p < cfg->n_ports; p++) {
		const struct rnic_cfg_port *port = &cfg->ports[p];
		int missing = -1, placed = 0;
		unsigned int missing_w = 0;

		for (w = 0; w < port->workers; w++) {
			for (role = 0; role < RNIC_CFG_NROLES; role++) {
				if (port->worker_lcore[w][role] >= 0) {
					placed++;
				} else if (missing < 0) {
					missing = role;
					missing_w = w;
				}
			}
		}
		if (placed && missing >= 0)
			return fail(c, "%s has no lcore for role \"%s\"",
				    port_worker_str(port, missing_w, who, sizeof(who)),
				    role_syms[missing].name);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* cqs, mrs                                                            */
/* ------------------------------------------------------------------ */

/* Count the object against its port's limit @p max (c->n_on). */
static int check_port_limit(struct ctx *c, int port_idx, uint32_t max, const char *what,
			    const char *limit_key)
{
	const struct rnic_cfg_port *p = &c->cfg->ports[port_idx];

	if (++c->n_on[port_idx] > max)
		return fail_at(c, "port", "port \"%s\" has room for %u %s (%s)", p->name, max,
			       what, limit_key);
	return 0;
}

static const char *const cq_keys[] = { "name", "port", "depth", NULL };

static int parse_cq(struct ctx *c, const json_t *o, unsigned int i)
{
	struct rnic_cfg_cq *q = &c->cfg->cqs[i];

	if (check_keys(c, o, cq_keys) < 0 ||
	    get_unique_name(c, o, &c->cq_names, i, "cqs", q->name) < 0 ||
	    get_ref(c, o, "port", &c->port_names, "port", &q->port_idx) < 0 ||
	    check_port_limit(c, q->port_idx, c->cfg->ports[q->port_idx].max_cqs, "CQs",
			     "max_cqs") < 0 ||
	    get_uint32_t(c, o, "depth", 1, 1 << 22, 1024, &q->depth) < 0)
		return -1;
	return 0;
}

static const char *const mr_keys[] = { "name", "port", "size", "access", "fill", NULL };
static const char *const fill_keys[] = { "pattern", "value", "seed", NULL };

static int parse_fill(struct ctx *c, const json_t *o, struct rnic_cfg_mr *m)
{
	json_t *f = json_object_get(o, "fill");
	size_t old;
	int pattern;

	m->fill = RNIC_CFG_FILL_ZERO;
	m->fill_seed = 1;
	if (!f)
		return 0;
	old = push_key(c, "fill");
	if (!json_is_object(f))
		return fail(c, "expected an object, got %s", type_name(f));
	if (check_keys(c, f, fill_keys) < 0 ||
	    get_enum(c, f, "pattern", fill_syms, RNIC_CFG_FILL_ZERO, &pattern) < 0)
		return -1;
	m->fill = pattern;
	/* A value the pattern ignores is a mistake worth reporting. */
	if (json_object_get(f, "value") && m->fill != RNIC_CFG_FILL_BYTE)
		return fail_at(c, "value", "only used with pattern \"byte\"");
	if (json_object_get(f, "seed") && m->fill != RNIC_CFG_FILL_RANDOM)
		return fail_at(c, "seed", "only used with pattern \"random\"");
	if (get_uint8_t(c, f, "value", 0, 255, 0, &m->fill_value) < 0 ||
	    get_uint64_t(c, f, "seed", 0, INT64_MAX, 1, &m->fill_seed) < 0)
		return -1;
	pop(c, old);
	return 0;
}

static int parse_mr(struct ctx *c, const json_t *o, unsigned int i)
{
	struct rnic_cfg_mr *m = &c->cfg->mrs[i];

	if (check_keys(c, o, mr_keys) < 0 ||
	    get_unique_name(c, o, &c->mr_names, i, "mrs", m->name) < 0 ||
	    get_ref(c, o, "port", &c->port_names, "port", &m->port_idx) < 0 ||
	    check_port_limit(c, m->port_idx, c->cfg->ports[m->port_idx].max_mrs, "MRs",
			     "max_mrs") < 0 ||
	    need(c, o, "size") < 0 ||
	    get_uint64_t(c, o, "size", 1, INT64_C(1) << 34, 0, &m->size) < 0 ||
	    get_flags(c, o, "access", mr_access_syms, RNIC_ACCESS_LOCAL_WRITE, &m->access) < 0 ||
	    parse_fill(c, o, m) < 0)
		return -1;
	/* IBA 10.6.3.1 (C10-56): remote write and atomic need local write */
	if ((m->access & (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_ATOMIC)) &&
	    !(m->access & RNIC_ACCESS_LOCAL_WRITE))
		return fail_at(c, "access", "\"%s\" requires \"local_write\"",
			       (m->access & RNIC_ACCESS_REMOTE_WRITE) ? "remote_write" :
			       "remote_atomic");
	return 0;
}

/* ------------------------------------------------------------------ */
/* qps                                                                 */
/* ------------------------------------------------------------------ */

static const char *const qp_keys[] = {
	"name", "port", "type", "qpn", "send_cq", "recv_cq", "max_send_wr", "max_recv_wr",
	"max_send_sge", "max_recv_sge", "max_inline", "remote", "sq_psn", "rq_psn", "pmtu",
	"timeout", "retry_cnt", "rnr_retry", "min_rnr_timer", "max_rd_atomic",
	"max_dest_rd_atomic", "access", "pkey", "qkey", "state", "sl", "dscp", "gid_index", "ecn",
	"selective_repeat", NULL
};
static const char *const remote_keys[] = { "qp", "mac", "ipv4", "ipv6", "qpn", "cm_port", NULL };

#define PSN_MAX 0xFFFFFF
#define QPN_MAX 0xFFFFFF

static int get_cq(struct ctx *c, const json_t *o, const char *key, const struct rnic_cfg_qp *q,
		  int *idx)
{
	const struct rnic_cfg_cq *cq;

	if (get_ref(c, o, key, &c->cq_names, "CQ", idx) < 0)
		return -1;
	cq = &c->cfg->cqs[*idx];
	if (cq->port_idx != q->port_idx)
		return fail_at(c, key, "CQ \"%s\" is on port \"%s\", not \"%s\"", cq->name,
			       c->cfg->ports[cq->port_idx].name, c->cfg->ports[q->port_idx].name);
	return 0;
}

static int get_qpn(struct ctx *c, const json_t *o, uint32_t *qpn)
{
	json_t *v = json_object_get(o, "qpn");
	size_t old;
	int64_t x;
	int r = 0;

	*qpn = 0;
	if (!v)
		return 0;
	old = push_key(c, "qpn");
	if (json_is_string(v)) {
		if (strcmp(json_string_value(v), "auto") != 0)
			r = fail(c, "\"%.40s\" is not an integer or \"auto\"", json_string_value(v));
	} else if (!json_is_integer(v)) {
		r = fail(c, "expected an integer or \"auto\", got %s", type_name(v));
	} else if (val_int(c, v, 2, QPN_MAX, &x) == 0) {
		*qpn = (uint32_t)x;
	} else {
		r = -1;
	}
	pop(c, old);
	return r;
}

static int parse_qp(struct ctx *c, const json_t *o, unsigned int idx)
{
	struct rnic_cfg_qp *q = &c->cfg->qps[idx];
	int64_t mtu;
	int v;

	if (check_keys(c, o, qp_keys) < 0 ||
	    get_unique_name(c, o, &c->qp_names, idx, "qps", q->name) < 0 ||
	    get_ref(c, o, "port", &c->port_names, "port", &q->port_idx) < 0 ||
	    check_port_limit(c, q->port_idx, c->cfg->ports[q->port_idx].max_qps, "QPs",
			     "max_qps") < 0 ||
	    need(c, o, "type") < 0 || get_enum(c, o, "type", qp_type_syms, 0, &v) < 0)
		return -1;
	q->type = v;
	if (get_qpn(c, o, &q->qpn) < 0 ||
	    get_cq(c, o, "send_cq", q, &q->send_cq_idx) < 0 ||
	    get_cq(c, o, "recv_cq", q, &q->recv_cq_idx) < 0 ||
	    get_uint32_t(c, o, "max_send_wr", 1, 65536, 256, &q->cap.max_send_wr) < 0 ||
	    get_uint32_t(c, o, "max_recv_wr", 1, 65536, 256, &q->cap.max_recv_wr) < 0 ||
	    get_uint32_t(c, o, "max_send_sge", 1, 32, 4, &q->cap.max_send_sge) < 0 ||
	    get_uint32_t(c, o, "max_recv_sge", 1, 32, 4, &q->cap.max_recv_sge) < 0 ||
	    get_uint32_t(c, o, "max_inline", 0, 1024, 64, &q->cap.max_inline_data) < 0 ||
	    get_uint32_t(c, o, "sq_psn", 0, PSN_MAX, 0, &q->sq_psn) < 0 ||
	    get_uint32_t(c, o, "rq_psn", 0, PSN_MAX, 0, &q->rq_psn) < 0 ||
	    get_uint8_t(c, o, "timeout", 0, 31, 14, &q->timeout) < 0 ||
	    get_uint8_t(c, o, "retry_cnt", 0, 7, 7, &q->retry_cnt) < 0 ||
	    get_uint8_t(c, o, "rnr_retry", 0, 7, 7, &q->rnr_retry) < 0 ||
	    get_uint8_t(c, o, "min_rnr_timer", 0, 31, 12, &q->min_rnr_timer) < 0 ||
	    get_uint8_t(c, o, "max_rd_atomic", 0, RNIC_MAX_RD_ATOMIC, 16, &q->max_rd_atomic) < 0 ||
	    get_uint8_t(c, o, "max_dest_rd_atomic", 0, RNIC_MAX_RD_ATOMIC, 16, &q->max_dest_rd_atomic) < 0 ||
	    get_flags(c, o, "access", QP_ACCESS_SYMS, RNIC_ACCESS_REMOTE_WRITE |
		      RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC, &q->access) < 0 ||
	    get_uint16_t(c, o, "pkey", 0, 0xFFFF, 0xFFFF, &q->pkey) < 0 ||
	    get_uint32_t(c, o, "qkey", 0, UINT32_MAX, 0x11111111, &q->qkey) < 0 ||
	    get_uint8_t(c, o, "sl", 0, 7, 0, &q->sl) < 0 ||
	    get_uint8_t(c, o, "dscp", 0, 63, 0, &q->dscp) < 0 ||
	    get_uint8_t(c, o, "gid_index", 0, RNIC_GID_TBL_LEN - 1, 0, &q->gid_index) < 0 ||
	    get_enum(c, o, "state", qp_state_syms, RNIC_QPS_RTS, &v) < 0)
		return -1;
	q->ecn = -1;
	if (json_object_get(o, "ecn")) {
		bool ecn;

		if (get_bool(c, o, "ecn", true, &ecn) < 0)
			return -1;
		q->ecn = ecn;
	}
	if (get_bool(c, o, "selective_repeat", false, &q->sr) < 0)
		return -1;
	if (q->sr && q->type != RNIC_QPT_RC)
		return fail_at(c, "selective_repeat", "RC only (QP \"%s\" is %s)", q->name,
			       rnic_cfg_qp_type_name(q->type));
	if (q->gid_index > c->cfg->ports[q->port_idx].n_ipv6)
		return fail_at(c, "gid_index", "%u: port \"%s\" has %u GIDs (ipv4, then %u ipv6)",
			       q->gid_index, c->cfg->ports[q->port_idx].name,
			       c->cfg->ports[q->port_idx].n_ipv6 + 1u,
			       c->cfg->ports[q->port_idx].n_ipv6);
	q->state = v;
	/* pmtu is a number with a fixed set of values */
	if (get_int(c, o, "pmtu", INT64_MIN, INT64_MAX, 1024, &mtu) < 0)
		return -1;
	for (v = RNIC_MTU_256; v <= RNIC_MTU_4096 && rnic_mtu_bytes(v) != mtu; v++)
		;
	if (v > RNIC_MTU_4096)
		return fail_at(c, "pmtu", "%" PRId64 " is not one of 256,512,1024,2048,4096", mtu);
	q->pmtu = v;
	return 0;
}

/* Second pass: remote (may name a later QP) and the rq_psn default. */
static int parse_remote(struct ctx *c, const json_t *o, unsigned int idx)
{
	struct rnic_config *cfg = c->cfg;
	struct rnic_cfg_qp *q = &cfg->qps[idx];
	struct rnic_cfg_remote *rm = &q->remote;
	const struct rnic_cfg_port *port = &cfg->ports[q->port_idx];
	json_t *r = json_object_get(o, "remote");
	size_t old;
	int64_t x;

	rm->qp_idx = -1;
	if (!r) {
		/* A connected QP needs its peer from RTR on (IBA table 91). */
		if (q->type != RNIC_QPT_UD && q->state >= RNIC_QPS_RTR)
			return fail(c, "missing required key \"remote\" (a %s QP in state %s "
				    "needs a peer)", rnic_cfg_qp_type_name(q->type),
				    rnic_cfg_qp_state_name(q->state));
		return 0;
	}
	old = push_key(c, "remote");
	if (!json_is_object(r))
		return fail(c, "expected an object, got %s", type_name(r));
	if (check_keys(c, r, remote_keys) < 0)
		return -1;
	q->has_remote = true;
	if (json_object_get(r, "qp")) {
		const struct rnic_cfg_qp *peer;
		const struct rnic_cfg_port *pport;

		if (json_object_get(r, "mac") || json_object_get(r, "ipv4") ||
		    json_object_get(r, "ipv6") || json_object_get(r, "qpn"))
			return fail(c, "give either \"qp\" or \"mac\", \"ipv4\" (or \"ipv6\") "
				    "and \"qpn\", not both");
		if (get_ref(c, r, "qp", &c->qp_names, "QP", &rm->qp_idx) < 0)
			return -1;
		peer = &cfg->qps[rm->qp_idx];
		pport = &cfg->ports[peer->port_idx];
		if (peer->type != q->type)
			return fail_at(c, "qp", "QP \"%s\" is %s, not %s", peer->name,
				       rnic_cfg_qp_type_name(peer->type),
				       rnic_cfg_qp_type_name(q->type));
		/* An in-process ring reaches only the port at its other end. */
		if (port->ring_peer_idx >= 0 && peer->port_idx != port->ring_peer_idx)
			return fail_at(c, "qp", "QP \"%s\" is on port \"%s\", which the ring of "
				       "port \"%s\" does not reach (it joins \"%s\")", peer->name,
				       pport->name, port->name,
				       cfg->ports[port->ring_peer_idx].name);
		rm->has_mac = pport->has_mac;
		memcpy(rm->mac, pport->mac, sizeof(rm->mac));
		rm->ipv4 = pport->ipv4;
		/* The peer sends from its gid_index: the same family as ours. */
		if ((peer->gid_index > 0) != (q->gid_index > 0))
			return fail_at(c, "qp", "QP \"%s\" has gid_index %u (%s), this QP %u (%s)",
				       peer->name, peer->gid_index,
				       peer->gid_index ? "IPv6" : "IPv4", q->gid_index,
				       q->gid_index ? "IPv6" : "IPv4");
		if (peer->gid_index > 0) {
			rm->ipv6 = true;
			memcpy(rm->ipv6_addr, pport->ipv6[peer->gid_index - 1], 16);
		}
		rm->qpn = peer->qpn;
		if (get_uint16_t(c, r, "cm_port", 1, 65535, 0, &rm->cm_port) < 0)
			return -1;
		if (rm->cm_port && q->sr)
			return fail_at(c, "cm_port", "QP \"%s\" has selective_repeat, which the "
				       "CM does not negotiate: configure the pair directly", q->name);
		if (rm->cm_port && (q->type != RNIC_QPT_RC || q->state != RNIC_QPS_RTS ||
				    peer->state != RNIC_QPS_RTS))
			return fail_at(c, "cm_port", "only an RC pair brought to RTS is connected "
				       "by the CM (\"%s\" %s %s, \"%s\" %s)", q->name,
				       rnic_cfg_qp_type_name(q->type),
				       rnic_cfg_qp_state_name(q->state), peer->name,
				       rnic_cfg_qp_state_name(peer->state));
		/* The second of the two QPs parsed checks the pair. */
		if ((int)idx > rm->qp_idx && q->sr != peer->sr && peer->remote.qp_idx == (int)idx) {
			pop(c, old);   /* the QP's key, not remote's */
			return fail_at(c, "selective_repeat", "%s here, %s on its remote QP "
				       "\"%s\": both ends or neither", q->sr ? "true" : "false",
				       peer->sr ? "true" : "false", peer->name);
		}
		if ((int)idx > rm->qp_idx && (rm->cm_port || peer->remote.cm_port)) {
			if (rm->cm_port && peer->remote.cm_port)
				return fail_at(c, "cm_port", "QP \"%s\" names cm_port too: one end "
					       "connects, the other listens", peer->name);
			if (peer->remote.qp_idx != (int)idx)
				return fail_at(c, "qp", "QP \"%s\" is connected by the CM: its remote "
					       "must be this QP", peer->name);
		}
		/* Loopback: start expecting what the peer will send first. */
		if (!json_object_get(o, "rq_psn"))
			q->rq_psn = peer->sq_psn;
	} else {
		bool v6 = q->gid_index > 0;

		if (json_object_get(r, "cm_port"))
			return fail_at(c, "cm_port", "the CM connects QPs of this configuration: give "
				       "\"qp\"");
		if (json_object_get(r, v6 ? "ipv4" : "ipv6"))
			return fail_at(c, v6 ? "ipv4" : "ipv6", "gid_index %u sends from an %s "
				       "address: give \"%s\"", q->gid_index, v6 ? "IPv6" : "IPv4",
				       v6 ? "ipv6" : "ipv4");
		if (need(c, r, "mac") < 0 || need(c, r, v6 ? "ipv6" : "ipv4") < 0 ||
		    need(c, r, "qpn") < 0 ||
		    GET_REQ(val_mac, c, r, "mac", rm->mac) < 0 ||
		    (v6 ? GET_REQ(val_ipv6, c, r, "ipv6", rm->ipv6_addr) :
			  GET_REQ(val_ipv4, c, r, "ipv4", &rm->ipv4)) < 0 ||
		    get_int(c, r, "qpn", 2, QPN_MAX, 0, &x) < 0)
			return -1;
		rm->ipv6 = v6;
		rm->has_mac = true;
		rm->qpn = (uint32_t)x;
	}
	pop(c, old);
	return 0;
}

struct qpn_ent {
	uint32_t port, qpn, idx;
};

static int qpn_cmp(const void *a, const void *b)
{
	const struct qpn_ent *x = a, *y = b;

	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	if (x->qpn != y->qpn)
		return x->qpn < y->qpn ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Fixed QPNs must be unique per port: sort, then look at neighbours. */
static int check_qpns(struct ctx *c)
{
	struct rnic_config *cfg = c->cfg;
	struct qpn_ent *e = malloc((cfg->n_qps + 1) * sizeof(*e));
	unsigned int i, g, n = 0, bad = UINT32_MAX, first = 0;
	size_t old;

	if (!e)
		return fail_nomem(c);
	for (i = 0; i < cfg->n_qps; i++)
		if (cfg->qps[i].qpn)
			e[n++] = (struct qpn_ent){ cfg->qps[i].port_idx, cfg->qps[i].qpn, i };
	qsort(e, n, sizeof(*e), qpn_cmp);
	/* In a group of equal QPNs the second QP in file order is the one at
	 * fault; report the group whose culprit comes first in the file. */
	for (g = 0; g < n; g = i) {
		for (i = g + 1; i < n && e[i].port == e[g].port && e[i].qpn == e[g].qpn; i++)
			;
		if (i - g > 1 && e[g + 1].idx < bad) {
			bad = e[g + 1].idx;
			first = e[g].idx;
		}
	}
	free(e);
	if (bad == UINT32_MAX)
		return 0;
	old = push_idx(c, bad);
	fail_at(c, "qpn", "%u is already used by qps[%u] on port \"%s\"", cfg->qps[bad].qpn,
		first, cfg->ports[cfg->qps[bad].port_idx].name);
	pop(c, old);
	return -1;
}

static int qps_finish(struct ctx *c, const json_t *a)
{
	if (each_object(c, a, parse_remote) < 0)
		return -1;
	return check_qpns(c);
}

/* ------------------------------------------------------------------ */
/* workload                                                            */
/* ------------------------------------------------------------------ */

static const char *const work_keys[] = {
	"qp", "opcode", "sizes", "size", "count", "duration_ms", "signaled_every",
	"local_mr", "remote_mr", "inline", "verify", "depth", "wait", NULL
};

#define MSG_MAX (INT64_C(1) << 31)  /* IBA: 2^31 bytes per message */

/* w->sizes: the one size @p x. */
static int one_size(struct ctx *c, struct rnic_cfg_work *w, uint32_t x)
{
	w->sizes = malloc(sizeof(*w->sizes));
	if (!w->sizes)
		return fail_nomem(c);
	w->sizes[0] = x;
	w->n_sizes = 1;
	return 0;
}

static int parse_sizes(struct ctx *c, const json_t *o, struct rnic_cfg_work *w)
{
	json_t *sizes = json_object_get(o, "sizes"), *size = json_object_get(o, "size"), *e;
	bool atomic = is_atomic(w->opcode);
	size_t i, old;
	int64_t x;

	if (sizes && size)
		return fail(c, "give \"sizes\" or \"size\", not both");
	if (!sizes && !size) {
		if (!atomic)
			return fail(c, "missing required key \"sizes\" (or \"size\")");
		return one_size(c, w, 8);  /* atomics move 8 bytes (IBA 9.4.5) */
	}
	if (size) {
		old = push_key(c, "size");
		if (val_int(c, size, 0, MSG_MAX, &x) < 0)
			return -1;
		if (atomic && x != 8)
			return fail(c, "atomics are 8 bytes, got %" PRId64, x);
		if (one_size(c, w, (uint32_t)x) < 0)
			return -1;
		pop(c, old);
		return 0;
	}
	old = push_key(c, "sizes");
	if (!json_is_array(sizes))
		return fail(c, "expected an array, got %s", type_name(sizes));
	if (json_array_size(sizes) == 0)
		return fail(c, "at least one size is required");
	w->sizes = malloc(json_array_size(sizes) * sizeof(*w->sizes));
	if (!w->sizes)
		return fail_nomem(c);
	json_array_foreach(sizes, i, e) {
		size_t o2 = push_idx(c, i);

		if (val_int(c, e, 0, MSG_MAX, &x) < 0)
			return -1;
		if (atomic && x != 8)
			return fail(c, "atomics are 8 bytes, got %" PRId64, x);
		w->sizes[w->n_sizes++] = (uint32_t)x;
		pop(c, o2);
	}
	pop(c, old);
	return 0;
}

/* The MR that @p key names must hold the largest message of @p w and
 * allow it @p need access. */
static int check_mr(struct ctx *c, const char *key, const struct rnic_cfg_mr *mr,
		    const struct rnic_cfg_work *w, uint32_t max_size, int need)
{
	if (max_size > mr->size)
		return fail_at(c, key, "MR \"%s\" (%" PRIu64 " bytes) is smaller than the "
			       "largest message (%u)", mr->name, mr->size, max_size);
	if ((mr->access & need) != need)
		return fail_at(c, key, "MR \"%s\" needs \"%s\" access for %s", mr->name,
			       sym_name(mr_access_syms, need), rnic_cfg_opcode_name(w->opcode));
	return 0;
}

/* The local MR must hold the largest message, and take READ and atomic
 * results: else the WRs fail locally and nothing is sent. */
static int check_local_mr(struct ctx *c, const struct rnic_cfg_work *w, uint32_t max_size)
{
	return check_mr(c, "local_mr", &c->cfg->mrs[w->local_mr_idx], w, max_size,
			(w->opcode == RNIC_WR_RDMA_READ || is_atomic(w->opcode)) ?
			RNIC_ACCESS_LOCAL_WRITE : 0);
}

/*
 * wait "transmit" on RC: nothing acknowledges the WRs, so none completes.
 * Every WR the QP is given keeps its send queue slot, and every READ or
 * atomic keeps one of max_rd_atomic: the engine would stop sending at
 * either limit. Counted over the QP's entries in file order.
 */
static int check_transmit_budget(struct ctx *c, const struct rnic_cfg_work *w)
{
	const struct rnic_cfg_qp *q = &c->cfg->qps[w->qp_idx];
	uint64_t n = w->count * w->n_sizes;

	if (q->type != RNIC_QPT_RC)
		return 0;   /* UC and UD complete on transmit */
	c->tx_wrs[w->qp_idx] += n;
	if (w->opcode == RNIC_WR_RDMA_READ || is_atomic(w->opcode))
		c->tx_rd[w->qp_idx] += n;
	if (c->tx_wrs[w->qp_idx] > q->cap.max_send_wr)
		return fail_at(c, "count", "RC QP \"%s\" would hold %" PRIu64 " WRs that never "
			       "complete (no peer acknowledges them with \"wait\": \"transmit\"); "
			       "its max_send_wr is %u", q->name, c->tx_wrs[w->qp_idx],
			       q->cap.max_send_wr);
	if (c->tx_rd[w->qp_idx] > q->max_rd_atomic)
		return fail_at(c, "count", "RC QP \"%s\" would have %" PRIu64 " READ/atomic WRs "
			       "outstanding with no peer to answer them; its max_rd_atomic is %u",
			       q->name, c->tx_rd[w->qp_idx], q->max_rd_atomic);
	return 0;
}

/* Checks that only matter when the workload expects success. */
static int check_verifiable(struct ctx *c, const struct rnic_cfg_work *w, uint32_t max_size)
{
	const struct rnic_config *cfg = c->cfg;
	const struct rnic_cfg_qp *q = &cfg->qps[w->qp_idx];
	const struct rnic_cfg_mr *rmr = w->remote_mr_idx >= 0 ? &cfg->mrs[w->remote_mr_idx] : NULL;
	const struct rnic_cfg_qp *peer = q->remote.qp_idx >= 0 ? &cfg->qps[q->remote.qp_idx] : NULL;
	int need_rmr = 0, need_qp = 0;

	switch (w->opcode) {
	case RNIC_WR_RDMA_WRITE:
	case RNIC_WR_RDMA_WRITE_WITH_IMM:
		need_rmr = need_qp = RNIC_ACCESS_REMOTE_WRITE;
		break;
	case RNIC_WR_RDMA_READ:
		need_rmr = need_qp = RNIC_ACCESS_REMOTE_READ;
		break;
	case RNIC_WR_ATOMIC_CMP_AND_SWP:
	case RNIC_WR_ATOMIC_FETCH_AND_ADD:
		need_rmr = need_qp = RNIC_ACCESS_REMOTE_ATOMIC;
		break;
	default:  /* sends land in the receiver's posted buffers */
		need_rmr = RNIC_ACCESS_LOCAL_WRITE;
		break;
	}
	if (check_local_mr(c, w, max_size) < 0 ||
	    (rmr && check_mr(c, "remote_mr", rmr, w, max_size, need_rmr) < 0))
		return -1;
	if (peer && (peer->access & need_qp) != need_qp)
		return fail_at(c, "qp", "the remote QP \"%s\" does not allow \"%s\"", peer->name,
			       sym_name(mr_access_syms, need_qp));
	if (need_qp & (RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC)) {
		if (q->max_rd_atomic == 0)
			return fail_at(c, "qp", "QP \"%s\" has max_rd_atomic 0", q->name);
		if (peer && peer->max_dest_rd_atomic == 0)
			return fail_at(c, "qp", "the remote QP \"%s\" has max_dest_rd_atomic 0",
				       peer->name);
	}
	return 0;
}

static int parse_work(struct ctx *c, const json_t *o, unsigned int idx)
{
	const struct rnic_config *cfg = c->cfg;
	struct rnic_cfg_work *w = &c->cfg->work[idx];
	const struct rnic_cfg_qp *q, *peer;
	uint32_t max_size = 0;
	unsigned int i;
	json_t *v;
	int op = -1, v_wait;

	w->remote_mr_idx = -1;
	if (check_keys(c, o, work_keys) < 0 ||
	    get_ref(c, o, "qp", &c->qp_names, "QP", &w->qp_idx) < 0 ||
	    need(c, o, "opcode") < 0)
		return -1;
	q = &cfg->qps[w->qp_idx];
	peer = q->remote.qp_idx >= 0 ? &cfg->qps[q->remote.qp_idx] : NULL;
	v = json_object_get(o, "opcode");
	if (json_is_string(v))
		for (i = 0; i < RTE_DIM(opcodes); i++)
			if (strcmp(opcodes[i].name, json_string_value(v)) == 0)
				op = (int)i;
	if (op < 0)
		return fail_at(c, "opcode", json_is_string(v) ?
			       "\"%.40s\" is not one of \"write\",\"write_imm\",\"read\",\"send\","
			       "\"send_imm\",\"send_inv\",\"cmp_swap\",\"fetch_add\"" :
			       "expected a string, got %s",
			       json_is_string(v) ? json_string_value(v) : type_name(v));
	if (!(opcodes[op].types & (1u << q->type)))
		return fail_at(c, "opcode", "\"%s\" is not allowed on %s QP \"%s\"",
			       opcodes[op].name, rnic_cfg_qp_type_name(q->type), q->name);
	w->opcode = opcodes[op].op;
	if (q->state != RNIC_QPS_RTS)
		return fail_at(c, "qp", "QP \"%s\" is in state %s; posting sends needs RTS",
			       q->name, rnic_cfg_qp_state_name(q->state));
	if (!q->has_remote)
		return fail_at(c, "qp", "QP \"%s\" has no \"remote\" to send to", q->name);
	if (peer && peer->state < RNIC_QPS_RTR)
		return fail_at(c, "qp", "the remote QP \"%s\" is in state %s; it must be RTR or "
			       "RTS to receive", peer->name, rnic_cfg_qp_state_name(peer->state));
	if (parse_sizes(c, o, w) < 0)
		return -1;
	for (i = 0; i < w->n_sizes; i++)
		max_size = RTE_MAX(max_size, w->sizes[i]);
	/* A UD message is one packet (IBA 9.8.3.1) */
	if (q->type == RNIC_QPT_UD && max_size > rnic_mtu_bytes(q->pmtu))
		return fail_at(c, json_object_get(o, "sizes") ? "sizes" : "size",
			       "%u exceeds the UD QP's pmtu (%u)", max_size,
			       rnic_mtu_bytes(q->pmtu));
	if (json_object_get(o, "count") && json_object_get(o, "duration_ms"))
		return fail(c, "give \"count\" or \"duration_ms\", not both");
	if (get_uint64_t(c, o, "count", 1, INT64_C(1) << 32, 1, &w->count) < 0 ||
	    get_uint32_t(c, o, "duration_ms", 1, 86400000, 0, &w->duration_ms) < 0 ||
	    get_uint32_t(c, o, "signaled_every", 1, 65536, 1, &w->signaled_every) < 0 ||
	    get_bool(c, o, "inline", false, &w->inline_data) < 0 ||
	    get_bool(c, o, "verify", true, &w->verify) < 0 ||
	    get_uint32_t(c, o, "depth", 1, 65536, 16, &w->depth) < 0 ||
	    get_enum(c, o, "wait", wait_syms, RNIC_CFG_WAIT_COMPLETION, &v_wait) < 0)
		return -1;
	w->wait = v_wait;
	if (w->wait == RNIC_CFG_WAIT_TRANSMIT) {
		/* The peer is outside this process and may not exist at all. */
		if (w->verify)
			return fail_at(c, "wait", "\"transmit\" cannot verify anything: set "
				       "\"verify\": false");
		if (peer)
			return fail_at(c, "wait", "\"transmit\" is for a peer outside this process, "
				       "but QP \"%s\" has remote.qp \"%s\" (use \"completion\")",
				       q->name, peer->name);
		if (w->duration_ms)
			return fail_at(c, "wait", "\"transmit\" needs \"count\", not "
				       "\"duration_ms\"");
	}
	if (w->duration_ms)
		w->count = 0;
	if (w->depth > q->cap.max_send_wr)
		return fail_at(c, "depth", "%u exceeds max_send_wr %u of QP \"%s\"", w->depth,
			       q->cap.max_send_wr, q->name);
	if (w->signaled_every > w->depth)
		return fail_at(c, "signaled_every", "%u exceeds depth %u: the send queue would "
			       "fill with no completion to drain it", w->signaled_every, w->depth);
	if (w->inline_data && (w->opcode == RNIC_WR_RDMA_READ || is_atomic(w->opcode)))
		return fail_at(c, "inline", "not allowed with %s", opcodes[op].name);
	if (w->inline_data && max_size > q->cap.max_inline_data)
		return fail_at(c, "inline", "message size %u exceeds max_inline %u of QP \"%s\"",
			       max_size, q->cap.max_inline_data, q->name);

	if (get_ref(c, o, "local_mr", &c->mr_names, "MR", &w->local_mr_idx) < 0)
		return -1;
	if (cfg->mrs[w->local_mr_idx].port_idx != q->port_idx)
		return fail_at(c, "local_mr", "MR \"%s\" is on port \"%s\", not on the QP's port "
			       "\"%s\"", cfg->mrs[w->local_mr_idx].name,
			       cfg->ports[cfg->mrs[w->local_mr_idx].port_idx].name,
			       cfg->ports[q->port_idx].name);
	if (json_object_get(o, "remote_mr")) {
		if (get_ref(c, o, "remote_mr", &c->mr_names, "MR", &w->remote_mr_idx) < 0)
			return -1;
		if (peer && cfg->mrs[w->remote_mr_idx].port_idx != peer->port_idx)
			return fail_at(c, "remote_mr", "MR \"%s\" is on port \"%s\", not on the "
				       "remote QP's port \"%s\"", cfg->mrs[w->remote_mr_idx].name,
				       cfg->ports[cfg->mrs[w->remote_mr_idx].port_idx].name,
				       cfg->ports[peer->port_idx].name);
	} else if (!is_send(w->opcode)) {
		return fail(c, "missing required key \"remote_mr\" (%s needs a target)",
			    opcodes[op].name);
	} else if (w->verify) {
		return fail(c, "missing required key \"remote_mr\" (verifying a send needs the "
			    "receiver's buffer; or set \"verify\": false)");
	}
	if (w->wait == RNIC_CFG_WAIT_TRANSMIT)
		return check_local_mr(c, w, max_size) < 0 ? -1 : check_transmit_budget(c, w);
	return w->verify ? check_verifiable(c, w, max_size) : 0;
}

/* ------------------------------------------------------------------ */
/* The array sections                                                  */
/* ------------------------------------------------------------------ */

enum section_id { SEC_PORTS, SEC_LCORES, SEC_CQS, SEC_MRS, SEC_QPS, SEC_WORK };

/* A name index of struct ctx, for a section of named elements: each
 * element's name is its first member, so the index's names start at the
 * array itself, one element apart. */
#define NAMES(field) offsetof(struct ctx, field)
_Static_assert(offsetof(struct rnic_cfg_port, name) == 0 &&
	       offsetof(struct rnic_cfg_cq, name) == 0 &&
	       offsetof(struct rnic_cfg_mr, name) == 0 &&
	       offsetof(struct rnic_cfg_qp, name) == 0, "a named element starts with its name");

/*
 * An array section of objects: its array in the configuration, of one
 * zeroed element more than the JSON has (element 0 always exists), each
 * element read by @c elem at "<key>[i]", then @c finish (where set) at
 * "<key>" for what spans elements.
 */
static const struct section {
	enum section_id id;
	const char *key;
	size_t elem_size;
	/* named elements (the name first in each): their index in struct ctx */
	size_t names_off;
	/* elements count against a per-port limit (c->n_on) */
	bool per_port;
	int (*elem)(struct ctx *c, const json_t *o, unsigned int i);
	int (*finish)(struct ctx *c, const json_t *a);
} sections[] = {   /* in the order they are read: each may name the ones before */
	{ SEC_PORTS, "ports", sizeof(struct rnic_cfg_port), NAMES(port_names), false, parse_port,
	  ports_finish },
	{ SEC_LCORES, "lcores", sizeof(struct rnic_cfg_lcore), 0, false, parse_lcore,
	  lcores_finish },
	{ SEC_CQS, "cqs", sizeof(struct rnic_cfg_cq), NAMES(cq_names), true, parse_cq, NULL },
	{ SEC_MRS, "mrs", sizeof(struct rnic_cfg_mr), NAMES(mr_names), true, parse_mr, NULL },
	{ SEC_QPS, "qps", sizeof(struct rnic_cfg_qp), NAMES(qp_names), true, parse_qp, qps_finish },
	{ SEC_WORK, "workload", sizeof(struct rnic_cfg_work), 0, false, parse_work, NULL },
};

/* Keep the new array @p arr of @p n elements of section @p id in the
 * configuration, with what else the section needs. */
static int attach(struct ctx *c, enum section_id id, void *arr, unsigned int n)
{
	struct rnic_config *cfg = c->cfg;

	switch (id) {
	case SEC_PORTS: cfg->ports = arr; cfg->n_ports = n; break;
	case SEC_LCORES: cfg->lcores = arr; cfg->n_lcores = n; break;
	case SEC_CQS: cfg->cqs = arr; cfg->n_cqs = n; break;
	case SEC_MRS: cfg->mrs = arr; cfg->n_mrs = n; break;
	case SEC_QPS: cfg->qps = arr; cfg->n_qps = n; break;
	case SEC_WORK:
		cfg->work = arr;
		cfg->n_work = n;
		c->tx_wrs = calloc(cfg->n_qps + 1, sizeof(*c->tx_wrs));
		c->tx_rd = calloc(cfg->n_qps + 1, sizeof(*c->tx_rd));
		return c->tx_wrs && c->tx_rd ? 0 : -1;
	}
	return 0;
}

static int parse_section(struct ctx *c, const json_t *root, const struct section *s)
{
	unsigned int n;
	size_t old;
	json_t *a;
	bool bad;
	char *arr;

	/* ports: required, and not empty */
	if (s->id == SEC_PORTS && need(c, root, s->key) < 0)
		return -1;
	a = get_section(c, root, s->key, &bad);
	if (!a)
		return bad ? -1 : 0;
	old = push_key(c, s->key);
	n = json_array_size(a);
	if (s->id == SEC_PORTS && n == 0)
		return fail(c, "at least one port is required");
	arr = calloc(n + 1, s->elem_size);
	if (s->per_port) {
		free(c->n_on);
		c->n_on = calloc(c->cfg->n_ports, sizeof(*c->n_on));
	}
	if (!arr || (s->per_port && !c->n_on) ||
	    (s->names_off && names_init((struct names *)((char *)c + s->names_off), n, arr,
					s->elem_size) < 0)) {
		free(arr);
		return fail_nomem(c);
	}
	if (attach(c, s->id, arr, n) < 0)
		return fail_nomem(c);
	if (each_object(c, a, s->elem) < 0 || (s->finish && s->finish(c, a) < 0))
		return -1;
	pop(c, old);
	return 0;
}

static int parse_sections(struct ctx *c, const json_t *root)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(sections); i++)
		if (parse_section(c, root, &sections[i]) < 0)
			return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* options, top level                                                  */
/* ------------------------------------------------------------------ */

static const char *const option_keys[] = {
	"stats_interval_ms", "exit_when_done", "timeout_s", NULL
};

static int parse_options(struct ctx *c, const json_t *root)
{
	struct rnic_cfg_options *opt = &c->cfg->options;
	json_t *o = json_object_get(root, "options");
	size_t old;

	opt->stats_interval_ms = 1000;
	opt->exit_when_done = true;
	opt->timeout_s = 60;
	if (!o)
		return 0;
	old = push_key(c, "options");
	if (!json_is_object(o))
		return fail(c, "expected an object, got %s", type_name(o));
	/* "pcap" was read and never acted on: refused, with where a capture
	 * comes from instead, rather than silently ignored. */
	if (json_object_get(o, "pcap"))
		return fail_at(c, "pcap", "not supported: capture with a net_pcap port "
			       "(config/transmit-pcap.json) or with dpdk-dumpcap "
			       "(config/capture.json)");
	if (check_keys(c, o, option_keys) < 0 ||
	    get_uint32_t(c, o, "stats_interval_ms", 0, 3600000, 1000,
			 &opt->stats_interval_ms) < 0 ||
	    get_bool(c, o, "exit_when_done", true, &opt->exit_when_done) < 0 ||
	    get_uint32_t(c, o, "timeout_s", 0, 86400, 60, &opt->timeout_s) < 0)
		return -1;
	pop(c, old);
	return 0;
}

/* ------------------------------------------------------------------ */
/* soak, top level                                                     */
/* ------------------------------------------------------------------ */

static const char *const soak_keys[] = {
	"qp", "baseline_qp", "messages", "max_size", "depth", "seed", "timeout_s", NULL
};

/* An RC requester in RTS whose responder is a QP of this configuration. */
static int soak_qp(struct ctx *c, const json_t *o, const char *key, uint32_t depth, int *idx)
{
	const struct rnic_cfg_qp *q, *peer;

	if (get_ref(c, o, key, &c->qp_names, "QP", idx) < 0)
		return -1;
	q = &c->cfg->qps[*idx];
	if (q->type != RNIC_QPT_RC)
		return fail_at(c, key, "\"%s\" is not an RC QP", q->name);
	if (q->state != RNIC_QPS_RTS || !q->has_remote || q->remote.qp_idx < 0)
		return fail_at(c, key, "\"%s\" must be in RTS with remote.qp naming its peer",
			       q->name);
	peer = &c->cfg->qps[q->remote.qp_idx];
	if (depth > q->cap.max_send_wr || depth > peer->cap.max_recv_wr)
		return fail_at(c, "depth", "%u exceeds max_send_wr of \"%s\" or max_recv_wr of "
			       "\"%s\"", depth, q->name, peer->name);
	if (q->max_rd_atomic == 0 || peer->max_dest_rd_atomic == 0 ||
	    (peer->access & (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
			     RNIC_ACCESS_REMOTE_ATOMIC)) != (RNIC_ACCESS_REMOTE_WRITE |
			     RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC))
		return fail_at(c, key, "\"%s\" needs READ/atomic credits and its peer remote "
			       "write, read and atomic access", q->name);
	return 0;
}

static int parse_soak(struct ctx *c, const json_t *root)
{
	struct rnic_cfg_soak *sk = &c->cfg->soak;
	json_t *o = json_object_get(root, "soak");
	size_t old;

	if (!o)
		return 0;
	old = push_key(c, "soak");
	if (!json_is_object(o))
		return fail(c, "expected an object, got %s", type_name(o));
	if (check_keys(c, o, soak_keys) < 0 ||
	    get_uint64_t(c, o, "messages", 1, 1000000000, 10000, &sk->messages) < 0 ||
	    get_uint32_t(c, o, "max_size", 8, 16384, 4096, &sk->max_size) < 0 ||
	    get_uint32_t(c, o, "depth", 1, 256, 16, &sk->depth) < 0 ||
	    get_uint64_t(c, o, "seed", 1, INT64_MAX, 1, &sk->seed) < 0 ||
	    get_uint32_t(c, o, "timeout_s", 1, 86400, 300, &sk->timeout_s) < 0 ||
	    soak_qp(c, o, "qp", sk->depth, &sk->qp_idx) < 0 ||
	    soak_qp(c, o, "baseline_qp", sk->depth, &sk->baseline_qp_idx) < 0)
		return -1;
	if (sk->qp_idx == sk->baseline_qp_idx)
		return fail_at(c, "baseline_qp", "must be another QP than \"qp\"");
	sk->present = true;
	pop(c, old);
	return 0;
}

/* ------------------------------------------------------------------ */
/* attach, top level                                                   */
/* ------------------------------------------------------------------ */

static const char *const attach_keys[] = {
	"socket", "max_apps", "app", "stop_timeout_ms", NULL
};
static const char *const attach_app_keys[] = {
	"max_pds", "max_mrs", "max_mr_bytes", "max_cqs", "max_cqe", "max_qps", "max_ahs", NULL
};

static int parse_attach(struct ctx *c, const json_t *root)
{
	struct rnic_cfg_attach *at = &c->cfg->attach;
	json_t *o = json_object_get(root, "attach"), *app;
	size_t old, old2;

	if (!o)
		return 0;
	old = push_key(c, "attach");
	if (!json_is_object(o))
		return fail(c, "expected an object, got %s", type_name(o));
	if (check_keys(c, o, attach_keys) < 0 || need(c, o, "socket") < 0 ||
	    GET_REQ(val_str, c, o, "socket", at->socket, sizeof(at->socket)) < 0 ||
	    get_uint32_t(c, o, "max_apps", 1, 1024, 16, &at->max_apps) < 0 ||
	    get_uint32_t(c, o, "stop_timeout_ms", 0, 60000, 2000, &at->stop_timeout_ms) < 0)
		return -1;
	if (at->socket[0] != '/')
		return fail_at(c, "socket", "\"%s\" is not an absolute path", at->socket);
	if (c->cfg->n_ports == 0)
		return fail(c, "needs ports to serve");
	app = json_object_get(o, "app");
	if (app) {
		old2 = push_key(c, "app");
		if (!json_is_object(app))
			return fail(c, "expected an object, got %s", type_name(app));
		if (check_keys(c, app, attach_app_keys) < 0 ||
		    get_uint32_t(c, app, "max_pds", 1, 1024, 16, &at->max_pds) < 0 ||
		    get_uint32_t(c, app, "max_mrs", 1, 65536, 256, &at->max_mrs) < 0 ||
		    get_uint64_t(c, app, "max_mr_bytes", 4096, INT64_MAX, 1ll << 30,
				 &at->max_mr_bytes) < 0 ||
		    get_uint32_t(c, app, "max_cqs", 1, 4096, 64, &at->max_cqs) < 0 ||
		    get_uint32_t(c, app, "max_cqe", 1, RNIC_MAX_CQE, 65536, &at->max_cqe) < 0 ||
		    get_uint32_t(c, app, "max_qps", 1, 65536, 256, &at->max_qps) < 0 ||
		    get_uint32_t(c, app, "max_ahs", 1, 65536, 256, &at->max_ahs) < 0)
			return -1;
		pop(c, old2);
	} else {
		at->max_pds = 16;
		at->max_mrs = 256;
		at->max_mr_bytes = 1ull << 30;
		at->max_cqs = 64;
		at->max_cqe = 65536;
		at->max_qps = 256;
		at->max_ahs = 256;
	}
	at->present = true;
	pop(c, old);
	return 0;
}

static const char *const top_keys[] = {
	"eal", "ports", "lcores", "mrs", "cqs", "qps", "workload", "options", "soak", "attach",
	NULL
};

/* One line, whatever the document held: JSON strings and keys echoed in a
 * message (and jansson's own text) may contain control characters. */
static void one_line(char *err, size_t errlen)
{
	for (char *e = err; errlen && *e; e++)
		if ((unsigned char)*e < 0x20 || *e == 0x7f)
			*e = '?';
}

static struct rnic_config *load(const char *text, size_t len, char *err, size_t errlen)
{
	struct ctx c = { .err = err, .errlen = errlen };
	json_error_t je;
	json_t *root;
	size_t i;

	if (errlen)
		err[0] = '\0';
	for (i = 0; i < len && text[i] && strchr(" \t\r\n", text[i]); i++)
		;
	if (i == len) {
		if (errlen)
			snprintf(err, errlen, "empty configuration: expected a JSON object");
		errno = EINVAL;
		return NULL;
	}
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
	if (!root) {
		if (errlen)
			snprintf(err, errlen, "invalid JSON at line %d, column %d: %s", je.line,
				 je.column, je.text);
		one_line(err, errlen);
		errno = json_error_code(&je) == json_error_out_of_memory ? ENOMEM : EINVAL;
		return NULL;
	}
	c.cfg = calloc(1, sizeof(*c.cfg));
	if (!c.cfg)
		fail_nomem(&c);
	else if (!json_is_object(root))
		fail(&c, "expected an object, got %s", type_name(root));
	else if (check_keys(&c, root, top_keys) == 0 && parse_eal(&c, root) == 0 &&
		 parse_sections(&c, root) == 0 && parse_options(&c, root) == 0 &&
		 parse_soak(&c, root) == 0)
		parse_attach(&c, root);
	json_decref(root);
	free(c.port_names.slot);
	free(c.mr_names.slot);
	free(c.cq_names.slot);
	free(c.qp_names.slot);
	free(c.n_on);
	free(c.tx_wrs);
	free(c.tx_rd);
	if (c.errnum) {
		one_line(err, errlen);
		rnic_config_free(c.cfg);
		errno = c.errnum;
		return NULL;
	}
	return c.cfg;
}

struct rnic_config *rnic_config_load_string(const char *json, char *err, size_t errlen)
{
	return load(json, strlen(json), err, errlen);
}

struct rnic_config *rnic_config_load_file(const char *path, char *err, size_t errlen)
{
	struct rnic_config *cfg = NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f = fopen(path, "rb");
	struct stat st;
	int e;

	if (!f)
		goto io_err;
	/* A configuration is a regular file of at most RNIC_CFG_FILE_MAX
	 * bytes: never read /dev/zero or a FIFO forever, nor a directory. */
	if (fstat(fileno(f), &st) != 0)
		goto io_err;
	if (!S_ISREG(st.st_mode)) {
		if (errlen)
			snprintf(err, errlen, "%s: not a regular file (%s)", path,
				 S_ISDIR(st.st_mode) ? "a directory" :
				 S_ISCHR(st.st_mode) ? "a character device" :
				 S_ISFIFO(st.st_mode) ? "a FIFO" : "not a file");
		fclose(f);
		errno = EINVAL;
		return NULL;
	}
	if (st.st_size > RNIC_CFG_FILE_MAX) {
		if (errlen)
			snprintf(err, errlen, "%s: %lld bytes, over the %u-byte limit of a "
				 "configuration file", path, (long long)st.st_size,
				 RNIC_CFG_FILE_MAX);
		fclose(f);
		errno = EFBIG;
		return NULL;
	}
	do {
		if (len > RNIC_CFG_FILE_MAX) {   /* grew while read */
			errno = EFBIG;
			goto io_err;
		}
		if (len == cap) {
			char *nb = realloc(buf, cap = cap ? 2 * cap : 65536);

			if (!nb) {
				errno = ENOMEM;
				goto io_err;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		errno = EIO;
		goto io_err;
	}
	fclose(f);
	cfg = load(buf, len, err, errlen);
	e = errno;
	free(buf);
	errno = e;
	return cfg;
io_err:
	e = errno;
	if (errlen)
		snprintf(err, errlen, "%s: %s", path, strerror(e));
	if (f)
		fclose(f);
	free(buf);
	errno = e;
	return NULL;
}

void rnic_config_free(struct rnic_config *cfg)
{
	unsigned int i;

	if (!cfg)
		return;
	if (cfg->eal_argv)
		for (i = 0; cfg->eal_argv[i]; i++)
			free(cfg->eal_argv[i]);
	free(cfg->eal_argv);
	for (i = 0; cfg->work && i < cfg->n_work; i++)
		free(cfg->work[i].sizes);
	free(cfg->work);
	for (i = 0; cfg->ports && i < cfg->n_ports; i++)
		free(cfg->ports[i].worker_lcore);
	free(cfg->ports);
	free(cfg->lcores);
	free(cfg->mrs);
	free(cfg->cqs);
	free(cfg->qps);
	free(cfg);
}

/* ------------------------------------------------------------------ */
/* Dump: the configuration back as JSON, defaults included             */
/* ------------------------------------------------------------------ */

static json_t *flags_json(int flags, const struct sym *t)
{
	json_t *a = json_array();

	for (; t->name; t++)
		if (flags & t->value)
			json_array_append_new(a, json_string(t->name));
	return a;
}

static json_t *ipv4_json(rte_be32_t ip)
{
	char s[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &ip, s, sizeof(s));
	return json_string(s);
}

static json_t *ipv6_json(const uint8_t ip[16])
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, ip, s, sizeof(s));
	return json_string(s);
}

static json_t *mac_json(const uint8_t m[6])
{
	char s[18];

	snprintf(s, sizeof(s), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	return json_string(s);
}

#define SET(o, k, v) json_object_set_new((o), (k), (v))

static json_t *dump_port(const struct rnic_config *cfg, const struct rnic_cfg_port *p)
{
	json_t *o = json_object();

	SET(o, "name", json_string(p->name));
	if (p->ring_peer_idx >= 0)
		SET(o, "ring_peer", json_string(cfg->ports[p->ring_peer_idx].name));
	else
		SET(o, "device", json_string(p->device));
	if (p->has_mac)
		SET(o, "mac", mac_json(p->mac));
	SET(o, "ipv4", ipv4_json(p->ipv4));
	if (p->n_ipv6) {
		json_t *a = json_array();

		for (unsigned int k = 0; k < p->n_ipv6; k++)
			json_array_append_new(a, ipv6_json(p->ipv6[k]));
		SET(o, "ipv6", a);
	}
	if (p->vlan)
		SET(o, "vlan", json_integer(p->vlan));
	SET(o, "max_qps", json_integer(p->max_qps));
	SET(o, "max_mrs", json_integer(p->max_mrs));
	SET(o, "max_cqs", json_integer(p->max_cqs));
	SET(o, "mbufs", json_integer(p->mbufs));
	SET(o, "ring_size", json_integer(p->ring_size));
	SET(o, "burst", json_integer(p->burst));
	SET(o, "max_inflight", json_integer(p->max_inflight));
	SET(o, "mtu", json_integer(p->mtu));
	SET(o, "ecn", json_boolean(p->ecn));
	SET(o, "cnp_dscp", json_integer(p->cnp_dscp));
	SET(o, "cnp_interval_us", json_integer(p->cnp_interval_us));
	SET(o, "dcqcn", json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
		"enabled", p->dcqcn_on, "line_mbps", (json_int_t)p->dcqcn.line_mbps,
		"rpg_time_reset", (json_int_t)p->dcqcn.rpg_time_reset_us,
		"rpg_byte_reset", (json_int_t)p->dcqcn.rpg_byte_reset,
		"rpg_threshold", (json_int_t)p->dcqcn.rpg_threshold,
		"rpg_ai_rate", (json_int_t)p->dcqcn.rpg_ai_rate_mbps,
		"rpg_hai_rate", (json_int_t)p->dcqcn.rpg_hai_rate_mbps,
		"rpg_min_rate", (json_int_t)p->dcqcn.rpg_min_rate_mbps,
		"rpg_min_dec_fac", (json_int_t)p->dcqcn.rpg_min_dec_fac,
		"rate_reduce_monitor_period", (json_int_t)p->dcqcn.rate_reduce_monitor_period_us,
		"initial_alpha_value", (json_int_t)p->dcqcn.initial_alpha_value,
		"alpha_period", (json_int_t)p->dcqcn.alpha_period_us,
		"dce_tcp_g_shift", (json_int_t)p->dcqcn.dce_tcp_g_shift));
	if (p->queues)
		SET(o, "queues", json_integer(p->queues));
	if (p->impair[0])
		SET(o, "impair", json_string(p->impair));
	SET(o, "workers", json_integer(p->workers));
	return o;
}

static json_t *dump_qp(const struct rnic_config *cfg, const struct rnic_cfg_qp *q)
{
	json_t *o = json_object();

	SET(o, "name", json_string(q->name));
	SET(o, "port", json_string(cfg->ports[q->port_idx].name));
	SET(o, "type", json_string(rnic_cfg_qp_type_name(q->type)));
	SET(o, "qpn", q->qpn ? json_integer(q->qpn) : json_string("auto"));
	SET(o, "send_cq", json_string(cfg->cqs[q->send_cq_idx].name));
	SET(o, "recv_cq", json_string(cfg->cqs[q->recv_cq_idx].name));
	SET(o, "max_send_wr", json_integer(q->cap.max_send_wr));
	SET(o, "max_recv_wr", json_integer(q->cap.max_recv_wr));
	SET(o, "max_send_sge", json_integer(q->cap.max_send_sge));
	SET(o, "max_recv_sge", json_integer(q->cap.max_recv_sge));
	SET(o, "max_inline", json_integer(q->cap.max_inline_data));
	if (q->has_remote) {
		json_t *r = json_object();

		if (q->remote.qp_idx >= 0) {
			SET(r, "qp", json_string(cfg->qps[q->remote.qp_idx].name));
			if (q->remote.cm_port)
				SET(r, "cm_port", json_integer(q->remote.cm_port));
		} else {
			SET(r, "mac", mac_json(q->remote.mac));
			if (q->remote.ipv6)
				SET(r, "ipv6", ipv6_json(q->remote.ipv6_addr));
			else
				SET(r, "ipv4", ipv4_json(q->remote.ipv4));
			SET(r, "qpn", json_integer(q->remote.qpn));
		}
		SET(o, "remote", r);
	}
	SET(o, "sq_psn", json_integer(q->sq_psn));
	SET(o, "rq_psn", json_integer(q->rq_psn));
	SET(o, "pmtu", json_integer(rnic_mtu_bytes(q->pmtu)));
	SET(o, "timeout", json_integer(q->timeout));
	SET(o, "retry_cnt", json_integer(q->retry_cnt));
	SET(o, "rnr_retry", json_integer(q->rnr_retry));
	SET(o, "min_rnr_timer", json_integer(q->min_rnr_timer));
	SET(o, "max_rd_atomic", json_integer(q->max_rd_atomic));
	SET(o, "max_dest_rd_atomic", json_integer(q->max_dest_rd_atomic));
	SET(o, "access", flags_json(q->access, QP_ACCESS_SYMS));
	SET(o, "pkey", json_integer(q->pkey));
	SET(o, "qkey", json_integer(q->qkey));
	SET(o, "state", json_string(rnic_cfg_qp_state_name(q->state)));
	SET(o, "sl", json_integer(q->sl));
	SET(o, "dscp", json_integer(q->dscp));
	SET(o, "gid_index", json_integer(q->gid_index));
	if (q->ecn >= 0)
		SET(o, "ecn", json_boolean(q->ecn));
	if (q->sr)
		SET(o, "selective_repeat", json_true());
	return o;
}

static json_t *dump_work(const struct rnic_config *cfg, const struct rnic_cfg_work *w)
{
	json_t *o = json_object(), *s = json_array();
	unsigned int i;

	SET(o, "qp", json_string(cfg->qps[w->qp_idx].name));
	SET(o, "opcode", json_string(rnic_cfg_opcode_name(w->opcode)));
	for (i = 0; i < w->n_sizes; i++)
		json_array_append_new(s, json_integer(w->sizes[i]));
	SET(o, "sizes", s);
	if (w->duration_ms)
		SET(o, "duration_ms", json_integer(w->duration_ms));
	else
		SET(o, "count", json_integer((json_int_t)w->count));
	SET(o, "signaled_every", json_integer(w->signaled_every));
	SET(o, "local_mr", json_string(cfg->mrs[w->local_mr_idx].name));
	if (w->remote_mr_idx >= 0)
		SET(o, "remote_mr", json_string(cfg->mrs[w->remote_mr_idx].name));
	SET(o, "inline", json_boolean(w->inline_data));
	SET(o, "verify", json_boolean(w->verify));
	SET(o, "depth", json_integer(w->depth));
	SET(o, "wait", json_string(sym_name(wait_syms, w->wait)));
	return o;
}

int rnic_config_dump(FILE *f, const struct rnic_config *cfg)
{
	json_t *root = json_object(), *a, *o;
	unsigned int i;
	int r;

	if (!root)
		return -ENOMEM;
	a = json_array();
	for (i = 0; i < cfg->eal_argc; i++)
		json_array_append_new(a, json_string(cfg->eal_argv[i]));
	SET(root, "eal", a);
	a = json_array();
	for (i = 0; i < cfg->n_ports; i++)
		json_array_append_new(a, dump_port(cfg, &cfg->ports[i]));
	SET(root, "ports", a);
	a = json_array();
	for (i = 0; i < cfg->n_lcores; i++) {
		o = json_object();
		SET(o, "lcore", json_integer(cfg->lcores[i].lcore));
		SET(o, "port", json_string(cfg->ports[cfg->lcores[i].port_idx].name));
		SET(o, "worker", json_integer(cfg->lcores[i].worker));
		SET(o, "roles", flags_json((int)cfg->lcores[i].roles, role_syms));
		json_array_append_new(a, o);
	}
	SET(root, "lcores", a);
	a = json_array();
	for (i = 0; i < cfg->n_mrs; i++) {
		const struct rnic_cfg_mr *m = &cfg->mrs[i];
		json_t *fill = json_object();

		o = json_object();
		SET(o, "name", json_string(m->name));
		SET(o, "port", json_string(cfg->ports[m->port_idx].name));
		SET(o, "size", json_integer((json_int_t)m->size));
		SET(o, "access", flags_json(m->access, mr_access_syms));
		SET(fill, "pattern", json_string(sym_name(fill_syms, m->fill)));
		if (m->fill == RNIC_CFG_FILL_BYTE)
			SET(fill, "value", json_integer(m->fill_value));
		if (m->fill == RNIC_CFG_FILL_RANDOM)
			SET(fill, "seed", json_integer((json_int_t)m->fill_seed));
		SET(o, "fill", fill);
		json_array_append_new(a, o);
	}
	SET(root, "mrs", a);
	a = json_array();
	for (i = 0; i < cfg->n_cqs; i++) {
		o = json_object();
		SET(o, "name", json_string(cfg->cqs[i].name));
		SET(o, "port", json_string(cfg->ports[cfg->cqs[i].port_idx].name));
		SET(o, "depth", json_integer(cfg->cqs[i].depth));
		json_array_append_new(a, o);
	}
	SET(root, "cqs", a);
	a = json_array();
	for (i = 0; i < cfg->n_qps; i++)
		json_array_append_new(a, dump_qp(cfg, &cfg->qps[i]));
	SET(root, "qps", a);
	a = json_array();
	for (i = 0; i < cfg->n_work; i++)
		json_array_append_new(a, dump_work(cfg, &cfg->work[i]));
	SET(root, "workload", a);
	o = json_object();
	SET(o, "stats_interval_ms", json_integer(cfg->options.stats_interval_ms));
	SET(o, "exit_when_done", json_boolean(cfg->options.exit_when_done));
	SET(o, "timeout_s", json_integer(cfg->options.timeout_s));
	SET(root, "options", o);
	if (cfg->attach.present) {
		const struct rnic_cfg_attach *at = &cfg->attach;
		json_t *app = json_object();

		o = json_object();
		SET(o, "socket", json_string(at->socket));
		SET(o, "max_apps", json_integer(at->max_apps));
		SET(o, "stop_timeout_ms", json_integer(at->stop_timeout_ms));
		SET(app, "max_pds", json_integer(at->max_pds));
		SET(app, "max_mrs", json_integer(at->max_mrs));
		SET(app, "max_mr_bytes", json_integer((json_int_t)at->max_mr_bytes));
		SET(app, "max_cqs", json_integer(at->max_cqs));
		SET(app, "max_cqe", json_integer(at->max_cqe));
		SET(app, "max_qps", json_integer(at->max_qps));
		SET(app, "max_ahs", json_integer(at->max_ahs));
		SET(o, "app", app);
		SET(root, "attach", o);
	}

	r = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 &&
	    fputc('\n', f) != EOF ? 0 : -EIO;
	json_decref(root);
	return r;
}
