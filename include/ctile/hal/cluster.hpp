// The compute cluster as a concept: fork a team of cores, synchronise them, ask who is who.
#pragma once

#include <concepts>

namespace ctile::hal {

namespace detail {
/// A body type used only to state the concept: any callable taking the core id works.
struct cluster_body_archetype {
  void operator()(int) const {}
};
}  // namespace detail

/// A cluster `C` runs one body on a team of cores:
///
///   c.fork(n, body);   // runs body(core_id) on cores 0..n-1 and returns when all returned;
///                      // n == 0 means every core of the cluster
///   c.barrier();       // inside a body: waits until every core of the team reached it
///   c.core_id();       // inside a body: this core's id in 0..cores()-1
///   c.cores();         // inside a body: the team size; outside: the cluster's core count
///
/// Every core of a team must call barrier() the same number of times.
template <class C>
concept cluster = requires(C& c, const detail::cluster_body_archetype& body, int n) {
  { c.fork(n, body) } -> std::same_as<void>;
  { c.barrier() } -> std::same_as<void>;
  { c.core_id() } -> std::convertible_to<int>;
  { c.cores() } -> std::convertible_to<int>;
};

}  // namespace ctile::hal
