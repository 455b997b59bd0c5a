# BERTH_FUZZ: every library is built with libFuzzer's coverage instrumentation (plus ASan+UBSan,
# set in the top-level CMakeLists), so the fuzz targets in fuzz/ see the parsers' branches.
# scripts/fuzz.sh configures this tree with clang 14 into build-fuzz/.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "BERTH_FUZZ needs clang (libFuzzer), e.g. CXX=clang++-14; got ${CMAKE_CXX_COMPILER_ID}")
endif()
add_compile_options(-fsanitize=fuzzer-no-link
                    -fsanitize-ignorelist=${CMAKE_CURRENT_LIST_DIR}/ubsan_ignorelist.txt)

# clang 14 cannot use libstdc++ 12's std::expected (see fuzz/compat/expected); map it onto
# tl::expected from libexpected-dev when the real one is missing.
include(CheckCXXSourceCompiles)
check_cxx_source_compiles([=[
#include <expected>
int main() { std::expected<int, int> e = 1; return *e - 1; }
]=] BERTH_HAVE_STD_EXPECTED)
if(NOT BERTH_HAVE_STD_EXPECTED)
  find_path(TL_EXPECTED_INCLUDE_DIR tl/expected.hpp REQUIRED)
  include_directories(BEFORE SYSTEM ${CMAKE_CURRENT_LIST_DIR}/compat ${TL_EXPECTED_INCLUDE_DIR})
endif()
