// A CIFAR-10 style CNN: 32x32x3 input, conv 3x3 x32, x32, 2x2 max pool, conv 3x3 x64, x64,
// 2x2 max pool, fully connected 10 (int32 logits).
#pragma once

#include <ctile/ctile.hpp>

#include "common/synthetic.hpp"

namespace ctile::examples {

using cifar10_cnn =
    network<input(32, 32, 3),                                                           //
            conv2d(32, 3).same().bn().requantized(1, divisor_for(27)).named("conv1"),   //
            conv2d(32, 3).same().bn().requantized(1, divisor_for(288)).named("conv2"),  //
            maxpool(2).named("pool1"),                                                  //
            conv2d(64, 3).same().bn().requantized(1, divisor_for(288)).named("conv3"),  //
            conv2d(64, 3).same().bn().requantized(1, divisor_for(576)).named("conv4"),  //
            maxpool(2).named("pool2"),                                                  //
            linear(10).with_bias().raw().named("fc")>;

}  // namespace ctile::examples
