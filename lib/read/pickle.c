/* pickle.c: the pickle machine for what torch.save writes.
 *
 * One pass over the bytes, as Python's Unpickler: a value stack, a stack of
 * mark positions (as CPython, a mark is a fence: nothing below it may be
 * popped until the mark itself goes) and a memo.  Every object lives in the
 * arena; lists and dicts are shared by reference through the memo, so they
 * grow in place (items/values/cap) and APPENDS after BINGET edits the one
 * object.  The opcode table below names every opcode of protocols 0-5, so an
 * opcode we do not run still gets its name in the error message.
 *
 * Limits keep hostile input cheap: every length is checked against the bytes
 * left, memo keys go through a hash map (any 32-bit key, no dense array),
 * and a pickle may make at most MAX_OBJECTS objects and stack entries. */
#include "read/read.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* X(name, byte): every opcode of pickle protocols 0-5 (Lib/pickle.py). */
#define PICKLE_OPS(X) \
	X(MARK, '(') X(STOP, '.') X(POP, '0') X(POP_MARK, '1') X(DUP, '2') \
	X(FLOAT, 'F') X(INT, 'I') X(BININT, 'J') X(BININT1, 'K') X(LONG, 'L') \
	X(BININT2, 'M') X(NONE, 'N') X(PERSID, 'P') X(BINPERSID, 'Q') \
	X(REDUCE, 'R') X(STRING, 'S') X(BINSTRING, 'T') X(SHORT_BINSTRING, 'U') \
	X(UNICODE, 'V') X(BINUNICODE, 'X') X(APPEND, 'a') X(BUILD, 'b') \
	X(GLOBAL, 'c') X(DICT, 'd') X(EMPTY_DICT, '}') X(APPENDS, 'e') \
	X(GET, 'g') X(BINGET, 'h') X(INST, 'i') X(LONG_BINGET, 'j') X(LIST, 'l') \
	X(EMPTY_LIST, ']') X(OBJ, 'o') X(PUT, 'p') X(BINPUT, 'q') \
	X(LONG_BINPUT, 'r') X(SETITEM, 's') X(TUPLE, 't') X(EMPTY_TUPLE, ')') \
	X(SETITEMS, 'u') X(BINFLOAT, 'G') \
	X(PROTO, 0x80) X(NEWOBJ, 0x81) X(EXT1, 0x82) X(EXT2, 0x83) \
	X(EXT4, 0x84) X(TUPLE1, 0x85) X(TUPLE2, 0x86) X(TUPLE3, 0x87) \
	X(NEWTRUE, 0x88) X(NEWFALSE, 0x89) X(LONG1, 0x8a) X(LONG4, 0x8b) \
	X(BINBYTES, 'B') X(SHORT_BINBYTES, 'C') \
	X(SHORT_BINUNICODE, 0x8c) X(BINUNICODE8, 0x8d) X(BINBYTES8, 0x8e) \
	X(EMPTY_SET, 0x8f) X(ADDITEMS, 0x90) X(FROZENSET, 0x91) \
	X(NEWOBJ_EX, 0x92) X(STACK_GLOBAL, 0x93) X(MEMOIZE, 0x94) \
	X(FRAME, 0x95) X(BYTEARRAY8, 0x96) X(NEXT_BUFFER, 0x97) \
	X(READONLY_BUFFER, 0x98)

enum {
#define X(name, byte) OP_##name = byte,
	PICKLE_OPS(X)
#undef X
};

static const char *const op_names[256] = {
#define X(name, byte) [byte] = #name,
	PICKLE_OPS(X)
#undef X
};

enum {
	MAX_OBJECTS = 50000000,   /* objects one pickle may make */
	MAX_STACK = 50000000,     /* entries on the value stack */
	MAX_PROTOCOL = 5,
};

typedef struct MemoSlot {
	uint32_t key;
	uint32_t used;
	PyObj *obj;
} MemoSlot;

typedef struct Machine {
	Arena *a;
	const char *label;
	Diag *d;
	const uint8_t *buf;
	size_t len, pos;      /* bytes, and the next one to read */
	size_t op_pos;        /* offset of the opcode being run, for messages */
	PyObj **stack;
	size_t sp, stack_cap;
	size_t *marks;        /* stack heights at each MARK */
	size_t nmarks, marks_cap;
	MemoSlot *memo;       /* open addressing; memo_cap is a power of two */
	size_t memo_n, memo_cap;
	size_t nobj;
	const PickleHooks *hooks;   /* NULL: every global, every call kept */
} Machine;

