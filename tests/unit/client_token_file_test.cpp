// The bearer token file (agent/client/token_file.h).
#include "agent/client/token_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "agent_test_util.h"

namespace rdmascope::client {
namespace {

using agent::testing::TempDir;

class TokenFile : public ::testing::Test {
 protected:
  std::string Write(const std::string& text) {
    const std::string path = dir_.path() + "/token";
    std::ofstream(path, std::ios::trunc | std::ios::binary) << text;
    return path;
  }
  TempDir dir_;
};

TEST_F(TokenFile, TheTextWithoutSurroundingWhitespace) {
  auto token = ReadTokenFile(Write(" \t secret-1\r\n\n"));
  ASSERT_TRUE(token.ok()) << token.status().message();
  EXPECT_EQ(*token, "secret-1");
}

TEST_F(TokenFile, ErrorsNameTheFile) {
  const std::string missing = dir_.path() + "/missing";
  auto r = ReadTokenFile(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("token file " + missing + ": cannot open"), std::string::npos);

  std::string path = Write(" \n \n");
  r = ReadTokenFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "token file " + path + ": holds no token");

  r = ReadTokenFile(Write("one\ntwo\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "token file " + path + ": token spans lines");

  r = ReadTokenFile(Write(std::string(4097, 'x')));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "token file " + path + ": longer than 4096 bytes");
}

}  // namespace
}  // namespace rdmascope::client
