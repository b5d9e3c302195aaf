//===- SmallArray.h - Arrays on the stack for launches ----------*- C++ -*-===//
#ifndef HPVM_RT_LIB_SMALLARRAY_H
#define HPVM_RT_LIB_SMALLARRAY_H

#include <cstddef>
#include <memory>

namespace hpvm::rt {

/// An array that lives on the stack unless it is unusually long, so that a
/// launch allocates nothing for ordinary nodes. Only the Size elements in
/// use are constructed (value-initialised): a launch's path is short enough
/// that initialising N of them would show.
template <typename T, size_t N> class SmallArray {
public:
  explicit SmallArray(size_t Size) : Size(Size) {
    if (Size > N) {
      Heap.reset(new T[Size]());
      Ptr = Heap.get();
    } else {
      Ptr = reinterpret_cast<T *>(Inline);
      std::uninitialized_value_construct_n(Ptr, Size);
    }
  }
  ~SmallArray() {
    if (!Heap)
      std::destroy_n(Ptr, Size);
  }
  SmallArray(const SmallArray &) = delete;
  SmallArray &operator=(const SmallArray &) = delete;
  T &operator[](size_t I) { return Ptr[I]; }
  T *data() { return Ptr; }

private:
  alignas(T) unsigned char Inline[N * sizeof(T)];
  std::unique_ptr<T[]> Heap;
  size_t Size;
  T *Ptr;
};

} // namespace hpvm::rt

#endif // HPVM_RT_LIB_SMALLARRAY_H
