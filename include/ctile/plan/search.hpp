// The L2 -> L1 search: the exact optimum of the chosen objective over every output tile
// (tile_h, tile_w, tile_c) that fits L1 and, for the cycle model, every core split. Plain
// constexpr loops with pruning, so the same code runs in the compiler and in ctile-plan.
#pragma once

#include <cstdint>
#include <type_traits>

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
  int seen = 0;
  for (int nk = lo; nk <= most && (max_counts <= 0 || seen < max_counts);) {
    const int tk = linear_k_tile(K, nk);
    ++seen;
    visit(tk);
    // The next count with a smaller tile (tiles fall with the count): the largest whole-word
    // tile below tk, a, is reached at ceil(K / a) tiles; the counts between repeat tk.
    const int a = (tk - 1) & ~3;
    if (a <= 0) break;
    const int next = ceil_div(K, a);
    nk = next > nk ? next : nk + 1;
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
  std::int64_t work = 0;           ///< candidates the loops stepped through (search_work_limit)
  bool cut_short = false;          ///< the search stopped at search_work_limit
};

/// The most candidates one search steps through at compile time (channel, row and column
/// tiles, pruned or not; K tiles of a linear layer): it bounds the compile time of planning a
/// layer, whatever its size, and, with the search run in slices of search_slice_work
/// candidates (sliced_plan), keeps every constant under the compilers' default limits
/// (bench/README.md, "Compile-time cost of a plan"). A search that reaches it keeps the best
/// tiling found so far, or the best balanced seed tiling (seed_tiling) when that is better.
/// Every example network's search on GAP-8 ends below it, so their plans are exact optima; a
/// plan made at run time (ctile-plan, plan_network outside a constant) is never cut unless a
/// limit is passed.
inline constexpr std::int64_t search_work_limit = 8192;

/// The work limit of a search: `asked` when positive; else search_work_limit in a constant
/// evaluation and none at run time.
constexpr std::int64_t work_limit_of(std::int64_t asked) {
  if (asked > 0) return asked;
  return std::is_constant_evaluated() ? search_work_limit : INT64_MAX;
}

/// The best of a few balanced tilings (ceil(C / n) x ceil(H / m) channels and rows for small
/// n, m, with the widest balanced column tile that fits) under the model: its score is an
/// upper bound the search prunes with, and it is the fallback of a search cut short.
constexpr tiling_choice seed_tiling(const tiling_problem& P, const cost::split_list& splits) {
  using plan_detail::ceil_div;
  tiling_choice best;
  best.score = INT64_MAX;
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
      const int tw = ceil_div(P.W, k);
      cost::layer_cycles_at(P, cx, rx, tw, cyc);
      for (int i = 0; i < splits.n; ++i)
        if (cyc[i] < best.score) {
          best.found = true;
          best.tc = tc, best.th = th, best.tw = tw;
          best.split = splits.item[i];
          best.score = cyc[i];
        }
    }
  }
  return best;
}

/// Modeled cycles of seed_tiling; INT64_MAX if none fits. Only used to prune.
constexpr std::int64_t seed_upper_bound(const tiling_problem& P, const cost::split_list& splits) {
  return seed_tiling(P, splits).score;
}

/// Where a search stands between two slices of its work (search_model_step,
/// search_linear_step): the best tiling so far (its `work`: the candidates stepped through),
/// the bound it prunes with, and the candidate it steps to next. A search run in slices makes
/// the same steps, and so the same choice, as one run whole; each slice can then be a constant
/// of its own, under the compilers' per-constant limits (sliced_search).
struct search_progress {
  tiling_choice best{};
  tiling_choice seeded{};  ///< the seed tiling (search_model): bound and fallback
  std::int64_t limit = 0;  ///< search_model prunes subtrees whose lower bound reaches it
  /// 0: not started; else the level of the candidate to step to next: 1 channel tile `i`,
  /// 2 row tile `j` of channel tile `i`, 3 column tile `k` of row tile `j`.
  int level = 0;
  int i = 0, j = 0, k = 0;
  bool done = false;
};

