// The table commands refuse a list option that names a value twice (--ranks 8,8, --ops read,read,
// --loaded-sizes 8,8): each repeat would be a second, identical row of the table.
#pragma once

#include <vector>

namespace upswitch::top {

// The first value `v` holds twice; null when every value is distinct.
template <class T>
const T* first_repeat(const std::vector<T>& v) {
  for (size_t i = 0; i < v.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (v[i] == v[j]) return &v[i];
  return nullptr;
}

}  // namespace upswitch::top
