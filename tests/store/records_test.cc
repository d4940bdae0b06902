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
  for (ActionOp o : {ActionOp::kDrain, ActionOp::kResume, ActionOp::kAnnotate}) EXPECT_EQ(ParseActionOp(ToString(o)), o);
  for (ActionBackend b : {ActionBackend::kNone, ActionBackend::kSlurm, ActionBackend::kKubernetes, ActionBackend::kExec})
    EXPECT_EQ(ParseActionBackend(ToString(b)), b);
  for (ActionResult r : {ActionResult::kPending, ActionResult::kRecorded, ActionResult::kOk, ActionResult::kFailed})
    EXPECT_EQ(ParseActionResult(ToString(r)), r);
  EXPECT_EQ(ToString(HostState::kInService), "in_service");
  EXPECT_EQ(ToString(Trigger::kCclStall), "ccl_stall");
}

TEST(RecordsTest, UnknownNamesDoNotParse) {
  EXPECT_FALSE(ParseHostState("In_Service"));
  EXPECT_FALSE(ParseHostState(""));
  EXPECT_FALSE(ParseJobState("crashed"));
  EXPECT_FALSE(ParseTrigger("job_failed "));
  EXPECT_FALSE(ParseChangedBy("robot"));
  EXPECT_FALSE(ParseActionOp("reboot"));
  EXPECT_FALSE(ParseActionBackend("SLURM"));
  EXPECT_FALSE(ParseActionResult("cancelled"));
}

}  // namespace
}  // namespace aegis::store
