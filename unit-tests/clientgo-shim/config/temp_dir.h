// unit-tests/clientgo-shim/config/temp_dir.h
//
// TempDir: a fresh directory under $TMPDIR for one test, removed at the end, with helpers to
// write files (optionally executable) into it.
#pragma once

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace berth::shim::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "berth-config-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    path_ = made != nullptr ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

  // Write creates (or replaces) `name` with `content` and returns its full path.
  std::string Write(const std::string& name, const std::string& content, bool executable = false) {
    const std::string full = path_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(full).parent_path());
    std::ofstream(full, std::ios::binary | std::ios::trunc) << content;
    if (executable) ::chmod(full.c_str(), 0755);
    return full;
  }

 private:
  std::string path_;
};

}  // namespace berth::shim::testing
