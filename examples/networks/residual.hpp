// A small ResNet-style network: a 3x3 stem, two basic blocks at 16 channels (identity
// shortcuts), a downsampling block at 32 channels with a 1x1 stride-2 shortcut, global
// average pool, FC 10 (int32 logits).
#pragma once

#include <ctile/ctile.hpp>

#include "common/synthetic.hpp"

namespace ctile::examples {

using resnet_small = network<
    input(32, 32, 3),                                                                            //
    conv2d(16, 3).same().bn().requantized(1, divisor_for(27)).named("stem"),                     //
    conv2d(16, 3).same().bn().requantized(1, divisor_for(144)).named("b1_conv1"),                //
    conv2d(16, 3).same().bn().requantized(1, divisor_for(144)).named("b1_conv2"),                //
    add("stem").scaled(0, half).scaled(1, half).named("b1_add"),                                 //
    conv2d(16, 3).same().bn().requantized(1, divisor_for(144)).named("b2_conv1"),                //
    conv2d(16, 3).same().bn().requantized(1, divisor_for(144)).named("b2_conv2"),                //
    add("b1_add").scaled(0, half).scaled(1, half).named("b2_add"),                               //
    conv2d(32, 3).strides(2).padded(1).bn().requantized(1, divisor_for(144)).named("b3_conv1"),  //
    conv2d(32, 3).same().bn().requantized(1, divisor_for(288)).named("b3_conv2"),                //
    conv2d(32, 1)
        .strides(2)
        .bn()
        .requantized(1, divisor_for(16))
        .from("b2_add")
        .named("b3_short"),                                           //
    add("b3_conv2").scaled(0, half).scaled(1, half).named("b3_add"),  //
    global_avgpool().named("pool"),                                   //
    linear(10).with_bias().raw().named("fc")>;

}  // namespace ctile::examples
