#include "engine/job_window.h"

#include <gtest/gtest.h>

#include "engine/incident_fixture.h"

namespace aegis {
namespace {

Job TheJob() {
  Job j;
  j.started_at = test::kJobStart;
  j.ended_at = test::kJobEnd;
  return j;
}

LogEvent At(double ts, bool exact, bool zoned) {
  LogEvent e;
  e.ts = ts;
  e.ts_exact = exact;
  e.ts_zoned = zoned;
  return e;
}

TEST(JobWindow, DaysBeforeTheJobIsHistoryWhateverTheZone) {
  for (double days : {1.0, 3.0, 7.0}) {
    EXPECT_TRUE(OutsideJobWindow(At(test::kJobStart - days * 86400, true, true), TheJob())) << days;
    EXPECT_TRUE(OutsideJobWindow(At(test::kJobStart - days * 86400, true, false), TheJob())) << days;
  }
}

TEST(JobWindow, ClockSkewAndLocalTimeAreTolerated) {
  // A host whose clock runs a few minutes behind.
  EXPECT_FALSE(OutsideJobWindow(At(test::kJobStart - 200, true, true), TheJob()));
  EXPECT_TRUE(OutsideJobWindow(At(test::kJobStart - 900, true, true), TheJob()));
  // dmesg -T / syslog print local time without a zone: hours off UTC are not history.
  EXPECT_FALSE(OutsideJobWindow(At(test::kJobStart - 9 * 3600, true, false), TheJob()));
  EXPECT_FALSE(OutsideJobWindow(At(test::kJobEnd + 9 * 3600, true, false), TheJob()));
  EXPECT_TRUE(OutsideJobWindow(At(test::kJobEnd + 16 * 3600, true, false), TheJob()));
}

TEST(JobWindow, AnInheritedTimeCanProveLateNeverEarly) {
  // Inherited from a line long before the job: the event itself may be any time after.
  EXPECT_FALSE(OutsideJobWindow(At(test::kJobStart - 3 * 86400, false, true), TheJob()));
  // Inherited from a line after the job ended: it happened after that.
  EXPECT_TRUE(OutsideJobWindow(At(test::kJobEnd + 3600, false, true), TheJob()));
}

TEST(JobWindow, UnknownTimesAndOpenJobsStayInside) {
  EXPECT_FALSE(OutsideJobWindow(At(NAN, false, false), TheJob()));
  Job running = TheJob();
  running.ended_at = NAN;
  EXPECT_FALSE(OutsideJobWindow(At(test::kJobEnd + 86400, true, true), running));
  Job no_start = TheJob();
  no_start.started_at = NAN;
  EXPECT_FALSE(OutsideJobWindow(At(test::kJobStart - 86400, true, true), no_start));
}

TEST(JobWindow, AHostReturnedDuringTheJobOpensItsWindowThen) {
  Job j = TheJob();
  j.not_before["node-0003"] = test::kJobStart + 900;
  // Before the return (beyond the clocks' skew): history on that host only.
  EXPECT_TRUE(OutsideJobWindow(At(test::kJobStart + 300, true, true), j, {}, "node-0003"));
  EXPECT_FALSE(OutsideJobWindow(At(test::kJobStart + 300, true, true), j, {}, "node-0004"));
  EXPECT_FALSE(OutsideJobWindow(At(test::kJobStart + 300, true, true), j));
  EXPECT_FALSE(OutsideJobWindow(At(test::kJobStart + 700, true, true), j, {}, "node-0003"));
  // A not_before earlier than the start changes nothing.
  j.not_before["node-0003"] = test::kJobStart - 86400;
  EXPECT_TRUE(OutsideJobWindow(At(test::kJobStart - 3600, true, true), j, {}, "node-0003"));
  EXPECT_FALSE(OutsideJobWindow(At(test::kJobStart - 200, true, true), j, {}, "node-0003"));
}

}  // namespace
}  // namespace aegis
