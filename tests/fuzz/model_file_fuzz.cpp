// The model loader on raw bytes: SafeTensors::parse (8-byte length, JSON header, offsets,
// tensor data) and load_model (format, version, checksum, config, vocabularies). Malformed files
// must be refused with a heed::Error; accepted ones must keep the promises of model_checks.h.
// The checksum makes most mutations of tensor bytes fail early: model_header_fuzz.cpp
// recomputes it to reach the config and vocabulary parsers.
#include <string>

#include "model_checks.h"

using namespace heed;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(fuzz::as_text(data, size));
  io::SafeTensors parsed;
  if (fuzz::refuses_cleanly([&] { parsed = io::SafeTensors::parse(bytes, "input"); })) {
    fuzz::check_container(parsed);
  }
  static const fuzz::ScratchFile scratch("model_file");
  model::ModelFile file;
  if (fuzz::refuses_cleanly([&] { file = model::load_model(scratch.write(bytes)); })) {
    fuzz::check_model(file, scratch.path());
  }
  return 0;
}
