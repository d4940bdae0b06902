#include "gen/ccl_snapshots.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace aegis::gen {

namespace {

std::string RecordLine(const Scene& s, int node, int gpu, double ts, const char* name, uint64_t hash, int nranks,
                       int nnodes, int rank, CclCounts c, const std::string& net,
                       const std::function<double(uint64_t)>& td = nullptr) {
  std::string recent;
  for (uint64_t k = c.completed > 16 ? c.completed - 16 : 0; k < c.completed; ++k)
    recent += fmt::format("{}{{\"func\": \"AllReduce\", \"seq\": {}, \"bytes\": 67108864, \"start_ts\": {:.3f}, \"td_us\": {:.1f}}}",
                          recent.empty() ? "" : ", ", k, ts - static_cast<double>(c.completed - k) * 0.9,
                          td ? td(k) : 5100.0 + static_cast<double>(k % 7));
  return fmt::format("{{\"v\": 1, \"ts\": {:.3f}, \"host\": \"{}\", \"pid\": {}, \"gpu\": {}, \"comm\": \"{:016x}\", "
                     "\"comm_name\": \"{}\", \"nranks\": {}, \"nnodes\": {}, \"rank\": {}, \"coll\": {{\"AllReduce\": "
                     "{{\"launched\": {}, \"completed\": {}}}}}, \"net\": [{}], \"recent\": [{}]}}",
                     ts, s.N(node).host, kPidBase + gpu, gpu, hash, name, nranks, nnodes, rank, c.launched, c.completed,
                     net, recent);
}

std::string NetEntry(int peer, bool send, uint64_t posted, uint64_t completed, double gbps) {
  return fmt::format("{{\"peer\": {}, \"dir\": \"{}\", \"posted\": {}, \"completed\": {}, \"bytes\": {}, \"recent_gbps\": {:.1f}}}",
                     peer, send ? "send" : "recv", posted, completed, completed * 524288, gbps);
}

uint64_t TpHash(int host) { return 0x7000000000000000ull + static_cast<uint64_t>(host); }
uint64_t DpHash(int gpu) { return 0xd000000000000000ull + static_cast<uint64_t>(gpu); }

}  // namespace

void WriteHangSnapshots(Scene& s, uint64_t iters, const std::function<CclCounts(int, int, char)>& hang,
                        const std::function<bool(int, int, int, bool)>& stuck) {
  const int H = s.Hosts(), G = s.Gpus();
  for (int h = 0; h < H; ++h)
    for (int g = 0; g < G; ++g) {
      LogFile& out = s.b.Node(h).ccl[g];
      for (int snap = 0; snap < 3; ++snap) {
        const bool last = snap == 2;
        const double ts = s.At(28 + snap) + g * 0.001;
        auto counts = [&](char comm) {
          if (last) return hang(h, g, comm);
          const uint64_t done = iters - static_cast<uint64_t>(2 - snap) * 2;
          return CclCounts{done, done};
        };
        // TP: intra-node, no network entries.
        out.Add(ts, RecordLine(s, h, g, ts, "tp", TpHash(h), G, 1, g, counts('t'), ""));
        auto ring = [&](int rank, int n, auto node_of, char comm) {
          const CclCounts c = counts(comm);
          const int next = (rank + 1) % n, prev = (rank + n - 1) % n;
          const uint64_t steps = c.completed * 4;
          const bool s_stuck = last && stuck(h, g, node_of(next), true), r_stuck = last && stuck(h, g, node_of(prev), false);
          return NetEntry(next, true, steps + (s_stuck ? 2 : 0), steps + (s_stuck ? 1 : 0), 24.0 + (h % 5) * 0.3) + ", " +
                 NetEntry(prev, false, steps + (r_stuck ? 2 : 0), steps + (r_stuck ? 1 : 0), 24.1 + (h % 3) * 0.2);
        };
        out.Add(ts, RecordLine(s, h, g, ts, "dp", DpHash(g), H, H, h, counts('d'), ring(h, H, [](int r) { return r; }, 'd')));
        const int group = h / 4, base = group * 4, pp_n = std::min(4, H - base);
        if (pp_n >= 2)
          out.Add(ts, RecordLine(s, h, g, ts, "pp", 0xe000000000000000ull + static_cast<uint64_t>(group * 16 + g), pp_n,
                                 pp_n, h - base, counts('p'), ring(h - base, pp_n, [base](int r) { return base + r; }, 'p')));
      }
    }
}

void WriteSlowSnapshots(Scene& s, const std::function<double(int, int, char, uint64_t)>& td,
                        const std::function<double(int, int, char, int)>& gbps) {
  const int H = s.Hosts(), G = s.Gpus();
  const uint64_t n = 500 + static_cast<uint64_t>(s.Rand(500));
  for (int h = 0; h < H; ++h)
    for (int g = 0; g < G; ++g) {
      const double ts = s.At(0) + g * 0.001;
      const CclCounts c{n + static_cast<uint64_t>(h % 2), n};  // skew between snapshots is normal
      auto tdf = [&](char comm) {
        return [&, comm, h, g](uint64_t seq) {
          const double noise = 1.0 + static_cast<double>((seq * 2654435761u + static_cast<uint64_t>(h * 31 + g)) % 100) / 1000.0;
          return 5000.0 * td(h, g, comm, seq) * noise;
        };
      };
      auto ring = [&](int rank, int nr, auto node_of, char comm) {
        const int next = (rank + 1) % nr, prev = (rank + nr - 1) % nr;
        return NetEntry(next, true, n * 4, n * 4, gbps(h, g, comm, node_of(next))) + ", " +
               NetEntry(prev, false, n * 4, n * 4, gbps(node_of(prev), g, comm, h));
      };
      LogFile& out = s.b.Node(h).ccl[g];
      out.Add(ts, RecordLine(s, h, g, ts, "tp", TpHash(h), G, 1, g, c, "", tdf('t')));
      out.Add(ts, RecordLine(s, h, g, ts, "dp", DpHash(g), H, H, h, c, ring(h, H, [](int r) { return r; }, 'd'), tdf('d')));
    }
}

}  // namespace aegis::gen
