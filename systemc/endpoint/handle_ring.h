// A FIFO of small values (message and bundle handles, credits) in a growable power-of-two ring:
// after it has grown to the largest backlog seen, pushes and pops never allocate.
#pragma once

#include <cstdint>
#include <vector>

namespace upswitch::endpoint {

template <class T>
class Ring {
 public:
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  const T& front() const { return buf_[head_]; }
  T& front() { return buf_[head_]; }
  const T& at(size_t k) const { return buf_[(head_ + k) & (buf_.size() - 1)]; }
  void push(const T& v) {
    if (count_ == buf_.size()) grow();
    buf_[(head_ + count_) & (buf_.size() - 1)] = v;
    ++count_;
  }
  // Inserts v before element k (k = size(): at the back); the others keep their order.
  void insert(size_t k, const T& v) {
    push(v);
    const size_t mask = buf_.size() - 1;
    for (size_t j = count_ - 1; j > k; --j) buf_[(head_ + j) & mask] = buf_[(head_ + j - 1) & mask];
    buf_[(head_ + k) & mask] = v;
  }
  // Removes and returns element k (0 = front); the elements before it keep their order.
  T take(size_t k) {
    const size_t mask = buf_.size() - 1;
    T v = at(k);
    for (; k > 0; --k) buf_[(head_ + k) & mask] = buf_[(head_ + k - 1) & mask];
    head_ = (head_ + 1) & mask;
    --count_;
    return v;
  }
  T pop() {
    T v = buf_[head_];
    head_ = (head_ + 1) & (buf_.size() - 1);
    --count_;
    return v;
  }

 private:
  void grow() {
    std::vector<T> bigger(buf_.empty() ? 16 : buf_.size() * 2);
    for (size_t k = 0; k < count_; ++k) bigger[k] = at(k);
    buf_.swap(bigger);
    head_ = 0;
  }
  std::vector<T> buf_;
  size_t head_ = 0, count_ = 0;
};

}  // namespace upswitch::endpoint
