// common/text.h: Trim's sets and EqualsNoCase.
#include "common/text.h"

#include <gtest/gtest.h>

#include <string>

namespace rdmascope {
namespace {

TEST(Trim, AsciiWhitespaceByDefault) {
  EXPECT_EQ(Trim(" \t\n\v\f\rtoken \r\n"), "token");
  EXPECT_EQ(Trim("a b"), "a b");
  EXPECT_EQ(Trim(" \t \n"), "");
  EXPECT_EQ(Trim(""), "");
}

TEST(Trim, OnlyTheGivenSet) {
  EXPECT_EQ(Trim(" \tv\r", kBlanks), "v\r");
  EXPECT_EQ(Trim("\vtoken\f\r\n", kBlanksAndLineEnds), "\vtoken\f");
  EXPECT_EQ(Trim("xx", "x"), "");
}

TEST(Trim, ViewsIntoTheArgument) {
  const std::string text = "  key ";
  std::string_view t = Trim(text);
  EXPECT_EQ(t.data(), text.data() + 2);
  EXPECT_EQ(t.size(), 3u);
}

TEST(EqualsNoCase, AsciiLettersOnly) {
  EXPECT_TRUE(EqualsNoCase("GZip", "gzip"));
  EXPECT_TRUE(EqualsNoCase("", ""));
  EXPECT_FALSE(EqualsNoCase("gzip", "gzi"));
  EXPECT_FALSE(EqualsNoCase("[", "{"));  // 0x5b and 0x7b differ by the case bit but are not letters
  EXPECT_FALSE(EqualsNoCase("\xc4", "\xe4"));
}

}  // namespace
}  // namespace rdmascope
