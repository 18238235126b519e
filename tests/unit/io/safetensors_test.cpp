#include "heed/io/safetensors.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>

#include "heed/common/error.h"
#include "support/temp_dir.h"

using namespace heed;
using io::SafeTensors;

namespace {
SafeTensors sample() {
  SafeTensors st;
  const float w[6] = {1, 2, 3, 4, 5, -6.5f};
  const int32_t ids[3] = {7, 8, 9};
  st.add_f32("encoder/w", {2, 3}, w);
  st.add_i32("ids", {3}, ids);
  st.set_metadata("format", "heed-model");
  return st;
}

std::string parse_error(const std::string& bytes) {
  try {
    SafeTensors::parse(bytes, "m.safetensors");
  } catch (const FormatError& e) {
    return e.what();
  }
  return "";
}

// The FormatError of BYTES ("" if none) as parse() gives it; load() reads a file another way
// (the header, then each tensor at its offset) and must give the same error, path aside.
std::string error_of(const std::string& bytes) {
  test::TempDir dir;
  const std::string path = dir.path("m.safetensors");
  std::ofstream(path, std::ios::binary) << bytes;
  std::string loaded;
  try {
    SafeTensors::load(path);
  } catch (const FormatError& e) {
    loaded = e.what();
    const size_t at = loaded.find(path);
    if (at != std::string::npos) loaded.replace(at, path.size(), "m.safetensors");
  }
  const std::string parsed = parse_error(bytes);
  CHECK(loaded == parsed);
  return parsed;
}
}  // namespace

TEST_CASE("safetensors: serialize and parse round trip", "[io][fast]") {
  SafeTensors st = sample();
  std::string bytes = st.serialize();
  CHECK((bytes.size() - st.tensors()[0].bytes.size() - 12) % 8 == 0);  // data 8-byte aligned
  SafeTensors back = SafeTensors::parse(bytes, "x");
  REQUIRE(back.tensors().size() == 2);
  CHECK(back.get("encoder/w").shape == std::vector<int64_t>{2, 3});
  CHECK(back.get("encoder/w").as_f32()[5] == -6.5f);
  CHECK(back.get("ids").as_i32() == std::vector<int32_t>{7, 8, 9});
  CHECK(back.metadata("format") == "heed-model");
  CHECK(back.data_checksum() == st.data_checksum());
  CHECK_THROWS_AS(back.get("ids").as_f32(), FormatError);
  CHECK_THROWS_AS(back.get("missing"), FormatError);
  CHECK_THROWS_AS(back.metadata("missing"), FormatError);
}

TEST_CASE("safetensors: F64 tensors keep every bit", "[io][fast]") {
  SafeTensors st;
  const double t[3] = {0.1, 1e-300, -2.0 / 3.0};
  st.add_f64("t", {3}, t);
  const SafeTensors back = SafeTensors::parse(st.serialize(), "x");
  CHECK(stored_type_name(back.get("t").type) == std::string("F64"));
  CHECK(back.get("t").as_f64() == std::vector<double>(t, t + 3));
  CHECK_THROWS_AS(back.get("t").as_f32(), FormatError);
  CHECK_THROWS_AS(sample().get("encoder/w").as_f64(), FormatError);
}

TEST_CASE("safetensors: metadata read as numbers", "[io][fast]") {
  SafeTensors st = sample();
  st.set_metadata("steps", "1500");
  st.set_metadata("mse", "0.000125");
  st.set_metadata("empty", "");
  st.set_metadata("text", "12abc");
  CHECK(st.metadata_number("steps") == 1500.0);
  CHECK(st.metadata_number("mse") == 0.000125);
  CHECK_THROWS_AS(st.metadata_number("empty"), FormatError);
  CHECK_THROWS_AS(st.metadata_number("text"), FormatError);
  CHECK_THROWS_AS(st.metadata_number("missing"), FormatError);
}

TEST_CASE("safetensors: save is atomic and load reads it back", "[io][fast]") {
  test::TempDir dir;
  sample().save(dir.path("m.safetensors"));
  CHECK(dir.entries() == 1);
  CHECK(SafeTensors::load(dir.path("m.safetensors")).get("ids").numel() == 3);
  // save() streams the file piece by piece: the same bytes as serialize().
  std::ifstream in(dir.path("m.safetensors"), std::ios::binary);
  const std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(saved == sample().serialize());
  CHECK_THROWS_AS(SafeTensors::load(dir.path("absent")), FileError);
  // Loaded from the file, the container is the one serialized.
  const SafeTensors back = SafeTensors::load(dir.path("m.safetensors"));
  CHECK(back.data_checksum() == sample().data_checksum());
  CHECK(back.get("encoder/w").as_f32()[5] == -6.5f);
}

