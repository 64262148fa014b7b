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
int program() {
  using ctile::firmware::board;
  return ctile::firmware::run_layers<CTILE_FW_NET, board::plat, board>(CTILE_FW_STR(CTILE_FW_NAME),
                                                                       ctile_fw_reference);
}
}  // namespace

int main() {
  return ctile::firmware::board::start<&program>();
}
