// Order-preserving parallel map over the lines of a stream (the OpenNMT Tokenizer's
// process_stream idea): read a batch, transform its lines on several threads, write the
// results in input order, repeat.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"

namespace heed::io {

// Transforms one input line (1-based number line_number) into out (without "\n").
// May throw; the error of the earliest failing line is rethrown after every line before
// it has been written.
using LineFunction =
    std::function<void(std::string_view line, long long line_number, std::string& out)>;

struct PipelineOptions {
  int threads = 1;            // worker threads, including the calling one
  size_t batch_lines = 8192;  // lines read before the workers start
  bool flush_every_batch = false;
};

// Returns the number of lines processed.
long long process_lines(LineReader& reader, LineWriter& writer, const PipelineOptions& options,
                        const LineFunction& function);

}  // namespace heed::io
