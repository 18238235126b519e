#include "heed/common/memory.h"

#include <unistd.h>

#include <cstdio>

#include "heed/common/error.h"

namespace heed {

double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0.0;
  return double(pages) * double(page_size);
}

void check_fits_in_memory(double bytes, const std::string& what, const std::string& advice) {
  const double available = physical_memory_bytes();
  if (available <= 0.0 || bytes <= available) return;
  const double gib = double(1 << 30);
  char text[96];
  std::snprintf(text, sizeof text, " could need %.3g GiB, more than the %.1f GiB of memory here",
                bytes / gib, available / gib);
  throw ConfigError(what + text + (advice.empty() ? "" : "; " + advice));
}

}  // namespace heed
