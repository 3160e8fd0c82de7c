// MadTransport over libibumad: one umad port, agents for directed-route SMPs,
// the performance class and subnet administration (to the SM LID the port
// had when opened).
//
// Contract: Open() names the CA/port and the call that failed (and that the
// process needs access to /dev/infiniband/umad*); the port is closed on
// destruction. Works the same under the ibsim shim (LD_PRELOAD umad2sim).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fabric/mad_transport.h"

namespace rdmascope::fabric {

class UmadTransport : public MadTransport {
 public:
  // ca: "" for the first CA; port: 0 for its first active port.
  static Result<std::unique_ptr<UmadTransport>> Open(const std::string& ca, int port);
  ~UmadTransport() override;

  Status Send(const OutgoingMad& mad, int timeout_ms) override;
  Result<bool> Receive(IncomingMad* out, int wait_ms) override;

  const std::string& ca_name() const { return ca_name_; }
  int port_number() const { return port_number_; }

 private:
  UmadTransport() = default;
  int portid_ = -1;
  int smp_agent_ = -1;
  int pma_agent_ = -1;
  int sa_agent_ = -1;
  uint32_t sm_lid_ = 0;  // the port's subnet manager, when Open read it (0: none)
  std::string ca_name_;
  int port_number_ = 0;
  std::vector<uint8_t> send_buf_;
  std::vector<uint8_t> recv_buf_;
};

}  // namespace rdmascope::fabric
