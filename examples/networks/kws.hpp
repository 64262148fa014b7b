// A keyword-spotting network of the DS-CNN family (12 layers): 49x10x1 input (49 frames of 10
// MFCCs), conv 3x3/2 x64, four depthwise-separable blocks (depthwise 3x3, pointwise x64),
// global average pool, fully connected 12 (int32 logits). Declared as README.md teaches.
#pragma once

#include <ctile/ctile.hpp>

#include "common/synthetic.hpp"

namespace ctile::examples {

using kws = network<
    input(49, 10, 1),                                                                      //
    conv2d(64, 3).strides(2).padded(1).bn().requantized(1, divisor_for(9)).named("conv"),  //
    depthwise(3).same().bn().requantized(1, divisor_for(9)).named("dw1"),                  //
    pointwise(64).bn().requantized(1, divisor_for(64)).named("pw1"),                       //
    depthwise(3).same().bn().requantized(1, divisor_for(9)).named("dw2"),                  //
    pointwise(64).bn().requantized(1, divisor_for(64)).named("pw2"),                       //
    depthwise(3).same().bn().requantized(1, divisor_for(9)).named("dw3"),                  //
    pointwise(64).bn().requantized(1, divisor_for(64)).named("pw3"),                       //
    depthwise(3).same().bn().requantized(1, divisor_for(9)).named("dw4"),                  //
    pointwise(64).bn().requantized(1, divisor_for(64)).named("pw4"),                       //
    global_avgpool().named("pool"),                                                        //
    linear(12).with_bias().raw().named("fc")>;
static_assert(kws::size == 12);
static_assert(kws::layers[1].out == shape{25, 5, 64});

}  // namespace ctile::examples
