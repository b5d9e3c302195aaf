//===- SPIRVModuleBuilder.cpp - Writing SPIR-V words ----------------------===//
//
// Layout of a module (SPIR-V 2.4, "Logical Layout of a Module"): capabilities,
// extended instruction imports, the memory model, entry points, execution
// modes, debug names, annotations, then types, constants and global
// variables in the order they are needed, then functions.
//
//===----------------------------------------------------------------------===//
#include "SPIRVModuleBuilder.h"

#include <cassert>

using namespace llvm;

namespace hpvm::spirv {

void emitInst(Words &Section, spv::Op Op, ArrayRef<uint32_t> Operands) {
  assert(Operands.size() + 1 < 0x10000 && "instruction too long");
  Section.push_back(static_cast<uint32_t>(Operands.size() + 1) << 16 |
                    static_cast<uint32_t>(Op));
  Section.insert(Section.end(), Operands.begin(), Operands.end());
}

void appendString(Words &Operands, StringRef S) {
  // Characters fill each word from its low byte; the terminating NUL always
  // fits, in a word of its own if need be.
  uint32_t Word = 0;
  unsigned Byte = 0;
  for (char C : S) {
    Word |= static_cast<uint32_t>(static_cast<unsigned char>(C)) << (8 * Byte);
    if (++Byte == 4) {
      Operands.push_back(Word);
      Word = 0;
      Byte = 0;
    }
  }
  Operands.push_back(Word);
}

ModuleBuilder::ModuleBuilder(SPIRVFlavour Flavour) : Flavour(Flavour) {
  if (isVulkan()) {
    addCapability(spv::Capability::Shader);
    addCapability(spv::Capability::PhysicalStorageBufferAddresses);
  } else {
    addCapability(spv::Capability::Addresses);
    addCapability(spv::Capability::Kernel);
  }
  // Addresses are 64-bit integers in both flavours.
  addCapability(spv::Capability::Int64);
}

uint32_t ModuleBuilder::extInstSet() {
  if (!ExtInstSet)
    ExtInstSet = newId();
  return ExtInstSet;
}

uint32_t ModuleBuilder::cached(spv::Op Op, ArrayRef<uint32_t> Operands,
                               bool ResultTypeFirst) {
  Words Key{static_cast<uint32_t>(Op)};
  Key.insert(Key.end(), Operands.begin(), Operands.end());
  auto [It, New] = Cache.try_emplace(Key, 0);
  if (!New)
    return It->second;
  uint32_t Id = newId();
  It->second = Id;
  Words Ops;
  if (ResultTypeFirst) {
    // OpConstant and friends: result type, result id, values.
    Ops.push_back(Operands.front());
    Ops.push_back(Id);
    Ops.insert(Ops.end(), Operands.begin() + 1, Operands.end());
  } else {
    Ops.push_back(Id);
    Ops.insert(Ops.end(), Operands.begin(), Operands.end());
  }
  emitInst(Globals, Op, Ops);
  return Id;
}

uint32_t ModuleBuilder::voidType() {
  return cached(spv::Op::OpTypeVoid, {}, false);
}

uint32_t ModuleBuilder::boolType() {
  return cached(spv::Op::OpTypeBool, {}, false);
}

uint32_t ModuleBuilder::intType(unsigned Bits) {
  // The capability of each width follows from the types actually declared,
  // so that a kernel on 32-bit data asks the device for nothing more.
  if (Bits == 8)
    addCapability(spv::Capability::Int8);
  else if (Bits == 16)
    addCapability(spv::Capability::Int16);
  else if (Bits == 64)
    addCapability(spv::Capability::Int64);
  return cached(spv::Op::OpTypeInt, {Bits, 0}, false);
}

uint32_t ModuleBuilder::floatType(unsigned Bits) {
  // Without the execution mode finish() adds, a Vulkan driver may treat
  // infinities and NaNs as undefined and fold x * 0.0 to 0.0 (lavapipe
  // does): C code computing with them would get other results than on the
  // CPU. OpenCL keeps IEEE semantics unless told otherwise.
  if (isVulkan()) {
    addCapability(spv::Capability::SignedZeroInfNanPreserve);
    FloatWidths.insert(Bits);
  }
  if (Bits == 16)
    addCapability(spv::Capability::Float16);
  else if (Bits == 64)
    addCapability(spv::Capability::Float64);
  return cached(spv::Op::OpTypeFloat, {Bits}, false);
}

uint32_t ModuleBuilder::vectorType(uint32_t Element, unsigned Count) {
  return cached(spv::Op::OpTypeVector, {Element, Count}, false);
}

uint32_t ModuleBuilder::arrayType(uint32_t Element, uint32_t Length) {
  return cached(spv::Op::OpTypeArray, {Element, constInt(32, Length)}, false);
}

uint32_t ModuleBuilder::pointerType(spv::StorageClass SC, uint32_t Pointee) {
  return cached(spv::Op::OpTypePointer, {static_cast<uint32_t>(SC), Pointee},
                false);
}

uint32_t ModuleBuilder::functionType(uint32_t Result,
                                     ArrayRef<uint32_t> Params) {
  Words Ops{Result};
  Ops.insert(Ops.end(), Params.begin(), Params.end());
  return cached(spv::Op::OpTypeFunction, Ops, false);
}

uint32_t ModuleBuilder::structType(ArrayRef<uint32_t> Members) {
  uint32_t Id = newId();
  Words Ops{Id};
  Ops.insert(Ops.end(), Members.begin(), Members.end());
  emitInst(Globals, spv::Op::OpTypeStruct, Ops);
  return Id;
}

uint32_t ModuleBuilder::constBool(bool V) {
  return cached(V ? spv::Op::OpConstantTrue : spv::Op::OpConstantFalse,
                {boolType()}, true);
}

uint32_t ModuleBuilder::specConstantU64(uint32_t SpecId) {
  // Not through the cache: two with different ids must stay two.
  uint32_t Id = newId();
  emitInst(Globals, spv::Op::OpSpecConstant, {intType(64), Id, 0, 0});
  decorate(Id, spv::Decoration::SpecId, {SpecId});
  return Id;
}

void ModuleBuilder::specializableWorkgroupSize(uint32_t FirstSpecId) {
  uint32_t U32 = intType(32);
  uint32_t Components[3];
  for (unsigned A = 0; A != 3; ++A) {
    Components[A] = newId();
    emitInst(Globals, spv::Op::OpSpecConstant, {U32, Components[A], 1});
    decorate(Components[A], spv::Decoration::SpecId, {FirstSpecId + A});
  }
  uint32_t Size = newId();
  emitInst(
      Globals, spv::Op::OpSpecConstantComposite,
      {vectorType(U32, 3), Size, Components[0], Components[1], Components[2]});
  decorate(Size, spv::Decoration::BuiltIn,
           {static_cast<uint32_t>(spv::BuiltIn::WorkgroupSize)});
  name(Size, "hpvm.work_group.size");
}

uint32_t ModuleBuilder::constInt(unsigned Bits, uint64_t V) {
  uint32_t Type = intType(Bits);
  if (Bits < 64)
    V &= (uint64_t(1) << Bits) - 1;
  // Literals narrower than a word are zero-extended (unsigned types);
  // 64-bit ones take two words, low word first.
  if (Bits <= 32)
    return cached(spv::Op::OpConstant, {Type, static_cast<uint32_t>(V)}, true);
  return cached(
      spv::Op::OpConstant,
      {Type, static_cast<uint32_t>(V), static_cast<uint32_t>(V >> 32)}, true);
}

uint32_t ModuleBuilder::constFloatBits(unsigned Bits, uint64_t Pattern) {
  uint32_t Type = floatType(Bits);
  if (Bits <= 32)
    return cached(spv::Op::OpConstant, {Type, static_cast<uint32_t>(Pattern)},
                  true);
  return cached(spv::Op::OpConstant,
                {Type, static_cast<uint32_t>(Pattern),
                 static_cast<uint32_t>(Pattern >> 32)},
                true);
}

uint32_t ModuleBuilder::constComposite(uint32_t Type,
                                       ArrayRef<uint32_t> Elements) {
  Words Ops{Type};
  Ops.insert(Ops.end(), Elements.begin(), Elements.end());
  return cached(spv::Op::OpConstantComposite, Ops, true);
}

uint32_t ModuleBuilder::constNull(uint32_t Type) {
  return cached(spv::Op::OpConstantNull, {Type}, true);
}

uint32_t ModuleBuilder::undef(uint32_t Type) {
  return cached(spv::Op::OpUndef, {Type}, true);
}

uint32_t ModuleBuilder::globalVariable(uint32_t PointerType,
                                       spv::StorageClass SC, uint32_t Init) {
  uint32_t Id = newId();
  Words Ops{PointerType, Id, static_cast<uint32_t>(SC)};
  if (Init)
    Ops.push_back(Init);
  emitInst(Globals, spv::Op::OpVariable, Ops);
  return Id;
}

void ModuleBuilder::name(uint32_t Id, StringRef Name) {
  Words Ops{Id};
  appendString(Ops, Name);
  emitInst(Names, spv::Op::OpName, Ops);
}

void ModuleBuilder::memberName(uint32_t Struct, uint32_t Member,
                               StringRef Name) {
  Words Ops{Struct, Member};
  appendString(Ops, Name);
  emitInst(Names, spv::Op::OpMemberName, Ops);
}

void ModuleBuilder::decorate(uint32_t Id, spv::Decoration D,
                             ArrayRef<uint32_t> Literals) {
  Words Ops{Id, static_cast<uint32_t>(D)};
  Ops.insert(Ops.end(), Literals.begin(), Literals.end());
  emitInst(Annotations, spv::Op::OpDecorate, Ops);
}

void ModuleBuilder::memberDecorate(uint32_t Struct, uint32_t Member,
                                   spv::Decoration D,
                                   ArrayRef<uint32_t> Literals) {
  Words Ops{Struct, Member, static_cast<uint32_t>(D)};
  Ops.insert(Ops.end(), Literals.begin(), Literals.end());
  emitInst(Annotations, spv::Op::OpMemberDecorate, Ops);
}

std::vector<uint32_t> ModuleBuilder::capabilities() const {
  std::vector<uint32_t> Result;
  for (spv::Capability C : Capabilities)
    Result.push_back(static_cast<uint32_t>(C));
  return Result;
}

Words ModuleBuilder::finish(uint32_t EntryFunction, StringRef EntryName,
                            ArrayRef<uint32_t> Interface,
                            const std::array<uint32_t, 3> &LocalSize) {
  Words M;
  // Header: magic, version, generator (0: not registered), id bound,
  // schema.
  M.push_back(spv::MagicNumber);
  M.push_back(isVulkan() ? 0x00010500u : 0x00010000u);
  M.push_back(0);
  M.push_back(NextId);
  M.push_back(0);

  for (spv::Capability C : Capabilities)
    emitInst(M, spv::Op::OpCapability, {static_cast<uint32_t>(C)});
  if (ExtInstSet) {
    Words Ops{ExtInstSet};
    appendString(Ops, isVulkan() ? "GLSL.std.450" : "OpenCL.std");
    emitInst(M, spv::Op::OpExtInstImport, Ops);
  }
  if (isVulkan())
    emitInst(
        M, spv::Op::OpMemoryModel,
        {static_cast<uint32_t>(spv::AddressingModel::PhysicalStorageBuffer64),
         static_cast<uint32_t>(spv::MemoryModel::GLSL450)});
  else
    emitInst(M, spv::Op::OpMemoryModel,
             {static_cast<uint32_t>(spv::AddressingModel::Physical64),
              static_cast<uint32_t>(spv::MemoryModel::OpenCL)});

  Words Entry{static_cast<uint32_t>(isVulkan() ? spv::ExecutionModel::GLCompute
                                               : spv::ExecutionModel::Kernel),
              EntryFunction};
  appendString(Entry, EntryName);
  Entry.insert(Entry.end(), Interface.begin(), Interface.end());
  emitInst(M, spv::Op::OpEntryPoint, Entry);
  if (LocalSize[0])
    emitInst(M, spv::Op::OpExecutionMode,
             {EntryFunction,
              static_cast<uint32_t>(spv::ExecutionMode::LocalSize),
              LocalSize[0], LocalSize[1], LocalSize[2]});
  for (unsigned Bits : FloatWidths)
    emitInst(
        M, spv::Op::OpExecutionMode,
        {EntryFunction,
         static_cast<uint32_t>(spv::ExecutionMode::SignedZeroInfNanPreserve),
         Bits});

  M.insert(M.end(), Names.begin(), Names.end());
  M.insert(M.end(), Annotations.begin(), Annotations.end());
  M.insert(M.end(), Globals.begin(), Globals.end());
  M.insert(M.end(), Functions.begin(), Functions.end());
  // The id bound is only known now (constants may have been added late).
  M[3] = NextId;
  return M;
}

} // namespace hpvm::spirv
