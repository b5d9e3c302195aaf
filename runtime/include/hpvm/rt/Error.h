//===- Error.h - How the runtime reports failure inside ---------*- C++ -*-===//
//
// Inside hpvm-rt, failures are exceptions carrying an hpvm_status; the C ABI
// catches them and turns them into a return code plus the thread's message,
// so no exception ever crosses into C.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_ERROR_H
#define HPVM_RT_ERROR_H

#include "hpvm/rt/hpvm_rt.h"

#include <exception>
#include <stdexcept>
#include <string>

namespace hpvm::rt {

class RtError : public std::runtime_error {
public:
  RtError(hpvm_status Code, const std::string &Message)
      : std::runtime_error(Message), Code(Code) {}
  hpvm_status code() const { return Code; }

private:
  hpvm_status Code;
};

/// The calling thread's message for hpvm_error_message().
void setErrorMessage(std::string Message);
void clearErrorMessage();
const char *errorMessage();
/// The message for an exception that is not an RtError (the C ABI's
/// HPVM_ERR_DEVICE): what ran out when the system refused memory or a
/// thread, the exception's text otherwise. No "hpvm-rt:" prefix: whoever
/// prints it adds one.
std::string unexpectedErrorMessage(const std::exception &E);

} // namespace hpvm::rt

#endif // HPVM_RT_ERROR_H
