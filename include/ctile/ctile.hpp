// ctile: compile-time tiled quantized neural networks for PULP/GAP-8 microcontrollers.
#pragma once

#include "ctile/core/fixed_string.hpp"
#include "ctile/core/geometry.hpp"
#include "ctile/core/split.hpp"
#include "ctile/layers/layer.hpp"
#include "ctile/layers/quant.hpp"
#include "ctile/network/diagnostic.hpp"
#include "ctile/network/infer.hpp"
#include "ctile/network/network.hpp"
#include "ctile/network/params.hpp"
