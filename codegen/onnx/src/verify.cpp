#include "ctile/onnx/verify.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <ostream>

#include "ctile/onnx/dory_text.hpp"
#include "ctile/plan/network_plan.hpp"
#include "ctile/reference/reference.hpp"

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
  const bool on_gap8 = p.platform == "gap8" || p.platform == "gap8_dory";
  if (!on_gap8 && p.platform != "host")
    return "unknown platform '" + p.platform + "' (known: gap8, gap8_dory, host)";
  if (p.l1 < 0 || p.l1 > (std::int64_t{1} << 24)) return "--l1 must be between 1 B and 16 MiB";
  if (p.l2 < 0 || p.l2 > (std::int64_t{1} << 32)) return "--l2 must be between 1 B and 4 GiB";
  if (p.l1_tiles < 0 || p.l1_tiles > (std::int64_t{1} << 24))
    return "--l1-tiles must be between 1 B and 16 MiB";
  if (p.l1 != 0 && p.l1_tiles != 0) return "--l1 and --l1-tiles exclude each other";
  if (p.stack_master > (1 << 24) || p.stack_worker > (1 << 24)) return "--stacks too large";
  const platform t = platform_of(p);
  if (t.l1_budget() <= 0)
    return "the L1 size (" + std::to_string(t.l1_bytes) +
           " B) does not even hold the core stacks (" + std::to_string(t.l1_stack_master) + " + " +
           std::to_string(t.cores - 1) + " x " + std::to_string(t.l1_stack_worker) +
           " B); give the L1 left for tiles with --l1-tiles, or smaller stacks with --stacks";
  if (p.l1 != 0 && p.l2 != 0 && p.l1 > p.l2) return "--l1 larger than --l2";
  if (on_gap8 && t.l1_bytes > 64 * 1024)
    return "L1 of " + std::to_string(t.l1_bytes) + " B (stacks included) exceeds GAP-8's 64 KiB";
  if (on_gap8 && p.l2 > 512 * 1024) return "--l2 exceeds GAP-8's 512 KiB of L2";
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

