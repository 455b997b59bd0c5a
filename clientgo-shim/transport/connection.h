// clientgo-shim/transport/connection.h
//
// One TLS connection to the API server, used by HttpsRestClient (internal to transport/; the
// runtime talks to RestClient). Each Connection owns its own io_context, so a pooled connection
// can be handed from thread to thread and every operation runs on the calling thread with a
// deadline: RunUntil starts one async operation and runs the io_context in slices of at most
// `poll` until it completes, the deadline passes, or the cancel flag is set (then the socket is
// closed and the connection must be discarded).
// Thread-safety: one thread at a time per Connection; TlsContext is shared read-only.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/transport/server_url.h"

namespace berth::shim {

// TlsSettings: what a TLS client context is built from.
struct TlsSettings {
  std::string ca_pem;            // trust anchors (PEM, may hold several); "" = ca_file or system
  std::string ca_file;           // path to a PEM bundle; used when ca_pem is empty
  bool insecure_skip_tls_verify = false;
  std::string client_cert_pem;   // client certificate chain (PEM); "" = none
  std::string client_key_pem;    // its private key (PEM)
};

// MakeTlsContext builds the shared client context (TLS ≥ 1.2, peer verification unless insecure).
// Errors: kInvalidArgument naming the bad piece ("certificate-authority data: no certificate").
Result<std::shared_ptr<boost::asio::ssl::context>> MakeTlsContext(const TlsSettings& settings);

class Connection {
 public:
  using Clock = std::chrono::steady_clock;
  using Stream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

  // How an operation ended when it did not succeed on its own.
  enum class Stop { kNone, kDeadline, kCancelled };

  // Outcome of RunUntil: the operation's error code (operation_aborted after a stop) and why.
  struct Outcome {
    boost::system::error_code ec;
    size_t bytes = 0;
    Stop stop = Stop::kNone;
  };

  explicit Connection(std::shared_ptr<boost::asio::ssl::context> tls);
  ~Connection();

  // Open resolves, connects and handshakes, verifying the certificate for `tls_name` (the host
  // of the URL, or tls-server-name). Errors: kTransport / kTimeout with the step and the reason
  // (certificate problems include OpenSSL's verify text).
  Status Open(const ServerUrl& server, const std::string& tls_name, bool verify,
              Clock::time_point deadline, const std::atomic<bool>* cancel);

  // RunUntil starts `start(handler)` and drives it to completion as described above.
  // `handler` has the signature void(error_code, size_t).
  template <class StartOp>
  Outcome RunUntil(StartOp&& start, Clock::time_point deadline, const std::atomic<bool>* cancel,
                   Clock::duration poll = std::chrono::seconds(1));

  // ReadSomeUntil drives a synchronous read on the (non-blocking) socket: `read(ec)` takes what
  // the buffers, the TLS engine and the socket already hold, and reports would_block when that
  // is nothing; it is retried once the socket is readable, with the deadline and the cancel flag
  // checked every `poll` as RunUntil does. A body streamed this way costs a read per TLS record,
  // where an asynchronous read also dispatches a chain of handlers per record, each with a
  // reactor poll (most of the client's CPU when it streams a large LIST). Returns what the last
  // read returned, or the stop (the socket is then closed).
  template <class ReadOp>
  Outcome ReadSomeUntil(ReadOp&& read, Clock::time_point deadline, const std::atomic<bool>* cancel,
                        Clock::duration poll = std::chrono::seconds(1));

  // TlsFailure: after Open failed in the TLS handshake (not by deadline or cancel), why: the
  // certificate verify error ("unable to get local issuer certificate", "Hostname mismatch")
  // or the handshake error ("wrong version number"); "" otherwise.
  const std::string& TlsFailure() const { return tls_failure_; }

  // Close shuts the socket without a TLS close_notify (the peer may already be gone).
  void Close();

  Stream& stream() { return stream_; }
  boost::beast::flat_buffer& buffer() { return buffer_; }
  bool IsOpen() const;

  // Pool bookkeeping.
  int uses = 0;                  // requests completed on this connection
  Clock::time_point idle_since;  // when it went back to the pool

 private:
  void Abort();
  // WaitReadable blocks until the socket is readable (true) or `until` passes (false); a poll
  // failure other than EINTR is set in `ec`.
  bool WaitReadable(Clock::time_point until, boost::system::error_code& ec);

  boost::asio::io_context ioc_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  Stream stream_;
  boost::beast::flat_buffer buffer_;
  std::string tls_failure_;
};

template <class StartOp>
Connection::Outcome Connection::RunUntil(StartOp&& start, Clock::time_point deadline,
                                         const std::atomic<bool>* cancel, Clock::duration poll) {
  Outcome out;
  bool done = false;
  start([&out, &done](boost::system::error_code ec, size_t bytes) {
    out.ec = ec;
    out.bytes = bytes;
    done = true;
  });
  ioc_.restart();
  while (!done) {
    if (out.stop == Stop::kNone) {
      const Clock::time_point now = Clock::now();
      if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
        out.stop = Stop::kCancelled;
      } else if (now >= deadline) {
        out.stop = Stop::kDeadline;
      }
      if (out.stop != Stop::kNone) {
        Abort();  // completes the pending operation with an error
      } else {
        ioc_.run_for(std::min<Clock::duration>(poll, deadline - now));
      }
    } else {
      ioc_.run_for(std::chrono::milliseconds(100));
    }
    if (ioc_.stopped() && !done) ioc_.restart();
  }
  return out;
}

template <class ReadOp>
Connection::Outcome Connection::ReadSomeUntil(ReadOp&& read, Clock::time_point deadline,
                                              const std::atomic<bool>* cancel, Clock::duration poll) {
  Outcome out;
  // Checked before every read as well as while waiting, as RunUntil does before every operation:
  // a body that never pauses still ends at the deadline or on cancel.
  const auto stopped = [&](Clock::time_point now) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
      out.stop = Stop::kCancelled;
    } else if (now >= deadline) {
      out.stop = Stop::kDeadline;
    } else {
      return false;
    }
    out.ec = boost::asio::error::operation_aborted;
    Abort();
    return true;
  };
  while (true) {
    if (stopped(Clock::now())) return out;
    out.ec = {};
    out.bytes = read(out.ec);
    if (out.ec != boost::asio::error::would_block) return out;
    for (Clock::time_point now = Clock::now();; now = Clock::now()) {
      if (stopped(now)) return out;
      boost::system::error_code poll_error;
      const bool readable = WaitReadable(now + std::min<Clock::duration>(poll, deadline - now), poll_error);
      if (poll_error) {
        out.ec = poll_error;
        Abort();
        return out;
      }
      if (readable) break;
    }
  }
}

}  // namespace berth::shim
