#include "heed/onednn/context.h"

#include <catch2/catch.hpp>

#include "heed/common/error.h"
#include "heed/onednn/matmul.h"

namespace onednn = heed::onednn;

TEST_CASE("context: backend report names version, ISA, CPU and threads", "[onednn][fast]") {
  const onednn::BackendInfo info = onednn::backend_info();
  CHECK(info.onednn_version.rfind("2.", 0) == 0);
  CHECK(info.cpu_runtime == "OpenMP");
  CHECK_FALSE(info.isa.empty());
  CHECK(info.isa.find("unknown") == std::string::npos);
  CHECK_FALSE(info.cpu_model.empty());
  CHECK(info.threads >= 1);
  CHECK(info.bf16 == onednn::bf16_supported());
  const std::string line = info.summary();
  CHECK(line.find("isa=" + info.isa) != std::string::npos);
  CHECK(line.find("threads=") != std::string::npos);
}

TEST_CASE("context: set_threads sets the OpenMP team size", "[onednn][fast]") {
  const int before = onednn::threads();
  onednn::set_threads(2);
  CHECK(onednn::threads() == 2);
  onednn::set_threads(1);
  CHECK(onednn::threads() == 1);
  CHECK_THROWS_AS(onednn::set_threads(0), heed::ConfigError);
  onednn::set_threads(before);
}

TEST_CASE("context: bf16 is decided by oneDNN and refused cleanly when absent", "[onednn][fast]") {
  if (onednn::bf16_supported()) {
    CHECK_NOTHROW(onednn::require_precision(onednn::Precision::kBF16, "test"));
    CHECK_NOTHROW(onednn::MatMul(onednn::Precision::kBF16));
  } else {
    WARN("bf16 not supported by oneDNN on this CPU");
    CHECK_THROWS_AS(onednn::MatMul(onednn::Precision::kBF16), heed::ConfigError);
  }
  CHECK_NOTHROW(onednn::require_precision(onednn::Precision::kF32, "test"));
  CHECK(onednn::parse_precision("bf16") == onednn::Precision::kBF16);
  CHECK(std::string(onednn::precision_name(onednn::Precision::kF32)) == "f32");
  CHECK_THROWS_AS(onednn::parse_precision("fp16"), heed::ConfigError);
}
