//===- Error.cpp - The per-thread error message ---------------------------===//

#include "hpvm/rt/Error.h"

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
