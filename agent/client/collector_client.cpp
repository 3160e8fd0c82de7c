#include "agent/client/collector_client.h"

namespace rdmascope::client {

std::unique_ptr<httplib::Client> MakeCollectorClient(const std::string& scheme_host_port, const std::string& ca_file) {
  auto client = std::make_unique<httplib::Client>(scheme_host_port);
  client->enable_server_certificate_verification(true);
  if (!ca_file.empty()) client->set_ca_cert_path(ca_file.c_str());
  return client;
}

std::string DescribeHttpError(httplib::Error error, const std::string& ca_file) {
  std::string text = httplib::to_string(error);
  switch (error) {
    case httplib::Error::SSLServerVerification:
      return text + ": the collector's certificate is not trusted" +
             (ca_file.empty() ? std::string(" by the system's CA store; give the CA that signed it with --ca-file")
                              : " by --ca-file " + ca_file + "; is that the CA that signed the collector's certificate?") +
             " (and does the certificate name the host in the collector URL?)";
    case httplib::Error::SSLLoadingCerts:
      return text + ": cannot load the CA file " + (ca_file.empty() ? std::string("(system store)") : ca_file) +
             " (readable PEM?)";
    case httplib::Error::SSLConnection:
      return text + ": TLS handshake failed (does the collector speak HTTPS on that port? an http:// collector "
                    "needs an http:// URL)";
    case httplib::Error::Connection:
      return "could not connect (refused, unreachable or name not resolved)";
    case httplib::Error::ConnectionTimeout:
      return "connect timed out";
    case httplib::Error::Read:
      return "no response (read failed or timed out)";
    case httplib::Error::Write:
      return "sending the request failed";
    default:
      return text;
  }
}

}  // namespace rdmascope::client
