#include "solver.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctile/solve/export.hpp>
#include <ctile/solve/solve.hpp>
#include <string>

int solver_report(const char* name, std::span<const ctile::layer> layers, const ctile::platform& p,
                  bool z3, bool json) {
  using namespace ctile::solve;
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  if (f == nullptr) return 2;
  export_problems(f, layers, p, {name, "", "", ""});
  std::fclose(f);
  const std::string text(buf, len);
  std::free(buf);
  const problem_set s = read_problems(text);
  const network_solution sol = z3 ? solve_network(s, {}) : solve_network_by_search(s);
  if (json) {
    std::fputs(solution_json(s, sol).c_str(), stdout);
  } else {
    std::printf("%s, solved by %s in %.3f s\n", name, sol.solver, sol.seconds);
    std::printf("%3s %-12s %-10s %-13s %-9s %12s %10s\n", "#", "name", "kind", "tile hxwxc",
                "split", "objective", "seconds");
    std::int64_t total = 0;
    for (std::size_t i = 0; i < sol.layers.size(); ++i) {
      const layer_solution& x = sol.layers[i];
      char tile[48];
      if (x.chosen.tk > 0)  // a linear layer's reduction cut in K tiles
        std::snprintf(tile, sizeof tile, "%dx%dx%d k%d", x.chosen.th, x.chosen.tw, x.chosen.tc,
                      x.chosen.tk);
      else
        std::snprintf(tile, sizeof tile, "%dx%dx%d", x.chosen.th, x.chosen.tw, x.chosen.tc);
      std::printf("%3zu %-12s %-10s %-13s %-9s %12" PRId64 " %10.6f %s\n", i,
                  s.layers[i].name.c_str(), ctile::op_name(s.layers[i].kind), tile,
                  ctile::split_name(x.chosen.split.kind), x.chosen.cycles,
                  x.model_seconds + x.z3_seconds, status_name(x.status));
      total += x.chosen.cycles;
    }
    std::printf("objective (modeled L1 cycles, all layers): %" PRId64 "\n", total);
  }
  for (const auto& e : sol.errors) std::fprintf(stderr, "ctile-plan: %s\n", e.c_str());
  return sol.ok ? 0 : 1;
}
