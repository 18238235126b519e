#include "heed/io/stream_pipeline.h"

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace heed::io {

long long process_lines(LineReader& reader, LineWriter& writer, const PipelineOptions& options,
                        const LineFunction& function) {
  const size_t threads = static_cast<size_t>(std::max(1, options.threads));
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

    // Each slice records the index of its first failing line (or count) and the error.
    const size_t used = std::min(threads, count);
    std::vector<size_t> failed_at(used, count);
    std::vector<std::exception_ptr> errors(used);
    auto work = [&](size_t slice) {
      size_t begin = count * slice / used, end = count * (slice + 1) / used;
      for (size_t i = begin; i < end; ++i) {
        try {
          outputs[i].clear();
          function(inputs[i], first_line + static_cast<long long>(i), outputs[i]);
        } catch (...) {
          failed_at[slice] = i;
          errors[slice] = std::current_exception();
          return;
        }
      }
    };
    std::vector<std::thread> workers;
    for (size_t t = 1; t < used; ++t) workers.emplace_back(work, t);
    work(0);
    for (auto& worker : workers) worker.join();

    size_t first_failure = count;
    std::exception_ptr error;
    for (size_t t = 0; t < used; ++t) {
      if (errors[t] && failed_at[t] < first_failure) {
        first_failure = failed_at[t];
        error = errors[t];
      }
    }
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
