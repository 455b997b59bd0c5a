#include "e2e/kubesim/server/tls.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

namespace berth::kubesim {
namespace {

struct X509Deleter {
  void operator()(X509* x) const { X509_free(x); }
};
using X509Ptr = std::unique_ptr<X509, X509Deleter>;

X509Ptr ParseCert(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())),
                                                &BIO_free);
  return X509Ptr(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

// VerifyChain checks leaf against ca as the only trust anchor.
bool VerifyChain(X509* ca, X509* leaf) {
  std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)> store(X509_STORE_new(), &X509_STORE_free);
  X509_STORE_add_cert(store.get(), ca);
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> ctx(X509_STORE_CTX_new(),
                                                                     &X509_STORE_CTX_free);
  X509_STORE_CTX_init(ctx.get(), store.get(), leaf, nullptr);
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_SERVER);
  return X509_verify_cert(ctx.get()) == 1;
}

TEST(TlsMaterialTest, ServingCertificateChainsToTheGeneratedCa) {
  auto tls = GenerateTlsMaterial();
  ASSERT_TRUE(tls.has_value()) << tls.error().message;
  X509Ptr ca = ParseCert(tls->ca_cert_pem);
  X509Ptr leaf = ParseCert(tls->cert_pem);
  ASSERT_TRUE(ca && leaf);
  EXPECT_TRUE(VerifyChain(ca.get(), leaf.get()));
  EXPECT_EQ(X509_check_ca(ca.get()), 1);
  EXPECT_EQ(X509_check_ca(leaf.get()), 0);
  EXPECT_NE(tls->key_pem.find("BEGIN PRIVATE KEY"), std::string::npos);
}

TEST(TlsMaterialTest, ServingCertificateCoversLoopbackAndServiceNames) {
  auto tls = GenerateTlsMaterial();
  ASSERT_TRUE(tls.has_value());
  X509Ptr leaf = ParseCert(tls->cert_pem);
  ASSERT_TRUE(leaf);
  EXPECT_EQ(X509_check_ip_asc(leaf.get(), "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(leaf.get(), "::1", 0), 1);
  EXPECT_EQ(X509_check_host(leaf.get(), "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_host(leaf.get(), "kubernetes.default.svc", 0, 0, nullptr), 1);
  EXPECT_NE(X509_check_host(leaf.get(), "example.com", 0, 0, nullptr), 1);
  EXPECT_NE(X509_check_ip_asc(leaf.get(), "10.0.0.1", 0), 1);
}

TEST(TlsMaterialTest, CertificatesAreValidNowForAboutAYear) {
  auto tls = GenerateTlsMaterial();
  ASSERT_TRUE(tls.has_value());
  X509Ptr ca = ParseCert(tls->ca_cert_pem);
  ASSERT_TRUE(ca);
  int days = 0, secs = 0;
  ASSERT_EQ(ASN1_TIME_diff(&days, &secs, X509_get0_notBefore(ca.get()), X509_get0_notAfter(ca.get())), 1);
  EXPECT_GE(days, 364);
  EXPECT_LE(days, 366);
  EXPECT_LT(X509_cmp_current_time(X509_get0_notBefore(ca.get())), 0);
}

TEST(TlsMaterialTest, EachCallMakesAnIndependentCa) {
  auto a = GenerateTlsMaterial();
  auto b = GenerateTlsMaterial();
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->ca_cert_pem, b->ca_cert_pem);
  X509Ptr ca_a = ParseCert(a->ca_cert_pem);
  X509Ptr leaf_b = ParseCert(b->cert_pem);
  EXPECT_FALSE(VerifyChain(ca_a.get(), leaf_b.get()));
}

}  // namespace
}  // namespace berth::kubesim
