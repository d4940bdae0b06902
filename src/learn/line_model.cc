#include "learn/line_model.h"

#include <fasttext/fasttext.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "learn/line_words.h"

namespace aegis {

// The trained model's bytes, written by tools/line-model when the program is built.
extern const std::string_view kShippedLineModel;
namespace {

constexpr std::string_view kLabelPrefix = "__label__";

LineClass LabelClass(std::string_view label) {
  if (label.substr(0, kLabelPrefix.size()) == kLabelPrefix) label.remove_prefix(kLabelPrefix.size());
  try {
    return LineClassFromString(label);
  } catch (const std::invalid_argument&) {
    return LineClass::kNone;  // a label this program does not know: no guess
  }
}

}  // namespace

const LineModel& LineModel::Shipped() {
  static const LineModel model(kShippedLineModel);
  return model;
}

LineModel::LineModel(std::string_view bytes) : model_(std::make_unique<fasttext::FastText>()) {
  // fastText reads a model whole only from a file (its stream reader skips the format
  // check that sets the version it then relies on): the bytes go to a file in memory.
  const int fd = memfd_create("aegis-line-model", MFD_CLOEXEC);
  if (fd < 0) throw std::runtime_error(std::string("line model does not load: memfd_create: ") + std::strerror(errno));
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      throw std::runtime_error(std::string("line model does not load: ") + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  try {
    model_->loadModel("/proc/self/fd/" + std::to_string(fd));
  } catch (const std::exception& e) {
    close(fd);
    throw std::runtime_error(std::string("line model does not load: ") + e.what());
  }
  close(fd);
  if (model_->getArgs().model != fasttext::model_name::sup)
    throw std::runtime_error("line model does not load: not a classifier");
}

LineModel::~LineModel() = default;

LineGuess LineModel::Guess(std::string_view message) const {
  std::string words = LineWords(message);
  if (words.empty()) return {};
  words += '\n';
  std::istringstream in(words);
  std::vector<std::pair<fasttext::real, std::string>> predictions;
  model_->predictLine(in, predictions, 1, 0.0);
  if (predictions.empty()) return {};
  return {LabelClass(predictions.front().second), static_cast<float>(predictions.front().first)};
}

LineClass ResolveLearned(LineGuess guess, LineClass rule_class) {
  if (guess.probability < kMinLearnedProbability) return rule_class;
  return guess.line_class == LineClass::kCritical ? LineClass::kHint : guess.line_class;
}

LineClass LearnedLineClass(std::string_view message, LineClass rule_class) {
  // A model that does not load (a process without /proc) must not stop a scan: the
  // learned rules then keep their own classes, said once.
  static const LineModel* const model = []() -> const LineModel* {
    try {
      return &LineModel::Shipped();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "aegis: %s; the learned catch-alls keep their own classes\n", e.what());
      return nullptr;
    }
  }();
  return model ? ResolveLearned(model->Guess(message), rule_class) : rule_class;
}

std::string_view LearnedComponent(LineClass learned, LineClass rule_class, std::string_view rule_component) {
  if (learned == rule_class) return rule_component;
  switch (learned) {
    case LineClass::kDist: return "host";
    case LineClass::kConfig: return "config";
    case LineClass::kUser: return "job";
    default: return rule_component;
  }
}

}  // namespace aegis
