// fuzz/pod_protobuf_fuzz.cc — the Kubernetes protobuf decoder (clientgo-shim/proto): enveloped
// objects and lists, and length-delimited watch streams cut into chunks at arbitrary points.
// Input: byte 0 picks the mode (0 object, 1 list, 2 watch stream, 3 error Status) and seeds the
// chunk sizes; the rest is the body.
// Properties: no crash; a decoded object or list is JSON that survives a serialize/parse round
// trip unchanged (so the cache can pack it); every refusal has a message; frames do not depend
// on where chunks break.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/proto/protobuf_codec.h"
#include "clientgo-shim/watch/watch_event.h"
#include "fuzz/fuzz_check.h"

namespace {

namespace proto = berth::shim::proto;

void CheckJsonRoundTrip(const rapidjson::Value& value) {
  FUZZ_CHECK(value.IsObject());
  auto again = berth::json::Parse(berth::json::Serialize(value));
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(*again == value);
}

std::vector<std::string> Frames(std::string_view body, size_t chunk_seed, bool* ok) {
  std::vector<std::string> frames;
  proto::FrameReader reader(1 << 16);
  size_t step = 0;
  *ok = true;
  while (!body.empty() && *ok) {
    const size_t n = chunk_seed == 0 ? body.size() : std::min(body.size(), size_t{1} + (chunk_seed + step * 7) % 13);
    ++step;
    auto fed = reader.Feed(body.substr(0, n), [&](std::string_view frame) {
      frames.emplace_back(frame);
      return true;
    });
    if (!fed) {
      FUZZ_CHECK(!fed.error().message.empty());
      *ok = false;
    }
    body.remove_prefix(n);
  }
  return frames;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view body = berth::fuzz::AsText(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0: {
      auto doc = proto::DecodeObject(body);
      if (doc) {
        CheckJsonRoundTrip(*doc);
      } else {
        FUZZ_CHECK(!doc.error().message.empty());
      }
      break;
    }
    case 1: {
      auto page = berth::shim::DecodeListPageAs("application/vnd.kubernetes.protobuf", body);
      // The reflector's path: the metadata scan, then the items one by one (strings referring
      // to the message). Both agree with the whole-page decode.
      std::vector<std::string> items;
      auto each = proto::DecodeListItems(body, [&](rapidjson::Value& item, rapidjson::Document::AllocatorType&) {
        items.push_back(berth::json::Serialize(item));
        return berth::Status{};
      });
      FUZZ_CHECK(each.has_value() == page.has_value());
      if (page) {
        CheckJsonRoundTrip(page->body);
        FUZZ_CHECK(page->Items().IsArray());
        FUZZ_CHECK(items.size() == page->Items().Size());
        for (size_t i = 0; i < items.size(); ++i) FUZZ_CHECK(items[i] == berth::json::Serialize(page->Items()[i]));
        auto scan = proto::ScanListMeta(body);
        if (scan) {
          FUZZ_CHECK(scan->resource_version == page->resource_version);
          FUZZ_CHECK(scan->continue_token == page->continue_token);
        }
      } else {
        FUZZ_CHECK(!page.error().message.empty());
      }
      break;
    }
    case 2: {
      bool whole_ok = false, chunked_ok = false;
      const std::vector<std::string> whole = Frames(body, 0, &whole_ok);
      const std::vector<std::string> chunked = Frames(body, 1 + data[0] / 4, &chunked_ok);
      FUZZ_CHECK(whole_ok == chunked_ok);
      if (whole_ok) FUZZ_CHECK(whole == chunked);
      for (const std::string& frame : whole) {
        auto event = berth::shim::DecodeProtobufWatchEvent(frame);
        if (!event) {
          FUZZ_CHECK(!event.error().message.empty());
          continue;
        }
        CheckJsonRoundTrip(event->object);
        (void)event->ResourceVersion();
        if (event->type == berth::shim::WatchEventType::kError) {
          (void)berth::shim::ErrorFromStatusObject(event->object);
        }
      }
      break;
    }
    default: {
      auto status = proto::StatusJson(body);
      if (status) FUZZ_CHECK(berth::json::Parse(*status).has_value());
      break;
    }
  }
  return 0;
}
