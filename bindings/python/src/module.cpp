//===- module.cpp - The _hpvm extension module ----------------------------===//
//
// A thin layer over the core (CProgram) and hpvm-rt: Python values become
// C arguments here, with every check a Python user expects an exception
// from (types, ranges, dtypes, contiguity, read-only arrays); everything
// else lives in the libraries. hpvm/__init__.py is the public face.
//
//===----------------------------------------------------------------------===//
#include "CProgram.h"

#include "hpvm/ir/GraphPrinter.h"
#include "hpvm/ir/GraphText.h"
#include "hpvm/rt/Runtime.h"
#include "hpvm/rt/hpvm_rt.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <deque>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace py = pybind11;
using namespace hpvm::python;

namespace {

py::object CompileErrorType, LaunchErrorType;

/// One buffer-protocol view, released when the call is over.
class BufferView {
public:
  BufferView() = default;
  BufferView(const BufferView &) = delete;
  BufferView(BufferView &&O) noexcept : View(O.View), Held(O.Held) {
    O.Held = false;
  }
  ~BufferView() {
    if (Held)
      PyBuffer_Release(&View);
  }
  /// Gets a C-contiguous view of Obj; false (with the Python error set)
  /// if Obj has none.
  bool get(PyObject *Obj) {
    if (PyObject_GetBuffer(Obj, &View, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0)
      return false;
    Held = true;
    return true;
  }
  Py_buffer View{};

private:
  bool Held = false;
};

/// What a struct-module format letter is, for the check against a pointee.
struct ElementKind {
  enum { Float, Signed, Unsigned, Bool, Char, Other } Kind = Other;
};

ElementKind kindOf(const char *Format) {
  if (!Format)
    return {ElementKind::Unsigned}; // plain bytes
  // A native or little-endian order prefix is this machine's layout.
  if (*Format == '@' || *Format == '=' || *Format == '<')
    ++Format;
  if (!Format[0] || Format[1])
    return {};
  switch (Format[0]) {
  case 'e':
  case 'f':
  case 'd':
    return {ElementKind::Float};
  case 'b':
  case 'h':
  case 'i':
  case 'l':
  case 'q':
  case 'n':
    return {ElementKind::Signed};
  case 'B':
  case 'H':
  case 'I':
  case 'L':
  case 'Q':
  case 'N':
    return {ElementKind::Unsigned};
  case '?':
    return {ElementKind::Bool};
  case 'c':
    return {ElementKind::Char};
  }
  return {};
}

/// The numpy dtype name of a C scalar, for messages.
const char *dtypeName(CScalar S) {
  switch (S) {
  case CScalar::Void:
    return "any";
  case CScalar::Bool:
    return "bool";
  case CScalar::Int8:
    return "int8";
  case CScalar::UInt8:
    return "uint8";
  case CScalar::Int16:
    return "int16";
  case CScalar::UInt16:
    return "uint16";
  case CScalar::Int32:
    return "int32";
  case CScalar::UInt32:
    return "uint32";
  case CScalar::Int64:
    return "int64";
  case CScalar::UInt64:
    return "uint64";
  case CScalar::Float16:
    return "float16";
  case CScalar::Float32:
    return "float32";
  case CScalar::Float64:
    return "float64";
  }
  return "?";
}

/// Whether a buffer of this format and item size can stand for a pointer
/// to Pointee. Bytes of char-sized integers go either way (char *, uint8_t
/// * and int8_t * buffers are all "bytes" to C code).
bool matches(CScalar Pointee, const Py_buffer &V) {
  if (Pointee == CScalar::Void)
    return true;
  ElementKind K = kindOf(V.format);
  if (static_cast<unsigned>(V.itemsize) != sizeOf(Pointee))
    return false;
  if (Pointee == CScalar::Bool)
    return K.Kind == ElementKind::Bool;
  if (isFloat(Pointee))
    return K.Kind == ElementKind::Float;
  if (sizeOf(Pointee) == 1)
    return K.Kind == ElementKind::Signed || K.Kind == ElementKind::Unsigned ||
           K.Kind == ElementKind::Char;
  return K.Kind ==
         (isSigned(Pointee) ? ElementKind::Signed : ElementKind::Unsigned);
}

std::string describeBuffer(const Py_buffer &V) {
  std::string Format = V.format ? V.format : "B";
  return "a buffer of format '" + Format + "' (" + std::to_string(V.itemsize) +
         "-byte items)";
}

/// The arguments of one call, stored as hpvm_rt.h's convention wants them.
struct CallArguments {
  std::vector<uint64_t> Values; // one 8-byte slot per parameter
  std::vector<void *> Pointers; // Args[i] = &Values[i]
  std::vector<BufferView> Views;
};

[[noreturn]] void argumentError(PyObject *Type, const CFunction &F,
                                const CParam &P, const std::string &What) {
  PyErr_SetString(Type, ("argument '" + P.Name + "' of " + F.Name + " (" +
                         P.Type.spelling() + "): " + What)
                            .c_str());
  throw py::error_already_set();
}

std::string typeName(py::handle Obj) { return Py_TYPE(Obj.ptr())->tp_name; }

/// Stores Obj as P's value in Slot.
void convertScalar(const CFunction &F, const CParam &P, py::handle Obj,
                   uint64_t &Slot) {
  CScalar S = P.Type.Scalar;
  if (S == CScalar::Bool) {
    if (!PyBool_Check(Obj.ptr()) && !PyIndex_Check(Obj.ptr()))
      argumentError(PyExc_TypeError, F, P,
                    "expected a bool, got " + typeName(Obj));
    int Truth = PyObject_IsTrue(Obj.ptr());
    if (Truth < 0)
      throw py::error_already_set();
    Slot = Truth;
    return;
  }
  if (isFloat(S)) {
    if (PyUnicode_Check(Obj.ptr()) || PyBytes_Check(Obj.ptr()) ||
        !(PyFloat_Check(Obj.ptr()) || PyIndex_Check(Obj.ptr()) ||
          PyObject_HasAttrString(Obj.ptr(), "__float__")))
      argumentError(PyExc_TypeError, F, P,
                    "expected a number, got " + typeName(Obj));
    double V = PyFloat_AsDouble(Obj.ptr());
    if (V == -1.0 && PyErr_Occurred())
      throw py::error_already_set();
    if (S == CScalar::Float64)
      std::memcpy(&Slot, &V, sizeof V);
    else if (S == CScalar::Float32) {
      float W = static_cast<float>(V);
      std::memcpy(&Slot, &W, sizeof W);
    } else {
      uint16_t H = toHalf(V);
      std::memcpy(&Slot, &H, sizeof H);
    }
    return;
  }
  // An integer: anything with __index__ (int, numpy integers), not floats.
  if (!PyIndex_Check(Obj.ptr()) || PyBool_Check(Obj.ptr()))
    argumentError(PyExc_TypeError, F, P,
                  "expected an integer, got " + typeName(Obj));
  py::int_ I = py::reinterpret_steal<py::int_>(PyNumber_Index(Obj.ptr()));
  if (!I)
    throw py::error_already_set();
  unsigned Bits = sizeOf(S) * 8;
  bool Fits;
  uint64_t Raw;
  if (isSigned(S)) {
    int Overflow = 0;
    long long V = PyLong_AsLongLongAndOverflow(I.ptr(), &Overflow);
    if (V == -1 && PyErr_Occurred())
      throw py::error_already_set();
    Fits =
        !Overflow &&
        (Bits == 64 || (V >= -(1LL << (Bits - 1)) && V < (1LL << (Bits - 1))));
    Raw = static_cast<uint64_t>(V);
  } else {
    int Negative = PyObject_RichCompareBool(I.ptr(), py::int_(0).ptr(), Py_LT);
    if (Negative < 0)
      throw py::error_already_set();
    unsigned long long V = 0;
    Fits = !Negative;
    if (Fits) {
      V = PyLong_AsUnsignedLongLong(I.ptr());
      if (PyErr_Occurred()) {
        PyErr_Clear();
        Fits = false;
      }
    }
    Fits = Fits && (Bits == 64 || V < (1ULL << Bits));
    Raw = V;
  }
  if (!Fits)
    argumentError(PyExc_OverflowError, F, P,
                  py::str(Obj).cast<std::string>() + " does not fit in " +
                      std::to_string(Bits) + " bits");
  // Little-endian: the low bytes of the slot are the value.
  Slot = Raw;
}

/// Stores a pointer to Obj's memory (None: NULL) in Slot.
void convertPointer(const CFunction &F, const CParam &P, py::handle Obj,
                    uint64_t &Slot, CallArguments &Call) {
  if (Obj.is_none()) {
    Slot = 0;
    return;
  }
  if (!PyObject_CheckBuffer(Obj.ptr()))
    argumentError(PyExc_TypeError, F, P,
                  "expected an array (an object with the buffer protocol), "
                  "got " +
                      typeName(Obj));
  BufferView View;
  if (!View.get(Obj.ptr())) {
    PyErr_Clear();
    argumentError(PyExc_ValueError, F, P,
                  "the array is not C-contiguous (numpy.ascontiguousarray "
                  "makes a copy that is)");
  }
  const Py_buffer &V = View.View;
  if (!matches(P.Type.Scalar, V))
    argumentError(PyExc_TypeError, F, P,
                  std::string("expected ") + dtypeName(P.Type.Scalar) +
                      " elements, got " + describeBuffer(V));
  if (V.readonly && !P.Type.Const)
    argumentError(PyExc_ValueError, F, P,
                  "the function may write through this pointer, and the "
                  "array is read-only");
  Slot = reinterpret_cast<uint64_t>(V.buf);
  Call.Views.push_back(std::move(View));
}

py::object resultOf(const CType &T, uint64_t Raw) {
  switch (T.Scalar) {
  case CScalar::Void:
    return py::none();
  case CScalar::Bool:
    return py::bool_((Raw & 0xff) != 0);
  case CScalar::Float16:
    return py::float_(fromHalf(static_cast<uint16_t>(Raw)));
  case CScalar::Float32: {
    float V;
    std::memcpy(&V, &Raw, sizeof V);
    return py::float_(V);
  }
  case CScalar::Float64: {
    double V;
    std::memcpy(&V, &Raw, sizeof V);
    return py::float_(V);
  }
  default:
    break;
  }
  unsigned Bits = sizeOf(T.Scalar) * 8;
  uint64_t Mask = Bits == 64 ? ~0ULL : (1ULL << Bits) - 1;
  uint64_t V = Raw & Mask;
  if (isSigned(T.Scalar)) {
    int64_t S = Bits == 64
                    ? static_cast<int64_t>(V)
                    : static_cast<int64_t>(V << (64 - Bits)) >> (64 - Bits);
    return py::int_(S);
  }
  return py::int_(V);
}

py::object FallbackWarningType;

/// The LaunchOptions of this thread's launches (hpvm.launch_options), and
/// what fell back under them since the last call returned.
struct ThreadOptions {
  hpvm::rt::LaunchOptions Options;
  std::vector<std::string> Fallbacks;
  bool Active = false;
};
thread_local ThreadOptions CurrentOptions;

void setLaunchOptions(std::vector<std::string> Devices, std::string Scheduler,
                      bool Strict) {
  ThreadOptions &T = CurrentOptions;
  T.Options.Devices = std::move(Devices);
  T.Options.Scheduler = std::move(Scheduler);
  T.Options.Strict = Strict;
  T.Options.Fallbacks = &T.Fallbacks;
  T.Active = true;
  hpvm::rt::setThreadLaunchOptions(&T.Options);
}

void clearLaunchOptions() {
  CurrentOptions.Active = false;
  hpvm::rt::setThreadLaunchOptions(nullptr);
}

py::object launchOptions() {
  const ThreadOptions &T = CurrentOptions;
  if (!T.Active)
    return py::none();
  return py::make_tuple(T.Options.Devices, T.Options.Scheduler,
                        T.Options.Strict);
}

/// Warns (hpvm.DeviceFallbackWarning) of what fell back in the last call.
void warnFallbacks() {
  std::vector<std::string> Fallbacks = std::move(CurrentOptions.Fallbacks);
  CurrentOptions.Fallbacks.clear();
  for (const std::string &F : Fallbacks)
    if (PyErr_WarnEx(FallbackWarningType.ptr(), F.c_str(), 2) != 0)
      throw py::error_already_set();
}

[[noreturn]] void raiseLaunchError(const LaunchFailure &Failure) {
  py::object E = LaunchErrorType(Failure.Message);
  E.attr("code") = Failure.Code;
  PyErr_SetObject(LaunchErrorType.ptr(), E.ptr());
  throw py::error_already_set();
}

/// A callable C function; keeps its program alive.
struct FunctionHandle {
  std::shared_ptr<CProgram> Program;
  size_t Index;
  const CFunction &function() const { return Program->functions()[Index]; }

