//===- RuntimeTestSupport.cpp - Programs, devices and JSON for tests ------===//

#include "RuntimeTestSupport.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace hpvm;
using namespace hpvm::rttest;

std::map<std::string, uint64_t>
hpvm::rttest::launchesByDevice(const std::string &Path) {
  std::map<std::string, uint64_t> Result;
  for (const rt::Stats::Row &R : rt::Runtime::get().stats().rows())
    if (R.Path == Path)
      Result[R.Device] += R.Launches;
  return Result;
}

namespace {

class JsonParser {
public:
  explicit JsonParser(const std::string &Text) : S(Text) {}

  bool parse(Json &Out, std::string &Error) {
    bool OK = value(Out, 0);
    skip();
    if (OK && Pos != S.size())
      OK = fail("trailing characters");
    if (!OK)
      Error = Why + " at offset " + std::to_string(Pos);
    return OK;
  }

private:
  const std::string &S;
  size_t Pos = 0;
  std::string Why;

  bool fail(const char *What) {
    Why = What;
    return false;
  }

  void skip() {
    while (Pos < S.size() && (S[Pos] == ' ' || S[Pos] == '\n' ||
                              S[Pos] == '\r' || S[Pos] == '\t'))
      ++Pos;
  }

  bool literal(const char *Word) {
    size_t N = std::strlen(Word);
    if (S.compare(Pos, N, Word) != 0)
      return fail("bad literal");
    Pos += N;
    return true;
  }

  bool string(std::string &Out) {
    if (Pos >= S.size() || S[Pos] != '"')
      return fail("expected a string");
    ++Pos;
    while (true) {
      if (Pos >= S.size())
        return fail("unterminated string");
      char C = S[Pos++];
      if (C == '"')
        return true;
      if (static_cast<unsigned char>(C) < 0x20)
        return fail("control character in string");
      if (C != '\\') {
        Out += C;
        continue;
      }
      if (Pos >= S.size())
        return fail("unterminated escape");
      char E = S[Pos++];
      switch (E) {
      case '"':
      case '\\':
      case '/':
        Out += E;
        break;
      case 'n':
        Out += '\n';
        break;
      case 't':
        Out += '\t';
        break;
      case 'r':
        Out += '\r';
        break;
      case 'b':
        Out += '\b';
        break;
      case 'f':
        Out += '\f';
        break;
      case 'u': {
        if (Pos + 4 > S.size())
          return fail("short \\u escape");
        unsigned Code = std::stoul(S.substr(Pos, 4), nullptr, 16);
        Pos += 4;
        Out += Code < 0x80 ? static_cast<char>(Code) : '?';
        break;
      }
      default:
        return fail("bad escape");
      }
    }
  }

  bool number(double &Out) {
    size_t Start = Pos;
    if (Pos < S.size() && S[Pos] == '-')
      ++Pos;
    if (Pos >= S.size() || !std::isdigit(static_cast<unsigned char>(S[Pos])))
      return fail("expected a digit");
    while (Pos < S.size() &&
           (std::isdigit(static_cast<unsigned char>(S[Pos])) || S[Pos] == '.' ||
            S[Pos] == 'e' || S[Pos] == 'E' || S[Pos] == '+' || S[Pos] == '-'))
      ++Pos;
    Out = std::strtod(S.substr(Start, Pos - Start).c_str(), nullptr);
    return true;
  }

