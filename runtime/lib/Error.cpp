//===- Error.cpp - The per-thread error message ---------------------------===//

#include "hpvm/rt/Error.h"

#include <new>
#include <system_error>

using namespace hpvm::rt;

namespace {
// Per thread, as the C ABI promises: concurrent launches from different
// threads each see their own last error.
thread_local std::string Message;
} // namespace

void hpvm::rt::setErrorMessage(std::string NewMessage) {
  Message = std::move(NewMessage);
}

void hpvm::rt::clearErrorMessage() { Message.clear(); }

const char *hpvm::rt::errorMessage() { return Message.c_str(); }

std::string hpvm::rt::unexpectedErrorMessage(const std::exception &E) {
  if (dynamic_cast<const std::bad_alloc *>(&E))
    return "out of memory: the runtime could not allocate what the launch "
           "needs";
  if (dynamic_cast<const std::system_error *>(&E))
    return std::string("the system refused a resource (") + E.what() +
           "): the process may have run out of threads or memory";
  return std::string("internal error: ") + E.what();
}
