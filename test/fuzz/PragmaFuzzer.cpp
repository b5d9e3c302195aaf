//===- PragmaFuzzer.cpp - libFuzzer target: `#pragma hpvm` lines ----------===//
//
// Any one line as the text after `#pragma hpvm`, in front of a loop of a
// small C function, compiled as hpvm-clang compiles it (the pragma reader,
// the node checks, the rewrite, the HPVM IR rules, EXTRACT): errors are
// fine, crashes and sanitizer reports are not.
//
//===----------------------------------------------------------------------===//
#include "CompileC.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Line(reinterpret_cast<const char *>(Data), Size);
  // One pragma line: a line break or a NUL would end it early.
  if (Line.find_first_of(std::string("\n\r\\\0", 4)) != std::string::npos)
    return 0;
  std::string Source =
      "float g[64];\n"
      "void f(float *a, float *b, float (*c)[8], int n, int m) {\n"
      "  int i, j;\n"
      "  float s = 0;\n"
      "#pragma hpvm " +
      Line +
      "\n"
      "  for (i = 0; i < n; i++) {\n"
      "    for (j = 0; j < 8; j++) c[i][j] += b[i];\n"
      "    s += b[i];\n"
      "    a[i] = s;\n"
      "  }\n"
      "}\n";
  llvm::LLVMContext Ctx;
  auto M = hpvm::cfe::compileCToGraphForm(Source, "fuzz.c", {"-O1"}, Ctx);
  if (!M)
    llvm::consumeError(M.takeError());
  return 0;
}
