// The bytes of a probe message, shared by prober and responder.
//
// Layout (big-endian, kWireBytes long): magic u32 | kind u32 | seq u64 |
// prober_send_ns u64 | responder_delay_ns u64 | session u64.
// UD receive buffers hold a 40-byte GRH in front of the message.
//
// Contract: DecodeProbe() rejects short buffers and a wrong magic; it never
// reads past `len`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace rdmascope::probes {

constexpr uint32_t kProbeMagic = 0x52534350;  // "RSCP"
constexpr size_t kWireBytes = 40;
constexpr size_t kGrhBytes = 40;

enum class ProbeKind : uint32_t { kProbe = 1, kEcho = 2 };

struct ProbeMessage {
  ProbeKind kind = ProbeKind::kProbe;
  uint64_t seq = 0;
  uint64_t prober_send_ns = 0;
  uint64_t responder_delay_ns = 0;
  uint64_t session = 0;  // random per prober run: echoes of other runs are ignored
};

void EncodeProbe(const ProbeMessage& m, uint8_t* out);  // writes kWireBytes
std::optional<ProbeMessage> DecodeProbe(const uint8_t* in, size_t len);

}  // namespace rdmascope::probes
