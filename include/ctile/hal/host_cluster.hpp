// cluster on the host: each core of a team is a std::thread.
//
//   deterministic (default): one core runs at a time, in a fixed order. Core 0 runs until it
//     reaches a barrier or returns, then core 1, ... ; when every core of the team waits at
//     the barrier, the next phase starts again from the lowest core. Runs are reproducible and
//     free of data races, yet a body that needs another core's work from the same phase (a
//     missing barrier) sees it missing whenever that core comes later in the order.
//   threads: cores run concurrently and meet at a std::barrier.
//
// A core that returns while others wait at a barrier would hang GAP-8; here the waiting cores
// are released and error() describes the mismatch. An exception escaping a body is rethrown by
// fork() once every core has stopped.
#pragma once

#include <barrier>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cluster.hpp"

namespace ctile::hal {

enum class cluster_mode : std::uint8_t { deterministic, threads };

class host_cluster {
 public:
  explicit host_cluster(int cores = 8, cluster_mode mode = cluster_mode::deterministic)
      : cores_(cores < 1 ? 1 : cores), mode_(mode) {}

  /// Runs body(core_id) on cores 0..n-1 (n == 0: all cores; n is capped at cores()).
  template <class F>
  void fork(int n, F&& body) {
    const int team = n <= 0 || n > cores_ ? cores_ : n;
    std::function<void(int)> fn = std::ref(body);
    error_.clear();
    if (mode_ == cluster_mode::threads) {
      run_threads(team, fn);
    } else {
      run_deterministic(team, fn);
    }
    if (first_exception_) std::rethrow_exception(std::exchange(first_exception_, nullptr));
  }
  template <class F>
  void fork(F&& body) {
    fork(0, std::forward<F>(body));
  }

  void barrier() {
    if (current() == nullptr) return;  // outside a fork: a team of one
    if (mode_ == cluster_mode::threads) {
      ++barrier_calls_[static_cast<std::size_t>(id_)];
      threads_barrier_->arrive_and_wait();
    } else {
      deterministic_barrier();
    }
  }

  /// This core's id inside a body; 0 outside.
  [[nodiscard]] int core_id() const { return current() != nullptr ? id_ : 0; }
  /// The team size inside a body; the cluster's core count outside.
  [[nodiscard]] int cores() const { return current() != nullptr ? team_ : cores_; }
  [[nodiscard]] cluster_mode mode() const { return mode_; }
  /// Describes barrier mismatches of the last fork; empty when there was none.
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  enum class state : std::uint8_t { ready, at_barrier, done };

  static const host_cluster*& current_slot() {
    thread_local const host_cluster* c = nullptr;
    return c;
  }
  [[nodiscard]] const host_cluster* current() const {
    return current_slot() == this ? this : nullptr;
  }

  void enter(int id) {
    current_slot() = this;
    id_ = id;
  }

  void run_threads(int team, const std::function<void(int)>& fn) {
    team_ = team;
    barrier_calls_.assign(static_cast<std::size_t>(team), 0);
    std::barrier<> bar(team);
    threads_barrier_ = &bar;
    std::mutex err_m;
    std::vector<std::thread> ts;
    ts.reserve(static_cast<std::size_t>(team));
    for (int i = 0; i < team; ++i) {
      ts.emplace_back([&, i] {
        enter(i);
        try {
          fn(i);
        } catch (...) {
          std::lock_guard lock(err_m);
          if (!first_exception_) first_exception_ = std::current_exception();
        }
        bar.arrive_and_drop();
      });
    }
    for (auto& t : ts) t.join();
    threads_barrier_ = nullptr;
    for (int c = 1; c < team; ++c) {
      if (barrier_calls_[static_cast<std::size_t>(c)] != barrier_calls_[0]) {
        error_ += "core " + std::to_string(c) + " reached " +
                  std::to_string(barrier_calls_[static_cast<std::size_t>(c)]) +
                  " barrier(s), core 0 reached " + std::to_string(barrier_calls_[0]) + "\n";
      }
    }
  }

  void run_deterministic(int team, const std::function<void(int)>& fn) {
    team_ = team;
    states_.assign(static_cast<std::size_t>(team), state::ready);
    phase_ = 0;
    turn_ = 0;
    std::vector<std::thread> ts;
    ts.reserve(static_cast<std::size_t>(team));
    for (int i = 0; i < team; ++i) {
      ts.emplace_back([&, i] {
        enter(i);
        {
          std::unique_lock lock(m_);
          cv_.wait(lock, [&] { return turn_ == i; });
        }
        try {
          fn(i);
        } catch (...) {
          std::lock_guard lock(m_);
          if (!first_exception_) first_exception_ = std::current_exception();
        }
        std::lock_guard lock(m_);
        states_[static_cast<std::size_t>(i)] = state::done;
        pass_turn(i);
      });
    }
    for (auto& t : ts) t.join();
  }

  void deterministic_barrier() {
    std::unique_lock lock(m_);
    const int me = id_;
    states_[static_cast<std::size_t>(me)] = state::at_barrier;
    pass_turn(me);
    cv_.wait(lock,
             [&] { return turn_ == me && states_[static_cast<std::size_t>(me)] == state::ready; });
  }

  // With m_ held: hands the turn to the next core that can run in this phase, or starts the
  // next phase when every core waits at the barrier or is done.
  void pass_turn(int from) {
    for (int k = 1; k <= team_; ++k) {
      const int c = (from + k) % team_;
      if (states_[static_cast<std::size_t>(c)] == state::ready) {
        turn_ = c;
        cv_.notify_all();
        return;
      }
    }
    int waiting = 0;
    std::string done;
    for (int c = 0; c < team_; ++c) {
      if (states_[static_cast<std::size_t>(c)] == state::at_barrier) ++waiting;
      if (states_[static_cast<std::size_t>(c)] == state::done) {
        done += ' ';
        done += std::to_string(c);
      }
    }
    if (waiting == 0) {
      turn_ = -1;  // every core returned
      cv_.notify_all();
      return;
    }
    if (!done.empty()) {
      error_ += "barrier " + std::to_string(phase_) + ": core(s)" + done + " returned while " +
                std::to_string(waiting) + " core(s) waited at the barrier\n";
    }
    ++phase_;
    turn_ = -1;
    for (int c = 0; c < team_; ++c) {
      if (states_[static_cast<std::size_t>(c)] == state::at_barrier) {
        states_[static_cast<std::size_t>(c)] = state::ready;
        if (turn_ < 0) turn_ = c;
      }
    }
    cv_.notify_all();
  }

  int cores_;
  cluster_mode mode_;
  int team_ = 1;
  static inline thread_local int id_ = 0;
  std::vector<int> barrier_calls_;
  std::barrier<>* threads_barrier_ = nullptr;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<state> states_;
  int phase_ = 0;
  int turn_ = -1;
  std::string error_;
  std::exception_ptr first_exception_;
};

static_assert(cluster<host_cluster>);

}  // namespace ctile::hal
