// clientgo-shim/metrics/self_signed_cert.h
//
// The serving certificate secure metrics use when no --metrics-cert-dir is given, as
// controller-runtime's metrics server generates one: self-signed for "localhost" (SANs
// DNS:localhost, IP:127.0.0.1, IP:::1), EC P-256, valid one year, held in memory only (the
// container's root filesystem is read-only). Scrapers of such an endpoint skip verification
// (Prometheus' tls_config.insecure_skip_verify), or mount a real pair with --metrics-cert-dir.
#pragma once

#include <string>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

struct PemPair {
  std::string cert_pem;
  std::string key_pem;
};

// GenerateSelfSignedCert returns a fresh pair. Errors: kInternal with OpenSSL's reason.
Result<PemPair> GenerateSelfSignedCert();

}  // namespace berth::shim
