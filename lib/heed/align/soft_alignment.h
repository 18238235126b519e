// The attention of one sentence pair, as heed-align --soft writes it and heed-align plot reads
// it: one JSON object per line (JSON Lines), so Python reads a file with
//   [json.loads(line) for line in open(path)]
// and numpy.array(pair["weights"]) is the [target steps, source tokens] matrix.
//
//   {"id": 0, "source": ["das", "Haus￭", "tür"], "target": ["the", "door"],
//    "source_words": [0, 1, 1], "target_words": [0, 1],
//    "weights": [[0.9, 0.1, 0.0], [0.1, 0.3, 0.6], [0.4, 0.3, 0.3]]}
//
// Row j is the attention of the decoder step that predicts target token j; the last row (one
// more than there are target tokens) is the step that predicts </s>. Columns are the source
// tokens (the model's subwords; heed feeds no </s> to the encoder). id is the zero-based pair
// number in the input. source_words / target_words give the word (zero-based, as Pharaoh links
// count them) each token belongs to: subwords of one word share it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace heed::align {

struct SoftAlignment {
  long long id = 0;
  std::vector<std::string> source;
  std::vector<std::string> target;
  std::vector<int> source_words;            // [source.size()]
  std::vector<int> target_words;            // [target.size()]
  std::vector<std::vector<float>> weights;  // [target.size() + 1][source.size()]
};

// One JSON line (no newline), weights rounded to 6 decimals.
std::string to_json_line(const SoftAlignment& pair);
// Parses and checks the shape; throws DataError naming file:line.
SoftAlignment parse_json_line(std::string_view line, const std::string& file,
                              long long line_number);

}  // namespace heed::align
