// A text classifier for the lines no program's rule knows. The rules describe programs by
// their own wordings; a cluster also runs programs nobody wrote a rule for, and a rule
// marked `learned` (the program-agnostic catch-alls of rules/logs/generic.yaml) hands its
// line to this model, which gives the class that lines worded like it have in the
// development corpus (tests/data/corpus, never the held-out set). A fastText classifier
// (word bigrams and character n-grams over learn/line_words.h's words), trained when the
// program is built (tools/line-model) and compiled in. It never makes a line critical:
// what it calls critical it records as a hint, and a guess below kMinLearnedProbability
// leaves the rule's own class. Loaded once, immutable, shared by all threads.
#pragma once
#include <memory>
#include <string_view>

#include "rules/line_class.h"

namespace fasttext {
class FastText;
}

namespace aegis {

struct LineGuess {
  LineClass line_class = LineClass::kNone;
  float probability = 0;  // the model's, in [0, 1]
};

// Below this, a learned rule keeps its own class. Chosen by cross-validation over the
// development corpus's sources: thresholds from 0 to 0.5 score within a point of each
// other, and a higher one gives more lines back to the catch-alls' words.
constexpr float kMinLearnedProbability = 0.4f;

class LineModel {
 public:
  // The model compiled into the program. Throws std::runtime_error if it does not load
  // (a broken build), on first use.
  static const LineModel& Shipped();
  // A model saved by fastText (the trainer's output). Throws std::runtime_error.
  explicit LineModel(std::string_view bytes);
  ~LineModel();
  LineModel(const LineModel&) = delete;
  LineModel& operator=(const LineModel&) = delete;

  LineGuess Guess(std::string_view message) const;

 private:
  std::unique_ptr<fasttext::FastText> model_;
};

// The class a learned rule whose own class is `rule_class` gives a line the model guessed
// `guess` for: the guess when sure enough (critical recorded as a hint), else the rule's.
// kNone means no event (a rule of class none only lets the model look at the line).
LineClass ResolveLearned(LineGuess guess, LineClass rule_class);

// ResolveLearned of the shipped model's guess for `message`; the rule's class where the
// shipped model does not load (said once on standard error). Never throws on content.
LineClass LearnedLineClass(std::string_view message, LineClass rule_class);

// The component of a line a learned rule (class `rule_class`, component `rule_component`)
// gave the class `learned`: the rule's where the class is its own, else the class's usual
// one (a distributed error's host, a configuration error's config, the user's job).
std::string_view LearnedComponent(LineClass learned, LineClass rule_class, std::string_view rule_component);

}  // namespace aegis
