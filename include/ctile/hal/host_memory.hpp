// Host simulation of GAP-8's memory levels with a checker. Registered regions (L1, L2, L3)
// receive simulated transfers whose copies complete at wait time or later; the checker reports
// every access that a real, asynchronous DMA would turn into wrong data:
//   - a kernel reads bytes a transfer writes before that transfer was waited for,
//   - a kernel writes bytes a transfer still reads or writes,
//   - a transfer starts into bytes a kernel is using or another transfer uses,
//   - live buffers overlap, a command leaves its level's memory or exceeds the DMA's limits,
//   - more commands are in flight than the DMA has counters, waits without a transfer,
//     transfers never waited for.
// It also counts bytes and commands per path (L3->L2, L2->L1, L1->L2, L2->L3).
// Host-only: uses the heap, strings and a mutex.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "dma_limits.hpp"

namespace ctile::hal {

enum class mem_level : std::uint8_t { l1, l2, l3 };

constexpr const char* mem_level_name(mem_level l) {
  switch (l) {
    case mem_level::l1:
      return "L1";
    case mem_level::l2:
      return "L2";
    case mem_level::l3:
      return "L3";
  }
  return "?";
}

/// The four paths data takes between levels.
enum class traffic_path : std::uint8_t { l3_to_l2, l2_to_l1, l1_to_l2, l2_to_l3 };
inline constexpr std::size_t traffic_paths = 4;

constexpr const char* traffic_path_name(traffic_path p) {
  switch (p) {
    case traffic_path::l3_to_l2:
      return "L3->L2";
    case traffic_path::l2_to_l1:
      return "L2->L1";
    case traffic_path::l1_to_l2:
      return "L1->L2";
    case traffic_path::l2_to_l3:
      return "L2->L3";
  }
  return "?";
}

/// When a simulated transfer's copy happens.
enum class completion : std::uint8_t {
  at_wait,    ///< exactly when it is waited for (default): a missing wait means missing data
  random,     ///< at its wait, or earlier at any later start/wait call, in any order (seeded)
  immediate,  ///< when it starts (a synchronous DMA; the checker still reports missing waits)
};

enum class violation_kind : std::uint8_t {
  read_before_wait,          ///< a kernel read bytes a transfer writes, before waiting for it
  write_before_wait,         ///< a kernel wrote bytes a transfer still reads or writes
  transfer_into_busy,        ///< a transfer started writing bytes in use by a kernel or transfer
  transfer_from_busy,        ///< a transfer started reading bytes a kernel or transfer writes
  overlapping_buffers,       ///< two live buffers overlap
  outside_region,            ///< an access or command outside its level's registered memory
  command_out_of_limits,     ///< a DMA command exceeds the DMA limits or is malformed
  too_many_in_flight,        ///< more DMA commands in flight than the DMA has counters
  bad_wait,                  ///< a wait on a handle that has no transfer in flight
  never_waited,              ///< a transfer still not waited for when the run finished
  buffer_retired_in_flight,  ///< a buffer was released while a transfer still touches it
};
inline constexpr std::size_t violation_kinds = 11;

constexpr const char* violation_kind_name(violation_kind k) {
  switch (k) {
    case violation_kind::read_before_wait:
      return "read before wait";
    case violation_kind::write_before_wait:
      return "write before wait";
    case violation_kind::transfer_into_busy:
      return "transfer into a busy buffer";
    case violation_kind::transfer_from_busy:
      return "transfer from a busy buffer";
    case violation_kind::overlapping_buffers:
      return "overlapping buffers";
    case violation_kind::outside_region:
      return "outside region";
    case violation_kind::command_out_of_limits:
      return "command out of DMA limits";
    case violation_kind::too_many_in_flight:
      return "too many commands in flight";
    case violation_kind::bad_wait:
      return "wait without transfer";
    case violation_kind::never_waited:
      return "transfer never waited for";
    case violation_kind::buffer_retired_in_flight:
      return "buffer released during a transfer";
  }
  return "?";
}

struct violation {
  violation_kind kind;
  std::string text;  ///< which buffer, which transfer, which offsets
};

/// Bytes and commands moved per path, the largest DMA command and the most DMA commands in
/// flight at once.
struct traffic {
  std::array<std::uint64_t, traffic_paths> bytes{};
  std::array<std::uint64_t, traffic_paths> commands{};
  std::uint32_t max_command_bytes = 0;
  std::uint32_t max_in_flight = 0;
  [[nodiscard]] std::uint64_t bytes_on(traffic_path p) const {
    return bytes[static_cast<std::size_t>(p)];
  }
  [[nodiscard]] std::uint64_t commands_on(traffic_path p) const {
    return commands[static_cast<std::size_t>(p)];
  }
};

/// A possibly strided set of bytes: `lines` runs of `line` bytes, `stride` apart.
struct byte_set {
  std::uintptr_t base = 0;
  std::uint32_t lines = 1;
  std::uint32_t line = 0;
  std::uint32_t stride = 0;

