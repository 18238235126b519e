// The safetensors container (https://huggingface.co/docs/safetensors): an 8-byte little-endian
// header length, a JSON header {name: {dtype, shape, data_offsets}, "__metadata__": {str: str}},
// then the raw little-endian tensor bytes. Chosen so that a heed model opens in Python with
// nothing but json and numpy.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace heed::io {

enum class StoredType { kF32, kBF16, kI32, kI64, kF64 };

// "F32", "BF16", "I32", "I64", "F64".
const char* stored_type_name(StoredType type);
size_t stored_type_size(StoredType type);

struct StoredTensor {
  std::string name;
  StoredType type = StoredType::kF32;
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;

  int64_t numel() const;
  // The data as floats / ints; throws FormatError naming the tensor if the type differs.
  std::vector<float> as_f32() const;
  std::vector<int32_t> as_i32() const;
  std::vector<double> as_f64() const;
};

class SafeTensors {
 public:
  // Adds a tensor; names must be unique.
  void add(StoredTensor tensor);
  void add_f32(const std::string& name, const std::vector<int64_t>& shape, const float* data);
  void add_i32(const std::string& name, const std::vector<int64_t>& shape, const int32_t* data);
  void add_f64(const std::string& name, const std::vector<int64_t>& shape, const double* data);
  void set_metadata(const std::string& key, const std::string& value) { metadata_[key] = value; }

  bool has(const std::string& name) const;
  // Throws FormatError naming the file and tensor if absent.
  const StoredTensor& get(const std::string& name) const;
  const std::vector<StoredTensor>& tensors() const { return tensors_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // Throws FormatError if the key is absent.
  const std::string& metadata(const std::string& key) const;
  // The entry read as a number; throws FormatError naming the file if absent or not one.
  double metadata_number(const std::string& key) const;

  // The file bytes; serialize() then parse() gives the same container.
  std::string serialize() const;
  // Written atomically (temp, fsync, rename). Throws WriteError.
  void save(const std::string& path) const;

  // Throws FileError if path cannot be opened, FormatError (naming path) if the bytes are not a
  // well-formed safetensors file: too short, header length out of range, header not JSON,
  // unknown dtype, offsets out of range or overlapping, data truncated or with trailing bytes.
  static SafeTensors load(const std::string& path);
  static SafeTensors parse(const std::string& bytes, const std::string& name);

  // Seals the container: stores the checksum of its tensor data under "checksum" and that of
  // the rest of its metadata under "metadata_checksum" (call after the last change, before
  // save()). Every file heed writes to read back later is sealed: models, checkpoints.
  void set_checksums();
  // FormatError "'NAME' has no checksum" or "'NAME' is corrupt: …" unless the stored checksums
  // match what is there; a file without "metadata_checksum" passes on its data's alone when
  // metadata_optional (model files from before it was introduced).
  void check_checksums(bool metadata_optional = false) const;

  // Checksum of the tensor data (FNV-1a 64 over names, shapes and bytes), as 16 hex digits.
  std::string data_checksum() const;
  // Checksum of the metadata (FNV-1a 64 over keys and values in key order), leaving out the
  // keys in excluded (the checksums themselves), as 16 hex digits.
  std::string metadata_checksum(const std::vector<std::string>& excluded) const;

 private:
  // The container a JSON header describes, its tensors' bytes left empty; ranges gets each
  // tensor's [begin, end) in the data part, which has data_size bytes. Throws FormatError.
  static SafeTensors parse_header(std::string_view header, uint64_t data_size,
                                  const std::string& name,
                                  std::vector<std::pair<uint64_t, uint64_t>>& ranges);
  // The 8-byte header length, the JSON header and its padding: the file up to the data.
  std::string header_bytes() const;

  std::vector<StoredTensor> tensors_;
  std::map<std::string, std::string> metadata_;
  std::string source_ = "<memory>";
};

}  // namespace heed::io
