// The compact fields of a path summary read and copy like what they stand for.
#include <gtest/gtest.h>

#include <cmath>

#include "collector/diagnosis/path_fields.h"

namespace rdmascope::collector::diagnosis {
namespace {

TEST(MaybeDouble, NoneUntilSetAndNaNReadsAsNone) {
  MaybeDouble v;
  EXPECT_FALSE(v.has_value());
  EXPECT_EQ(v.value_or(7.0), 7.0);
  v = 2.5;
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, 2.5);
  v = std::nan("");
  EXPECT_FALSE(v.has_value());
  v = std::optional<double>(4.0);
  EXPECT_EQ(v.value_or(0), 4.0);
  v.reset();
  EXPECT_FALSE(v);
}

TEST(ErrorCounts, MapsNamesInOrderAndCopiesDeep) {
  ErrorCounts e;
  EXPECT_TRUE(e.empty());
  EXPECT_EQ(e.begin(), e.end());
  EXPECT_EQ(e.find("RETRY_EXC_ERR"), e.end());
  e["RETRY_EXC_ERR"] += 3;
  e["LOC_LEN_ERR"] = 1;
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e.begin()->first, "LOC_LEN_ERR");  // name order
  ErrorCounts copy = e;
  copy["RETRY_EXC_ERR"] = 9;
  EXPECT_EQ(e.find("RETRY_EXC_ERR")->second, 3);  // the copy has its own map
  EXPECT_EQ(copy.count("RETRY_EXC_ERR"), 1u);
  e.clear();
  EXPECT_TRUE(e.empty());
  EXPECT_EQ(copy.size(), 2u);
}

TEST(IdList, ReadsLikeAVectorAndCopiesDeep) {
  IdList l;
  EXPECT_TRUE(l.empty());
  EXPECT_TRUE(l.view().empty());
  l.push_back(4);
  l.ids()->push_back(7);
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l.view(), (std::vector<uint32_t>{4, 7}));
  IdList copy = l;
  copy.push_back(9);
  EXPECT_EQ(l.size(), 2u);  // the copy has its own list
  EXPECT_EQ(std::vector<uint32_t>(copy.begin(), copy.end()), (std::vector<uint32_t>{4, 7, 9}));
  IdList moved = std::move(copy);
  EXPECT_EQ(moved.size(), 3u);
  l.clear();
  EXPECT_TRUE(l.empty());
}

}  // namespace
}  // namespace rdmascope::collector::diagnosis
