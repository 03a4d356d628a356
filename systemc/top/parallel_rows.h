// Independent table rows measured on several threads (p2p and collective tables): the output is
// the same for any thread count, and the first failing row in table order is the one reported,
// as a single thread would report it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/interrupt.h"

namespace upswitch::top {

// Calls row(i) for every i in [0, n) on up to `jobs` threads (the caller's included); after each
// row, done(rows finished so far), one call at a time. Stops taking rows after a failure and
// rethrows the failure of the lowest failing row.
inline void for_each_row(size_t n, int jobs, const std::function<void(size_t)>& row,
                         const std::function<void(size_t)>& done = {}) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0}, finished{0};
  std::atomic<bool> failed{false};
  std::mutex done_mutex;
  auto worker = [&] {
    for (size_t i = next++; i < n && !failed.load(); i = next++) {
      try {
        row(i);
      } catch (...) {
        errors[i] = std::current_exception();
        failed.store(true);
      }
      const size_t d = ++finished;
      if (done) {
        std::lock_guard<std::mutex> lock(done_mutex);
        done(d);
      }
    }
  };
  const int threads_wanted = std::max(1, std::min<int>(jobs, static_cast<int>(n)));
  std::vector<std::thread> threads;
  for (int j = 1; j < threads_wanted; ++j) threads.emplace_back(worker);
  worker();
  for (std::thread& th : threads) th.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

// for_each_row over rows[0 .. n) that tells an interruption from a failure: when Ctrl-C
// (core::Interrupted) stops the rows, `rows` keeps only those that completed, in table order, and
// the call returns true; any other failure is rethrown as for_each_row does.
template <class Row>
bool measure_rows(std::vector<Row>& rows, int jobs, const std::function<void(size_t)>& row,
                  const std::function<void(size_t)>& done = {}) {
  std::vector<char> completed(rows.size(), 0);
  try {
    for_each_row(
        rows.size(), jobs,
        [&](size_t i) {
          row(i);
          completed[i] = 1;
        },
        done);
    return false;
  } catch (const core::Interrupted&) {
    size_t kept = 0;
    for (size_t i = 0; i < rows.size(); ++i)
      if (completed[i]) rows[kept++] = std::move(rows[i]);
    rows.resize(kept);
    return true;
  }
}

}  // namespace upswitch::top
