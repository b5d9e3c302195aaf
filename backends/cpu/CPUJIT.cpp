//===- CPUJIT.cpp - In-process compilation of CPU kernels -----------------===//
//
// Kernel modules arrive already optimised, so the JIT does not use LLJIT's IR
// layer: it compiles each module to an object with the backend's own target
// machine (the same code emitObjectFile writes) and only links objects. That
// also frees callers from handing over their LLVMContext, which ORC's
// ThreadSafeModule would require.
//
//===----------------------------------------------------------------------===//
#include "CPUInternal.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SmallVectorMemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace llvm;

namespace hpvm {

struct CPUJIT::Impl {
  std::unique_ptr<orc::LLJIT> J;
  /// Compiles the added modules; a TargetMachine is not thread-safe, hence
  /// the mutex.
  std::unique_ptr<TargetMachine> TM;
  CPUOptions Opts;
  std::mutex CodeGenMutex;
  /// What ORC reports on the side while linking (e.g. the symbols it could
  /// not resolve), which would otherwise go to stderr while the lookup
  /// itself only says that materialisation failed.
  std::mutex SessionErrorsMutex;
  std::string SessionErrors;

  /// J's address of Name, or an error saying what (a CPU kernel, a symbol)
  /// could not be linked and why.
  Expected<orc::ExecutorAddr> lookup(StringRef Name, StringRef What);
};

CPUJIT::CPUJIT(std::unique_ptr<Impl> I) : I(std::move(I)) {}
CPUJIT::~CPUJIT() = default;

Expected<std::unique_ptr<CPUJIT>> CPUJIT::create(const CPUOptions &Opts) {
  auto TM = createCPUTargetMachine(Opts);
  if (!TM)
    return TM.takeError();
  const Triple &TT = (*TM)->getTargetTriple();
  if (TT.getArch() != Triple(sys::getProcessTriple()).getArch())
    return cpu::makeError("the JIT runs kernels in this process, which is " +
                          Triple(sys::getProcessTriple()).getArchName() +
                          ", not " + TT.getArchName());

  orc::JITTargetMachineBuilder JTMB(TT);
  JTMB.setCPU((*TM)->getTargetCPU().str());
  JTMB.getFeatures() = SubtargetFeatures((*TM)->getTargetFeatureString());
  JTMB.setRelocationModel(Reloc::PIC_);
  JTMB.setCodeGenOptLevel((*TM)->getOptLevel());
  // Process symbols (libm, libc) are linked by default, so leaves may call
  // external functions the process provides.
  auto J =
      orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(JTMB)).create();
  if (!J)
    return J.takeError();

  auto Implementation = std::make_unique<Impl>();
  Impl *Raw = Implementation.get();
  (*J)->getExecutionSession().setErrorReporter([Raw](Error E) {
    std::lock_guard<std::mutex> Lock(Raw->SessionErrorsMutex);
    Raw->SessionErrors +=
        (Raw->SessionErrors.empty() ? "" : "; ") + toString(std::move(E));
  });
  Implementation->J = std::move(*J);
  Implementation->TM = std::move(*TM);
  Implementation->Opts = Opts;
  return std::unique_ptr<CPUJIT>(new CPUJIT(std::move(Implementation)));
}

Error CPUJIT::addModule(std::unique_ptr<Module> M, bool Optimise,
                        std::string *ObjectOut) {
  if (!M)
    return cpu::makeError("CPUJIT::addModule: no module");
  SmallVector<char, 0> Object;
  {
    std::lock_guard<std::mutex> Lock(I->CodeGenMutex);
    raw_svector_ostream OS(Object);
    if (Optimise) {
      if (Error E = cpu::adoptTarget(*M, *I->TM))
        return E;
      cpu::optimiseModule(*M, *I->TM, I->Opts);
    }
    if (Error E = cpu::emitCode(*M, *I->TM, OS, CodeGenFileType::ObjectFile))
      return E;
  }
  if (ObjectOut)
    ObjectOut->assign(Object.begin(), Object.end());
  return I->J->addObjectFile(std::make_unique<SmallVectorMemoryBuffer>(
      std::move(Object), M->getModuleIdentifier(),
      /*RequiresNullTerminator=*/false));
}

Error CPUJIT::addObject(StringRef Object, StringRef Name) {
  return I->J->addObjectFile(MemoryBuffer::getMemBufferCopy(Object, Name));
}

Expected<orc::ExecutorAddr> CPUJIT::Impl::lookup(StringRef Name,
                                                 StringRef What) {
  auto Addr = J->lookup(Name);
  if (Addr)
    return *Addr;
  std::string Message = toString(Addr.takeError());
  std::lock_guard<std::mutex> Lock(SessionErrorsMutex);
  if (!SessionErrors.empty())
    Message += " (" + SessionErrors + ")";
  SessionErrors.clear();
  return cpu::makeError("cannot link " + What + " '" + Name + "': " + Message);
}

Expected<hpvm_cpu_kernel_fn> CPUJIT::lookup(StringRef WrapperName) {
  auto Addr = I->lookup(WrapperName, "CPU kernel");
  if (!Addr)
    return Addr.takeError();
  return Addr->toPtr<hpvm_cpu_kernel_fn>();
}

Expected<void *> CPUJIT::lookupSymbol(StringRef Name) {
  auto Addr = I->lookup(Name, "symbol");
  if (!Addr)
    return Addr.takeError();
  return Addr->toPtr<void *>();
}

Error CPUJIT::defineSymbols(ArrayRef<std::pair<StringRef, void *>> Symbols) {
  orc::SymbolMap Map;
  for (const auto &[Name, Address] : Symbols)
    Map[I->J->mangleAndIntern(Name)] = {orc::ExecutorAddr::fromPtr(Address),
                                        JITSymbolFlags::Exported |
                                            JITSymbolFlags::Callable};
  return I->J->getMainJITDylib().define(orc::absoluteSymbols(std::move(Map)));
}

} // namespace hpvm
