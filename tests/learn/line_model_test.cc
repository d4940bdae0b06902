#include "learn/line_model.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace aegis {
namespace {

TEST(LineModel, ShippedModelLoadsAndGuesses) {
  const LineGuess g = LineModel::Shipped().Guess("ORTE has lost communication with a remote daemon.");
  EXPECT_GE(g.probability, 0.0f);
  EXPECT_LE(g.probability, 1.0f);
  // A line of the corpus it was trained on, labelled dist.
  EXPECT_EQ(g.line_class, LineClass::kDist);
  EXPECT_GE(g.probability, kMinLearnedProbability);
}

TEST(LineModel, NoWordsNoGuess) {
  const LineGuess g = LineModel::Shipped().Guess(" ,.;: ");
  EXPECT_EQ(g.line_class, LineClass::kNone);
  EXPECT_EQ(g.probability, 0.0f);
}

TEST(LineModel, BrokenBytesAreRefused) {
  EXPECT_THROW(LineModel("not a model"), std::runtime_error);
  EXPECT_THROW(LineModel(""), std::runtime_error);
}

TEST(LineModel, AnUnsureGuessKeepsTheRulesClass) {
  EXPECT_EQ(ResolveLearned({LineClass::kConfig, kMinLearnedProbability - 0.01f}, LineClass::kHint), LineClass::kHint);
  EXPECT_EQ(ResolveLearned({LineClass::kConfig, kMinLearnedProbability - 0.01f}, LineClass::kNone), LineClass::kNone);
  EXPECT_EQ(ResolveLearned({LineClass::kConfig, kMinLearnedProbability}, LineClass::kHint), LineClass::kConfig);
  EXPECT_EQ(ResolveLearned({LineClass::kNone, 0.9f}, LineClass::kHint), LineClass::kNone);
}

TEST(LineModel, NeverCritical) {
  EXPECT_EQ(ResolveLearned({LineClass::kCritical, 0.99f}, LineClass::kNone), LineClass::kHint);
  EXPECT_EQ(ResolveLearned({LineClass::kCritical, 0.99f}, LineClass::kDist), LineClass::kHint);
}

TEST(LineModel, ComponentFollowsTheClass) {
  EXPECT_EQ(LearnedComponent(LineClass::kDist, LineClass::kDist, "job"), "job");
  EXPECT_EQ(LearnedComponent(LineClass::kConfig, LineClass::kHint, "host"), "config");
  EXPECT_EQ(LearnedComponent(LineClass::kUser, LineClass::kNone, "host"), "job");
  EXPECT_EQ(LearnedComponent(LineClass::kDist, LineClass::kNone, "config"), "host");
  EXPECT_EQ(LearnedComponent(LineClass::kHint, LineClass::kNone, "host"), "host");
}

}  // namespace
}  // namespace aegis
