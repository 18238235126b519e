// The alignment formats heed writes, behind one interface: heed-translate --alignment appends a
// sentence's line after " ||| ", heed-align extract writes one line per pair to --output (and
// jsonl to --soft). A format is a writer class and one row of the table in
// alignment_writer.cpp; both tools then take its name, list it in --help and refuse an unknown
// one. Each format's own line functions sit beside its reader (alignment.h, soft_alignment.h).
//
//   pharaoh  "0-1 2-2"          zero-based word links, source first, sorted (fast_align, Moses)
//   talp     "1-2 3p3"          one-based word links, "i-j" sure, "ipj" possible (gold sets)
//   soft     "0.900,0.100 ..."  one row per target token of its weights over the source
//                               tokens, "%.3f" comma-separated, rows space-separated
//   jsonl    {"id": 0, ...}     the force-decoded pair with every row (soft_alignment.h)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "heed/align/alignment.h"
#include "heed/align/extract.h"
#include "heed/align/soft_alignment.h"

namespace heed::align {

// What a format's writer reads of a sentence pair.
enum class AlignmentInput {
  // Word links: SentenceAlignment::links and ::possible.
  kLinks,
  // The attention rows of the target tokens, and the tokens; an extra </s> row is ignored, so a
  // translation's attention will do.
  kWeights,
  // The whole pair as forced decoding gives it: id, tokens, their words and target tokens + 1
  // rows, the last the </s> step (heed-align only).
  kForcedAttention,
};

// One sentence pair as the writers read it; the caller fills in what its format's input says.
struct SentenceAlignment {
  Alignment links;     // zero-based word links, source first (talp writes them as sure links)
  Alignment possible;  // talp: possible links besides them (one also in links stays sure)
  const SoftAlignment* attention = nullptr;  // the weights and their tokens; not owned
};

class AlignmentWriter {
 public:
  virtual ~AlignmentWriter() = default;
  // Appends the sentence pair's line, without a newline, to out.
  virtual void write(const SentenceAlignment& sentence, std::string& out) = 0;
};

struct AlignmentFormat {
  std::string name;
  std::string summary;  // a few words for --help and the docs
  AlignmentInput input;
  std::unique_ptr<AlignmentWriter> (*make)();
};

// Every format, in the order --help lists them.
const std::vector<AlignmentFormat>& alignment_formats();
// The format of that name; ConfigError naming the formats otherwise.
const AlignmentFormat& alignment_format(const std::string& name);
// The names of every format, or with translations only of those that can follow a translation
// (not kForcedAttention); and the same as "pharaoh (zero-based ...), talp (...) or soft (...)"
// for --help.
std::vector<std::string> alignment_format_names(bool translations);
std::string describe_alignment_formats(bool translations);

// The sentence a format of `input` reads off a pair's attention: the pair itself, and for a
// links format the word links that `links` extracts from its weights (extract.h).
SentenceAlignment from_attention(const SoftAlignment& pair, AlignmentInput input,
                                 const ExtractOptions& links);

}  // namespace heed::align