  static byte_set contiguous(const void* p, std::size_t n) {
    return {reinterpret_cast<std::uintptr_t>(p), 1, static_cast<std::uint32_t>(n),
            static_cast<std::uint32_t>(n)};
  }
  [[nodiscard]] std::uintptr_t end() const {
    return lines == 0 || line == 0 ? base : base + std::uintptr_t{lines - 1} * stride + line;
  }
  [[nodiscard]] bool empty() const { return lines == 0 || line == 0; }
  /// Lines that touch or overlap each other become one contiguous run.
  [[nodiscard]] byte_set normalized() const {
    if (lines <= 1 || stride <= line) {
      const auto n = static_cast<std::uint32_t>(end() - base);
      return {base, 1, n, n};
    }
    return *this;
  }
};

/// First overlapping run [lo, hi) of two byte sets, if any.
inline std::optional<std::pair<std::uintptr_t, std::uintptr_t>> overlap(const byte_set& x,
                                                                        const byte_set& y) {
  if (x.empty() || y.empty()) return std::nullopt;
  byte_set a = x.normalized();
  byte_set b = y.normalized();
  if (a.end() <= b.base || b.end() <= a.base) return std::nullopt;
  if (a.lines > b.lines) std::swap(a, b);
  for (std::uint32_t i = 0; i < a.lines; ++i) {
    const std::uintptr_t x0 = a.base + std::uintptr_t{i} * a.stride;
    const std::uintptr_t x1 = x0 + a.line;
    // Lines j of b with b.base + j*stride < x1 and b.base + j*stride + line > x0.
    if (x1 <= b.base) continue;
    std::uint64_t j = 0;
    if (x0 >= b.base + b.line) j = (x0 - b.base - b.line) / b.stride + 1;
    if (j >= b.lines) continue;
    const std::uintptr_t y0 = b.base + j * b.stride;
    if (y0 >= x1) continue;
    return std::pair{std::max(x0, y0), std::min(x1, y0 + b.line)};
  }
  return std::nullopt;
}

class sim_memory;

/// A kernel's use of a buffer, held from its creation to its destruction (see
/// sim_memory::use_read / use_write). While held, transfers may not write the bytes (nor read
/// them, for a write use).
class sim_access {
 public:
  sim_access() = default;
  sim_access(const sim_access&) = delete;
  sim_access& operator=(const sim_access&) = delete;
  sim_access(sim_access&& o) noexcept : mem_(std::exchange(o.mem_, nullptr)), id_(o.id_) {}
  sim_access& operator=(sim_access&& o) noexcept {
    if (this != &o) {
      release();
      mem_ = std::exchange(o.mem_, nullptr);
      id_ = o.id_;
    }
    return *this;
  }
  ~sim_access() { release(); }
  inline void release();

 private:
  friend class sim_memory;
  sim_access(sim_memory* m, std::uint32_t id) : mem_(m), id_(id) {}
  sim_memory* mem_ = nullptr;
  std::uint32_t id_ = 0;
};

class sim_memory {
 public:
  struct options {
    completion mode = completion::at_wait;
    std::uint64_t seed = 1;
    /// In random mode: chance that a pending transfer completes at each start/wait call.
    double completion_chance = 0.5;
    /// Print the violation and abort() instead of only recording it.
    bool abort_on_violation = false;
  };

  sim_memory() : sim_memory(options{}) {}
  explicit sim_memory(options o) : opt_(o), rng_(o.seed) {}
  sim_memory(const sim_memory&) = delete;
  sim_memory& operator=(const sim_memory&) = delete;

