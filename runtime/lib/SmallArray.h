//===- SmallArray.h - Arrays on the stack for launches ----------*- C++ -*-===//
#ifndef HPVM_RT_LIB_SMALLARRAY_H
#define HPVM_RT_LIB_SMALLARRAY_H

#include <cstddef>
#include <memory>

namespace hpvm::rt {

/// An array that lives on the stack unless it is unusually long, so that a
/// launch allocates nothing for ordinary nodes.
template <typename T, size_t N> class SmallArray {
public:
  explicit SmallArray(size_t Size)
      : Ptr(Size <= N ? Inline : (Heap.reset(new T[Size]), Heap.get())) {}
  T &operator[](size_t I) { return Ptr[I]; }
  T *data() { return Ptr; }

private:
  T Inline[N];
  std::unique_ptr<T[]> Heap;
  T *Ptr;
};

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_SMALLARRAY_H
