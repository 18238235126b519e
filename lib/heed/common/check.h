// HEED_CHECK: internal invariants that a user cannot reach. Throws InternalError.
#pragma once

#include <string>

#include "heed/common/error.h"

#define HEED_CHECK(cond, msg)                                                                      \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      throw ::heed::InternalError(std::string("internal check failed: ") + (msg) +                 \
                                  " (" #cond ") at " + __FILE__ + ":" + std::to_string(__LINE__)); \
    }                                                                                              \
  } while (false)