  /// Registers memory of a level; transfers must stay inside the regions of their levels.
  void add_region(mem_level lvl, void* base, std::size_t bytes, std::string name) {
    std::lock_guard lock(m_);
    regions_.push_back({lvl, reinterpret_cast<std::uintptr_t>(base), bytes, std::move(name)});
  }
  /// Allocates zeroed memory owned by this object (64-byte aligned) and registers it.
  std::span<std::byte> arena(mem_level lvl, std::size_t bytes, std::string name) {
    auto storage = std::make_unique<std::byte[]>(bytes + 64);
    auto addr = reinterpret_cast<std::uintptr_t>(storage.get());
    auto* p = storage.get() + ((64 - addr % 64) % 64);
    std::memset(p, 0, bytes);
    arenas_.push_back(std::move(storage));
    add_region(lvl, p, bytes, std::move(name));
    return {p, bytes};
  }

  /// Declares a live buffer (for names in reports and the overlap check).
  void add_buffer(const void* p, std::size_t bytes, std::string name) {
    std::lock_guard lock(m_);
    const auto b = byte_set::contiguous(p, bytes);
    for (const auto& o : buffers_) {
      if (auto r = overlap(b, o.range)) {
        report(violation_kind::overlapping_buffers,
               "buffer '" + name + "' (" + describe_region(b.base) + ", " + std::to_string(bytes) +
                   " B) overlaps live buffer '" + o.name + "' at " + describe_run(*r));
      }
    }
    buffers_.push_back({b, std::move(name)});
  }
  /// Ends a buffer's life; it must not be touched by a transfer still in flight.
  void remove_buffer(const void* p) {
    std::lock_guard lock(m_);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    auto it = std::find_if(buffers_.begin(), buffers_.end(),
                           [&](const buffer_rec& b) { return b.range.base == a; });
    if (it == buffers_.end()) return;
    for (const auto& t : transfers_) {
      for (const byte_set* s : {&t.src, &t.dst}) {
        if (auto r = overlap(it->range, *s)) {
          report(violation_kind::buffer_retired_in_flight, "buffer '" + it->name +
                                                               "' released while " + t.text +
                                                               " touches " + describe_run(*r));
        }
      }
    }
    buffers_.erase(it);
  }

  /// A kernel is about to read `bytes` at `p`: no unwaited transfer may write them.
  void check_read(const void* p, std::size_t bytes, const char* who = "kernel") {
    std::lock_guard lock(m_);
    check_access(byte_set::contiguous(p, bytes), false, who);
  }
  /// A kernel is about to write `bytes` at `p`: no unwaited transfer may read or write them.
  void check_write(void* p, std::size_t bytes, const char* who = "kernel") {
    std::lock_guard lock(m_);
    check_access(byte_set::contiguous(p, bytes), true, who);
  }
  /// Checks like check_read, then holds the use until the returned object is destroyed.
  [[nodiscard]] sim_access use_read(const void* p, std::size_t bytes, const char* who = "kernel") {
    return use(byte_set::contiguous(p, bytes), false, who);
  }
  [[nodiscard]] sim_access use_write(void* p, std::size_t bytes, const char* who = "kernel") {
    return use(byte_set::contiguous(p, bytes), true, who);
  }

