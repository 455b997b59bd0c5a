// clientgo-shim/config/rest_config.cc
#include "clientgo-shim/config/rest_config.h"

#include "clientgo-shim/transport/https_client.h"

namespace berth::shim {

Result<std::shared_ptr<RestClient>> MakeRestClient(const RestConfig& config) {
  HttpsRestClientOptions o;
  o.server = config.server;
  o.ca_pem = config.ca_pem;
  o.insecure_skip_tls_verify = config.insecure_skip_tls_verify;
  o.tls_server_name = config.tls_server_name;
  o.client_cert_pem = config.client_cert_pem;
  o.client_key_pem = config.client_key_pem;
  o.token_source = config.token_source;
  o.on_unauthorized = config.on_unauthorized;
  o.qps = config.qps;
  o.burst = config.burst;
  if (config.timeout.count() > 0) o.request_timeout = config.timeout;
  if (!config.user_agent.empty()) o.user_agent = config.user_agent;
  o.on_request = config.on_request;
  auto client = HttpsRestClient::Create(std::move(o));
  if (!client) {
    Error e = client.error();
    if (!config.source.empty()) e.message = config.source + ": " + e.message;
    return std::unexpected(std::move(e));
  }
  return std::shared_ptr<RestClient>(*client);
}

}  // namespace berth::shim
