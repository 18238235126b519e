#include "heed/io/safetensors.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "heed/common/error.h"
#include "heed/common/fnv1a.h"
#include "heed/common/json_number.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"

namespace heed::io {
namespace {

using json = nlohmann::json;

// Bound on the JSON header: far above any heed model, far below memory trouble.
constexpr uint64_t kMaxHeaderBytes = 256ull << 20;

struct TypeInfo {
  StoredType type;
  const char* name;
  size_t size;
};
constexpr TypeInfo kTypes[] = {{StoredType::kF32, "F32", 4},
                               {StoredType::kBF16, "BF16", 2},
                               {StoredType::kI32, "I32", 4},
                               {StoredType::kI64, "I64", 8},
                               {StoredType::kF64, "F64", 8}};

[[noreturn]] void bad(const std::string& source, const std::string& what) {
  throw FormatError("'" + source + "' is not a valid safetensors file: " + what);
}

}  // namespace

const char* stored_type_name(StoredType type) {
  return kTypes[static_cast<int>(type)].name;
}
size_t stored_type_size(StoredType type) {
  return kTypes[static_cast<int>(type)].size;
}

int64_t StoredTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

namespace {
// The values of a tensor stored as `expected`; throws FormatError naming it otherwise.
template <typename T>
std::vector<T> values_of(const StoredTensor& tensor, StoredType expected) {
  if (tensor.type != expected) {
    throw FormatError("tensor '" + tensor.name + "' is " + stored_type_name(tensor.type) +
                      ", expected " + stored_type_name(expected));
  }
  std::vector<T> out(static_cast<size_t>(tensor.numel()));
  std::memcpy(out.data(), tensor.bytes.data(), tensor.bytes.size());
  return out;
}
}  // namespace

std::vector<float> StoredTensor::as_f32() const {
  return values_of<float>(*this, StoredType::kF32);
}
std::vector<int32_t> StoredTensor::as_i32() const {
  return values_of<int32_t>(*this, StoredType::kI32);
}
std::vector<double> StoredTensor::as_f64() const {
  return values_of<double>(*this, StoredType::kF64);
}

void SafeTensors::add(StoredTensor tensor) {
  if (has(tensor.name)) throw InternalError("duplicate tensor name '" + tensor.name + "'");
  if (static_cast<size_t>(tensor.numel()) * stored_type_size(tensor.type) != tensor.bytes.size()) {
    throw InternalError("tensor '" + tensor.name + "': byte size does not match its shape");
  }
  tensors_.push_back(std::move(tensor));
}

namespace {
StoredTensor tensor_of(const std::string& name, StoredType type, const std::vector<int64_t>& shape,
                       const void* data) {
  StoredTensor t{name, type, shape, {}};
  t.bytes.resize(static_cast<size_t>(t.numel()) * stored_type_size(type));
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), data, t.bytes.size());
  return t;
}
}  // namespace

void SafeTensors::add_f32(const std::string& name, const std::vector<int64_t>& shape,
                          const float* data) {
  add(tensor_of(name, StoredType::kF32, shape, data));
}
void SafeTensors::add_i32(const std::string& name, const std::vector<int64_t>& shape,
                          const int32_t* data) {
  add(tensor_of(name, StoredType::kI32, shape, data));
}
void SafeTensors::add_f64(const std::string& name, const std::vector<int64_t>& shape,
                          const double* data) {
  add(tensor_of(name, StoredType::kF64, shape, data));
}

bool SafeTensors::has(const std::string& name) const {
  for (const auto& t : tensors_) {
    if (t.name == name) return true;
  }
  return false;
}

const StoredTensor& SafeTensors::get(const std::string& name) const {
  for (const auto& t : tensors_) {
    if (t.name == name) return t;
  }
  throw FormatError("'" + source_ + "' has no tensor '" + name + "'");
}

const std::string& SafeTensors::metadata(const std::string& key) const {
  auto it = metadata_.find(key);
  if (it == metadata_.end()) {
    throw FormatError("'" + source_ + "' has no metadata entry '" + key + "'");
  }
  return it->second;
}

double SafeTensors::metadata_number(const std::string& key) const {
  const std::string& text = metadata(key);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') {
    throw FormatError("'" + source_ + "': metadata '" + key + "' is not a number");
  }
  return value;
}

