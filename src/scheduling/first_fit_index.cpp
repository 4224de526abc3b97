#include "scheduling/first_fit_index.h"

#include <algorithm>

namespace scalewright::scheduling {
namespace {

FirstFitIndex::Room most(const FirstFitIndex::Room& a, const FirstFitIndex::Room& b) {
  return {std::max(a.cpu_milli, b.cpu_milli), std::max(a.memory, b.memory), std::max(a.pods, b.pods)};
}

}  // namespace

void FirstFitIndex::set(std::size_t i, const Room& room) {
  if (i >= leaves_) {
    // Twice the leaves (or more): the old ones move down one level, every inner node is made again.
    std::size_t leaves = std::max<std::size_t>(leaves_ * 2, 64);
    while (leaves <= i) leaves *= 2;
    std::vector<Room> tree(2 * leaves);
    for (std::size_t k = 0; k < size_; ++k) tree[leaves + k] = tree_[leaves_ + k];
    for (std::size_t n = leaves - 1; n >= 1; --n) tree[n] = most(tree[2 * n], tree[2 * n + 1]);
    tree_ = std::move(tree);
    leaves_ = leaves;
  }
  size_ = std::max(size_, i + 1);
  std::size_t n = leaves_ + i;
  tree_[n] = room;
  for (n /= 2; n >= 1; n /= 2) tree_[n] = most(tree_[2 * n], tree_[2 * n + 1]);
}

std::size_t FirstFitIndex::search(std::size_t node, std::size_t lo, std::size_t hi, std::size_t from,
                                  const Room& need) const {
  if (hi <= from || lo >= size_ || !holds(tree_[node], need)) return size_;
  if (hi - lo == 1) return lo;
  const std::size_t mid = lo + (hi - lo) / 2;
  const std::size_t left = search(2 * node, lo, mid, from, need);
  return left != size_ ? left : search(2 * node + 1, mid, hi, from, need);
}

std::size_t FirstFitIndex::next(std::size_t from, const Room& need) const {
  if (from >= size_) return size_;
  return search(1, 0, leaves_, from, need);
}

}  // namespace scalewright::scheduling
