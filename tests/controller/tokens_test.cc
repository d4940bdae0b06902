#include "controller/tokens.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "scratch_dir.h"

namespace aegis::controller {
namespace {

constexpr const char* kFile = R"(# scope   token                 name
agent     agent-token-0123456789   agents
operator  operator-token-0123456   alice
read      read-token-0123456789a   dashboards
agent,read both-token-0123456789
solo-token-with-every-scope
)";

TEST(Tokens, ScopesDecide) {
  TokenTable t;
  ASSERT_TRUE(TokenTable::Parse(kFile, &t).ok());
  Caller c;
  EXPECT_EQ(t.Check("", kScopeAgent, &c), AuthResult::kUnauthenticated);
  EXPECT_EQ(t.Check("Bearer nope-nope-nope-nope", kScopeAgent, &c), AuthResult::kUnauthenticated);
  EXPECT_EQ(t.Check("Basic agent-token-0123456789", kScopeAgent, &c), AuthResult::kUnauthenticated);
  EXPECT_EQ(t.Check("Bearer agent-token-0123456789", kScopeAgent, &c), AuthResult::kOk);
  EXPECT_EQ(c.name, "agents");
  EXPECT_EQ(t.Check("Bearer agent-token-0123456789", kScopeRead | kScopeOperator, &c), AuthResult::kForbidden);
  EXPECT_EQ(t.Check("Bearer operator-token-0123456", kScopeAgent, &c), AuthResult::kForbidden);
  EXPECT_EQ(t.Check("Bearer operator-token-0123456", kScopeRead, &c), AuthResult::kOk);  // operator reads too
  EXPECT_EQ(c.name, "alice");
  EXPECT_EQ(t.Check("Bearer read-token-0123456789a", kScopeOperator, &c), AuthResult::kForbidden);
  EXPECT_EQ(t.Check("Bearer read-token-0123456789a", kScopeRead, &c), AuthResult::kOk);
  EXPECT_EQ(t.Check("Bearer both-token-0123456789", kScopeAgent, &c), AuthResult::kOk);
  EXPECT_EQ(t.Check("Bearer solo-token-with-every-scope", kScopeOperator, &c), AuthResult::kOk);
}

TEST(Tokens, NoFileMeansNoAuthentication) {
  TokenTable t;
  Caller c;
  EXPECT_FALSE(t.enabled());
  EXPECT_EQ(t.Check("", kScopeOperator, &c), AuthResult::kOk);
}

TEST(Tokens, BadFilesAreRefused) {
  TokenTable t;
  EXPECT_NE(TokenTable::Parse("admin some-token-0123456789\n", &t).message().find("unknown scope \"admin\""), std::string::npos);
  EXPECT_NE(TokenTable::Parse("agent short\n", &t).message().find("at least 16"), std::string::npos);
  EXPECT_TRUE(TokenTable::Parse("# nothing\n\n", &t).IsInvalidArgument());
}

TEST(Tokens, ClientTokenFromFileOrEnvironment) {
  store::test::ScratchDir dir;
  const std::string path = dir.path() + "/token";
  std::ofstream(path) << "# mine\n  secret-token-0123456789  \n";
  std::string token;
  ASSERT_TRUE(ClientToken(path, &token).ok());
  EXPECT_EQ(token, "secret-token-0123456789");
  std::ofstream(path) << "agent secret-token-0123456789\n";
  EXPECT_TRUE(ClientToken(path, &token).IsInvalidArgument());
  EXPECT_TRUE(ClientToken(dir.path() + "/missing", &token).IsNotFound());
  setenv("AEGIS_TOKEN", "env-token-0123456789", 1);
  ASSERT_TRUE(ClientToken("", &token).ok());
  EXPECT_EQ(token, "env-token-0123456789");
  unsetenv("AEGIS_TOKEN");
  ASSERT_TRUE(ClientToken("", &token).ok());
  EXPECT_EQ(token, "");
}

}  // namespace
}  // namespace aegis::controller
