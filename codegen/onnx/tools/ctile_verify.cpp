// ctile-verify DIR: imports DIR/model_int.onnx, runs it on DIR/input.txt and compares every
// layer with DIR/out_layerK.txt, value by value.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "ctile/onnx/verify.hpp"

namespace {

int usage(const char* argv0) {
  std::fprintf(
      stderr,
      "usage: %s DIR [--dump OUTDIR] [--platform gap8|gap8_dory|host] [--l1 BYTES] [--l2 BYTES]\n"
      "                 [--l1-tiles BYTES] [--stacks MASTER[,WORKER]]\n"
      "                 [--engine tiled|reference] [--drop-epilogue] [--saturate] [--json]\n"
      "DIR holds model_int.onnx, input.txt and out_layerK.txt (DORY's format), or\n"
      "test vectors input_K.txt with out_K_layerJ.txt and output_K.txt.\n",
      argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ctile::onnx;
  verify_options o;
  std::string dir;
  std::string engine_name = "tiled";
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--stacks") {
      const char* v = next();
      if (v == nullptr) return usage(argv[0]);
      char* end = nullptr;
      const long m = std::strtol(v, &end, 10);
      long w = m;
      if (end != v && *end == ',') {
        const char* r = end + 1;
        w = std::strtol(r, &end, 10);
        if (end == r) end = nullptr;
      }
      if (end == nullptr || end == v || *end != '\0' || m < 0 || w < 0 || m > (1L << 24) ||
          w > (1L << 24)) {
        std::fprintf(stderr, "ctile-verify: --stacks expects MASTER[,WORKER] bytes, got '%s'\n", v);
        return 2;
      }
      o.platform.stack_master = static_cast<int>(m);
      o.platform.stack_worker = static_cast<int>(w);
    } else if (a == "--dump" || a == "--platform" || a == "--l1" || a == "--l2" ||
               a == "--l1-tiles") {
      const char* v = next();
      if (v == nullptr) return usage(argv[0]);
      if (a == "--dump") o.dump_dir = v;
      if (a == "--platform") o.platform.platform = v;
      if (a == "--l1" || a == "--l2" || a == "--l1-tiles") {
        const auto b = parse_bytes(v);
        if (!b || *b <= 0) {
          std::fprintf(stderr, "ctile-verify: %s expects a positive byte count, got '%s'\n",
                       a.c_str(), v);
          return 2;
        }
        (a == "--l1" ? o.platform.l1 : a == "--l2" ? o.platform.l2 : o.platform.l1_tiles) = *b;
      }
    } else if (a == "--engine") {
      const char* v = next();
      if (v == nullptr) return usage(argv[0]);
      engine_name = v;
      if (engine_name != "tiled" && engine_name != "reference") {
        std::fprintf(stderr, "ctile-verify: --engine expects tiled or reference, got '%s'\n", v);
        return 2;
      }
    } else if (a == "--json") {
      json = true;
    } else if (a == "--saturate") {
      o.import.saturate = true;
    } else if (a == "--drop-epilogue") {
      o.import.keep_epilogue = false;
    } else if (a == "-h" || a == "--help") {
      usage(argv[0]);
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "ctile-verify: unknown option '%s'\n", a.c_str());
      return usage(argv[0]);
    } else if (dir.empty()) {
      dir = a;
    } else {
      return usage(argv[0]);
    }
  }
  if (dir.empty()) return usage(argv[0]);
  if (const std::string err = validate(o.platform); !err.empty()) {
    std::fprintf(stderr, "ctile-verify: %s\n", err.c_str());
    return 2;
  }
  try {
    verify_report r;
    if (engine_name == "tiled") {
      try {
        r = verify_folder(dir, o, tiled_engine(o.platform));
      } catch (const import_error&) {
        throw;
      } catch (const std::runtime_error& e) {
        // A network the planner cannot fit still verifies, on the reference, and says so.
        const std::string what = e.what();
        if (what.rfind("the tiled runtime cannot", 0) != 0) throw;
        r = verify_folder(dir, o, reference_engine());
        r.notes.insert(r.notes.begin(), what + "; verified on the reference instead");
      }
    } else {
      r = verify_folder(dir, o, reference_engine());
    }
    if (json)
      print_json(std::cout, r);
    else
      print_report(std::cout, r);
    return r.ok() ? 0 : 1;
  } catch (const import_error& e) {
    std::fprintf(stderr, "ctile-verify: import failed: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ctile-verify: %s\n", e.what());
  }
  return 1;
}