  /// Starts a DMA command (see dma_engine); returns its transfer id (never 0).
  std::uint32_t start_dma(dma_dir d, void* l1, void* l2, std::uint32_t bytes,
                          std::uint32_t line_bytes, std::uint32_t l2_stride,
                          const dma_limits& lim) {
    std::lock_guard lock(m_);
    const bool two_d = line_bytes != 0;
    const std::uint32_t line = two_d ? line_bytes : bytes;
    const std::uint32_t lines = two_d && line_bytes != 0 ? bytes / line_bytes : 1;
    const byte_set l1s{reinterpret_cast<std::uintptr_t>(l1), lines, line, line};
    const byte_set l2s{reinterpret_cast<std::uintptr_t>(l2), lines, line, two_d ? l2_stride : line};
    const auto path = d == dma_dir::l2_to_l1 ? traffic_path::l2_to_l1 : traffic_path::l1_to_l2;
    transfer_rec t{next_id_++, path, d == dma_dir::l2_to_l1 ? l2s : l1s,
                   d == dma_dir::l2_to_l1 ? l1s : l2s};
    t.text = "DMA #" + std::to_string(t.id) + " (" + dma_dir_name(d) + ", " +
             std::to_string(bytes) + " B" +
             (two_d ? ", 2D lines of " + std::to_string(line_bytes) + " B, L2 stride " +
                          std::to_string(l2_stride)
                    : std::string{}) +
             ", from " + describe_region(t.src.base) + " to " + describe_region(t.dst.base) + ")";
    bool ok = check_limits(t, bytes, line_bytes, l2_stride, lim);
    ok = check_inside(l1s, mem_level::l1, t.text) && ok;
    ok = check_inside(l2s, mem_level::l2, t.text) && ok;
    std::uint32_t dma_in_flight = 0;
    for (const auto& o : transfers_)
      if (o.path == traffic_path::l2_to_l1 || o.path == traffic_path::l1_to_l2) ++dma_in_flight;
    if (dma_in_flight + 1 > lim.counters) {
      report(violation_kind::too_many_in_flight, t.text + " starts while " +
                                                     std::to_string(dma_in_flight) +
                                                     " DMA commands are in flight; the DMA has " +
                                                     std::to_string(lim.counters) + " counters");
    }
    stats_.max_in_flight = std::max(stats_.max_in_flight, dma_in_flight + 1);
    stats_.max_command_bytes = std::max(stats_.max_command_bytes, bytes);
    return launch(std::move(t), bytes, ok);
  }

  /// Starts an L3 transfer between an L3 address and L2; returns its transfer id.
  std::uint32_t start_l3(bool to_l3, void* l3, void* l2, std::uint32_t bytes) {
    std::lock_guard lock(m_);
    const auto l3s = byte_set::contiguous(l3, bytes);
    const auto l2s = byte_set::contiguous(l2, bytes);
    transfer_rec t{next_id_++, to_l3 ? traffic_path::l2_to_l3 : traffic_path::l3_to_l2,
                   to_l3 ? l2s : l3s, to_l3 ? l3s : l2s};
    t.text = "L3 transfer #" + std::to_string(t.id) + " (" + traffic_path_name(t.path) + ", " +
             std::to_string(bytes) + " B, from " + describe_region(t.src.base) + " to " +
             describe_region(t.dst.base) + ")";
    bool ok = check_inside(l3s, mem_level::l3, t.text);
    ok = check_inside(l2s, mem_level::l2, t.text) && ok;
    return launch(std::move(t), bytes, ok);
  }

  /// Waits for a transfer: its copy has happened when this returns.
  void wait(std::uint32_t id) {
    std::lock_guard lock(m_);
    auto it = std::find_if(transfers_.begin(), transfers_.end(),
                           [&](const transfer_rec& t) { return t.id == id; });
    if (it == transfers_.end()) {
      report(violation_kind::bad_wait,
             id == 0 ? std::string("wait on a handle that was never started or already waited")
                     : "wait on transfer #" + std::to_string(id) +
                           ", which is not in flight (already waited for?)");
      return;
    }
    complete(*it);
    transfers_.erase(it);
    random_completions();
  }

  /// Completes every transfer still in flight, reporting each as never waited for.
  void finish() {
    std::lock_guard lock(m_);
    for (auto& t : transfers_) {
      report(violation_kind::never_waited, t.text + " was never waited for");
      complete(t);
    }
    transfers_.clear();
  }

  [[nodiscard]] std::size_t in_flight() const {
    std::lock_guard lock(m_);
    return transfers_.size();
  }
  [[nodiscard]] traffic counters() const {
    std::lock_guard lock(m_);
    return stats_;
  }
  void reset_counters() {
    std::lock_guard lock(m_);
    stats_ = {};
  }
  [[nodiscard]] std::vector<violation> violations() const {
    std::lock_guard lock(m_);
    return violations_;
  }
  [[nodiscard]] std::size_t count(violation_kind k) const {
    std::lock_guard lock(m_);
    return static_cast<std::size_t>(std::count_if(violations_.begin(), violations_.end(),
                                                  [&](const violation& v) { return v.kind == k; }));
  }
  void clear_violations() {
    std::lock_guard lock(m_);
    violations_.clear();
  }
  /// Every violation, one per line.
  [[nodiscard]] std::string report_text() const {
    std::lock_guard lock(m_);
    std::string s;
    for (const auto& v : violations_) {
      s += violation_kind_name(v.kind);
      s += ": ";
      s += v.text;
      s += '\n';
    }
    return s;
  }

