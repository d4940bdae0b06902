#include "controller/connection_deadline.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace aegis::controller {
namespace {

// A listening socket on loopback and connections to it, accepted: what the HTTP server
// holds while it serves.
class Loopback {
 public:
  Loopback() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(listen_fd_, 8), 0);
    socklen_t n = sizeof a;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &n);
    port_ = ntohs(a.sin_port);
  }
  ~Loopback() {
    for (int fd : fds_) ::close(fd);
    ::close(listen_fd_);
  }
  int port() const { return port_; }
  // A client connection and the server's end of it: {client, accepted}.
  std::pair<int, int> Connect() {
    const int c = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port_));
    EXPECT_EQ(::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    const int s = ::accept(listen_fd_, nullptr, nullptr);
    EXPECT_GE(s, 0);
    fds_.push_back(c);
    fds_.push_back(s);
    return {c, s};
  }

 private:
  int listen_fd_ = -1;
  int port_ = 0;
  std::vector<int> fds_;
};

// Whether the peer shut the connection (a read sees the end at once, nothing was sent).
bool ShutByPeer(int fd) {
  char b;
  return ::recv(fd, &b, 1, MSG_DONTWAIT) == 0;
}

TEST(ConnectionDeadline, AConnectionOlderThanTheDeadlineIsShutDown) {
  Loopback l;
  auto [client, accepted] = l.Connect();
  std::atomic<uint64_t> cut{0};
  ConnectionDeadline d(l.port(), 120, &cut);
  EXPECT_EQ(d.Scan(1000), 0u);  // first seen now
  EXPECT_EQ(d.Scan(1100), 0u);
  EXPECT_FALSE(ShutByPeer(client));
  auto [young_client, young] = l.Connect();  // opened at 1100
  EXPECT_EQ(d.Scan(1100.5), 0u);
  EXPECT_EQ(d.Scan(1121), 1u) << "only the connection open for 121 s";
  EXPECT_TRUE(ShutByPeer(client));
  EXPECT_FALSE(ShutByPeer(young_client));
  EXPECT_EQ(cut.load(), 1u);
  (void)accepted;
  (void)young;
}

TEST(ConnectionDeadline, OnlyConnectionsAcceptedOnItsPort) {
  Loopback mine, other;
  auto [client, accepted] = other.Connect();  // another server's connection, and a client of it
  ConnectionDeadline d(mine.port(), 1);
  EXPECT_EQ(d.Scan(0), 0u);
  EXPECT_EQ(d.Scan(100), 0u);
  EXPECT_FALSE(ShutByPeer(client));
  (void)accepted;
}

}  // namespace
}  // namespace aegis::controller
