//===- Locals.h - Facts about a function's locals --------------*- C++ -*-===//
//
// Shared by the liveness of the site's own locals (HeapLiveness.cpp) and of
// its callers' locals (FrameLiveness.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef CCC_PASS_LOCALS_H
#define CCC_PASS_LOCALS_H

#include <cstdint>
#include <string>

namespace llvm {
class AllocaInst;
class Instruction;
class SCEV;
class ScalarEvolution;
} // namespace llvm

namespace ccc {
// The smallest local worth leaving out of an image (bytes): smaller ones
// are not worth a slot of the runtime's table (kMaxDeadAtSite).
constexpr uint64_t kMinDeadLocal = 4096;

// The bytes of a static local of kMinDeadLocal bytes or more, else 0.
uint64_t largeLocalBytes(const llvm::AllocaInst &V);
// Those bytes as an i64 expression.
const llvm::SCEV *localBytesSCEV(const llvm::AllocaInst &V,
                                 llvm::ScalarEvolution &SE);

// "VAR in function" of a local (its IR name or, without debug information
// and names, its bytes), for `ckpt info`.
std::string localPlace(llvm::AllocaInst &V);

// Whether the local V holds its own memory at S: it has no lifetime
// markers (its slot is its own for the whole call), or every path to S
// passes a lifetime.start and no path from a lifetime.end reaches S
// without passing a lifetime.start again. Stack coloring gives one slot to
// locals whose lifetimes do not overlap, so a local outside its lifetime
// at S may share its slot with a live one.
bool ownsSlotAt(const llvm::AllocaInst &V, const llvm::Instruction &S);
} // namespace ccc
#endif
