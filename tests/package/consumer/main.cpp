// Uses heed::core from an installation: tokenizes a line and back (ICU underneath) and multiplies
// two matrices (oneDNN underneath), printing what tests/cli/package.sh expects.
#include <iostream>
#include <string>

#include "heed/common/version.h"
#include "heed/onednn/matmul.h"
#include "heed/tensor/tensor.h"
#include "heed/text/tokenizer.h"

int main() {
  using heed::onednn::MatrixRef;
  using heed::tensor::Tensor;
  const heed::text::Tokenizer tokenizer;
  const std::string line = "Hello, world!";
  const std::string tokens = tokenizer.tokenize_line(line);
  std::cout << "heed " << HEED_VERSION << "\n"
            << "tokens: " << tokens << "\n"
            << "round trip: " << (tokenizer.detokenize_line(tokens) == line ? "yes" : "no") << "\n";

  const Tensor a = Tensor::from_values({2, 2}, {1, 2, 3, 4});
  const Tensor b = Tensor::from_values({2, 2}, {5, 6, 7, 8});
  Tensor c({2, 2});
  heed::onednn::MatMul().run(MatrixRef::of(a), MatrixRef::of(b), MatrixRef::of(c));
  std::cout << "product:";
  for (const float v : c.to_vector()) std::cout << " " << v;
  std::cout << "\n";
  return 0;
}
