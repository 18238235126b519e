#include "heed/io/stream_pipeline.h"

#include <algorithm>
#include <exception>
#include <vector>

#include "heed/common/parallel.h"

namespace heed::io {
namespace {

// Lines handed to a thread at a time: few enough to balance the threads' work, enough that handing
// them out costs nothing next to tokenizing them.
constexpr size_t kRangeLines = 64;

}  // namespace

long long process_lines(LineReader& reader, LineWriter& writer, const PipelineOptions& options,
                        const LineFunction& function) {
  const size_t batch = std::max<size_t>(1, options.batch_lines);
  std::vector<std::string> inputs(batch), outputs(batch);
  long long processed = 0;

  while (true) {
    const long long first_line = reader.line_number() + 1;
    size_t count = 0;
    // A line that cannot be read (out of memory, a read error) comes after the lines read before
    // it: they are processed and written first, as for a line that fails the function.
    std::exception_ptr read_error;
    try {
      while (count < batch && reader.next(inputs[count])) ++count;
    } catch (...) {
      read_error = std::current_exception();
    }
    if (count == 0) {
      if (read_error) std::rethrow_exception(read_error);
      break;
    }

    // The lines run in ranges of kRangeLines; a failing line ends its range (failed_at records
    // it) and, once the threads are done, the lowest failing range's error comes back: the
    // earliest failing line's, since every range below it has run in full.
    std::vector<size_t> failed_at((count + kRangeLines - 1) / kRangeLines, count);
    std::exception_ptr error;
    try {
      parallel_for_chunks(count, kRangeLines, options.threads, [&](size_t begin, size_t end, int) {
        for (size_t i = begin; i < end; ++i) {
          try {
            outputs[i].clear();
            function(inputs[i], first_line + static_cast<long long>(i), outputs[i]);
          } catch (...) {
            failed_at[begin / kRangeLines] = i;
            throw;
          }
        }
      });
    } catch (...) {
      error = std::current_exception();
    }
    const size_t first_failure = *std::min_element(failed_at.begin(), failed_at.end());
    for (size_t i = 0; i < first_failure; ++i) writer.write_line(outputs[i]);
    processed += static_cast<long long>(first_failure);
    if (error || read_error) {
      writer.flush();
      std::rethrow_exception(error ? error : read_error);
    }
    if (options.flush_every_batch) writer.flush();
    if (count < batch) break;
  }
  return processed;
}

}  // namespace heed::io
