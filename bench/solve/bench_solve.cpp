// The Z3 generator step's speed: MobileNet-v1 1.0-128 on GAP-8, every layer's problem solved
// by ctile-solve's library (candidates from the shared model + z3::optimize per layer), the
// joint L2/L3 problem of the whole network, and the constexpr search on the same problems run
// on the host for comparison. Wall-clock seconds (the joint problem also in process CPU
// seconds, which another build on the machine does not inflate), median of --repeat runs
// (default 5). The joint problem is also solved at an L2 budget where the greedy L3 cascade
// fails (CIFAR-10 at 40 KiB), with the modeled cycles of both.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctile/plan/plan.hpp>
#include <ctile/solve/export.hpp>
#include <ctile/solve/solve.hpp>
#include <ctime>
#include <string>
#include <vector>

#include "networks/cifar10_cnn.hpp"
#include "networks/mobilenet_v1.hpp"
#include "networks/mobilenet_v2.hpp"

namespace {

using namespace ctile;
using namespace ctile::solve;

template <class Net>
problem_set problems_of(const char* name, const platform& p) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  export_network<Net>(f, p, {name, "", "", ""});
  std::fclose(f);
  const std::string text(buf, len);
  std::free(buf);
  return read_problems(text);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class Net>
void bench(const char* name, int repeat, const platform& p = gap8) {
  const problem_set s = problems_of<Net>(name, p);
  std::vector<double> per_layer, model, z3, joint, joint_cpu, search;
  network_solution last;
  joint_solution last_joint;
  for (int r = 0; r < repeat; ++r) {
    last = solve_network(s, {});
    per_layer.push_back(last.seconds);
    double m = 0, z = 0;
    for (const auto& l : last.layers) m += l.model_seconds, z += l.z3_seconds;
    model.push_back(m);
    z3.push_back(z);
    const std::clock_t c0 = std::clock();
    last_joint = solve_joint(s, {});
    joint.push_back(last_joint.seconds);
    joint_cpu.push_back(static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    search.push_back(solve_network_by_search(s).seconds);
  }
  std::int64_t objective = 0;
  int solved = 0;
  for (const auto& l : last.layers) objective += l.chosen.cycles, solved += l.index > 0;
  const network_summary greedy = plan_network(Net::layers, p).summary;
  std::printf("%s (L2 budget %d B)\n", name, p.l2_budget());
  std::printf(
      "  per-layer Z3 step %.3f s (model %.3f s, z3 %.3f s), %d problems, objective %lld "
      "cycles%s\n",
      median(per_layer), median(model), median(z3), solved, static_cast<long long>(objective),
      last.ok ? "" : " NOT SOLVED");
  std::printf(
      "  joint problem %.3f s (%.3f s CPU; candidates %.3f s, %d z3::optimize), %s %lld "
      "cycles, L2 peak %lld B%s\n",
      median(joint), median(joint_cpu), last_joint.model_seconds, last_joint.rounds,
      last_joint.ok ? "objective" : "NOT SOLVED:", static_cast<long long>(last_joint.cycles),
      static_cast<long long>(last_joint.l2_peak),
      last_joint.from_greedy ? " (the cascade's decisions kept)" : "");
  if (!last_joint.ok) std::printf("    %s\n", last_joint.error.c_str());
  if (greedy.ok())
    std::printf("  greedy L3 cascade: %lld cycles, L2 peak %d B\n",
                static_cast<long long>(greedy.cycles), greedy.l2_peak);
  else
    std::printf("  greedy L3 cascade: does not fit (layer %d needs %lld B)\n", greedy.layer,
                static_cast<long long>(greedy.needs));
  std::printf("  constexpr search run on the host %.4f s\n", median(search));
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 5;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--repeat") == 0) repeat = std::max(1, std::atoi(argv[i + 1]));
  bench<examples::mobilenet_v1_100_128>("mobilenet_v1_1.0_128", repeat);
  bench<examples::mobilenet_v2_100_128>("mobilenet_v2_1.0_128", repeat);
  bench<examples::cifar10_cnn>("cifar10_cnn", repeat);
  bench<examples::cifar10_cnn>("cifar10_cnn", repeat, gap8.with_l2(98304 + 40 * 1024));
  return 0;
}