std::string SafeTensors::header_bytes() const {
  json header = json::object();
  uint64_t offset = 0;
  for (const auto& t : tensors_) {
    header[t.name] = {{"dtype", stored_type_name(t.type)},
                      {"shape", t.shape},
                      {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  if (!metadata_.empty()) header["__metadata__"] = metadata_;
  std::string text = header.dump();
  // Pad with spaces so the data starts 8-byte aligned, as the format recommends.
  while ((8 + text.size()) % 8 != 0) text.push_back(' ');
  std::string out(8, '\0');
  uint64_t n = text.size();
  for (int i = 0; i < 8; ++i)
    out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  out += text;
  return out;
}

std::string SafeTensors::serialize() const {
  std::string out = header_bytes();
  size_t data = 0;
  for (const auto& t : tensors_) data += t.bytes.size();
  out.reserve(out.size() + data);
  for (const auto& t : tensors_)
    out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  return out;
}

void SafeTensors::save(const std::string& path) const {
  // The header, then each tensor's bytes straight from the container: no second copy of the
  // file in memory (a training checkpoint, weights and Adam's moments, is ~3× the model).
  LineWriter writer(path);
  writer.write(header_bytes());
  for (const auto& t : tensors_)
    writer.write(std::string_view(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size()));
  writer.commit();
}

namespace {

// The header length from a file's first 8 bytes (little-endian), checked against its size.
uint64_t header_length(std::string_view first, uint64_t file_size, const std::string& name) {
  if (file_size < 8) bad(name, "only " + std::to_string(file_size) + " bytes (truncated?)");
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i)
    header_len = (header_len << 8) | static_cast<unsigned char>(first[static_cast<size_t>(i)]);
  if (header_len == 0 || header_len > kMaxHeaderBytes || header_len > file_size - 8) {
    bad(name, "header length " + std::to_string(header_len) + " does not fit the file of " +
                  std::to_string(file_size) + " bytes (truncated or not a model file)");
  }
  return header_len;
}

}  // namespace

SafeTensors SafeTensors::load(const std::string& path) {
  if (path == "-") return parse(read_whole_file(path), path);
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) throw FileError("cannot open '" + path + "': " + errno_message(errno));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(file, std::fclose);
  struct stat info {};
  // A pipe cannot seek: it is read whole.
  if (fstat(fileno(file), &info) != 0 || !S_ISREG(info.st_mode))
    return parse(read_whole_file(file, path), path);
  // A regular file: the header, then each tensor's bytes straight into its tensor, so that
  // loading holds the model once, not the file and the model.
  const auto file_size = static_cast<uint64_t>(info.st_size);
  const auto read_at = [&](uint64_t offset, void* out, size_t n) {
    errno = 0;
    if (fseeko(file, static_cast<off_t>(offset), SEEK_SET) != 0 || std::fread(out, 1, n, file) != n)
      throw FileError(
          "cannot read '" + path + "': " +
          (errno != 0 ? errno_message(errno) : "the file ended early (changed while read?)"));
  };
  char first[8] = {};
  if (file_size >= 8) read_at(0, first, 8);
  const uint64_t header_len = header_length(std::string_view(first, 8), file_size, path);
  std::string header(header_len, '\0');
  read_at(8, header.data(), header_len);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  SafeTensors out = parse_header(header, file_size - 8 - header_len, path, ranges);
  for (size_t i = 0; i < ranges.size(); ++i) {
    auto& bytes = out.tensors_[i].bytes;
    bytes.resize(ranges[i].second - ranges[i].first);
    if (!bytes.empty()) read_at(8 + header_len + ranges[i].first, bytes.data(), bytes.size());
  }
  return out;
}

SafeTensors SafeTensors::parse(const std::string& bytes, const std::string& name) {
  const uint64_t header_len = header_length(bytes, bytes.size(), name);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  SafeTensors out = parse_header(std::string_view(bytes).substr(8, header_len),
                                 bytes.size() - 8 - header_len, name, ranges);
  const char* data = bytes.data() + 8 + header_len;
  for (size_t i = 0; i < ranges.size(); ++i)
    out.tensors_[i].bytes.assign(data + ranges[i].first, data + ranges[i].second);
  return out;
}

SafeTensors SafeTensors::parse_header(std::string_view header_text, uint64_t data_size,
                                      const std::string& name,
                                      std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
  json header;
  try {
    header = json::parse(header_text.begin(), header_text.end());
  } catch (const json::exception&) {
    bad(name, "the header is not JSON");
  }
  if (!header.is_object()) bad(name, "the header is not a JSON object");

  SafeTensors out;
  out.source_ = name;
  uint64_t used = 0;
  try {
    for (auto it = header.begin(); it != header.end(); ++it) {
      if (it.key() == "__metadata__") {
        for (auto m = it.value().begin(); m != it.value().end(); ++m) {
          out.metadata_[m.key()] = m.value().get<std::string>();
        }
        continue;
      }
      const json& entry = it.value();
      StoredTensor t;
      t.name = it.key();
      const std::string dtype = entry.at("dtype").get<std::string>();
      bool known = false;
      for (const auto& info : kTypes) {
        if (dtype == info.name) {
          t.type = info.type;
          known = true;
        }
      }
      if (!known) bad(name, "tensor '" + t.name + "' has unsupported dtype " + dtype);
      const auto shape = json_numbers<int64_t>(entry.at("shape"));
      if (!shape) bad(name, "tensor '" + t.name + "' has a shape that is not a list of integers");
      t.shape = *shape;
      // The element count, checked for overflow: it must match the byte range below anyway.
      uint64_t byte_count = stored_type_size(t.type);
      for (int64_t d : t.shape) {
        if (d < 0) bad(name, "tensor '" + t.name + "' has a negative dimension");
        if (__builtin_mul_overflow(byte_count, static_cast<uint64_t>(d), &byte_count)) {
          byte_count = std::numeric_limits<uint64_t>::max();
        }
      }
      const auto offsets = json_numbers<uint64_t>(entry.at("data_offsets"));
      if (!offsets || offsets->size() != 2 || (*offsets)[0] > (*offsets)[1] ||
          (*offsets)[1] > data_size) {
        bad(name, "tensor '" + t.name + "' lies outside the data (truncated file?)");
      }
      const uint64_t begin = (*offsets)[0], end = (*offsets)[1];
      if (byte_count != end - begin) {
        bad(name, "tensor '" + t.name + "': shape and byte range disagree");
      }
      ranges.emplace_back(begin, end);
      used += end - begin;
      out.tensors_.push_back(std::move(t));
    }
  } catch (const json::exception& e) {
    bad(name, std::string("malformed header entry (") + e.what() + ")");
  }
  if (used != data_size) {
    bad(name, "the tensors cover " + std::to_string(used) + " of " + std::to_string(data_size) +
                  " data bytes (overlapping tensors or trailing bytes)");
  }
  return out;
}

namespace {

const char* const kDataChecksumKey = "checksum";
const char* const kMetadataChecksumKey = "metadata_checksum";

}  // namespace

void SafeTensors::set_checksums() {
  set_metadata(kDataChecksumKey, data_checksum());
  set_metadata(kMetadataChecksumKey, metadata_checksum({kDataChecksumKey, kMetadataChecksumKey}));
}

void SafeTensors::check_checksums(bool metadata_optional) const {
  const auto fail = [this](const std::string& what) {
    return FormatError("'" + source_ + "' " + what);
  };
  const auto data = metadata_.find(kDataChecksumKey);
  if (data == metadata_.end()) throw fail("has no checksum");
  if (data->second != data_checksum()) {
    throw fail("is corrupt: the checksum of its tensors does not match (" + data->second +
               " stored, " + data_checksum() + " computed)");
  }
  const auto meta = metadata_.find(kMetadataChecksumKey);
  if (meta == metadata_.end() && metadata_optional) return;
  if (meta == metadata_.end()) throw fail("has no metadata checksum");
  if (meta->second != metadata_checksum({kDataChecksumKey, kMetadataChecksumKey})) {
    throw fail("is corrupt: the checksum of its metadata does not match");
  }
}

std::string SafeTensors::data_checksum() const {
  Fnv1a hash;
  // By name: the JSON header does not keep insertion order, so a loaded file lists its tensors
  // in another order than the container that wrote it.
  std::vector<const StoredTensor*> order;
  for (const auto& t : tensors_) order.push_back(&t);
  std::sort(order.begin(), order.end(),
            [](const StoredTensor* a, const StoredTensor* b) { return a->name < b->name; });
  for (const StoredTensor* tp : order) {
    const StoredTensor& t = *tp;
    hash.mix(t.name.data(), t.name.size());
    for (int64_t d : t.shape) hash.mix(&d, sizeof d);
    hash.mix(t.bytes.data(), t.bytes.size());
  }
  return hash.hex();
}

std::string SafeTensors::metadata_checksum(const std::vector<std::string>& excluded) const {
  Fnv1a hash;
  for (const auto& [key, value] : metadata_) {  // a std::map: in key order
    if (std::find(excluded.begin(), excluded.end(), key) != excluded.end()) continue;
    hash.mix(key);
    hash.mix(value);
  }
  return hash.hex();
}

}  // namespace heed::io
