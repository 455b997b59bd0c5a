// e2e/kubesim/openapi/builtin_schemas_data.h
//
// The generated component schemas of the built-in kinds (builtin_schemas_data.cc, written by
// gen_builtin_schemas.py): one JSON object split into chunks, to be concatenated in order.
#pragma once

#include <cstddef>
#include <string_view>

namespace berth::kubesim::openapi {

extern const std::string_view kBuiltinSchemaChunks[];
extern const std::size_t kBuiltinSchemaChunkCount;

}  // namespace berth::kubesim::openapi
