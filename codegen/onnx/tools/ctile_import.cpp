// ctile-import MODEL.onnx -o OUT.hpp: writes a C++ header declaring the network type and its
// constant data; with --test-data DIR --test-data-out DATA.hpp also a second header holding
// DORY's input and golden outputs of DIR as arrays (for targets without a file system). On any
// error nothing is written and the exit status is non-zero.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "ctile/onnx/header.hpp"
#include "ctile/onnx/import.hpp"

namespace {

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s MODEL.onnx [-o OUT.hpp] [--name NAME] [--namespace NS]\n"
               "          [--l3[=SECTION]] [--drop-epilogue] [--summary] [--saturate]\n"
               "          [--config CONFIG.json]\n"
               "          [--test-data DIR --test-data-out DATA.hpp]\n"
               "  -o OUT.hpp       write the header there (default: standard output)\n"
               "  --name NAME      the network type's name (default: from the file name)\n"
               "  --namespace NS   wrap the declarations in namespace NS\n"
               "  --l3[=SECTION]   place weights for L3 (default section .l3.weights)\n"
               "  --drop-epilogue  drop terminal Sigmoid/Softmax/LogSoftmax (reported)\n"
               "  --saturate       clip unclipped sums to their 8-bit container (DORY's way)\n"
               "  --config FILE    the export's config JSON (input_bits, input_signed); default:\n"
               "                   the one config*.json beside the model\n"
               "  --summary        print the layers to standard error\n"
               "  --test-data DIR  also write DIR's input.txt and out_layerK.txt as arrays\n"
               "  --test-data-out DATA.hpp\n"
               "                   where that header goes (required with --test-data)\n",
               argv0);
  return 2;
}

std::string identifier_from(const std::string& path) {
  std::string s = std::filesystem::path(path).stem().string();
  for (auto& c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) c = '_';
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) s = "net_" + s;
  return s;
}

/// Writes `text` to a temporary file and renames it: never a partial file.
bool write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    f.close();
    if (!f) {
      std::filesystem::remove(tmp);
      std::fprintf(stderr, "ctile-import: cannot write '%s'\n", path.c_str());
      return false;
    }
  }
  std::filesystem::rename(tmp, path);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ctile::onnx;
  std::string model, out, data_dir, data_out;
  header_options h;
  import_options io;
  bool summary = false, named = false;
  std::string config;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--config") {
      const char* v = next();
      if (v == nullptr) return usage(argv[0]);
      config = v;
    } else if (a == "--saturate") {
      io.saturate = true;
    } else if (a == "-o" || a == "--name" || a == "--namespace" || a == "--test-data" ||
               a == "--test-data-out") {
      const char* v = next();
      if (v == nullptr) return usage(argv[0]);
      if (a == "-o") out = v;
      if (a == "--test-data") data_dir = v;
      if (a == "--test-data-out") data_out = v;
      if (a == "--name") h.name = v, named = true;
      if (a == "--namespace") h.ns = v;
    } else if (a == "--l3") {
      h.l3 = true;
    } else if (a.rfind("--l3=", 0) == 0) {
      h.l3 = true;
      h.l3_section = a.substr(5);
      if (h.l3_section.empty()) return usage(argv[0]);
    } else if (a == "--drop-epilogue") {
      io.keep_epilogue = false;
    } else if (a == "--summary") {
      summary = true;
    } else if (a == "-h" || a == "--help") {
      usage(argv[0]);
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "ctile-import: unknown option '%s'\n", a.c_str());
      return usage(argv[0]);
    } else if (model.empty()) {
      model = a;
    } else {
      return usage(argv[0]);
    }
  }
  if (model.empty()) return usage(argv[0]);
  if (data_dir.empty() != data_out.empty()) {
    std::fprintf(stderr, "ctile-import: --test-data and --test-data-out go together\n");
    return usage(argv[0]);
  }
  if (!named) h.name = identifier_from(model);
  h.source = std::filesystem::path(model).filename().string();
  try {
    // The input's range: --config FILE, or the one config*.json beside the model.
    if (config.empty()) {
      const std::string dir = std::filesystem::path(model).parent_path().string();
      config = find_export_config(dir.empty() ? "." : dir);
    }
    if (!config.empty()) io.input_range = read_export_config(config);
    const imported_network net = import_onnx(model, io);
    const std::string text = generate_header(net, h);
    // Both texts are complete before either file is written.
    const std::string data =
        data_dir.empty() ? std::string{} : generate_test_data(net, h, data_dir);
    if (summary) {
      for (std::size_t i = 0; i < net.layers.size(); ++i) {
        const auto& l = net.layers[i];
        std::fprintf(stderr, "%3zu %-10s %4dx%-4dx%4d  %s\n", i, ctile::op_name(l.kind), l.out.h,
                     l.out.w, l.out.c, net.nodes[i].c_str());
      }
      for (const auto& n : net.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    }
    if (!data.empty() && !write_file(data_out, data)) return 1;
    if (out.empty()) {
      std::cout << text;
      return std::cout ? 0 : 1;
    }
    return write_file(out, text) ? 0 : 1;
  } catch (const import_error& e) {
    std::fprintf(stderr, "ctile-import: %s: %s\n", model.c_str(), e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ctile-import: %s\n", e.what());
  }
  return 1;
}
