// expect: layer_data_has_the_wrong_size<1, ctile::fixed_string<3>\{"fc"\}, ctile::params_problem::field::weights, 6, 5>
#include <ctile/ctile.hpp>
using namespace ctile;
using net = network<input(1, 1, 3), linear(2).named("fc")>;
constexpr std::int8_t w[5] = {};
constexpr net::params data{{{}, {w}}};
static_assert(verify_params<net, data>());
