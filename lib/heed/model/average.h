// Checkpoint averaging (OpenNMT's average_models, Marian's --average of the last checkpoints;
// Vaswani et al. 2017 average the last 5 or 20): the element-wise mean of the parameters of
// models of one architecture and vocabularies.
#pragma once

#include <string>
#include <vector>

#include "heed/model/model_file.h"

namespace heed::model {

// Loads each file (load_model's checks) and returns a plain model file whose parameters are the
// means, whose config, vocabularies and metadata are the first file's (a checkpoint's trainer
// state and optimizer moments are left out). Like is averaged with like: a checkpoint that keeps
// a moving average of the weights (--exponential-smoothing) gives that average, which is what
// its run's models hold; files of live weights and of moving averages together are a
// FormatError naming one of each. A file whose config or vocabularies differ from the first's,
// or that lacks or adds a parameter, is a FormatError naming both files. Holds one model and a
// sum in memory, whatever the number of files.
ModelFile average_models(const std::vector<std::string>& paths);

}  // namespace heed::model
