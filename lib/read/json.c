/* json.c: the JSON reader of read.h, built for torch's graph files.
 *
 * Graph JSON runs to hundreds of megabytes in one line, so the parser is a
 * loop over an explicit stack of open containers (no recursion, so the
 * 10,000-level depth limit is a plain counter, not a guess at the C stack).
 * Children of open containers wait on one growable scratch stack and are
 * copied into the arena once, when their container closes.  Nodes, strings
 * and child arrays are carved out of 16 KiB chunks of the arena, which
 * spares a call and a 16-byte round-up per value.  The text is not
 * NUL-terminated (it points into a mapped zip entry): every read checks
 * against the end.  Strings are decoded to UTF-8 and raw bytes are checked
 * too, so every string in the tree is valid UTF-8, as ONNX (protobuf
 * `string` fields) requires of names and attributes.  The tree holds
 * copies of every string, never a pointer into the text, so a caller may
 * drop the text behind the parser from memory as it goes (json_parse_text). */
#include "read/read.h"

#include <math.h>
#include <stdarg.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	JSON_MAX_DEPTH = 10000,
	POOL_CHUNK = 16 << 10,       /* the largest request the arena serves from its current block */
	POOL_DIRECT = POOL_CHUNK / 4, /* bigger pieces go to the arena directly */
	INTERN_MAX = 32,              /* longest string worth sharing */
	INTERN_BITS = 10,             /* a 1024-entry direct-mapped table */
	DONE_STEP = 1 << 20,          /* json_parse_text reports progress every MiB of text */
};

typedef struct JsonInterned {
	const char *s;
	uint64_t a, b;  /* first and last 8 bytes (all of them below 8), for a quick compare */
	size_t len;
} JsonInterned;

typedef struct JsonFrame {
	Json *node;        /* the open array or object */
	size_t kid_base;   /* its first child on the scratch stack */
	size_t key_base;   /* its first key on the key stack */
} JsonFrame;

typedef struct JsonParser {
	Arena *a;
	Diag *d;
	const char *label;
	const char *p, *end;
	const char *line_start;  /* newlines only occur in whitespace, so this stays exact */
	size_t line;
	unsigned char *pool;     /* current arena chunk, bump-allocated */
	size_t pool_used, pool_cap;
	Json **kids;             /* children of all open containers */
	size_t nkids, kids_cap;
	const char **keys;       /* keys of all open objects */
	size_t nkeys, keys_cap;
	JsonFrame *frames;
	size_t nframes, frames_cap;
	JsonInterned *interned;  /* recent short strings, by hash */
	JsonTextDone *done;      /* told of the text parsed so far, or NULL */
	void *done_ctx;
	const char *done_next;   /* call done once the parser is past this */
} JsonParser;

/* Reports "label:line:col: message" for the byte at `at` and returns NULL. */
static void *
json_fail(JsonParser *P, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void *
json_fail(JsonParser *P, const char *at, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_report(P->d, YE_JSON_SYNTAX, &(DiagAt){.file = P->label, .line = (unsigned)P->line,
	            .column = (unsigned)(at - P->line_start) + 1}, "%s", msg);
	return NULL;
}

/* Names the byte at p for messages: "'x'", "byte 0x01" or "end of input". */
static const char *
json_what(JsonParser *P, const char *p, char buf[16])
{
	unsigned char c;

	if (p >= P->end)
		return "end of input";
	c = (unsigned char)*p;
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, 16, "'%c'", c);
	else
		snprintf(buf, 16, "byte 0x%02x", c);
	return buf;
}

static void *
json_pool_refill(JsonParser *P, size_t n)
{
	if (n > POOL_DIRECT)
		return arena_alloc(P->a, n);
	/* The chunk's tail is abandoned: at most POOL_DIRECT bytes. */
	P->pool = arena_alloc(P->a, POOL_CHUNK);
	P->pool_cap = POOL_CHUNK;
	P->pool_used = n;
	return P->pool;
}

