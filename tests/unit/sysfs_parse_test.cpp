#include "agent/node/sysfs_parse.h"

#include <gtest/gtest.h>

namespace rdmascope {
namespace {

TEST(ParseNumberedName, KernelFormats) {
  auto s = ParseNumberedName("4: ACTIVE");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->number, 4);
  EXPECT_EQ(s->name, "ACTIVE");
  auto p = ParseNumberedName("7: Phy Test");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "Phy Test");
  EXPECT_FALSE(ParseNumberedName("garbage"));
  EXPECT_FALSE(ParseNumberedName(": ACTIVE"));
  EXPECT_FALSE(ParseNumberedName("4:"));
  EXPECT_FALSE(ParseNumberedName("x: ACTIVE"));
}

TEST(ParseU32, HexAndDecimal) {
  EXPECT_EQ(ParseU32("0x1a"), 26u);
  EXPECT_EQ(ParseU32("0x2651e848"), 0x2651e848u);
  EXPECT_EQ(ParseU32("0"), 0u);
  EXPECT_EQ(ParseU32("0xffffffff"), 0xffffffffu);
  EXPECT_FALSE(ParseU32("0x100000000"));
  EXPECT_FALSE(ParseU32("0xZZ"));
  EXPECT_FALSE(ParseU32("-1"));
  EXPECT_FALSE(ParseU32(""));
  EXPECT_FALSE(ParseU32("0x"));
}

TEST(ParseU64, CountersRejectGarbageAndOverflow) {
  EXPECT_EQ(ParseU64("18446744073709551615"), 18446744073709551615ull);
  EXPECT_FALSE(ParseU64("18446744073709551616"));
  EXPECT_FALSE(ParseU64("-3"));
  EXPECT_FALSE(ParseU64("abc"));
  EXPECT_FALSE(ParseU64(""));
  EXPECT_FALSE(ParseU64("N/A (no PMA)"));
}

TEST(ParseRate, AllKernelShapes) {
  auto r = ParseRate("100 Gb/sec (4X EDR)");
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(*r->gbps, 100.0);
  EXPECT_EQ(*r->width, "4X");
  EXPECT_EQ(*r->speed, "EDR");
  EXPECT_EQ(r->text, "100 Gb/sec (4X EDR)");
  auto sdr = ParseRate("10 Gb/sec (4X)");
  ASSERT_TRUE(sdr);
  EXPECT_EQ(*sdr->speed, "SDR");
  auto half = ParseRate("2.5 Gb/sec (1X)");
  ASSERT_TRUE(half);
  EXPECT_DOUBLE_EQ(*half->gbps, 2.5);
  EXPECT_FALSE(ParseRate("fast"));
  EXPECT_FALSE(ParseRate("100 Gb/sec"));
  EXPECT_FALSE(ParseRate("x Gb/sec (4X EDR)"));
  EXPECT_FALSE(ParseRate("100 Gb/sec (XX EDR)"));
}

TEST(Gid, FormatAndZero) {
  EXPECT_TRUE(IsWellFormedGid("fe80:0000:0000:0000:0202:c9ff:fea1:b2c3"));
  EXPECT_FALSE(IsWellFormedGid("not-a-gid"));
  EXPECT_FALSE(IsWellFormedGid("fe80:0000:0000:0000:0202:c9ff:fea1:b2cZ"));
  EXPECT_TRUE(IsZeroGid("0000:0000:0000:0000:0000:0000:0000:0000"));
  EXPECT_FALSE(IsZeroGid("fe80:0000:0000:0000:0000:0000:0000:0000"));
}

}  // namespace
}  // namespace rdmascope