  bool value(Json &Out, unsigned Depth) {
    if (Depth > 64)
      return fail("nested too deeply");
    skip();
    if (Pos >= S.size())
      return fail("unexpected end");
    char C = S[Pos];
    if (C == '{') {
      Out.K = Json::Object;
      ++Pos;
      skip();
      if (Pos < S.size() && S[Pos] == '}') {
        ++Pos;
        return true;
      }
      while (true) {
        skip();
        std::string Key;
        if (!string(Key))
          return false;
        skip();
        if (Pos >= S.size() || S[Pos++] != ':')
          return fail("expected ':'");
        Json V;
        if (!value(V, Depth + 1))
          return false;
        Out.Members.emplace_back(std::move(Key), std::move(V));
        skip();
        if (Pos < S.size() && S[Pos] == ',') {
          ++Pos;
          continue;
        }
        if (Pos < S.size() && S[Pos] == '}') {
          ++Pos;
          return true;
        }
        return fail("expected ',' or '}'");
      }
    }
    if (C == '[') {
      Out.K = Json::Array;
      ++Pos;
      skip();
      if (Pos < S.size() && S[Pos] == ']') {
        ++Pos;
        return true;
      }
      while (true) {
        Json V;
        if (!value(V, Depth + 1))
          return false;
        Out.Items.push_back(std::move(V));
        skip();
        if (Pos < S.size() && S[Pos] == ',') {
          ++Pos;
          continue;
        }
        if (Pos < S.size() && S[Pos] == ']') {
          ++Pos;
          return true;
        }
        return fail("expected ',' or ']'");
      }
    }
    if (C == '"') {
      Out.K = Json::String;
      return string(Out.Str);
    }
    if (C == 't' || C == 'f') {
      Out.K = Json::Bool;
      Out.B = C == 't';
      return literal(Out.B ? "true" : "false");
    }
    if (C == 'n') {
      Out.K = Json::Null;
      return literal("null");
    }
    Out.K = Json::Number;
    return number(Out.Num);
  }
};

} // namespace

bool hpvm::rttest::parseJson(const std::string &Text, Json &Out,
                             std::string &Error) {
  return JsonParser(Text).parse(Out, Error);
}

void hpvm::rttest::expectError(int Code, int Expected,
                               const std::string &Fragment) {
  EXPECT_EQ(Code, Expected);
  std::string Message = hpvm_error_message();
  EXPECT_NE(Message.find(Fragment), std::string::npos)
      << "message '" << Message << "' lacks '" << Fragment << "'";
}

std::string hpvm::rttest::readFile(const std::string &Path) {
  std::ifstream In(Path);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

std::string hpvm::rttest::tempPath(const char *Stem) {
  const char *Dir = std::getenv("TMPDIR");
  return std::string(Dir ? Dir : "/tmp") + "/" + Stem + "-" +
         std::to_string(getpid()) + ".json";
}

double DeviceTrace::bytes(const std::vector<const Json *> &Copies) {
  double Sum = 0;
  for (const Json *E : Copies)
    Sum += E->get("args")->get("bytes")->Num;
  return Sum;
}

void hpvm::rttest::traceDevice(const char *Stem, const std::string &Device,
                               const std::string &Kernel,
                               const std::function<void()> &Run,
                               DeviceTrace &Out) {
  std::string Path = tempPath(Stem);
  rt::Trace &T = rt::Runtime::get().trace();
  T.enable(Path);
  T.clear();
  Run();
  int Flushed = hpvm_flush_trace();
  std::string Message = hpvm_error_message();
  T.disable();
  T.clear();
  ASSERT_EQ(Flushed, HPVM_OK) << Message;
  Out.Text = readFile(Path);
  std::remove(Path.c_str());

  std::string Error;
  ASSERT_TRUE(parseJson(Out.Text, Out.Root, Error)) << Error << "\n"
                                                    << Out.Text;
  const Json *Events = Out.Root.get("traceEvents");
  ASSERT_NE(Events, nullptr);
  for (const Json &E : Events->Items) {
    const std::string &Ph = E.get("ph")->Str;
    const std::string &Name = E.get("name")->Str;
    if (Ph == "M" && Name == "thread_name" &&
        E.get("args")->get("name")->Str == Device + " (device clock)")
      Out.TrackNamed = true;
    if (Ph != "X" || E.get("cat")->Str != Device)
      continue;
    const Json *Clock = E.get("args")->get("clock");
    bool OnDevice = Clock && Clock->Str == "device";
    if (Name == Kernel)
      (OnDevice ? Out.Kernels : Out.Hosts).push_back(&E);
    else if (Name == "upload" && OnDevice)
      Out.Uploads.push_back(&E);
    else if (Name == "download" && OnDevice)
      Out.Downloads.push_back(&E);
  }
}

void hpvm::rttest::expectInsideHostSpan(const Json &Host, const Json &Kernel,
                                        const std::string &Text) {
  double HostStart = Host.get("ts")->Num,
         HostEnd = HostStart + Host.get("dur")->Num;
  double Start = Kernel.get("ts")->Num, End = Start + Kernel.get("dur")->Num;
  EXPECT_GE(Start, HostStart - 0.002) << Text;
  EXPECT_LE(End, HostEnd + 0.002) << Text;
  EXPECT_LE(Start, End);
}
