// The importer library: golden-file parsing and comparison, options, errors, and the layers it
// builds from DORY's example graphs (checked against the graphs' own structure, as printed by
// onnx's tools, not against the importer's output).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ctile/onnx/dory_text.hpp"
#include "ctile/onnx/header.hpp"
#include "ctile/onnx/import.hpp"
#include "ctile/onnx/verify.hpp"

namespace {

using namespace ctile::onnx;
namespace fs = std::filesystem;

const std::string dory = std::string(CTILE_SHARED_DIR) + "/dory_examples";

std::string temp_file(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("ctile_onnx_test_" + name);
  std::ofstream(p) << text;
  return p.string();
}

TEST(DoryText, ReadsIntegersAndFloatFormattedValues) {
  const auto f =
      read_dory_file(temp_file("a.txt", "# x (shape [1, 2]),\\\n3.000,\\\n-7,\\\n  12,\n"));
  EXPECT_EQ(f.header, "# x (shape [1, 2]),\\");
  EXPECT_EQ(f.values, (std::vector<std::int64_t>{3, -7, 12}));
}

TEST(DoryText, RefusesNonIntegersAndGarbage) {
  EXPECT_THROW(read_dory_file(temp_file("b.txt", "h,\n1.5,\n")), std::runtime_error);
  EXPECT_THROW(read_dory_file(temp_file("c.txt", "h,\n1,\nabc,\n")), std::runtime_error);
  EXPECT_THROW(read_dory_file("/nonexistent/ctile/file.txt"), std::runtime_error);
}

TEST(DoryText, WriteThenReadRoundTrips) {
  const std::string p = (fs::temp_directory_path() / "ctile_onnx_test_rt.txt").string();
  const std::vector<std::int32_t> v = {0, 255, -40000, 7};
  write_dory_file(p, "# layer (shape [4])", v);
  const auto f = read_dory_file(p);
  EXPECT_EQ(f.values, (std::vector<std::int64_t>{0, 255, -40000, 7}));
}

TEST(Compare, FindsTheLayoutAndCountsMismatches) {
  // 1x2x3 HWC: (x, c) -> 10 * x + c
  const ctile::shape s{1, 2, 3};
  const std::vector<std::int32_t> got = {0, 1, 2, 10, 11, 12};
  auto r = compare(s, got, {0, 1, 2, 10, 11, 12});
  EXPECT_TRUE(r.exact());
  EXPECT_EQ(r.layout, "HWC");
  r = compare(s, got, {0, 10, 1, 11, 2, 12});  // the same values, channel-first
  EXPECT_TRUE(r.exact());
  EXPECT_EQ(r.layout, "CHW");
  r = compare(s, got, {0, 1, 2, 10, 11, 15});
  EXPECT_FALSE(r.exact());
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_EQ(r.max_diff, 3);
  r = compare(s, got, {0, 1, 2});
  EXPECT_FALSE(r.exact());
  EXPECT_NE(r.note.find("element count"), std::string::npos);
}

TEST(Options, ByteCountsAndPlatformLimits) {
  EXPECT_EQ(parse_bytes("64000"), 64000);
  EXPECT_EQ(parse_bytes("64k"), 65536);
  EXPECT_EQ(parse_bytes("1MiB"), 1 << 20);
  EXPECT_FALSE(parse_bytes("abc"));
  EXPECT_FALSE(parse_bytes("12q"));
  EXPECT_TRUE(validate({"gap8", 64000, 400000}).empty());
  EXPECT_FALSE(validate({"gap8", 100000, 0}).empty());  // over GAP-8's L1
  EXPECT_FALSE(validate({"nope", 0, 0}).empty());
  EXPECT_FALSE(validate({"host", 2000, 1000}).empty());  // L1 > L2
  // The L1 left for tiles: GAP-8's stacks are 3,500 B + 7 x 1,472 B (ctile's code, measured
  // by bench/stack), DORY's 3,500 B + 7 x 3,400 B.
  EXPECT_EQ(platform_of({"gap8", 0, 0, 8192}).l1_bytes, 8192 + 3500 + 7 * 1472);
  EXPECT_EQ(platform_of({"gap8_dory", 0, 0, 8192}).l1_bytes, 8192 + 3500 + 7 * 3400);
  EXPECT_EQ(platform_of({"gap8_dory", 0, 0, 0}).l1_budget(), 36700);
  EXPECT_TRUE(validate({"gap8_dory", 64000, 400000}).empty());
  EXPECT_FALSE(validate({"gap8_dory", 0, 0, 40000}).empty());  // 40000 + stacks > 64 KiB
  EXPECT_EQ(platform_of({"gap8", 0, 0, 8192}).l1_budget(), 8192);
  EXPECT_EQ(platform_of({"gap8", 16384, 0, 0, 1024, 512}).l1_budget(), 16384 - 1024 - 7 * 512);
  EXPECT_FALSE(validate({"gap8", 12288, 0}).empty());  // no room beside the stacks
  EXPECT_TRUE(validate({"gap8", 16384, 0, 0, 1024, 512}).empty());
  EXPECT_FALSE(validate({"gap8", 64000, 0, 8192}).empty());  // --l1 and --l1-tiles
  EXPECT_FALSE(validate({"gap8", 0, 0, 52000}).empty());     // 52000 + stacks > 64 KiB
  EXPECT_TRUE(validate({"gap8", 0, 0, 50196}).empty());
}

TEST(Align, GoldenFilesByOrderSizeAndValues) {
  const auto all = [](std::size_t, std::size_t) { return true; };
  // Direct numbering.
  EXPECT_EQ(align_golden({10, 20, 30}, {0, 1, 2}, {10, 20, 30}, {0, 1, 2}, all),
            (std::vector<int>{0, 1, 2}));
  // A file of another size between layers 0 and 1 (the numbering skips one).
  EXPECT_EQ(align_golden({10, 20, 30}, {0, 1, 2}, {10, 7, 20, 30}, {0, 1, 2, 3}, all),
            (std::vector<int>{0, 2, 3}));
  // A repeated file of the same size: the one whose values match wins, then the number.
  const auto second = [](std::size_t i, std::size_t j) { return i != 1 || j == 2; };
  EXPECT_EQ(align_golden({10, 20, 20}, {0, 1, 2}, {10, 20, 20, 20}, {0, 1, 2, 3}, second),
            (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(align_golden({10, 20, 20}, {0, 1, 2}, {10, 20, 20, 20}, {0, 1, 2, 3}, all),
            (std::vector<int>{0, 1, 2}));
  // A layer whose size no file has stays unmatched.
  EXPECT_EQ(align_golden({10, 99, 30}, {0, 1, 2}, {10, 20, 30}, {0, 1, 2}, all),
            (std::vector<int>{0, -1, 2}));
}

TEST(Config, ExportInputRange) {
  const std::string d = ::testing::TempDir();
  const std::string p = d + "/config_test.json";
  {
    std::ofstream f(p);
    f << "{\n  \"n_inputs\": 9,\n  \"input_bits\": 2,\n  \"input_signed\": true\n}\n";
  }
  const auto r = read_export_config(p);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, -2);
  EXPECT_EQ(r->hi, 1);
  {
    std::ofstream f(p);
    f << "{\"input_bits\": 4, \"input_signed\": false}";
  }
  EXPECT_EQ(read_export_config(p)->hi, 15);
  {
    std::ofstream f(p);
    f << "{\"input_bits\": 12}";
  }
  EXPECT_THROW(read_export_config(p), std::runtime_error);
  {
    std::ofstream f(p);
    f << "{\"code reserved space\": 310000}";
  }
  EXPECT_FALSE(read_export_config(p));
  std::remove(p.c_str());
}

TEST(Import, RefusesGarbageWithAnImportError) {
  EXPECT_THROW(import_onnx_bytes("not a model at all"), import_error);
  EXPECT_THROW(import_onnx("/nonexistent/model.onnx"), import_error);
  try {
    import_onnx_bytes(std::string(100, '\xff'));
    FAIL() << "garbage imported";
  } catch (const import_error& e) {
    EXPECT_NE(std::string(e.what()).find(e.reason()), std::string::npos);
  }
}

TEST(Import, DscnnStructure) {
  const auto net = import_onnx(dory + "/dscnn_test/model_int.onnx");
  // Conv + 4 x (depthwise, pointwise) + AveragePool + Gemm, after the input.
  ASSERT_EQ(net.layers.size(), 12u);
  EXPECT_EQ(net.layers[1].kind, ctile::op::conv);
  // Two Pad nodes (5, 1) fold into the 10x4 stride-2 conv: 49x10 -> 25x5.
  EXPECT_EQ(net.layers[1].pad, (ctile::padding{5, 5, 1, 1}));
  EXPECT_EQ(net.layers[1].out, (ctile::shape{25, 5, 64}));
  EXPECT_TRUE(net.layers[1].bias && net.layers[1].batchnorm);
  for (int i = 2; i <= 9; ++i)
    EXPECT_EQ(net.layers[static_cast<std::size_t>(i)].kind,
              i % 2 == 0 ? ctile::op::depthwise : ctile::op::conv);
  // The divisor 2^21 - 1 stays exact (not a shift).
  EXPECT_EQ(net.layers[2].quant.m * 2097151, 54 * net.layers[2].quant.d);
  EXPECT_EQ(net.layers[10].kind, ctile::op::avgpool);
  EXPECT_EQ(net.layers[10].quant.m * 4096, 33 * net.layers[10].quant.d);
  EXPECT_EQ(net.layers[11].kind, ctile::op::linear);
  EXPECT_FALSE(net.layers[11].requantize);  // int32 logits
  ASSERT_EQ(net.outputs.size(), 1u);
  ASSERT_EQ(net.outputs[0].steps.size(), 1u);
  EXPECT_EQ(net.outputs[0].steps[0].kind, epilogue_kind::log_softmax);
  for (int k = 0; k <= 10; ++k) EXPECT_EQ(net.layer_of_golden(k), k + 1);
}

TEST(Import, DronetResidualEdges) {
  const auto net = import_onnx(dory + "/dronet_complete/model_int.onnx");
  ASSERT_EQ(net.layers.size(), 16u);
  // Layer 5 (1x1 stride-2 shortcut) reads the MaxPool output (layer 2), as does layer 3.
  EXPECT_EQ(net.layers[3].src[0], 2);
  EXPECT_EQ(net.layers[5].src[0], 2);
  EXPECT_EQ(net.layers[5].kernel, (ctile::extent2{1, 1}));
  EXPECT_EQ(net.layers[6].kind, ctile::op::add);
  EXPECT_EQ(net.layers[6].src[0], 4);
  EXPECT_EQ(net.layers[6].src[1], 5);
  EXPECT_EQ(net.layers[6].in_scale[0].mul, 32);
  EXPECT_EQ(net.layers[6].quant.d, 32);
  // The MatMul over 7x7x128 takes HWC-ordered weights.
  EXPECT_EQ(net.layers[15].kind, ctile::op::linear);
  EXPECT_EQ(net.data[15].weights.size(), 2u * 6272u);
  ASSERT_EQ(net.outputs.size(), 2u);
  ASSERT_EQ(net.outputs[1].steps.size(), 2u);
  EXPECT_EQ(net.outputs[1].steps[0].kind, epilogue_kind::gather);
  EXPECT_EQ(net.outputs[1].steps[0].index, 1);
  EXPECT_EQ(net.outputs[1].steps[1].kind, epilogue_kind::sigmoid);
}

TEST(Import, DropEpilogueIsReported) {
  import_options o;
  o.keep_epilogue = false;
  const auto net = import_onnx(dory + "/Residual_connection_test_1/model_int.onnx", o);
  ASSERT_EQ(net.outputs.size(), 1u);
  EXPECT_TRUE(net.outputs[0].steps.empty());
  bool reported = false;
  for (const auto& n : net.notes)
    if (n.find("Sigmoid") != std::string::npos && n.find("dropped") != std::string::npos)
      reported = true;
  EXPECT_TRUE(reported);
}

TEST(Epilogue, GatherSigmoidSoftmax) {
  graph_output o;
  o.steps = {{epilogue_kind::gather, "g", 1}, {epilogue_kind::sigmoid, "s", 0}};
  const std::vector<std::int32_t> v = {5, 0, -3};
  const auto r = apply_epilogue(o, v);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_DOUBLE_EQ(r[0], 0.5);
  graph_output sm;
  sm.steps = {{epilogue_kind::log_softmax, "l", 0}};
  const auto l = apply_epilogue(sm, v);
  double sum = 0;
  for (double x : l) sum += std::exp(x);
  EXPECT_NEAR(sum, 1.0, 1e-12);
}

TEST(Header, RefusesBadNames) {
  const auto net = import_onnx(dory + "/dscnn_test/model_int.onnx");
  header_options h;
  h.name = "9lives";
  EXPECT_THROW(generate_header(net, h), std::invalid_argument);
  h.name = "net";
  h.ns = "a b";
  EXPECT_THROW(generate_header(net, h), std::invalid_argument);
  h.ns = "";
  h.l3 = true;
  const std::string text = generate_header(net, h);
  EXPECT_NE(text.find("CTILE_L3_WEIGHTS inline constexpr std::int8_t net_1_weights"),
            std::string::npos);
  EXPECT_NE(text.find("net_weights_in_l3 = true"), std::string::npos);
}

// The test-data header: DORY's files as arrays, checked against the files as read here.
TEST(TestData, EmbedsTheInputAndTheGoldenFilesInTheirOrder) {
  const std::string dir = dory + "/dscnn_test";
  const auto net = import_onnx(dir + "/model_int.onnx");
  header_options h;
  h.name = "ds";
  const std::string text = generate_test_data(net, h, dir);
  const auto in = read_dory_file(dir + "/input.txt");
  std::string first =
      "inline constexpr std::uint8_t ds_input[" + std::to_string(in.values.size()) + "] = {\n    ";
  for (std::size_t i = 0; i < 5; ++i) first += std::to_string(in.values[i]) + ",";
  EXPECT_NE(text.find(first), std::string::npos);
  int listed = 0;
  for (std::size_t i = 0; i < net.golden.size(); ++i) {
    const int k = net.golden[i];
    if (k < 0) continue;
    const auto g = read_dory_file(dir + "/out_layer" + std::to_string(k) + ".txt");
    const std::string entry = "{" + std::to_string(i) + ", " + std::to_string(k) + ", ";
    const std::size_t at = text.find(entry);
    ASSERT_NE(at, std::string::npos) << "layer " << i;
    EXPECT_EQ(text.substr(text.find('}', at) - std::to_string(g.values.size()).size(),
                          std::to_string(g.values.size()).size()),
              std::to_string(g.values.size()));
    ++listed;
  }
  EXPECT_GT(listed, 0);
  EXPECT_NE(text.find("ds_golden_count = " + std::to_string(listed) + ";"), std::string::npos);
}

TEST(TestData, RefusesABadInputWithTheFileNamed) {
  const auto net = import_onnx(dory + "/dscnn_test/model_int.onnx");
  header_options h;
  h.name = "ds";
  const fs::path d = fs::temp_directory_path() / "ctile_onnx_test_data";
  fs::create_directories(d);
  fs::remove(d / "input.txt");
  try {
    generate_test_data(net, h, d.string());
    ADD_FAILURE() << "a folder without input.txt was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("input.txt: no such file"), std::string::npos);
  }
  std::ofstream(d / "input.txt") << "input (shape [1]),\\\n1,\\\n2,\\\n";
  try {
    generate_test_data(net, h, d.string());
    ADD_FAILURE() << "an input of 2 values was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("2 values, but the network's input has"),
              std::string::npos);
  }
  const auto n = net.layers.front().out.elements();
  {
    std::ofstream f(d / "input.txt");
    f << "input,\\\n";
    for (std::int64_t i = 0; i < n; ++i) f << (i == 7 ? 300 : 1) << ",\\\n";
  }
  try {
    generate_test_data(net, h, d.string());
    ADD_FAILURE() << "an input value of 300 was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("value 7 is 300, outside 0..255"), std::string::npos);
  }
  // With a usable input and no golden file, every golden layer is named as absent.
  {
    std::ofstream f(d / "input.txt");
    f << "input,\\\n";
    for (std::int64_t i = 0; i < n; ++i) f << 1 << ",\\\n";
  }
  const std::string text = generate_test_data(net, h, d.string());
  EXPECT_NE(text.find("// Not in the folder: out_layer0.txt"), std::string::npos);
  EXPECT_NE(text.find("ds_golden_count = 0;"), std::string::npos);
  fs::remove_all(d);
}

}  // namespace
