// One cluster firmware image: network CTILE_FW_NET (declared in CTILE_FW_NETWORK_HEADER),
// planned for the board's platform, checked against the fingerprints that reference_gen.cpp
// wrote at build time (CTILE_FW_REFERENCE_HEADER). See run_layers.hpp for the output.
#include "cluster/boards.hpp"
#include "cluster/run_layers.hpp"
#include CTILE_FW_NETWORK_HEADER
#include CTILE_FW_REFERENCE_HEADER

namespace {
#define CTILE_FW_STR2(x) #x
#define CTILE_FW_STR(x) CTILE_FW_STR2(x)
using ctile::firmware::board;
using net = CTILE_FW_NET;
constexpr ctile::platform plat = ctile::firmware::with_hot_tables<net>(board::plat);

// The layers' requantization constants, in the cluster's L1. A
// variable of namespace scope: GCC ignores section attributes on variables of templates.
CTILE_L1_DATA ctile::firmware::hot_tables<net::size> hot{};

int program() {
  return ctile::firmware::run_layers<net, plat, board>(CTILE_FW_STR(CTILE_FW_NAME),
                                                       ctile_fw_reference, hot);
}
}  // namespace

int main() {
  return board::start<&program>();
}
