#include "store/records.h"

#include <gtest/gtest.h>

namespace aegis::store {
namespace {

TEST(RecordsTest, EveryNameParsesBackToItsValue) {
  for (HostState s : {HostState::kInService, HostState::kIsolated, HostState::kRepair, HostState::kOffline,
                      HostState::kHeld})
    EXPECT_EQ(ParseHostState(ToString(s)), s);
  for (JobState s : {JobState::kRunning, JobState::kFailed, JobState::kHung, JobState::kSlow, JobState::kDone})
    EXPECT_EQ(ParseJobState(ToString(s)), s);
  for (Trigger t : {Trigger::kJobFailed, Trigger::kJobHung, Trigger::kCclStall, Trigger::kSlow, Trigger::kManual})
    EXPECT_EQ(ParseTrigger(ToString(t)), t);
  for (ChangedBy b : {ChangedBy::kDecision, ChangedBy::kPerson}) EXPECT_EQ(ParseChangedBy(ToString(b)), b);
  EXPECT_EQ(ToString(HostState::kInService), "in_service");
  EXPECT_EQ(ToString(Trigger::kCclStall), "ccl_stall");
}

TEST(RecordsTest, UnknownNamesDoNotParse) {
  EXPECT_FALSE(ParseHostState("In_Service"));
  EXPECT_FALSE(ParseHostState(""));
  EXPECT_FALSE(ParseJobState("crashed"));
  EXPECT_FALSE(ParseTrigger("job_failed "));
  EXPECT_FALSE(ParseChangedBy("robot"));
}

}  // namespace
}  // namespace aegis::store
