// The host cluster: every core runs once per fork, barriers separate phases, the deterministic
// mode runs cores in a fixed order, and barrier mismatches are described.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <ctile/hal/baremetal.hpp>
#include <ctile/hal/host_cluster.hpp>

using namespace ctile::hal;

namespace {

// Three phases separated by barriers: each core writes its slot, then reads every other
// core's slot from the previous phase. Without working barriers some sums would be wrong.
void three_phase_exchange(host_cluster& c, std::vector<int>& sums) {
  const int n = c.cores();
  std::vector<int> a(static_cast<std::size_t>(n), 0), b(static_cast<std::size_t>(n), 0);
  sums.assign(static_cast<std::size_t>(n), 0);
  c.fork(0, [&](int id) {
    ASSERT_EQ(id, c.core_id());
    a[static_cast<std::size_t>(id)] = id + 1;
    c.barrier();
    int s = 0;
    for (int v : a) s += v;
    b[static_cast<std::size_t>(id)] = s * (id + 1);
    c.barrier();
    int t = 0;
    for (int v : b) t += v;
    sums[static_cast<std::size_t>(id)] = t;
  });
}

}  // namespace

TEST(HostCluster, EveryCoreRunsOnceWithItsId) {
  for (auto mode : {cluster_mode::deterministic, cluster_mode::threads}) {
    host_cluster c(8, mode);
    EXPECT_EQ(c.cores(), 8);
    EXPECT_EQ(c.core_id(), 0);
    std::array<std::atomic<int>, 8> runs{};
    std::atomic<int> team_seen{0};
    c.fork(0, [&](int id) {
      runs[static_cast<std::size_t>(id)]++;
      if (c.cores() == 8) team_seen++;
    });
    for (auto& r : runs) EXPECT_EQ(r.load(), 1);
    EXPECT_EQ(team_seen.load(), 8);
    EXPECT_TRUE(c.error().empty()) << c.error();
  }
}

TEST(HostCluster, SmallerTeam) {
  host_cluster c(8);
  std::vector<int> ids;
  std::mutex m;
  c.fork(3, [&](int id) {
    std::lock_guard lock(m);
    ids.push_back(id * 10 + c.cores());
  });
  EXPECT_EQ(ids, (std::vector<int>{3, 13, 23}));
}

TEST(HostCluster, BarriersSeparatePhases) {
  // sum over cores of a = 36; b[i] = 36 * (i + 1); sum of b = 36 * 36 = 1296.
  for (auto mode : {cluster_mode::deterministic, cluster_mode::threads}) {
    host_cluster c(8, mode);
    for (int rep = 0; rep < 20; ++rep) {
      std::vector<int> sums;
      three_phase_exchange(c, sums);
      for (int s : sums) ASSERT_EQ(s, 1296);
      ASSERT_TRUE(c.error().empty()) << c.error();
    }
  }
}

TEST(HostCluster, DeterministicOrder) {
  host_cluster c(4);
  std::vector<std::pair<int, int>> log;  // (phase, core); one core runs at a time
  c.fork(0, [&](int id) {
    log.emplace_back(0, id);
    c.barrier();
    log.emplace_back(1, id);
    c.barrier();
    log.emplace_back(2, id);
  });
  std::vector<std::pair<int, int>> want;
  for (int p = 0; p < 3; ++p)
    for (int id = 0; id < 4; ++id) want.emplace_back(p, id);
  EXPECT_EQ(log, want);
}

TEST(HostCluster, MissingBarrierShowsInDeterministicMode) {
  // Core 0 reads core 3's result of the same phase without a barrier: in deterministic mode
  // core 3 always runs later, so the value is always missing.
  host_cluster c(4);
  int seen = -1;
  int slot = 0;
  c.fork(0, [&](int id) {
    if (id == 3) slot = 42;
    if (id == 0) seen = slot;
  });
  EXPECT_EQ(seen, 0);
}

TEST(HostCluster, CoreReturningWhileOthersWaitIsReported) {
  for (auto mode : {cluster_mode::deterministic, cluster_mode::threads}) {
    host_cluster c(4, mode);
    c.fork(0, [&](int id) {
      if (id != 2) c.barrier();
    });
    EXPECT_NE(c.error().find("2"), std::string::npos) << c.error();
    EXPECT_FALSE(c.error().empty());
    // The next fork starts clean.
    c.fork(0, [&](int) { c.barrier(); });
    EXPECT_TRUE(c.error().empty()) << c.error();
  }
}

TEST(HostCluster, ExceptionsReachTheCaller) {
  for (auto mode : {cluster_mode::deterministic, cluster_mode::threads}) {
    host_cluster c(4, mode);
    EXPECT_THROW(c.fork(0,
                        [&](int id) {
                          c.barrier();
                          if (id == 1) throw std::runtime_error("core 1 failed");
                          c.barrier();
                        }),
                 std::runtime_error);
  }
}

// Each core keeps its thread from fork to fork (a fork starts no thread): a thread-local count
// of the forks a core ran grows across forks, teams of different sizes included; the cores of
// one fork are distinct threads, none of them the caller's.
TEST(HostCluster, CoresKeepTheirThreadsAcrossForks) {
  for (auto mode : {cluster_mode::deterministic, cluster_mode::threads}) {
    host_cluster c(4, mode);
    std::array<int, 4> ran{}, count{};
    std::array<std::thread::id, 4> ids{};
    for (int team : {4, 2, 4, 1, 4}) {
      c.fork(team, [&](int id) {
        thread_local int forks_on_this_thread = 0;
        const auto k = static_cast<std::size_t>(id);
        count[k] = ++forks_on_this_thread;
        ids[k] = std::this_thread::get_id();
        c.barrier();
      });
      for (std::size_t k = 0; k < 4; ++k) {
        if (static_cast<int>(k) < team) ++ran[k];
        EXPECT_EQ(count[k], ran[k]) << "core " << k << " after a fork of " << team;
      }
    }
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_NE(ids[i], std::this_thread::get_id());
      for (std::size_t j = i + 1; j < 4; ++j) EXPECT_NE(ids[i], ids[j]);
    }
  }
}

TEST(HostCluster, AForkInsideAForkIsRefused) {
  host_cluster c(2);
  EXPECT_THROW(c.fork(0,
                      [&](int id) {
                        if (id == 0) c.fork(0, [](int) {});
                      }),
               std::logic_error);
  // The cluster still works after the refusal.
  std::atomic<int> runs{0};
  c.fork(0, [&](int) { ++runs; });
  EXPECT_EQ(runs.load(), 2);
}

TEST(BaremetalCluster, OneCoreRunsTheBody) {
  baremetal_cluster c;
  int runs = 0;
  c.fork(8, [&](int id) {
    EXPECT_EQ(id, 0);
    EXPECT_EQ(c.cores(), 1);
    c.barrier();
    ++runs;
  });
  EXPECT_EQ(runs, 1);
}

static_assert(cluster<host_cluster>);
static_assert(cluster<baremetal_cluster>);
