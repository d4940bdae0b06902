// The probe's clocks. Ticks() is the cheapest monotonic counter the CPU offers (x86 TSC,
// aarch64 virtual counter; CLOCK_MONOTONIC elsewhere); it is what NCCL's threads read, and
// only for the requests the probe times. Ticks become CLOCK_MONOTONIC nanoseconds, and
// those epoch seconds, only when a snapshot is written. The scale is calibrated once, at
// the first communicator's init (5 ms on x86), never on NCCL's hot path.
#pragma once
#include <time.h>

#include <cstdint>

namespace aegis::probe {

inline uint64_t Ticks() {
#if defined(__x86_64__)
  return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
  uint64_t v;
  asm volatile("mrs %0, cntvct_el0" : "=r"(v));
  return v;
#else
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
#endif
}

void CalibrateClock();                // idempotent; call before the first event
uint64_t TicksToNs(uint64_t ticks);   // CLOCK_MONOTONIC nanoseconds
uint64_t TickSpanNs(uint64_t span);   // a difference of ticks, in nanoseconds
uint64_t NowNs();                     // CLOCK_MONOTONIC nanoseconds, through Ticks()
double EpochOf(uint64_t mono_ns);     // seconds since the epoch

}  // namespace aegis::probe
