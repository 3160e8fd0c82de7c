#include "probes/probe_wire.h"

namespace rdmascope::probes {

namespace {

void Put(uint8_t* p, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) { p[i] = uint8_t(v & 0xff); v >>= 8; }
}

uint64_t Get(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

void EncodeProbe(const ProbeMessage& m, uint8_t* out) {
  Put(out, kProbeMagic, 4);
  Put(out + 4, uint32_t(m.kind), 4);
  Put(out + 8, m.seq, 8);
  Put(out + 16, m.prober_send_ns, 8);
  Put(out + 24, m.responder_delay_ns, 8);
  Put(out + 32, m.session, 8);
}

std::optional<ProbeMessage> DecodeProbe(const uint8_t* in, size_t len) {
  if (in == nullptr || len < kWireBytes) return std::nullopt;
  if (Get(in, 4) != kProbeMagic) return std::nullopt;
  uint64_t kind = Get(in + 4, 4);
  if (kind != uint32_t(ProbeKind::kProbe) && kind != uint32_t(ProbeKind::kEcho)) return std::nullopt;
  ProbeMessage m;
  m.kind = ProbeKind(kind);
  m.seq = Get(in + 8, 8);
  m.prober_send_ns = Get(in + 16, 8);
  m.responder_delay_ns = Get(in + 24, 8);
  m.session = Get(in + 32, 8);
  return m;
}

}  // namespace rdmascope::probes
