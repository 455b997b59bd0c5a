#include "clientgo-shim/metrics/self_signed_cert.h"

#include <memory>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace berth::shim {
namespace {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;

void BioFree(BIO* b) { BIO_free(b); }
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BioFree>>;

std::unexpected<Error> OpenSslError(const std::string& step) {
  std::string message = "self-signed certificate: " + step;
  for (unsigned long code = ERR_get_error(); code != 0; code = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof(buf));
    message += std::string(": ") + buf;
  }
  return MakeError(ErrorCode::kInternal, message);
}

Result<std::string> Pem(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  if (len < 0 || data == nullptr) return OpenSslError("read PEM buffer");
  return std::string(data, static_cast<size_t>(len));
}

}  // namespace

Result<PemPair> GenerateSelfSignedCert() {
  ERR_clear_error();
  PkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return OpenSslError("generate EC P-256 key");
  X509Ptr cert(X509_new());
  if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1) return OpenSslError("new certificate");
  unsigned char serial_bytes[8];
  if (RAND_bytes(serial_bytes, sizeof(serial_bytes)) != 1) return OpenSslError("random serial");
  uint64_t serial = 0;
  for (unsigned char b : serial_bytes) serial = (serial << 8) | b;
  serial = (serial & 0x7fffffffffffffffULL) | 1;  // positive, never zero
  if (ASN1_INTEGER_set_uint64(X509_get_serialNumber(cert.get()), serial) != 1) return OpenSslError("set serial");
  // Backdated an hour so a scraper with a slightly slow clock accepts it.
  if (!X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) ||
      !X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600)) {
    return OpenSslError("set validity");
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1,
                                 -1, 0) != 1 ||
      X509_set_issuer_name(cert.get(), name) != 1 || X509_set_pubkey(cert.get(), key.get()) != 1) {
    return OpenSslError("set subject");
  }
  for (auto [nid, value] : {std::pair{NID_basic_constraints, "critical,CA:FALSE"},
                            std::pair{NID_key_usage, "critical,digitalSignature"},
                            std::pair{NID_ext_key_usage, "serverAuth"},
                            std::pair{NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1"}}) {
    X509V3_CTX ctx;
    X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
    ExtPtr ext(X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value));
    if (!ext || X509_add_ext(cert.get(), ext.get(), -1) != 1) return OpenSslError(std::string("extension ") + OBJ_nid2sn(nid));
  }
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0) return OpenSslError("sign");
  BioPtr cert_bio(BIO_new(BIO_s_mem())), key_bio(BIO_new(BIO_s_mem()));
  if (!cert_bio || !key_bio || PEM_write_bio_X509(cert_bio.get(), cert.get()) != 1 ||
      PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return OpenSslError("write PEM");
  }
  auto cert_pem = Pem(cert_bio.get());
  if (!cert_pem) return std::unexpected(cert_pem.error());
  auto key_pem = Pem(key_bio.get());
  if (!key_pem) return std::unexpected(key_pem.error());
  return PemPair{std::move(*cert_pem), std::move(*key_pem)};
}

}  // namespace berth::shim
