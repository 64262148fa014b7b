#include "ctile/onnx/verify.hpp"

#include <cstdio>
#include <filesystem>
#include <ostream>

#include "ctile/onnx/dory_text.hpp"

namespace ctile::onnx {

std::optional<std::int64_t> parse_bytes(const std::string& s) {
  if (s.empty()) return std::nullopt;
  std::size_t i = 0;
  std::int64_t v = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    if (v > (std::int64_t{1} << 40)) return std::nullopt;
    v = v * 10 + (s[i] - '0');
    ++i;
  }
  if (i == 0) return std::nullopt;
  const std::string suf = s.substr(i);
  if (suf.empty()) return v;
  if (suf == "k" || suf == "K" || suf == "kB" || suf == "KB" || suf == "KiB") return v * 1024;
  if (suf == "M" || suf == "MB" || suf == "MiB") return v * 1024 * 1024;
  return std::nullopt;
}

std::string validate(const platform_options& p) {
  if (p.platform != "gap8" && p.platform != "host")
    return "unknown platform '" + p.platform + "' (known: gap8, host)";
  if (p.l1 < 0 || p.l1 > (std::int64_t{1} << 24)) return "--l1 must be between 1 B and 16 MiB";
  if (p.l2 < 0 || p.l2 > (std::int64_t{1} << 32)) return "--l2 must be between 1 B and 4 GiB";
  if (p.l1 != 0 && p.l2 != 0 && p.l1 > p.l2) return "--l1 larger than --l2";
  if (p.platform == "gap8" && p.l1 > 64 * 1024) return "--l1 exceeds GAP-8's 64 KiB of L1";
  if (p.platform == "gap8" && p.l2 > 512 * 1024) return "--l2 exceeds GAP-8's 512 KiB of L2";
  return {};
}

layer_check compare(const shape& s, const std::vector<std::int32_t>& got,
                    const std::vector<std::int64_t>& golden) {
  layer_check r;
  r.dims = s;
  r.elements = static_cast<std::int64_t>(got.size());
  r.golden_elements = static_cast<std::int64_t>(golden.size());
  if (got.size() != golden.size()) {
    r.mismatches = std::max(r.elements, r.golden_elements);
    r.note = "element count differs (" + std::to_string(r.golden_elements) + " in the file)";
    return r;
  }
  auto count = [&](bool chw, std::int64_t& mism, std::int64_t& maxd) {
    mism = 0;
    maxd = 0;
    for (int y = 0; y < s.h; ++y)
      for (int x = 0; x < s.w; ++x)
        for (int c = 0; c < s.c; ++c) {
          const std::size_t hwc = (static_cast<std::size_t>(y) * static_cast<std::size_t>(s.w) +
                                   static_cast<std::size_t>(x)) *
                                      static_cast<std::size_t>(s.c) +
                                  static_cast<std::size_t>(c);
          const std::size_t g = chw ? (static_cast<std::size_t>(c) * static_cast<std::size_t>(s.h) +
                                       static_cast<std::size_t>(y)) *
                                              static_cast<std::size_t>(s.w) +
                                          static_cast<std::size_t>(x)
                                    : hwc;
          const std::int64_t d = std::int64_t{got[hwc]} - golden[g];
          if (d != 0) {
            ++mism;
            maxd = std::max(maxd, d < 0 ? -d : d);
          }
        }
  };
  std::int64_t m1 = 0, d1 = 0;
  count(false, m1, d1);
  r.layout = "HWC";
  r.mismatches = m1;
  r.max_diff = d1;
  const bool ambiguous = (s.c == 1) || (s.h * s.w == 1);
  if (m1 != 0 && !ambiguous) {
    std::int64_t m2 = 0, d2 = 0;
    count(true, m2, d2);
    if (m2 < m1) {
      r.layout = "CHW";
      r.mismatches = m2;
      r.max_diff = d2;
    }
  }
  return r;
}

