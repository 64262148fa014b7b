// ctile-solve: solves the tiling problems a network's exporter wrote (JSON) with Z3 and writes
// a header of plan specializations that the compiler re-checks.
//
//   ctile-solve PROBLEMS.json [-o HEADER] [--json] [--timeout MS] [--fallback search]
//                             [--joint]
//
// Exit status: 0 solved; 1 a layer has no tiling that fits, or Z3 timed out (without
// --fallback); 2 bad usage, unreadable or malformed input. On failure no header is written,
// and an existing one at the output path is removed, so a stale header never survives.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "ctile/solve/json.hpp"
#include "ctile/solve/solve.hpp"

namespace {

int usage(const std::string& why) {
  if (!why.empty()) std::fprintf(stderr, "ctile-solve: %s\n", why.c_str());
  std::fprintf(stderr,
               "usage: ctile-solve PROBLEMS.json [-o HEADER] [--json] [--timeout MS]\n"
               "                   [--fallback search] [--joint]\n");
  return 2;
}

bool write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return false;
    f << text;
    if (!f.flush()) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ctile::solve;
  std::string in, out;
  bool json_out = false, joint = false;
  solve_options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "-o") {
      const char* v = value();
      if (v == nullptr) return usage("-o needs a path");
      out = v;
    } else if (a == "--json") {
      json_out = true;
    } else if (a == "--joint") {
      joint = true;
    } else if (a == "--timeout") {
      const char* v = value();
      char* end = nullptr;
      const long ms = v != nullptr ? std::strtol(v, &end, 10) : 0;
      if (v == nullptr || *end != '\0' || ms <= 0 || ms > 3600000)
        return usage("--timeout needs milliseconds (1 to 3600000)");
      o.timeout_ms = static_cast<unsigned>(ms);
    } else if (a == "--fallback") {
      const char* v = value();
      if (v == nullptr || std::strcmp(v, "search") != 0) return usage("--fallback is 'search'");
      o.fallback_search = true;
    } else if (a == "-h" || a == "--help") {
      usage("");
      return 0;
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      return usage("unknown option '" + a + "'");
    } else if (in.empty()) {
      in = a;
    } else {
      return usage("more than one problem file given");
    }
  }
  if (in.empty()) return usage("no problem file given");
  auto fail_removing_output = [&](int code) {
    if (!out.empty()) std::remove(out.c_str());
    return code;
  };
  std::stringstream text;
  if (in == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream f(in, std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "ctile-solve: cannot read %s\n", in.c_str());
      return fail_removing_output(2);
    }
    text << f.rdbuf();
  }
  problem_set s;
  try {
    s = read_problems(text.str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ctile-solve: %s: %s\n", in.c_str(), e.what());
    return fail_removing_output(2);
  }
  if (joint) {
    // The joint problem: its decisions go into the header (they replace the greedy L3
    // cascade). On a timeout with --fallback search the header has the per-layer plans only,
    // and plan_of runs the greedy cascade; otherwise no header.
    const joint_solution j = solve_joint(s, o);
    if (json_out || out.empty()) std::fputs(joint_json(s, j).c_str(), stdout);
    if (j.ok) {
      if (!out.empty() && !write_file(out, joint_plan_header(s, j, in))) {
        std::fprintf(stderr, "ctile-solve: cannot write %s\n", out.c_str());
        return fail_removing_output(2);
      }
      return 0;
    }
    std::fprintf(stderr, "ctile-solve: %s\n", j.error.c_str());
    if (!j.timed_out || !o.fallback_search || out.empty()) {
      std::fprintf(stderr, "ctile-solve: no header written\n");
      return fail_removing_output(1);
    }
    std::fprintf(stderr,
                 "ctile-solve: falling back to the per-layer plans and the greedy L3 cascade\n");
  }
  const network_solution sol = solve_network(s, o);
  for (const auto& l : sol.layers)
    if (l.status == layer_status::fallback)
      std::fprintf(stderr, "ctile-solve: %s\n", l.message.c_str());
  if (json_out && !joint) std::fputs(solution_json(s, sol).c_str(), stdout);
  if (!sol.ok) {
    for (const auto& e : sol.errors) std::fprintf(stderr, "ctile-solve: %s\n", e.c_str());
    std::fprintf(stderr, "ctile-solve: no header written\n");
    return fail_removing_output(1);
  }
  if (!out.empty() && !write_file(out, plan_header(s, sol, in))) {
    std::fprintf(stderr, "ctile-solve: cannot write %s\n", out.c_str());
    return fail_removing_output(2);
  }
  return 0;
}