std::vector<int> align_golden(const std::vector<std::int64_t>& elements,
                              const std::vector<int>& numbers,
                              const std::vector<std::int64_t>& counts,
                              const std::vector<int>& file_numbers,
                              const std::function<bool(std::size_t, std::size_t)>& exact) {
  const std::size_t L = elements.size(), F = counts.size();
  // best[i][j]: the best score matching layers i.. with files j... A pair of equal counts
  // scores 4, plus 4 * L when the values agree (exact pairs first), plus 1 when the file's number
  // is the layer's (a direct numbering wins ties).
  std::vector<std::vector<std::int64_t>> best(L + 1, std::vector<std::int64_t>(F + 1, 0));
  std::vector<std::vector<std::int64_t>> memo(L, std::vector<std::int64_t>(F, -2));
  const auto pair = [&](std::size_t i, std::size_t j) -> std::int64_t {
    if (memo[i][j] != -2) return memo[i][j];
    std::int64_t v = -1;
    if (elements[i] == counts[j])
      v = 4 + (exact(i, j) ? 4 * static_cast<std::int64_t>(L + 1) : 0) +
          (numbers[i] == file_numbers[j] ? 1 : 0);
    return memo[i][j] = v;
  };
  for (std::size_t i = L; i-- > 0;)
    for (std::size_t j = F; j-- > 0;) {
      std::int64_t b = std::max(best[i + 1][j], best[i][j + 1]);
      if (const std::int64_t p = pair(i, j); p >= 0) b = std::max(b, p + best[i + 1][j + 1]);
      best[i][j] = b;
    }
  std::vector<int> m(L, -1);
  std::size_t i = 0, j = 0;
  while (i < L && j < F) {
    if (const std::int64_t p = pair(i, j); p >= 0 && best[i][j] == p + best[i + 1][j + 1]) {
      m[i++] = static_cast<int>(j++);
    } else if (best[i][j] == best[i + 1][j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return m;
}

namespace {

/// `prefix<digits>.txt` in `dir`: the numbers found, sorted.
std::vector<int> numbered_files(const std::filesystem::path& dir, const std::string& prefix) {
  std::vector<int> ks;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string f = entry.path().filename().string();
    if (f.size() <= prefix.size() + 4 || f.rfind(prefix, 0) != 0 ||
        f.substr(f.size() - 4) != ".txt")
      continue;
    const std::string num = f.substr(prefix.size(), f.size() - prefix.size() - 4);
    if (num.empty() || num.size() > 6 || num.find_first_not_of("0123456789") != std::string::npos)
      continue;
    ks.push_back(std::stoi(num));
  }
  std::sort(ks.begin(), ks.end());
  return ks;
}

std::vector<std::int32_t> hwc_from_chw(const std::vector<std::int32_t>& x, const shape& s) {
  std::vector<std::int32_t> y(x.size());
  for (int c = 0; c < s.c; ++c)
    for (int h = 0; h < s.h; ++h)
      for (int w = 0; w < s.w; ++w)
        y[static_cast<std::size_t>((h * s.w + w) * s.c + c)] =
            x[static_cast<std::size_t>((c * s.h + h) * s.w + w)];
  return y;
}

/// The modeled cycles of each layer in the plan the tiled runtime uses (all 0 if it does not
/// fit).
std::vector<std::int64_t> modeled_cycles(const imported_network& net, const platform_options& o,
                                         std::int64_t& total) {
  const platform p = platform_of(o);
  std::vector<layer_plan> plans(net.layers.size());
  plan_layers(net.layers, p, objective::model, plans);
  std::vector<layer_l2> l2s(net.layers.size());
  const network_summary s = finish_network(net.layers, p, plans, l2s);
  std::vector<std::int64_t> c(net.layers.size(), 0);
  total = 0;
  if (!s.ok()) return c;
  for (std::size_t i = 0; i < plans.size(); ++i) c[i] = plans[i].cycles;
  total = s.cycles;
  return c;
}

}  // namespace

verify_report verify_folder(const std::string& dir, const verify_options& o, const engine& e) {
  namespace fs = std::filesystem;
  if (const std::string err = validate(o.platform); !err.empty()) throw std::runtime_error(err);
  const fs::path d(dir);
  import_options io = o.import;
  std::string config_note;
  if (!io.input_range) {
    // The export's configuration declares a signed or sub-byte input (DORY's config*.json).
    if (const std::string cfg = find_export_config(dir); !cfg.empty()) {
      io.input_range = read_export_config(cfg);
      if (io.input_range)
        config_note = "input range " + std::to_string(io.input_range->lo) + ".." +
                      std::to_string(io.input_range->hi) + " from " +
                      fs::path(cfg).filename().string();
    }
  }
  const imported_network net = import_onnx((d / "model_int.onnx").string(), io);
  const value_range in_range{net.layers[0].quant.lo, net.layers[0].quant.hi};
  const shape is = net.layers[0].out;
  const auto ps = net.params();
  verify_report rep;
  rep.engine = e.name;
  rep.notes = net.notes;
  if (!config_note.empty()) rep.notes.push_back(config_note);
  const std::vector<std::int64_t> cycles = modeled_cycles(net, o.platform, rep.cycles);
  if (rep.cycles == 0) rep.notes.push_back("no modeled cycles: the plan does not fit");
  // Test vectors: input_K.txt with out_K_layerJ.txt and output_K.txt, or input.txt alone.
  std::vector<int> vecs = numbered_files(d, "input_");
  rep.multi = !vecs.empty();
  if (!rep.multi) vecs = {-1};
  // The golden layers, in graph order.
  std::vector<std::size_t> glayers;
  for (std::size_t i = 0; i < net.layers.size(); ++i)
    if (net.golden[i] >= 0) glayers.push_back(i);
  for (const int v : vecs) {
    const std::string vs = std::to_string(v);
    const std::string in_name = v < 0 ? "input.txt" : "input_" + vs + ".txt";
    const std::string prefix = v < 0 ? "out_layer" : "out_" + vs + "_layer";
    const dory_file in = read_dory_file((d / in_name).string());
    if (static_cast<std::int64_t>(in.values.size()) != is.elements())
      throw std::runtime_error(in_name + " holds " + std::to_string(in.values.size()) +
                               " values, the network input has " + std::to_string(is.elements()));
    std::vector<std::int32_t> x;
    for (auto val : in.values) {
      if (val < in_range.lo || val > in_range.hi)
        throw std::runtime_error(in_name + " holds the value " + std::to_string(val) +
                                 ", outside the network input's range " +
                                 std::to_string(in_range.lo) + ".." + std::to_string(in_range.hi) +
                                 (in_range.lo == 0 && in_range.hi == 255
                                      ? " (a signed input is declared by the export's config*.json)"
                                      : ""));
      x.push_back(static_cast<std::int32_t>(val));
    }
    // Golden files of this vector, aligned with the golden layers.
    const std::vector<int> fnums = numbered_files(d, prefix);
    std::vector<std::vector<std::int64_t>> files;
    std::vector<std::int64_t> counts;
    for (int k : fnums) {
      files.push_back(read_dory_file((d / (prefix + std::to_string(k) + ".txt")).string()).values);
      counts.push_back(static_cast<std::int64_t>(files.back().size()));
    }
    std::vector<std::int64_t> elements;
    std::vector<int> numbers;
    for (std::size_t i : glayers) {
      elements.push_back(net.layers[i].out.elements());
      numbers.push_back(net.golden[i]);
    }
    std::vector<bool> used;
    // Compares every golden layer of one run, with the files aligned to this run's outputs.
    const auto check = [&](const layer_outputs& outs, int& exact, int& total) {
      const std::vector<int> match =
          align_golden(elements, numbers, counts, fnums, [&](std::size_t g, std::size_t j) {
            const std::size_t i = glayers[g];
            return compare(net.layers[i].out, outs[i], files[j]).exact();
          });
      used.assign(files.size(), false);
      for (int m : match)
        if (m >= 0) used[static_cast<std::size_t>(m)] = true;
      std::vector<layer_check> rows;
      exact = total = 0;
      for (std::size_t g = 0; g < glayers.size(); ++g) {
        const std::size_t i = glayers[g];
        const layer& l = net.layers[i];
        const int k = net.golden[i];
        layer_check c;
        const int m = match[g];
        if (m >= 0) {
          c = compare(l.out, outs[i], files[static_cast<std::size_t>(m)]);
          c.file = prefix + std::to_string(fnums[static_cast<std::size_t>(m)]) + ".txt";
        } else {
          c.dims = l.out;
          c.elements = l.out.elements();
          // A file numbered for this layer that no alignment could use: a real mismatch.
          const auto own = std::find(fnums.begin(), fnums.end(), k);
          if (own != fnums.end()) {
            const auto j = static_cast<std::size_t>(own - fnums.begin());
            c.file = prefix + std::to_string(k) + ".txt";
            c.golden_elements = counts[j];
            c.mismatches = std::max(c.elements, c.golden_elements);
            c.note = "element count differs (" + std::to_string(counts[j]) +
                     " in the file), and no other golden file has " + std::to_string(c.elements);
          } else {
            c.note = "no golden file";
            c.counted = false;
          }
        }
        if (c.counted) {
          ++total;
          if (c.exact()) ++exact;
        }
        c.vector = v;
        c.golden = k;
        c.layer = static_cast<int>(i);
        c.cycles = cycles[i];
        c.kind = op_name(l.kind);
        if (l.kind == op::linear && !l.requantize) c.kind += " (int32)";
        rows.push_back(c);
      }
      return rows;
    };
    layer_outputs outs = e.run(net.layers, ps, x);
    int exact = 0, total = 0;
    std::vector<layer_check> rows = check(outs, exact, total);
    // The input file is documented as HWC; if it does not match, try it as CHW.
    if (exact < total && is.c > 1 && is.h * is.w > 1) {
      layer_outputs outs2 = e.run(net.layers, ps, hwc_from_chw(x, is));
      int exact2 = 0, total2 = 0;
      auto rows2 = check(outs2, exact2, total2);
      if (exact2 > exact) {
        rows = std::move(rows2);
        exact = exact2;
        outs = std::move(outs2);
        rep.notes.push_back(in_name + " matched in CHW order");
      } else {
        rows = check(outs, exact, total);  // the files used by the HWC run
      }
    }
    // Files no layer matched: listed, not counted (a numbering that skips or repeats a layer).
    for (std::size_t j = 0; j < files.size(); ++j) {
      if (used[j]) continue;
      layer_check c;
      c.vector = v;
      c.golden = fnums[j];
      c.file = prefix + std::to_string(fnums[j]) + ".txt";
      c.kind = "-";
      c.golden_elements = counts[j];
      c.counted = false;
      c.note = "matches no layer (" + std::to_string(counts[j]) +
               " values): the golden numbering skips or repeats a layer";
      rows.push_back(c);
    }
    // output_K.txt: the graph output (the last layer's raw values when there is no epilogue).
    const fs::path op = d / (v < 0 ? "output.txt" : "output_" + vs + ".txt");
    if (fs::exists(op) && !net.outputs.empty()) {
      const graph_output& go = net.outputs.front();
      layer_check c;
      const auto li = static_cast<std::size_t>(go.layer);
      if (go.steps.empty() && li < net.layers.size()) {
        c = compare(net.layers[li].out, outs[li], read_dory_file(op.string()).values);
        ++total;
        if (c.exact()) ++exact;
        c.kind = "output";
        c.layer = go.layer;
      } else {
        c.kind = "output";
        c.counted = false;
        c.note = "after a host-side epilogue: not compared";
      }
      c.vector = v;
      c.file = op.filename().string();
      rows.push_back(c);
    }
    // Saturation on request: how many values each saturated layer changed.
    if (io.saturate) {
      const auto counts = reference::saturation_counts(net.layers, ps, outs);
      for (std::size_t i = 0; i < counts.size(); ++i)
        if (net.layers[i].saturated)
          rep.notes.push_back((v >= 0 ? "vector " + vs + ": " : std::string{}) + "layer " +
                              std::to_string(net.golden[i]) + " (" + net.nodes[i] + "): " +
                              std::to_string(counts[i]) + " values saturated to the container");
    }
    rep.rows.insert(rep.rows.end(), rows.begin(), rows.end());
    rep.exact += exact;
    rep.total += total;
    ++rep.vectors;
    if (!o.dump_dir.empty()) {
      fs::create_directories(o.dump_dir);
      for (std::size_t i : glayers) {
        const shape& s = net.layers[i].out;
        const std::string hdr = "# " + std::string(net.layers[i].name.c_str()) + " (shape [" +
                                std::to_string(s.h) + ", " + std::to_string(s.w) + ", " +
                                std::to_string(s.c) + "])";
        write_dory_file(
            (fs::path(o.dump_dir) / (prefix + std::to_string(net.golden[i]) + ".txt")).string(),
            hdr, outs[i]);
      }
    }
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
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-4s %-6s %-16s %-16s %10s %10s %10s %12s  %-7s %s\n",
                r.multi ? "vec" : "", "layer", "kind", "shape (HxWxC)", "elements", "mismatch",
                "max|diff|", "cycles", "layout", "golden file");
  os << buf;
  for (const auto& c : r.rows) {
    const std::string sh = c.kind == "-"
                               ? "-"
                               : std::to_string(c.dims.h) + "x" + std::to_string(c.dims.w) + "x" +
                                     std::to_string(c.dims.c);
    const std::string vec = c.vector >= 0 ? std::to_string(c.vector) : "";
    const std::string layer = c.kind == "output" ? "out" : std::to_string(c.golden);
    const std::string cyc = c.cycles > 0 ? std::to_string(c.cycles) : "-";
    std::snprintf(buf, sizeof buf, "%-4s %-6s %-16s %-16s %10lld %10lld %10lld %12s  %-7s %s%s%s\n",
                  vec.c_str(), layer.c_str(), c.kind.c_str(), sh.c_str(),
                  static_cast<long long>(c.kind == "-" ? c.golden_elements : c.elements),
                  static_cast<long long>(c.mismatches), static_cast<long long>(c.max_diff),
                  cyc.c_str(), c.layout.c_str(), c.file.c_str(), c.note.empty() ? "" : "  ",
                  c.note.c_str());
    os << buf;
  }
  for (const auto& n : r.notes) os << "note: " << n << "\n";
  if (r.cycles > 0) os << "modeled cycles: " << r.cycles << " per inference\n";
  os << r.exact << "/" << r.total << (r.multi ? " tensors" : " layers") << " bit-exact";
  if (r.multi) os << " over " << r.vectors << " test vectors";
  os << "\n";
}

namespace {

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      o += '\\';
      o += ch;
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += ch;
    }
  }
  return o + "\"";
}

}  // namespace

