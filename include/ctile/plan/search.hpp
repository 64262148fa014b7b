// The L2 -> L1 search: the exact optimum of the chosen objective over every output tile
// (tile_h, tile_w, tile_c) that fits L1 and, for the cycle model, every core split. Plain
// constexpr loops with pruning, so the same code runs in the compiler and in ctile-plan.
#pragma once

#include <cstdint>

#include "ctile/plan/cost_model.hpp"
#include "ctile/plan/layer_plan.hpp"
#include "ctile/plan/problem.hpp"

namespace ctile {

namespace plan_detail {

/// Largest t in [1, n - 1] with pred(t), for pred true up to some point and false after;
/// 0 if there is none.
template <class Pred>
constexpr int last_true(int n, const Pred& pred) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (pred(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/// The tile sizes of one axis that can fit, in the search's order (largest first): the whole
/// axis if it fits, then every size from the largest fitting one below it down to 1.
struct axis_candidates {
  bool whole = false;
  int n = 0;
  int below = 0;  ///< sizes below..1 follow
  [[nodiscard]] constexpr int count() const { return (whole ? 1 : 0) + below; }
  [[nodiscard]] constexpr int at(int i) const {
    if (whole) return i == 0 ? n : below - (i - 1);
    return below - i;
  }
};
template <class Pred>
constexpr axis_candidates candidates(int n, const Pred& fits) {
  return {fits(n), n, last_true(n, fits)};
}
/// The same with sizes capped at `cap` (< n: the whole axis is not a candidate).
template <class Pred>
constexpr axis_candidates candidates(int n, int cap, const Pred& fits) {
  if (cap >= n) return candidates(n, fits);
  return {false, n, last_true(cap + 1, fits)};
}

/// Enumerates every fitting tiling (tc, th, tw) in the search order: channels, rows, then
/// columns, each from large to small. The caller's hooks prune: `on_c(tc)` and `on_h(th)`
/// return 0 to go on, 1 to skip this value, 2 to stop the loop at this level;
/// `visit(tc, th, tw)` returns false to stop the column loop.
template <class OnC, class OnH, class Visit>
constexpr void for_each_tiling(const tiling_problem& P, OnC&& on_c, OnH&& on_h, Visit&& visit) {
  const int B = P.l1_budget;
  auto mem = [&](int c, int h, int w) { return l1_bytes_for(P, c, h, w); };
  const int w1 = P.whole_rows ? P.W : 1;  // the narrowest column tile allowed
  auto c_fits = [&](int c) {
    return mem(c, 1, w1) <= B || mem(c, P.H, w1) <= B || mem(c, 1, P.W) <= B ||
           mem(c, P.H, P.W) <= B;
  };
  const axis_candidates cs = candidates(P.C, c_fits);
  for (int i = 0; i < cs.count(); ++i) {
    const int tc = cs.at(i);
    const int ac = on_c(tc);
    if (ac == 2) break;
    if (ac == 1) continue;
    auto h_fits = [&](int h) { return mem(tc, h, w1) <= B || mem(tc, h, P.W) <= B; };
    const axis_candidates hs = candidates(P.H, P.max_tile_h, h_fits);
    for (int j = 0; j < hs.count(); ++j) {
      const int th = hs.at(j);
      if (!rows_read_input(P, th)) continue;
      const int ah = on_h(th);
      if (ah == 2) break;
      if (ah == 1) continue;
      auto w_fits = [&](int w) { return mem(tc, th, w) <= B; };
      const axis_candidates ws =
          P.whole_rows ? axis_candidates{w_fits(P.W), P.W, 0} : candidates(P.W, w_fits);
      for (int k = 0; k < ws.count(); ++k) {
        if (!cols_read_input(P, ws.at(k))) continue;
        if (!visit(tc, th, ws.at(k))) break;
      }
    }
  }
}

/// The K tiles the constexpr search tries for a linear layer with `tc` output channels per
/// tile: the whole reduction when it fits beside them; otherwise the balanced K tiles
/// (linear_k_tile) of the fewest tiles that fit and, to bound compile time, of at most
/// `max_counts - 1` more tile counts, largest first. `visit(tk)` gets each; returns how many.
/// (ctile-solve gives Z3 every balanced K tile: `max_counts` = 0 means no bound.)
template <class Visit>
constexpr int for_each_k_tile(const tiling_problem& P, int tc, int max_counts, Visit&& visit) {
  const int K = linear_k(P);
  if (linear_fits(P, tc, K)) {
    visit(K);
    return 1;
  }
  const int most = ceil_div(K, 4);  // 4-byte tiles: the finest cut
  auto fits = [&](int nk) { return linear_fits(P, tc, linear_k_tile(K, nk)); };
  if (most < 2 || !fits(most)) return 0;
  int lo = 2, hi = most;  // the fewest tiles that fit: memory falls as tiles multiply
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (fits(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  int seen = 0, prev = -1;
  for (int nk = lo; nk <= most && (max_counts <= 0 || seen < max_counts); ++nk) {
    const int tk = linear_k_tile(K, nk);
    if (tk == prev) continue;
    prev = tk;
    ++seen;
    visit(tk);
  }
  return seen;
}
inline constexpr int search_k_counts = 8;  ///< K tile counts per channel tile (see above)

/// Output-channel tiles of a linear layer in the search's order: the whole axis if it fits,
/// then the largest fitting below it down to 1 (a channel tile fits when its smallest K tile
/// does).
constexpr axis_candidates linear_channel_candidates(const tiling_problem& P) {
  const int K = linear_k(P);
  const int finest = linear_k_tile(K, ceil_div(K, 4));
  return candidates(P.C, [&](int c) { return linear_fits(P, c, K) || linear_fits(P, c, finest); });
}

}  // namespace plan_detail

/// Result of a search: the chosen tiling, or none.
struct tiling_choice {
  bool found = false;
  int tc = 0, th = 0, tw = 0;
  core_split split{};
  std::int64_t score = 0;
  int tk = 0;     ///< linear: the K tile (the whole reduction when not cut); 0 otherwise
  int cores = 0;  ///< the cores it runs on (fewer than the cluster's when scratch limits them)
  std::int64_t visited = 0;        ///< tilings evaluated (for the benchmark)
  std::int64_t channel_tiles = 0;  ///< channel tile sizes not pruned
  std::int64_t row_tiles = 0;      ///< (channel, row) tile sizes not pruned
};

/// Modeled cycles of the best of a few balanced tilings (ceil(C / n) x ceil(H / m) channels
/// and rows for small n, m, with the widest balanced column tile that fits); INT64_MAX if
/// none fits. Only used to prune.
constexpr std::int64_t seed_upper_bound(const tiling_problem& P, const cost::split_list& splits) {
  using plan_detail::ceil_div;
  std::int64_t best = INT64_MAX;
  std::int64_t cyc[8] = {};
  for (int n = 1; n <= 8 && n <= P.C; ++n) {
    const int tc = ceil_div(P.C, n);
    if (n > 1 && tc == ceil_div(P.C, n - 1)) continue;
    const cost::channel_context cx = cost::channel_context_for(P, splits, tc);
    for (int m = 1; m <= 8 && m <= P.H; ++m) {
      const int th = ceil_div(P.H, m);
      if (th > P.max_tile_h) continue;
      if (m > 1 && th == ceil_div(P.H, m - 1)) continue;
      if (!rows_read_input(P, th)) continue;
      if (l1_bytes_for(P, tc, th, P.whole_rows ? P.W : 1) > P.l1_budget) continue;
      int k = 1;
      while (k <= P.W && (l1_bytes_for(P, tc, th, ceil_div(P.W, k)) > P.l1_budget ||
                          !cols_read_input(P, ceil_div(P.W, k))))
        ++k;
      if (k > P.W) continue;
      const cost::row_context rx = cost::row_context_for(P, cx, th);
      cost::layer_cycles_at(P, cx, rx, ceil_div(P.W, k), cyc);
      for (int i = 0; i < splits.n; ++i)
        if (cyc[i] < best) best = cyc[i];
    }
  }
  return best;
}

/// A linear layer's search under either objective: channel tiles from large to small, each
/// with its K tiles (plan_detail::for_each_k_tile); the first best in that order wins. The
/// model's cycles are minimised; DORY's score is maximised, and as DORY never cuts the
/// reduction, under its objective the reduction is cut only when no tiling holds it whole.
constexpr tiling_choice search_linear(const tiling_problem& P, objective o) {
  tiling_choice best;
  const core_split split = cost::default_split(P);
  const int K = linear_k(P);
  const bool whole_only = o == objective::dory && linear_fits(P, 1, K);
  const plan_detail::axis_candidates cs = plan_detail::linear_channel_candidates(P);
  for (int i = 0; i < cs.count(); ++i) {
    const int tc = cs.at(i);
    plan_detail::for_each_k_tile(P, tc, plan_detail::search_k_counts, [&](int tk) {
      if (whole_only && tk < K) return;
      ++best.visited;
      const int cut = tk < K ? tk : 0;
      const std::int64_t s = o == objective::model ? cost::layer_cycles(P, tc, 1, 1, split, cut)
                                                   : dory_score(P, tc, 1, 1, cut);
      if (!best.found || (o == objective::model ? s < best.score : s > best.score)) {
        best.found = true;
        best.tc = tc, best.th = 1, best.tw = 1, best.tk = tk;
        best.split = split;
        best.score = s;
      }
    });
  }
  best.channel_tiles = cs.count();
  return best;
}

/// Minimum modeled cycles over every fitting tiling and split. Ties keep the first in search
/// order (larger tiles first, the kind's default split first). Pruned by lower bounds that no
/// tiling of a subtree can beat: the tile count's fixed cost, and per channel and row tile
/// the compute summed over whole rows.
constexpr tiling_choice search_model(const tiling_problem& P) {
  // The same enumeration as plan_detail::for_each_tiling, written as plain nested loops (no
  // callbacks): a compiler evaluates these several times faster.
  using plan_detail::ceil_div;
  tiling_choice best;
  const cost::split_list splits = cost::splits_for(P);
  std::int64_t cyc[8] = {};
  // An upper bound from a few balanced tilings: subtrees whose lower bound exceeds it hold no
  // optimum, so they are skipped without changing which optimum (the first in order) is found.
  // A subtree is pruned when its bound reaches `limit` = min(best so far, seed + 1).
  const std::int64_t seed = seed_upper_bound(P, splits);
  std::int64_t limit = seed == INT64_MAX ? INT64_MAX : seed + 1;
  const int B = P.l1_budget;
  const int w1 = P.whole_rows ? P.W : 1;
  // Channel tiles: the whole axis if it fits, then the largest fitting below it, down to 1.
  auto c_fits = [&](int c) {
    return l1_bytes_for(P, c, 1, w1) <= B || l1_bytes_for(P, c, P.H, w1) <= B ||
           l1_bytes_for(P, c, 1, P.W) <= B || l1_bytes_for(P, c, P.H, P.W) <= B;
  };
  const plan_detail::axis_candidates cs = plan_detail::candidates(P.C, c_fits);
  const int n_cs = cs.count();
  for (int i = 0; i < n_cs; ++i) {
    const int tc = cs.whole ? (i == 0 ? P.C : cs.below - (i - 1)) : cs.below - i;
    const int nc = ceil_div(P.C, tc);
    if (cost::lower_bound(P, nc) >= limit) break;
    if (cost::channel_lower_bound(P, splits, tc, nc) >= limit) continue;
    const cost::channel_context cx = cost::channel_context_for(P, splits, tc);
    ++best.channel_tiles;
    auto h_fits = [&](int h) {
      return l1_bytes_for(P, tc, h, w1) <= B || l1_bytes_for(P, tc, h, P.W) <= B;
    };
    const plan_detail::axis_candidates hs = plan_detail::candidates(P.H, P.max_tile_h, h_fits);
    const int n_hs = hs.count();
    for (int j = 0; j < n_hs; ++j) {
      const int th = hs.whole ? (j == 0 ? P.H : hs.below - (j - 1)) : hs.below - j;
      if (!rows_read_input(P, th)) continue;
      const std::int64_t nch = std::int64_t{nc} * ceil_div(P.H, th);
      if (cost::lower_bound(P, nch) >= limit) break;
      const cost::row_context rx = cost::row_context_for(P, cx, th);
      const cost::bound_parts row_bound = cost::row_lower_bound(P, cx, rx);
      const std::int64_t least_tiles =
          nch > 1 ? nch * ceil_div(P.W, widest_column_tile_bound(P, tc, th)) : 1;
      if (row_bound.at(least_tiles) >= limit) continue;
      ++best.row_tiles;
      plan_detail::axis_candidates ws{};
      if (P.whole_rows) {
        ws = {l1_bytes_for(P, tc, th, P.W) <= B, P.W, 0};
      } else {
        auto w_fits = [&](int w) { return l1_bytes_for(P, tc, th, w) <= B; };
        ws = plan_detail::candidates(P.W, w_fits);
      }
      const int n_ws = ws.count();
      for (int k = 0; k < n_ws; ++k) {
        const int tw = ws.whole ? (k == 0 ? P.W : ws.below - (k - 1)) : ws.below - k;
        if (!cols_read_input(P, tw)) continue;
        const std::int64_t tiles = nch * ceil_div(P.W, tw);
        if (row_bound.at(tiles) >= limit) break;
        {
          // The same bound with this column tile's exact prologue and epilogue.
          const int nw = ceil_div(P.W, tw), lw = P.W - (nw - 1) * tw;
          cost::bound_parts b = row_bound;
          b.exposed =
              (nc > 1 ? cx.wd_inner : cx.wd_last) +
              cost::input_dma(P, rx.nh > 1 ? th : rx.lh, nw > 1 ? tw : lw, nc > 1 ? tc : cx.lc) +
              cost::output_dma(P, rx.lh, lw, cx.lc);
          if (b.at(tiles) >= limit) continue;
        }
        ++best.visited;
        cost::layer_cycles_at(P, cx, rx, tw, cyc);
        for (int s = 0; s < splits.n; ++s) {
          if (cyc[s] < limit) {
            limit = cyc[s];
            best.found = true;
            best.tc = tc, best.th = th, best.tw = tw;
            best.split = splits.item[s];
            best.score = cyc[s];
          }
        }
      }
    }
  }
  return best;
}

/// Maximum DORY score over every fitting tiling, with the kind's default split. Ties keep
/// the first in search order.
constexpr tiling_choice search_dory(const tiling_problem& P) {
  // Branch and bound on the score's parts: the L1 fill never exceeds the budget, and each
  // shape term is at most 7 (rows), 1 (columns), 3 (channels) for the tile and for the border.
  using plan_detail::ceil_div;
  tiling_choice best;
  const std::int64_t im2col = P.kind == op::conv ? 200 : 0;
  int tc_now = 1, c_terms = 0, h_terms = 0;
  auto prunable = [&](std::int64_t upper) { return best.found && upper <= best.score; };
  auto on_c = [&](int tc) {
    const int nc = ceil_div(P.C, tc), lc = P.C - (nc - 1) * tc;
    tc_now = tc;
    c_terms = (tc - 1) % 4 + (lc - 1) % 4;
    const std::int64_t upper = P.l1_budget + im2col * tc + 2000000LL * (c_terms + 14 + 2);
    return prunable(upper) ? 1 : 0;
  };
  auto on_h = [&](int th) {
    const int nh = ceil_div(P.H, th), lh = P.H - (nh - 1) * th;
    h_terms = (th - 1) % 8 + (lh - 1) % 8;
    const std::int64_t upper = P.l1_budget + im2col * tc_now + 2000000LL * (c_terms + h_terms + 2);
    return prunable(upper) ? 1 : 0;
  };
  auto visit = [&](int tc, int th, int tw) {
    ++best.visited;
    const std::int64_t s = dory_score(P, tc, th, tw);
    if (!best.found || s > best.score) {
      best.found = true;
      best.tc = tc, best.th = th, best.tw = tw;
      best.score = s;
    }
    return true;
  };
  plan_detail::for_each_tiling(P, on_c, on_h, visit);
  best.split = cost::default_split(P);
  return best;
}

/// The search of an objective for any layer kind.
constexpr tiling_choice search(const tiling_problem& P, objective o = objective::model) {
  if (P.linear) return search_linear(P, o);
  return o == objective::model ? search_model(P) : search_dory(P);
}

/// The search on the layer's cores or, when no tiling fits beside every core's kernel scratch
/// (conv im2col, depthwise stripes), the best plan on fewer cores: half, a quarter, ... of them
/// (each working core keeps its scratch; the rest idle).
constexpr tiling_choice search_on_cores(const tiling_problem& P, objective o = objective::model) {
  tiling_choice c = search(P, o);
  c.cores = P.cores;
  if (c.found || !scratch_per_core(P)) return c;
  for (int n = P.cores / 2; n >= 1; n /= 2) {
    tiling_choice f = search(on_fewer_cores(P, n), o);
    f.cores = n;
    const bool better = o == objective::model ? f.score < c.score : f.score > c.score;
    if (f.found && (!c.found || better)) c = f;
  }
  return c;
}

/// Plans one tiling problem. Takes the problem by value: layers of equal shape (MobileNet's
/// repeated blocks) then share one evaluation in a compiler that memoizes constant calls.
constexpr layer_plan plan_problem(tiling_problem P, objective o) {
  const tiling_choice c = search_on_cores(P, o);
  if (!c.found) {
    layer_plan r = make_layer_plan(P, 1, 1, P.whole_rows ? P.W : 1, cost::default_split(P));
    r.fits = false;
    r.goal = o;
    // The least L1 of any core count: one core's, when the kernel scratch is per core.
    if (scratch_per_core(P)) r.l1_needed = min_l1_need(on_fewer_cores(P, 1));
    return r;
  }
  const tiling_problem Q = c.cores < P.cores ? on_fewer_cores(P, c.cores) : P;
  layer_plan r = make_layer_plan(Q, c.tc, c.th, c.tw, c.split, c.tk);
  r.score = c.score;
  r.goal = o;
  return r;
}

/// Plans one layer's L2 -> L1 tiling on platform `p` (L3 decisions are made per network).
/// A layer that fits nowhere gets `fits == false` and `l1_needed`, the least L1 it needs.
constexpr layer_plan plan_layer(const layer& l, const platform& p, objective o = objective::model) {
  if (l.kind == op::input) {
    layer_plan r;
    r.l1_budget = p.l1_budget();
    r.tile_h = r.last_h = l.out.h, r.tile_w = r.last_w = l.out.w, r.tile_c = r.last_c = l.out.c;
    return r;
  }
  if (l.in.h <= 0 || l.in.w <= 0 || l.in.c <= 0 || l.out.h <= 0 || l.out.w <= 0 || l.out.c <= 0 ||
      p.cores <= 0) {
    // Not a layer shape inference accepted: nothing can be planned.
    layer_plan r;
    r.kind = l.kind;
    r.fits = false;
    r.l1_budget = p.l1_budget();
    return r;
  }
  return plan_problem(make_problem(l, p), o);
}

}  // namespace ctile
