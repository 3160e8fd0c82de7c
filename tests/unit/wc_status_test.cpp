// Checks the work-completion status table against the installed verbs header
// and library: a status added to enum ibv_wc_status shows up here as a missing
// entry, and every verbs_text must equal ibv_wc_status_str().

#include "common/wc_status.h"

#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <string>

namespace rdmascope {
namespace {

constexpr int kLast = IBV_WC_TM_RNDV_INCOMPLETE;

TEST(WcStatusTest, TableCoversEveryEnumValue) {
  EXPECT_EQ(WcStatusTable().size(), static_cast<size_t>(kLast + 1));
  for (int n = IBV_WC_SUCCESS; n <= kLast; ++n) {
    SCOPED_TRACE("status " + std::to_string(n));
    const WcStatusInfo* info = FindWcStatus(n);
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->number, n);
    EXPECT_EQ(&WcStatusTable()[static_cast<size_t>(n)], info);
    EXPECT_EQ(info->verbs_text,
              std::string_view(ibv_wc_status_str(static_cast<enum ibv_wc_status>(n))));
    EXPECT_EQ(info->enum_name, std::string("IBV_WC_") + std::string(info->short_name));
    EXPECT_FALSE(info->meaning.empty());
    if (n != IBV_WC_SUCCESS) {
      EXPECT_FALSE(info->causes.empty());
      EXPECT_FALSE(info->checks.empty());
      for (auto c : info->causes) EXPECT_FALSE(c.empty());
      for (auto c : info->checks) EXPECT_FALSE(c.empty());
    }
  }
}

TEST(WcStatusTest, KnownEnumNames) {
  ASSERT_EQ(WcStatusTable().size(), static_cast<size_t>(kLast + 1));
  EXPECT_EQ(FindWcStatus(IBV_WC_RETRY_EXC_ERR)->enum_name, "IBV_WC_RETRY_EXC_ERR");
  EXPECT_EQ(FindWcStatus(IBV_WC_WR_FLUSH_ERR)->short_name, "WR_FLUSH_ERR");
  EXPECT_EQ(FindWcStatus(IBV_WC_TM_RNDV_INCOMPLETE)->short_name, "TM_RNDV_INCOMPLETE");
  EXPECT_EQ(FindWcStatus(IBV_WC_SUCCESS)->short_name, "SUCCESS");
}

TEST(WcStatusTest, OutOfRangeNumbers) {
  EXPECT_EQ(FindWcStatus(-1), nullptr);
  EXPECT_EQ(FindWcStatus(kLast + 1), nullptr);
}

int NumberOf(std::string_view name) {
  const WcStatusInfo* info = FindWcStatus(name);
  return info ? info->number : -100;
}

TEST(WcStatusTest, LookupByName) {
  EXPECT_EQ(NumberOf("12"), IBV_WC_RETRY_EXC_ERR);
  EXPECT_EQ(NumberOf(" 10 "), IBV_WC_REM_ACCESS_ERR);
  EXPECT_EQ(NumberOf("0"), IBV_WC_SUCCESS);
  EXPECT_EQ(NumberOf("RETRY_EXC"), IBV_WC_RETRY_EXC_ERR);
  EXPECT_EQ(NumberOf("retry_exc_err"), IBV_WC_RETRY_EXC_ERR);
  EXPECT_EQ(NumberOf("IBV_WC_RETRY_EXC_ERR"), IBV_WC_RETRY_EXC_ERR);
  EXPECT_EQ(NumberOf("IBV_WC_RNR_RETRY_EXC_ERR"), IBV_WC_RNR_RETRY_EXC_ERR);
  EXPECT_EQ(NumberOf("rnr_retry_exc"), IBV_WC_RNR_RETRY_EXC_ERR);
  EXPECT_EQ(NumberOf("\tWR_FLUSH\n"), IBV_WC_WR_FLUSH_ERR);
  EXPECT_EQ(NumberOf("success"), IBV_WC_SUCCESS);
  EXPECT_EQ(NumberOf("tm_rndv_incomplete"), IBV_WC_TM_RNDV_INCOMPLETE);
  EXPECT_EQ(NumberOf("TM_ERR"), IBV_WC_TM_ERR);
}

TEST(WcStatusTest, RetryExcIsNotRnrRetryExc) {
  EXPECT_EQ(NumberOf("RETRY_EXC"), 12);
  EXPECT_EQ(NumberOf("RNR_RETRY_EXC"), 13);
}

TEST(WcStatusTest, LookupByVerbsText) {
  for (const auto& e : WcStatusTable()) {
    EXPECT_EQ(FindWcStatus(e.verbs_text), &e) << e.verbs_text;
  }
  EXPECT_EQ(NumberOf("Transport Retry Counter Exceeded"), IBV_WC_RETRY_EXC_ERR);
  EXPECT_EQ(NumberOf("work request flushed error"), IBV_WC_WR_FLUSH_ERR);
}

TEST(WcStatusTest, UnknownNames) {
  for (const char* s : {"99", "-1", "", "   ", "RETRY", "12abc", "RNR", "24",
                        "IBV_WC_", "_ERR", "retry counter", "+12"}) {
    EXPECT_EQ(FindWcStatus(std::string_view(s)), nullptr) << "'" << s << "'";
  }
  EXPECT_EQ(FindWcStatus(std::string_view("99999999999999999999")), nullptr);
}

}  // namespace
}  // namespace rdmascope