  py::object call(py::args Args, py::kwargs Kwargs) const {
    const CFunction &F = function();
    size_t N = F.Params.size();
    // Positional first, then keywords by parameter name.
    std::vector<py::handle> Given(N);
    if (Args.size() > N)
      throw py::type_error(F.Name + "() takes " + std::to_string(N) +
                           " arguments, " + std::to_string(Args.size()) +
                           " were given");
    for (size_t I = 0; I < Args.size(); ++I)
      Given[I] = Args[I];
    for (auto [Key, Value] : Kwargs) {
      std::string Name = py::str(Key);
      size_t I = 0;
      while (I < N && F.Params[I].Name != Name)
        ++I;
      if (I == N)
        throw py::type_error(F.Name + "() has no parameter '" + Name + "'");
      if (Given[I])
        throw py::type_error(F.Name + "() got two values for '" + Name + "'");
      Given[I] = Value;
    }
    CallArguments Call;
    Call.Values.assign(N, 0);
    for (size_t I = 0; I < N; ++I) {
      const CParam &P = F.Params[I];
      if (!Given[I])
        throw py::type_error(F.Name + "() is missing argument '" + P.Name +
                             "' (" + F.signature() + ")");
      if (P.Type.Pointer)
        convertPointer(F, P, Given[I], Call.Values[I], Call);
      else
        convertScalar(F, P, Given[I], Call.Values[I]);
      Call.Pointers.push_back(&Call.Values[I]);
    }
    uint64_t Result = 0;
    takeLaunchFailure(); // nothing stale from an earlier call
    {
      py::gil_scoped_release Unlocked;
      F.Call(Call.Pointers.data(), &Result);
    }
    LaunchFailure Failure = takeLaunchFailure();
    if (Failure.Code != HPVM_OK) {
      CurrentOptions.Fallbacks.clear();
      raiseLaunchError(Failure);
    }
    warnFallbacks();
    return resultOf(F.Result, Result);
  }
};

std::string graphText(const hpvm::Graph &G) {
  std::ostringstream OS;
  hpvm::printGraph(G, OS);
  return OS.str();
}

std::string graphDot(const hpvm::Graph &G) {
  std::ostringstream OS;
  hpvm::printDot(G, OS);
  return OS.str();
}

/// A graph of a program; keeps the program alive.
struct GraphHandle {
  std::shared_ptr<CProgram> Program;
  size_t Index;
  const hpvm::Graph &graph() const { return Program->graphs()[Index]; }
};

py::dict paramInfo(const hpvm::Param &P) {
  py::dict D;
  D["name"] = P.Name;
  D["kind"] = P.isBuffer() ? "buffer" : "value";
  D["type"] = hpvm::toString(P.Type);
  if (P.isBuffer())
    D["access"] = hpvm::toString(P.Mode);
  return D;
}

/// Runs Compile(Options, Error), a CProgram factory, without the GIL; a
/// failure is a CompileError carrying every diagnostic.
template <typename CompileFn>
std::shared_ptr<CProgram> compileWith(const std::string &Name, uint32_t Targets,
                                      const std::string &CacheDir,
                                      CompileFn &&Compile) {
  CompileOptions Options;
  Options.Name = Name;
  Options.Targets = Targets;
  Options.CacheDir = CacheDir;
  std::string Error;
  std::unique_ptr<CProgram> P;
  {
    py::gil_scoped_release Unlocked;
    P = Compile(Options, Error);
  }
  if (!P) {
    PyErr_SetString(CompileErrorType.ptr(), Error.c_str());
    throw py::error_already_set();
  }
  return std::shared_ptr<CProgram>(std::move(P));
}

std::shared_ptr<CProgram> compileC(const std::string &Source,
                                   const std::string &Name,
                                   const std::vector<std::string> &Flags,
                                   uint32_t Targets,
                                   const std::string &CacheDir) {
  return compileWith(Name, Targets, CacheDir,
                     [&](CompileOptions &Options, std::string &Error) {
                       Options.ClangArgs = Flags;
                       return CProgram::compile(Source, Options, Error);
                     });
}

CScalar scalarNamed(const std::string &Name);

/// The C type a graph's root parameter is passed as: buffers as pointers to
/// Pointee ("" for any element type), values as their scalar.
CType rootParamType(const hpvm::Param &P, const std::string &Pointee) {
  CType T;
  if (P.isBuffer()) {
    T.Pointer = true;
    T.Const = !hpvm::writes(P.Mode);
    T.Scalar = Pointee.empty() ? CScalar::Void : scalarNamed(Pointee);
    return T;
  }
  switch (P.Type) {
  case hpvm::ScalarType::I1:
    T.Scalar = CScalar::Bool;
    break;
  case hpvm::ScalarType::I8:
    T.Scalar = CScalar::Int8;
    break;
  case hpvm::ScalarType::I16:
    T.Scalar = CScalar::Int16;
    break;
  case hpvm::ScalarType::I32:
    T.Scalar = CScalar::Int32;
    break;
  case hpvm::ScalarType::I64:
    T.Scalar = CScalar::Int64;
    break;
  case hpvm::ScalarType::F16:
    T.Scalar = CScalar::Float16;
    break;
  case hpvm::ScalarType::F32:
    T.Scalar = CScalar::Float32;
    break;
  case hpvm::ScalarType::F64:
    T.Scalar = CScalar::Float64;
    break;
  case hpvm::ScalarType::Ptr:
    throw py::type_error("parameter '" + P.Name +
                         "' is a raw pointer value, which Python cannot pass");
  }
  return T;
}

/// The arguments of a launch of graph Name of P, Args in its root's
/// parameter order (arrays for buffers, numbers for values), checking that
/// every array holds the bytes the graph will touch. Call holds the arrays'
/// buffers while it lives.
void graphArguments(const std::shared_ptr<CProgram> &P, const std::string &Name,
                    const py::sequence &Args,
                    const std::vector<std::string> &Pointees,
                    CallArguments &Call) {
  const hpvm::Graph *G = nullptr;
  for (const hpvm::Graph &Candidate : P->graphs())
    if (Candidate.name() == Name)
      G = &Candidate;
  if (!G)
    throw py::key_error("the program has no graph '" + Name + "'");
  const std::vector<hpvm::Param> &Params = G->root().Params;
  CFunction F;
  F.Name = "graph '" + Name + "'";
  for (size_t I = 0; I < Params.size(); ++I)
    F.Params.push_back(
        {Params[I].Name,
         rootParamType(Params[I],
                       I < Pointees.size() ? Pointees[I] : std::string())});
  if (Args.size() != Params.size())
    throw py::type_error(F.Name + " takes " + std::to_string(Params.size()) +
                         " arguments, " + std::to_string(Args.size()) +
                         " were given");
  Call.Values.assign(Params.size(), 0);
  std::vector<int64_t> Lengths(Params.size(), -1);
  for (size_t I = 0; I < Params.size(); ++I) {
    if (F.Params[I].Type.Pointer) {
      size_t Before = Call.Views.size();
      convertPointer(F, F.Params[I], Args[I], Call.Values[I], Call);
      Lengths[I] = Call.Views.size() > Before ? Call.Views.back().View.len : 0;
    } else {
      convertScalar(F, F.Params[I], Args[I], Call.Values[I]);
    }
    Call.Pointers.push_back(&Call.Values[I]);
  }
  for (size_t I = 0; I < Params.size(); ++I) {
    if (!Params[I].isBuffer())
      continue;
    const hpvm::Extent &E = Params[I].Bytes;
    int64_t Bytes = E.isConstant()
                        ? static_cast<int64_t>(E.value())
                        : static_cast<int64_t>(Call.Values[E.paramIndex()]);
    if (Bytes > Lengths[I])
      argumentError(PyExc_ValueError, F, F.Params[I],
                    "the graph uses " + std::to_string(Bytes) +
                        " bytes of it, the array has " +
                        std::to_string(Lengths[I]));
  }
}

/// Launches graph Name of P with Args (graphArguments).
void launchGraph(const std::shared_ptr<CProgram> &P, const std::string &Name,
                 const py::sequence &Args,
                 const std::vector<std::string> &Pointees) {
  CallArguments Call;
  graphArguments(P, Name, Args, Pointees, Call);
  takeLaunchFailure();
  int Status;
  std::string Message;
  {
    py::gil_scoped_release Unlocked;
    Status = hpvm_launch(&P->descriptor(), Name.c_str(), Call.Pointers.data());
    if (Status != HPVM_OK)
      Message = hpvm_error_message();
  }
  if (Status != HPVM_OK)
    raiseLaunchError({Status, Message});
  warnFallbacks();
}

/// A stream of a graph of a program (docs/runtime.md §1.3): each push is a
/// frame, whose arrays stay held until its pop. One thread pushes (frames
/// are queued here before the runtime sees them, so that a pop on another
/// thread finds its frame's arrays); any thread pops.
class GraphStream {
public:
  GraphStream(std::shared_ptr<CProgram> P, std::string Name, unsigned Capacity)
      : P(std::move(P)), Name(std::move(Name)) {
    int Status = hpvm_stream_open(&this->P->descriptor(), this->Name.c_str(),
                                  Capacity, &S);
    if (Status != HPVM_OK)
      raiseLaunchError({Status, hpvm_error_message()});
  }
  ~GraphStream() { close(); }