void print_json(std::ostream& os, const verify_report& r) {
  os << "{\"engine\":" << json_str(r.engine) << ",\"vectors\":" << r.vectors
     << ",\"exact\":" << r.exact << ",\"total\":" << r.total
     << ",\"ok\":" << (r.ok() ? "true" : "false") << ",\"cycles\":" << r.cycles << ",\"rows\":[";
  bool first = true;
  for (const auto& c : r.rows) {
    os << (first ? "\n" : ",\n") << "{\"vector\":" << c.vector << ",\"layer\":" << c.layer
       << ",\"golden\":" << c.golden << ",\"kind\":" << json_str(c.kind) << ",\"shape\":["
       << c.dims.h << "," << c.dims.w << "," << c.dims.c << "],\"elements\":" << c.elements
       << ",\"golden_elements\":" << c.golden_elements << ",\"mismatches\":" << c.mismatches
       << ",\"max_diff\":" << c.max_diff << ",\"cycles\":" << c.cycles
       << ",\"layout\":" << json_str(c.layout) << ",\"file\":" << json_str(c.file)
       << ",\"counted\":" << (c.counted ? "true" : "false")
       << ",\"exact\":" << (c.counted && c.exact() ? "true" : "false")
       << ",\"note\":" << json_str(c.note) << "}";
    first = false;
  }
  os << "\n],\"notes\":[";
  first = true;
  for (const auto& n : r.notes) {
    os << (first ? "" : ",") << json_str(n);
    first = false;
  }
  os << "]}\n";
}

}  // namespace ctile::onnx
