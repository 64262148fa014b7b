// cluster on the host: each core is a std::thread, started at the first fork and kept for the
// cluster's lifetime. A fork wakes the threads it needs, one semaphore per core: it starts
// none, and in the deterministic mode only the core whose turn it is is woken.
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
// fork() once every core has stopped. A body may not fork again (std::logic_error).
#pragma once

#include <atomic>
#include <barrier>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <semaphore>
#include <stdexcept>
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
  host_cluster(const host_cluster&) = delete;
  host_cluster& operator=(const host_cluster&) = delete;
  ~host_cluster() {
    stop_ = true;
    for (std::size_t i = 0; i < workers_.size(); ++i) gates_[i].release();
    for (auto& t : workers_) t.join();
  }

  /// Runs body(core_id) on cores 0..n-1 (n == 0: all cores; n is capped at cores()).
  template <class F>
  void fork(int n, F&& body) {
    if (current() != nullptr) throw std::logic_error("host_cluster: fork inside a fork");
    const int team = n <= 0 || n > cores_ ? cores_ : n;
    std::function<void(int)> fn = std::ref(body);
    error_.clear();
    team_ = team;
    job_ = &fn;
    start_workers();
    if (mode_ == cluster_mode::threads) {
      std::barrier<> bar(team);
      threads_barrier_ = &bar;
      barrier_calls_.assign(static_cast<std::size_t>(team), 0);
      pending_ = team;
      for (int i = 0; i < team; ++i) gates_[i].release();
      done_.acquire();
      threads_barrier_ = nullptr;
      check_barrier_calls(team);
    } else {
      states_.assign(static_cast<std::size_t>(team), state::ready);
      phase_ = 0;
      turn_ = 0;
      gates_[0].release();
      done_.acquire();
    }
    job_ = nullptr;
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
      const int me = id_;
      {
        std::lock_guard lock(m_);
        states_[static_cast<std::size_t>(me)] = state::at_barrier;
        pass_turn(me);
      }
      gates_[me].acquire();
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
  struct gate : std::binary_semaphore {
    gate() : std::binary_semaphore(0) {}
  };

  static const host_cluster*& current_slot() {
    thread_local const host_cluster* c = nullptr;
    return c;
  }
  [[nodiscard]] const host_cluster* current() const {
    return current_slot() == this ? this : nullptr;
  }

  void start_workers() {
    if (!workers_.empty()) return;
    gates_ = std::make_unique<gate[]>(static_cast<std::size_t>(cores_));
    workers_.reserve(static_cast<std::size_t>(cores_));
    for (int i = 0; i < cores_; ++i) workers_.emplace_back([this, i] { worker(i); });
  }

  // Core i's thread: waits at its gate, runs its share of the current fork, and reports back.
  void worker(int i) {
    current_slot() = this;
    id_ = i;
    for (;;) {
      gates_[i].acquire();
      if (stop_) return;
      try {
        (*job_)(i);
      } catch (...) {
        std::lock_guard lock(m_);
        if (!first_exception_) first_exception_ = std::current_exception();
      }
      if (mode_ == cluster_mode::threads) {
        threads_barrier_->arrive_and_drop();
        if (pending_.fetch_sub(1) == 1) done_.release();
      } else {
        std::lock_guard lock(m_);
        states_[static_cast<std::size_t>(i)] = state::done;
        pass_turn(i);
      }
    }
  }

  void check_barrier_calls(int team) {
    for (int c = 1; c < team; ++c) {
      if (barrier_calls_[static_cast<std::size_t>(c)] != barrier_calls_[0]) {
        error_ += "core " + std::to_string(c) + " reached " +
                  std::to_string(barrier_calls_[static_cast<std::size_t>(c)]) +
                  " barrier(s), core 0 reached " + std::to_string(barrier_calls_[0]) + "\n";
      }
    }
  }

  // With m_ held: hands the turn to the next core that can run in this phase, or starts the
  // next phase when every core waits at the barrier or is done, or ends the fork when every
  // core returned.
  void pass_turn(int from) {
    for (int k = 1; k <= team_; ++k) {
      const int c = (from + k) % team_;
      if (states_[static_cast<std::size_t>(c)] == state::ready) {
        turn_ = c;
        gates_[c].release();
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
      done_.release();
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
    gates_[turn_].release();
  }

  int cores_;
  cluster_mode mode_;
  int team_ = 1;
  static inline thread_local int id_ = 0;
  std::vector<int> barrier_calls_;
  std::barrier<>* threads_barrier_ = nullptr;
  std::mutex m_;
  std::vector<state> states_;
  int phase_ = 0;
  int turn_ = -1;
  std::string error_;
  std::exception_ptr first_exception_;
  // The cores' threads, the gate each waits at, and the fork they run.
  std::vector<std::thread> workers_;
  std::unique_ptr<gate[]> gates_;
  std::binary_semaphore done_{0};
  std::atomic<int> pending_{0};
  const std::function<void(int)>* job_ = nullptr;
  bool stop_ = false;
};

static_assert(cluster<host_cluster>);

}  // namespace ctile::hal
