#include "controller/tokens.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <sys/stat.h>

#include <fstream>

#include "controller/token_file.h"
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
  EXPECT_TRUE(ClientToken(path, &token).IsPermissionDenied()) << "a token others may read is refused";
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
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

TEST(Tokens, AnAgentTokenSpeaksForItsNodeOnly) {
  TokenTable t;
  ASSERT_TRUE(TokenTable::Parse("agent@gpu-07 agent-token-gpu-07-0123\noperator operator-token-0123456 alice\n", &t).ok());
  EXPECT_TRUE(t.shared_agent_tokens().empty());
  Caller c;
  ASSERT_EQ(t.Check("Bearer agent-token-gpu-07-0123", kScopeAgent, &c), AuthResult::kOk);
  EXPECT_EQ(c.node, "gpu-07");
  EXPECT_EQ(c.name, "gpu-07");  // an agent's token is named after its node unless named
  EXPECT_EQ(t.Check("Bearer agent-token-gpu-07-0123", kScopeRead, &c), AuthResult::kForbidden);
  ASSERT_EQ(t.Check("Bearer operator-token-0123456", kScopeOperator, &c), AuthResult::kOk);
  EXPECT_EQ(c.node, "");
  // A bad node name, and a node-bound agent that is also a person, are refused.
  EXPECT_TRUE(TokenTable::Parse("agent@ agent-token-0123456789\n", &t).IsInvalidArgument());
  EXPECT_TRUE(TokenTable::Parse("agent@a/b agent-token-0123456789\n", &t).IsInvalidArgument());
  EXPECT_TRUE(TokenTable::Parse("agent@n1,operator agent-token-0123456789\n", &t).IsInvalidArgument());
}

TEST(Tokens, SharedAgentTokensAreNamed) {
  TokenTable t;
  ASSERT_TRUE(TokenTable::Parse(kFile, &t).ok());
  // The agent scope bound to no node, alone or with read; never a person's token.
  EXPECT_EQ(t.shared_agent_tokens(), (std::vector<std::string>{"agents", "agent,read"}));
}

