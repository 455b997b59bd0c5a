// e2e/kubesim/server/tls.h
//
// In-memory TLS material for kubesim: a throwaway CA and a serving certificate it signs, valid for
// the loopback addresses and the in-cluster service name. Nothing touches disk; the CA PEM goes
// into the kubeconfig so kubectl and client-go verify the server like a real cluster.
#pragma once

#include <string>

#include "clientgo-shim/base/result.h"

namespace berth::kubesim {

// TlsMaterial: PEM text for the CA certificate, the serving certificate and its private key.
struct TlsMaterial {
  std::string ca_cert_pem;
  std::string cert_pem;  // serving certificate (leaf only; the CA is the trust anchor)
  std::string key_pem;   // PKCS#8 private key of the serving certificate
};

// GenerateTlsMaterial creates an EC P-256 CA (CA:TRUE, one year) and a serving certificate signed
// by it with SANs IP:127.0.0.1, IP:::1, DNS:localhost, DNS:kubernetes.default.svc.
// Errors: kInternal with OpenSSL's error text.
Result<TlsMaterial> GenerateTlsMaterial();

}  // namespace berth::kubesim
