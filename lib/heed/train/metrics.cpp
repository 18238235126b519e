#include "heed/train/metrics.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "heed/common/error.h"
#include "heed/io/line_writer.h"

namespace heed::train {
namespace {

namespace fs = std::filesystem;

// Blank for NaN (no value), else four decimals.
std::string optional_number(double value) {
  if (std::isnan(value)) return std::string();
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", value);
  return text;
}

}  // namespace

MetricsWriter::MetricsWriter(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  if (fs::is_directory(path_)) {
    throw WriteError(path_ + ": cannot write the metrics file (is a directory)");
  }
  if (!fs::exists(path_)) {
    io::check_writable(path_);  // its directory
  } else if (::access(path_.c_str(), W_OK) != 0) {
    throw WriteError(path_ + ": cannot write the metrics file: " + errno_message(errno));
  }
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    throw WriteError(path_ + ": cannot write the metrics file: " + errno_message(errno));
  }
  // A regular file gets the header when it is empty; anything else (/dev/null, a FIFO,
  // /dev/stderr) has no size to look at and gets it once, now.
  struct stat info {};
  header_due_ = ::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode) || info.st_size == 0;
}

MetricsWriter::~MetricsWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void MetricsWriter::write(const MetricsRow& row) {
  if (fd_ < 0 || !failure_.empty()) return;
  std::string text;
  if (header_due_) {
    text = "step\tepoch\tloss\tperplexity\tlr\ttokens_per_s\tval_ppl\tval_bleu\telapsed_s\tevent\n";
  }
  char line[512];
  std::snprintf(line, sizeof line, "%lld\t%lld\t%.5f\t%.4f\t%.3g\t%.0f\t%s\t%s\t%.1f\t%s\n",
                static_cast<long long>(row.step), static_cast<long long>(row.epoch), row.loss,
                std::exp(row.loss), row.lr, row.tokens_per_second,
                optional_number(row.valid_ppl).c_str(), optional_number(row.valid_bleu).c_str(),
                row.elapsed, row.event.c_str());
  text += line;
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failure_ =
          "cannot write the metrics file '" + path_ + "': " + errno_message(n < 0 ? errno : EIO);
      spdlog::warn("{}; training goes on, without metrics rows", failure_);
      return;
    }
    done += size_t(n);
  }
  header_due_ = false;
}

}  // namespace heed::train