/* Appends "label: offset N: OPNAME: message" and returns -1. */
static int
fail(Machine *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
fail(Machine *m, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	const char *name = m->op_pos < m->len ? op_names[m->buf[m->op_pos]] : NULL;

	va_start(ap, fmt);
	msg = arena_vprintf(m->a, fmt, ap);
	va_end(ap);
	if (name)
		diag_report(m->d, YE_PICKLE, &(DiagAt){.file = m->label, .has_offset = 1, .offset = m->op_pos},
			"%s: %s", name, msg);
	else
		diag_report(m->d, YE_PICKLE, &(DiagAt){.file = m->label, .has_offset = 1, .offset = m->op_pos},
			"%s", msg);
	return -1;
}

static const char *
kind_name(PyKind k)
{
	static const char *const names[] = {
		[PY_NONE] = "None", [PY_BOOL] = "bool", [PY_INT] = "int",
		[PY_FLOAT] = "float", [PY_STR] = "str", [PY_BYTES] = "bytes",
		[PY_TUPLE] = "tuple", [PY_LIST] = "list", [PY_DICT] = "dict",
		[PY_GLOBAL] = "global", [PY_CALL] = "call", [PY_PERSID] = "persistent id",
		[PY_MARK] = "mark", [PY_TENSOR] = "tensor",
	};
	return (unsigned)k < sizeof names / sizeof names[0] && names[k] ? names[k] : "?";
}

static PyObj *
new_obj(Machine *m, PyKind kind)
{
	PyObj *o = ARENA_NEW(m->a, PyObj);

	o->kind = kind;
	m->nobj++;
	return o;
}

/* ---- reading the argument bytes ---- */

/* Returns the next n bytes and steps over them, or NULL when fewer are left. */
static const uint8_t *
take(Machine *m, uint64_t n)
{
	const uint8_t *p;

	if ((uint64_t)(m->len - m->pos) < n) {
		fail(m, "truncated argument: needs %llu bytes, %zu left",
		     (unsigned long long)n, m->len - m->pos);
		return NULL;
	}
	p = m->buf + m->pos;
	m->pos += (size_t)n;
	return p;
}

static uint64_t
get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Reads an unsigned little-endian argument of n bytes into *v. */
static int
take_le(Machine *m, int n, uint64_t *v)
{
	const uint8_t *p = take(m, (uint64_t)n);

	if (!p)
		return -1;
	*v = get_le(p, n);
	return 0;
}

/* Sets *s, *n to the text up to the next '\n' (excluded) and steps past it. */
static int
take_line(Machine *m, const char **s, size_t *n)
{
	const uint8_t *p = m->buf + m->pos;
	const uint8_t *nl = memchr(p, '\n', m->len - m->pos);

	if (!nl)
		return fail(m, "truncated argument: no end of line");
	*s = (const char *)p;
	*n = (size_t)(nl - p);
	m->pos += *n + 1;
	return 0;
}

/* Parses a decimal integer with optional sign and surrounding blanks. */
static int
parse_int(Machine *m, const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	uint64_t v = 0, lim;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\t'))
		n--;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (i == n)
		return fail(m, "bad integer '%.*s'", (int)(n > 40 ? 40 : n), s);
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < n; i++) {
		unsigned dig = (unsigned char)s[i] - '0';
		if (dig > 9)
			return fail(m, "bad integer '%.*s'", (int)(n > 40 ? 40 : n), s);
		if (v > (lim - dig) / 10)
			return fail(m, "integer '%.*s' does not fit in int64",
			            (int)(n > 40 ? 40 : n), s);
		v = v * 10 + dig;
	}
	/* v <= 2^63 here; negate in unsigned arithmetic to avoid overflow. */
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* ---- the stack and the marks ---- */

static size_t
fence(const Machine *m)
{
	return m->nmarks ? m->marks[m->nmarks - 1] : 0;
}

static void
push(Machine *m, PyObj *o)
{
	if (m->sp == m->stack_cap) {
		size_t cap = m->stack_cap * 2;
		PyObj **s = ARENA_ARRAY(m->a, PyObj *, cap);
		memcpy(s, m->stack, m->sp * sizeof *s);
		m->stack = s;
		m->stack_cap = cap;
	}
	m->stack[m->sp++] = o;
}

/* Returns the top of the stack above the current mark, or NULL (error). */
static PyObj *
peek(Machine *m)
{
	if (m->sp <= fence(m)) {
		fail(m, "stack underflow");
		return NULL;
	}
	return m->stack[m->sp - 1];
}

static PyObj *
pop(Machine *m)
{
	PyObj *o = peek(m);

	if (o)
		m->sp--;
	return o;
}

/* Removes the newest mark; the items above it are stack[*from..sp). */
static int
pop_mark(Machine *m, size_t *from)
{
	if (m->nmarks == 0) {
		fail(m, "mark not found");
		return -1;
	}
	*from = m->marks[--m->nmarks];
	return 0;
}

static void
push_mark(Machine *m)
{
	if (m->nmarks == m->marks_cap) {
		size_t cap = m->marks_cap ? m->marks_cap * 2 : 16;
		size_t *s = ARENA_ARRAY(m->a, size_t, cap);
		if (m->nmarks)
			memcpy(s, m->marks, m->nmarks * sizeof *s);
		m->marks = s;
		m->marks_cap = cap;
	}
	m->marks[m->nmarks++] = m->sp;
}

/* ---- containers ---- */

/* Makes room for need items (and values, for a dict) in a list or dict. */
static void
reserve(Machine *m, PyObj *o, size_t need)
{
	size_t cap;
	PyObj **items, **values;

	if (need <= o->cap)
		return;
	cap = o->cap ? o->cap * 2 : 8;
	if (cap < need)
		cap = need;
	items = ARENA_ARRAY(m->a, PyObj *, cap);
	if (o->n)
		memcpy(items, o->items, o->n * sizeof *items);
	o->items = items;
	if (o->kind == PY_DICT) {
		values = ARENA_ARRAY(m->a, PyObj *, cap);
		if (o->n)
			memcpy(values, o->values, o->n * sizeof *values);
		o->values = values;
	}
	o->cap = cap;
}

/* A tuple or list of stack[from..sp), which is then popped. */
static PyObj *
collect(Machine *m, PyKind kind, size_t from)
{
	PyObj *o = new_obj(m, kind);

	o->n = m->sp - from;
	o->cap = o->n;
	o->items = arena_dup(m->a, m->stack + from, o->n * sizeof *o->items);
	m->sp = from;
	return o;
}

static void
append_items(Machine *m, PyObj *list, PyObj *const *items, size_t n)
{
	reserve(m, list, list->n + n);
	if (n)
		memcpy(list->items + list->n, items, n * sizeof *items);
	list->n += n;
}

/* Adds key/value pairs kv[0..2n) to dict d.  Keys are not deduplicated:
 * torch never repeats one, and py_dict_get takes the last, as Python would. */
static void
set_items(Machine *m, PyObj *d, PyObj *const *kv, size_t n)
{
	reserve(m, d, d->n + n);
	for (size_t i = 0; i < n; i++) {
		d->items[d->n] = kv[2 * i];
		d->values[d->n] = kv[2 * i + 1];
		d->n++;
	}
}

/* ---- memo ---- */

static MemoSlot *
memo_find(const Machine *m, uint32_t key)
{
	size_t mask = m->memo_cap - 1;
	uint32_t h = key;

	if (!m->memo_cap)
		return NULL;
	/* murmur3's finalizer: sparse keys (multiples of 2^k) must not collide. */
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		if (!m->memo[i].used || m->memo[i].key == key)
			return &m->memo[i];
	}
}

