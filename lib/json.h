/* json.h: a JSON reader that builds a tree in the arena.
 *
 * Accepts what torch writes: standard JSON plus the bare tokens NaN,
 * Infinity and -Infinity (torch 2.6).  Numbers keep both an exact int64
 * (when the text is an integer that fits) and a double.  Missing and null
 * are the same to the accessors: json_get() returns NULL for both. */
#ifndef JSON_H
#define JSON_H

#include <stdint.h>
#include <stddef.h>

#include "arena.h"
#include "diag.h"

typedef enum JsonType {
	JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT
} JsonType;

typedef struct Json Json;
struct Json {
	uint8_t type;        /* a JsonType */
	uint8_t is_int;      /* JSON_NUMBER: the text was an integer that fits in int64 (in i) */
	uint32_t len;        /* JSON_STRING: byte length; ARRAY/OBJECT: element count */
	uint32_t line, col;  /* 1-based position of the value in the text */
	union {              /* 32 bytes a node: graph files hold millions */
		int64_t i;       /* JSON_NUMBER when is_int */
		double f;        /* JSON_NUMBER otherwise (json_float() reads both) */
		const char *s;   /* JSON_STRING: decoded UTF-8, NUL-terminated (arena) */
		Json **kids;     /* ARRAY/OBJECT: elements, in document order */
	};
	const char **keys;   /* OBJECT: keys[i] names kids[i] (arena), document order */
};

/* Parses text[0..len).  Returns the root, or NULL with a DIAG_INPUT message
 * "label:line:col: what" on error.  Nesting deeper than 10,000 is an error. */
Json *json_parse(Arena *a, const char *label, const char *text, size_t len, Diag *d);

/* Returns obj[key], or NULL if obj is not an object, key is missing, or the value is null. */
Json *json_get(const Json *obj, const char *key);
/* The member name of a union: the sole key of a one-key object (torch's
 * encoding), the "$type" string of {"$type", "$value"} (schema 4.x), or the
 * only non-null key of an object whose other members are all null (2.1/2.2);
 * else NULL. */
const char *json_union_key(const Json *obj);
/* The union's value in any of those forms (obj[key], or obj["$value"]), or
 * NULL when it is null or obj is not a union. */
Json *json_union_value(const Json *obj);
/* Numeric accessors: return 1 and set *out when j holds that kind of value.
 * json_float also accepts the strings "NaN", "Infinity", "-Infinity". */
int json_int(const Json *j, int64_t *out);
int json_float(const Json *j, double *out);
/* Returns j->s for a string, else NULL. */
const char *json_str(const Json *j);

#endif
