// DORY's text format for tensors: a header line (`name (shape [..]),\`, sometimes with a leading
// `# `), then one value per line followed by `,` and possibly `\`. Values may be printed as
// integers or as `%.3f`; every value must be an integer.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace ctile::onnx {

struct dory_file {
  std::string header;  ///< the first line, as written (may be stale: do not trust it)
  std::vector<std::int64_t> values;
};

/// Reads a DORY text tensor. Throws std::runtime_error naming the file and line on bad input.
dory_file read_dory_file(const std::string& path);

/// Writes values in DORY's format: `header,\` then one `value,\` per line.
void write_dory_file(const std::string& path, const std::string& header,
                     std::span<const std::int32_t> values);

}  // namespace ctile::onnx