  void push(const py::sequence &Args,
            const std::vector<std::string> &Pointees) {
    requireOpen();
    Frames.emplace_back();
    try {
      graphArguments(P, Name, Args, Pointees, Frames.back());
    } catch (...) {
      Frames.pop_back();
      throw;
    }
    void **Pointers = Frames.back().Pointers.data();
    int Status;
    std::string Message;
    {
      py::gil_scoped_release Unlocked; // waits while the stream is full
      Status = hpvm_stream_push(S, Pointers);
      if (Status != HPVM_OK)
        Message = hpvm_error_message();
    }
    if (Status != HPVM_OK) {
      Frames.pop_back();
      raiseLaunchError({Status, Message});
    }
  }

  /// The next frame's number, or None once the stream has ended and every
  /// frame is popped; a frame that failed raises LaunchError.
  py::object pop() {
    requireOpen();
    uint64_t Frame = 0;
    int Status;
    std::string Message;
    {
      py::gil_scoped_release Unlocked;
      Status = hpvm_stream_pop(S, &Frame);
      if (Status != HPVM_OK && Status != HPVM_END_OF_STREAM)
        Message = hpvm_error_message();
    }
    if (Status == HPVM_END_OF_STREAM)
      return py::none();
    if (!Frames.empty())
      Frames.pop_front(); // its arrays may go
    if (Status != HPVM_OK)
      raiseLaunchError({Status, Message});
    return py::int_(Frame);
  }

