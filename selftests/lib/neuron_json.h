/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small strict JSON reader for tests that check tools' --json output:
 * parse a whole document into a tree, then look values up by key and
 * index.  Malformed input (trailing commas, bad escapes, garbage after the
 * document, unbalanced brackets) fails the parse, so a test also checks
 * that the output is valid JSON.
 */
#ifndef _NEURON_JSON_H
#define _NEURON_JSON_H

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum nj_type { NJ_NULL, NJ_BOOL, NJ_NUM, NJ_STR, NJ_ARR, NJ_OBJ };

/* A value; arrays and objects hold @n children (objects with their keys). */
struct nj {
	enum nj_type type;
	double num;
	char *str;		/* NJ_STR: the string; a child of an object: its key */
	char *key;
	int n;
	struct nj *kid;
};

struct nj_parser {
	const char *p;
	int depth;
};

static void nj_ws(struct nj_parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

/* A string at ps->p (after its quote), unescaped into a new buffer; NULL if bad. */
static char *nj_string(struct nj_parser *ps)
{
	size_t cap = strlen(ps->p) + 1, n = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	for (;;) {
		unsigned char c = *ps->p++;

		if (c == '"')
			break;
		if (!c || c < 0x20)
			goto bad;
		if (c == '\\') {
			c = *ps->p++;
			switch (c) {
			case '"':
			case '\\':
			case '/':
				break;
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'u': {
				unsigned int v, i;
				char hex[5];

				for (i = 0; i < 4; i++) {
					if (!isxdigit((unsigned char)ps->p[i]))
						goto bad;
					hex[i] = ps->p[i];
				}
				hex[4] = 0;
				v = strtoul(hex, NULL, 16);
				ps->p += 4;
				c = v < 0x80 ? v : '?';
				break;
			}
			default:
				goto bad;
			}
		}
		s[n++] = c;
	}
	s[n] = 0;
	return s;
bad:
	free(s);
	return NULL;
}

static bool nj_value(struct nj_parser *ps, struct nj *v);

/* The elements (or members) of an array (object) at ps->p, after its bracket. */
static bool nj_list(struct nj_parser *ps, struct nj *v, char close, bool obj)
{
	nj_ws(ps);
	if (*ps->p == close) {
		ps->p++;
		return true;
	}
	for (;;) {
		struct nj *k;
		char *key = NULL;

		nj_ws(ps);
		if (obj) {
			if (*ps->p++ != '"')
				return false;
			key = nj_string(ps);
			if (!key)
				return false;
			nj_ws(ps);
			if (*ps->p++ != ':') {
				free(key);
				return false;
			}
		}
		k = realloc(v->kid, (v->n + 1) * sizeof(*k));
		if (!k) {
			free(key);
			return false;
		}
		v->kid = k;
		k = &v->kid[v->n++];
		memset(k, 0, sizeof(*k));
		k->key = key;
		if (!nj_value(ps, k))
			return false;
		nj_ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		return *ps->p++ == close;
	}
}

static bool nj_value(struct nj_parser *ps, struct nj *v)
{
	char *end;

	nj_ws(ps);
	if (++ps->depth > 64)
		return false;
	switch (*ps->p) {
	case '{':
		ps->p++;
		v->type = NJ_OBJ;
		if (!nj_list(ps, v, '}', true))
			return false;
		break;
	case '[':
		ps->p++;
		v->type = NJ_ARR;
		if (!nj_list(ps, v, ']', false))
			return false;
		break;
	case '"':
		ps->p++;
		v->type = NJ_STR;
		v->str = nj_string(ps);
		if (!v->str)
			return false;
		break;
	default:
		if (!strncmp(ps->p, "null", 4)) {
			v->type = NJ_NULL;
			ps->p += 4;
		} else if (!strncmp(ps->p, "true", 4) || !strncmp(ps->p, "false", 5)) {
			v->type = NJ_BOOL;
			v->num = *ps->p == 't';
			ps->p += *ps->p == 't' ? 4 : 5;
		} else if (*ps->p == '-' || isdigit((unsigned char)*ps->p)) {
			v->type = NJ_NUM;
			v->num = strtod(ps->p, &end);
			if (end == ps->p)
				return false;
			ps->p = end;
		} else {
			return false;
		}
	}
	ps->depth--;
	return true;
}

static void nj_free(struct nj *v)
{
	int i;

	for (i = 0; i < v->n; i++)
		nj_free(&v->kid[i]);
	free(v->kid);
	free(v->str);
	free(v->key);
	memset(v, 0, sizeof(*v));
}

/* Parse the whole of @text into @v; false (and @v empty) if it is not JSON. */
static inline bool nj_parse(const char *text, struct nj *v)
{
	struct nj_parser ps = { .p = text };

	memset(v, 0, sizeof(*v));
	if (nj_value(&ps, v)) {
		nj_ws(&ps);
		if (!*ps.p)
			return true;
	}
	nj_free(v);
	return false;
}

/* Member @key of object @v, or NULL. */
static inline const struct nj *nj_get(const struct nj *v, const char *key)
{
	int i;

	if (!v || v->type != NJ_OBJ)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->kid[i].key, key))
			return &v->kid[i];
	return NULL;
}

/* Element @i of array @v, or NULL. */
static inline const struct nj *nj_at(const struct nj *v, int i)
{
	return v && v->type == NJ_ARR && i >= 0 && i < v->n ? &v->kid[i] : NULL;
}

/* The number at @v, or @def when it is not a number. */
static inline double nj_num(const struct nj *v, double def)
{
	return v && v->type == NJ_NUM ? v->num : def;
}

/* The string at @v, or "" when it is not a string. */
static inline const char *nj_str(const struct nj *v)
{
	return v && v->type == NJ_STR ? v->str : "";
}

#endif /* _NEURON_JSON_H */
