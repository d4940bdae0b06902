// Configuration and network faults: a host whose configuration differs from the others
// (ConfigCheck over facts.json), a switch port that flaps, a path that loses only large
// packets (NetDiag over switch logs and probes). Each is a repair of the named thing.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "gen/faults.h"
#include "gen/families.h"

namespace aegis::gen {

using nlohmann::json;

namespace {

struct Port {
  int host, rail;
};

// The switch port of one host's NIC goes down and up three times around the fault.
Port FlapPort(Scene& s) {
  const int f = s.Rand(s.Hosts()), rail = s.Rand(s.Gpus());
  const GenNode& n = s.N(f);
  const std::string& sw_name = n.nic_switch[static_cast<size_t>(rail)];
  const std::string& port = n.nic_port[static_cast<size_t>(rail)];
  LogFile& sw = s.b.switches[sw_name];
  const std::string netdev = fmt::format("mlx5_core 0000:{:02x}:00.0 ens{}f0np0", 0x0c + rail * 0x10, rail + 1);
  for (int i = 0; i < 3; ++i) {
    const double down = s.At(-5 + i * 7), up = s.At(-2 + i * 7);
    if (i % 2 == 0)
      sw.Add(down, fmt::format("{}{} NOTICE swss#portsyncd: :- set: Port {} oper state set from up to down",
                               SyslogTime(down), sw_name, port));
    else
      sw.Add(down, fmt::format("%LINEPROTO-5-UPDOWN: Line protocol on Interface {}, changed state to down", port));
    sw.Add(up, fmt::format("%LINEPROTO-5-UPDOWN: Line protocol on Interface {}, changed state to up", port));
    s.Kernel(f, down, netdev + ": Link down");
    s.Kernel(f, up, netdev + ": Link up");
  }
  // Some noise on another port of the same switch that is fine.
  sw.Add(s.At(-100), "%LINK-3-UPDOWN: Interface Ethernet255, changed state to up");
  s.Expect("repair", "network", "net_diag");
  s.ExpectRepair({{"host", n.host}, {"component", "switch_port"}, {"device", port}});
  return {f, rail};
}

// Probes along one rail, every host to a few others in four sizes: those through one
// host's link lose only the packets larger than the path's MTU.
Port LoseLargePackets(Scene& s) {
  const int l = s.Rand(s.Hosts()), rail = s.Rand(s.Gpus());
  const size_t k = static_cast<size_t>(rail);
  for (int src = 0; src < s.Hosts(); ++src)
    for (int hop = 1; hop <= 3; ++hop) {
      const int dst = (src + hop * 5) % s.Hosts();
      if (dst == src) continue;
      for (int size : {64, 1024, 4096, 9000}) {
        const bool through = src == l || dst == l;
        const int lost = through && size > 1500 ? 20 + s.Rand(50) : 0;
        s.b.probes.push_back({{"src", s.N(src).nic_ip[k]}, {"dst", s.N(dst).nic_ip[k]}, {"size", size}, {"sent", 100},
                              {"lost", lost}, {"rtt_us_p50", 8.0 + s.Jitter(3)}, {"rtt_us_p99", 12.0 + s.Jitter(4)},
                              {"at", IsoTime(s.b.c.fail + 60)}});
      }
    }
  s.Expect("repair", "network", "net_diag");
  s.ExpectRepair({{"host", s.N(l).host}, {"component", "link"}, {"device", s.N(l).nic_port[k]}});
  return {l, rail};
}

}  // namespace

void InjectConfigMismatch(Scene& s) {
  const int m = DriftConfig(s).host;
  // Connections to the odd host fail; it is the common endpoint.
  const bool socket_style = s.Coin();
  PeersLoseConnection(s, m, std::min(5, s.Hosts() - 1), socket_style);
  WatchdogTimeouts(s);
}

void InjectSwitchFlap(Scene& s) {
  const Port p = FlapPort(s);
  for (int k = 0; k < 4; ++k) {
    const int peer = s.Other({p.host});
    IbCompletionError(s, peer, p.host, p.rail, s.At(1 + s.Jitter(1)));
  }
  WatchdogTimeouts(s);
}

void InjectLargePacketLoss(Scene& s) {
  const Port p = LoseLargePackets(s);
  if (s.Coin()) {
    for (int k = 0; k < 4; ++k) {
      const int peer = s.Other({p.host});
      IbCompletionError(s, peer, p.host, p.rail, s.At(s.Jitter(2)));
    }
  } else {
    s.b.state = "hung";
  }
  WatchdogTimeouts(s);
}

// A fault that stops the whole job (a configuration drift, a flapping port, a path losing
// large packets) while, in the minutes before every rank times out, two or three
// connection errors happen to involve one healthy host. Those few edges explain nothing:
// the finding is the repair.
void InjectIncidentalEdges(Scene& s) {
  int faulty = 0;
  switch (s.seed % 3) {
    case 0:
      faulty = DriftConfig(s).host;
      s.Variant("configuration drift");
      break;
    case 1:
      faulty = FlapPort(s).host;
      s.Variant("switch port flap");
      break;
    default:
      faulty = LoseLargePackets(s).host;
      s.Variant("path losing large packets");
  }
  const int incidental = s.Other({faulty});
  const int edges = 2 + s.Rand(2);
  std::vector<int> peers = s.Pick(edges, {faulty, incidental});
  if (peers.empty()) peers.push_back(faulty);  // a two-host job: the only other host
  s.keep.insert(incidental);
  for (int k = 0; k < edges; ++k) {
    const int peer = peers[static_cast<size_t>(k) % peers.size()];
    const int rail = s.Rand(s.Gpus());
    const double ts = s.At(20 + s.Jitter(100));
    if (k % 2 == 0) IbCompletionError(s, incidental, peer, rail, ts, s.Coin() ? 12 : 5);
    else IbCompletionError(s, peer, incidental, rail, ts, s.Coin() ? 12 : 5);
    s.keep.insert(peer);
  }
  WatchdogTimeouts(s);
}

}  // namespace aegis::gen