verify_report verify_folder(const std::string& dir, const verify_options& o, const engine& e) {
  namespace fs = std::filesystem;
  if (const std::string err = validate(o.platform); !err.empty()) throw std::runtime_error(err);
  const fs::path d(dir);
  const imported_network net = import_onnx((d / "model_int.onnx").string(), o.import);
  const dory_file in = read_dory_file((d / "input.txt").string());
  const shape is = net.layers[0].out;
  if (static_cast<std::int64_t>(in.values.size()) != is.elements())
    throw std::runtime_error("input.txt holds " + std::to_string(in.values.size()) +
                             " values, the network input has " + std::to_string(is.elements()));
  std::vector<std::int32_t> x;
  for (auto v : in.values) {
    if (v < 0 || v > 255) throw std::runtime_error("input.txt holds a value outside 0..255");
    x.push_back(static_cast<std::int32_t>(v));
  }
  const auto ps = net.params();
  verify_report rep;
  rep.engine = e.name;
  rep.notes = net.notes;
  // Compares every golden layer of one run.
  const auto check = [&](const layer_outputs& outs, int& exact, int& total) {
    std::vector<layer_check> rows;
    exact = total = 0;
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
      const int k = net.golden[i];
      if (k < 0) continue;
      const layer& l = net.layers[i];
      const fs::path gp = d / ("out_layer" + std::to_string(k) + ".txt");
      layer_check c;
      if (!fs::exists(gp)) {
        c.dims = l.out;
        c.elements = l.out.elements();
        c.note = "no golden file";
      } else {
        c = compare(l.out, outs[i], read_dory_file(gp.string()).values);
        ++total;
        if (c.exact()) ++exact;
      }
      c.golden = k;
      c.layer = static_cast<int>(i);
      c.kind = op_name(l.kind);
      if (l.kind == op::linear && !l.requantize) c.kind += " (int32)";
      rows.push_back(c);
    }
    return rows;
  };
  layer_outputs outs = e.run(net.layers, ps, x);
  rep.rows = check(outs, rep.exact, rep.total);
  // The input file is documented as HWC; if it does not match, try it as CHW.
  if (rep.exact < rep.total && is.c > 1 && is.h * is.w > 1) {
    std::vector<std::int32_t> x2(x.size());
    for (int c = 0; c < is.c; ++c)
      for (int y = 0; y < is.h; ++y)
        for (int xx = 0; xx < is.w; ++xx)
          x2[static_cast<std::size_t>((y * is.w + xx) * is.c + c)] =
              x[static_cast<std::size_t>((c * is.h + y) * is.w + xx)];
    layer_outputs outs2 = e.run(net.layers, ps, x2);
    int exact2 = 0, total2 = 0;
    auto rows2 = check(outs2, exact2, total2);
    if (exact2 > rep.exact) {
      rep.rows = std::move(rows2);
      rep.exact = exact2;
      outs = std::move(outs2);
      rep.notes.push_back("input.txt matched in CHW order");
    }
  }
  if (!o.dump_dir.empty()) {
    fs::create_directories(o.dump_dir);
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
      const int k = net.golden[i];
      if (k < 0) continue;
      const shape& s = net.layers[i].out;
      const std::string hdr = "# " + std::string(net.layers[i].name.c_str()) + " (shape [" +
                              std::to_string(s.h) + ", " + std::to_string(s.w) + ", " +
                              std::to_string(s.c) + "])";
      write_dory_file((fs::path(o.dump_dir) / ("out_layer" + std::to_string(k) + ".txt")).string(),
                      hdr, outs[i]);
    }
  }
  // Golden files that no layer maps to mean the import and DORY disagree on the layers.
  for (const auto& entry : fs::directory_iterator(d)) {
    const std::string f = entry.path().filename().string();
    if (f.rfind("out_layer", 0) != 0 || f.size() < 14 || f.substr(f.size() - 4) != ".txt") continue;
    const std::string num = f.substr(9, f.size() - 13);
    if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos || num.size() > 6)
      continue;
    const int k = std::stoi(num);
    if (net.layer_of_golden(k) >= 0) continue;
    layer_check c;
    c.golden = k;
    c.kind = "?";
    c.mismatches = 1;
    c.note = "golden file without a matching layer in the imported network";
    ++rep.total;
    rep.rows.push_back(c);
  }
  for (const auto& out : net.outputs) {
    std::string s = "output '" + out.tensor + "' = layer " + std::to_string(out.layer);
    for (const auto& st : out.steps) {
      s += std::string(" -> ") + epilogue_name(st.kind);
      if (st.kind == epilogue_kind::gather) s += "[" + std::to_string(st.index) + "]";
    }
    if (!out.steps.empty()) s += " (host-side epilogue, not compared)";
    rep.notes.push_back(s);
  }
  return rep;
}

void print_report(std::ostream& os, const verify_report& r) {
  os << "engine: " << r.engine << "\n";
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-6s %-16s %-16s %10s %10s %10s  %s\n", "layer", "kind",
                "shape (HxWxC)", "elements", "mismatch", "max|diff|", "golden layout");
  os << buf;
  for (const auto& c : r.rows) {
    const std::string sh =
        std::to_string(c.dims.h) + "x" + std::to_string(c.dims.w) + "x" + std::to_string(c.dims.c);
    std::snprintf(buf, sizeof buf, "%-6d %-16s %-16s %10lld %10lld %10lld  %s%s%s\n", c.golden,
                  c.kind.c_str(), sh.c_str(), static_cast<long long>(c.elements),
                  static_cast<long long>(c.mismatches), static_cast<long long>(c.max_diff),
                  c.layout.c_str(), c.note.empty() ? "" : "  ", c.note.c_str());
    os << buf;
  }
  for (const auto& n : r.notes) os << "note: " << n << "\n";
  os << r.exact << "/" << r.total << " layers bit-exact\n";
}

}  // namespace ctile::onnx