/// A linear layer's search under either objective: channel tiles from large to small, each
/// with its K tiles (plan_detail::for_each_k_tile); the first best in that order wins. The
/// model's cycles are minimised; DORY's score is maximised, and as DORY never cuts the
/// reduction, under its objective the reduction is cut only when no tiling holds it whole.
/// Steps from `s` through at most about `slice` candidates (a channel tile's K tiles are
/// stepped together), or to the end.
constexpr search_progress search_linear_step(const tiling_problem& P, objective o,
                                             search_progress s, std::int64_t work_limit,
                                             std::int64_t slice) {
  tiling_choice& best = s.best;
  const std::int64_t stop = slice < INT64_MAX - best.work ? best.work + slice : INT64_MAX;
  const core_split split = cost::default_split(P);
  const int K = linear_k(P);
  const bool whole_only = o == objective::dory && linear_fits(P, 1, K);
  const plan_detail::axis_candidates cs = plan_detail::linear_channel_candidates(P);
  for (int i = s.level == 0 ? 0 : s.i; i < cs.count(); ++i) {
    if (best.work >= work_limit) {
      best.cut_short = true;
      break;
    }
    if (best.work >= stop) {  // the slice is spent: go on from channel tile i
      s.level = 1;
      s.i = i;
      return s;
    }
    const int tc = cs.at(i);
    plan_detail::for_each_k_tile(P, tc, plan_detail::search_k_counts, [&](int tk) {
      ++best.work;
      if (whole_only && tk < K) return;
      ++best.visited;
      const int cut = tk < K ? tk : 0;
      const std::int64_t v = o == objective::model ? cost::layer_cycles(P, tc, 1, 1, split, cut)
                                                   : dory_score(P, tc, 1, 1, cut);
      if (!best.found || (o == objective::model ? v < best.score : v > best.score)) {
        best.found = true;
        best.tc = tc, best.th = 1, best.tw = 1, best.tk = tk;
        best.split = split;
        best.score = v;
      }
    });
  }
  best.channel_tiles = cs.count();
  s.done = true;
  return s;
}

/// search_linear_step run to its end.
constexpr tiling_choice search_linear(const tiling_problem& P, objective o,
                                      std::int64_t asked_limit = 0) {
  return search_linear_step(P, o, {}, work_limit_of(asked_limit), INT64_MAX).best;
}

