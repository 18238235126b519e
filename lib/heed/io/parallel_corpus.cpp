#include "heed/io/parallel_corpus.h"

#include "heed/common/error.h"

namespace heed::io {

ParallelReader::ParallelReader(const std::string& source_path, const std::string& target_path)
    : source_(std::make_unique<LineReader>(source_path)),
      target_(std::make_unique<LineReader>(target_path)) {}

ParallelReader::ParallelReader(const std::string& combined_path)
    : source_(std::make_unique<LineReader>(combined_path)) {}

bool ParallelReader::next(std::string& source, std::string& target) {
  if (!target_) {
    if (!source_->next(combined_)) return false;
    size_t bar = combined_.find(" ||| ");
    size_t width = 5;
    if (bar == std::string::npos) {
      bar = combined_.find('\t');
      width = 1;
    }
    if (bar == std::string::npos) {
      throw DataError(at_line(source_->path(), source_->line_number(),
                              "expected 'source ||| target' or 'source<TAB>target'"));
    }
    source.assign(combined_, 0, bar);
    target.assign(combined_, bar + width, std::string::npos);
    return true;
  }
  const bool has_source = source_->next(source);
  const bool has_target = target_->next(target);
  if (has_source != has_target) {
    const LineReader& shorter = has_source ? *target_ : *source_;
    const LineReader& longer = has_source ? *source_ : *target_;
    throw DataError(shorter.display_name() + " has " + std::to_string(shorter.line_number()) +
                    " lines but " + longer.display_name() +
                    " has more: the files are not parallel");
  }
  return has_source;
}

long long ParallelReader::line_number() const {
  return source_->line_number();
}

std::string ParallelReader::source_name() const {
  return source_->display_name();
}

std::string ParallelReader::target_name() const {
  return target_ ? target_->display_name() : source_->display_name();
}

void check_line_counts(const std::string& source_path, const std::string& target_path) {
  const long long a = count_lines(source_path);
  const long long b = count_lines(target_path);
  if (a != b) {
    throw DataError("'" + source_path + "' has " + std::to_string(a) + " lines but '" +
                    target_path + "' has " + std::to_string(b) + ": the files are not parallel");
  }
}

}  // namespace heed::io
