// A network whose plan streams through L3 (an L2 of 24 KiB) cannot run with the HAL's
// pulp_runtime_no_l3: the check refuses the plan at compile time, naming its L3 bytes and the
// HyperRAM driver to use instead.
#include <ctile/ctile.hpp>
#include <ctile/hal/pulp_runtime.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/schedule/executor.hpp>

using namespace ctile;
using net = network<input(32, 32, 8), conv2d(16, 3).same().bn().requantized(1, 256).named("c1"),
                    conv2d(16, 3).same().bn().requantized(1, 256).named("c2")>;
constexpr platform small_l2 = gap8.with_l2(24 * 1024).with_code_reserve(0).named("small-l2");
static_assert(hal::require_l2_only<executor<net, small_l2>>());