TEST_CASE("safetensors: load reads a pipe whole", "[io][fast]") {
  test::TempDir dir;
  const std::string fifo = dir.path("m.fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << sample().serialize(); });
  const SafeTensors back = SafeTensors::load(fifo);
  writer.join();
  CHECK(back.data_checksum() == sample().data_checksum());
  CHECK(back.metadata("format") == "heed-model");
}

TEST_CASE("safetensors: truncated, foreign and corrupt files are FormatErrors", "[io][fast]") {
  std::string good = sample().serialize();
  CHECK(error_of("abc").find("truncated") != std::string::npos);
  CHECK(error_of(good.substr(0, good.size() - 3)).find("truncated") != std::string::npos);
  CHECK(error_of(good.substr(0, 20)).find("header length") != std::string::npos);
  CHECK(error_of(good + "xx").find("trailing") != std::string::npos);
  CHECK(error_of("#version: 0.2\na b\nc d\n").find("header length") != std::string::npos);
  std::string not_json = good;
  not_json[8] = '[';
  not_json[9] = '[';
  CHECK(error_of(not_json).find("m.safetensors") != std::string::npos);
  std::string bad_dtype = good;
  size_t pos = bad_dtype.find("\"I32\"");
  REQUIRE(pos != std::string::npos);
  bad_dtype.replace(pos, 5, "\"Q32\"");
  CHECK(error_of(bad_dtype).find("unsupported dtype Q32") != std::string::npos);
}

// The file with its header (the JSON after the 8-byte length) changed by EDIT.
template <typename Edit>
std::string with_header(const std::string& file, Edit edit) {
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = length << 8 | static_cast<unsigned char>(file[i]);
  nlohmann::json header = nlohmann::json::parse(file.substr(8, length));
  edit(header);
  const std::string text = header.dump();
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(text.size() >> (8 * i) & 0xff);
  return out + text + file.substr(8 + length);
}

TEST_CASE("safetensors: shapes that overflow or are not integers are FormatErrors", "[io][fast]") {
  const std::string good = sample().serialize();
  REQUIRE(error_of(with_header(good, [](nlohmann::json&) {})).empty());
  const auto with_shape = [&](const std::string& shape) {
    return with_header(
        good, [&](nlohmann::json& h) { h["ids"]["shape"] = nlohmann::json::parse(shape); });
  };
  CHECK(error_of(with_shape("[1e30]")).find("not a list of integers") != std::string::npos);
  CHECK(error_of(with_shape("[1.5, 2]")).find("not a list of integers") != std::string::npos);
  CHECK(error_of(with_shape("\"3\"")).find("not a list of integers") != std::string::npos);
  // 2^32 · 2^32 · 4 bytes wraps a 64-bit count; it must not pass for the 12 bytes stored.
  CHECK(error_of(with_shape("[4294967296, 4294967296, 1]")).find("disagree") != std::string::npos);
  CHECK(error_of(with_shape("[3]")).empty());
}

TEST_CASE("safetensors: sealed with checksums; a changed tensor or metadata value is refused",
          "[io][fast]") {
  SafeTensors st = sample();
  st.set_metadata("steps", "120");
  CHECK_THROWS_WITH(st.check_checksums(), Catch::Contains("has no checksum"));
  st.set_checksums();
  const std::string bytes = st.serialize();
  CHECK_NOTHROW(SafeTensors::parse(bytes, "ok").check_checksums());
  SafeTensors edited = SafeTensors::parse(bytes, "edited");
  edited.set_metadata("steps", "121");
  CHECK_THROWS_WITH(edited.check_checksums(),
                    Catch::Contains("'edited' is corrupt: the checksum of its metadata"));
  std::string flipped = bytes;
  flipped[flipped.size() - 3] ^= 1;
  CHECK_THROWS_WITH(SafeTensors::parse(flipped, "flipped").check_checksums(),
                    Catch::Contains("'flipped' is corrupt: the checksum of its tensors"));
  // Without the metadata's checksum: refused unless it may be absent (older model files).
  SafeTensors older = sample();
  older.set_metadata("checksum", older.data_checksum());
  CHECK_THROWS_WITH(older.check_checksums(), Catch::Contains("has no metadata checksum"));
  CHECK_NOTHROW(older.check_checksums(/*metadata_optional=*/true));
}
