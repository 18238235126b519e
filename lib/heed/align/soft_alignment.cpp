#include "heed/align/soft_alignment.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "heed/common/error.h"
#include "heed/common/json_number.h"
#include "heed/common/strings.h"

namespace heed::align {

std::string to_json_line(const SoftAlignment& pair) {
  // Written by hand for the weights: six decimals, not nlohmann's shortest round trip, keep
  // the files a third of the size and are more than float precision needs for a heatmap.
  std::string out = "{\"id\": " + std::to_string(pair.id) +
                    ", \"source\": " + nlohmann::json(pair.source).dump() +
                    ", \"target\": " + nlohmann::json(pair.target).dump() +
                    ", \"source_words\": " + nlohmann::json(pair.source_words).dump() +
                    ", \"target_words\": " + nlohmann::json(pair.target_words).dump() +
                    ", \"weights\": [";
  char number[32];
  for (size_t r = 0; r < pair.weights.size(); ++r) {
    out += r ? ", [" : "[";
    for (size_t c = 0; c < pair.weights[r].size(); ++c) {
      std::snprintf(number, sizeof number, c ? ", %.6g" : "%.6g", double(pair.weights[r][c]));
      out += number;
    }
    out += ']';
  }
  out += "]}";
  return out;
}

SoftAlignment parse_json_line(std::string_view line, const std::string& file,
                              long long line_number) {
  const auto fail = [&](const std::string& what) {
    throw DataError(at_line(file, line_number, what));
  };
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) fail("not a JSON object");
  SoftAlignment pair;
  // Numbers are read checked (common/json_number.h): a float too large for its type is a bad line.
  const auto numbers = [&](const char* key, auto* out) {
    using T = typename std::remove_pointer_t<decltype(out)>::value_type;
    auto v = json_numbers<T>(j.at(key));
    if (!v) fail(std::string("\"") + key + "\" is not a list of numbers in range");
    *out = std::move(*v);
  };
  try {
    const auto id = json_number<long long>(j.at("id"));
    if (!id || *id < 0) fail("\"id\" is not an integer >= 0 (a zero-based pair number)");
    pair.id = *id;
    pair.source = j.at("source").get<std::vector<std::string>>();
    pair.target = j.at("target").get<std::vector<std::string>>();
    numbers("source_words", &pair.source_words);
    numbers("target_words", &pair.target_words);
    const auto& rows = j.at("weights");
    if (!rows.is_array()) fail("\"weights\" is not a list of rows");
    pair.weights.resize(rows.size());
    for (size_t r = 0; r < rows.size(); ++r) {
      auto row = json_numbers<float>(rows[r]);
      if (!row) fail("\"weights\" row " + std::to_string(r) + " is not a list of numbers in range");
      pair.weights[r] = std::move(*row);
    }
  } catch (const nlohmann::json::exception& e) {
    fail(std::string("expected \"id\", \"source\", \"target\", \"source_words\", "
                     "\"target_words\" and \"weights\": ") +
         e.what());
  }
  if (pair.weights.size() != pair.target.size() + 1) {
    fail("\"weights\" has " + std::to_string(pair.weights.size()) + " rows; " +
         std::to_string(pair.target.size()) + " target tokens need " +
         std::to_string(pair.target.size() + 1) + " (the last is </s>)");
  }
  // Word indices: as many as tokens, starting at 0, each the same as its left neighbour's or
  // one more.
  const auto check_words = [&](const std::vector<int>& words, size_t tokens, const char* key) {
    bool ok = words.size() == tokens;
    for (size_t i = 0; ok && i < words.size(); ++i) {
      const int previous = i ? words[i - 1] : -1;
      ok = words[i] == previous || words[i] == previous + 1;
    }
    if (!ok) fail(std::string("\"") + key + "\" must number the words of the tokens: 0, 0, 1, ...");
  };
  check_words(pair.source_words, pair.source.size(), "source_words");
  check_words(pair.target_words, pair.target.size(), "target_words");
  for (size_t r = 0; r < pair.weights.size(); ++r) {
    if (pair.weights[r].size() != pair.source.size()) {
      fail("row " + std::to_string(r) + " of \"weights\" has " +
           std::to_string(pair.weights[r].size()) + " columns, not the " +
           std::to_string(pair.source.size()) + " source tokens");
    }
    for (float w : pair.weights[r]) {
      if (!std::isfinite(w)) fail("row " + std::to_string(r) + " of \"weights\" is not finite");
    }
  }
  return pair;
}

}  // namespace heed::align