/// Minimum modeled cycles over every fitting tiling and split. Ties keep the first in search
/// order (larger tiles first, the kind's default split first). Pruned by lower bounds that no
/// tiling of a subtree can beat: the tile count's fixed cost, and per channel and row tile
/// the compute summed over whole rows. Steps from `s` through at most `slice` candidates, or
/// to the end; a slice resumed inside a channel or row tile does not repeat the checks that
/// let the search into it, so the steps are those of one whole run.
constexpr search_progress search_model_step(const tiling_problem& P, search_progress s,
                                            std::int64_t work_limit, std::int64_t slice) {
  // The same enumeration as plan_detail::for_each_tiling, written as plain nested loops (no
  // callbacks): a compiler evaluates these several times faster.
  using plan_detail::ceil_div;
  tiling_choice& best = s.best;
  const cost::split_list splits = cost::splits_for(P);
  std::int64_t cyc[8] = {};
  if (s.level == 0) {
    // An upper bound from a few balanced tilings: subtrees whose lower bound exceeds it hold
    // no optimum, so they are skipped without changing which optimum (the first in order) is
    // found. A subtree is pruned when its bound reaches `limit` = min(best so far, seed + 1).
    s.seeded = seed_tiling(P, splits);
    s.limit = s.seeded.score == INT64_MAX ? INT64_MAX : s.seeded.score + 1;
    s.level = 1;
    s.i = 0;
  }
  std::int64_t& limit = s.limit;
  const std::int64_t stop = slice < INT64_MAX - best.work ? best.work + slice : INT64_MAX;
  // Where this slice resumes: inside channel tile ri (level 2 or 3), inside its row tile rj
  // (level 3).
  const int from = s.level, ri = s.i, rj = s.j, rk = s.k;
  const auto pause = [&](int level, int i, int j, int k) {
    s.level = level;
    s.i = i, s.j = j, s.k = k;
    return s;
  };
  // Every candidate stepped through counts towards the work limit.
  auto spent = [&] {
    if (++best.work < work_limit) return false;
    best.cut_short = true;
    return true;
  };
  const int B = P.l1_budget;
  const int w1 = P.whole_rows ? P.W : 1;
  // Channel tiles: the whole axis if it fits, then the largest fitting below it, down to 1.
  auto c_fits = [&](int c) {
    return l1_bytes_for(P, c, 1, w1) <= B || l1_bytes_for(P, c, P.H, w1) <= B ||
           l1_bytes_for(P, c, 1, P.W) <= B || l1_bytes_for(P, c, P.H, P.W) <= B;
  };
  const plan_detail::axis_candidates cs = plan_detail::candidates(P.C, c_fits);
  const int n_cs = cs.count();
  for (int i = ri; i < n_cs && !best.cut_short; ++i) {
    const bool in_i = from >= 2 && i == ri;  // resumed inside it: its checks were made
    if (!in_i) {
      if (best.work >= stop) return pause(1, i, 0, 0);
      if (spent()) break;
    }
    const int tc = cs.whole ? (i == 0 ? P.C : cs.below - (i - 1)) : cs.below - i;
    const int nc = ceil_div(P.C, tc);
    if (!in_i) {
      if (cost::lower_bound(P, nc) >= limit) break;
      if (cost::channel_lower_bound(P, splits, tc, nc) >= limit) continue;
    }
    const cost::channel_context cx = cost::channel_context_for(P, splits, tc);
    if (!in_i) ++best.channel_tiles;
    auto h_fits = [&](int h) {
      return l1_bytes_for(P, tc, h, w1) <= B || l1_bytes_for(P, tc, h, P.W) <= B;
    };
    const plan_detail::axis_candidates hs = plan_detail::candidates(P.H, P.max_tile_h, h_fits);
    const int n_hs = hs.count();
    for (int j = in_i ? rj : 0; j < n_hs && !best.cut_short; ++j) {
      const bool in_j = in_i && from == 3 && j == rj;
      if (!in_j) {
        if (best.work >= stop) return pause(2, i, j, 0);
        if (spent()) break;
      }
      const int th = hs.whole ? (j == 0 ? P.H : hs.below - (j - 1)) : hs.below - j;
      if (!in_j && !rows_read_input(P, th)) continue;
      const std::int64_t nch = std::int64_t{nc} * ceil_div(P.H, th);
      if (!in_j && cost::lower_bound(P, nch) >= limit) break;
      const cost::row_context rx = cost::row_context_for(P, cx, th);
      const cost::bound_parts row_bound = cost::row_lower_bound(P, cx, rx);
      const std::int64_t least_tiles =
          nch > 1 ? nch * ceil_div(P.W, widest_column_tile_bound(P, tc, th)) : 1;
      if (!in_j) {
        if (row_bound.at(least_tiles) >= limit) continue;
        ++best.row_tiles;
      }
      plan_detail::axis_candidates ws{};
      if (P.whole_rows) {
        ws = {l1_bytes_for(P, tc, th, P.W) <= B, P.W, 0};
      } else {
        auto w_fits = [&](int w) { return l1_bytes_for(P, tc, th, w) <= B; };
        ws = plan_detail::candidates(P.W, w_fits);
      }
      const int n_ws = ws.count();
      for (int k = in_j ? rk : 0; k < n_ws; ++k) {
        if (best.work >= stop) return pause(3, i, j, k);
        if (spent()) break;
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
        for (int sp = 0; sp < splits.n; ++sp) {
          if (cyc[sp] < limit) {
            limit = cyc[sp];
            best.found = true;
            best.tc = tc, best.th = th, best.tw = tw;
            best.split = splits.item[sp];
            best.score = cyc[sp];
          }
        }
      }
    }
  }
  const tiling_choice& seeded = s.seeded;
  if (best.cut_short && !best.found && seeded.found) {
    // Cut short before any tiling beat the seed: the seed is the plan.
    best.found = true;
    best.tc = seeded.tc, best.th = seeded.th, best.tw = seeded.tw;
    best.split = seeded.split;
    best.score = seeded.score;
  }
  s.done = true;
  return s;
}