static inline void *
json_pool_alloc(JsonParser *P, size_t n, size_t align)
{
	size_t off = (P->pool_used + align - 1) & ~(align - 1);

	if (off + n > P->pool_cap)
		return json_pool_refill(P, n);
	P->pool_used = off + n;
	return P->pool + off;
}

/* Doubles a scratch stack; returns its new address. */
static void *
json_grow(void *buf, size_t *cap, size_t elem)
{
	size_t n = *cap ? *cap * 2 : 256;
	void *q = realloc(buf, n * elem);

	if (!q)
		die("out of memory (%zu bytes)", n * elem);
	*cap = n;
	return q;
}

static void
json_skip_ws_slow(JsonParser *P)
{
	const char *p = P->p, *end = P->end;

	while (p < end) {
		char c = *p;
		if (c == ' ' || c == '\t' || c == '\r') {
			p++;
		} else if (c == '\n') {
			p++;
			P->line++;
			P->line_start = p;
		} else {
			break;
		}
	}
	P->p = p;
}

/* Most tokens follow no space or a single one (json.dumps' ", " and ": "). */
static inline void
json_skip_ws(JsonParser *P)
{
	if (P->p < P->end && (unsigned char)*P->p > ' ')
		return;
	if (P->end - P->p >= 2 && P->p[0] == ' ' && (unsigned char)P->p[1] > ' ') {
		P->p++;
		return;
	}
	json_skip_ws_slow(P);
}

static Json *
json_new(JsonParser *P, JsonType type)
{
	Json *j = json_pool_alloc(P, sizeof(Json), alignof(Json));
	size_t col = (size_t)(P->p - P->line_start) + 1;

	/* Pool memory may be reused string tail, so set every field. */
	*j = (Json){.type = type};
	j->line = P->line > UINT32_MAX ? UINT32_MAX : (uint32_t)P->line;
	j->col = col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
	return j;
}

/* ---- strings ---- */

/* A byte that ends a run of plain string bytes: '"', '\\', a control
 * character, or the start of a multi-byte UTF-8 sequence (to be checked).
 * json_skip_plain tests eight at a time with the usual SWAR bit tricks. */
static int
json_special(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
}

