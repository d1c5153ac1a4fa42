// SPDX-License-Identifier: GPL-2.0
/*
 * Neuron uapi conformance test.
 *
 * Compares what include/uapi/neuron/ compiles to against the reference
 * driver's ABI (aws-neuronx-dkms 2.27.4.0) as recorded in abi_table.h,
 * and what 2.28 and 2.29 added or changed as recorded in abi_table_229.h:
 * every ioctl command value, the size and alignment of every struct and
 * union, the offset and size of every field, bit-field positions, the
 * width and signedness of every enum, the typedefs, and every constant.
 *
 * Needs no device and no driver; it runs anywhere the headers compile.
 * The expected numbers are for LP64 little-endian targets (x86_64,
 * arm64), the only ABI the driver supports.
 *
 * Each TEST walks one group of facts, logs every mismatch by name, and
 * fails at the end of the group if there was any.
 */

/* First, so that the headers prove they need nothing from libc. */
#include <neuron/neuron_ioctl.h>

#include <stddef.h>
#include <string.h>
#include <linux/ioctl.h>

/*
 * The harness's TEST() wrappers and timeout handler leave parameters
 * unused, which -Wextra reports in this file.  Nothing of ours relies on
 * that warning.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"

/*
 * Totals announced by the reference ABI table.  abi_table.h is generated
 * from that table; these keep a truncated or hand-edited copy from
 * passing with fewer checks.
 */
#define ABI_WANT_COMMANDS	104U
#define ABI_WANT_TYPES		122U	/* 84 arguments + 15 reachable + 23 others */
#define ABI_WANT_CONSTANTS	185U

#define ABI_STR(x)	#x
/* The text a name expands to: the name itself unless it is a macro. */
#define ABI_XSTR(x)	ABI_STR(x)

/* Element types of the tables in abi_table.h. */
struct abi_cmd {
	const char *name;
	unsigned long long got;
	unsigned long long want;
	unsigned int dir;
	unsigned int nr;
	unsigned int size;
};

struct abi_type {
	const char *name;
	size_t size;
	size_t want_size;
	size_t align;
	size_t want_align;
};

/* -1 in a size, signedness or pointer pair: not applicable to the field. */
struct abi_field {
	const char *type;
	const char *field;
	long off;
	long want_off;
	long size;
	long want_size;
	long elem;
	long want_elem;
	int is_signed;
	int want_signed;
	int is_ptr;
	int want_ptr;
};

struct abi_bitfield {
	const char *type;
	const char *field;
	void (*probe)(unsigned char *raw, size_t len, int *is_signed);
	size_t len;
	int want_off;
	int want_width;
	int want_signed;
};

struct abi_enum {
	const char *name;
	size_t size;
	size_t want_size;
	int is_signed;
	int want_signed;
};

struct abi_typedef {
	const char *name;
	const char *target;
	size_t size;
	size_t want_size;
	int same_type;
};

struct abi_const {
	const char *name;
	const char *expansion;
	long long value;
	long long want;
	int want_define;
};

#include "abi_table.h"
#include "abi_table_229.h"

TEST(commands)
{
	unsigned int i, j, bad = 0;

	ASSERT_EQ(ABI_WANT_COMMANDS, ARRAY_SIZE(abi_cmds));

	for (i = 0; i < ARRAY_SIZE(abi_cmds); i++) {
		const struct abi_cmd *c = &abi_cmds[i];
		unsigned int v = (unsigned int)c->got;

		if (c->got != c->want) {
			TH_LOG("%s = 0x%08llx, expected 0x%08llx",
			       c->name, c->got, c->want);
			bad++;
			continue;
		}
		/* The table's own columns must describe the same value. */
		if (_IOC_TYPE(v) != NEURON_IOCTL_BASE || _IOC_DIR(v) != c->dir ||
		    _IOC_NR(v) != c->nr || _IOC_SIZE(v) != c->size) {
			TH_LOG("%s = 0x%08x: type/dir/nr/size %u/%u/%u/%u, table %u/%u/%u/%u",
			       c->name, v, _IOC_TYPE(v), _IOC_DIR(v),
			       _IOC_NR(v), _IOC_SIZE(v),
			       (unsigned int)NEURON_IOCTL_BASE, c->dir, c->nr,
			       c->size);
			bad++;
		}
	}

	/* No two commands may share a value. */
	for (i = 0; i < ARRAY_SIZE(abi_cmds); i++)
		for (j = i + 1; j < ARRAY_SIZE(abi_cmds); j++)
			if (abi_cmds[i].got == abi_cmds[j].got) {
				TH_LOG("%s and %s share the value 0x%08llx",
				       abi_cmds[i].name, abi_cmds[j].name,
				       abi_cmds[i].got);
				bad++;
			}

	ksft_print_msg("commands: %zu checked, %u mismatches\n",
		       ARRAY_SIZE(abi_cmds), bad);
	EXPECT_EQ(0U, bad);
}

