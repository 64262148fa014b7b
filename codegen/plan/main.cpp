// ctile-plan: the tiling plan of a network, as a table or JSON.
//
//   ctile-plan --list
//   ctile-plan NAME [--platform gap8|gap8_dory|pulp128k|pulp_open|host] [--l1 BYTES] [--l2 BYTES]
//                   [--objective model|dory] [--json]
//   ctile-plan NAME --solver z3|constexpr [--platform ...] [--l1 BYTES] [--l2 BYTES] [--json]
//
//   ctile-plan MODEL.onnx [same options]      (an imported network, when built with ctile_onnx)
//
// Budgets given here re-plan at run time with the same constexpr code the compiler runs for
// plan_of, so they can be swept without recompiling. --l1 is the L1 size before the core
// stacks are taken, --l1-tiles the L1 left for tiles once they are (the L1 size becomes that
// plus the stacks), --stacks the stack sizes of core 0 and of each other core, --l2 the L2
// size before the code reserve, --stream-weights streams every layer's weights from L3 (by
// default those that fit L2 beside the activations stay resident).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctile/platform/pulp_open.hpp>
#include <span>
#include <string>
#include <vector>

#include "networks/cifar10_cnn.hpp"
#include "networks/kws.hpp"
#include "networks/mobilenet_v1.hpp"
#include "networks/mobilenet_v2.hpp"
#include "networks/residual.hpp"
#include "report.hpp"
#include "solver.hpp"
#ifdef CTILE_PLAN_ONNX
#include <exception>
#include <filesystem>

#include "ctile/onnx/import.hpp"
#endif

