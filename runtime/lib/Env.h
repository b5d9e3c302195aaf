//===- Env.h - Reading hpvm-rt's settings from the environment -*- C++ -*-===//
//
// Every HPVM_* variable reads the same way, whichever part of the runtime
// owns it: unset and empty both mean the default (so that `HPVM_X= prog`
// undoes an exported setting), and words compare without case.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_ENV_H
#define HPVM_RT_LIB_ENV_H

#include <cctype>
#include <cstdlib>
#include <string>

namespace hpvm::rt {

/// The variable's value, or null where it is unset or empty.
inline const char *env(const char *Name) {
  const char *V = std::getenv(Name);
  return V && *V ? V : nullptr;
}

inline std::string lower(std::string S) {
  for (char &C : S)
    C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  return S;
}

/// Reads a setting whose values are auto, always and never (or 1 and 0)
/// into Mode, an enum with Auto, Always and Never; leaves it alone where
/// the variable is unset. Returns the message for any other value, else "".
template <class Mode>
std::string envAutoAlwaysNever(const char *Name, Mode &Out) {
  const char *V = env(Name);
  if (!V)
    return "";
  std::string S = lower(V);
  if (S == "auto")
    Out = Mode::Auto;
  else if (S == "always" || S == "1")
    Out = Mode::Always;
  else if (S == "never" || S == "0")
    Out = Mode::Never;
  else
    return std::string(Name) + "='" + V + "' is not auto, always or never";
  return "";
}

/// Reads a whole number from 0 to Max, said in Unit ("microseconds"),
/// into Out; leaves Out alone where the variable is unset. Returns the
/// message for anything else, else "".
template <class Number>
std::string envNumber(const char *Name, const char *Unit, Number Min,
                      Number Max, Number &Out) {
  const char *V = env(Name);
  if (!V)
    return "";
  char *End;
  unsigned long long N = std::strtoull(V, &End, 10);
  if (*End || *V == '-' || N < Min || N > Max)
    return std::string(Name) + "='" + V + "' is not a number of " + Unit +
           " from " + std::to_string(Min) + " to " + std::to_string(Max);
  Out = static_cast<Number>(N);
  return "";
}

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_ENV_H
