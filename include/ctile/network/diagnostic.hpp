// What shape inference can find wrong with a declared network, as a value, and how the
// compiler reports it: each problem instantiates a template whose name and arguments read as
// the sentence (layer index, layer name, kind, and the numbers), with a static_assert message.
#pragma once

#include "ctile/core/fixed_string.hpp"
#include "ctile/layers/layer.hpp"

namespace ctile {

enum class problem : unsigned char {
  none,
  first_layer_not_input,
  input_not_first,
  bad_input_shape,
  unknown_source,
  source_not_earlier,
  input_channels,
  add_shapes_differ,
  window_too_large,
  bad_geometry,
  padding_not_smaller_than_kernel,
  bad_channel_count,
  int32_output_consumed,
  bad_requant,
  duplicate_name,
  bad_rescale,
  bad_dilation,
  bad_input_range,
  windows_miss_input,
};

/// The first problem found in a network (problem::none if there is none).
struct diagnostic {
  problem what = problem::none;
  int layer = -1;  ///< index of the layer at fault
  op kind = op::input;
  name_t name{};   ///< its name, if it has one
  int v[6] = {};   ///< the numbers, by problem (see the error templates below)
  name_t other{};  ///< a name the layer refers to, where relevant
  [[nodiscard]] constexpr bool ok() const { return what == problem::none; }
};

/// Errors as types. Their arguments are what the compiler prints; their assertion says why.
namespace error {

template <int Layer, auto Name, op Kind>
struct first_layer_must_be_an_input {
  static_assert(Layer < 0, "the first layer of a network must be ctile::input(h, w, c)");
};
template <int Layer, auto Name>
struct only_the_first_layer_may_be_an_input {
  static_assert(Layer < 0, "an input layer may only stand first in a network");
};
template <int H, int W, int C>
struct network_input_shape_must_be_positive {
  static_assert(H < 0, "the network input needs a positive height, width and channel count");
};
template <int Layer, auto Name, op Kind, auto RefersTo>
struct layer_takes_input_from_an_unknown_name {
  static_assert(Layer < 0,
                "a layer refers to an input by a name that no earlier layer has (see RefersTo)");
};
template <int Layer, auto Name, op Kind, int Source>
struct layer_takes_input_from_a_layer_that_is_not_earlier {
  static_assert(Layer < 0,
                "a layer can only take its input from an earlier layer (Source < Layer)");
};
template <int Layer, auto Name, op Kind, int KernelH, int KernelW, int ExpectsInputChannels,
          int SourceLayer, int SourceProduces>
struct layer_expects_other_input_channels {
  static_assert(ExpectsInputChannels == SourceProduces,
                "a layer expects a different number of input channels than the layer feeding "
                "it produces");
};
template <int Layer, auto Name, int FirstH, int FirstW, int FirstC, int SecondH, int SecondW,
          int SecondC>
struct residual_add_inputs_differ_in_shape {
  static_assert(Layer < 0, "a residual add needs two inputs of the same H x W x C shape");
};
template <int Layer, auto Name, op Kind, int KernelH, int KernelW, int PaddedInputH,
          int PaddedInputW>
struct window_larger_than_padded_input {
  static_assert(Layer < 0, "a layer's kernel window does not fit in its (padded) input even once");
};
template <int Layer, auto Name, op Kind, int KernelH, int KernelW, int StrideH, int StrideW>
struct kernel_and_stride_must_be_positive {
  static_assert(Layer < 0, "kernel sizes and strides must be positive, and padding not negative");
};
template <int Layer, auto Name, op Kind, int KernelH, int KernelW, int PadT, int PadB, int PadL,
          int PadR>
struct padding_must_be_smaller_than_kernel {
  static_assert(Layer < 0,
                "each side's padding of a pool must be smaller than its window along that axis");
};
template <int Layer, auto Name, op Kind, int KernelH, int KernelW, int DilationH, int DilationW>
struct dilation_must_be_positive_and_only_on_convolutions {
  static_assert(Layer < 0,
                "dilations must be at least 1, and only a conv or depthwise layer may be dilated");
};
template <int Layer, auto Name, op Kind, int WindowH, int WindowW, int PadT, int PadB, int PadL,
          int PadR>
struct every_window_lies_in_padding {
  static_assert(Layer < 0,
                "no output window of the layer reads its input along an axis: its padding "
                "exceeds the input on that side");
};
template <int Layer, auto Name, op Kind, int Channels>
struct channel_count_must_be_positive {
  static_assert(Layer < 0, "a conv or linear layer needs a positive number of output channels");
};
template <int Layer, auto Name, op Kind, int Source>
struct int32_output_cannot_feed_another_layer {
  static_assert(Layer < 0,
                "a linear layer with raw int32 output (.raw()) can only be a network output");
};
template <int Layer, auto Name, op Kind, int M, int D, int Lo, int Hi>
struct requantization_out_of_range {
  static_assert(Layer < 0,
                "requantization needs d > 0 and a clip lo <= hi inside an 8-bit container "
                "(0..255 or -128..127); only an add or an average pool may be unclipped");
};
template <int Layer, int Lo, int Hi>
struct network_input_range_must_fit_8_bits {
  static_assert(Layer < 0, "the network input's range must be lo <= hi inside 0..255 or -128..127");
};
template <int Layer, auto Name, int FirstLayerWithThatName>
struct two_layers_share_a_name {
  static_assert(Layer < 0, "layer names must be unique");
};
template <int Layer, auto Name, int Input, int Shift>
struct residual_rescale_shift_out_of_range {
  static_assert(Layer < 0, "a residual rescale shift must lie in 0..31");
};

}  // namespace error

/// Instantiates the error type that describes `D` (a no-op for a network without problems).
template <diagnostic D>
consteval bool report() {
  constexpr auto& v = D.v;
  // Names are passed as exactly-sized strings so that the compiler prints them cleanly.
  constexpr fixed_string<D.name.size() + 1> name{D.name};
  constexpr fixed_string<D.other.size() + 1> other{D.other};
  if constexpr (D.what == problem::first_layer_not_input) {
    (void)error::first_layer_must_be_an_input<D.layer, name, D.kind>{};
  } else if constexpr (D.what == problem::input_not_first) {
    (void)error::only_the_first_layer_may_be_an_input<D.layer, name>{};
  } else if constexpr (D.what == problem::bad_input_shape) {
    (void)error::network_input_shape_must_be_positive<v[0], v[1], v[2]>{};
  } else if constexpr (D.what == problem::unknown_source) {
    (void)error::layer_takes_input_from_an_unknown_name<D.layer, name, D.kind, other>{};
  } else if constexpr (D.what == problem::source_not_earlier) {
    (void)error::layer_takes_input_from_a_layer_that_is_not_earlier<D.layer, name, D.kind, v[0]>{};
  } else if constexpr (D.what == problem::input_channels) {
    (void)error::layer_expects_other_input_channels<D.layer, name, D.kind, v[0], v[1], v[2], v[3],
                                                    v[4]>{};
  } else if constexpr (D.what == problem::add_shapes_differ) {
    (void)error::residual_add_inputs_differ_in_shape<D.layer, name, v[0], v[1], v[2], v[3], v[4],
                                                     v[5]>{};
  } else if constexpr (D.what == problem::window_too_large) {
    (void)error::window_larger_than_padded_input<D.layer, name, D.kind, v[0], v[1], v[2], v[3]>{};
  } else if constexpr (D.what == problem::bad_geometry) {
    (void)
        error::kernel_and_stride_must_be_positive<D.layer, name, D.kind, v[0], v[1], v[2], v[3]>{};
  } else if constexpr (D.what == problem::padding_not_smaller_than_kernel) {
    (void)error::padding_must_be_smaller_than_kernel<D.layer, name, D.kind, v[0], v[1], v[2], v[3],
                                                     v[4], v[5]>{};
  } else if constexpr (D.what == problem::bad_channel_count) {
    (void)error::channel_count_must_be_positive<D.layer, name, D.kind, v[0]>{};
  } else if constexpr (D.what == problem::int32_output_consumed) {
    (void)error::int32_output_cannot_feed_another_layer<D.layer, name, D.kind, v[0]>{};
  } else if constexpr (D.what == problem::bad_requant) {
    (void)error::requantization_out_of_range<D.layer, name, D.kind, v[0], v[1], v[2], v[3]>{};
  } else if constexpr (D.what == problem::duplicate_name) {
    (void)error::two_layers_share_a_name<D.layer, name, v[0]>{};
  } else if constexpr (D.what == problem::bad_rescale) {
    (void)error::residual_rescale_shift_out_of_range<D.layer, name, v[0], v[1]>{};
  } else if constexpr (D.what == problem::windows_miss_input) {
    (void)error::every_window_lies_in_padding<D.layer, name, D.kind, v[0], v[1], v[2], v[3], v[4],
                                              v[5]>{};
  } else if constexpr (D.what == problem::bad_dilation) {
    (void)error::dilation_must_be_positive_and_only_on_convolutions<D.layer, name, D.kind, v[0],
                                                                    v[1], v[2], v[3]>{};
  } else if constexpr (D.what == problem::bad_input_range) {
    (void)error::network_input_range_must_fit_8_bits<D.layer, v[0], v[1]>{};
  }
  return D.ok();
}

}  // namespace ctile
