// Every example network, by name, as spans of inferred layers (shared by the planner tests).
#pragma once

#include <span>
#include <vector>

#include <ctile/ctile.hpp>
#include <ctile/plan/plan.hpp>

#include "networks/cifar10_cnn.hpp"
#include "networks/mobilenet_v1.hpp"
#include "networks/mobilenet_v2.hpp"
#include "networks/residual.hpp"

namespace ctile::test {

struct named_network {
  const char* name;
  std::span<const layer> layers;
};

template <class Net>
inline std::span<const layer> layers_of() {
  return {Net::layers.data(), Net::layers.size()};
}

inline std::vector<named_network> example_networks() {
  return {{"cifar10_cnn", layers_of<examples::cifar10_cnn>()},
          {"mobilenet_v1_1.0_128", layers_of<examples::mobilenet_v1_100_128>()},
          {"mobilenet_v1_0.5_192", layers_of<examples::mobilenet_v1_050_192>()},
          {"mobilenet_v1_0.25_128", layers_of<examples::mobilenet_v1_025_128>()},
          {"mobilenet_v2_0.35_128", layers_of<examples::mobilenet_v2_035_128>()},
          {"mobilenet_v2_1.0_128", layers_of<examples::mobilenet_v2_100_128>()},
          {"resnet_small", layers_of<examples::resnet_small>()}};
}

/// A network planned at run time (the same constexpr code plan_of runs).
struct planned {
  std::vector<layer> layers;
  std::vector<layer_plan> plans;
  std::vector<layer_l2> l2;
  network_summary summary;
};

inline planned plan_at_run_time(std::span<const layer> ls, const platform& p, objective o) {
  planned r;
  r.layers.assign(ls.begin(), ls.end());
  r.plans.resize(ls.size());
  plan_layers(r.layers, p, o, r.plans);
  r.l2.resize(ls.size());
  r.summary = finish_network(r.layers, p, r.plans, r.l2);
  return r;
}

}  // namespace ctile::test
