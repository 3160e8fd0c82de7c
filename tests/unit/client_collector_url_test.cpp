// Collector URL parsing (agent/client/collector_url.h).
#include "agent/client/collector_url.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace rdmascope::client
