// ONNX -> ctile layers. See import.hpp for what is recognized.
#include "ctile/onnx/import.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "ctile/network/infer.hpp"

namespace ctile::onnx {

namespace {

std::string compose(const std::string& node, const std::string& op, const std::string& reason) {
  std::string s = (!node.empty() && (node[0] == '#' || node[0] == '\'')) ? "node " + node : node;
  if (!op.empty()) s += " (" + op + ")";
  return s + ": " + reason;
}

}  // namespace

import_error::import_error(std::string node, std::string op, std::string reason)
    : std::runtime_error(compose(node, op, reason)),
      node_(std::move(node)),
      op_(std::move(op)),
      reason_(std::move(reason)) {}

const char* epilogue_name(epilogue_kind k) {
  switch (k) {
    case epilogue_kind::gather:
      return "Gather";
    case epilogue_kind::sigmoid:
      return "Sigmoid";
    case epilogue_kind::softmax:
      return "Softmax";
    case epilogue_kind::log_softmax:
      return "LogSoftmax";
  }
  return "?";
}

std::vector<layer_params> imported_network::params() const {
  std::vector<layer_params> ps(data.size());
  for (std::size_t i = 0; i < data.size(); ++i) {
    ps[i].weights = data[i].weights;
    ps[i].bias = data[i].bias;
    ps[i].kappa = data[i].kappa;
    ps[i].lambda = data[i].lambda;
  }
  return ps;
}

int imported_network::layer_of_golden(int k) const {
  for (std::size_t i = 0; i < golden.size(); ++i)
    if (golden[i] == k) return static_cast<int>(i);
  return -1;
}

int imported_network::golden_count() const {
  int n = 0;
  for (int g : golden) n += g >= 0 ? 1 : 0;
  return n;
}

std::vector<double> apply_epilogue(const graph_output& out, std::span<const std::int32_t> values) {
  std::vector<double> v(values.begin(), values.end());
  for (const auto& s : out.steps) {
    switch (s.kind) {
      case epilogue_kind::gather: {
        const auto i = static_cast<std::size_t>(s.index);
        v = i < v.size() ? std::vector<double>{v[i]} : std::vector<double>{};
        break;
      }
      case epilogue_kind::sigmoid:
        for (auto& x : v) x = 1.0 / (1.0 + std::exp(-x));
        break;
      case epilogue_kind::softmax:
      case epilogue_kind::log_softmax: {
        if (v.empty()) break;
        const double mx = *std::max_element(v.begin(), v.end());
        double sum = 0;
        for (double x : v) sum += std::exp(x - mx);
        for (auto& x : v)
          x = s.kind == epilogue_kind::softmax ? std::exp(x - mx) / sum : x - mx - std::log(sum);
        break;
      }
    }
  }
  return v;
}

namespace {

using i64 = std::int64_t;

constexpr i64 max_elements = i64{1} << 24;  // refuse tensors larger than this (16 M values)
constexpr i64 max_dim = 1 << 20;

// ---- Constants -------------------------------------------------------------------------

struct constant {
  std::vector<i64> dims;
  std::vector<double> v;
  [[nodiscard]] i64 size() const { return static_cast<i64>(v.size()); }
};

// ---- Exact integer arithmetic ----------------------------------------------------------

struct overflow {};

i64 mul(i64 a, i64 b) {
  i64 r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw overflow{};
  return r;
}
i64 add64(i64 a, i64 b) {
  i64 r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw overflow{};
  return r;
}
i64 gcd(i64 a, i64 b) {
  return std::gcd(a < 0 ? -a : a, b < 0 ? -b : b);
}

/// A constant as p / 2^k (k <= 32); nullopt if it is not such a number.
std::optional<std::pair<i64, int>> dyadic(double c) {
  if (!std::isfinite(c)) return std::nullopt;
  for (int k = 0; k <= 32; ++k) {
    const double s = std::ldexp(c, k);
    if (std::fabs(s) >= 9.0e15) return std::nullopt;
    if (s == std::floor(s)) {
      // A fraction only when its numerator is small (0.5, 2^-7): a float such as 0.3f is
      // also p / 2^k, but with a huge p, and is not an intended exact constant.
      if (k > 0 && std::fabs(s) > 65536.0) return std::nullopt;
      return std::pair{static_cast<i64>(s), k};
    }
  }
  return std::nullopt;
}

bool integral(double c) {
  return std::isfinite(c) && c == std::floor(c) && std::fabs(c) < 9.0e15;
}

/// A value for a message: integers without a fraction.
std::string number(double c) {
  return integral(c) ? std::to_string(static_cast<long long>(c)) : std::to_string(c);
}

/// ctile's shape-inference verdict on an imported layer, as a sentence with the numbers.
std::string problem_text(const diagnostic& d, const layer& l) {
  const std::string geometry =
      "kernel " + std::to_string(l.kernel.h) + "x" + std::to_string(l.kernel.w) + ", stride " +
      std::to_string(l.stride.h) + "x" + std::to_string(l.stride.w) + ", padding t" +
      std::to_string(l.pad.t) + " b" + std::to_string(l.pad.b) + " l" + std::to_string(l.pad.l) +
      " r" + std::to_string(l.pad.r);
  switch (d.what) {
    case problem::padding_not_smaller_than_kernel:
      return "padding not smaller than the kernel is not supported by this ctile (" + geometry +
             ")";
    case problem::bad_dilation:
      return "a dilation below 1, or a dilation on a pooling (dilation " +
             std::to_string(l.dilation.h) + "x" + std::to_string(l.dilation.w) + ")";
    case problem::window_too_large:
      return "the window is larger than the padded input (" + geometry + ")";
    case problem::bad_geometry:
      return "bad window geometry (" + geometry + ")";
    case problem::input_channels:
      return "the input channels do not match the weights";
    case problem::add_shapes_differ:
      return "the two inputs of the Add have different shapes";
    case problem::bad_channel_count:
      return "bad channel count";
    case problem::int32_output_consumed:
      return "an unrequantized (int32) output feeds another layer";
    case problem::bad_requant:
      return "bad requantization constants";
    case problem::bad_rescale:
      return "bad residual rescale constants";
    default:
      return "problem " + std::to_string(static_cast<int>(d.what));
  }
}

// ---- The value a tensor holds during the walk ------------------------------------------

/// floor((M[c] * x + A[c]) / D): a rational affine map of integers, per channel (vectors of
/// size 1 are uniform).
struct affine {
  std::vector<i64> M{1}, A{0};
  i64 D = 1;

  [[nodiscard]] bool identity() const {
    return D == 1 && std::all_of(M.begin(), M.end(), [](i64 x) { return x == 1; }) &&
           std::all_of(A.begin(), A.end(), [](i64 x) { return x == 0; });
  }
  void expand(std::size_t n) {
    if (M.size() == 1 && n > 1) M.assign(n, M[0]);
    if (A.size() == 1 && n > 1) A.assign(n, A[0]);
  }
  void reduce() {
    i64 g = D;
    for (i64 x : M) g = gcd(g, x);
    for (i64 x : A) g = gcd(g, x);
    if (g > 1) {
      for (auto& x : M) x /= g;
      for (auto& x : A) x /= g;
      D /= g;
    }
  }
  void scale_all(i64 s) {
    for (auto& x : M) x = mul(x, s);
    for (auto& x : A) x = mul(x, s);
    D = mul(D, s);
  }
};

/// A layer's output under construction: stage 1 maps the accumulator to an integer (after a
/// rounding), stage 2 (scalars) continues from it; stage 2 folds into stage 1 whenever that is
/// exact (floor(floor(n / a) + b) / c) = floor((n + a b) / (a c))).
struct chain {
  affine s1;
  bool rounded1 = false;
  bool truncated1 = false;  ///< stage 1 rounded by truncation (integer Div, Cast)
  affine s2;
  bool integer_type = false;  ///< the ONNX tensor holds integers (after a Cast to an int type)
  int lo = std::numeric_limits<int>::min();
  int hi = std::numeric_limits<int>::max();
  bool clipped = false;
};

enum class form : std::uint8_t { plain, chain, padded, flat, scaled, epilogue };

struct value {
  form f = form::plain;
  int layer = -1;          ///< the ctile layer this derives from
  std::vector<i64> dims;   ///< ONNX dims (NCHW, NCL or NK)
  chain ch;                ///< form::chain
  padding pad;             ///< form::padded
  rescale rs;              ///< form::scaled
  int pending_shift = -1;  ///< form::scaled: a Div by 2^k waiting for its Floor
  bool rs_clip = false;
  std::vector<epilogue_step> steps;  ///< form::epilogue
};

struct layer_build {
  bool closed = false;
  std::string closed_at;
};

std::string label(const ::onnx::NodeProto& n, int index) {
  std::string s;
  if (!n.name().empty()) {
    s.append("'").append(n.name()).append("'");
    return s;
  }
  s.append("#").append(std::to_string(index));
  if (n.output_size() > 0) s.append(" (output '").append(n.output(0)).append("')");
  return s;
}

class importer {
 public:
  importer(const ::onnx::ModelProto& m, const import_options& o) : model_(m), opt_(o) {}

  imported_network run();

 private:
  const ::onnx::ModelProto& model_;
  import_options opt_;
  imported_network net_;
  std::vector<layer_build> build_;
  std::vector<std::vector<i64>> dims_;  ///< ONNX dims of each layer's output, as tracked
  std::unordered_map<std::string, constant> consts_;
  std::unordered_map<std::string, value> acts_;
  std::unordered_map<std::string, int> consumers_;
  std::unordered_map<std::string, std::vector<int>> consumer_nodes_;
  std::vector<std::string> graph_outputs_;
  /// Tensors that are constants wherever they appear in the graph: initializers, Constant
  /// outputs, and outputs of nodes whose inputs are all such (or of Shape).
  std::unordered_set<std::string> static_const_;
  int anchors_ = 0;

  // Current node, for errors.
  const ::onnx::NodeProto* node_ = nullptr;
  int node_index_ = -1;

  [[noreturn]] void fail(const std::string& reason) const {
    if (node_ == nullptr) throw import_error("(graph)", "", reason);
    throw import_error(label(*node_, node_index_), node_->op_type(), reason);
  }

  /// A constant used as an index or a size: must be an integer of reasonable magnitude.
  i64 to_int(double x) const {
    if (!integral(x) || std::fabs(x) > 1e12)
      fail("expected an integer constant, got " + std::to_string(x));
    return static_cast<i64>(x);
  }

