// Host checks for the loop nests: kernel reads and writes go through the simulated memory's
// checker (which reports use of a buffer whose transfer was not waited for, or a transfer into
// a buffer a kernel is using), and every kernel call's arguments are validated.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ctile/hal/host_memory.hpp"
#include "ctile/kernels/args.hpp"

namespace ctile::schedule {

struct sim_checks {
  hal::sim_memory* memory = nullptr;
  std::vector<std::string>* problems = nullptr;  ///< where argument problems are recorded

  [[nodiscard]] hal::sim_access reading(const void* p, std::size_t n) const {
    return n == 0 || p == nullptr ? hal::sim_access{} : memory->use_read(p, n, "kernel");
  }
  [[nodiscard]] hal::sim_access writing(void* p, std::size_t n) const {
    return n == 0 || p == nullptr ? hal::sim_access{} : memory->use_write(p, n, "kernel");
  }
  void check_tile(kernels::kernel_kind k, const kernels::tile_args& a, int scratch) const {
    const kernels::args_problem pr = kernels::check(k, a);
    if (pr != kernels::args_problem::none && problems != nullptr)
      problems->push_back(std::string("kernel arguments: ") + kernels::problem_text(pr));
    const int need = kernels::scratch_bytes(k, a);
    if (need > scratch && problems != nullptr)
      problems->push_back("kernel scratch: needs " + std::to_string(need) + " bytes, plan has " +
                          std::to_string(scratch));
  }
};

}  // namespace ctile::schedule
