// What every fuzz target shares: the verdict on exceptions and a scratch file for APIs that
// read paths. A target returns normally when the library accepted the input or refused it with
// the heed::Error its API promises; everything else ends in fuzz_fail(), which aborts so that
// libFuzzer (and the replay driver) report the input.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "heed/common/error.h"

namespace heed::fuzz {

[[noreturn]] inline void fuzz_fail(const std::string& what) {
  std::fprintf(stderr, "heed fuzz: property violated: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// Runs body; a heed::Error other than InternalError (which reports a bug) is an accepted
// refusal of the input. Returns true when body completed.
template <typename Body>
bool refuses_cleanly(Body&& body) {
  try {
    body();
    return true;
  } catch (const InternalError& e) {
    fuzz_fail(std::string("InternalError: ") + e.what());
  } catch (const Error&) {
    return false;
  } catch (const std::exception& e) {
    fuzz_fail(std::string("exception that is not a heed::Error: ") + e.what());
  }
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A path private to this process, for APIs that only read files; rewritten on every call.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& stem)
      : path_((std::filesystem::temp_directory_path() /
               ("heed-fuzz-" + stem + "-" + std::to_string(getpid())))
                  .string()) {}
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string& write(std::string_view bytes) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) fuzz_fail("cannot write the scratch file " + path_);
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace heed::fuzz
