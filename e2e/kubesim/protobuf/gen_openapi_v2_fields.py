#!/usr/bin/python3
"""Generates openapi_v2_fields.h: the field numbers of gnostic's OpenAPIv2 messages (openapi.v2).

kubectl requests /openapi/v2 as `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`, the
gnostic-models `openapi_v2.Document`. That package is built with the protobuf-go API v2, which
embeds each file's FileDescriptorProto uncompressed (`file_openapiv2_OpenAPIv2_proto_rawDesc`), so
the numbers are read from the kubectl binary rather than transcribed by hand. The encoder
(openapi_v2_encoder.cc) uses the constants; the message shapes (oneofs, Named* maps) follow the
descriptor too and are written out there.

Regenerate (from the repository root):
    /usr/bin/python3 e2e/kubesim/protobuf/gen_openapi_v2_fields.py [/path/to/kubectl] \
        > e2e/kubesim/protobuf/openapi_v2_fields.h
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_message_tables import fields, varint  # noqa: E402

FILE_NAME = b"openapiv2/OpenAPIv2.proto"


def read_file_descriptor(binary):
    data = open(binary, "rb").read()
    for m in re.finditer(re.escape(b"\x0a" + bytes([len(FILE_NAME)]) + FILE_NAME), data):
        # The raw descriptor is not length-prefixed in the binary: read fields while they look like
        # FileDescriptorProto's length-delimited ones.
        i, out = m.start(), []
        try:
            while i < len(data):
                key, j = varint(data, i)
                number, wire = key >> 3, key & 7
                if wire != 2 or number not in range(1, 13):
                    break
                n, j = varint(data, j)
                out.append((number, data[j:j + n]))
                i = j + n
        except IndexError:
            pass
        if any(f == 4 for f, _ in out) and any(f == 2 and v == b"openapi.v2" for f, v in out):
            return out
    raise SystemExit(f"{FILE_NAME.decode()} not found in {binary}")


def camel(name):
    return "k" + "".join(p[:1].upper() + p[1:] for p in name.split("_") if p)


def main():
    binary = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "/usr/bin/kubectl")
    out = ["// e2e/kubesim/protobuf/openapi_v2_fields.h -- GENERATED, do not edit.\n//\n",
           "// Field numbers of gnostic's openapi.v2 messages (openapiv2/OpenAPIv2.proto), read from the\n",
           f"// descriptor compiled into kubectl ({os.path.basename(binary)}). Regenerate with:\n",
           "//   /usr/bin/python3 e2e/kubesim/protobuf/gen_openapi_v2_fields.py > "
           "e2e/kubesim/protobuf/openapi_v2_fields.h\n",
           "#pragma once\n\n#include <cstdint>\n\nnamespace berth::kubesim::protobuf::openapi_v2 {\n\n"]
    for f, v in read_file_descriptor(binary):
        if f != 4:
            continue
        msg = fields(v)
        name = [x for n, x in msg if n == 1][0].decode()
        out.append(f"struct {name} {{\n")
        for n, x in msg:
            if n == 2:
                d = {}
                for a, b in fields(x):
                    d.setdefault(a, b)
                out.append(f"  static constexpr std::uint32_t {camel(d[1].decode())} = {d[3]};\n")
        out.append("};\n")
    out.append("\n}  // namespace berth::kubesim::protobuf::openapi_v2\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