TEST(type_sizes)
{
	unsigned int i, bad = 0;

	for (i = 0; i < ARRAY_SIZE(abi_types); i++) {
		const struct abi_type *t = &abi_types[i];

		if (t->size != t->want_size) {
			TH_LOG("sizeof(%s) = %zu, expected %zu",
			       t->name, t->size, t->want_size);
			bad++;
		}
		if (t->align != t->want_align) {
			TH_LOG("alignof(%s) = %zu, expected %zu",
			       t->name, t->align, t->want_align);
			bad++;
		}
	}

	ksft_print_msg("struct/union sizes: %zu types checked, %u mismatches\n",
		       ARRAY_SIZE(abi_types), bad);
	EXPECT_EQ(0U, bad);
}

TEST(field_offsets)
{
	unsigned int i, bad = 0, signs = 0, ptrs = 0;

	for (i = 0; i < ARRAY_SIZE(abi_fields); i++) {
		const struct abi_field *f = &abi_fields[i];

		signs += f->want_signed >= 0;
		ptrs += f->want_ptr >= 0;
		if (f->off != f->want_off) {
			TH_LOG("offsetof(%s, %s) = %ld, expected %ld",
			       f->type, f->field, f->off, f->want_off);
			bad++;
		}
		if (f->size != f->want_size) {
			TH_LOG("sizeof(%s.%s) = %ld, expected %ld",
			       f->type, f->field, f->size, f->want_size);
			bad++;
		}
		if (f->elem != f->want_elem) {
			TH_LOG("sizeof(%s.%s[0]) = %ld, expected %ld",
			       f->type, f->field, f->elem, f->want_elem);
			bad++;
		}
		if (f->is_signed != f->want_signed) {
			TH_LOG("%s.%s is %s, expected %s", f->type, f->field,
			       f->is_signed ? "signed" : "unsigned",
			       f->want_signed ? "signed" : "unsigned");
			bad++;
		}
		/* Callers assign addresses to pointer fields: keep them pointers. */
		if (f->is_ptr != f->want_ptr) {
			TH_LOG("%s.%s is %sa pointer, expected %sa pointer",
			       f->type, f->field, f->is_ptr ? "" : "not ",
			       f->want_ptr ? "" : "not ");
			bad++;
		}
	}

	ksft_print_msg("fields: %zu checked (%u signedness, %u pointer), %u mismatches\n",
		       ARRAY_SIZE(abi_fields), signs, ptrs, bad);
	EXPECT_EQ(0U, bad);
}

/*
 * Each bit-field's probe sets it to all ones in a zeroed object; the bits
 * that changed must be where the table says.  Bit n is bit n % 8 of byte
 * n / 8, which is how the little-endian ABIs number bit-field positions.
 */
TEST(bitfields)
{
	unsigned int i, bad = 0;

	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
		SKIP(return, "bit-field positions are recorded for little-endian ABIs");

	for (i = 0; i < ARRAY_SIZE(abi_bitfields); i++) {
		const struct abi_bitfield *b = &abi_bitfields[i];
		unsigned char raw[64];
		int first = -1, last = -1, count = 0, is_signed, n;

		ASSERT_LE(b->len, sizeof(raw));
		memset(raw, 0, sizeof(raw));
		b->probe(raw, b->len, &is_signed);
		for (n = 0; n < (int)(b->len * 8); n++) {
			if (!(raw[n / 8] & (1u << (n % 8))))
				continue;
			if (first < 0)
				first = n;
			last = n;
			count++;
		}
		if (first != b->want_off || count != b->want_width ||
		    last - first + 1 != count) {
			TH_LOG("%s.%s: %d bits from bit %d (contiguous: %s), want %d from %d",
			       b->type, b->field, count, first,
			       last - first + 1 == count ? "yes" : "no",
			       b->want_width, b->want_off);
			bad++;
		}
		if (is_signed != b->want_signed) {
			TH_LOG("%s.%s is %s, expected %s", b->type, b->field,
			       is_signed ? "signed" : "unsigned",
			       b->want_signed ? "signed" : "unsigned");
			bad++;
		}
	}

	ksft_print_msg("bit-fields: %zu checked, %u mismatches\n",
		       ARRAY_SIZE(abi_bitfields), bad);
	EXPECT_EQ(0U, bad);
}

TEST(enums)
{
	unsigned int i, bad = 0;

	for (i = 0; i < ARRAY_SIZE(abi_enums); i++) {
		const struct abi_enum *e = &abi_enums[i];

		if (e->size != e->want_size) {
			TH_LOG("sizeof(%s) = %zu, expected %zu",
			       e->name, e->size, e->want_size);
			bad++;
		}
		if (e->is_signed != e->want_signed) {
			TH_LOG("%s is %s, expected %s", e->name,
			       e->is_signed ? "signed" : "unsigned",
			       e->want_signed ? "signed" : "unsigned");
			bad++;
		}
	}

	ksft_print_msg("enums: %zu checked, %u mismatches\n",
		       ARRAY_SIZE(abi_enums), bad);
	EXPECT_EQ(0U, bad);
}

