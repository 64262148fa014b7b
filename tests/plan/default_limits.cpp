// Compiled with -fsyntax-only and no limit flags by clang-19 (CTest plan.default_limits.clang):
// the example networks (the largest of each family), a layer whose search runs to
// search_work_limit and networks whose activations stream through L3 plan within clang's default
// constant-evaluation limit, 1,048,576 steps a constant (GCC's default, 33,554,432 operations, is
// met wherever the project builds them). The constants that came nearest the limit are the slices
// of a layer's search (sliced_plan), the network's lower bounds (lower_bounds) and its L3 and L2
// decisions (finish_network).
#include <ctile/ctile.hpp>
#include <ctile/plan/plan.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/platform/pulp_open.hpp>

#include "networks/cifar10_cnn.hpp"
#include "networks/kws.hpp"
#include "networks/mobilenet_v1.hpp"
#include "networks/mobilenet_v2.hpp"
#include "networks/residual.hpp"

namespace {

using namespace ctile;

// A classifier whose search is cut at search_work_limit (8,192 candidates: eight slices; the
// whole search takes 10,032), on a platform with the L2 for its weight stripes.
using wide_classifier = network<input(1, 1, 2048), linear(2048).named("fc")>;
inline constexpr platform big_l2 = gap8.with_l2(2 << 20);
// Activations too large for L2, streamed through L3 by row stripes: the network's constant
// re-plans two layers with thinner row tiles (conv "c1" and pool "p" in DORY's L1 budget).
using striped =
    network<input(160, 160, 3), conv2d(32, 3).same().bn().named("c1"),
            conv2d(32, 3).same().bn().named("c2"), depthwise(3).padded(1).bn().named("dw"),
            conv2d(64, 1).bn().named("pw"), maxpool(2).named("p"),
            conv2d(64, 3).same().bn().named("c3"), add("p").named("a")>;

template <class Net, platform P>
constexpr bool planned = plan_of<Net, P>.summary.ok();

static_assert(planned<examples::cifar10_cnn, gap8>);
static_assert(planned<examples::kws, gap8>);
static_assert(planned<examples::resnet_small, gap8>);
static_assert(planned<examples::mobilenet_v1_100_128, gap8>);
static_assert(planned<examples::mobilenet_v2_100_128, gap8>);
static_assert(planned<wide_classifier, big_l2>);
static_assert(planned<striped, gap8_dory>);
static_assert(plan_of<striped, gap8_dory>.layers[1].max_tile_h > 0 &&
              plan_of<striped, gap8_dory>.layers[5].max_tile_h > 0);
// MobileNet-v1 1.0-128 on pulp-open beside its cluster image's code: the cascade re-plans 18
// of its layers with thinner row tiles, 18 searches, each a constant of its own
// (plan_detail::finish_stage).
inline constexpr platform pulp_image = pulp_open.with_code_reserve(425984);
static_assert(planned<examples::mobilenet_v1_100_128, pulp_image>);
static_assert(plan_of<examples::mobilenet_v1_100_128, pulp_image>.layers[24].max_tile_h > 0);

}  // namespace