namespace {

using namespace ctile;

struct entry {
  const char* name;
  const char* what;
  std::span<const layer> layers;
};

template <class Net>
constexpr std::span<const layer> layers_of() {
  return {Net::layers.data(), Net::layers.size()};
}

// Every network declared in examples/networks.
const entry networks[] = {
    {"cifar10_cnn", "CIFAR-10 CNN: conv 3x3 x32/32/64/64, 2x2 max pools, FC 10",
     layers_of<examples::cifar10_cnn>()},
    {"mobilenet_v1_1.0_128", "MobileNet-v1, width 1.0, 128x128",
     layers_of<examples::mobilenet_v1_100_128>()},
    {"mobilenet_v1_0.5_192", "MobileNet-v1, width 0.5, 192x192",
     layers_of<examples::mobilenet_v1_050_192>()},
    {"mobilenet_v1_0.25_128", "MobileNet-v1, width 0.25, 128x128",
     layers_of<examples::mobilenet_v1_025_128>()},
    {"mobilenet_v2_0.35_128", "MobileNet-v2, width 0.35, 128x128",
     layers_of<examples::mobilenet_v2_035_128>()},
    {"mobilenet_v2_1.0_128", "MobileNet-v2, width 1.0, 128x128",
     layers_of<examples::mobilenet_v2_100_128>()},
    {"resnet_small", "small ResNet: 3 basic blocks, 32x32x3 input, FC 10",
     layers_of<examples::resnet_small>()},
    {"kws", "keyword spotting: 49x10x1, conv 3x3/2 x64, 4 depthwise-separable blocks, FC 12",
     layers_of<examples::kws>()},
};

struct platform_entry {
  const char* name;
  platform value;
};
const platform_entry platforms[] = {{"gap8", gap8},
                                    {"gap8_dory", gap8_dory},
                                    {"pulp128k", pulp_128k},
                                    {"pulp_open", pulp_open},
                                    {"host", host}};

int usage(const char* why) {
  if (why != nullptr) std::fprintf(stderr, "ctile-plan: %s\n", why);
  std::fprintf(stderr,
               "usage: ctile-plan --list\n"
               "       ctile-plan NAME [--platform gap8|gap8_dory|pulp128k|pulp_open|host] [--l1 "
               "BYTES] [--l2 BYTES]\n"
               "                       [--objective model|dory] [--json]\n"
               "       ctile-plan NAME --solver z3|constexpr [--platform ...] [--l1 BYTES]\n"
               "                       [--l2 BYTES] [--json]\n"
               "       ctile-plan MODEL.onnx [the same options]\n"
               "  --l1 BYTES          L1 size, core stacks included\n"
               "  --l1-tiles BYTES    L1 left for tiles (the L1 size becomes BYTES + the stacks)\n"
               "  --stacks M[,W]      stack bytes of core 0 and of each other core (W = M if one)\n"
               "  --stream-weights    every layer's weights stream from L3 each frame (by default\n"
               "                      those that fit L2 beside the activations stay resident)\n");
  return 2;
}

/// "M" or "M,W": non-negative stack sizes.
bool parse_stacks(const char* s, int& master, int& worker) {
  char* end = nullptr;
  const long m = std::strtol(s, &end, 10);
  if (end == s || m < 0 || m > 1L << 24) return false;
  long w = m;
  if (*end == ',') {
    const char* r = end + 1;
    w = std::strtol(r, &end, 10);
    if (end == r || w < 0 || w > 1L << 24) return false;
  }
  if (*end != '\0') return false;
  master = static_cast<int>(m);
  worker = static_cast<int>(w);
  return true;
}

bool parse_bytes(const char* s, int& out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v <= 0 || v > 1L << 30) return false;
  out = static_cast<int>(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage("no network given");
  if (std::strcmp(argv[1], "--list") == 0) {
    for (const entry& e : networks) std::printf("%-24s %s\n", e.name, e.what);
    return 0;
  }
  if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    usage(nullptr);
    return 0;
  }
  const entry* net = nullptr;
  for (const entry& e : networks)
    if (std::strcmp(argv[1], e.name) == 0) net = &e;
  entry imported{};
  std::vector<layer> imported_layers;
  if (net == nullptr) {
    const std::string n = argv[1];
    if (n.size() <= 5 || n.compare(n.size() - 5, 5, ".onnx") != 0)
      return usage(("unknown network '" + n + "' (see ctile-plan --list)").c_str());
#ifdef CTILE_PLAN_ONNX
    try {
      // The layers as ctile-import would declare them (shape-inferred by the importer).
      // A signed or sub-byte input declared by the export's config*.json beside the model.
      ctile::onnx::import_options io;
      const std::string dir = std::filesystem::path(n).parent_path().string();
      if (const std::string cfg = ctile::onnx::find_export_config(dir.empty() ? "." : dir);
          !cfg.empty())
        io.input_range = ctile::onnx::read_export_config(cfg);
      imported_layers = ctile::onnx::import_onnx(n, io).layers;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ctile-plan: %s: %s\n", n.c_str(), e.what());
      return 1;
    }
    imported = {argv[1], "imported", {imported_layers.data(), imported_layers.size()}};
    net = &imported;
#else
    return usage("reading ONNX models is not built into this ctile-plan (no ctile_onnx)");
#endif
  }
  platform p = gap8;
  objective o = objective::model;
  bool json = false, stream_weights = false;
  const char* solver = nullptr;
  int l1 = 0, l2 = 0, l1_tiles = 0, stack_master = -1, stack_worker = -1;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--json") {
      json = true;
    } else if (a == "--stream-weights") {
      stream_weights = true;
    } else if (a == "--platform") {
      const char* v = value();
      if (v == nullptr) return usage("--platform needs a value");
      bool found = false;
      for (const auto& pe : platforms)
        if (std::strcmp(v, pe.name) == 0) p = pe.value, found = true;
      if (!found) return usage("unknown platform (gap8, pulp128k, pulp_open, host)");
    } else if (a == "--l1") {
      const char* v = value();
      if (v == nullptr || !parse_bytes(v, l1)) return usage("--l1 needs a positive byte count");
    } else if (a == "--l1-tiles") {
      const char* v = value();
      if (v == nullptr || !parse_bytes(v, l1_tiles))
        return usage("--l1-tiles needs a positive byte count");
    } else if (a == "--stacks") {
      const char* v = value();
      if (v == nullptr || !parse_stacks(v, stack_master, stack_worker))
        return usage("--stacks needs MASTER[,WORKER] byte counts");
    } else if (a == "--l2") {
      const char* v = value();
      if (v == nullptr || !parse_bytes(v, l2)) return usage("--l2 needs a positive byte count");
    } else if (a == "--solver") {
      solver = value();
      if (solver == nullptr ||
          (std::strcmp(solver, "z3") != 0 && std::strcmp(solver, "constexpr") != 0))
        return usage("--solver is z3 or constexpr");
    } else if (a == "--objective") {
      const char* v = value();
      if (v != nullptr && std::strcmp(v, "model") == 0)
        o = objective::model;
      else if (v != nullptr && std::strcmp(v, "dory") == 0)
        o = objective::dory;
      else
        return usage("--objective is model or dory");
    } else {
      return usage(("unknown option '" + a + "'").c_str());
    }
  }
  if (l1 > 0 && l1_tiles > 0) return usage("--l1 and --l1-tiles exclude each other");
  if (stack_master >= 0) p = p.with_stacks(stack_master, stack_worker);
  const int stacks = p.l1_stack_master + (p.cores - 1) * p.l1_stack_worker;
  if (l1 > 0) p = p.with_l1(l1);
  if (l1_tiles > 0) p = p.with_l1(l1_tiles + stacks);
  if (l2 > 0) p = p.with_l2(l2);
  if (stream_weights) p = p.with_streamed_weights();
  if (p.l1_budget() <= 0) {
    char why[256];
    std::snprintf(why, sizeof why,
                  "the L1 size (%d B) does not even hold the core stacks (%d + %d x %d = %d B); "
                  "give the L1 left for tiles with --l1-tiles, or smaller stacks with --stacks",
                  p.l1_bytes, p.l1_stack_master, p.cores - 1, p.l1_stack_worker, stacks);
    return usage(why);
  }
  if (p.l2_budget() <= 0) return usage("the L2 size does not even hold the code reserve");
  if (solver != nullptr) {
    if (o != objective::model) return usage("--solver plans with the model objective only");
    return solver_report(net->name, net->layers, p, std::strcmp(solver, "z3") == 0, json);
  }
  const plan_report::dynamic_plan d = plan_report::plan(net->layers, p, o);
  if (json)
    plan_report::print_json(stdout, net->name, d);
  else
    plan_report::print_table(stdout, net->name, d);
  return d.summary.ok() ? 0 : 1;
}
