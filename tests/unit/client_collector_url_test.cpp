// Collector URL parsing (agent/client/collector_url.h).
#include "agent/client/collector_url.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace rdmascope::client {
namespace {

TEST(CollectorUrl, Accepted) {
  auto u = ParseCollectorUrl("http://collector:8080");
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(u->scheme_host_port, "http://collector:8080");
  EXPECT_EQ(u->path_prefix, "");

  u = ParseCollectorUrl("https://c.example.org/rdmascope/");
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(u->scheme_host_port, "https://c.example.org");
  EXPECT_EQ(u->path_prefix, "/rdmascope");

  u = ParseCollectorUrl("http://[::1]:9000/");
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(u->scheme_host_port, "http://[::1]:9000");
  EXPECT_EQ(u->path_prefix, "");
}

TEST(CollectorUrl, RejectedWithTheReason) {
  for (const auto& [url, why] : std::vector<std::pair<std::string, std::string>>{
           {"collector:8080", "must start with http://"},
           {"http://", "no host"},
           {"http://c:0", "port '0'"},
           {"http://c:99999", "port '99999'"},
           {"http://c:", "empty port"},
           {"http://c:80/x?y=1", "query"},
           {"http://bad host/", "bad character"},
           {"http://[::1", "unclosed"}}) {
    auto u = ParseCollectorUrl(url);
    ASSERT_FALSE(u.ok()) << url;
    EXPECT_NE(u.status().message().find(why), std::string::npos) << url << ": " << u.status().message();
    EXPECT_NE(u.status().message().find(url), std::string::npos) << url << ": " << u.status().message();
  }
}

TEST(CollectorUrls, AListInOrderBlanksIgnored) {
  auto u = ParseCollectorUrls("http://c1:9470, https://c2.example.org/rdmascope/ ");
  ASSERT_TRUE(u.ok()) << u.status().message();
  ASSERT_EQ(u->size(), 2u);
  EXPECT_EQ((*u)[0].scheme_host_port, "http://c1:9470");
  EXPECT_EQ((*u)[1].scheme_host_port, "https://c2.example.org");
  EXPECT_EQ((*u)[1].path_prefix, "/rdmascope");
  auto one = ParseCollectorUrls("http://c1:9470");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), 1u);
}

TEST(CollectorUrls, EmptyRepeatedOrBadItemsAreErrorsNamingThem) {
  for (const auto& [list, why] : std::vector<std::pair<std::string, std::string>>{
           {"http://c1,", "item 2 is empty"},
           {",http://c1", "item 1 is empty"},
           {"http://c1:80, http://c1:80/", "named twice"},
           {"http://c1, ftp://c2", "ftp://c2"}}) {
    auto u = ParseCollectorUrls(list);
    ASSERT_FALSE(u.ok()) << list;
    EXPECT_NE(u.status().message().find(why), std::string::npos) << list << ": " << u.status().message();
  }
}

}  // namespace
}  // namespace rdmascope::client
