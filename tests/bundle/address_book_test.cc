#include "bundle/address_book.h"

#include <gtest/gtest.h>

#include "bundle/bundle_reader.h"

namespace aegis {
namespace {

const char* kTopo = R"({"nodes": [
  {"host": "node-0001", "mgmt_ip": "192.168.10.1",
   "gpus": [{"index": 0, "pci": "0000:18:00.0"}, {"index": 1, "pci": "0000:2A:00.0"}],
   "nics": [{"name": "mlx5_0", "ip": "10.1.0.1"}, {"name": "mlx5_1", "ip": "10.2.0.1"}]},
  {"host": "node-0002.cluster.local", "mgmt_ip": "192.168.10.2", "gpus": [{"index": 0, "pci": "0000:18:00.0"}],
   "nics": [{"name": "mlx5_0", "ip": "10.1.0.2", "switch": ["tor-a", "tor-b"], "port": ["Ethernet8", "Ethernet8"]}]}
]})";

Topology TopologyOf(const char* text) {
  Topology t;
  EXPECT_TRUE(ParseTopology(text, &t, nullptr).ok());
  return t;
}

Job JobOf(const char* text) {
  Job j;
  EXPECT_TRUE(ParseJob(text, &j, nullptr).ok());
  return j;
}

struct Fixture {
  Topology topo = TopologyOf(kTopo);
  Job job = JobOf(R"({"id": "j", "hosts": ["node-0001", "node-0002.cluster.local"]})");
  AddressBook book{topo, job};
};

TEST(AddressBook, PeersInEveryForm) {
  Fixture f;
  EXPECT_EQ(f.book.ResolvePeer("10.2.0.1<43125>").nic, 1);
  EXPECT_EQ(f.book.ResolvePeer("[10.1.0.2](http://10.1.0.2/)").node, 1);
  EXPECT_EQ(f.book.ResolvePeer("::ffff:10.1.0.2").nic, 0);
  EXPECT_EQ(f.book.ResolvePeer("192.168.10.1").node, 0);
  EXPECT_EQ(f.book.ResolvePeer("192.168.10.1").nic, -1);
  EXPECT_EQ(f.book.ResolvePeer("node-0002").node, 1);  // short name of an FQDN
  EXPECT_EQ(f.book.ResolvePeer("NODE-0001:29500").node, 0);
  EXPECT_FALSE(f.book.ResolvePeer("xxx.xxx.xxx.xxx").ok());
  EXPECT_FALSE(f.book.ResolvePeer("localhost").ok());
  EXPECT_FALSE(f.book.ResolvePeer("").ok());
}

TEST(AddressBook, PciShortForms) {
  Fixture f;
  EXPECT_EQ(f.book.GpuByPci(0, "0000:2a:00"), 1);
  EXPECT_EQ(f.book.GpuByPci(0, "2A:00.0"), 1);
  EXPECT_EQ(f.book.GpuByPci(0, "PCI:0000:18:00"), 0);
  EXPECT_EQ(f.book.GpuByPci(0, "0000:99:00"), -1);
  EXPECT_EQ(f.book.GpuByPci(0, "garbage"), -1);
}

TEST(AddressBook, DefaultRankLayout) {
  Fixture f;
  Place p = f.book.ResolveRank(1);
  EXPECT_EQ(p.node, 0);
  EXPECT_EQ(p.gpu, 1);
  p = f.book.ResolveRank(2);  // node-0001 has 2 GPUs
  EXPECT_EQ(p.node, 1);
  EXPECT_EQ(p.gpu, 0);
  EXPECT_FALSE(f.book.ResolveRank(3).ok());
}

}  // namespace
}  // namespace aegis