/// search_model_step run to its end.
constexpr tiling_choice search_model(const tiling_problem& P, std::int64_t asked_limit = 0) {
  return search_model_step(P, {}, work_limit_of(asked_limit), INT64_MAX).best;
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

/// The search of an objective for any layer kind, from `s` through at most `slice` candidates
/// (DORY's search of a non-linear layer, which has no work limit, runs whole).
constexpr search_progress search_step(const tiling_problem& P, objective o, search_progress s,
                                      std::int64_t work_limit, std::int64_t slice) {
  if (P.linear) return search_linear_step(P, o, s, work_limit, slice);
  if (o == objective::model) return search_model_step(P, s, work_limit, slice);
  s.best = search_dory(P);
  s.done = true;
  return s;
}

/// The search of an objective for any layer kind.
constexpr tiling_choice search(const tiling_problem& P, objective o = objective::model,
                               std::int64_t work_limit = 0) {
  return search_step(P, o, {}, work_limit_of(work_limit), INT64_MAX).best;
}

/// Where search_on_cores stands between two slices (search_on_cores_step): the search of the
/// core count in hand (`cores`: the layer's own, then half, a quarter, ...), the best choice
/// of the counts finished and their work.
struct cores_progress {
  search_progress now{};
  tiling_choice best{};
  int cores = 0;  ///< 0: not started
  std::int64_t work = 0;
  bool done = false;
};

/// search_on_cores from `s`, through at most `slice` candidates of one core count's search.
constexpr cores_progress search_on_cores_step(const tiling_problem& P, objective o,
                                              cores_progress s, std::int64_t limit,
                                              std::int64_t slice) {
  if (s.cores == 0) s.cores = P.cores;
  const bool own = s.cores == P.cores;
  // The searches on fewer cores share one work limit.
  s.now = own ? search_step(P, o, s.now, limit, slice)
              : search_step(on_fewer_cores(P, s.cores), o, s.now, limit - s.work, slice);
  if (!s.now.done) return s;
  tiling_choice f = s.now.best;
  f.cores = s.cores;
  if (own) {
    s.best = f;
    s.work = f.work;
    if (f.found || !scratch_per_core(P)) {
      s.done = true;
      return s;
    }
  } else {
    s.work += f.work;
    const bool better = o == objective::model ? f.score < s.best.score : f.score > s.best.score;
    if (f.found && (!s.best.found || better)) s.best = f;
  }
  s.cores /= 2;
  s.now = {};
  s.done = s.cores < 1 || s.work >= limit;
  return s;
}

/// The search on the layer's cores or, when no tiling fits beside every core's kernel scratch
/// (conv im2col, depthwise stripes), the best plan on fewer cores: half, a quarter, ... of them
/// (each working core keeps its scratch; the rest idle).
constexpr tiling_choice search_on_cores(const tiling_problem& P, objective o = objective::model,
                                        std::int64_t asked_limit = 0) {
  const std::int64_t limit = work_limit_of(asked_limit);
  cores_progress s;
  do {
    s = search_on_cores_step(P, o, s, limit, INT64_MAX);
  } while (!s.done);
  return s.best;
}

/// The layer plan of a search's choice `c` for problem `P`.
constexpr layer_plan plan_of_choice(const tiling_problem& P, objective o, const tiling_choice& c) {
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

/// Plans one tiling problem. Takes the problem by value: layers of equal shape (MobileNet's
/// repeated blocks) then share one evaluation in a compiler that memoizes constant calls.
constexpr layer_plan plan_problem(tiling_problem P, objective o) {
  return plan_of_choice(P, o, search_on_cores(P, o));
}

/// Candidates one slice of a compile-time search steps through (sliced_plan): a constant of
/// its own each, so that a search of any size up to search_work_limit stays under clang's
/// default step limit (1,048,576 a constant, about 500 steps a candidate) as well as GCC's
/// operation limit (bench/README.md, "Compile-time cost of a plan").
inline constexpr std::int64_t search_slice_work = 1024;

namespace plan_detail {
/// Slice N of the search of problem Q under objective O: its progress after slice N.
template <tiling_problem Q, objective O, int N>
struct search_slice {
  static constexpr cores_progress value = search_on_cores_step(
      Q, O, search_slice<Q, O, N - 1>::value, search_work_limit, search_slice_work);
};
template <tiling_problem Q, objective O>
struct search_slice<Q, O, 0> {
  static constexpr cores_progress value =
      search_on_cores_step(Q, O, cores_progress{}, search_work_limit, search_slice_work);
};
template <tiling_problem Q, objective O, int N = 0>
consteval tiling_choice sliced_search() {
  if constexpr (search_slice<Q, O, N>::value.done)
    return search_slice<Q, O, N>::value.best;
  else
    return sliced_search<Q, O, N + 1>();
}
}  // namespace plan_detail

/// plan_problem(Q, O) in a constant expression, the search run in slices of
/// search_slice_work candidates, each a constant of its own: the same plan as plan_problem's
/// (the slices make the same steps), at a per-constant cost the compilers' default limits
/// allow for any search.
template <tiling_problem Q, objective O>
consteval layer_plan sliced_plan() {
  return plan_of_choice(Q, O, plan_detail::sliced_search<Q, O>());
}

/// Whether plan_layer searches layer `l` on platform `p`: not for the network input, nor for
/// a shape that shape inference did not accept.
constexpr bool layer_is_searched(const layer& l, const platform& p) {
  return l.kind != op::input && l.in.h > 0 && l.in.w > 0 && l.in.c > 0 && l.out.h > 0 &&
         l.out.w > 0 && l.out.c > 0 && p.cores > 0;
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
  if (!layer_is_searched(l, p)) {
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
