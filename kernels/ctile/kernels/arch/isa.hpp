// Chooses the intrinsics backend at compile time:
//   XpulpV2 .insn words     when CTILE_KERNELS_XPULPV2 is defined (GAP-8 / PULP cluster cores
//                           from a stock GCC or clang, -march=rv32imc),
//   CORE-V inline assembly  when the compiler targets xcvsimd (clang-19 -march=..._xcvsimd...),
//   PULP builtins           when CTILE_KERNELS_PULP is defined (a PULP GCC/LLVM),
//   portable C++            otherwise, or whenever CTILE_KERNELS_PORTABLE is defined.
// `ctile::kernels::isa` names the chosen one; every backend offers the same functions.
// CTILE_KERNELS_ISA_LOOPS: the backend has the assembly inner loops (mm4x2, mm4x1, dot,
// mm4x2_rows, the depthwise column loops, the fused 4x4 run mm4x4_run).
#pragma once

#if defined(CTILE_KERNELS_PORTABLE)
#include "ctile/kernels/arch/portable.hpp"
#define CTILE_KERNELS_ISA_PORTABLE 1
namespace ctile::kernels {
namespace isa = arch::portable;
}
#elif defined(CTILE_KERNELS_XPULPV2)
#include "ctile/kernels/arch/xpulpv2.hpp"
#define CTILE_KERNELS_ISA_XPULPV2 1
#define CTILE_KERNELS_ISA_LOOPS 1
namespace ctile::kernels {
namespace isa = arch::xpulpv2;
}
#elif defined(__riscv_xcvsimd)
#include "ctile/kernels/arch/corev.hpp"
#define CTILE_KERNELS_ISA_COREV 1
#define CTILE_KERNELS_ISA_LOOPS 1
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
