// The listening address every server's flag takes (controller --listen, agent
// --metrics-listen): the forms accepted and the ones refused.
#include "common/listen_address.h"

#include <gtest/gtest.h>

namespace aegis {
namespace {

ListenAddress Parsed(std::string_view spec) {
  ListenAddress a;
  Status st = ParseListenAddress(spec, &a);
  EXPECT_TRUE(st.ok()) << spec << ": " << st.ToString();
  return a;
}

TEST(ListenAddress, HostPortBracketedAddressAndAllInterfaces) {
  EXPECT_EQ(Parsed("127.0.0.1:8470").host, "127.0.0.1");
  EXPECT_EQ(Parsed("127.0.0.1:8470").port, 8470);
  EXPECT_EQ(Parsed("ctl.example.com:443").host, "ctl.example.com");
  EXPECT_EQ(Parsed("[::1]:9470").host, "::1");
  EXPECT_EQ(Parsed("[::1]:9470").port, 9470);
  EXPECT_EQ(Parsed("[fe80::1%eth0]:1").host, "fe80::1%eth0");
  EXPECT_EQ(Parsed(":9470").host, "0.0.0.0");
  EXPECT_EQ(Parsed("0.0.0.0:0").port, 0);
  EXPECT_EQ(Parsed("localhost:65535").port, 65535);
}

TEST(ListenAddress, MalformedAddressesAreRefusedWithTheValue) {
  for (std::string_view spec : {"", "8470", "host", "host:", "host:port", "host:-1", "host:65536", "host: 80",
                                "host:80 ", "host:+80", "::1:8470", "[::1]", "[::1]8470", "[::1:8470", "[]:80",
                                "host:99999999999999999999"}) {
    ListenAddress a;
    Status st = ParseListenAddress(spec, &a);
    EXPECT_TRUE(st.IsInvalidArgument()) << "\"" << spec << "\": " << st.ToString();
    std::string quoted = "\"";
    quoted.append(spec).append("\"");
    EXPECT_NE(st.message().find(quoted), std::string::npos) << st.message();
  }
}

TEST(ListenAddress, OnlyThisMachinesAddressesAreLoopback) {
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.1.2.3"));
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackHost("10.0.0.1"));
  EXPECT_FALSE(IsLoopbackHost("::"));
  EXPECT_FALSE(IsLoopbackHost("localhost.example.com"));
}

}  // namespace
}  // namespace aegis