 private:
  friend class sim_access;
  struct region_rec {
    mem_level level;
    std::uintptr_t base;
    std::size_t bytes;
    std::string name;
  };
  struct buffer_rec {
    byte_set range;
    std::string name;
  };
  struct transfer_rec {
    std::uint32_t id;
    traffic_path path;
    byte_set src;
    byte_set dst;
    std::string text{};
    bool completed = false;
    bool copies = true;  ///< false when the command was rejected (nothing is copied)
  };
  struct use_rec {
    std::uint32_t id;
    bool write;
    byte_set range;
    std::string who;
  };

  std::uint32_t launch(transfer_rec t, std::uint32_t bytes, bool ok) {
    const auto pi = static_cast<std::size_t>(t.path);
    stats_.bytes[pi] += bytes;
    stats_.commands[pi] += 1;
    t.copies = ok;
    check_conflicts(t);
    const std::uint32_t id = t.id;
    transfers_.push_back(std::move(t));
    if (opt_.mode == completion::immediate) complete(transfers_.back());
    random_completions();
    return id;
  }

  bool check_limits(const transfer_rec& t, std::uint32_t bytes, std::uint32_t line_bytes,
                    std::uint32_t stride, const dma_limits& lim) {
    std::string why;
    if (bytes == 0) why = "it moves 0 bytes";
    if (bytes > lim.max_command_bytes)
      why =
          "its length exceeds the safe maximum of " + std::to_string(lim.max_command_bytes) + " B";
    if (bytes > lim.length_field_max)
      why = "its length does not fit the length field (max " +
            std::to_string(lim.length_field_max) + ")";
    if (line_bytes != 0) {
      if (!lim.has_2d) why = "the DMA has no 2D commands";
      if (line_bytes > lim.max_line_bytes)
        why = "its line length exceeds " + std::to_string(lim.max_line_bytes);
      if (stride > lim.max_stride) why = "its stride exceeds " + std::to_string(lim.max_stride);
      if (bytes % line_bytes != 0) why = "its length is not a multiple of its line length";
    }
    if (why.empty()) return true;
    report(violation_kind::command_out_of_limits, t.text + ": " + why);
    return bytes != 0 && (line_bytes == 0 || bytes % line_bytes == 0);
  }

  bool check_inside(const byte_set& s, mem_level lvl, const std::string& what) {
    if (s.empty()) return true;
    for (const auto& r : regions_)
      if (r.level == lvl && s.base >= r.base && s.end() <= r.base + r.bytes) return true;
    report(violation_kind::outside_region,
           what + ": its " + mem_level_name(lvl) + " side [" + hex(s.base) + ", " + hex(s.end()) +
               ") is not inside registered " + mem_level_name(lvl) + " memory");
    return false;
  }

  void check_conflicts(const transfer_rec& t) {
    for (const auto& o : transfers_) {
      if (auto r = overlap(t.dst, o.dst))
        report(violation_kind::transfer_into_busy, t.text + " writes " + describe_run(*r) +
                                                       ", which " + o.text +
                                                       " also writes and was not waited for");
      if (auto r = overlap(t.dst, o.src))
        report(violation_kind::transfer_into_busy, t.text + " writes " + describe_run(*r) +
                                                       ", which " + o.text +
                                                       " still reads (not waited for)");
      if (auto r = overlap(t.src, o.dst))
        report(violation_kind::transfer_from_busy, t.text + " reads " + describe_run(*r) +
                                                       ", which " + o.text +
                                                       " still writes (not waited for)");
    }
    for (const auto& u : uses_) {
      if (auto r = overlap(t.dst, u.range))
        report(violation_kind::transfer_into_busy, t.text + " writes " + describe_run(*r) +
                                                       " while " + u.who + " is still " +
                                                       (u.write ? "writing" : "reading") + " it");
      if (u.write) {
        if (auto r = overlap(t.src, u.range))
          report(
              violation_kind::transfer_from_busy,
              t.text + " reads " + describe_run(*r) + " while " + u.who + " is still writing it");
      }
    }
  }