static int
json_escape_letter(unsigned char c)
{
	switch (c) {
	case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': case 'u':
		return 1;
	default:
		return 0;
	}
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JSON_LITTLE_ENDIAN 1
#else
#define JSON_LITTLE_ENDIAN 0
#endif

/* Returns the first special byte in [q, end), or end. */
static inline const unsigned char *
json_skip_plain(const unsigned char *q, const unsigned char *end)
{
	const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
	uint64_t x, m;

	while (end - q >= 8) {
		memcpy(&x, q, 8);
		m = (((x ^ ones * '"') - ones) | ((x ^ ones * '\\') - ones) |
		     (x - ones * 0x20) | x) & high;
		if (m) {
			/* A borrow only runs towards higher bytes, so on a
			 * little-endian load the lowest flag is a real hit. */
			if (JSON_LITTLE_ENDIAN)
				return q + (__builtin_ctzll(m) >> 3);
			break;
		}
		q += 8;
	}
	while (q < end && !json_special(*q))
		q++;
	return q;
}

/* Length of the well-formed UTF-8 sequence at q (RFC 3629: no overlongs,
 * no surrogates, nothing past U+10FFFF), or 0. */
static size_t
json_utf8_len(const unsigned char *q, const unsigned char *end)
{
	unsigned c = q[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		lo = c == 0xe0 ? 0xa0 : lo;
		hi = c == 0xed ? 0x9f : hi;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		lo = c == 0xf0 ? 0x90 : lo;
		hi = c == 0xf4 ? 0x8f : hi;
	} else {
		return 0;
	}
	if ((size_t)(end - q) < n || q[1] < lo || q[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((q[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

static int
json_hex4(const char *s, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return 0;
	}
	*out = v;
	return 1;
}

static char *
json_put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xc0 | cp >> 6);
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | cp >> 12);
		*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | cp >> 18);
		*o++ = (char)(0x80 | (cp >> 12 & 0x3f));
		*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

/* Decodes the escapes of s[0..e) into o; the first pass has already checked
 * that every backslash is followed by a valid escape letter before e.
 * Returns the end of the output, or NULL after reporting an error. */
static char *
json_unescape(JsonParser *P, const char *s, const char *e, char *o)
{
	while (s < e) {
		const char *b = memchr(s, '\\', (size_t)(e - s));
		unsigned cp, lo;

		if (!b)
			b = e;
		memcpy(o, s, (size_t)(b - s));
		o += b - s;
		if (b == e)
			break;
		switch (b[1]) {
		case 'b': *o++ = '\b'; s = b + 2; continue;
		case 'f': *o++ = '\f'; s = b + 2; continue;
		case 'n': *o++ = '\n'; s = b + 2; continue;
		case 'r': *o++ = '\r'; s = b + 2; continue;
		case 't': *o++ = '\t'; s = b + 2; continue;
		case 'u': break;
		default: *o++ = b[1]; s = b + 2; continue;  /* '"', '\\', '/' */
		}
		if (e - b < 6 || !json_hex4(b + 2, &cp))
			return json_fail(P, b, "invalid \\u escape: four hex digits expected");
		s = b + 6;
		if (cp >= 0xdc00 && cp <= 0xdfff)
			return json_fail(P, b, "unpaired low surrogate \\u%04X", cp);
		if (cp >= 0xd800 && cp <= 0xdbff) {
			/* UTF-16 pair: JSON's only way to spell a character past U+FFFF. */
			if (e - s < 6 || s[0] != '\\' || s[1] != 'u' || !json_hex4(s + 2, &lo) ||
			    lo < 0xdc00 || lo > 0xdfff)
				return json_fail(P, b, "unpaired high surrogate \\u%04X", cp);
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			s += 6;
		}
		o = json_put_utf8(o, cp);
	}
	return o;
}

/* Returns the arena copy of a short escape-free string, shared with earlier
 * equal ones.  A graph file repeats a few dozen keys ("name", "arg",
 * "as_tensor") and values ("cpu", targets) millions of times; sharing them
 * saves about 5% of the tree and the copies.  A unique string (a node name)
 * just replaces the table entry. */
static const char *
json_intern(JsonParser *P, const unsigned char *s, size_t n, const unsigned char *end)
{
	uint64_t a = 0, b = 0, h;
	JsonInterned *e;
	char *dst;

	if (n >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
	} else if (JSON_LITTLE_ENDIAN && end - s >= 8) {
		/* The text goes on past the string: load 8 and keep n bytes. */
		memcpy(&a, s, 8);
		a = n ? a & (~0ull >> (64 - 8 * n)) : 0;
	} else {
		/* Near the end of the text: the same little-endian packing, so
		 * "ab" here cannot pass for "ba" loaded above. */
		for (size_t i = 0; i < n; i++)
			a |= (uint64_t)s[i] << (8 * i);
	}
	h = (a ^ (b << 29 | b >> 35) ^ n) * 0x9e3779b97f4a7c15u;
	e = &P->interned[h >> (64 - INTERN_BITS)];
	/* Up to 16 bytes, a and b hold the whole string. */
	if (e->s && e->len == n && e->a == a && e->b == b && (n <= 16 || memcmp(e->s, s, n) == 0))
		return e->s;
	dst = json_pool_alloc(P, n + 1, 1);
	memcpy(dst, s, n);
	dst[n] = 0;
	*e = (JsonInterned){dst, a, b, n};
	return dst;
}

/* Parses the string whose opening quote is at P->p into the arena.
 * Returns it NUL-terminated with its length in *len, or NULL on error. */
static const char *
json_string(JsonParser *P, size_t *len)
{
	const unsigned char *s = (const unsigned char *)P->p + 1, *q = s;
	const unsigned char *end = (const unsigned char *)P->end;
	int escaped = 0;
	size_t raw, n;
	char *dst, *o;

	/* First pass: find the closing quote and check all but \u escapes. */
	for (;;) {
		q = json_skip_plain(q, end);
		if (q == end)
			return json_fail(P, P->p, "unterminated string");
		if (*q == '"')
			break;
		if (*q == '\\') {
			if (end - q < 2)
				return json_fail(P, P->p, "unterminated string");
			if (!json_escape_letter(q[1])) {
				char buf[16];
				return json_fail(P, (const char *)q, "invalid escape '\\' followed by %s",
				                 json_what(P, (const char *)q + 1, buf));
			}
			escaped = 1;
			q += 2;
		} else if (*q < 0x20) {
			return json_fail(P, (const char *)q,
			                 "control character 0x%02x in string (escape it)", *q);
		} else if ((n = json_utf8_len(q, end)) != 0) {
			q += n;
		} else {
			return json_fail(P, (const char *)q, "invalid UTF-8 in string");
		}
	}
	raw = (size_t)(q - s);
	P->p = (const char *)q + 1;
	if (!escaped && raw <= INTERN_MAX) {
		*len = raw;
		return json_intern(P, s, raw, end);
	}
	dst = json_pool_alloc(P, raw + 1, 1);
	if (!escaped) {
		memcpy(dst, s, raw);
		o = dst + raw;
	} else {
		o = json_unescape(P, (const char *)s, (const char *)q, dst);
		if (!o)
			return NULL;
		/* Decoding only shrinks; give the difference back to the chunk. */
		if (dst + raw + 1 == (char *)P->pool + P->pool_used)
			P->pool_used -= raw - (size_t)(o - dst);
	}
	*o = 0;
	*len = (size_t)(o - dst);
	return dst;
}

/* ---- numbers ---- */

static int
json_digit(const char *p, const char *end)
{
	return p < end && *p >= '0' && *p <= '9';
}

/* strtod on a copy, since the text has no terminator.  Only called on a
 * numeral that already matched the JSON grammar, so strtod's extras (hex,
 * "inf") never apply.  Assumes the "C" LC_NUMERIC locale, as cmd/ never
 * calls setlocale(). */
static double
json_strtod(const char *s, size_t n)
{
	char small[128], *buf = n < sizeof small ? small : malloc(n + 1);
	double f;

	if (!buf)
		die("out of memory (%zu bytes)", n + 1);
	memcpy(buf, s, n);
	buf[n] = 0;
	f = strtod(buf, NULL);
	if (buf != small)
		free(buf);
	return f;
}

/* Parses a numeral at P->p (a '-' or a digit) into j. */
static Json *
json_number(JsonParser *P, Json *j)
{
	static const double pow10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
	};
	const char *start = P->p, *p = start, *end = P->end;
	int neg = 0, ndig = 0, nfrac = 0, is_int = 1;
	uint64_t u = 0;
	long exp = 0, e10;

	if (*p == '-') {
		neg = 1;
		p++;
		if (p < end && *p == 'I') {
			if (end - p >= 8 && memcmp(p, "Infinity", 8) == 0) {
				j->f = -INFINITY;
				P->p = p + 8;
				return j;
			}
			return json_fail(P, start, "invalid literal, expected -Infinity");
		}
	}
	if (!json_digit(p, end))
		return json_fail(P, p, "invalid number: digit expected");
	if (*p == '0') {
		p++;
		ndig = 1;
		if (json_digit(p, end))
			return json_fail(P, p, "invalid number: leading zero");
	} else {
		for (; json_digit(p, end); p++, ndig++)
			if (ndig < 19)
				u = u * 10 + (uint64_t)(*p - '0');
	}
	if (p < end && *p == '.') {
		is_int = 0;
		if (!json_digit(++p, end))
			return json_fail(P, p, "invalid number: digit expected after '.'");
		for (; json_digit(p, end); p++, ndig++, nfrac++)
			if (ndig < 19)
				u = u * 10 + (uint64_t)(*p - '0');
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		int eneg = 0;
		is_int = 0;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (!json_digit(p, end))
			return json_fail(P, p, "invalid number: digit expected in exponent");
		for (; json_digit(p, end); p++)
			if (exp < 100000)
				exp = exp * 10 + (*p - '0');
		exp = eneg ? -exp : exp;
	}
	P->p = p;
	e10 = exp - nfrac;
	if (ndig > 19) {
		/* Too many digits for u: not an int64 and past the exact fast path. */
		j->f = json_strtod(start, (size_t)(p - start));
		return j;
	}
	if (is_int && u <= (uint64_t)INT64_MAX + (uint64_t)neg && !(neg && u == 0)) {
		/* "-0" stays a double, so json_float() keeps its sign. */
		j->is_int = 1;
		j->i = neg ? -(int64_t)(u - 1) - 1 : (int64_t)u;  /* reaches INT64_MIN */
		return j;
	}
	if (u == 0) {
		j->f = neg ? -0.0 : 0.0;
	} else if (e10 == 0) {
		/* An integer: the conversion rounds once, as strtod would. */
		j->f = neg ? -(double)u : (double)u;
	} else if (u <= (1ull << 53) && e10 >= -22 && e10 <= 22) {
		/* Clinger's fast path: both operands exact, so one rounding. */
		double f = (double)u;
		f = e10 < 0 ? f / pow10[-e10] : f * pow10[e10];
		j->f = neg ? -f : f;
	} else {
		j->f = json_strtod(start, (size_t)(p - start));
	}
	return j;
}

/* ---- values ---- */

/* Matches the keyword lit at P->p. */
static int
json_keyword(JsonParser *P, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(P->end - P->p) < n || memcmp(P->p, lit, n) != 0)
		return 0;
	P->p += n;
	return 1;
}

/* Parses a value that is not an array or object. */
static Json *
json_scalar(JsonParser *P)
{
	char buf[16];
	Json *j;
	size_t n;

	switch (*P->p) {
	case '"':
		j = json_new(P, JSON_STRING);
		if (!(j->s = json_string(P, &n)))
			return NULL;
		if (n > UINT32_MAX)
			return json_fail(P, P->p, "string longer than 4 GiB");
		j->len = (uint32_t)n;
		return j;
	case 't':
		j = json_new(P, JSON_TRUE);
		return json_keyword(P, "true") ? j : json_fail(P, P->p, "invalid literal, expected true");
	case 'f':
		j = json_new(P, JSON_FALSE);
		return json_keyword(P, "false") ? j : json_fail(P, P->p, "invalid literal, expected false");
	case 'n':
		j = json_new(P, JSON_NULL);
		return json_keyword(P, "null") ? j : json_fail(P, P->p, "invalid literal, expected null");
	case 'N':
		/* torch 2.6 writes json.dumps' bare NaN and Infinity. */
		j = json_new(P, JSON_NUMBER);
		j->f = NAN;
		return json_keyword(P, "NaN") ? j : json_fail(P, P->p, "invalid literal, expected NaN");
	case 'I':
		j = json_new(P, JSON_NUMBER);
		j->f = INFINITY;
		return json_keyword(P, "Infinity") ? j :
		       json_fail(P, P->p, "invalid literal, expected Infinity");
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return json_number(P, json_new(P, JSON_NUMBER));
	default:
		return json_fail(P, P->p, "expected a value, found %s", json_what(P, P->p, buf));
	}
}

static void
json_open(JsonParser *P, Json *j)
{
	if (P->nframes == P->frames_cap)
		P->frames = json_grow(P->frames, &P->frames_cap, sizeof *P->frames);
	P->frames[P->nframes++] = (JsonFrame){j, P->nkids, P->nkeys};
}

/* Closes the innermost container: its children move to the arena. */
static Json *
json_close(JsonParser *P)
{
	JsonFrame *f = &P->frames[--P->nframes];
	Json *j = f->node;
	size_t n = P->nkids - f->kid_base;

	j->len = (uint32_t)n;   /* json_run() stops before UINT32_MAX */
	if (n) {
		/* an object's keys right after its children: json_keys() */
		size_t nptr = j->type == JSON_OBJECT ? 2 * n : n;
		j->kids = json_pool_alloc(P, nptr * sizeof *j->kids, alignof(Json *));
		memcpy(j->kids, P->kids + f->kid_base, n * sizeof *j->kids);
		if (j->type == JSON_OBJECT)
			memcpy(j->kids + n, P->keys + f->key_base, n * sizeof(char *));
	}
	P->nkids = f->kid_base;
	P->nkeys = f->key_base;
	return j;
}

/* The parse loop.  Each trip parses one value; a container pushes a frame
 * and goes on with its first child, and after each complete value the
 * innermost frame decides what may follow. */
static Json *
json_run(JsonParser *P)
{
	Json *v;
	JsonFrame *f;
	const char *key;
	size_t keylen;

value:
	json_skip_ws(P);
	if (P->p == P->end)
		return json_fail(P, P->p, "expected a value, found end of input");
	if (*P->p == '{' || *P->p == '[') {
		int obj = *P->p == '{';
		if (P->nframes == JSON_MAX_DEPTH)
			return json_fail(P, P->p, "nesting deeper than %d levels", JSON_MAX_DEPTH);
		v = json_new(P, obj ? JSON_OBJECT : JSON_ARRAY);
		json_open(P, v);
		P->p++;
		json_skip_ws(P);
		if (P->p < P->end && *P->p == (obj ? '}' : ']')) {
			P->p++;
			v = json_close(P);
			goto done;
		}
		if (obj)
			goto key;
		goto value;
	}
	if (!(v = json_scalar(P)))
		return NULL;
done:
	if (P->p >= P->done_next) {
		P->done(P->done_ctx, P->p);
		P->done_next = P->end - P->p > DONE_STEP ? P->p + DONE_STEP : P->end + 1;
	}
	if (P->nframes == 0) {
		json_skip_ws(P);
		if (P->p != P->end)
			return json_fail(P, P->p, "unexpected data after the root value");
		return v;
	}
	f = &P->frames[P->nframes - 1];
	if (P->nkids - f->kid_base == UINT32_MAX)
		return json_fail(P, P->p, "more than %u elements in one array or object", UINT32_MAX);
	if (P->nkids == P->kids_cap)
		P->kids = json_grow(P->kids, &P->kids_cap, sizeof *P->kids);
	P->kids[P->nkids++] = v;
	json_skip_ws(P);
	if (f->node->type == JSON_ARRAY) {
		if (P->p < P->end && *P->p == ',') {
			P->p++;
			goto value;
		}
		if (P->p < P->end && *P->p == ']') {
			P->p++;
			v = json_close(P);
			goto done;
		}
		return json_fail(P, P->p, "expected ',' or ']' after array element");
	}
	if (P->p < P->end && *P->p == '}') {
		P->p++;
		v = json_close(P);
		goto done;
	}
	if (P->p == P->end || *P->p != ',')
		return json_fail(P, P->p, "expected ',' or '}' after object member");
	P->p++;
	json_skip_ws(P);
key:
	if (P->p == P->end || *P->p != '"')
		return json_fail(P, P->p, "expected a string key");
	if (!(key = json_string(P, &keylen)))
		return NULL;
	if (P->nkeys == P->keys_cap)
		P->keys = json_grow(P->keys, &P->keys_cap, sizeof *P->keys);
	P->keys[P->nkeys++] = key;
	json_skip_ws(P);
	if (P->p == P->end || *P->p != ':')
		return json_fail(P, P->p, "expected ':' after object key");
	P->p++;
	goto value;
}

Json *
json_parse(Arena *a, const char *label, const char *text, size_t len, Diag *d)
{
	return json_parse_text(a, label, text, len, NULL, NULL, d);
}

Json *
json_parse_text(Arena *a, const char *label, const char *text, size_t len, JsonTextDone *done,
                void *ctx, Diag *d)
{
	JsonParser P = {
		.a = a, .d = d, .label = label,
		.p = text, .end = text + len, .line_start = text, .line = 1,
		.done = done, .done_ctx = ctx,
	};
	JsonInterned table[1 << INTERN_BITS] = {{0}};
	Json *root;

	P.interned = table;
	if (!text)
		P.p = P.end = P.line_start = "";
	if (!label)
		P.label = "<json>";
	/* Past the end, never reached, when there is no one to tell. */
	P.done_next = done && P.end - P.p > DONE_STEP ? P.p + DONE_STEP : P.end + 1;
	root = json_run(&P);
	free(P.kids);
	free(P.keys);
	free(P.frames);
	return root;
}

/* ---- accessors ---- */

Json *
json_get(const Json *obj, const char *key)
{
	const char **keys = json_keys(obj);

	for (size_t i = 0; keys && i < obj->len; i++)
		if (strcmp(keys[i], key) == 0)
			return obj->kids[i]->type == JSON_NULL ? NULL : obj->kids[i];
	return NULL;
}

/* Besides today's one-key objects, reads two older union encodings:
 * schema 4.x nightlies' {"$type": name, "$value": v}, and 2.1/2.2's
 * dataclasses.asdict() form, where every member is present and all but the
 * chosen one are null. */
const char *
json_union_key(const Json *obj)
{
	const char *found = NULL;
	const Json *t;

	if (!obj || obj->type != JSON_OBJECT || obj->len == 0)
		return NULL;
	if (obj->len == 1)
		return json_keys(obj)[0];
	if ((t = json_get(obj, "$type")) != NULL)
		return json_str(t);
	for (size_t i = 0; i < obj->len; i++) {
		if (obj->kids[i]->type == JSON_NULL)
			continue;
		if (found)
			return NULL;
		found = json_keys(obj)[i];
	}
	return found;
}

Json *
json_union_value(const Json *obj)
{
	const char *key = json_union_key(obj);

	if (!key)
		return NULL;
	if (obj->len > 1 && json_get(obj, "$type"))
		return json_get(obj, "$value");
	return json_get(obj, key);
}

int
json_int(const Json *j, int64_t *out)
{
	if (!j || j->type != JSON_NUMBER)
		return 0;
	if (j->is_int) {
		*out = j->i;
		return 1;
	}
	/* 9.2233720368547758e18 is 2^63 exactly, the first double out of range. */
	if (j->f != floor(j->f) || j->f < -9223372036854775808.0 || j->f >= 9223372036854775808.0)
		return 0;  /* also NaN and the infinities */
	*out = (int64_t)j->f;
	return 1;
}

int
json_float(const Json *j, double *out)
{
	if (!j)
		return 0;
	if (j->type == JSON_NUMBER) {
		*out = j->is_int ? (double)j->i : j->f;
		return 1;
	}
	if (j->type != JSON_STRING)
		return 0;
	/* torch 2.14 writes non-finite floats as these strings (allow_nan=False). */
	if (j->len == 3 && strcmp(j->s, "NaN") == 0)
		*out = NAN;
	else if (j->len == 8 && strcmp(j->s, "Infinity") == 0)
		*out = INFINITY;
	else if (j->len == 9 && strcmp(j->s, "-Infinity") == 0)
		*out = -INFINITY;
	else
		return 0;
	return 1;
}

const char *
json_str(const Json *j)
{
	return j && j->type == JSON_STRING ? j->s : NULL;
}
