// The model loader past the checksum: the input is a safetensors file whose checksum is
// recomputed before load_model reads it, so mutations of the header (format_version, config
// JSON, vocabularies, tensor shapes and names) reach the parsers behind the checksum and
// load_seq2seq. Same verdicts as model_file_fuzz.cpp.
#include <string>

#include "model_checks.h"

using namespace heed;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  io::SafeTensors parsed;
  if (!fuzz::refuses_cleanly([&] {
        parsed = io::SafeTensors::parse(std::string(fuzz::as_text(data, size)), "input");
      })) {
    return 0;
  }
  parsed.set_metadata("checksum", parsed.data_checksum());
  static const fuzz::ScratchFile scratch("model_header");
  model::ModelFile file;
  if (fuzz::refuses_cleanly([&] { file = model::load_model(scratch.write(parsed.serialize())); })) {
    fuzz::check_model(file, scratch.path());
  }
  return 0;
}