  /// Input `i` of the current node (an error if the node has fewer inputs).
  const std::string& in_(int i) const {
    if (i < 0 || i >= node_->input_size())
      fail("missing input " + std::to_string(i + 1) + " (the node has " +
           std::to_string(node_->input_size()) + ")");
    return node_->input(i);
  }

  // ---- attributes
  const ::onnx::AttributeProto* attr(const std::string& name) const {
    for (const auto& a : node_->attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  i64 attr_int(const std::string& name, i64 dflt) const {
    const auto* a = attr(name);
    if (a == nullptr) return dflt;
    if (a->type() != ::onnx::AttributeProto::INT && !a->has_i())
      fail("attribute '" + name + "' is not an integer");
    return a->i();
  }
  std::optional<double> attr_float(const std::string& name) const {
    const auto* a = attr(name);
    if (a == nullptr) return std::nullopt;
    if (a->type() == ::onnx::AttributeProto::INT) return static_cast<double>(a->i());
    return static_cast<double>(a->f());
  }
  std::vector<i64> attr_ints(const std::string& name) const {
    const auto* a = attr(name);
    if (a == nullptr) return {};
    return {a->ints().begin(), a->ints().end()};
  }
  std::string attr_string(const std::string& name) const {
    const auto* a = attr(name);
    return a == nullptr ? std::string{} : a->s();
  }
  void only_attributes(std::initializer_list<const char*> allowed) const {
    for (const auto& a : node_->attribute()) {
      bool ok = false;
      for (const char* n : allowed) ok = ok || a.name() == n;
      if (!ok) fail("unsupported attribute '" + a.name() + "'");
    }
  }

  /// The bounds of the current Clip node: attributes (opset < 11) or inputs (opset >= 11), an
  /// absent bound being unbounded.
  std::pair<double, double> clip_bounds() const {
    double lo = attr_float("min").value_or(-1e300), hi = attr_float("max").value_or(1e300);
    auto scalar = [&](int i) {
      const constant& c = const_of(in_(i));
      if (c.v.size() != 1)
        fail("Clip bound '" + in_(i) + "' holds " + std::to_string(c.v.size()) +
             " values, a scalar is expected");
      if (std::isnan(c.v[0])) fail("Clip bound '" + in_(i) + "' is not a number");
      return c.v[0];
    };
    if (node_->input_size() > 1 && !in_(1).empty()) lo = scalar(1);
    if (node_->input_size() > 2 && !in_(2).empty()) hi = scalar(2);
    if (!(lo <= hi)) fail("Clip bounds are empty");
    return {lo, hi};
  }

  /// A Quantlab bit-width attribute (`weight_bits`, `bias_bits`, `mult_bits`, `add_bits`,
  /// `out_bits`): its value, checked to be a width (1..64); nullopt when absent.
  std::optional<int> bits_attr(const std::string& name) const {
    const auto* a = attr(name);
    if (a == nullptr) return std::nullopt;
    if (a->type() != ::onnx::AttributeProto::INT && !a->has_i())
      fail("attribute '" + name + "' is not an integer");
    if (a->i() < 1 || a->i() > 64)
      fail("attribute '" + name + "' = " + std::to_string(a->i()) + " is not a bit width (1..64)");
    return static_cast<int>(a->i());
  }
  /// Checks that every value of `c` is an integer of `bits` signed bits, as the attribute says.
  void check_signed_bits(const std::string& attr_name, int bits, const std::vector<double>& v,
                         const std::string& what) const {
    const double hi = std::ldexp(1.0, bits - 1) - 1, lo = -std::ldexp(1.0, bits - 1);
    for (double x : v)
      if (!(x >= lo && x <= hi))
        fail(what + " " + number(x) + " leaves the range " +
             std::to_string(static_cast<long long>(lo)) + ".." +
             std::to_string(static_cast<long long>(hi)) + " of " + attr_name + " " +
             std::to_string(bits));
  }

  // ---- tensors
  constant read_tensor(const ::onnx::TensorProto& t) const;
  bool is_const(const std::string& n) const { return n.empty() ? false : consts_.contains(n); }
  const constant& const_of(const std::string& n) const {
    auto it = consts_.find(n);
    if (it == consts_.end()) fail("input '" + n + "' must be a constant");
    return it->second;
  }
  value& act_of(const std::string& n) {
    auto it = acts_.find(n);
    if (it == acts_.end()) {
      if (consts_.contains(n))
        fail("input '" + n + "' is a constant where an activation is expected");
      fail("dangling tensor '" + n + "': no node, initializer or graph input produces it");
    }
    return it->second;
  }
  void check_inputs_known() const {
    for (const auto& in : node_->input()) {
      if (in.empty()) continue;
      if (!consts_.contains(in) && !acts_.contains(in))
        fail("dangling tensor '" + in + "': no node, initializer or graph input produces it");
    }
  }
  void set_const(const std::string& n, constant c) {
    acts_.erase(n);
    consts_[n] = std::move(c);
  }
  void set_act(const std::string& n, value v) {
    if (v.f == form::chain && v.layer >= 0) dims_[static_cast<std::size_t>(v.layer)] = v.dims;
    consts_.erase(n);
    acts_[n] = std::move(v);
  }

  // ---- layers
  int open_layer(layer l, layer_data d) {
    const int idx = static_cast<int>(net_.layers.size());
    const std::string nm = std::string(op_name(l.kind)) + std::to_string(anchors_);
    l.name = name_t(nm.c_str(), nm.size());
    net_.layers.push_back(l);
    net_.data.push_back(std::move(d));
    net_.golden.push_back(anchors_++);
    net_.nodes.push_back(label(*node_, node_index_) + " " + node_->op_type());
    build_.emplace_back();
    dims_.emplace_back();
    return idx;
  }
  /// Turns a tensor into a finished layer output: closes its chain if it has one.
  value& plain(const std::string& n, bool allow_padded = false, bool allow_flat = false);
  void close(const std::string& tensor, value& v);
  shape shape_of(const value& v) const;

  // ---- node handlers
  void on_constant();
  void on_conv();
  void on_pool(bool max, bool global);
  void on_fc(bool gemm);
  void on_pad();
  void on_elementwise();
  void on_residual_add(const std::string& a, const std::string& b);
  void on_flatten(bool reshape);
  void on_passthrough();
  bool noop_reshape(const ::onnx::NodeProto& n, const std::vector<i64>& dims) const;
  std::optional<int> consumer_through_noops(const std::string& tensor,
                                            const std::vector<i64>& dims) const;
  void on_shape_op();
  void on_terminal(epilogue_kind k);
  void fold_constants();

  void chain_op(chain& ch, const std::string& op, const constant* c, bool const_first,
                std::size_t channels, std::size_t rank);
  void finalize(int li, const chain& ch);
};

constant importer::read_tensor(const ::onnx::TensorProto& t) const {
  constant c;
  i64 n = 1;
  for (i64 d : t.dims()) {
    if (d < 0 || d > max_elements) fail("tensor '" + t.name() + "' has a bad dimension");
    c.dims.push_back(d);
    n = n * d;
    if (n > max_elements) fail("tensor '" + t.name() + "' is too large");
  }
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL)
    fail("tensor '" + t.name() + "' uses external data, which is not supported");
  const auto un = static_cast<std::size_t>(n);
  const std::string& raw = t.raw_data();
  const bool has_raw = t.has_raw_data();
  auto from_raw = [&]<class T>(T) {
    if (raw.size() != un * sizeof(T))
      fail("tensor '" + t.name() + "' holds " + std::to_string(raw.size()) + " bytes, " +
           std::to_string(un * sizeof(T)) + " expected (truncated or malformed)");
    c.v.resize(un);  // only once the data is known to be there
    for (std::size_t i = 0; i < un; ++i) {
      T x;
      std::memcpy(&x, raw.data() + i * sizeof(T), sizeof(T));
      c.v[i] = static_cast<double>(x);
    }
  };
  auto from_field = [&](const auto& field) {
    if (static_cast<std::size_t>(field.size()) != un)
      fail("tensor '" + t.name() + "' holds " + std::to_string(field.size()) + " values, " +
           std::to_string(un) + " expected (truncated or malformed)");
    c.v.resize(un);
    for (std::size_t i = 0; i < un; ++i)
      c.v[i] = static_cast<double>(field.Get(static_cast<int>(i)));
  };
  using TP = ::onnx::TensorProto;
  switch (t.data_type()) {
    case TP::FLOAT:
      has_raw ? from_raw(float{}) : from_field(t.float_data());
      break;
    case TP::DOUBLE:
      has_raw ? from_raw(double{}) : from_field(t.double_data());
      break;
    case TP::INT64:
      has_raw ? from_raw(std::int64_t{}) : from_field(t.int64_data());
      break;
    case TP::INT32:
      has_raw ? from_raw(std::int32_t{}) : from_field(t.int32_data());
      break;
    case TP::INT16:
      has_raw ? from_raw(std::int16_t{}) : from_field(t.int32_data());
      break;
    case TP::INT8:
      has_raw ? from_raw(std::int8_t{}) : from_field(t.int32_data());
      break;
    case TP::UINT8:
      has_raw ? from_raw(std::uint8_t{}) : from_field(t.int32_data());
      break;
    case TP::BOOL:
      has_raw ? from_raw(std::uint8_t{}) : from_field(t.int32_data());
      break;
    default:
      fail("tensor '" + t.name() + "' has unsupported data type " + std::to_string(t.data_type()));
  }
  return c;
}

shape importer::shape_of(const value& v) const {
  const auto& d = v.dims;
  if (d.size() == 4)
    return {static_cast<int>(d[2]), static_cast<int>(d[3]), static_cast<int>(d[1])};
  if (d.size() == 3) return {1, static_cast<int>(d[2]), static_cast<int>(d[1])};
  if (d.size() == 2) return {1, 1, static_cast<int>(d[1])};
  fail("tensor of rank " + std::to_string(d.size()) + " is not an activation ctile can hold");
}

value& importer::plain(const std::string& n, bool allow_padded, bool allow_flat) {
  value& v = act_of(n);
  if (v.f == form::chain) close(n, v);
  if (v.f == form::plain) return v;
  if (v.f == form::padded && allow_padded) return v;
  if (v.f == form::flat && allow_flat) return v;
  switch (v.f) {
    case form::padded:
      fail("the padded tensor '" + n + "' must feed a convolution or a pooling");
    case form::flat:
      fail("the flattened tensor '" + n + "' must feed Gemm or MatMul");
    case form::scaled:
      fail("tensor '" + n + "' is a rescaled layer output, which may only feed a residual Add");
    case form::epilogue:
      fail("tensor '" + n + "' comes after the final host-side epilogue and cannot feed a layer");
    default:
      fail("tensor '" + n + "' cannot be used here");
  }
}

void importer::close(const std::string& tensor, value& v) {
  layer_build& b = build_[static_cast<std::size_t>(v.layer)];
  if (b.closed && b.closed_at != tensor)
    fail("the output of layer " + net_.nodes[static_cast<std::size_t>(v.layer)] +
         " is used both at '" + b.closed_at + "' and at '" + tensor +
         "' with different arithmetic in between");
  if (!b.closed) finalize(v.layer, v.ch);
  b.closed = true;
  b.closed_at = tensor;
  v.f = form::plain;
}

/// Applies one elementwise node to a chain. `c` is the constant operand (nullptr for unary).
void importer::chain_op(chain& ch, const std::string& op, const constant* c, bool const_first,
                        std::size_t channels, std::size_t rank) {
  // A Cast of a clipped (integer) value changes nothing.
  if (ch.clipped && op != "Clip" && op != "Relu" && op != "Max" && op != "Min" && op != "Cast")
    fail("arithmetic after a Clip/Relu cannot be folded into the layer");
  const bool second = ch.rounded1;
  affine& s = second ? ch.s2 : ch.s1;
  // Per-channel constant values as dyadic rationals with a common power of two.
  std::vector<i64> p;
  int k = 0;
  if (c != nullptr) {
    if (c->v.size() != 1 && c->v.size() != channels)
      fail("constant operand with " + std::to_string(c->v.size()) +
           " elements does not broadcast per channel over " + std::to_string(channels) +
           " channels");
    if (c->v.size() > 1) {
      // ONNX broadcasting aligns dimensions from the right: the constant's only non-1
      // dimension must fall on the channel axis (axis 1).
      bool ok = c->dims.size() <= rank;
      for (std::size_t j = 0; ok && j < c->dims.size(); ++j) {
        const std::size_t axis = rank - c->dims.size() + j;
        ok = c->dims[j] == (axis == 1 ? static_cast<i64>(channels) : 1);
      }
      if (!ok) fail("the constant operand does not broadcast along the channel axis");
    }
    std::vector<std::pair<i64, int>> q;
    for (double x : c->v) {
      auto d = dyadic(x);
      if (!d) fail("constant operand is not an integer (nor a power-of-two fraction)");
      q.push_back(*d);
      k = std::max(k, d->second);
    }
    for (auto [num, e] : q) p.push_back(mul(num, i64{1} << (k - e)));
    if (p.size() > 1 && second) fail("a per-channel constant after the requantization rounding");
    if (p.size() > 1) s.expand(p.size());
  }
  auto at = [&](std::size_t i) { return p.size() == 1 ? p[0] : p[i]; };
  // The value becomes an integer. An integer Div or a Cast truncates, Floor floors: they agree
  // on values >= 0, and on negative values once a clip with lo >= 0 follows, as long as no
  // offset is added in between (checked when folding).
  auto round = [&](bool truncates) {
    if (!second) {
      ch.rounded1 = true;
      ch.truncated1 = truncates;
      return;
    }
    affine& t = ch.s2;
    t.reduce();
    if (t.identity()) return;
    if (ch.truncated1 && !(t.A.size() == 1 && t.A[0] == 0))
      fail("an offset after a truncating division: truncation and floor would differ");
    if (t.M.size() == 1 && t.M[0] == 1 && t.A.size() == 1) {
      // floor((floor(N / D1) + a) / d) = floor((N + a D1) / (D1 d))
      for (auto& x : ch.s1.A) x = add64(x, mul(t.A[0], ch.s1.D));
      ch.s1.D = mul(ch.s1.D, t.D);
      ch.s1.reduce();
      ch.s2 = affine{};
      return;
    }
    fail("two successive requantizations that cannot be folded into one");
  };
  if (op == "Mul") {
    s.D = mul(s.D, i64{1} << k);
    if (p.size() > 1) s.expand(p.size());
    for (std::size_t i = 0; i < s.M.size(); ++i) s.M[i] = mul(s.M[i], at(i));
    for (std::size_t i = 0; i < s.A.size(); ++i) s.A[i] = mul(s.A[i], at(i));
  } else if (op == "Add" || op == "Sub") {
    if (op == "Sub" && const_first) fail("constant minus activation is not supported");
    const i64 d_old = s.D;
    s.scale_all(i64{1} << k);
    if (p.size() > 1) s.expand(p.size());
    const i64 sign = op == "Sub" ? -1 : 1;
    for (std::size_t i = 0; i < s.A.size(); ++i) s.A[i] = add64(s.A[i], mul(sign * at(i), d_old));
  } else if (op == "Div") {
    if (const_first) fail("constant divided by activation is not supported");
    if (p.size() != 1) fail("per-channel division is not supported");
    if (p[0] <= 0) fail("division by a constant that is not positive");
    // x / (p / 2^k) = x * 2^k / p
    for (auto& x : s.M) x = mul(x, i64{1} << k);
    for (auto& x : s.A) x = mul(x, i64{1} << k);
    s.D = mul(s.D, p[0]);
    if (ch.integer_type) {
      s.reduce();
      round(true);
    }
  } else if (op == "Floor") {
    s.reduce();
    round(false);
  } else if (op == "Cast") {
    const i64 to = attr_int("to", 0);
    using TP = ::onnx::TensorProto;
    const bool to_int = to == TP::INT64 || to == TP::INT32 || to == TP::INT16 || to == TP::INT8 ||
                        to == TP::UINT8 || to == TP::UINT16 || to == TP::UINT32 || to == TP::UINT64;
    const bool to_float = to == TP::FLOAT || to == TP::DOUBLE || to == TP::FLOAT16;
    if (!to_int && !to_float) fail("Cast to data type " + std::to_string(to) + " is not supported");
    if (to_int) {
      s.reduce();
      if (s.D != 1) round(true);
    }
    ch.integer_type = to_int;
    return;
  } else if (op == "Max" || op == "Min") {
    // Max(x, lo) / Min(x, hi) with a scalar integer constant: one side of a clip.
    s.reduce();
    if (s.D != 1) fail("Max/Min of a value that is not an integer (a division without Floor)");
    if (p.size() != 1 || k != 0) fail("Max/Min needs a scalar integer constant");
    const i64 b = std::clamp<i64>(p[0], INT32_MIN, INT32_MAX);
    if (op == "Max") ch.lo = std::max(ch.lo, static_cast<int>(b));
    if (op == "Min") ch.hi = std::min(ch.hi, static_cast<int>(b));
    ch.clipped = true;
    return;
  } else if (op == "Clip" || op == "Relu") {
    s.reduce();
    if (s.D != 1) fail("Clip/Relu of a value that is not an integer (a division without Floor)");
    // A Relu in an 8-bit network saturates at 255 (the activation's width).
    int lo = 0, hi = 255;
    if (op == "Clip") {
      const auto [dlo, dhi] = clip_bounds();
      const double l = std::ceil(std::max(dlo, -2147483648.0));
      const double h = std::floor(std::min(dhi, 2147483647.0));
      lo = static_cast<int>(l);
      hi = static_cast<int>(h);
    }
    ch.lo = std::max(ch.lo, lo);
    ch.hi = std::min(ch.hi, hi);
    ch.clipped = true;
    return;
  } else {
    fail("unsupported elementwise op");
  }
  s.reduce();
}

void importer::finalize(int li, const chain& ch_in) {
  chain ch = ch_in;
  layer& l = net_.layers[static_cast<std::size_t>(li)];
  layer_data& d = net_.data[static_cast<std::size_t>(li)];
  const auto where = [&] { return " (layer " + net_.nodes[static_cast<std::size_t>(li)] + ")"; };
  ch.s1.reduce();
  ch.s2.reduce();
  if (!ch.s2.identity())
    fail("arithmetic after the requantization rounding cannot be folded" + where());
  affine s = ch.s1;
  if (s.D != 1 && !ch.rounded1)
    fail("the layer output is not an integer: a division is not followed by Floor or a Cast" +
         where());
  const bool has_clip = ch.clipped;
  // The clip: an unsigned range within 0..255 or a signed one within -128..127.
  const bool is_signed = has_clip && ch.lo < 0;
  const int lo = has_clip ? (is_signed ? ch.lo : std::max(ch.lo, 0)) : 0;
  const int hi = has_clip ? std::min(ch.hi, is_signed ? 127 : 255) : 255;
  if (has_clip && (ch.lo > ch.hi || (!is_signed && ch.hi > 255) ||
                   (is_signed && (ch.lo < -128 || ch.hi > 127))))
    fail("the output clip range [" + std::to_string(ch.lo) + ", " + std::to_string(ch.hi) +
         "] fits neither 0..255 nor -128..127" + where());
  if (is_signed && ch.truncated1)
    fail("a truncating division (integer Div or Cast) before a signed clip [" +
         std::to_string(ch.lo) + ", " + std::to_string(ch.hi) +
         "]: truncation and floor differ on negative values" + where());
  const bool uniformM = std::all_of(s.M.begin(), s.M.end(), [&](i64 x) { return x == s.M[0]; });
  const std::size_t C = static_cast<std::size_t>(l.out_channels > 0 ? l.out_channels : 1);
  switch (l.kind) {
    case op::maxpool:
      if (!s.identity()) fail("arithmetic after a MaxPool is not supported" + where());
      if (has_clip && (lo != 0 || hi != 255))
        fail("a clip after a MaxPool other than 0..255 is not supported" + where());
      return;
    case op::avgpool:
    case op::add: {
      if (!uniformM || s.M[0] <= 0)
        fail("the requantization multiplier must be a positive scalar" + where());
      if (std::any_of(s.A.begin(), s.A.end(), [](i64 x) { return x != 0; })) {
        // An offset on an add folds into the first input's rescale when it is exact.
        if (l.kind == op::add && s.A.size() == 1 && l.in_scale[0].shift == 0 &&
            s.A[0] % s.M[0] == 0) {
          l.in_scale[0].add = static_cast<std::int32_t>(l.in_scale[0].add + s.A[0] / s.M[0]);
        } else {
          fail("an additive offset in the requantization is not supported here" + where());
        }
      }
      l = l.requantized(s.M[0], s.D, lo, hi);
      if (!has_clip) {
        // No clip: the output's range is what the inputs prove (ctile::infer), never cut
        // silently; DORY's saturation to the 8-bit container only on request.
        l = l.unclipped();
        if (opt_.saturate) l = l.saturating();
        net_.notes.push_back("layer " + net_.nodes[static_cast<std::size_t>(li)] +
                             (opt_.saturate
                                  ? ": no clip in the graph, saturated to its 8-bit container "
                                    "where its proven range is wider (--saturate)"
                                  : ": no clip in the graph, its range is proven from its inputs"));
      }
      return;
    }
    case op::conv:
    case op::depthwise:
    case op::linear:
      break;
    default:
      fail("internal: unexpected layer kind" + where());
  }
  s.expand(C);
  if (s.M.size() != C || s.A.size() != C)
    fail("per-channel constants do not match the channels" + where());
  // Choose the split (kappa, lambda, m) of M and A.
  i64 m = 0;
  for (i64 x : s.M) m = gcd(m, x);
  bool bias_only = uniformM && s.M[0] > 0;
  if (bias_only)
    for (i64 x : s.A) bias_only = bias_only && x % s.M[0] == 0;
  const auto fits32 = [](i64 x) { return x >= INT32_MIN && x <= INT32_MAX; };
  if (bias_only) {
    m = s.M[0];
    if (d.bias.empty() && std::any_of(s.A.begin(), s.A.end(), [](i64 x) { return x != 0; }))
      d.bias.assign(C, 0);
    for (std::size_t c = 0; c < d.bias.size(); ++c) {
      const i64 b = add64(d.bias[c], s.A[c] / m);
      if (!fits32(b)) fail("bias does not fit 32 bits" + where());
      d.bias[c] = static_cast<std::int32_t>(b);
    }
    if (!d.bias.empty()) l = l.with_bias();
  } else {
    for (i64 x : s.A) m = gcd(m, x);
    if (m == 0) m = 1;
    d.kappa.resize(C);
    d.lambda.resize(C);
    for (std::size_t c = 0; c < C; ++c) {
      const i64 kap = s.M[c] / m, lam = s.A[c] / m;
      if (!fits32(kap) || !fits32(lam)) fail("kappa or lambda does not fit 32 bits" + where());
      d.kappa[c] = static_cast<std::int32_t>(kap);
      d.lambda[c] = static_cast<std::int32_t>(lam);
    }
    l = l.bn();
  }
  const i64 g = gcd(m, s.D);
  m /= g;
  const i64 D = s.D / g;
  if (l.kind == op::linear && !has_clip && D == 1 && m == 1) {
    l = l.raw();
    return;
  }
  if (!has_clip && l.kind != op::linear)
    fail("the layer output is not clipped to an 8-bit range (no Clip or Relu)" + where());
  if (!has_clip) fail("a requantized fully connected layer needs a Clip or Relu" + where());
  l = l.requantized(m, D, lo, hi);
}

void importer::on_constant() {
  only_attributes({"value", "value_float", "value_int", "value_floats", "value_ints"});
  if (node_->output_size() != 1) fail("Constant must have one output");
  constant c;
  if (const auto* a = attr("value")) {
    if (!a->has_t()) fail("attribute 'value' holds no tensor");
    c = read_tensor(a->t());
  } else if (const auto* af = attr("value_float")) {
    c.v = {static_cast<double>(af->f())};
  } else if (const auto* ai = attr("value_int")) {
    c.v = {static_cast<double>(ai->i())};
  } else if (const auto* afs = attr("value_floats")) {
    for (float x : afs->floats()) c.v.push_back(x);
    c.dims = {static_cast<i64>(c.v.size())};
  } else if (const auto* ais = attr("value_ints")) {
    for (auto x : ais->ints()) c.v.push_back(static_cast<double>(x));
    c.dims = {static_cast<i64>(c.v.size())};
  } else {
    fail("Constant without a value");
  }
  set_const(node_->output(0), std::move(c));
}

void importer::on_pad() {
  only_attributes({"mode", "pads", "value"});
  const std::string mode = attr_string("mode");
  if (!mode.empty() && mode != "constant") fail("only constant padding is supported");
  std::vector<i64> pads = attr_ints("pads");
  if (node_->input_size() >= 2 && !in_(1).empty()) {
    for (double x : const_of(in_(1)).v) pads.push_back(to_int(x));
  }
  double fill = attr_float("value").value_or(0.0);
  if (node_->input_size() >= 3 && !in_(2).empty()) fill = const_of(in_(2)).v.at(0);
  if (fill != 0.0) fail("only zero padding is supported");
  value v = plain(in_(0), true);
  const std::size_t r = v.dims.size();
  if (r != 3 && r != 4) fail("Pad on a tensor of rank " + std::to_string(r));
  if (pads.size() != 2 * r) fail("'pads' must have " + std::to_string(2 * r) + " entries");
  for (i64 p : pads)
    if (p < 0 || p > 1024) fail("negative or huge padding is not supported");
  if (pads[0] || pads[1] || pads[r] || pads[r + 1])
    fail("padding along the batch or channel axis is not supported");
  if (v.f == form::plain) v.pad = {};
  v.f = form::padded;
  if (r == 4) {
    v.pad.t += static_cast<int>(pads[2]);
    v.pad.l += static_cast<int>(pads[3]);
    v.pad.b += static_cast<int>(pads[6]);
    v.pad.r += static_cast<int>(pads[7]);
    v.dims[2] += pads[2] + pads[6];
    v.dims[3] += pads[3] + pads[7];
  } else {
    v.pad.l += static_cast<int>(pads[2]);
    v.pad.r += static_cast<int>(pads[5]);
    v.dims[2] += pads[2] + pads[5];
  }
  set_act(node_->output(0), std::move(v));
}

/// Spatial attributes (kernel, strides, pads, dilations) of a Conv or pool, as 2-D values.
struct window {
  extent2 kernel, stride;
  padding pad;
};

void importer::on_conv() {
  only_attributes({"kernel_shape", "strides", "pads", "dilations", "group", "auto_pad",
                   "weight_bits", "bias_bits"});
  if (node_->input_size() < 2) fail("Conv needs an input and weights");
  const value in = plain(in_(0), true);
  const constant& w = const_of(in_(1));
  if (const auto b = bits_attr("weight_bits")) check_signed_bits("weight_bits", *b, w.v, "weight");
  const auto bias_bits = bits_attr("bias_bits");
  if (bias_bits && node_->input_size() >= 3 && !in_(2).empty())
    check_signed_bits("bias_bits", *bias_bits, const_of(in_(2)).v, "bias");
  const bool one_d = in.dims.size() == 3;
  if (in.dims.size() != 3 && in.dims.size() != 4)
    fail("Conv input must have rank 3 (1-D) or 4 (2-D)");
  const std::size_t sp = one_d ? 1 : 2;
  if (w.dims.size() != sp + 2) fail("weights have rank " + std::to_string(w.dims.size()));
  const i64 cout = w.dims[0], wcin = w.dims[1];
  const i64 kh = one_d ? 1 : w.dims[2], kw = one_d ? w.dims[2] : w.dims[3];
  const i64 cin = in.dims[1];
  const auto ap = attr_string("auto_pad");
  if (!ap.empty() && ap != "NOTSET" && ap != "VALID") fail("unsupported attribute auto_pad=" + ap);
  auto dil = attr_ints("dilations");
  if (dil.empty()) dil.assign(sp, 1);
  if (dil.size() != sp)
    fail("'dilations' has " + std::to_string(dil.size()) + " entries, " + std::to_string(sp) +
         " expected");
  for (i64 dl : dil)
    if (dl < 1 || dl > 1024) fail("bad dilation " + std::to_string(dl) + " (1..1024)");
  const auto ks = attr_ints("kernel_shape");
  if (!ks.empty() && (ks.size() != sp || ks.back() != kw || (!one_d && ks[0] != kh)))
    fail("kernel_shape does not match the weights");
  const i64 group = attr_int("group", 1);
  op kind = op::conv;
  i64 multiplier = 0;  // > 0: depthwise with this many filters per input channel
  if (group == 1) {
    if (wcin != cin)
      fail("weights expect " + std::to_string(wcin) + " input channels, the input has " +
           std::to_string(cin));
  } else if (group == cin && wcin == 1 && cout == cin) {
    kind = op::depthwise;
  } else if (group == cin && wcin == 1 && cout % cin == 0 && cout / cin <= 16) {
    // Depthwise with a channel multiplier (EEGNet): a dense conv whose weights are zero
    // outside each output channel's own input channel. Exact, at the cost of extra MACs.
    multiplier = cout / cin;
    net_.notes.push_back("depthwise conv at " + label(*node_, node_index_) + " with multiplier " +
                         std::to_string(multiplier) +
                         ": imported as a dense conv with zero weights");
  } else {
    fail("unsupported attribute: group " + std::to_string(group) +
         " (only 1 or the channel count with one filter per channel)");
  }
  auto strides = attr_ints("strides");
  if (strides.empty()) strides.assign(sp, 1);
  auto pads = attr_ints("pads");
  if (pads.empty()) pads.assign(2 * sp, 0);
  if (strides.size() != sp || pads.size() != 2 * sp) fail("strides or pads of the wrong length");
  for (i64 x : strides)
    if (x <= 0 || x > 1024) fail("bad stride");
  for (i64 x : pads)
    if (x < 0 || x > 1024) fail("bad padding");
  if (kh <= 0 || kw <= 0 || kh > 1024 || kw > 1024 || cout <= 0 || cout > 65535)
    fail("bad kernel size or channel count");
  layer l = kind == op::conv
                ? conv2d(static_cast<int>(cout), static_cast<int>(kh), static_cast<int>(kw))
                : depthwise(static_cast<int>(kh), static_cast<int>(kw));
  padding p = in.f == form::padded ? in.pad : padding{};
  if (one_d) {
    l = l.strides(1, static_cast<int>(strides[0])).dilated(1, static_cast<int>(dil[0]));
    p.l += static_cast<int>(pads[0]);
    p.r += static_cast<int>(pads[1]);
  } else {
    l = l.strides(static_cast<int>(strides[0]), static_cast<int>(strides[1]))
            .dilated(static_cast<int>(dil[0]), static_cast<int>(dil[1]));
    p.t += static_cast<int>(pads[0]);
    p.l += static_cast<int>(pads[1]);
    p.b += static_cast<int>(pads[2]);
    p.r += static_cast<int>(pads[3]);
  }
  // Padding as large as the kernel or larger is passed on: ctile's shape inference decides.
  l = l.padded(p.t, p.b, p.l, p.r).from(in.layer);
  // Weights: ONNX [Cout][Cin][Kh][Kw] -> ctile [Cout][Kh][Kw][Cin] (dw: [C][Kh][Kw]).
  layer_data d;
  const i64 ci = kind == op::conv ? cin : 1;  // input channels of the ctile weights
  const i64 wc = multiplier > 0 ? 1 : ci;     // input channels of the ONNX weights
  if (cout * ci * kh * kw > max_elements) fail("the expanded weights are too large");
  d.weights.assign(static_cast<std::size_t>(cout * ci * kh * kw), 0);
  for (i64 o = 0; o < cout; ++o)
    for (i64 c = 0; c < wc; ++c)
      for (i64 y = 0; y < kh; ++y)
        for (i64 x = 0; x < kw; ++x) {
          const double v = w.v[static_cast<std::size_t>(((o * wc + c) * kh + y) * kw + x)];
          if (!integral(v) || v < -128 || v > 127)
            fail("weight " + std::to_string(v) + " is not an 8-bit signed integer");
          const i64 cc = multiplier > 0 ? o / multiplier : c;
          d.weights[static_cast<std::size_t>(((o * kh + y) * kw + x) * ci + cc)] =
              static_cast<std::int8_t>(v);
        }
  if (node_->input_size() >= 3 && !in_(2).empty()) {
    const constant& b = const_of(in_(2));
    if (b.size() != cout)
      fail("bias has " + std::to_string(b.size()) + " values, " + std::to_string(cout) +
           " expected");
    for (double v : b.v) {
      if (!integral(v) || v < INT32_MIN || v > INT32_MAX)
        fail("bias " + std::to_string(v) + " is not a 32-bit integer");
      d.bias.push_back(static_cast<std::int32_t>(v));
    }
    l = l.with_bias();
  }
  // Output shape.
  const int ih =
      one_d ? 1 : static_cast<int>(in.dims[2]) - (in.f == form::padded ? in.pad.t + in.pad.b : 0);
  const int iw =
      static_cast<int>(in.dims[one_d ? 2 : 3]) - (in.f == form::padded ? in.pad.l + in.pad.r : 0);
  // A dilated kernel reads a window of (k - 1) * d + 1 input values per axis.
  const extent2 win = l.window();
  const int oh = window_out(ih, p.t, p.b, win.h, l.stride.h);
  const int ow = window_out(iw, p.l, p.r, win.w, l.stride.w);
  if (oh <= 0 || ow <= 0) fail("the (dilated) kernel is larger than the padded input");
  value out;
  out.f = form::chain;
  out.layer = open_layer(l, std::move(d));
  net_.layers.back().out_channels = static_cast<int>(cout);
  out.dims = one_d ? std::vector<i64>{1, cout, ow} : std::vector<i64>{1, cout, oh, ow};
  set_act(node_->output(0), std::move(out));
}

void importer::on_pool(bool max, bool global) {
  if (global)
    only_attributes({});
  else
    only_attributes({"kernel_shape", "strides", "pads", "ceil_mode", "count_include_pad",
                     "auto_pad", "storage_order", "dilations"});
  const value in = plain(in_(0), true);
  const bool one_d = in.dims.size() == 3;
  if (in.dims.size() != 3 && in.dims.size() != 4) fail("pooling input must have rank 3 or 4");
  const std::size_t sp = one_d ? 1 : 2;
  padding p = in.f == form::padded ? in.pad : padding{};
  const int ih = one_d ? 1 : static_cast<int>(in.dims[2]) - (p.t + p.b);
  const int iw = static_cast<int>(in.dims[one_d ? 2 : 3]) - (p.l + p.r);
  int kh = ih, kw = iw, sh = 1, sw = 1;
  if (!global) {
    if (attr_int("ceil_mode", 0) != 0) fail("unsupported attribute ceil_mode=1");
    if (attr_int("storage_order", 0) != 0) fail("unsupported attribute storage_order");
    for (i64 dl : attr_ints("dilations"))
      if (dl != 1) fail("unsupported attribute: dilation " + std::to_string(dl));
    const auto ap = attr_string("auto_pad");
    if (!ap.empty() && ap != "NOTSET" && ap != "VALID")
      fail("unsupported attribute auto_pad=" + ap);
    const auto ks = attr_ints("kernel_shape");
    if (ks.size() != sp) fail("kernel_shape missing or of the wrong length");
    auto st = attr_ints("strides");
    if (st.empty()) st.assign(sp, 1);
    auto pads = attr_ints("pads");
    if (pads.empty()) pads.assign(2 * sp, 0);
    if (st.size() != sp || pads.size() != 2 * sp) fail("strides or pads of the wrong length");
    for (i64 x : ks)
      if (x <= 0 || x > 4096) fail("bad kernel size");
    for (i64 x : st)
      if (x <= 0 || x > 4096) fail("bad stride");
    for (i64 x : pads)
      if (x < 0 || x > 1024) fail("bad padding");
    if (one_d) {
      kh = 1, kw = static_cast<int>(ks[0]), sw = static_cast<int>(st[0]);
      p.l += static_cast<int>(pads[0]), p.r += static_cast<int>(pads[1]);
    } else {
      kh = static_cast<int>(ks[0]), kw = static_cast<int>(ks[1]);
      sh = static_cast<int>(st[0]), sw = static_cast<int>(st[1]);
      p.t += static_cast<int>(pads[0]), p.l += static_cast<int>(pads[1]);
      p.b += static_cast<int>(pads[2]), p.r += static_cast<int>(pads[3]);
    }
    if (!max && (p.t || p.b || p.l || p.r) && attr_int("count_include_pad", 0) == 0)
      fail("padded AveragePool without count_include_pad=1 is not supported");
  } else if (p.t || p.b || p.l || p.r) {
    fail("padding before a GlobalAveragePool is not supported");
  }
  layer l = max ? maxpool(kh, kw) : avgpool(kh, kw);
  l = l.strides(sh, sw).padded(p.t, p.b, p.l, p.r).from(in.layer);
  const int oh = window_out(ih, p.t, p.b, kh, sh);
  const int ow = window_out(iw, p.l, p.r, kw, sw);
  if (oh <= 0 || ow <= 0) fail("the window is larger than the padded input");
  value out;
  out.f = form::chain;
  out.layer = open_layer(l, {});
  // ONNX's AveragePool yields sum / area, not yet rounded.
  if (!max) out.ch.s1.D = i64{kh} * kw;
  out.dims = one_d ? std::vector<i64>{1, in.dims[1], ow} : std::vector<i64>{1, in.dims[1], oh, ow};
  set_act(node_->output(0), std::move(out));
}

void importer::on_fc(bool gemm) {
  if (gemm)
    only_attributes({"alpha", "beta", "transA", "transB", "broadcast", "weight_bits", "bias_bits"});
  else
    only_attributes({"weight_bits"});
  if (node_->input_size() < 2) fail("needs two inputs");
  const value in = plain(in_(0), false, true);
  if (in.dims.size() != 2 && !(in.f == form::flat))
    fail("the input must be flattened to [1, K] first");
  const constant& w = const_of(in_(1));
  if (const auto b = bits_attr("weight_bits")) check_signed_bits("weight_bits", *b, w.v, "weight");
  if (const auto b = bits_attr("bias_bits"); b && node_->input_size() >= 3 && !in_(2).empty())
    check_signed_bits("bias_bits", *b, const_of(in_(2)).v, "bias");
  if (w.dims.size() != 2) fail("weights must be a 2-D constant");
  bool transB = false;
  if (gemm) {
    if (attr_float("alpha").value_or(1.0) != 1.0 || attr_float("beta").value_or(1.0) != 1.0)
      fail("unsupported attribute: alpha or beta other than 1");
    if (attr_int("transA", 0) != 0) fail("unsupported attribute transA=1");
    transB = attr_int("transB", 0) != 0;
  }
  const i64 K = transB ? w.dims[1] : w.dims[0];
  const i64 N = transB ? w.dims[0] : w.dims[1];
  // The flattened source, as ONNX sees it: [C][H][W] (or [C][L], or [K]).
  i64 C = 1, H = 1, W = 1;
  if (in.f == form::flat) {
    const auto& od = in.dims;  // the unflattened dims kept by on_flatten
    if (od.size() == 4) C = od[1], H = od[2], W = od[3];
    if (od.size() == 3) C = od[1], W = od[2];
    if (od.size() == 2) C = od[1];
  } else {
    C = in.dims[1];
  }
  if (C * H * W != K)
    fail("weights expect " + std::to_string(K) + " inputs, the input has " +
         std::to_string(C * H * W));
  if (N <= 0 || N > 65535) fail("bad output count");
  layer_data d;
  d.weights.resize(static_cast<std::size_t>(N * K));
  for (i64 n = 0; n < N; ++n)
    for (i64 c = 0; c < C; ++c)
      for (i64 h = 0; h < H; ++h)
        for (i64 x = 0; x < W; ++x) {
          const i64 k = (c * H + h) * W + x;  // ONNX flatten order (CHW)
          const double v = w.v[static_cast<std::size_t>(transB ? n * K + k : k * N + n)];
          if (!integral(v) || v < -128 || v > 127)
            fail("weight " + std::to_string(v) + " is not an 8-bit signed integer");
          d.weights[static_cast<std::size_t>(n * K + (h * W + x) * C + c)] =
              static_cast<std::int8_t>(v);
        }
  layer l = linear(static_cast<int>(N)).from(in.layer);
  if (gemm && node_->input_size() >= 3 && !in_(2).empty()) {
    const constant& b = const_of(in_(2));
    if (b.size() != N && b.size() != 1) fail("bias size does not match the outputs");
    for (i64 n = 0; n < N; ++n) {
      const double v = b.v[static_cast<std::size_t>(b.size() == 1 ? 0 : n)];
      if (!integral(v) || v < INT32_MIN || v > INT32_MAX) fail("bias is not a 32-bit integer");
      d.bias.push_back(static_cast<std::int32_t>(v));
    }
    l = l.with_bias();
  }
  value out;
  out.f = form::chain;
  out.layer = open_layer(l, std::move(d));
  out.dims = {1, N};
  set_act(node_->output(0), std::move(out));
}

/// Identity, and Dropout at inference: the value passes unchanged, in whatever form it is
/// (an open requantization chain stays open).
void importer::on_passthrough() {
  if (node_->op_type() == "Dropout") {
    only_attributes({"ratio", "seed", "is_test"});
    if (node_->input_size() > 2 && !in_(2).empty() && const_of(in_(2)).v.at(0) != 0.0)
      fail("Dropout in training mode is not a no-op");
    if (node_->output_size() > 1 && !node_->output(1).empty() &&
        consumers_.contains(node_->output(1)))
      fail("the mask output of Dropout is used, which is not supported");
  } else {
    only_attributes({});
  }
  if (node_->input_size() < 1) fail("needs an input");
  value v = act_of(in_(0));
  set_act(node_->output(0), std::move(v));
}

/// A Reshape of a tensor of `dims` to the same dims (0 copies a dim, one -1 is inferred).
bool importer::noop_reshape(const ::onnx::NodeProto& n, const std::vector<i64>& dims) const {
  if (n.op_type() != "Reshape" || n.input_size() < 2) return false;
  const auto it = consts_.find(n.input(1));
  if (it == consts_.end() || it->second.v.size() != dims.size()) return false;
  i64 known = 1, total = 1;
  int infer_at = -1;
  std::vector<i64> t;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const double x = it->second.v[i];
    if (!integral(x)) return false;
    i64 d = static_cast<i64>(x);
    if (d == 0) d = dims[i];
    if (d == -1) {
      if (infer_at >= 0) return false;
      infer_at = static_cast<int>(i);
    } else if (d <= 0) {
      return false;
    } else {
      known *= d;
    }
    total *= dims[i];
    t.push_back(d);
    if (known > max_elements) return false;
  }
  if (infer_at >= 0) t[static_cast<std::size_t>(infer_at)] = known > 0 ? total / known : 0;
  return t == dims;
}

/// The node that consumes `tensor` (of `dims`), looking through Identity, Dropout, Cast and
/// Reshapes to the same shape, when each tensor on the way has one consumer.
std::optional<int> importer::consumer_through_noops(const std::string& tensor,
                                                    const std::vector<i64>& dims) const {
  std::string t = tensor;
  for (int guard = 0; guard < 64; ++guard) {
    const auto it = consumer_nodes_.find(t);
    if (it == consumer_nodes_.end() || it->second.size() != 1) return std::nullopt;
    if (std::find(graph_outputs_.begin(), graph_outputs_.end(), t) != graph_outputs_.end())
      return std::nullopt;
    const auto& n = model_.graph().node(it->second[0]);
    const bool through = n.op_type() == "Identity" || n.op_type() == "Dropout" ||
                         n.op_type() == "Cast" || noop_reshape(n, dims);
    if (!through || n.output_size() < 1) return it->second[0];
    t = n.output(0);
  }
  return std::nullopt;
}

void importer::on_flatten(bool reshape) {
  if (reshape && node_->input_size() >= 2) {
    const value& x = act_of(in_(0));
    if (x.f != form::flat && noop_reshape(*node_, x.dims)) {
      only_attributes({"allowzero"});
      value v = x;
      set_act(node_->output(0), std::move(v));
      return;
    }
  }
  // A flattened tensor flattened again: [1, K] stays [1, K].
  value v = act_of(in_(0)).f == form::flat ? act_of(in_(0)) : plain(in_(0));
  i64 total = 1;
  for (i64 x : v.dims) total *= x;
  if (reshape) {
    only_attributes({"allowzero"});
    if (node_->input_size() < 2) fail("Reshape needs a shape");
    const constant& s = const_of(in_(1));
    std::vector<i64> target;
    for (double x : s.v) target.push_back(to_int(x));
    const bool flat = target.size() == 2 && (target[0] == 1 || target[0] == 0 || target[0] == -1) &&
                      (target[1] == -1 || target[1] == total);
    if (target == v.dims) {
      set_act(node_->output(0), std::move(v));
      return;
    }
    if (!flat) fail("only a Reshape to [1, -1] (a flatten) is supported");
  } else {
    only_attributes({"axis"});
    if (attr_int("axis", 1) != 1) fail("only Flatten with axis=1 is supported");
  }
  if (v.dims.size() == 2 || v.f == form::flat) {
    set_act(node_->output(0), std::move(v));
    return;
  }
  v.f = form::flat;  // keep the unflattened dims: the FC that follows permutes its weights
  set_act(node_->output(0), std::move(v));
}

void importer::on_residual_add(const std::string& a, const std::string& b) {
  only_attributes({"in1_mul", "in1_add", "in1_shift", "in2_mul", "in2_add", "in2_shift", "out_mul",
                   "out_add", "out_shift", "out_rq", "add_bits"});
  (void)bits_attr("add_bits");
  value* v[2] = {nullptr, nullptr};
  rescale rs[2];
  const std::string names[2] = {a, b};
  for (int i = 0; i < 2; ++i) {
    value& x = act_of(names[i]);
    if (x.f == form::scaled) {
      if (x.pending_shift >= 0) fail("input '" + names[i] + "' is divided without a Floor");
      rs[i] = x.rs;
      v[i] = &x;
    } else {
      v[i] = &plain(names[i]);
    }
  }
  const bool attr_rq = attr("in1_mul") || attr("in2_mul") || attr("in1_shift") || attr("in2_shift");
  if (attr_rq) {
    for (int i = 0; i < 2; ++i) {
      if (v[i]->f == form::scaled) fail("both a Mul and requantization attributes on the inputs");
      const std::string p = i == 0 ? "in1_" : "in2_";
      const i64 m = attr_int(p + "mul", 1), ad = attr_int(p + "add", 0),
                sh = attr_int(p + "shift", 0);
      if (m < INT32_MIN || m > INT32_MAX || ad < INT32_MIN || ad > INT32_MAX || sh < 0 || sh > 31)
        fail("requantization attributes out of range");
      rs[i] = {static_cast<std::int32_t>(m), static_cast<std::int32_t>(ad), static_cast<int>(sh),
               true};
    }
  }
  if (v[0]->dims != v[1]->dims) fail("the two inputs of the residual Add have different shapes");
  layer l = ctile::add(v[0]->layer, v[1]->layer).scaled(0, rs[0]).scaled(1, rs[1]);
  value out;
  out.f = form::chain;
  out.dims = v[0]->dims;
  out.layer = open_layer(l, {});
  const i64 om = attr_int("out_mul", 1), oa = attr_int("out_add", 0),
            osh = attr_int("out_shift", 0);
  if (osh < 0 || osh > 62 || om <= 0) fail("output requantization attributes out of range");
  if (om != 1 || oa != 0 || osh != 0) {
    out.ch.s1.M = {om};
    out.ch.s1.A = {oa};
    out.ch.s1.D = i64{1} << osh;
    out.ch.rounded1 = true;
  }
  if (attr_rq) {
    out.ch.rounded1 = true;
    out.ch.clipped = true;
    out.ch.lo = 0;
    out.ch.hi = 255;
  }
  set_act(node_->output(0), std::move(out));
}

void importer::on_terminal(epilogue_kind k) {
  value& x = act_of(in_(0));
  if (x.f == form::chain) close(in_(0), x);
  value v = x;
  if (v.f != form::plain && v.f != form::epilogue && v.f != form::flat)
    fail("unsupported input for a host-side epilogue");
  if (v.f != form::epilogue) v.steps.clear();
  v.f = form::epilogue;
  if (k == epilogue_kind::gather) {
    only_attributes({"axis"});
    const constant& idx = const_of(in_(1));
    if (idx.size() != 1) fail("only a scalar Gather index is supported on activations");
    const i64 axis = attr_int("axis", 0);
    if (axis != 1 && axis != -1) fail("only a Gather along axis 1 of a layer output is supported");
    const i64 n = v.dims.size() >= 2 ? v.dims[1] : 0;
    i64 i = to_int(idx.v[0]);
    if (i < 0) i += n;
    if (i < 0 || i >= n) fail("Gather index out of range");
    v.steps.push_back({k, label(*node_, node_index_), i});
    v.dims = {1};
  } else {
    if (k != epilogue_kind::sigmoid) {
      only_attributes({"axis"});
    } else {
      only_attributes({});
    }
    net_.notes.push_back(std::string(epilogue_name(k)) + " at " + label(*node_, node_index_) +
                         (opt_.keep_epilogue ? ": kept as a host-side epilogue"
                                             : ": dropped (the network outputs the raw values)"));
    if (opt_.keep_epilogue) v.steps.push_back({k, label(*node_, node_index_), 0});
  }
  set_act(node_->output(0), std::move(v));
}

/// Shape plumbing on constants (and Shape of an activation): folded at import time.
void importer::fold_constants() {
  const std::string& op = node_->op_type();
  const std::string& out = node_->output(0);
  if (op == "Shape") {
    const value& v = act_of(in_(0));
    constant c;
    c.dims = {static_cast<i64>(v.dims.size())};
    for (i64 x : v.dims) c.v.push_back(static_cast<double>(x));
    set_const(out, c);
    return;
  }
  const constant& a = const_of(in_(0));
  constant c = a;
  if (op == "Gather") {
    const constant& idx = const_of(in_(1));
    const i64 axis = attr_int("axis", 0);
    if (axis != 0 || a.dims.size() > 1) fail("only Gather on a 1-D constant is folded");
    c.v.clear();
    for (double x : idx.v) {
      i64 i = to_int(x);
      if (i < 0) i += a.size();
      if (i < 0 || i >= a.size()) fail("Gather index out of range");
      c.v.push_back(a.v[static_cast<std::size_t>(i)]);
    }
    c.dims = idx.dims;
  } else if (op == "Identity" || op == "Dropout") {
  } else if (op == "Cast") {
    const i64 to = attr_int("to", 1);
    using TP = ::onnx::TensorProto;
    if (to != TP::FLOAT && to != TP::DOUBLE && to != TP::FLOAT16)
      for (auto& x : c.v) x = std::trunc(x);
  } else if (op == "Reshape") {
    std::vector<i64> target;
    for (double x : const_of(in_(1)).v) target.push_back(to_int(x));
    i64 known = 1;
    int infer_at = -1;
    for (std::size_t i = 0; i < target.size(); ++i) {
      if (target[i] == 0 && i < a.dims.size()) target[i] = a.dims[i];
      if (target[i] == -1 && infer_at < 0) {
        infer_at = static_cast<int>(i);
        continue;
      }
      if (target[i] <= 0 || target[i] > max_elements) fail("bad Reshape target");
      known *= target[i];
      if (known > max_elements) fail("bad Reshape target");
    }
    if (infer_at >= 0)
      target[static_cast<std::size_t>(infer_at)] = known > 0 ? a.size() / known : 0;
    i64 n = 1;
    for (i64 x : target) n *= x;
    if (n != a.size()) fail("Reshape target does not hold the constant's values");
    c.dims = target;
  } else if (op == "Unsqueeze") {
    std::vector<i64> axes = attr_ints("axes");
    if (axes.empty() && node_->input_size() > 1)
      for (double x : const_of(in_(1)).v) axes.push_back(to_int(x));
    const i64 r = static_cast<i64>(a.dims.size() + axes.size());
    std::vector<bool> unit(static_cast<std::size_t>(r), false);
    for (i64 ax : axes) {
      if (ax < 0) ax += r;
      if (ax < 0 || ax >= r) fail("Unsqueeze axis out of range");
      unit[static_cast<std::size_t>(ax)] = true;
    }
    c.dims.clear();
    std::size_t j = 0;
    for (i64 i = 0; i < r; ++i) {
      if (unit[static_cast<std::size_t>(i)]) {
        c.dims.push_back(1);
      } else {
        if (j >= a.dims.size()) fail("Unsqueeze axes repeat");
        c.dims.push_back(a.dims[j++]);
      }
    }
  } else if (op == "Squeeze") {
    c.dims.clear();
    for (i64 x : a.dims)
      if (x != 1) c.dims.push_back(x);
  } else if (op == "Flatten") {
    const i64 axis = attr_int("axis", 1);
    if (axis < 0 || axis > static_cast<i64>(a.dims.size())) fail("Flatten axis out of range");
    i64 outer = 1;
    for (i64 i = 0; i < axis; ++i) outer *= a.dims[static_cast<std::size_t>(i)];
    c.dims = {outer, outer > 0 ? a.size() / outer : 0};
  } else if (op == "Concat") {
    c.v.clear();
    for (const auto& in : node_->input()) {
      const constant& x = const_of(in);
      c.v.insert(c.v.end(), x.v.begin(), x.v.end());
      if (c.size() > max_elements) fail("constant too large");
    }
    c.dims = {c.size()};
  } else if (op == "Mul" || op == "Add" || op == "Sub" || op == "Div") {
    const constant& b = const_of(in_(1));
    if (a.size() != b.size() && b.size() != 1 && a.size() != 1)
      fail("constant operands do not broadcast");
    const constant& big = a.size() >= b.size() ? a : b;
    c = big;
    for (std::size_t i = 0; i < c.v.size(); ++i) {
      const double x = a.v[a.size() == 1 ? 0 : i], y = b.v[b.size() == 1 ? 0 : i];
      c.v[i] = op == "Mul" ? x * y : op == "Add" ? x + y : op == "Sub" ? x - y : x / y;
    }
  } else if (op == "Floor") {
    for (auto& x : c.v) x = std::floor(x);
  } else {
    fail("unsupported op on constants");
  }
  set_const(out, std::move(c));
}

void importer::on_elementwise() {
  const std::string& op = node_->op_type();
  const bool binary =
      op == "Mul" || op == "Add" || op == "Sub" || op == "Div" || op == "Max" || op == "Min";
  std::string xin;
  const constant* c = nullptr;
  bool const_first = false;
  if (binary) {
    if (node_->input_size() != 2) fail("needs two inputs");
    const bool c0 = is_const(in_(0)), c1 = is_const(in_(1));
    if (c0 == c1) fail("internal: expected exactly one constant operand");
    const_first = c0;
    c = &const_of(in_(c0 ? 0 : 1));
    xin = in_(c0 ? 1 : 0);
  } else {
    if (node_->input_size() < 1) fail("needs an input");
    xin = in_(0);
  }
  if (op == "Cast") {
    only_attributes({"to", "saturate"});
  } else if (op == "Clip") {
    only_attributes({"min", "max", "out_bits"});
    if (const auto b = bits_attr("out_bits")) {
      const auto [lo, hi] = clip_bounds();
      const double u = std::ldexp(1.0, *b) - 1, sh = std::ldexp(1.0, *b - 1);
      if (!((lo >= 0 && hi <= u) || (lo >= -sh && hi <= sh - 1)))
        fail("Clip bounds [" + number(lo) + ", " + number(hi) + "] do not fit out_bits " +
             std::to_string(*b));
    }
  } else if (op == "Mul") {
    only_attributes({"broadcast", "axis", "mult_bits"});
    if (const auto b = bits_attr("mult_bits")) check_signed_bits("mult_bits", *b, c->v, "factor");
  } else if (op == "Add") {
    only_attributes({"broadcast", "axis", "add_bits"});
    if (const auto b = bits_attr("add_bits")) check_signed_bits("add_bits", *b, c->v, "addend");
  } else {
    only_attributes({"broadcast", "axis"});
  }
  value& x = act_of(xin);
  // Does the result feed a residual Add? Then this is an input rescale, not part of a layer.
  auto feeds_residual_add = [&] {
    const auto next = consumer_through_noops(node_->output(0), x.dims);
    if (!next) return false;
    const auto& n = model_.graph().node(*next);
    if (n.op_type() != "Add" || n.input_size() != 2) return false;
    // The Add's other operand may come from a node later in the graph: judged by what
    // produces it, not by what has been walked so far.
    return !static_const_.contains(n.input(0)) && !static_const_.contains(n.input(1)) &&
           !n.input(0).empty() && !n.input(1).empty();
  };
  if (x.f == form::chain) {
    const bool extend =
        consumers_[xin] == 1 &&
        std::find(graph_outputs_.begin(), graph_outputs_.end(), xin) == graph_outputs_.end() &&
        !(op == "Mul" && feeds_residual_add());
    if (extend) {
      value v = x;
      const std::size_t ch = static_cast<std::size_t>(v.dims.size() >= 2 ? v.dims[1] : 1);
      try {
        chain_op(v.ch, op, c, const_first, ch, v.dims.size());
      } catch (const overflow&) {
        fail("the requantization constants overflow 64 bits");
      }
      const bool closes = op == "Clip" || op == "Relu";
      set_act(node_->output(0), std::move(v));
      if (closes) close(node_->output(0), act_of(node_->output(0)));
      return;
    }
    close(xin, x);
  }
  if (op == "Max" || op == "Min") {
    // On a finished output: a no-op only if it cannot change u8 values.
    const double b = c->v.size() == 1 ? c->v[0] : 0.0;
    if (c->v.size() != 1 || (op == "Max" && !(b <= 0)) || (op == "Min" && !(b >= 255)))
      fail("a Max/Min on a finished layer output that is not a no-op");
    value v = plain(xin);
    set_act(node_->output(0), std::move(v));
    return;
  }
  if (op == "Relu" || op == "Clip") {
    // On a finished output: a no-op only if it cannot change u8 values.
    value v = plain(xin);
    if (op == "Clip") {
      const auto [lo, hi] = clip_bounds();
      if (lo > 0 || hi < 255) fail("a Clip on a finished layer output that is not a no-op");
    }
    set_act(node_->output(0), std::move(v));
    return;
  }
  if (op == "Cast") {
    value v = x;
    if (v.f != form::plain && v.f != form::scaled) fail("unsupported input for Cast");
    set_act(node_->output(0), std::move(v));
    return;
  }
  // Input rescale of a residual Add: ((x * mul + add) >> shift).
  value v = x;
  if (v.f == form::plain) {
    v.f = form::scaled;
    v.rs = {};
    v.pending_shift = -1;
  } else if (v.f != form::scaled) {
    fail("unsupported input");
  }
  if (c != nullptr && c->size() != 1)
    fail("a per-channel constant on a layer output (residual rescale) is not supported");
  const double k = c != nullptr ? c->v[0] : 0.0;
  auto i32 = [&](double d) {
    if (!integral(d) || d < INT32_MIN || d > INT32_MAX)
      fail("rescale constant is not a 32-bit integer");
    return static_cast<std::int32_t>(d);
  };
  if (op == "Mul") {
    if (v.rs.shift != 0 || v.pending_shift >= 0) fail("Mul after a shift in a residual rescale");
    const i64 m = i64{v.rs.mul} * i32(k), a = i64{v.rs.add} * i32(k);
    v.rs.mul = i32(static_cast<double>(m));
    v.rs.add = i32(static_cast<double>(a));
  } else if (op == "Add" || op == "Sub") {
    if (v.rs.shift != 0 || v.pending_shift >= 0) fail("Add after a shift in a residual rescale");
    v.rs.add = i32(static_cast<double>(i64{v.rs.add} + (op == "Sub" ? -1 : 1) * i64{i32(k)}));
  } else if (op == "Div") {
    const i64 d = i32(k);
    if (d <= 0 || (d & (d - 1)) != 0) fail("a residual rescale may only divide by a power of two");
    int s = 0;
    while ((i64{1} << s) < d) ++s;
    if (v.pending_shift >= 0 || v.rs.shift != 0) fail("two divisions in a residual rescale");
    v.pending_shift = s;
  } else if (op == "Floor") {
    if (v.pending_shift < 0) {
      // floor of an integer: nothing to do
    } else {
      v.rs.shift = v.pending_shift;
      v.pending_shift = -1;
    }
  } else {
    fail("unsupported op on a layer output");
  }
  set_act(node_->output(0), std::move(v));
}

imported_network importer::run() {
  const auto& g = model_.graph();
  for (const auto& o : model_.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") net_.opset = static_cast<int>(o.version());
  // Constants.
  for (const auto& t : g.initializer()) {
    if (t.name().empty()) throw import_error("(graph)", "", "an initializer has no name");
    try {
      consts_[t.name()] = read_tensor(t);
    } catch (const import_error& e) {
      throw import_error("initializer '" + t.name() + "'", "", e.reason());
    }
  }
  // The activation input.
  std::vector<const ::onnx::ValueInfoProto*> inputs;
  for (const auto& in : g.input())
    if (!consts_.contains(in.name())) inputs.push_back(&in);
  if (inputs.size() != 1)
    throw import_error("(graph)", "",
                       "expected one activation input, found " + std::to_string(inputs.size()));
  const auto& in = *inputs[0];
  std::vector<i64> dims;
  if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
    throw import_error("input '" + in.name() + "'", "", "the input has no tensor shape");
  for (const auto& d : in.type().tensor_type().shape().dim()) {
    // A symbolic batch dimension is 1; any other dimension must be known.
    if (!d.has_dim_value() && !dims.empty())
      throw import_error("input '" + in.name() + "'", "", "the input has a symbolic dimension");
    dims.push_back(d.has_dim_value() ? d.dim_value() : 1);
  }
  if (dims.size() < 2 || dims.size() > 4)
    throw import_error("input '" + in.name() + "'", "", "the input must have rank 2, 3 or 4");
  for (i64 d : dims)
    if (d <= 0 || d > max_dim)
      throw import_error("input '" + in.name() + "'", "",
                         "bad input dimension " + std::to_string(d));
  if (dims[0] != 1) throw import_error("input '" + in.name() + "'", "", "batch size must be 1");
  net_.input_tensor = in.name();
  {
    value v;
    v.dims = dims;
    v.layer = 0;
    const int c = static_cast<int>(dims[1]);
    const int h = dims.size() == 4 ? static_cast<int>(dims[2]) : 1;
    const int w = dims.size() == 4   ? static_cast<int>(dims[3])
                  : dims.size() == 3 ? static_cast<int>(dims[2])
                                     : 1;
    layer l = input(h, w, c).named("input");
    if (opt_.input_range) {
      const value_range r = *opt_.input_range;
      if (!(r.lo <= r.hi) || !r.fits_8bit())
        throw import_error("input '" + in.name() + "'", "",
                           "the declared input range " + std::to_string(r.lo) + ".." +
                               std::to_string(r.hi) + " does not fit an 8-bit container");
      l = l.range(r.lo, r.hi);
    }
    net_.layers.push_back(l);
    net_.data.emplace_back();
    net_.golden.push_back(-1);
    net_.nodes.push_back("input '" + in.name() + "'");
    build_.push_back({true, in.name()});
    dims_.push_back(dims);
    acts_[in.name()] = v;
  }
  // Consumers.
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& x : g.node(i).input())
      if (!x.empty()) {
        ++consumers_[x];
        consumer_nodes_[x].push_back(i);
      }
  for (const auto& o : g.output()) {
    ++consumers_[o.name()];
    graph_outputs_.push_back(o.name());
  }
  for (const auto& t : g.initializer()) static_const_.insert(t.name());
  for (const auto& n : g.node()) {
    bool all = n.op_type() == "Constant" || n.op_type() == "Shape";
    if (!all && n.input_size() > 0) {
      all = true;
      for (const auto& x : n.input()) all = all && (x.empty() || static_const_.contains(x));
    }
    if (all)
      for (const auto& o : n.output()) static_const_.insert(o);
  }
  // Walk.
  for (int i = 0; i < g.node_size(); ++i) {
    node_ = &g.node(i);
    node_index_ = i;
    const std::string& op = node_->op_type();
    if (!node_->domain().empty() && node_->domain() != "ai.onnx")
      fail("operator domain '" + node_->domain() + "' is not supported");
    if (node_->output_size() < 1 || node_->output(0).empty()) fail("a node without output");
    for (const auto& o : node_->output())
      if (acts_.contains(o) || consts_.contains(o)) fail("tensor '" + o + "' is produced twice");
    if (op == "Constant") {
      on_constant();
      continue;
    }
    check_inputs_known();
    bool all_const = node_->input_size() > 0;
    for (const auto& x : node_->input()) all_const = all_const && (x.empty() || is_const(x));
    if (all_const) {
      fold_constants();
      continue;
    }
    if (op == "Conv") {
      on_conv();
    } else if (op == "Gemm" || op == "MatMul") {
      on_fc(op == "Gemm");
    } else if (op == "MaxPool") {
      on_pool(true, false);
    } else if (op == "AveragePool") {
      on_pool(false, false);
    } else if (op == "GlobalAveragePool") {
      on_pool(false, true);
    } else if (op == "Pad") {
      on_pad();
    } else if (op == "Add" && node_->input_size() == 2 && !is_const(in_(0)) && !is_const(in_(1))) {
      on_residual_add(in_(0), in_(1));
    } else if (op == "Mul" || op == "Add" || op == "Sub" || op == "Div" || op == "Floor" ||
               op == "Cast" || op == "Clip" || op == "Relu" ||
               ((op == "Max" || op == "Min") && node_->input_size() == 2)) {
      on_elementwise();
    } else if (op == "Flatten") {
      on_flatten(false);
    } else if (op == "Reshape") {
      on_flatten(true);
    } else if (op == "Shape") {
      fold_constants();
    } else if (op == "Identity" || op == "Dropout") {
      on_passthrough();
    } else if (op == "Gather") {
      on_terminal(epilogue_kind::gather);
    } else if (op == "Unsqueeze" || op == "Squeeze") {
      value& x = act_of(in_(0));
      if (x.f != form::epilogue) fail("Unsqueeze/Squeeze is only supported after the last layer");
      value v = x;
      set_act(node_->output(0), std::move(v));
    } else if (op == "Sigmoid") {
      on_terminal(epilogue_kind::sigmoid);
    } else if (op == "Softmax") {
      on_terminal(epilogue_kind::softmax);
    } else if (op == "LogSoftmax") {
      on_terminal(epilogue_kind::log_softmax);
    } else {
      fail("unsupported op");
    }
  }
  node_ = nullptr;
  // Graph outputs.
  for (const auto& o : g.output()) {
    auto it = acts_.find(o.name());
    if (it == acts_.end()) {
      if (consts_.contains(o.name())) continue;
      throw import_error("output '" + o.name() + "'", "",
                         "dangling graph output: nothing produces it");
    }
    if (it->second.f == form::chain) close(o.name(), it->second);
    const value& v = it->second;
    if (v.f != form::plain && v.f != form::epilogue && v.f != form::flat)
      throw import_error("output '" + o.name() + "'", "", "the graph output is not a layer output");
    net_.outputs.push_back(
        {o.name(), v.layer, v.f == form::epilogue ? v.steps : std::vector<epilogue_step>{}});
  }
  // Layers whose chain never reached a consumer.
  for (auto& [name, v] : acts_)
    if (v.f == form::chain && !build_[static_cast<std::size_t>(v.layer)].closed) close(name, v);
  if (net_.layers.size() < 2) throw import_error("(graph)", "", "the graph has no layer");
  // Shape inference by ctile, as a cross-check of the importer's own bookkeeping.
  const diagnostic d = infer(net_.layers);
  if (!d.ok()) {
    const auto li = static_cast<std::size_t>(d.layer >= 0 ? d.layer : 0);
    throw import_error(net_.nodes[li], "",
                       "ctile rejects the layer: " + problem_text(d, net_.layers[li]));
  }
  for (std::size_t i = 0; i < net_.layers.size(); ++i) {
    node_ = nullptr;
    const std::vector<i64> dv = dims_[i];
    value v;
    v.dims = dv;
    if (!(shape_of(v) == net_.layers[i].out))
      throw import_error(net_.nodes[i], "", "internal: the tracked shape differs from ctile's");
  }
  const auto ps = net_.params();
  const params_problem pp = check_params(net_.layers, ps);
  if (!pp.ok())
    throw import_error(net_.nodes[static_cast<std::size_t>(pp.layer)], "",
                       std::string("internal: ") + field_name(pp.what) + " has the wrong size");
  return std::move(net_);
}

}  // namespace

std::optional<value_range> read_export_config(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open the export configuration '" + path + "'");
  std::ostringstream ss;
  ss << f.rdbuf();
  const std::string t = ss.str();
  // The value after "key": in a flat JSON object (DORY's config files are flat).
  const auto value_of = [&](const std::string& key) -> std::optional<std::string> {
    const auto k = t.find("\"" + key + "\"");
    if (k == std::string::npos) return std::nullopt;
    auto c = t.find(':', k + key.size() + 2);
    if (c == std::string::npos) return std::nullopt;
    ++c;
    while (c < t.size() && (t[c] == ' ' || t[c] == '\t' || t[c] == '\n' || t[c] == '\r')) ++c;
    auto e = c;
    while (e < t.size() && t[e] != ',' && t[e] != '}' && t[e] != '\n') ++e;
    std::string v = t.substr(c, e - c);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\r' || v.back() == '\t')) v.pop_back();
    return v;
  };
  const auto bits = value_of("input_bits");
  if (!bits) return std::nullopt;
  int b = 0;
  try {
    std::size_t used = 0;
    b = std::stoi(*bits, &used);
    if (used != bits->size()) b = 0;
  } catch (const std::exception&) {
    b = 0;
  }
  if (b < 1 || b > 8)
    throw std::runtime_error(path + ": input_bits " + *bits + " is not a width of 1..8 bits");
  const auto sg = value_of("input_signed");
  const bool is_signed = sg && *sg == "true";
  if (sg && *sg != "true" && *sg != "false")
    throw std::runtime_error(path + ": input_signed " + *sg + " is neither true nor false");
  if (is_signed && b < 2) throw std::runtime_error(path + ": a signed input needs 2 bits or more");
  return is_signed ? signed_range(b) : unsigned_range(b);
}

std::string find_export_config(const std::string& dir) {
  namespace fs = std::filesystem;
  std::string found;
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string f = e.path().filename().string();
    if (f.rfind("config", 0) == 0 && f.size() > 5 && f.substr(f.size() - 5) == ".json") {
      found = e.path().string();
      ++n;
    }
  }
  return n == 1 ? found : std::string{};
}

imported_network import_onnx_bytes(std::string_view bytes, const import_options& options) {
  if (bytes.size() > options.max_file_bytes)
    throw import_error("(file)", "", "the file is larger than the limit");
  ::onnx::ModelProto m;
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
      !m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw import_error("(file)", "", "not a valid ONNX model (malformed or truncated protobuf)");
  if (!m.has_graph()) throw import_error("(file)", "", "the model has no graph");
  try {
    importer imp(m, options);
    return imp.run();
  } catch (const overflow&) {
    throw import_error("(graph)", "", "integer overflow in the constants");
  } catch (const std::out_of_range& e) {
    throw import_error("(graph)", "", std::string("missing value: ") + e.what());
  }
}

imported_network import_onnx(const std::string& path, const import_options& options) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw import_error("(file)", "", "cannot open '" + path + "'");
  std::ostringstream ss;
  ss << f.rdbuf();
  const std::string bytes = ss.str();
  if (bytes.empty()) throw import_error("(file)", "", "'" + path + "' is empty");
  return import_onnx_bytes(bytes, options);
}

}  // namespace ctile::onnx
