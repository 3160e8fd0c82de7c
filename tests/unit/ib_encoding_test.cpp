// The InfiniBand naming table: PortCounters widths and saturation, data words
// in bytes, link width / speed / MTU encodings, their spelling and order.
#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/ib_encoding.h"

namespace rdmascope::ib {
namespace {

TEST(IbEncoding, PortCounterWidthsAndSaturation) {
  // The error counters saturate, by width; the data, packet and wait counters wrap at 32 bits.
  const std::map<int, std::vector<const char*>> saturating = {
      {4, {"local_link_integrity_errors", "excessive_buffer_overrun_errors"}},
      {8, {"link_error_recovery", "link_downed", "port_xmit_constraint_errors", "port_rcv_constraint_errors"}},
      {16,
       {"symbol_error", "port_rcv_errors", "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors",
        "port_xmit_discards", "VL15_dropped"}},
  };
  const std::vector<const char*> wrapping = {"port_xmit_data", "port_rcv_data", "port_xmit_packets",
                                             "port_rcv_packets", "port_xmit_wait"};
  size_t listed = wrapping.size();
  for (const auto& [bits, names] : saturating) {
    listed += names.size();
    for (const char* name : names) {
      const PortCounterField* f = PortCounterOf(name);
      ASSERT_NE(f, nullptr) << name;
      EXPECT_EQ(f->bits, bits) << name;
      EXPECT_TRUE(f->saturates) << name;
    }
  }
  for (const char* name : wrapping) {
    const PortCounterField* f = PortCounterOf(name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->bits, 32) << name;
    EXPECT_FALSE(f->saturates) << name;
  }
  EXPECT_EQ(std::size(kPortCounters), listed);
  EXPECT_EQ(PortCounterOf("port_xmit_data_bytes"), nullptr);
  EXPECT_EQ(PortCounterOf("rcvd_pkts"), nullptr);
  for (const PortCounterField& f : kPortCountersExtended) EXPECT_EQ(f.bits, 64) << f.name;
  EXPECT_NE(FieldIn(kPortCountersExtended, "multicast_rcv_packets"), nullptr);
  EXPECT_EQ(FieldIn(kPortCountersExtended, "symbol_error"), nullptr);

  EXPECT_EQ(CounterMax(4), 15u);
  EXPECT_EQ(CounterMax(8), 255u);
  EXPECT_EQ(CounterMax(16), 65535u);
  EXPECT_EQ(CounterMax(32), 4294967295u);
  EXPECT_EQ(CounterMax(64), ~uint64_t{0});
}

TEST(IbEncoding, DataWordsAreStoredInBytes) {
  EXPECT_EQ(kDataWordBytes, 4u);
  EXPECT_EQ(uint64_t{1} << kDataWordBytesLog2, kDataWordBytes);
  ASSERT_NE(DataWordCounterOf("port_xmit_data"), nullptr);
  EXPECT_EQ(DataWordCounterOf("port_xmit_data")->bytes, "port_xmit_data_bytes");
  EXPECT_EQ(DataWordCounterOf("port_rcv_data")->bytes, "port_rcv_data_bytes");
  EXPECT_EQ(DataWordCounterOf("port_xmit_packets"), nullptr);
  EXPECT_EQ(DataWordCounterOf("port_xmit_data_bytes"), nullptr);
  ASSERT_NE(DataWordCounterOfBytes("port_rcv_data_bytes"), nullptr);
  EXPECT_EQ(DataWordCounterOfBytes("port_rcv_data_bytes")->words, "port_rcv_data");
  EXPECT_EQ(DataWordCounterOfBytes("port_rcv_data"), nullptr);
  EXPECT_EQ(DataWordsToBytes(1000), 4000u);
  EXPECT_EQ(DataWordsToBytes(~uint64_t{0} / 4), ~uint64_t{0} / 4 * 4);
  EXPECT_EQ(DataWordsToBytes(~uint64_t{0} / 4 + 1), std::nullopt);
}

TEST(IbEncoding, LinkWidths) {
  const std::pair<int, const char*> encodings[] = {{1, "1X"}, {16, "2X"}, {2, "4X"}, {4, "8X"}, {8, "12X"}};
  int rank = 0;
  for (const auto& [bits, text] : encodings) {
    EXPECT_EQ(WidthText(bits), text);
    EXPECT_EQ(WidthBits(text), bits);
    EXPECT_EQ(WidthRank(text), rank++) << text;  // listed lowest first
  }
  EXPECT_EQ(WidthText(0), "?");
  EXPECT_EQ(WidthText(3), "?");
  EXPECT_EQ(WidthBits("?"), 0);
  EXPECT_EQ(WidthRank("16X"), -1);
  EXPECT_EQ(WidthRank(""), -1);
  EXPECT_EQ(BestWidthText(1 | 2 | 8), "12X");
  EXPECT_EQ(BestWidthText(1 | 16), "2X");
  EXPECT_EQ(BestWidthText(1 | 2 | 16), "4X");
  EXPECT_EQ(BestWidthText(0), "?");
}

TEST(IbEncoding, LinkSpeeds) {
  struct Want {
    int bits, ext;
    const char* text;
  };
  const Want encodings[] = {{1, 0, "SDR"}, {2, 0, "DDR"}, {4, 0, "QDR"}, {8, 0, "FDR10"},
                            {0, 1, "FDR"}, {0, 2, "EDR"}, {0, 4, "HDR"}, {0, 8, "NDR"}};
  int rank = 0;
  for (const Want& w : encodings) {
    EXPECT_EQ(SpeedText(w.bits, w.ext), w.text);
    int bits = -1, ext = -1;
    SpeedBits(w.text, &bits, &ext);
    EXPECT_EQ(bits, w.bits) << w.text;
    EXPECT_EQ(ext, w.ext) << w.text;
    EXPECT_EQ(SpeedRank(w.text), rank++) << w.text;  // listed lowest first
  }
  EXPECT_EQ(SpeedText(4, 2), "EDR");  // an extended speed wins
  EXPECT_EQ(SpeedText(4, 3), "QDR");  // an unknown extended speed does not
  EXPECT_EQ(SpeedText(0, 0), "?");
  EXPECT_EQ(SpeedText(16, 16), "?");
  int bits = -1, ext = -1;
  SpeedBits("XDR", &bits, &ext);
  EXPECT_EQ(bits, 0);
  EXPECT_EQ(ext, 0);
  EXPECT_EQ(SpeedRank("XDR"), -1);
  EXPECT_EQ(BestSpeedText(1 | 2 | 4 | 8, 1 | 2), "EDR");
  EXPECT_EQ(BestSpeedText(1 | 2 | 4 | 8, 0), "FDR10");
  EXPECT_EQ(BestSpeedText(1, 8), "NDR");
  EXPECT_EQ(BestSpeedText(0, 0), "?");
}

TEST(IbEncoding, Mtu) {
  const std::pair<int, uint32_t> encodings[] = {{1, 256}, {2, 512}, {3, 1024}, {4, 2048}, {5, 4096}};
  for (const auto& [code, bytes] : encodings) {
    EXPECT_EQ(MtuBytes(code), bytes);
    EXPECT_EQ(MtuCode(bytes), code);
  }
  EXPECT_EQ(MtuBytes(0), 0u);
  EXPECT_EQ(MtuBytes(6), 0u);
  EXPECT_EQ(MtuCode(1500), 0);
  EXPECT_EQ(MtuCode(0), 0);
  EXPECT_EQ(MtuCode(8192), 0);
}

}  // namespace
}  // namespace rdmascope::ib
