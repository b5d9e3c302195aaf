//===- DriverTest.cpp - hpvm-clang as a library call ----------------------===//
//
// runDriver compiles and links several programs in one process, returns
// failures as llvm::Error with the diagnostics in the stream it was given,
// and answers --version without ending the process.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace llvm;

namespace {

const char *Program = R"c(
#include <stdio.h>
static float a[1000], b[1000], c[1000];
int main(void) {
  long n = 1000;
  for (long i = 0; i < n; ++i) { a[i] = i; b[i] = 2 * i; }
#pragma hpvm parallel for in(a[0:n], b[0:n]) out(c[0:n])
  for (long i = 0; i < n; ++i)
    c[i] = a[i] + b[i] + SCALE;
  for (long i = 0; i < n; ++i)
    if (c[i] != 3 * i + SCALE) { printf("wrong at %ld\n", i); return 1; }
  return 0;
}
)c";

/// A fresh directory for one test's files.
std::string tempDir() {
  SmallString<128> Dir;
  EXPECT_FALSE(sys::fs::createUniqueDirectory("hpvm-driver-test", Dir));
  return std::string(Dir);
}

std::string write(const std::string &Dir, const char *Name,
                  const std::string &Text) {
  SmallString<128> Path(Dir);
  sys::path::append(Path, Name);
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  EXPECT_FALSE(EC) << EC.message();
  OS << Text;
  return std::string(Path);
}

/// Runs the driver; returns its error text ("" on success) and what it
/// wrote to its diagnostics stream.
std::string run(std::vector<std::string> Args, std::string &Diagnostics,
                std::string *Output = nullptr) {
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  raw_string_ostream Diag(Diagnostics), Out(*(Output ? Output : &Diagnostics));
  hpvm::cfe::DriverOptions Options;
  // The build tree's hpvm.h and hpvm-rt, next to the built tool.
  Options.InstallDir =
      sys::path::parent_path(sys::path::parent_path(HPVM_CLANG_PATH)).str();
  Options.Diagnostics = &Diag;
  Options.Output = &Out;
  Error E = hpvm::cfe::runDriver(Argv, Options);
  return E ? toString(std::move(E)) : "";
}

int execute(const std::string &Exe) {
  std::string Message;
  return sys::ExecuteAndWait(Exe, {Exe}, std::nullopt, {}, 60, 0, &Message);
}

} // namespace

TEST(Driver, CompilesAndLinksSeveralProgramsInOneProcess) {
  std::string Dir = tempDir();
  std::string Src = write(Dir, "vadd.c", Program);
  for (int Scale : {1, 5}) {
    std::string Exe = Dir + "/vadd" + std::to_string(Scale), Diagnostics;
    EXPECT_EQ(run({"-O2", "-DSCALE=" + std::to_string(Scale), Src, "-o", Exe},
                  Diagnostics),
              "")
        << Diagnostics;
    EXPECT_EQ(execute(Exe), 0) << Exe;
  }
  sys::fs::remove_directories(Dir);
}

TEST(Driver, FailuresAreErrorsWithTheDiagnosticsInTheStream) {
  std::string Dir = tempDir();
  std::string Bad = write(Dir, "bad.c", R"c(
void f(long n, float *x) {
#pragma hpvm parallel for in(x[0:n]) frobnicate
  for (long i = 0; i < n; ++i) x[i] = 0;
}
)c");
  std::string Diagnostics;
  std::string Error = run({"-c", Bad, "-o", Dir + "/bad.o"}, Diagnostics);
  EXPECT_NE(Error.find("hpvm-clang failed"), std::string::npos) << Error;
  EXPECT_NE(Diagnostics.find("bad.c:3:"), std::string::npos) << Diagnostics;
  EXPECT_NE(Diagnostics.find("error:"), std::string::npos) << Diagnostics;
  EXPECT_FALSE(sys::fs::exists(Dir + "/bad.o"));

  // A bad option is the driver's own error; the next call starts afresh.
  Diagnostics.clear();
  Error = run({"--hpvm-target=tpu", "-c", Bad}, Diagnostics);
  EXPECT_NE(Error, "");
  EXPECT_NE(Diagnostics.find("tpu"), std::string::npos) << Diagnostics;
  std::string Good = write(Dir, "good.c", Program);
  Diagnostics.clear();
  EXPECT_EQ(run({"-DSCALE=2", "-c", Good, "-o", Dir + "/good.o"}, Diagnostics),
            "")
      << Diagnostics;
  EXPECT_TRUE(sys::fs::exists(Dir + "/good.o"));
  sys::fs::remove_directories(Dir);
}

TEST(Driver, VersionAnswersWithoutEndingTheProcess) {
  std::string Diagnostics, Output;
  EXPECT_EQ(run({"--version"}, Diagnostics, &Output), "");
  EXPECT_NE(Output.find("hpvm-clang (HPVM) with Clang"), std::string::npos)
      << Output;
  Output.clear();
  EXPECT_EQ(run({"--help"}, Diagnostics, &Output), "");
  EXPECT_NE(Output.find("--hpvm-target=<list>"), std::string::npos) << Output;
}