static void
memo_put(Machine *m, uint32_t key, PyObj *o)
{
	MemoSlot *s;

	if ((m->memo_n + 1) * 2 > m->memo_cap) {
		MemoSlot *old = m->memo;
		size_t old_cap = m->memo_cap;
		m->memo_cap = old_cap ? old_cap * 2 : 64;
		m->memo = ARENA_ARRAY(m->a, MemoSlot, m->memo_cap);
		for (size_t i = 0; i < old_cap; i++)
			if (old[i].used)
				*memo_find(m, old[i].key) = old[i];
	}
	s = memo_find(m, key);
	if (!s->used)
		m->memo_n++;
	s->key = key;
	s->used = 1;
	s->obj = o;
}

static int
op_put(Machine *m, uint64_t key)
{
	PyObj *o = peek(m);

	if (!o)
		return -1;
	if (key > UINT32_MAX)
		return fail(m, "memo key %llu too large", (unsigned long long)key);
	memo_put(m, (uint32_t)key, o);
	return 0;
}

static int
op_get(Machine *m, uint64_t key)
{
	MemoSlot *s = key > UINT32_MAX ? NULL : memo_find(m, (uint32_t)key);

	if (!s || !s->used)
		return fail(m, "memo key %llu not found", (unsigned long long)key);
	push(m, s->obj);
	return 0;
}

