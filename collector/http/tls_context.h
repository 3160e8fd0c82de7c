// The collector's TLS server context: certificate and key loaded once, a new
// server session per accepted connection.
//
// Contract: Load fails (naming both files and what to check) when the
// certificate or key cannot be read or do not belong together. Sessions speak
// TLS 1.2 or newer; NewSession returns null when the library cannot make one.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "common/status.h"

namespace rdmascope::collector {

class TlsContext {
 public:
  static Result<std::shared_ptr<TlsContext>> Load(const std::string& cert_file, const std::string& key_file);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // A server session on `fd`, in accept state; the caller frees it.
  SSL* NewSession(int fd) const;

 private:
  explicit TlsContext(SSL_CTX* ctx) : ctx_(ctx) {}
  SSL_CTX* ctx_;
};

}  // namespace rdmascope::collector