TEST(typedefs)
{
	unsigned int i, bad = 0;

	ASSERT_EQ(ABI_WANT_TYPES, ARRAY_SIZE(abi_types) +
		  ARRAY_SIZE(abi_enums) + ARRAY_SIZE(abi_typedefs));

	for (i = 0; i < ARRAY_SIZE(abi_typedefs); i++) {
		const struct abi_typedef *t = &abi_typedefs[i];

		if (t->size != t->want_size) {
			TH_LOG("sizeof(%s) = %zu, expected %zu",
			       t->name, t->size, t->want_size);
			bad++;
		}
		if (!t->same_type) {
			TH_LOG("%s is not %s", t->name, t->target);
			bad++;
		}
	}

	ksft_print_msg("typedefs: %zu checked, %u mismatches\n",
		       ARRAY_SIZE(abi_typedefs), bad);
	EXPECT_EQ(0U, bad);
}

/*
 * Besides its value, each constant must be a macro where the reference
 * has a #define (so that #ifdef works for callers) and an enumerator
 * otherwise: stringizing a name after expansion gives the name back only
 * when it is not a macro.
 */
TEST(constants)
{
	unsigned int i, bad = 0;

	ASSERT_EQ(ABI_WANT_CONSTANTS, ARRAY_SIZE(abi_consts));

	for (i = 0; i < ARRAY_SIZE(abi_consts); i++) {
		const struct abi_const *c = &abi_consts[i];
		int is_define = strcmp(c->name, c->expansion) != 0;

		if (c->value != c->want) {
			TH_LOG("%s = %lld, expected %lld",
			       c->name, c->value, c->want);
			bad++;
		}
		if (is_define != c->want_define) {
			TH_LOG("%s is %s, expected %s", c->name,
			       is_define ? "a macro" : "an enumerator",
			       c->want_define ? "a macro" : "an enumerator");
			bad++;
		}
	}

	ksft_print_msg("constants: %zu checked, %u mismatches\n",
		       ARRAY_SIZE(abi_consts), bad);
	EXPECT_EQ(0U, bad);
}

/*
 * What 2.28 and 2.29 added or changed: command values, sizes, offsets,
 * signedness and constants, as the 2.27 tests check theirs.
 */
TEST(abi_229)
{
	unsigned int i, j, bad = 0;

	for (i = 0; i < ARRAY_SIZE(abi229_cmds); i++) {
		const struct abi_cmd *c = &abi229_cmds[i];
		unsigned int v = (unsigned int)c->got;

		if (c->got != c->want || _IOC_TYPE(v) != NEURON_IOCTL_BASE ||
		    _IOC_DIR(v) != c->dir || _IOC_NR(v) != c->nr || _IOC_SIZE(v) != c->size) {
			TH_LOG("%s = 0x%08x, expected 0x%08llx", c->name, v, c->want);
			bad++;
		}
		/* A new value is no 2.27 command's but the one renamed to it. */
		for (j = 0; j < ARRAY_SIZE(abi_cmds); j++)
			if (abi_cmds[j].got == c->got && strcmp(abi_cmds[j].name, c->name)) {
				TH_LOG("%s has the value of %s", c->name, abi_cmds[j].name);
				bad++;
			}
	}
	for (i = 0; i < ARRAY_SIZE(abi229_types); i++) {
		const struct abi_type *t = &abi229_types[i];

		if (t->size != t->want_size || t->align != t->want_align) {
			TH_LOG("%s: size %zu align %zu, expected %zu and %zu", t->name,
			       t->size, t->align, t->want_size, t->want_align);
			bad++;
		}
	}
	for (i = 0; i < ARRAY_SIZE(abi229_fields); i++) {
		const struct abi_field *f = &abi229_fields[i];

		if (f->off != f->want_off || f->size != f->want_size ||
		    f->is_signed != f->want_signed || f->is_ptr != f->want_ptr) {
			TH_LOG("%s.%s: offset %ld size %ld signed %d pointer %d",
			       f->type, f->field, f->off, f->size, f->is_signed, f->is_ptr);
			TH_LOG("  expected %ld %ld %d %d",
			       f->want_off, f->want_size, f->want_signed, f->want_ptr);
			bad++;
		}
	}
	for (i = 0; i < ARRAY_SIZE(abi229_consts); i++) {
		const struct abi_const *c = &abi229_consts[i];

		if (c->value != c->want || (strcmp(c->name, c->expansion) != 0) != c->want_define) {
			TH_LOG("%s = %lld, expected %lld", c->name, c->value, c->want);
			bad++;
		}
	}
	ksft_print_msg("2.29: %zu commands, %zu types, %zu fields, %zu constants, %u mismatches\n",
		       ARRAY_SIZE(abi229_cmds), ARRAY_SIZE(abi229_types),
		       ARRAY_SIZE(abi229_fields), ARRAY_SIZE(abi229_consts), bad);
	EXPECT_EQ(0U, bad);
}

TEST_HARNESS_MAIN
