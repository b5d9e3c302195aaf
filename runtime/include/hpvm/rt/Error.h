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

/// exit() from one thread while others are in the runtime: drivers tear
/// themselves down in their exit handlers, and a thread still inside one
/// would crash there. Every C ABI call passes a gate; once exit() has begun
/// (in another thread), a call that has not started waits there for the
/// process to end, and exit's first handler waits (a while) for the calls
/// under way to finish before the drivers go.
///
/// enterCall() returns once the calling thread may go on: at once, unless
/// another thread is exiting (then never). leaveCall() ends the call.
void enterCall();
void leaveCall();
/// Whether exit() has begun in another thread.
bool processExiting();
/// Registers the exit handler that closes the gate, to run before the exit
/// handlers registered so far: called after drivers are loaded, which
/// register theirs.
void watchForExit();

} // namespace hpvm::rt

#endif // HPVM_RT_ERROR_H
