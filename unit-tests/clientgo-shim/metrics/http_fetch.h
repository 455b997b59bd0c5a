// unit-tests/clientgo-shim/metrics/http_fetch.h
//
// Fetch: one plain HTTP/1.1 GET to 127.0.0.1:port with Beast, for tests of the metrics and probe
// servers. Any connection or read error gives status 0, which no server answers.
#pragma once

#include <cstdint>
#include <string>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace berth::shim::testing {

struct Fetched {
  int status = 0;
  std::string body;
  std::string content_type;
  std::string nosniff;  // X-Content-Type-Options
};

inline Fetched Fetch(uint16_t port, const std::string& target) {
  namespace http = boost::beast::http;
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket s(io);
  boost::system::error_code ec;
  s.connect({boost::asio::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return {};
  http::request<http::string_body> req{http::verb::get, target, 11};
  req.set(http::field::host, "localhost");
  http::write(s, req, ec);
  boost::beast::flat_buffer buf;
  http::response<http::string_body> res;
  http::read(s, buf, res, ec);
  if (ec) return {};
  return {static_cast<int>(res.result_int()), res.body(), std::string(res[http::field::content_type]),
          std::string(res["X-Content-Type-Options"])};
}

}  // namespace berth::shim::testing