  void end() { call(hpvm_stream_end(requireOpen())); }
  void cancel() { call(hpvm_stream_cancel(requireOpen())); }
  void close() {
    if (!S)
      return;
    hpvm_stream *Closing = S;
    S = nullptr;
    {
      py::gil_scoped_release Unlocked; // running frames finish
      hpvm_stream_close(Closing);
    }
    Frames.clear();
  }

private:
  std::shared_ptr<CProgram> P;
  std::string Name;
  hpvm_stream *S = nullptr;
  std::deque<CallArguments> Frames;

  hpvm_stream *requireOpen() {
    if (!S)
      throw py::value_error("the stream of graph '" + Name + "' is closed");
    return S;
  }
  static void call(int Status) {
    if (Status != HPVM_OK)
      raiseLaunchError({Status, hpvm_error_message()});
  }
};

std::shared_ptr<CProgram> compileGraph(const std::string &IR,
                                       const std::string &GraphText,
                                       const std::string &Name,
                                       uint32_t Targets,
                                       const std::string &CacheDir) {
  return compileWith(Name, Targets, CacheDir,
                     [&](CompileOptions &Options, std::string &Error) {
                       return CProgram::compileGraphForm(IR, GraphText, Options,
                                                         Error);
                     });
}

/// The scalar a kernel frontend's type name stands for.
CScalar scalarNamed(const std::string &Name) {
  static const std::pair<const char *, CScalar> Names[] = {
      {"bool", CScalar::Bool},   {"i8", CScalar::Int8},
      {"u8", CScalar::UInt8},    {"i16", CScalar::Int16},
      {"u16", CScalar::UInt16},  {"i32", CScalar::Int32},
      {"u32", CScalar::UInt32},  {"i64", CScalar::Int64},
      {"u64", CScalar::UInt64},  {"f16", CScalar::Float16},
      {"f32", CScalar::Float32}, {"f64", CScalar::Float64}};
  for (auto &[N, S] : Names)
    if (Name == N)
      return S;
  throw py::value_error("unknown scalar type '" + Name + "'");
}

/// (name, LLVM symbol, ((param, scalar, pointer, const), ...)) -> the void
/// function.
using FunctionSpec =
    std::tuple<std::string, std::string,
               std::vector<std::tuple<std::string, std::string, bool, bool>>>;

std::shared_ptr<CProgram> compileIR(const std::string &IR,
                                    const std::string &Name, uint32_t Targets,
                                    const std::vector<FunctionSpec> &Specs,
                                    const std::string &CacheDir) {
  std::vector<CFunction> Functions;
  for (const auto &[FnName, Symbol, Params] : Specs) {
    CFunction F;
    F.Name = FnName;
    F.Symbol = Symbol;
    for (const auto &[PName, Scalar, Pointer, Const] : Params) {
      CType T;
      T.Scalar = scalarNamed(Scalar);
      T.Pointer = Pointer;
      T.Const = Const;
      F.Params.push_back({PName, T});
    }
    Functions.push_back(std::move(F));
  }
  return compileWith(Name, Targets, CacheDir,
                     [&](CompileOptions &Options, std::string &Error) {
                       return CProgram::compileMarkerIR(
                           IR, Options, std::move(Functions), Error);
                     });
}

py::list devices() {
  hpvm::rt::Runtime &RT = hpvm::rt::Runtime::current();
  RT.discoverDevicesFor(HPVM_TARGET_CPU | HPVM_TARGET_NVPTX |
                        HPVM_TARGET_SPIRV | HPVM_TARGET_OPENCL);
  py::list L;
  for (size_t I = 0; I < RT.numDevices(); ++I) {
    const hpvm::rt::Device &D = RT.device(I);
    py::dict Info;
    Info["name"] = D.name();
    Info["description"] = D.description();
    L.append(Info);
  }
  return L;
}

} // namespace

PYBIND11_MODULE(_hpvm, m) {
  m.doc() = "The native core of the hpvm package (use `import hpvm`).";

  py::object Error =
      py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
          "hpvm.Error", "Base class of the errors hpvm raises.",
          PyExc_RuntimeError, nullptr));
  CompileErrorType =
      py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
          "hpvm.CompileError",
          "A kernel did not compile: the message holds every diagnostic "
          "(file:line:col: error: ...).",
          Error.ptr(), nullptr));
  LaunchErrorType = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
      "hpvm.LaunchError",
      "A graph launch failed in hpvm-rt; `code` is its hpvm_status.",
      Error.ptr(), nullptr));
  m.attr("Error") = Error;
  m.attr("CompileError") = CompileErrorType;
  m.attr("LaunchError") = LaunchErrorType;

  m.attr("TARGET_CPU") = uint32_t(hpvm::TargetCPU);
  m.attr("TARGET_NVPTX") = uint32_t(hpvm::TargetNVPTX);
  m.attr("TARGET_SPIRV") = uint32_t(hpvm::TargetSPIRV);

  py::class_<GraphHandle>(m, "Graph", "A dataflow graph of a program.")
      .def_property_readonly(
          "name", [](const GraphHandle &G) { return G.graph().name(); })
      .def_property_readonly(
          "params",
          [](const GraphHandle &G) {
            py::list L;
            for (const hpvm::Param &P : G.graph().root().Params)
              L.append(paramInfo(P));
            return L;
          },
          "The root's parameters: the arguments of a launch.")
      .def(
          "to_dot", [](const GraphHandle &G) { return graphDot(G.graph()); },
          "The graph in Graphviz DOT.")
      .def("__str__", [](const GraphHandle &G) { return graphText(G.graph()); })
      .def("__repr__", [](const GraphHandle &G) {
        return "<hpvm.Graph '" + G.graph().name() + "'>";
      });

  py::class_<FunctionHandle>(m, "Function",
                             "A C function of a compiled program.")
      .def_property_readonly(
          "name", [](const FunctionHandle &F) { return F.function().Name; })
      .def_property_readonly(
          "signature",
          [](const FunctionHandle &F) { return F.function().signature(); })
      .def_property_readonly(
          "params",
          [](const FunctionHandle &F) {
            py::list L;
            for (const CParam &P : F.function().Params)
              L.append(py::make_tuple(P.Name, P.Type.spelling()));
            return L;
          },
          "(name, C type) of each parameter.")
      .def("__call__", &FunctionHandle::call,
           "Calls the function: arrays (any C-contiguous buffer of the "
           "pointee's type) for pointers, numbers for scalars; positional or "
           "by parameter name. The GIL is released while it runs.")
      .def("__repr__", [](const FunctionHandle &F) {
        return "<hpvm.Function " + F.function().signature() + ">";
      });

  py::class_<CProgram, std::shared_ptr<CProgram>>(
      m, "CProgram", "C source compiled and loaded into this process.")
      .def_property_readonly(
          "functions",
          [](const std::shared_ptr<CProgram> &P) {
            py::dict D;
            for (size_t I = 0; I < P->functions().size(); ++I)
              D[py::str(P->functions()[I].Name)] = FunctionHandle{P, I};
            return D;
          })
      .def_property_readonly("uncallable", &CProgram::uncallable)
      .def_property_readonly("graphs",
                             [](const std::shared_ptr<CProgram> &P) {
                               py::list L;
                               for (size_t I = 0; I < P->graphs().size(); ++I)
                                 L.append(GraphHandle{P, I});
                               return L;
                             })
      .def_property_readonly(
          "graph_text",
          [](const CProgram &P) { return std::string(P.descriptor().graphs); })
      .def_property_readonly("from_cache", &CProgram::fromCache)
      .def_property_readonly(
          "artifacts",
          [](const CProgram &P) {
            py::list L;
            const hpvm_program_desc &D = P.descriptor();
            for (uint32_t I = 0; I < D.num_artifacts; ++I) {
              const hpvm_artifact &A = D.artifacts[I];
              if (A.target != HPVM_TARGET_CPU && !A.code)
                continue; // left out by the compiler (hpvm_rt.h)
              const char *Target = A.target == HPVM_TARGET_CPU      ? "cpu"
                                   : A.target == HPVM_TARGET_NVPTX  ? "nvptx"
                                   : A.target == HPVM_TARGET_SPIRV  ? "spirv"
                                   : A.target == HPVM_TARGET_OPENCL ? "opencl"
                                                                    : "?";
              L.append(py::make_tuple(std::string(A.node), Target,
                                      static_cast<size_t>(A.code_size)));
            }
            return L;
          },
          "(node, target, code bytes) of every compiled form of every "
          "leaf: cpu, nvptx (PTX), spirv (Vulkan), opencl (SPIR-V).")
      .def(
          "artifact_code",
          [](const CProgram &P, const std::string &Node,
             const std::string &Target) -> py::object {
            const hpvm_program_desc &D = P.descriptor();
            uint32_t Want = Target == "nvptx"    ? HPVM_TARGET_NVPTX
                            : Target == "spirv"  ? HPVM_TARGET_SPIRV
                            : Target == "opencl" ? HPVM_TARGET_OPENCL
                                                 : 0;
            for (uint32_t I = 0; I < D.num_artifacts; ++I) {
              const hpvm_artifact &A = D.artifacts[I];
              if (A.target == Want && Node == A.node && A.code)
                return py::bytes(static_cast<const char *>(A.code),
                                 A.code_size);
            }
            return py::none();
          },
          py::arg("node"), py::arg("target"),
          "The code of a leaf's nvptx (PTX text), spirv or opencl (SPIR-V "
          "words) artifact, or None.")
      .def("launch", &launchGraph, py::arg("graph"), py::arg("args"),
           py::arg("pointees") = std::vector<std::string>(),
           "Launches a graph with its root's arguments, in order; pointees "
           "optionally names each buffer's element type (f32, ...) to check.")
      .def(
          "stream",
          [](const std::shared_ptr<CProgram> &P, const std::string &Graph,
             unsigned Capacity) {
            return std::make_unique<GraphStream>(P, Graph, Capacity);
          },
          py::arg("graph"), py::arg("capacity"),
          "A stream of the graph: frames pushed, popped in order.");

  py::class_<GraphStream>(m, "GraphStream",
                          "A graph run once per frame (docs/python.md).")
      .def("push", &GraphStream::push, py::arg("args"),
           py::arg("pointees") = std::vector<std::string>())
      .def("pop", &GraphStream::pop)
      .def("end", &GraphStream::end)
      .def("cancel", &GraphStream::cancel)
      .def("close", &GraphStream::close);

  m.def("compile_c", &compileC, py::arg("source"), py::arg("name"),
        py::arg("flags"), py::arg("targets"), py::arg("cache_dir") = "");
  m.def("compile_ir", &compileIR, py::arg("ir"), py::arg("name"),
        py::arg("targets"), py::arg("functions"), py::arg("cache_dir") = "",
        "Compiles LLVM IR text in the marker form (what hpvm.kernel emits); "
        "functions: (name, LLVM symbol, ((param, scalar, is_pointer, "
        "is_const), ...)) of the void functions to make callable.");
  FallbackWarningType =
      py::reinterpret_borrow<py::object>(PyErr_NewExceptionWithDoc(
          "hpvm.DeviceFallbackWarning",
          "A launch ran a node on a device other than the ones asked for "
          "(launch_options(devices=...) without strict=True).",
          PyExc_RuntimeWarning, nullptr));
  m.attr("DeviceFallbackWarning") = FallbackWarningType;
  m.def("set_launch_options", &setLaunchOptions, py::arg("devices"),
        py::arg("scheduler"), py::arg("strict"),
        "Launches this thread starts use these devices (kinds or names; "
        "empty: any), policy (empty: the runtime's) and strictness.");
  m.def("clear_launch_options", &clearLaunchOptions);
  m.def("launch_options", &launchOptions,
        "(devices, scheduler, strict) of this thread, or None.");
  m.def("compile_graph", &compileGraph, py::arg("ir"), py::arg("graph_text"),
        py::arg("name"), py::arg("targets"), py::arg("cache_dir") = "",
        "Compiles a graph-form module: IR with the leaf functions and "
        "graphs in text form (empty: those of the IR).");
  m.def(
      "dot_from_text",
      [](const std::string &Text) {
        std::string Dot;
        try {
          for (const hpvm::Graph &G : hpvm::readGraphText(Text))
            Dot += graphDot(G);
        } catch (const hpvm::GraphError &E) {
          throw py::value_error(E.what());
        }
        return Dot;
      },
      "Graphviz DOT of graphs in text form.");
  m.def(
      "verify_graph_text",
      [](const std::string &Text) {
        py::list L;
        for (const GraphProblem &P : verifyGraphText(Text))
          L.append(py::make_tuple(P.Rule, P.Where, P.Message));
        return L;
      },
      "The broken rules of graphs in text form: (rule, node, message).");
  py::class_<hpvm::rt::Runtime, std::shared_ptr<hpvm::rt::Runtime>>(
      m, "Runtime", "An hpvm-rt runtime of its own (hpvm.Runtime).")
      .def(py::init([](const std::string &Devices, unsigned Threads,
                       const std::string &Scheduler, bool Strict,
                       const std::string &Trace) {
             hpvm::rt::RuntimeConfig C;
             C.Devices = Devices;
             C.Threads = Threads;
             C.Scheduler = Scheduler;
             C.DevicesStrict = Strict;
             C.TracePath = Trace;
             py::gil_scoped_release Unlocked;
             return std::make_shared<hpvm::rt::Runtime>(C);
           }),
           py::arg("devices"), py::arg("threads"), py::arg("scheduler"),
           py::arg("strict"), py::arg("trace"))
      .def_property_readonly(
          "config_error",
          [](const hpvm::rt::Runtime &RT) { return RT.configError(); })
      .def_property_readonly("notes", &hpvm::rt::Runtime::notes);
  m.def(
      "set_current_runtime",
      [](const std::shared_ptr<hpvm::rt::Runtime> &RT) {
        hpvm::rt::Runtime::setCurrent(RT.get());
      },
      py::arg("runtime").none(true),
      "Makes launches from this thread go to runtime (None: the "
      "process's); the caller keeps it alive meanwhile.");
  m.def("devices", &devices,
        "The devices hpvm-rt uses, every kind discovered.");
  m.def(
      "stats_text", [] { return hpvm::rt::Runtime::current().statsText(); },
      "What HPVM_STATS=1 prints at exit, so far.");
  m.def(
      "stats_rows",
      [] {
        hpvm::rt::Stats &S = hpvm::rt::Runtime::current().stats();
        py::list Nodes, Buffers;
        for (const hpvm::rt::Stats::Row &R : S.rows()) {
          py::dict D;
          D["path"] = R.Path;
          D["device"] = R.Device;
          D["launches"] = R.Launches;
          D["instances"] = R.Instances;
          D["seconds"] = R.Nanos / 1e9;
          D["bytes_in"] = R.BytesIn;
          D["compile_seconds"] = R.CompileNanos / 1e9;
          Nodes.append(D);
        }
        for (const hpvm::rt::Stats::BufferRow &R : S.bufferRows()) {
          py::dict D;
          D["name"] = R.Name;
          D["to_devices"] = R.ToDevices;
          D["to_host"] = R.ToHost;
          Buffers.append(D);
        }
        return py::make_tuple(Nodes, Buffers);
      },
      "hpvm-rt's statistics: (node rows, buffer rows) as dicts.");
  m.def(
      "stats_reset", [] { hpvm::rt::Runtime::current().stats().reset(); },
      "Zeroes the statistics.");
  m.def(
      "trace_start",
      [] {
        hpvm::rt::Trace &T = hpvm::rt::Runtime::current().trace();
        bool WasOn = T.enabled();
        if (!WasOn)
          T.enable("");
        return py::make_tuple(WasOn, T.numEvents());
      },
      "Starts collecting trace events (if HPVM_TRACE has not): (was "
      "collecting, events so far).");
  m.def(
      "trace_stop",
      [](bool WasOn) {
        hpvm::rt::Trace &T = hpvm::rt::Runtime::current().trace();
        std::string Json = T.json();
        if (!WasOn) {
          T.disable();
          T.clear();
        }
        return Json;
      },
      "The trace (Chrome trace-event JSON); stops collecting unless "
      "HPVM_TRACE asked for it.");
}
