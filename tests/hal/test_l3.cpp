// L3 memories: the host array (asynchronous, checked, counted) and the bare-metal array.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <ctile/hal/baremetal.hpp>
#include <ctile/hal/host.hpp>

using namespace ctile::hal;

TEST(HostL3, ReadAndWriteArriveAtWait) {
  sim_memory mem;
  host_l3 l3(mem, 1 << 20);
  auto l2 = mem.arena(mem_level::l2, 4096, "L2");
  for (std::size_t i = 0; i < 3000; ++i) l3.data()[100000 + i] = static_cast<std::byte>(i % 251);
  host_l3::read_handle r;
  l3.read(l2.data(), 100000, 3000, r);
  EXPECT_EQ(l2[5], std::byte{0});  // not yet
  l3.wait(r);
  for (std::size_t i = 0; i < 3000; ++i) ASSERT_EQ(l2[i], static_cast<std::byte>(i % 251));
  host_l3::write_handle w;
  l3.write(500000, l2.data() + 1000, 2000, w);
  EXPECT_EQ(l3.data()[500000], std::byte{0});
  l3.wait(w);
  for (std::size_t i = 0; i < 2000; ++i)
    ASSERT_EQ(l3.data()[500000 + i], static_cast<std::byte>((i + 1000) % 251));
  const auto c = mem.counters();
  EXPECT_EQ(c.bytes_on(traffic_path::l3_to_l2), 3000u);
  EXPECT_EQ(c.bytes_on(traffic_path::l2_to_l3), 2000u);
  EXPECT_EQ(c.commands_on(traffic_path::l3_to_l2), 1u);
  EXPECT_EQ(c.bytes_on(traffic_path::l2_to_l1), 0u);
  EXPECT_TRUE(mem.violations().empty()) << mem.report_text();
}

TEST(HostL3, MisuseIsReported) {
  sim_memory mem;
  host_l3 l3(mem, 4096);
  auto l2 = mem.arena(mem_level::l2, 4096, "L2");
  mem.add_buffer(l2.data(), 1024, "w_next");
  host_l3::read_handle r;
  l3.read(l2.data(), 0, 1024, r);
  mem.check_read(l2.data() + 10, 1, "conv3");  // weights prefetch not waited for
  EXPECT_EQ(mem.count(violation_kind::read_before_wait), 1u) << mem.report_text();
  EXPECT_NE(mem.report_text().find("L3->L2"), std::string::npos);
  EXPECT_NE(mem.report_text().find("'w_next'"), std::string::npos);
  l3.wait(r);
  l3.read(l2.data(), 4000, 200, r);  // past the end of L3
  EXPECT_EQ(mem.count(violation_kind::outside_region), 1u) << mem.report_text();
  l3.wait(r);
  host_l3::write_handle w;
  l3.write(0, l2.data(), 64, w);
  mem.check_write(l2.data(), 8, "relu");  // overwrites what is still being written out
  EXPECT_EQ(mem.count(violation_kind::write_before_wait), 1u) << mem.report_text();
  l3.wait(w);
  l3.wait(w);
  EXPECT_EQ(mem.count(violation_kind::bad_wait), 1u) << mem.report_text();
}

TEST(BaremetalL3, RoundTrip) {
  std::vector<std::uint8_t> ram(10000), l2(512);
  for (std::size_t i = 0; i < ram.size(); ++i) ram[i] = static_cast<std::uint8_t>(i * 31);
  baremetal_l3 l3(ram.data(), static_cast<std::uint32_t>(ram.size()));
  baremetal_l3::read_handle r;
  l3.read(l2.data(), 777, 300, r);
  l3.wait(r);
  for (std::size_t i = 0; i < 300; ++i) ASSERT_EQ(l2[i], static_cast<std::uint8_t>((777 + i) * 31));
  baremetal_l3::write_handle w;
  l3.write(9000, l2.data(), 300, w);
  l3.wait(w);
  EXPECT_EQ(std::memcmp(ram.data() + 9000, ram.data() + 777, 300), 0);
}

static_assert(l3_memory<host_l3>);
static_assert(l3_memory<baremetal_l3>);
