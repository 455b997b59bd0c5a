// fuzz/watch_stream_fuzz.cc — the watch-stream framing (transport/line_splitter) and decoding
// (watch/watch_event): a body cut into chunks at arbitrary points, as the network delivers it.
// Input: byte 0 seeds the chunk sizes, the rest is the body.
// Properties: no crash; the lines (and so the decoded events) do not depend on where chunks
// break; every line decodes or is refused with a message; the body as a LIST page decodes item by
// item (DecodeListItemsInsitu) exactly when the whole-page document does, with as many items.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "clientgo-shim/transport/line_splitter.h"
#include "clientgo-shim/watch/watch_event.h"
#include "fuzz/fuzz_check.h"

namespace {

using berth::shim::LineSplitter;

std::vector<std::string> SplitWhole(std::string_view body) {
  std::vector<std::string> lines;
  LineSplitter splitter;
  auto fed = splitter.Feed(body, [&](std::string_view line) {
    lines.emplace_back(line);
    return true;
  });
  FUZZ_CHECK(fed.has_value() && *fed);
  splitter.Finish([&](std::string_view line) {
    lines.emplace_back(line);
    return true;
  });
  return lines;
}

std::vector<std::string> SplitChunked(std::string_view body, uint8_t seed) {
  std::vector<std::string> lines;
  LineSplitter splitter;
  size_t step = 0;
  while (!body.empty()) {
    const size_t n = std::min(body.size(), size_t{1} + (seed + step * 7) % 13);
    ++step;
    auto fed = splitter.Feed(body.substr(0, n), [&](std::string_view line) {
      lines.emplace_back(line);
      return true;
    });
    FUZZ_CHECK(fed.has_value() && *fed);
    body.remove_prefix(n);
  }
  splitter.Finish([&](std::string_view line) {
    lines.emplace_back(line);
    return true;
  });
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view body = berth::fuzz::AsText(data + 1, size - 1);
  const std::vector<std::string> lines = SplitChunked(body, data[0]);
  FUZZ_CHECK(lines == SplitWhole(body));
  for (const std::string& line : lines) {
    FUZZ_CHECK(!line.empty() && line.find('\n') == std::string::npos);
    auto event = berth::shim::DecodeWatchEvent(line);
    if (!event) {
      FUZZ_CHECK(!event.error().message.empty());
      continue;
    }
    (void)event->ResourceVersion();
    if (event->type == berth::shim::WatchEventType::kError) {
      const berth::Error error = berth::shim::ErrorFromStatusObject(event->object);
      (void)error;
    }
  }
  // The LIST body item by item (the reflector's decode) agrees with the whole-page document.
  std::string whole(body), each(body);
  auto page = berth::shim::DecodeListPageInsitu(whole);
  size_t items = 0;
  auto meta = berth::shim::DecodeListItemsInsitu(
      each, [&](rapidjson::Value&, rapidjson::Document::AllocatorType&) -> berth::Status {
        ++items;
        return {};
      });
  FUZZ_CHECK(static_cast<bool>(page) == static_cast<bool>(meta));
  if (page) {
    FUZZ_CHECK(page->Items().IsArray());
    FUZZ_CHECK(items == page->Items().Size());
    FUZZ_CHECK(meta->resource_version == page->resource_version && meta->continue_token == page->continue_token);
  } else {
    FUZZ_CHECK(!meta.error().message.empty());
  }
  return 0;
}
