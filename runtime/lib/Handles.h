//===- Handles.h - Checked handles for objects the C ABI hands out --------===//
//
// A handle is a slot number and the generation of the object in it, never
// the object's address: a handle used after its object is gone (closed
// twice, closed by another thread) finds a newer generation or nothing, and
// the call says so instead of touching freed memory. Objects are held by
// shared_ptr, so a call in progress keeps its object alive while another
// thread removes the handle.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_LIB_HANDLES_H
#define HPVM_RT_LIB_HANDLES_H

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace hpvm::rt {

template <typename T> class HandleTable {
public:
  /// A new handle for Obj; never 0.
  uint64_t add(std::shared_ptr<T> Obj) {
    std::lock_guard<std::mutex> L(M);
    uint32_t Index;
    if (!Free.empty()) {
      Index = Free.back();
      Free.pop_back();
    } else {
      Index = static_cast<uint32_t>(Slots.size());
      Slots.emplace_back();
    }
    Slots[Index].Obj = std::move(Obj);
    return handle(Index, Slots[Index].Generation);
  }
  /// The object of H, or null if H names none (any more).
  std::shared_ptr<T> find(uint64_t H) const {
    std::lock_guard<std::mutex> L(M);
    const Slot *S = slotOf(H);
    return S ? S->Obj : nullptr;
  }
  /// Takes the object of H out of the table (null if H names none): H and
  /// every copy of it name nothing from now on.
  std::shared_ptr<T> remove(uint64_t H) {
    std::lock_guard<std::mutex> L(M);
    Slot *S = const_cast<Slot *>(slotOf(H));
    if (!S)
      return nullptr;
    std::shared_ptr<T> Obj = std::move(S->Obj);
    S->Obj = nullptr;
    ++S->Generation;
    Free.push_back(static_cast<uint32_t>(H & 0xffffffffu) - 1);
    return Obj;
  }

private:
  struct Slot {
    std::shared_ptr<T> Obj;
    uint32_t Generation = 1;
  };
  mutable std::mutex M;
  std::vector<Slot> Slots;
  std::vector<uint32_t> Free;

  static uint64_t handle(uint32_t Index, uint32_t Generation) {
    return (uint64_t(Generation) << 32) | (uint64_t(Index) + 1);
  }
  const Slot *slotOf(uint64_t H) const {
    uint64_t Index = (H & 0xffffffffu);
    if (!Index || Index > Slots.size())
      return nullptr;
    const Slot &S = Slots[Index - 1];
    return S.Obj && S.Generation == (H >> 32) ? &S : nullptr;
  }
};

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_HANDLES_H
