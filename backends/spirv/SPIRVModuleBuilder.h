//===- SPIRVModuleBuilder.h - Writing SPIR-V words ---------------*- C++
//-*-===//
//
// The binary side of the emitter: ids, the logical sections of a module
// (SPIR-V fixes their order, but we only learn e.g. the capabilities after
// the function is written), and declarations of types and constants, each
// made once (SPIR-V forbids duplicate non-aggregate types). Knows nothing
// about LLVM IR.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_BACKENDS_SPIRV_SPIRVMODULEBUILDER_H
#define HPVM_BACKENDS_SPIRV_SPIRVMODULEBUILDER_H

#include "hpvm/abi/SPIRVABI.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <spirv/unified1/spirv.hpp11>

#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace hpvm::spirv {

using Words = std::vector<uint32_t>;

/// Appends one instruction (word count and opcode, then the operands).
void emitInst(Words &Section, spv::Op Op, llvm::ArrayRef<uint32_t> Operands);
/// Appends a literal string operand: UTF-8, NUL-terminated, padded to words.
void appendString(Words &Operands, llvm::StringRef S);

class ModuleBuilder {
public:
  explicit ModuleBuilder(SPIRVFlavour Flavour);

  SPIRVFlavour flavour() const { return Flavour; }
  bool isVulkan() const { return Flavour == SPIRVFlavour::Vulkan; }
  uint32_t newId() { return NextId++; }

  void addCapability(spv::Capability C) { Capabilities.insert(C); }
  /// The one extended instruction set the flavour uses (GLSL.std.450 or
  /// OpenCL.std), imported on first use.
  uint32_t extInstSet();

  // Types: one declaration each. Integers are declared without signedness
  // (the Kernel environment requires it; operations carry the sign).
  uint32_t voidType();
  uint32_t boolType();
  uint32_t intType(unsigned Bits);
  uint32_t floatType(unsigned Bits);
  uint32_t vectorType(uint32_t Element, unsigned Count);
  uint32_t arrayType(uint32_t Element, uint32_t Length);
  uint32_t pointerType(spv::StorageClass SC, uint32_t Pointee);
  uint32_t functionType(uint32_t Result, llvm::ArrayRef<uint32_t> Params);
  /// Structs are not shared: each gets its own decorations.
  uint32_t structType(llvm::ArrayRef<uint32_t> Members);

  // Constants: one declaration each.
  uint32_t constBool(bool V);
  /// An integer constant of Bits bits (the low Bits bits of V).
  uint32_t constInt(unsigned Bits, uint64_t V);
  /// A float constant from its bit pattern.
  uint32_t constFloatBits(unsigned Bits, uint64_t Pattern);
  uint32_t constComposite(uint32_t Type, llvm::ArrayRef<uint32_t> Elements);
  uint32_t constNull(uint32_t Type);
  /// A 64-bit unsigned specialization constant, 0 unless specialised.
  uint32_t specConstantU64(uint32_t SpecId);
  /// The WorkgroupSize built-in as three 32-bit specialization constants of
  /// ids FirstSpecId, +1, +2 (x, y, z), 1 unless specialised.
  void specializableWorkgroupSize(uint32_t FirstSpecId);
  uint32_t undef(uint32_t Type);

  /// A module-scope OpVariable (Init = 0: none).
  uint32_t globalVariable(uint32_t PointerType, spv::StorageClass SC,
                          uint32_t Init = 0);

  void name(uint32_t Id, llvm::StringRef Name);
  void memberName(uint32_t Struct, uint32_t Member, llvm::StringRef Name);
  void decorate(uint32_t Id, spv::Decoration D,
                llvm::ArrayRef<uint32_t> Literals = {});
  void memberDecorate(uint32_t Struct, uint32_t Member, spv::Decoration D,
                      llvm::ArrayRef<uint32_t> Literals = {});

  /// The function bodies (OpFunction ... OpFunctionEnd) go here.
  Words &functions() { return Functions; }

  /// The whole module: header, capabilities, memory model, one entry point
  /// (with its interface and LocalSize; none where LocalSize is all 0),
  /// debug names, decorations, types and globals, functions.
  Words finish(uint32_t EntryFunction, llvm::StringRef EntryName,
               llvm::ArrayRef<uint32_t> Interface,
               const std::array<uint32_t, 3> &LocalSize);

  /// The capabilities declared so far (valid after finish).
  std::vector<uint32_t> capabilities() const;

private:
  uint32_t cached(spv::Op Op, llvm::ArrayRef<uint32_t> Operands,
                  bool ResultTypeFirst);

  SPIRVFlavour Flavour;
  uint32_t NextId = 1;
  uint32_t ExtInstSet = 0;
  std::set<spv::Capability> Capabilities;
  /// Widths of the float types declared: each gets C's IEEE semantics for
  /// infinities, NaNs and signed zeros (finish()).
  std::set<unsigned> FloatWidths;
  Words Names, Annotations, Globals, Functions;
  /// (opcode, operands without the result id) -> result id.
  std::map<Words, uint32_t> Cache;
};

} // namespace hpvm::spirv

#endif // HPVM_BACKENDS_SPIRV_SPIRVMODULEBUILDER_H
