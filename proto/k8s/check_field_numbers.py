#!/usr/bin/python3
"""Checks proto/k8s/*.proto against upstream: every message, field name, number, label and type
must equal the descriptor of the same message compiled into kubectl (k8s.io/api and
apimachinery's generated.proto, read out of the binary by kubesim's gen_message_tables.py).

    /usr/bin/python3 proto/k8s/check_field_numbers.py [/path/to/kubectl]

Exit 0 when all match; 1 with one line per mismatch.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "e2e", "kubesim", "protobuf"))
import gen_message_tables as upstream  # noqa: E402

SCALARS = {"double": 1, "float": 2, "int64": 3, "uint64": 4, "int32": 5, "bool": 8, "string": 9,
           "bytes": 12, "uint32": 13}
FIELD = re.compile(r"^\s*(optional|repeated)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)")
# map_entries.proto's entry messages by their value's type (9 string, 11 a message: Quantity).
ENTRY_VALUE = {"berth.kubeproto.StringEntry": 9, "berth.kubeproto.QuantityEntry": 11}
MAP = re.compile(r"^\s*map<\s*string\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)")


def ours():
    """Yields (file, full message name, [(number, name, repeated, scalar type or 11, map value)])."""
    for name in sorted(os.listdir(HERE)):
        if not name.endswith(".proto") or name in ("json_options.proto", "map_entries.proto"):
            continue
        package, message, fields = "", None, []
        for line in open(os.path.join(HERE, name)):
            if m := re.match(r"^package\s+([\w.]+);", line):
                package = m.group(1)
            elif m := re.match(r"^message\s+(\w+)", line):
                message, fields = package + "." + m.group(1), []
            elif line.startswith("}") and message:
                yield name, message, fields
                message = None
            elif message and (m := FIELD.match(line)):
                label, ftype, fname, number = m.groups()
                # A map declared as its entries (map_entries.proto): upstream's field is that map.
                map_value = ENTRY_VALUE.get(ftype) if "map_entries) = true" in line else None
                fields.append((int(number), fname, label == "repeated", SCALARS.get(ftype, 11), map_value))
            elif message and (m := MAP.match(line)):
                value, fname, number = m.groups()
                fields.append((int(number), fname, True, 11, SCALARS.get(value, 11)))


def main():
    binary = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "/usr/bin/kubectl")
    messages = upstream.collect(upstream.read_descriptors(binary))
    if not messages:
        print(f"no k8s.io descriptors found in {binary}")
        return 1
    problems, checked = [], 0
    for file, message, fields in ours():
        if message not in messages:
            problems.append(f"{file}: {message}: no such upstream message")
            continue
        theirs = {e[0]: e for e in messages[message][0]}
        for number, fname, repeated, ftype, map_value in fields:
            checked += 1
            t = theirs.get(number)
            where = f"{file}: {message}.{fname} = {number}"
            if t is None:
                problems.append(f"{where}: upstream has no field {number}")
                continue
            _, tname, tlabel, ttype, ttype_name = t
            if tname != fname:
                problems.append(f"{where}: upstream calls field {number} {tname}")
            if (tlabel == 3) != repeated:
                problems.append(f"{where}: repeated differs from upstream")
            if ttype != ftype:
                problems.append(f"{where}: type {ftype} differs from upstream {ttype}")
            if map_value is not None:
                entry = messages.get(ttype_name)
                if not entry or not entry[1]:
                    problems.append(f"{where}: upstream field is not a map")
                elif [e for e in entry[0] if e[0] == 2][0][3] != map_value:
                    problems.append(f"{where}: map value type differs from upstream")
    for p in problems:
        print(p)
    print(f"{checked} fields checked against {os.path.basename(binary)}: {len(problems)} mismatches")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
