#include "e2e/kubesim/server/tls.h"

#include <cstdint>
#include <memory>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace berth::kubesim {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
struct BioFree {
  void operator()(BIO* p) const { BIO_free(p); }
};
struct ExtFree {
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using BioPtr = std::unique_ptr<BIO, BioFree>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, ExtFree>;

constexpr long kValiditySeconds = 365L * 24 * 3600;
constexpr long kBackdateSeconds = 3600;  // tolerate small clock skew between processes

// OpenSslError drains the thread's OpenSSL error queue into one message.
std::unexpected<Error> OpenSslError(const std::string& step) {
  std::string message = "TLS material: " + step;
  unsigned long code = 0;
  bool first = true;
  while ((code = ERR_get_error()) != 0) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof(buf));
    message += first ? ": " : "; ";
    message += buf;
    first = false;
  }
  return MakeError(ErrorCode::kInternal, message);
}

Result<PkeyPtr> NewKey() {
  PkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return OpenSslError("generate EC P-256 key");
  return key;
}

// AddExtension adds one extension written in openssl.cnf syntax ("critical,CA:TRUE").
Status AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  ExtPtr ext(X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value));
  if (!ext) return OpenSslError(std::string("build extension ") + OBJ_nid2sn(nid));
  if (X509_add_ext(cert, ext.get(), -1) != 1) return OpenSslError("add extension");
  return {};
}

Status SetRandomSerial(X509* cert) {
  unsigned char bytes[8];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return OpenSslError("random serial");
  uint64_t serial = 0;
  for (unsigned char b : bytes) serial = (serial << 8) | b;
  serial &= 0x7fffffffffffffffULL;  // positive
  if (serial == 0) serial = 1;
  if (ASN1_INTEGER_set_uint64(X509_get_serialNumber(cert), serial) != 1) {
    return OpenSslError("set serial");
  }
  return {};
}

// NewCertificate fills the fields shared by the CA and the leaf; the caller adds extensions.
Result<X509Ptr> NewCertificate(EVP_PKEY* key, const char* common_name, X509* issuer) {
  X509Ptr cert(X509_new());
  if (!cert) return OpenSslError("X509_new");
  if (X509_set_version(cert.get(), X509_VERSION_3) != 1) return OpenSslError("set version");
  if (auto s = SetRandomSerial(cert.get()); !s) return std::unexpected(s.error());
  if (X509_gmtime_adj(X509_getm_notBefore(cert.get()), -kBackdateSeconds) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert.get()), kValiditySeconds) == nullptr) {
    return OpenSslError("set validity");
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>("kubesim"), -1, -1,
                                 0) != 1 ||
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>(common_name), -1, -1,
                                 0) != 1) {
    return OpenSslError("set subject");
  }
  X509_NAME* issuer_name = issuer ? X509_get_subject_name(issuer) : name;
  if (X509_set_issuer_name(cert.get(), issuer_name) != 1) return OpenSslError("set issuer");
  if (X509_set_pubkey(cert.get(), key) != 1) return OpenSslError("set public key");
  return cert;
}

Result<std::string> BioToString(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  if (len < 0 || data == nullptr) return OpenSslError("read PEM buffer");
  return std::string(data, static_cast<size_t>(len));
}

Result<std::string> CertPem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return OpenSslError("write cert PEM");
  return BioToString(bio.get());
}

Result<std::string> KeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return OpenSslError("write key PEM");
  }
  return BioToString(bio.get());
}

}  // namespace

Result<TlsMaterial> GenerateTlsMaterial() {
  ERR_clear_error();
  auto ca_key = NewKey();
  if (!ca_key) return std::unexpected(ca_key.error());
  auto ca = NewCertificate(ca_key->get(), "kubesim-ca", nullptr);
  if (!ca) return std::unexpected(ca.error());
  X509* ca_cert = ca->get();
  for (auto [nid, value] : {std::pair{NID_basic_constraints, "critical,CA:TRUE"},
                            std::pair{NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"},
                            std::pair{NID_subject_key_identifier, "hash"}}) {
    if (auto s = AddExtension(ca_cert, ca_cert, nid, value); !s) return std::unexpected(s.error());
  }
  if (X509_sign(ca_cert, ca_key->get(), EVP_sha256()) <= 0) return OpenSslError("sign CA");

  auto key = NewKey();
  if (!key) return std::unexpected(key.error());
  auto leaf = NewCertificate(key->get(), "kube-apiserver", ca_cert);
  if (!leaf) return std::unexpected(leaf.error());
  X509* leaf_cert = leaf->get();
  for (auto [nid, value] :
       {std::pair{NID_basic_constraints, "critical,CA:FALSE"},
        std::pair{NID_key_usage, "critical,digitalSignature"},
        std::pair{NID_ext_key_usage, "serverAuth"},
        std::pair{NID_subject_key_identifier, "hash"},
        std::pair{NID_authority_key_identifier, "keyid:always"},
        std::pair{NID_subject_alt_name,
                  "IP:127.0.0.1,IP:::1,DNS:localhost,DNS:kubernetes.default.svc"}}) {
    if (auto s = AddExtension(leaf_cert, ca_cert, nid, value); !s) {
      return std::unexpected(s.error());
    }
  }
  if (X509_sign(leaf_cert, ca_key->get(), EVP_sha256()) <= 0) return OpenSslError("sign leaf");

  TlsMaterial out;
  auto ca_pem = CertPem(ca_cert);
  if (!ca_pem) return std::unexpected(ca_pem.error());
  auto cert_pem = CertPem(leaf_cert);
  if (!cert_pem) return std::unexpected(cert_pem.error());
  auto key_pem = KeyPem(key->get());
  if (!key_pem) return std::unexpected(key_pem.error());
  out.ca_cert_pem = std::move(*ca_pem);
  out.cert_pem = std::move(*cert_pem);
  out.key_pem = std::move(*key_pem);
  return out;
}

}  // namespace berth::kubesim