  void check_access(const byte_set& s, bool write, const char* who) {
    for (const auto& t : transfers_) {
      if (auto r = overlap(s, t.dst))
        report(
            write ? violation_kind::write_before_wait : violation_kind::read_before_wait,
            std::string(who) + (write ? " writes " : " reads ") + describe_run(*r) + ", which " +
                t.text + " writes and was not waited for" +
                (t.completed ? " (its copy happened to be done)" : " (its data has not arrived)"));
      if (write) {
        if (auto r = overlap(s, t.src))
          report(violation_kind::write_before_wait, std::string(who) + " writes " +
                                                        describe_run(*r) + ", which " + t.text +
                                                        " reads and was not waited for");
      }
    }
  }

  sim_access use(const byte_set& s, bool write, const char* who) {
    std::lock_guard lock(m_);
    check_access(s, write, who);
    const std::uint32_t id = next_use_++;
    uses_.push_back({id, write, s, who});
    return sim_access(this, id);
  }
  void release_use(std::uint32_t id) {
    std::lock_guard lock(m_);
    std::erase_if(uses_, [&](const use_rec& u) { return u.id == id; });
  }

  static void copy(const transfer_rec& t) {
    const auto& s = t.src;
    const auto& d = t.dst;
    for (std::uint32_t i = 0; i < s.lines; ++i) {
      std::memmove(reinterpret_cast<void*>(d.base + std::uintptr_t{i} * d.stride),
                   reinterpret_cast<const void*>(s.base + std::uintptr_t{i} * s.stride), s.line);
    }
  }
  void complete(transfer_rec& t) {
    if (t.completed) return;
    t.completed = true;
    if (t.copies) copy(t);
  }
  void random_completions() {
    if (opt_.mode != completion::random) return;
    std::vector<transfer_rec*> pending;
    for (auto& t : transfers_)
      if (!t.completed) pending.push_back(&t);
    std::shuffle(pending.begin(), pending.end(), rng_);
    std::bernoulli_distribution coin(opt_.completion_chance);
    for (auto* t : pending)
      if (coin(rng_)) complete(*t);
  }

  static std::string hex(std::uintptr_t a) {
    char buf[2 + 2 * sizeof(std::uintptr_t) + 1];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
    return buf;
  }
  /// "L1 'in[0]' +12" (buffer), "L1 arena 'L1' +4108" (region), or a raw address.
  [[nodiscard]] std::string describe_region(std::uintptr_t a) const {
    const region_rec* reg = nullptr;
    for (const auto& r : regions_)
      if (a >= r.base && a < r.base + r.bytes) reg = &r;
    const char* lvl = reg != nullptr ? mem_level_name(reg->level) : "unregistered memory";
    for (const auto& b : buffers_) {
      const auto e = b.range.base + b.range.line;
      if (a >= b.range.base && (a < e || (a == e && b.range.line == 0)))
        return std::string(lvl) + " buffer '" + b.name + "' +" + std::to_string(a - b.range.base);
    }
    if (reg != nullptr)
      return std::string(lvl) + " '" + reg->name + "' +" + std::to_string(a - reg->base);
    return std::string(lvl) + " " + hex(a);
  }
  [[nodiscard]] std::string describe_run(std::pair<std::uintptr_t, std::uintptr_t> r) const {
    return "bytes " + describe_region(r.first) + " .. +" + std::to_string(r.second - r.first) +
           " B";
  }

  void report(violation_kind k, std::string text) {
    if (opt_.abort_on_violation) {
      std::fprintf(stderr, "ctile: %s: %s\n", violation_kind_name(k), text.c_str());
      std::abort();
    }
    violations_.push_back({k, std::move(text)});
  }

  options opt_;
  std::mt19937_64 rng_;
  mutable std::mutex m_;
  std::vector<std::unique_ptr<std::byte[]>> arenas_;
  std::vector<region_rec> regions_;
  std::vector<buffer_rec> buffers_;
  std::vector<transfer_rec> transfers_;
  std::vector<use_rec> uses_;
  std::vector<violation> violations_;
  traffic stats_;
  std::uint32_t next_id_ = 1;
  std::uint32_t next_use_ = 1;
};

inline void sim_access::release() {
  if (mem_ != nullptr) std::exchange(mem_, nullptr)->release_use(id_);
}

}  // namespace ctile::hal
