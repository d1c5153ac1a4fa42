#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the compiled ABI table (abi-table.md) into selftests/abi/abi_table.h.

The output holds one static table per group of facts (command values,
type sizes and alignments, field offsets and sizes, bit-field positions,
enum widths and signedness, typedefs, constants).  Each row pairs the C
expression that measures the fact (sizeof, offsetof, the macro itself)
with the number the reference table records; selftests/abi/abi_test.c
defines the row types and compares the two.  Lines are kept within 100
columns so that checkpatch --strict accepts the file.  The generated file
is committed, so building or running the selftest never needs this
script or the markdown table.

Usage:
    tools/abi/gen_abi_table.py PATH/TO/abi-table.md > selftests/abi/abi_table.h
    tools/abi/gen_abi_table.py --check PATH/TO/abi-table.md selftests/abi/abi_table.h

With --check nothing is written; the exit status says whether the
committed file is what the table generates.

The script refuses to write anything if the counts it parses differ from
the ones the table's own headings announce (104 commands, 84 + 15 + 23
types, 185 constants), so a truncated or reformatted table cannot produce
a silently smaller test.
"""

import io
import re
import sys

# The _IOC_DIR value each _IOx() macro encodes, spelled as in <linux/ioctl.h>.
DIRS = {
    "_IO": "_IOC_NONE",
    "_IOR": "_IOC_READ",
    "_IOW": "_IOC_WRITE",
    "_IOWR": "_IOC_READ | _IOC_WRITE",
}

HEAD_RE = re.compile(r"^### `([^`]+)`(.*)$")
SIZE_ALIGN_RE = re.compile(r"sizeof (\d+), align (\d+)")
SIZE_RE = re.compile(r"sizeof (\d+)")
TYPEDEF_RE = re.compile(r"^\s*\(typedef of `([^`]+)`\)")
SECTION_RE = re.compile(r"^## (\d+)\. .*?(?:\((\d+)(?: macros)?\))?\s*$")


def die(msg):
    sys.stderr.write("gen_abi_table: %s\n" % msg)
    sys.exit(1)


def cells(line):
    parts = [c.strip() for c in line.strip().split("|")]
    return parts[1:-1]


def unquote(s):
    return s.replace("`", "").strip()


# 2.27 facts whose name 2.29 gave to something else and kept, for the old
# value, under a new name: the 2.27 fact is checked under its 2.29 name
# (abi-2.28-2.30.md, 4.1 and 4.2).  What 2.29 added is checked by
# selftests/abi/abi_table_229.h.
RENAMED_IN_229 = {
    "NEURON_IOCTL_MEM_BUF_ZEROCOPY64": "NEURON_IOCTL_MEM_BUF_ZEROCOPY64_DEPRECATED",
    "struct neuron_ioctl_mem_buf_copy64zc":
        "struct neuron_ioctl_mem_buf_copy64zc_deprecated",
}


def renamed(name):
    return RENAMED_IN_229.get(name, name)


def type_spelling(name):
    """(display name, C spelling or None, (parent, member) or None).

    The unnamed struct used as an array element inside another struct has
    no C spelling of its own; it is reached through its parent.
    """
    m = re.match(r"^(\w+)\.(\w+)\[\]$", name)
    if m:
        return (name, None, ("struct " + m.group(1), m.group(2)))
    return (name, name, None)


INTEGER_BASE_RE = re.compile(
    r"^(?:volatile\s+)?(?:__[us](?:8|16|32|64)|size_t|pid_t|int|"
    r"long unsigned int|nrt_tensor_batch_(?:offset|size)_t|enum \w+)$")


def decl_kind(decl, fname, notes):
    """(signedness, is_pointer) to check for a member, -1 where the check
    does not apply.  Signedness is checked for integer scalars and integer
    array elements (not char, whose signedness differs between x86_64 and
    arm64); pointer-ness for every member that is not an array."""
    d = re.sub(r"\s*:\s*\d+$", "", decl.replace("`", "").strip())
    is_array = d.endswith("]")
    d = re.sub(r"\[[^]]*\]$", "", d).strip()
    if not d.endswith(fname):
        die("cannot find member name %s in %r" % (fname, decl))
    base = d[:-len(fname)].strip()
    pointer = "*" in base
    sign = -1
    if not pointer and INTEGER_BASE_RE.match(base):
        sign = 1 if re.search(r"\bsigned\b", notes) else 0
    return sign, (-1 if is_array else int(pointer))


class Table:
    def __init__(self):
        self.cmds = []
        self.types = []         # (spelling, size, align)
        self.fields = []        # tuples, first item is the macro name
        self.enums = []         # (spelling, size, signed)
        self.typedefs = []      # (name, target, size)
        self.consts = []        # (name, value, is_define)
        self.announced = {}     # section number -> announced count
        self.section_types = {}  # section number -> parsed type count


def parse(path):
    t = Table()
    section = 0
    cur = None                  # C spelling of the type whose rows follow
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()

    for line in lines:
        m = SECTION_RE.match(line)
        if m:
            section = int(m.group(1))
            if m.group(2):
                t.announced[section] = int(m.group(2))
            cur = None
            continue

        if section == 1 and re.match(r"^\| \d+ \|", line):
            c = cells(line)
            name = renamed(unquote(c[1]))
            d = c[2]
            if d not in DIRS:
                die("unknown direction %r for %s" % (d, name))
            t.cmds.append((name, int(unquote(c[6]), 16), DIRS[d],
                           int(c[3]), int(c[5])))
            continue

        if section in (2, 3, 4):
            m = HEAD_RE.match(line)
            if m:
                name, rest = renamed(m.group(1)), m.group(2)
                t.section_types[section] = \
                    t.section_types.get(section, 0) + 1
                td = TYPEDEF_RE.match(rest)
                if td:
                    size = int(SIZE_RE.search(rest).group(1))
                    t.typedefs.append((name, td.group(1), size))
                    cur = None
                    continue
                if name.startswith("enum ") or \
                        re.search(r"sizeof \d+, (un)?signed", rest):
                    mm = re.search(r"sizeof (\d+), (unsigned|signed)", rest)
                    if not mm:
                        die("cannot parse enum heading: %s" % line)
                    t.enums.append((name, int(mm.group(1)),
                                    1 if mm.group(2) == "signed" else 0))
                    cur = None
                    continue
                mm = SIZE_ALIGN_RE.search(rest)
                if not mm:
                    die("cannot parse type heading: %s" % line)
                cur = type_spelling(name)
                t.types.append((cur, int(mm.group(1)), int(mm.group(2))))
                continue

            if cur and line.startswith("| `"):
                c = cells(line)
                fname = unquote(c[0])
                off, size, notes = c[2], c[3], c[4]
                sign, ptr = decl_kind(c[1], fname, notes)
                if off == "bits":
                    bm = re.match(r"off=(\d+) width=(\d+) signed=(\d)", size)
                    if not bm:
                        die("cannot parse bit-field %s.%s" % (cur, fname))
                    t.fields.append(("ABI_BITFIELD", cur, fname,
                                     int(bm.group(1)), int(bm.group(2)),
                                     int(bm.group(3))))
                elif size == "0 (flex)":
                    em = re.search(r"elem size (\d+)", notes)
                    if not em:
                        die("flexible array without element size: %s.%s"
                            % (cur, fname))
                    t.fields.append(("ABI_FLEX", cur, fname, int(off),
                                     int(em.group(1))))
                else:
                    am = re.search(r"(\d+) x (\d+)", notes)
                    if am:
                        n, esz = int(am.group(1)), int(am.group(2))
                        if n * esz != int(size):
                            die("array %s.%s: %d x %d != %s"
                                % (cur, fname, n, esz, size))
                        t.fields.append(("ABI_ARRAY", cur, fname, int(off),
                                         int(size), esz, sign, ptr))
                    else:
                        t.fields.append(("ABI_FIELD", cur, fname, int(off),
                                         int(size), sign, ptr))
            continue

        if section == 5 and line.startswith("| `"):
            c = cells(line)
            name = unquote(c[0])
            origin = c[2]
            t.consts.append((name, int(c[1]), 1 if "#define" in origin else 0))

    return t


def check_counts(t):
    want_cmds = t.announced.get(1)
    if want_cmds is None or len(t.cmds) != want_cmds:
        die("parsed %d commands, table announces %s" % (len(t.cmds),
                                                          want_cmds))
    for sec in (2, 3, 4):
        want = t.announced.get(sec)
        got = t.section_types.get(sec, 0)
        if want is None or got != want:
            die("section %d: parsed %d types, table announces %s"
                % (sec, got, want))
    want = t.announced.get(5)
    if want is None or len(t.consts) != want:
        die("parsed %d constants, table announces %s" % (len(t.consts),
                                                           want))
    if len({c[1] for c in t.cmds}) != len(t.cmds):
        die("duplicate command values in the table")


MAX_COLS = 100


def cols(line):
    """Display width of a line, tabs counted to the next multiple of 8."""
    n = 0
    for ch in line:
        n = (n + 8) & ~7 if ch == "\t" else n + 1
    return n


def indent_to(col):
    return "\t" * (col // 8) + " " * (col % 8)


def call(fn, args, col):
    """fn(a, b) starting at display column col; wrapped at the comma with
    the continuation aligned just inside the parenthesis if too long."""
    one = "%s(%s)" % (fn, ", ".join(args))
    if col + len(one) + 2 <= MAX_COLS:
        return [one]
    inner = col + len(fn) + 1
    lines = ["%s(%s," % (fn, args[0])]
    for i, a in enumerate(args[1:]):
        end = ")" if i == len(args) - 2 else ","
        lines.append(indent_to(inner) + a + end)
    return lines


class Out:
    """Collects the generated text and refuses lines wider than MAX_COLS."""

    def __init__(self):
        self.lines = []

    def __call__(self, text=""):
        for line in text.split("\n"):
            if cols(line) > MAX_COLS:
                die("generated line too long (%d): %s" % (cols(line), line))
            self.lines.append(line)

    def entry(self, items):
        """One array element.  String items and "-1, -1" (not applicable)
        share a line while it stays within MAX_COLS; every other item
        starts a line of its own, indented two columns past the brace.  An item given as a list of lines is emitted as is
        (its later lines carry their own indentation)."""
        out = []
        cur = None
        for idx, item in enumerate(items):
            tail = " }," if idx == len(items) - 1 else ","
            if isinstance(item, list):
                if cur is not None:
                    out.append(cur)
                    cur = None
                lead = "\t{ " if not out else "\t  "
                lines = [lead + item[0]] + item[1:]
                lines[-1] += tail
                out.extend(lines)
                continue
            if cur is not None and (item.startswith('"') or
                                    item == "-1, -1") and \
                    cols(cur + " " + item + tail) <= MAX_COLS:
                cur += " " + item + tail
                continue
            if cur is not None:
                out.append(cur)
            cur = ("\t{ " if not out else "\t  ") + item + tail
        if cur is not None:
            out.append(cur)
        for line in out:
            self(line)

    def text(self):
        return "\n".join(self.lines) + "\n"


def cstr(s):
    return '"%s"' % s


# Column at which an entry's continuation items start ("\t  ").
ITEM_COL = 10


def member_exprs(tkey, field):
    """C expressions for offsetof, the member itself (for sizeof) and the
    element type (for arrays), for type tkey and member field."""
    display, spelling, nested = tkey
    if nested is None:
        off = call("offsetof", ["ABI_T", field], ITEM_COL)
        return off, "((ABI_T *)0)->%s" % field
    parent, member = nested
    path = "%s[0].%s" % (member, field)
    off_a = call("offsetof", ["ABI_T", path], ITEM_COL)
    off_b = call("offsetof", ["ABI_T", member], ITEM_COL)
    off_b[0] = indent_to(ITEM_COL) + off_b[0]
    off = off_a[:-1] + [off_a[-1] + " -"] + off_b
    return off, "((ABI_T *)0)->%s" % path


def block_define(w, tkey):
    display, spelling, nested = tkey
    w("\t/* %s */" % display)
    w("#define ABI_T %s" % (spelling if nested is None else nested[0]))


def emit(t, out):
    w = Out()
    w("/* SPDX-License-Identifier: GPL-2.0 */")
    w("/*")
    w(" * Expected Neuron userspace ABI on LP64 (x86_64, arm64).")
    w(" *")
    w(" * GENERATED by tools/abi/gen_abi_table.py from the compiled ABI table")
    w(" * of the 2.27.4.0 reference headers.  Do not edit by hand: regenerate")
    w(" * and commit the result.  Included by abi_test.c, which defines the")
    w(" * element types and ABI_XSTR().  Facts 2.29 kept under another name")
    w(" * are checked under that name (RENAMED_IN_229 in the script).")
    w(" *")
    w(" * %d commands, %d struct/union types, %d fields (%d bit-fields),"
      % (len(t.cmds), len(t.types), len(t.fields),
         sum(1 for f in t.fields if f[0] == "ABI_BITFIELD")))
    w(" * %d enums, %d typedefs, %d constants."
      % (len(t.enums), len(t.typedefs), len(t.consts)))
    w(" */")
    w()

    w("/* name, value, expected value, expected dir, nr, size */")
    w("static const struct abi_cmd abi_cmds[] = {")
    for name, val, d, nr, size in t.cmds:
        w.entry([cstr(name), name,
                 "0x%08xU, %s, %d, %d" % (val, d, nr, size)])
    w("};")
    w()

    w("/* name, size, expected size, alignment, expected alignment */")
    w("static const struct abi_type abi_types[] = {")
    for tkey, size, align in t.types:
        display, spelling, nested = tkey
        if nested is None:
            w.entry([cstr(display), "sizeof(%s), %d" % (spelling, size),
                     "__alignof__(%s), %d" % (spelling, align)])
        else:
            w("#define ABI_T %s" % nested[0])
            elem = "((ABI_T *)0)->%s[0]" % nested[1]
            w.entry([cstr(display), "sizeof(%s), %d" % (elem, size),
                     "__alignof__(%s), %d" % (elem, align)])
            w("#undef ABI_T")
    w("};")
    w()

    w("/*")
    w(" * type, field, offset, expected offset, size, expected size,")
    w(" * element size, expected element size, signedness, expected")
    w(" * signedness, is a pointer, expected to be a pointer; -1 where not")
    w(" * applicable (no size for a flexible array, no element size for a")
    w(" * scalar, no signedness for non-integers, no pointer check for")
    w(" * arrays).  Type class 5 is a pointer for gcc and clang.")
    w(" */")
    w("static const struct abi_field abi_fields[] = {")
    cur = None
    for fld in t.fields:
        kind, tkey, fname = fld[0], fld[1], fld[2]
        if kind == "ABI_BITFIELD":
            continue
        if tkey != cur:
            if cur is not None:
                w("#undef ABI_T")
            block_define(w, tkey)
            cur = tkey
        off, member = member_exprs(tkey, fname)
        sign = ptr = "-1, -1"
        if kind == "ABI_FIELD":
            size = "sizeof(%s), %d" % (member, fld[4])
            elem = "-1, -1"
            scalar = member
            want_sign, want_ptr = fld[5], fld[6]
        elif kind == "ABI_ARRAY":
            size = "sizeof(%s), %d" % (member, fld[4])
            elem = "sizeof(%s[0]), %d" % (member, fld[5])
            scalar = member + "[0]"
            want_sign, want_ptr = fld[6], fld[7]
        else:  # ABI_FLEX
            size = "-1, -1"
            elem = "sizeof(%s[0]), %d" % (member, fld[4])
            want_sign = want_ptr = -1
        if want_sign >= 0:
            sign = "!((__typeof__(%s))(-1) > 0), %d" % (scalar, want_sign)
        if want_ptr >= 0:
            ptr = "__builtin_classify_type(%s) == 5, %d" % (member, want_ptr)
        off = off[:-1] + [off[-1] + ", %d" % fld[3]]
        w.entry([cstr(tkey[0]), cstr(fname), off, size, elem, sign, ptr])
    if cur is not None:
        w("#undef ABI_T")
    w("};")
    w()

    bits = [f for f in t.fields if f[0] == "ABI_BITFIELD"]
    w("/*")
    w(" * Bit-fields have no address: each probe sets one to all ones in a")
    w(" * zeroed object and hands back the object's bytes and whether the")
    w(" * field reads back as negative.")
    w(" */")
    for i, (_, tkey, fname, boff, width, signed) in enumerate(bits):
        if tkey[2] is not None:
            die("bit-field in a nested unnamed struct is not supported")
        w()
        w("/* %s.%s */" % (tkey[0], fname))
        w("static void abi_bf_probe_%d(unsigned char *raw, size_t len, "
          "int *is_signed)" % i)
        w("{")
        w("\t%s v;" % tkey[1])
        w()
        w("\tmemset(&v, 0, sizeof(v));")
        w("\tv.%s--;" % fname)
        w("\t*is_signed = !(v.%s > 0);" % fname)
        w("\tmemcpy(raw, &v, len < sizeof(v) ? len : sizeof(v));")
        w("}")
    w()
    w("/* type, field, probe, object size, bit offset, width, signedness */")
    w("static const struct abi_bitfield abi_bitfields[] = {")
    for i, (_, tkey, fname, boff, width, signed) in enumerate(bits):
        w.entry([cstr(tkey[0]), cstr(fname),
                 "abi_bf_probe_%d, sizeof(%s)" % (i, tkey[1]),
                 "%d, %d, %d" % (boff, width, signed)])
    w("};")
    w()

    w("/* name, size, expected size, signedness, expected signedness */")
    w("static const struct abi_enum abi_enums[] = {")
    for name, size, signed in t.enums:
        w.entry([cstr(name), "sizeof(%s), %d" % (name, size),
                 "!((%s)0 - 1 > 0), %d" % (name, signed)])
    w("};")
    w()

    w("/*")
    w(" * name, target, size, expected size, whether the typedef is the")
    w(" * type the reference defines it as.  The reference's uint64_t")
    w(" * typedefs are __u64 here: for those, an unsigned type of size 8")
    w(" * aligned to 8 is required.")
    w(" */")
    w("static const struct abi_typedef abi_typedefs[] = {")
    for name, target, size in t.typedefs:
        if target.startswith("struct ") or target.startswith("union "):
            same = call("__builtin_types_compatible_p", [name, target],
                        ITEM_COL)
            w.entry([cstr(name), cstr(target),
                     "sizeof(%s), %d" % (name, size), same])
        elif target == "uint64_t":
            w.entry([cstr(name), cstr("an unsigned 64-bit integer"),
                     "sizeof(%s), %d" % (name, size),
                     ["(%s)0 - 1 > 0 &&" % name,
                      indent_to(ITEM_COL) + "__alignof__(%s) == 8" % name]])
        else:
            die("typedef %s of unexpected target %s" % (name, target))
    w("};")
    w()

    w("/* name, expansion, value, expected value, expected to be a macro */")
    w("static const struct abi_const abi_consts[] = {")
    for name, val, is_define in t.consts:
        w.entry([cstr(name), "ABI_XSTR(%s)" % name,
                 "%s, %dLL, %d" % (name, val, is_define)])
    w("};")

    out.write(w.text())


def main():
    args = sys.argv[1:]
    check = bool(args) and args[0] == "--check"
    if check:
        args = args[1:]
    if len(args) != (2 if check else 1):
        die("usage: gen_abi_table.py abi-table.md > abi_table.h\n"
            "       gen_abi_table.py --check abi-table.md abi_table.h")
    t = parse(args[0])
    check_counts(t)
    if not check:
        emit(t, sys.stdout)
        return
    buf = io.StringIO()
    emit(t, buf)
    with open(args[1], encoding="utf-8") as f:
        if f.read() != buf.getvalue():
            die("%s is stale: regenerate it from %s" % (args[1], args[0]))
    sys.stderr.write("gen_abi_table: %s is up to date\n" % args[1])


if __name__ == "__main__":
    main()
