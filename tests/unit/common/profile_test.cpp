#include "heed/common/profile.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "heed/common/timer.h"

using namespace heed;
using profile::Phase;

TEST_CASE("profile: scopes count nothing while profiling is off", "[common][fast]") {
  profile::set_enabled(false);
  profile::reset();
  {
    profile::Scope outer(Phase::kOutput);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (double s : profile::seconds()) CHECK(s == 0.0);
}

TEST_CASE("profile: a nested scope's time is its own, not its parent's", "[common][fast]") {
  profile::set_enabled(true);
  profile::reset();
  Timer timer;
  {
    profile::Scope decoder(Phase::kDecoderRnn);
    {
      profile::Scope attention(Phase::kAttention);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const double elapsed = timer.seconds();
  profile::set_enabled(false);
  const auto s = profile::seconds();
  const double attention = s[size_t(Phase::kAttention)], decoder = s[size_t(Phase::kDecoderRnn)];
  // A sleep lasts at least what it asks for; the two phases split the time between them.
  CHECK(attention >= 0.005);
  CHECK(decoder >= 0.002);
  CHECK(attention + decoder <= elapsed);
  CHECK(s[size_t(Phase::kOutput)] == 0.0);
  CHECK(std::string(profile::phase_name(Phase::kDecoderRnn)) == "decoder_rnn");
}
