#include "ctile/onnx/import.hpp"
