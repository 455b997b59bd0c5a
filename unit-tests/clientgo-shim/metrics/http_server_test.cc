// Tests for clientgo-shim/metrics/http_server.h and probes.h over real sockets.
#include "clientgo-shim/metrics/http_server.h"

#include <atomic>

#include <gtest/gtest.h>

#include "clientgo-shim/metrics/http_fetch.h"
#include "clientgo-shim/metrics/probes.h"

namespace berth::shim {
namespace {

using testing::Fetch;
using testing::Fetched;

TEST(ParseBindAddressTest, AcceptsControllerRuntimeForms) {
  auto a = ParseBindAddress(":8080");
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->enabled);
  EXPECT_EQ(a->host, "");
  EXPECT_EQ(a->port, 8080);
  auto b = ParseBindAddress("127.0.0.1:0");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->host, "127.0.0.1");
  EXPECT_EQ(b->port, 0);
  auto c = ParseBindAddress("[::1]:9");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->host, "::1");
  EXPECT_FALSE(ParseBindAddress("0")->enabled);
  EXPECT_FALSE(ParseBindAddress("")->enabled);
}

TEST(ParseBindAddressTest, RejectsMalformedAddressesNamingThem) {
  for (const char* bad : {"8080", "host:", ":abc", ":70000", ":-1", "h:1x"}) {
    auto r = ParseBindAddress(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(r.error().message.find(std::string("\"") + bad + "\""), std::string::npos)
        << r.error().message;
  }
}

TEST(HttpServerTest, DisabledAddressServesNothingAndReportsPortZero) {
  HttpServer s("0");
  auto p = s.Start();
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, 0);
}

TEST(HttpServerTest, BindFailureIsATransportError) {
  HttpServer a("127.0.0.1:0");
  auto p = a.Start();
  ASSERT_TRUE(p);
  HttpServer b("127.0.0.1:" + std::to_string(*p));
  auto q = b.Start();
  ASSERT_FALSE(q);
  EXPECT_EQ(q.error().code, ErrorCode::kTransport);
}

TEST(HttpServerTest, ServesMetricsPageOverHttpWithTextFormatContentType) {
  Registry r;
  (*r.AddCounter("hits_total", "Hits."))->WithLabelValues({}).Inc(7);
  HttpServer s("127.0.0.1:0");
  ServeMetrics(s, r);
  auto port = s.Start();
  ASSERT_TRUE(port);
  ASSERT_NE(*port, 0);
  Fetched f = Fetch(*port, "/metrics");
  EXPECT_EQ(f.status, 200);
  EXPECT_EQ(f.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(f.body, "# HELP hits_total Hits.\n# TYPE hits_total counter\nhits_total 7\n");
  EXPECT_EQ(Fetch(*port, "/nope").status, 404);
  s.Stop();
  EXPECT_EQ(Fetch(*port, "/metrics").status, 0) << "nothing listens after Stop";
}

TEST(ProbesTest, ReadyzIsOkOnlyOnceEveryCheckPasses) {
  HealthChecks healthz, readyz;
  std::atomic<bool> synced{false};
  readyz.AddCheck("informer-sync", [&]() -> Status {
    if (synced) return {};
    return MakeError(ErrorCode::kInternal, "caches not synced");
  });
  healthz.AddCheck("ping", PingCheck);
  HttpServer s("127.0.0.1:0");
  ServeProbes(s, healthz, readyz);
  auto port = s.Start();
  ASSERT_TRUE(port);

  Fetched h = Fetch(*port, "/healthz");
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(h.body, "ok");
  EXPECT_EQ(h.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(h.nosniff, "nosniff");

  Fetched r = Fetch(*port, "/readyz");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "[-]informer-sync failed: reason withheld\nhealthz check failed\n");
  Fetched one = Fetch(*port, "/readyz/informer-sync");
  EXPECT_EQ(one.status, 500);
  EXPECT_EQ(one.body, "internal server error: caches not synced\n");

  synced = true;
  EXPECT_EQ(Fetch(*port, "/readyz").status, 200);
  EXPECT_EQ(Fetch(*port, "/readyz").body, "ok");
  EXPECT_EQ(Fetch(*port, "/readyz/informer-sync").body, "ok");
  EXPECT_EQ(Fetch(*port, "/readyz/missing").status, 404);
}

TEST(ProbesTest, VerboseListsChecksAndExcludeSkipsOne) {
  HealthChecks checks;
  checks.AddCheck("b", PingCheck);
  checks.AddCheck("a", [] { return Status(MakeError(ErrorCode::kInternal, "x")); });
  HttpServerRequest req;
  req.path = "/healthz";
  req.query["verbose"] = "";
  HttpServerReply fail = checks.Serve(req, "");
  EXPECT_EQ(fail.status, 500);
  EXPECT_EQ(fail.body, "[-]a failed: x\n[+]b ok\nhealthz check failed\n");  // ?verbose: the reason
  req.query["exclude"] = "a";
  HttpServerReply ok = checks.Serve(req, "");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "[+]a excluded: ok\n[+]b ok\nhealthz check passed\n");
  req.query["exclude"] = "zzz";
  req.query.erase("verbose");
  HttpServerReply warn = checks.Serve(req, "");
  EXPECT_EQ(warn.status, 500);
  EXPECT_NE(warn.body.find("warn: some health checks cannot be excluded: no matches for \"zzz\"\n"),
            std::string::npos);
}

TEST(ProbesTest, NoChecksMeansAnImplicitPing) {
  HealthChecks none;
  HttpServerRequest req;
  req.query["verbose"] = "";
  EXPECT_EQ(none.Serve(req, "").body, "[+]ping ok\nhealthz check passed\n");
}

TEST(HttpServerTest, MalformedRequestsDoNotBreakTheServer) {
  HttpServer s("127.0.0.1:0");
  s.Handle("/x", [](const HttpServerRequest& r) {
    HttpServerReply rep;
    rep.body = r.query.count("a") ? r.query.at("a") : "none";
    return rep;
  });
  auto port = s.Start();
  ASSERT_TRUE(port);
  {
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket sock(io);
    sock.connect({boost::asio::ip::make_address("127.0.0.1"), *port});
    boost::asio::write(sock, boost::asio::buffer(std::string("GARBAGE \x01\x02\r\n\r\n")));
    boost::system::error_code ec;
    char buf[64];
    sock.read_some(boost::asio::buffer(buf), ec);  // closed or answered; either is fine
  }
  EXPECT_EQ(Fetch(*port, "/x?a=%41%2").body, "A%2");
  EXPECT_EQ(Fetch(*port, "/x?a=b+c").body, "b c");
}

}  // namespace
}  // namespace berth::shim
