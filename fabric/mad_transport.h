// The MAD transport seam: raw 256-byte MADs out, answers (or give-ups) back.
//
// Contract: the sender builds the whole MAD, including the transaction id;
// the transport only addresses it (directed-route SMP: permissive LID, QP0;
// PMA: the destination LID, QP1, the GSI Q_Key; subnet administration: the
// port's subnet manager LID, QP1, the GSI Q_Key — a Send fails when the
// port knows no SM LID) and matches nothing. Receive
// returns one answer, or a send the transport itself gave up on (status set,
// mad holding the request as sent). The real one is UmadTransport (libibumad);
// tests use a fake.
#pragma once

#include <array>
#include <cstdint>

#include "common/status.h"

namespace rdmascope::fabric {

constexpr int kMadSize = 256;
using MadBytes = std::array<uint8_t, kMadSize>;

enum class MadClass { kDirectedSmp, kPerformance, kSubnAdm };

struct OutgoingMad {
  MadClass cls = MadClass::kDirectedSmp;
  uint32_t dlid = 0;  // PMA: destination LID; ignored for directed-route SMPs and SA queries
  MadBytes mad{};
};

struct IncomingMad {
  int status = 0;     // 0: an answer; otherwise an errno from the transport (ETIMEDOUT)
  MadBytes mad{};
};

class MadTransport {
 public:
  virtual ~MadTransport() = default;
  // Hands one MAD to the transport. timeout_ms is passed on to the transport's
  // own response timer (the kernel's), retries are the caller's business.
  virtual Status Send(const OutgoingMad& mad, int timeout_ms) = 0;
  // Waits up to wait_ms for one MAD. ok(true): *out is filled; ok(false): nothing came.
  virtual Result<bool> Receive(IncomingMad* out, int wait_ms) = 0;
};

}  // namespace rdmascope::fabric
