// Run-time planning speed (what ctile-plan does for each budget of a sweep): every example
// network planned on GAP-8 with the cost model and with DORY's objective.
#include <benchmark/benchmark.h>

#include <span>
#include <vector>

#include <ctile/plan/plan.hpp>

#include "networks/cifar10_cnn.hpp"
#include "networks/mobilenet_v1.hpp"
#include "networks/mobilenet_v2.hpp"
#include "networks/residual.hpp"

namespace {

using namespace ctile;

template <class Net>
void plan_net(benchmark::State& state) {
  const objective o = state.range(0) == 0 ? objective::model : objective::dory;
  for (auto _ : state) {
    std::vector<layer_plan> plans;
    plans.reserve(Net::size);
    for (const layer& l : Net::layers) plans.push_back(plan_layer(l, gap8, o));
    std::vector<layer_l2> l2(Net::size);
    const network_summary s = finish_network(Net::layers, gap8, plans, l2);
    benchmark::DoNotOptimize(s.cycles);
  }
}

BENCHMARK(plan_net<examples::cifar10_cnn>)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(plan_net<examples::mobilenet_v1_100_128>)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(plan_net<examples::mobilenet_v2_100_128>)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(plan_net<examples::resnet_small>)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