/* Reads the decimal memo key of PUT/GET. */
static int
take_key_line(Machine *m, uint64_t *key)
{
	const char *s;
	size_t n;
	int64_t v;

	if (take_line(m, &s, &n) || parse_int(m, s, n, &v))
		return -1;
	if (v < 0)
		return fail(m, "negative memo key %lld", (long long)v);
	*key = (uint64_t)v;
	return 0;
}

/* ---- scalars ---- */

static void
push_int(Machine *m, PyKind kind, int64_t v)
{
	PyObj *o = new_obj(m, kind);

	o->i = v;
	push(m, o);
}

static void
push_str(Machine *m, PyKind kind, const void *p, size_t n)
{
	PyObj *o = new_obj(m, kind);

	o->s = arena_strndup(m->a, p, n);
	o->n = n;
	push(m, o);
}

/* LONG1/LONG4: n bytes of little-endian two's complement. */
static int
push_long(Machine *m, const uint8_t *p, uint64_t n)
{
	uint64_t v;
	uint8_t ext;

	if (n == 0) {
		push_int(m, PY_INT, 0);
		return 0;
	}
	ext = p[n - 1] & 0x80 ? 0xff : 0;
	/* Bytes past the eighth must only repeat the sign of the eighth. */
	for (uint64_t i = 8; i < n; i++)
		if (p[i] != ext || (p[7] & 0x80) != (ext & 0x80))
			return fail(m, "integer of %llu bytes does not fit in int64",
			            (unsigned long long)n);
	v = get_le(p, n < 8 ? (int)n : 8);
	if (n < 8 && ext)
		v |= ~(uint64_t)0 << (8 * n);
	push_int(m, PY_INT, (int64_t)v);
	return 0;
}

static int
op_int_line(Machine *m, int is_long)
{
	const char *s;
	size_t n;
	int64_t v;

	if (take_line(m, &s, &n))
		return -1;
	if (!is_long && n == 2 && s[0] == '0' && (s[1] == '0' || s[1] == '1')) {
		push_int(m, PY_BOOL, s[1] == '1');
		return 0;
	}
	if (is_long && n > 0 && s[n - 1] == 'L')
		n--;
	if (parse_int(m, s, n, &v))
		return -1;
	push_int(m, PY_INT, v);
	return 0;
}

static int
op_float_line(Machine *m)
{
	const char *s;
	size_t n;
	char *z, *end;
	PyObj *o;

	if (take_line(m, &s, &n))
		return -1;
	z = arena_strndup(m->a, s, n);
	o = new_obj(m, PY_FLOAT);
	o->f = strtod(z, &end);
	while (*end == ' ' || *end == '\r' || *end == '\t')
		end++;
	if (end == z || *end)
		return fail(m, "bad float '%.*s'", (int)(n > 40 ? 40 : n), s);
	push(m, o);
	return 0;
}

static void
push_binfloat(Machine *m, const uint8_t *p)
{
	PyObj *o = new_obj(m, PY_FLOAT);
	uint64_t bits = 0;

	for (int i = 0; i < 8; i++)
		bits = bits << 8 | p[i];
	memcpy(&o->f, &bits, sizeof o->f);
	push(m, o);
}

/* A string whose byte count is the next width bytes (little-endian,
 * signed when is_signed: BINSTRING's length is an int32). */
