// Compiled with -fsyntax-only and no limit flags by clang-19 (CTest plan.default_limits.clang):
// the example networks (the largest of each family) and a layer whose search runs to
// search_work_limit plan within clang's default constant-evaluation limit, 1,048,576 steps a
// constant (GCC's default, 33,554,432 operations, is met wherever the project builds them).
// The constants that came nearest the limit are the slices of a layer's search (sliced_plan)
// and the network's lower bounds (lower_bounds).
#include <ctile/ctile.hpp>
#include <ctile/plan/plan.hpp>
#include <ctile/platform/gap8.hpp>

#include "networks/cifar10_cnn.hpp"
#include "networks/kws.hpp"
#include "networks/mobilenet_v1.hpp"
#include "networks/mobilenet_v2.hpp"
#include "networks/residual.hpp"

namespace {

using namespace ctile;

// A classifier whose search is cut at search_work_limit (5,600 candidates: six slices), on a
// platform with the L2 for its weight stripes.
using wide_classifier = network<input(1, 1, 2048), linear(1024).named("fc")>;
inline constexpr platform big_l2 = gap8.with_l2(1 << 20);

template <class Net, platform P>
constexpr bool planned = plan_of<Net, P>.summary.ok();

static_assert(planned<examples::cifar10_cnn, gap8>);
static_assert(planned<examples::kws, gap8>);
static_assert(planned<examples::resnet_small, gap8>);
static_assert(planned<examples::mobilenet_v1_100_128, gap8>);
static_assert(planned<examples::mobilenet_v2_100_128, gap8>);
static_assert(planned<wide_classifier, big_l2>);

}  // namespace
