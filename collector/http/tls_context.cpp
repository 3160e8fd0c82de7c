#include "collector/http/tls_context.h"

namespace rdmascope::collector {

Result<std::shared_ptr<TlsContext>> TlsContext::Load(const std::string& cert_file, const std::string& key_file) {
  using R = Result<std::shared_ptr<TlsContext>>;
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx) return R::Error("cannot create a TLS context (the TLS library failed to initialise)");
  std::shared_ptr<TlsContext> holder(new TlsContext(ctx));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx) != 1)
    return R::Error("cannot load the TLS certificate " + cert_file + " with the key " + key_file +
                    ": check that both are readable PEM files and that the key belongs to the certificate");
  return holder;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

SSL* TlsContext::NewSession(int fd) const {
  SSL* ssl = SSL_new(ctx_);
  if (!ssl) return nullptr;
  if (SSL_set_fd(ssl, fd) != 1) {
    SSL_free(ssl);
    return nullptr;
  }
  SSL_set_accept_state(ssl);
  return ssl;
}

}  // namespace rdmascope::collector
