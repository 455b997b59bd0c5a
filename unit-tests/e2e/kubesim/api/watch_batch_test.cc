// Tests for kubesim's WATCH stream: events queued while the stream is busy go out together.
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"

namespace berth::kubesim {
namespace {

// BlockingSink records chunks; the first chunk blocks until Release(), so commits made meanwhile
// queue up on the watcher. It reports the client gone once `want_lines` lines arrived.
class BlockingSink : public ResponseSink {
 public:
  explicit BlockingSink(size_t want_lines) : want_lines_(want_lines) {}
  void Send(HttpResponse response) override {
    std::lock_guard l(mu_);
    error_ = response.body;
    cv_.notify_all();
  }
  bool BeginStream(int, std::string_view) override { return true; }
  bool WriteChunk(std::string_view data) override {
    std::unique_lock l(mu_);
    chunks_.emplace_back(data);
    for (char c : data) lines_ += c == '\n';
    cv_.notify_all();
    if (chunks_.size() == 1) cv_.wait(l, [&] { return released_; });
    return lines_ < want_lines_;
  }
  void EndStream() override {}

  void WaitForFirstChunk() {
    std::unique_lock l(mu_);
    cv_.wait(l, [&] { return !chunks_.empty() || !error_.empty(); });
  }
  void Release() {
    std::lock_guard l(mu_);
    released_ = true;
    cv_.notify_all();
  }
  std::vector<std::string> chunks() {
    std::lock_guard l(mu_);
    return chunks_;
  }
  std::string error() {
    std::lock_guard l(mu_);
    return error_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> chunks_;
  std::string error_;
  size_t lines_ = 0;
  size_t want_lines_;
  bool released_ = false;
};

class WatchBatchTest : public ::testing::Test {
 protected:
  WatchBatchTest() : api_(ApiServerOptions{}, store_, registry_) {
    Create("", "namespaces", "", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}})");
  }
  void Create(const std::string& group, const std::string& plural, const std::string& ns, const std::string& text) {
    auto doc = json::Parse(text);
    ASSERT_TRUE(doc.has_value()) << text;
    OpResult r = api_.DoCreate(*api_.TypeOf(group, plural), ns, std::move(*doc), WriteOptions{"Strict", false, ""});
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->body : "");
  }
  void CreateConfigMap(const std::string& name) {
    Create("", "configmaps", "default",
           R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("}})");
  }
  HttpRequest WatchRequest(uint64_t rv) {
    HttpRequest r;
    r.method = "GET";
    r.path = "/api/v1/namespaces/default/configmaps";
    r.target = r.path + "?watch=true&resourceVersion=" + std::to_string(rv);
    r.query = {{"watch", "true"}, {"resourceVersion", std::to_string(rv)}};
    return r;
  }

  ObjectStore store_;
  Registry registry_;
  ApiServer api_;
};

std::vector<std::string> NamesIn(const std::string& chunk) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start < chunk.size()) {
    size_t end = chunk.find('\n', start);
    if (end == std::string::npos) end = chunk.size();
    auto doc = json::Parse(chunk.substr(start, end - start));
    names.push_back(doc ? std::string(json::GetString(*doc, {"type"})) + " " +
                              std::string(json::GetString(*doc, {"object", "metadata", "name"}))
                        : "<malformed line>");
    start = end + 1;
  }
  return names;
}

TEST_F(WatchBatchTest, EventsCommittedWhileTheStreamIsBusyArriveInOneChunkInCommitOrder) {
  const uint64_t rv = store_.CurrentResourceVersion();
  BlockingSink sink(/*want_lines=*/4);
  HttpRequest request = WatchRequest(rv);
  std::thread watch([&] { api_.Handle(request, sink); });
  CreateConfigMap("cm-0");
  sink.WaitForFirstChunk();  // the stream is now blocked writing cm-0
  CreateConfigMap("cm-1");
  CreateConfigMap("cm-2");
  CreateConfigMap("cm-3");
  sink.Release();
  watch.join();
  ASSERT_EQ(sink.error(), "");
  auto chunks = sink.chunks();
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(NamesIn(chunks[0]), (std::vector<std::string>{"ADDED cm-0"}));
  EXPECT_EQ(NamesIn(chunks[1]), (std::vector<std::string>{"ADDED cm-1", "ADDED cm-2", "ADDED cm-3"}));
}

TEST_F(WatchBatchTest, AnEventAloneIsSentAtOnceWithoutWaitingForMore) {
  const uint64_t rv = store_.CurrentResourceVersion();
  BlockingSink sink(/*want_lines=*/1);
  sink.Release();
  HttpRequest request = WatchRequest(rv);
  std::thread watch([&] { api_.Handle(request, sink); });
  CreateConfigMap("only");
  watch.join();  // returns because the one line arrived (the sink then reports the client gone)
  auto chunks = sink.chunks();
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(NamesIn(chunks[0]), (std::vector<std::string>{"ADDED only"}));
}

}  // namespace
}  // namespace berth::kubesim