static int
op_counted(Machine *m, PyKind kind, int width, int is_signed)
{
	uint64_t n;
	const uint8_t *p;

	if (take_le(m, width, &n))
		return -1;
	if (is_signed && (n & 0x80000000u))
		return fail(m, "negative length");
	if (!(p = take(m, n)))
		return -1;
	push_str(m, kind, p, (size_t)n);
	return 0;
}

static size_t
put_utf8(char *o, uint32_t c)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | (c >> 6 & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | c >> 18);
	o[1] = (char)(0x80 | (c >> 12 & 0x3f));
	o[2] = (char)(0x80 | (c >> 6 & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* UNICODE: a raw-unicode-escape line.  Bytes are Latin-1 code points;
 * \uXXXX and \UXXXXXXXX escape when an odd number of backslashes precede. */
static int
op_unicode_line(Machine *m)
{
	const char *s;
	size_t n, k = 0, i = 0;
	char *out;
	PyObj *o;

	if (take_line(m, &s, &n))
		return -1;
	out = arena_alloc(m->a, 2 * n + 1);
	while (i < n) {
		size_t bs = 0, ndig;
		uint32_t c = 0;

		while (i < n && s[i] == '\\') {
			out[k++] = '\\';
			bs++;
			i++;
		}
		if (bs == 0) {
			k += put_utf8(out + k, (unsigned char)s[i++]);
			continue;
		}
		if (!(bs & 1) || i == n || (s[i] != 'u' && s[i] != 'U'))
			continue;
		k--;   /* the last backslash starts the escape */
		ndig = s[i++] == 'u' ? 4 : 8;
		if (n - i < ndig)
			return fail(m, "truncated \\u escape");
		for (size_t j = 0; j < ndig; j++, i++) {
			int h = (unsigned char)s[i];
			int v = h >= '0' && h <= '9' ? h - '0'
			      : h >= 'a' && h <= 'f' ? h - 'a' + 10
			      : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
			if (v < 0)
				return fail(m, "bad \\u escape");
			c = c << 4 | (uint32_t)v;
		}
		if (c > 0x10ffff)
			return fail(m, "\\U escape out of range");
		k += put_utf8(out + k, c);
	}
	out[k] = 0;
	o = new_obj(m, PY_STR);
	o->s = out;
	o->n = k;
	push(m, o);
	return 0;
}

/* ---- containers from the stack ---- */

/* TUPLE1..3: the top k items become a tuple. */
static int
op_tuple_n(Machine *m, size_t k)
{
	if (m->sp - fence(m) < k)
		return fail(m, "stack underflow");
	push(m, collect(m, PY_TUPLE, m->sp - k));
	return 0;
}

/* TUPLE, LIST, FROZENSET: the items above the newest mark. */
static int
op_collect_mark(Machine *m, PyKind kind)
{
	size_t from;

	if (pop_mark(m, &from))
		return -1;
	push(m, collect(m, kind, from));
	return 0;
}

/* The container below the items stack[from..sp) that APPENDS/SETITEMS edit. */
static PyObj *
target(Machine *m, size_t from, PyKind want)
{
	PyObj *o;

	if (from <= fence(m)) {
		fail(m, "stack underflow");
		return NULL;
	}
	o = m->stack[from - 1];
	if (o->kind != want) {
		fail(m, "expected %s below the items, got %s", kind_name(want), kind_name(o->kind));
		return NULL;
	}
	return o;
}

/* APPEND (marked = 0) or APPENDS/ADDITEMS (marked = 1). */
static int
op_append(Machine *m, int marked)
{
	size_t from;
	PyObj *list;

	if (marked) {
		if (pop_mark(m, &from))
			return -1;
	} else {
		if (m->sp - fence(m) < 1)
			return fail(m, "stack underflow");
		from = m->sp - 1;
	}
	if (!(list = target(m, from, PY_LIST)))
		return -1;
	append_items(m, list, m->stack + from, m->sp - from);
	m->sp = from;
	return 0;
}

/* SETITEM (marked = 0) or SETITEMS (marked = 1). */
static int
op_setitems(Machine *m, int marked)
{
	size_t from;
	PyObj *d;

	if (marked) {
		if (pop_mark(m, &from))
			return -1;
		if ((m->sp - from) % 2)
			return fail(m, "odd number of items (%zu)", m->sp - from);
	} else {
		if (m->sp - fence(m) < 2)
			return fail(m, "stack underflow");
		from = m->sp - 2;
	}
	if (!(d = target(m, from, PY_DICT)))
		return -1;
	set_items(m, d, m->stack + from, (m->sp - from) / 2);
	m->sp = from;
	return 0;
}

/* DICT: key/value pairs above the newest mark become a new dict. */
static int
op_dict(Machine *m)
{
	size_t from;
	PyObj *d;

	if (pop_mark(m, &from))
		return -1;
	if ((m->sp - from) % 2)
		return fail(m, "odd number of items (%zu)", m->sp - from);
	d = new_obj(m, PY_DICT);
	set_items(m, d, m->stack + from, (m->sp - from) / 2);
	m->sp = from;
	push(m, d);
	return 0;
}

/* ---- globals, calls, persistent ids ---- */

static void
push_global(Machine *m, const char *mod, size_t nmod, const char *name, size_t nname)
{
	PyObj *o = new_obj(m, PY_GLOBAL);

	o->s = arena_strndup(m->a, mod, nmod);
	o->name = arena_strndup(m->a, name, nname);
	o->n = nmod;
	push(m, o);
}

/* The hooks' allow-list sees every global before it is pushed, so a
 * refused one is reported at its own opcode's offset. */
static int
check_global(Machine *m, const char *mod, size_t nmod, const char *name, size_t nname)
{
	const PickleHooks *h = m->hooks;
	char *zm, *zn;

	if (!h || !h->allow_global)
		return 0;
	zm = arena_strndup(m->a, mod, nmod);
	zn = arena_strndup(m->a, name, nname);
	if (strlen(zm) != nmod || strlen(zn) != nname || !h->allow_global(zm, zn))
		return fail(m, "global '%.80s.%.80s' is not one %s writes", zm, zn, h->who);
	return 0;
}

static int
op_global(Machine *m)
{
	const char *mod, *name;
	size_t nmod, nname;

	if (take_line(m, &mod, &nmod) || take_line(m, &name, &nname))
		return -1;
	if (check_global(m, mod, nmod, name, nname))
		return -1;
	push_global(m, mod, nmod, name, nname);
	return 0;
}

static int
op_stack_global(Machine *m)
{
	PyObj *name, *mod;

	if (!(name = pop(m)) || !(mod = pop(m)))
		return -1;
	if (mod->kind != PY_STR || name->kind != PY_STR)
		return fail(m, "expected two str, got %s and %s",
		            kind_name(mod->kind), kind_name(name->kind));
	if (check_global(m, mod->s, mod->n, name->s, name->n))
		return -1;
	push_global(m, mod->s, mod->n, name->s, name->n);
	return 0;
}

/* REDUCE and NEWOBJ: func(*args).  OrderedDict() is a dict so that the
 * SETITEMS that follow it fill it; the hooks' reduce may replace a call by
 * what it stands for (then the memo holds that object itself); everything
 * else stays a call. */
static int
op_reduce(Machine *m)
{
	PyObj *args, *func, *o;
	const char *why = NULL;

	if (!(args = pop(m)) || !(func = pop(m)))
		return -1;
	if (args->kind != PY_TUPLE)
		return fail(m, "arguments must be a tuple, got %s", kind_name(args->kind));
	if (args->n == 0 && py_is_global(func, "collections", "OrderedDict")) {
		push(m, new_obj(m, PY_DICT));
		return 0;
	}
	if (m->hooks && m->hooks->reduce && func->kind == PY_GLOBAL) {
		o = NULL;
		if (m->hooks->reduce(func, args, &o, &why))
			return fail(m, "%s.%s: %s", func->s, func->name, why ? why : "bad arguments");
		if (o) {
			push(m, o);
			return 0;
		}
	}
	o = new_obj(m, PY_CALL);
	o->func = func;
	o->args = args;
	push(m, o);
	return 0;
}

/* BUILD sets a call's state.  On a dict the state is instance attributes
 * (an OrderedDict state dict's _metadata), not items, so it is dropped. */
static int
op_build(Machine *m)
{
	PyObj *state, *inst;

	if (!(state = pop(m)) || !(inst = peek(m)))
		return -1;
	if (inst->kind == PY_CALL)
		inst->state = state;
	else if (inst->kind != PY_DICT)
		return fail(m, "cannot set the state of %s", kind_name(inst->kind));
	return 0;
}

static void
push_persid(Machine *m, PyObj *id)
{
	PyObj *o = new_obj(m, PY_PERSID);

	o->args = id;
	push(m, o);
}

static int
op_persid_line(Machine *m)
{
	const char *s;
	size_t n;
	PyObj *id;

	if (take_line(m, &s, &n))
		return -1;
	id = new_obj(m, PY_STR);
	id->s = arena_strndup(m->a, s, n);
	id->n = n;
	push_persid(m, id);
	return 0;
}

/* ---- the machine ---- */

/* Runs one opcode other than STOP.  Returns 0, or -1 with m->d filled. */
static int
step(Machine *m, uint8_t op)
{
	const uint8_t *p;
	uint64_t v;
	size_t from;
	PyObj *o;

	switch (op) {
	case OP_PROTO:
		if (take_le(m, 1, &v))
			return -1;
		if (v > MAX_PROTOCOL)
			return fail(m, "unsupported protocol %llu", (unsigned long long)v);
		return 0;
	case OP_FRAME:
		return take(m, 8) ? 0 : -1;
	case OP_MARK:
		push_mark(m);
		return 0;
	case OP_POP:
		/* As CPython: with nothing above the newest mark, POP drops the mark. */
		if (m->sp > fence(m))
			m->sp--;
		else if (m->nmarks && m->marks[m->nmarks - 1] == m->sp)
			m->nmarks--;
		else
			return fail(m, "stack underflow");
		return 0;
	case OP_POP_MARK:
		if (pop_mark(m, &from))
			return -1;
		m->sp = from;
		return 0;
	case OP_DUP:
		if (!(o = peek(m)))
			return -1;
		push(m, o);
		return 0;
	case OP_NONE:
		push(m, new_obj(m, PY_NONE));
		return 0;
	case OP_NEWTRUE:
	case OP_NEWFALSE:
		push_int(m, PY_BOOL, op == OP_NEWTRUE);
		return 0;
	case OP_INT:
		return op_int_line(m, 0);
	case OP_LONG:
		return op_int_line(m, 1);
	case OP_BININT:
		if (take_le(m, 4, &v))
			return -1;
		push_int(m, PY_INT, (int32_t)(uint32_t)v);
		return 0;
	case OP_BININT1:
	case OP_BININT2:
		if (take_le(m, op == OP_BININT1 ? 1 : 2, &v))
			return -1;
		push_int(m, PY_INT, (int64_t)v);
		return 0;
	case OP_LONG1:
	case OP_LONG4:
		if (take_le(m, op == OP_LONG1 ? 1 : 4, &v))
			return -1;
		if (op == OP_LONG4 && (v & 0x80000000u))
			return fail(m, "negative length");
		if (!(p = take(m, v)))
			return -1;
		return push_long(m, p, v);
	case OP_BINFLOAT:
		if (!(p = take(m, 8)))
			return -1;
		push_binfloat(m, p);
		return 0;
	case OP_FLOAT:
		return op_float_line(m);
	case OP_SHORT_BINUNICODE:
		return op_counted(m, PY_STR, 1, 0);
	case OP_BINUNICODE:
		return op_counted(m, PY_STR, 4, 0);
	case OP_BINUNICODE8:
		return op_counted(m, PY_STR, 8, 0);
	case OP_SHORT_BINSTRING:
		return op_counted(m, PY_STR, 1, 0);
	case OP_BINSTRING:
		return op_counted(m, PY_STR, 4, 1);
	case OP_SHORT_BINBYTES:
		return op_counted(m, PY_BYTES, 1, 0);
	case OP_BINBYTES:
		return op_counted(m, PY_BYTES, 4, 0);
	case OP_BINBYTES8:
	case OP_BYTEARRAY8:
		return op_counted(m, PY_BYTES, 8, 0);
	case OP_UNICODE:
		return op_unicode_line(m);
	case OP_EMPTY_TUPLE:
		push(m, collect(m, PY_TUPLE, m->sp));
		return 0;
	case OP_TUPLE1:
	case OP_TUPLE2:
	case OP_TUPLE3:
		return op_tuple_n(m, (size_t)(op - OP_TUPLE1 + 1));
	case OP_TUPLE:
		return op_collect_mark(m, PY_TUPLE);
	case OP_EMPTY_LIST:
	case OP_EMPTY_SET:
		push(m, new_obj(m, PY_LIST));
		return 0;
	case OP_LIST:
	case OP_FROZENSET:
		return op_collect_mark(m, PY_LIST);
	case OP_APPEND:
		return op_append(m, 0);
	case OP_APPENDS:
	case OP_ADDITEMS:
		return op_append(m, 1);
	case OP_EMPTY_DICT:
		push(m, new_obj(m, PY_DICT));
		return 0;
	case OP_DICT:
		return op_dict(m);
	case OP_SETITEM:
		return op_setitems(m, 0);
	case OP_SETITEMS:
		return op_setitems(m, 1);
	case OP_GLOBAL:
		return op_global(m);
	case OP_STACK_GLOBAL:
		return op_stack_global(m);
	case OP_REDUCE:
	case OP_NEWOBJ:
		return op_reduce(m);
	case OP_BUILD:
		return op_build(m);
	case OP_BINPERSID:
		if (!(o = pop(m)))
			return -1;
		push_persid(m, o);
		return 0;
	case OP_PERSID:
		return op_persid_line(m);
	case OP_BINPUT:
		return take_le(m, 1, &v) ? -1 : op_put(m, v);
	case OP_LONG_BINPUT:
		return take_le(m, 4, &v) ? -1 : op_put(m, v);
	case OP_PUT:
		return take_key_line(m, &v) ? -1 : op_put(m, v);
	case OP_MEMOIZE:
		return op_put(m, m->memo_n);
	case OP_BINGET:
		return take_le(m, 1, &v) ? -1 : op_get(m, v);
	case OP_LONG_BINGET:
		return take_le(m, 4, &v) ? -1 : op_get(m, v);
	case OP_GET:
		return take_key_line(m, &v) ? -1 : op_get(m, v);
	default:
		/* fail() prefixes the name when the byte is a pickle opcode at all. */
		if (op_names[op])
			return fail(m, "unsupported opcode 0x%02x", op);
		return fail(m, "unknown opcode 0x%02x", op);
	}
}

PyObj *
pickle_load(Arena *a, const char *label, const uint8_t *buf, size_t len, Diag *d)
{
	return pickle_load_hooked(a, label, buf, len, NULL, d);
}

PyObj *
pickle_load_hooked(Arena *a, const char *label, const uint8_t *buf, size_t len,
                   const PickleHooks *hooks, Diag *d)
{
	Machine m = {.a = a, .label = label, .d = d, .buf = buf, .len = len, .hooks = hooks};

	/* Never NULL, so that stack + from is defined even for an empty stack. */
	m.stack_cap = 64;
	m.stack = ARENA_ARRAY(a, PyObj *, m.stack_cap);

	while (m.pos < m.len) {
		uint8_t op = buf[m.pos];

		m.op_pos = m.pos++;
		if (m.nobj > MAX_OBJECTS || m.sp > MAX_STACK) {
			fail(&m, "more than %d objects or stack entries", MAX_OBJECTS);
			return NULL;
		}
		if (op == OP_STOP)
			return pop(&m);
		if (step(&m, op))
			return NULL;
	}
	m.op_pos = len;
	fail(&m, "pickle ends without STOP");
	return NULL;
}

int
py_is_global(const PyObj *o, const char *module, const char *name)
{
	return o && o->kind == PY_GLOBAL && strcmp(o->s, module) == 0
	    && strcmp(o->name, name) == 0;
}

PyObj *
py_dict_get(const PyObj *d, const char *key)
{
	size_t n = strlen(key);

	if (!d || d->kind != PY_DICT)
		return NULL;
	for (size_t i = d->n; i-- > 0;) {
		const PyObj *k = d->items[i];
		if (k->kind == PY_STR && k->n == n && memcmp(k->s, key, n) == 0)
			return d->values[i];
	}
	return NULL;
}
