// Chooses the intrinsics backend at compile time:
//   CORE-V inline assembly  when the compiler targets xcvsimd (clang-19 -march=..._xcvsimd...),
//   PULP builtins           when CTILE_KERNELS_PULP is defined (a PULP GCC/LLVM),
//   portable C++            otherwise, or whenever CTILE_KERNELS_PORTABLE is defined.
// `ctile::kernels::isa` names the chosen one; every backend offers the same functions.
#pragma once

#if defined(CTILE_KERNELS_PORTABLE)
#include "ctile/kernels/arch/portable.hpp"
#define CTILE_KERNELS_ISA_PORTABLE 1
namespace ctile::kernels {
namespace isa = arch::portable;
}
#elif defined(__riscv_xcvsimd)
#include "ctile/kernels/arch/corev.hpp"
#define CTILE_KERNELS_ISA_COREV 1
namespace ctile::kernels {
namespace isa = arch::corev;
}
#elif defined(CTILE_KERNELS_PULP)
#include "ctile/kernels/arch/pulp.hpp"
#define CTILE_KERNELS_ISA_PULP 1
namespace ctile::kernels {
namespace isa = arch::pulp;
}
#else
#include "ctile/kernels/arch/portable.hpp"
#define CTILE_KERNELS_ISA_PORTABLE 1
namespace ctile::kernels {
namespace isa = arch::portable;
}
#endif
