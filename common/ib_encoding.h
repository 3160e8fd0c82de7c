// The InfiniBand naming table: how the architecture encodes PortCounters
// fields, link widths, link speeds and MTUs, how they are spelled, and how
// they rank. Every room that reads or judges these values asks here.
//
// Contract:
// - PortCounters (PMA attribute 0x12) fields are named by their sysfs
//   counters/ names. Each has its width in bits; the error fields saturate at
//   their maximum (CounterMax(bits)), the data, packet and wait fields wrap.
//   PortCountersExtended fields are all 64 bits wide.
// - port_xmit_data and port_rcv_data count 4-byte words (in both tables); the
//   project stores and shows them in bytes under "<name>_bytes".
// - Link widths: PortInfo LinkWidth bits 1=1X 16=2X 2=4X 4=8X 8=12X, ranked
//   1X < 2X < 4X < 8X < 12X. Link speeds: LinkSpeed bits 1=SDR 2=DDR 4=QDR
//   8=FDR10, LinkSpeedExt bits 1=FDR 2=EDR 4=HDR 8=NDR, ranked in that order
//   (SDR lowest, NDR highest). An unknown encoding is spelled "?", an unknown
//   spelling ranks -1 and encodes as 0.
// - MTU: the IBA code 1..5 (the verbs enum uses the same numbers) is
//   256, 512, 1024, 2048, 4096 bytes; anything else is 0 either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rdmascope::ib {

// ---- PortCounters ----

struct PortCounterField {
  std::string_view name;  // sysfs counters/ name
  int bits;
  bool saturates;  // error counters stick at their maximum; the others wrap
};

inline constexpr PortCounterField kPortCounters[] = {
    {"symbol_error", 16, true},
    {"link_error_recovery", 8, true},
    {"link_downed", 8, true},
    {"port_rcv_errors", 16, true},
    {"port_rcv_remote_physical_errors", 16, true},
    {"port_rcv_switch_relay_errors", 16, true},
    {"port_xmit_discards", 16, true},
    {"port_xmit_constraint_errors", 8, true},
    {"port_rcv_constraint_errors", 8, true},
    {"local_link_integrity_errors", 4, true},
    {"excessive_buffer_overrun_errors", 4, true},
    {"VL15_dropped", 16, true},
    {"port_xmit_data", 32, false},
    {"port_rcv_data", 32, false},
    {"port_xmit_packets", 32, false},
    {"port_rcv_packets", 32, false},
    {"port_xmit_wait", 32, false},
};

inline constexpr PortCounterField kPortCountersExtended[] = {
    {"port_xmit_data", 64, false},         {"port_rcv_data", 64, false},
    {"port_xmit_packets", 64, false},      {"port_rcv_packets", 64, false},
    {"unicast_xmit_packets", 64, false},   {"unicast_rcv_packets", 64, false},
    {"multicast_xmit_packets", 64, false}, {"multicast_rcv_packets", 64, false},
};

// PortCountersExtended's additional error counters (IBA 1.3+, when the PMA's
// ClassPortInfo CapabilityMask2 has IsAdditionalPortCountersExtendedSupported):
// the PortCounters error fields and XmitWait, 64 bits wide.
inline constexpr PortCounterField kPortCountersExtendedErrors[] = {
    {"symbol_error", 64, true},
    {"link_error_recovery", 64, true},
    {"link_downed", 64, true},
    {"port_rcv_errors", 64, true},
    {"port_rcv_remote_physical_errors", 64, true},
    {"port_rcv_switch_relay_errors", 64, true},
    {"port_xmit_discards", 64, true},
    {"port_xmit_constraint_errors", 64, true},
    {"port_rcv_constraint_errors", 64, true},
    {"local_link_integrity_errors", 64, true},
    {"excessive_buffer_overrun_errors", 64, true},
    {"VL15_dropped", 64, true},
    {"port_xmit_wait", 64, false},
};

// The largest value a field of `bits` bits holds (where a saturating one sticks).
constexpr uint64_t CounterMax(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

// The field of that sysfs name in one of the two tables; nullptr when absent.
template <size_t N>
constexpr const PortCounterField* FieldIn(const PortCounterField (&table)[N], std::string_view name) {
  for (const PortCounterField& f : table)
    if (f.name == name) return &f;
  return nullptr;
}
constexpr const PortCounterField* PortCounterOf(std::string_view name) { return FieldIn(kPortCounters, name); }

// ---- data counters in 4-byte words ----

inline constexpr uint64_t kDataWordBytes = 4;
inline constexpr int kDataWordBytesLog2 = 2;  // a word count in bytes needs 2 more bits

struct DataWordCounter {
  std::string_view words;  // "port_xmit_data": the field, in words
  std::string_view bytes;  // "port_xmit_data_bytes": how the project stores it, in bytes
};

inline constexpr DataWordCounter kDataWordCounters[] = {
    {"port_xmit_data", "port_xmit_data_bytes"},
    {"port_rcv_data", "port_rcv_data_bytes"},
};

// The word counter of that name (its words name); nullptr for any other counter.
constexpr const DataWordCounter* DataWordCounterOf(std::string_view words_name) {
  for (const DataWordCounter& c : kDataWordCounters)
    if (c.words == words_name) return &c;
  return nullptr;
}

// The word counter whose bytes name that is; nullptr for any other counter.
constexpr const DataWordCounter* DataWordCounterOfBytes(std::string_view bytes_name) {
  for (const DataWordCounter& c : kDataWordCounters)
    if (c.bytes == bytes_name) return &c;
  return nullptr;
}

// words * 4; nullopt when the bytes do not fit 64 bits.
constexpr std::optional<uint64_t> DataWordsToBytes(uint64_t words) {
  if (words > ~uint64_t{0} / kDataWordBytes) return std::nullopt;
  return words * kDataWordBytes;
}

// ---- link width and speed ----

std::string WidthText(int width_bits);          // "4X"; "?" when unknown
int WidthBits(const std::string& text);         // "4X" -> 2; 0 when unknown
int WidthRank(const std::string& text);         // "1X" 0 .. "12X" 4; -1 when unknown
std::string BestWidthText(int supported_bits);  // the highest-ranked width set in the bits; "?" when none

std::string SpeedText(int speed_bits, int speed_ext_bits);  // "QDR", "EDR"; ext wins when known; "?" else
// "EDR" -> *speed 0, *ext 2; "QDR" -> *speed 4, *ext 0; unknown: both 0.
void SpeedBits(const std::string& text, int* speed_bits, int* speed_ext_bits);
int SpeedRank(const std::string& text);  // "SDR" 0 .. "NDR" 7; -1 when unknown
// The highest-ranked speed set in either mask; "?" when none.
std::string BestSpeedText(int supported_bits, int supported_ext_bits);

// ---- MTU ----

uint32_t MtuBytes(int code);      // 4 -> 2048; 0 when not an MTU code
int MtuCode(uint64_t bytes);      // 2048 -> 4; 0 when not an MTU size

}  // namespace rdmascope::ib