TEST(Tokens, TheFileMayHoldDigestsInsteadOfTokens) {
  const std::string token = "a-token-nobody-reads-in-the-file";
  const std::string digest = Hex(Sha256(token));
  ASSERT_EQ(digest.size(), 64u);
  EXPECT_EQ(Hex(Sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");  // FIPS 180-2
  TokenTable t;
  ASSERT_TRUE(TokenTable::Parse("read sha256:" + digest + " dashboards\n", &t).ok());
  Caller c;
  EXPECT_EQ(t.Check("Bearer " + token, kScopeRead, &c), AuthResult::kOk);
  EXPECT_EQ(c.name, "dashboards");
  EXPECT_EQ(t.Check("Bearer sha256:" + digest, kScopeRead, &c), AuthResult::kUnauthenticated)
      << "the digest is not the token";
  // Upper-case hex is the same digest; short or non-hex digests are refused.
  std::string upper = digest;
  for (char& ch : upper) ch = static_cast<char>(toupper(static_cast<unsigned char>(ch)));
  ASSERT_TRUE(TokenTable::Parse("read sha256:" + upper + "\n", &t).ok());
  EXPECT_EQ(t.Check("Bearer " + token, kScopeRead, &c), AuthResult::kOk);
  EXPECT_TRUE(TokenTable::Parse("read sha256:" + digest.substr(2) + "\n", &t).IsInvalidArgument());
  EXPECT_TRUE(TokenTable::Parse("read sha256:" + std::string(64, 'g') + "\n", &t).IsInvalidArgument());
  // The same token twice (as itself and as its digest) is refused: which scope would it have?
  EXPECT_TRUE(TokenTable::Parse("read " + token + "\noperator sha256:" + digest + "\n", &t).IsInvalidArgument());
}

TEST(Tokens, AFileOthersMayReadIsRefused) {
  store::test::ScratchDir dir;
  const std::string path = dir.path() + "/tokens";
  std::ofstream(path) << "operator operator-token-0123456 alice\n";
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  TokenTable t;
  Status s = TokenTable::Load(path, &t);
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  EXPECT_NE(s.message().find("chmod 600"), std::string::npos) << s.message();
  ASSERT_EQ(chmod(path.c_str(), 0400), 0);
  EXPECT_TRUE(TokenTable::Load(path, &t).ok());
  EXPECT_TRUE(TokenTable::Load(dir.path() + "/missing", &t).IsNotFound());
}

TEST(TokenFile, CreateListRevoke) {
  std::string text = "# the cluster's tokens\noperator operator-token-0123456 alice\n", token;
  std::string after;
  ASSERT_TRUE(AddTokenLine(text, "agent@gpu-07", "gpu-07", &after, &token).ok());
  EXPECT_EQ(token.size(), 64u);
  EXPECT_EQ(after.find(token), std::string::npos) << "the file keeps the digest only";
  EXPECT_EQ(after.rfind(text, 0), 0u) << "what was there is kept as it was";
  std::string second;
  ASSERT_TRUE(AddTokenLine(after, "agent@gpu-08", "gpu-08", &after, &second).ok());
  EXPECT_NE(token, second);
  TokenTable t;
  ASSERT_TRUE(TokenTable::Parse(after, &t).ok());
  Caller c;
  ASSERT_EQ(t.Check("Bearer " + token, kScopeAgent, &c), AuthResult::kOk);
  EXPECT_EQ(c.node, "gpu-07");
  std::vector<TokenLine> lines;
  ASSERT_TRUE(ListTokenLines(after, &lines).ok());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].line, 2u);
  EXPECT_EQ(lines[0].scope, "operator");
  EXPECT_EQ(lines[0].digest, Hex(Sha256("operator-token-0123456")));
  EXPECT_EQ(lines[1].node, "gpu-07");
  EXPECT_EQ(lines[1].digest, Hex(Sha256(token)));
  // Revoke by node, then by name; an unknown one is NotFound; the last token stays.
  size_t removed = 0;
  std::string revoked;
  ASSERT_TRUE(RemoveTokenLines(after, "gpu-07", "", &revoked, &removed).ok());
  EXPECT_EQ(removed, 1u);
  ASSERT_TRUE(TokenTable::Parse(revoked, &t).ok());
  EXPECT_EQ(t.Check("Bearer " + token, kScopeAgent, &c), AuthResult::kUnauthenticated);
  EXPECT_EQ(t.Check("Bearer " + second, kScopeAgent, &c), AuthResult::kOk);
  EXPECT_NE(revoked.find("# the cluster's tokens"), std::string::npos);
  EXPECT_TRUE(RemoveTokenLines(revoked, "gpu-07", "", &revoked, &removed).IsNotFound());
  ASSERT_TRUE(RemoveTokenLines(revoked, "", "gpu-08", &revoked, &removed).ok());
  EXPECT_TRUE(RemoveTokenLines(revoked, "", "alice", &after, &removed).IsInvalidArgument())
      << "a file with no token left would be refused, and the controller would keep the old ones";
  // Scopes and names the file would refuse are refused before anything is written.
  EXPECT_TRUE(AddTokenLine(text, "admin", "bob", &after, &token).IsInvalidArgument());
  EXPECT_TRUE(AddTokenLine(text, "operator", "bob smith", &after, &token).IsInvalidArgument());
  EXPECT_TRUE(AddTokenLine(text, "agent@a/b", "x", &after, &token).IsInvalidArgument());
}

TEST(TokenFile, ListsAndRevokesByTheNameTheControllerUses) {
  // A node's line without a name of its own is named after its node, in the table, in the
  // listing and for revoke --name alike.
  const std::string text = "agent@gpu-09  sha256:" + Hex(Sha256("gpu-09-token-0123456789")) +
                           "\noperator operator-token-0123456 alice\n";
  TokenTable t;
  ASSERT_TRUE(TokenTable::Parse(text, &t).ok());
  Caller c;
  ASSERT_EQ(t.Check("Bearer gpu-09-token-0123456789", kScopeAgent, &c), AuthResult::kOk);
  std::vector<TokenLine> lines;
  ASSERT_TRUE(ListTokenLines(text, &lines).ok());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].name, c.name);
  EXPECT_EQ(lines[0].name, "gpu-09");
  std::string after;
  size_t removed = 0;
  ASSERT_TRUE(RemoveTokenLines(text, "", "gpu-09", &after, &removed).ok());
  EXPECT_EQ(removed, 1u);
  EXPECT_EQ(after, "operator operator-token-0123456 alice\n");
}

}  // namespace
}  // namespace aegis::controller
