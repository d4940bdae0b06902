#include "controller/fresh_events.h"

#include <gtest/gtest.h>

namespace aegis::controller {
namespace {

store::Event Stored(const std::string& id, const std::string& body, const std::string& node = "node-1") {
  store::Event e;
  e.id = id;
  e.node = node;
  e.type = wire::EventType::kHeartbeat;
  e.body = body;
  return e;
}

std::shared_ptr<const wire::DecodedEvent> Decoded(const std::string& id) {
  auto d = std::make_shared<wire::DecodedEvent>();
  d->id = id;
  return d;
}

TEST(FreshEvents, TheStoredEventGetsWhatIngestDecodedOnce) {
  FreshEvents fresh;
  fresh.Put(Stored("a", "{\"x\":1}"), Decoded("a"));
  auto d = fresh.Take(Stored("a", "{\"x\":1}"));
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->id, "a");
  EXPECT_EQ(fresh.Take(Stored("a", "{\"x\":1}")), nullptr) << "taken once";
  EXPECT_EQ(fresh.size(), 0u);
}

TEST(FreshEvents, AStoredEventThatDiffersFromWhatWasKeptIsDecodedAgain) {
  FreshEvents fresh;
  fresh.Put(Stored("a", "{\"x\":1}"), Decoded("a"));
  fresh.Put(Stored("b", "{\"x\":1}", "node-1"), Decoded("b"));
  // The store kept an earlier event of that id (this one came second, as a duplicate).
  EXPECT_EQ(fresh.Take(Stored("a", "{\"x\":2}")), nullptr);
  EXPECT_EQ(fresh.Take(Stored("b", "{\"x\":1}", "node-2")), nullptr);
  EXPECT_EQ(fresh.size(), 0u) << "read back either way";
}

TEST(FreshEvents, ForgottenEntriesAreGone) {
  FreshEvents fresh;
  fresh.Put(Stored("a", "{}"), Decoded("a"));
  fresh.Forget("a");
  fresh.Forget("never-put");
  EXPECT_EQ(fresh.Take(Stored("a", "{}")), nullptr);
}

TEST(FreshEvents, TheOldestGoWhenFull) {
  const std::string body(100, ' ');
  FreshEvents fresh(1000);  // about four entries of 200+ bytes
  for (int i = 0; i < 10; ++i) {
    std::string id = "e";
    id.append(std::to_string(i));  // (not "e" + ...: GCC 12's -Wrestrict misfires on it)
    fresh.Put(Stored(id, body), Decoded(id));
  }
  EXPECT_LE(fresh.size(), 4u);
  EXPECT_EQ(fresh.Take(Stored("e0", body)), nullptr) << "the oldest went first";
  EXPECT_NE(fresh.Take(Stored("e9", body)), nullptr) << "the newest stays";
  // Entries taken out of order leave the rest in order of age.
  fresh.Put(Stored("late", body), Decoded("late"));
  EXPECT_NE(fresh.Take(Stored("late", body)), nullptr);
  FreshEvents tiny(10);
  tiny.Put(Stored("big", body), Decoded("big"));
  EXPECT_EQ(tiny.size(), 0u) << "an entry bigger than the cache is not kept";
}

TEST(FreshEvents, PutAgainReplacesAndClearEmpties) {
  FreshEvents fresh;
  fresh.Put(Stored("a", "{\"v\":1}"), Decoded("first"));
  fresh.Put(Stored("a", "{\"v\":2}"), Decoded("second"));
  EXPECT_EQ(fresh.size(), 1u);
  auto d = fresh.Take(Stored("a", "{\"v\":2}"));
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->id, "second");
  fresh.Put(Stored("b", "{}"), Decoded("b"));
  fresh.Clear();
  EXPECT_EQ(fresh.size(), 0u);
}

}  // namespace
}  // namespace aegis::controller
