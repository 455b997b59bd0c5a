// RecordingSink: a ResponseSink that keeps the one response ApiServer::Handle sends and refuses
// streams (the api tests that call Handle directly share it).
#pragma once

#include <string_view>
#include <utility>

#include "e2e/kubesim/api/api_server.h"

namespace berth::kubesim::testing {

class RecordingSink : public ResponseSink {
 public:
  void Send(HttpResponse response) override { response_ = std::move(response); }
  bool BeginStream(int, std::string_view) override { return false; }
  bool WriteChunk(std::string_view) override { return false; }
  void EndStream() override {}
  HttpResponse response_;
};

}  // namespace berth::kubesim::testing
