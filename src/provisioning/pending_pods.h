#pragma once
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <vector>

#include "api/pod.h"

namespace scalewright::provisioning {

// The batch of pending pods. They are held by shared pointer so that a caller that keeps its pods so (the
// simulator, with a million pending) hands them over without a copy; pods given by value are moved into pointers
// of their own. Indexes are the batch's order, which the plan's indexes refer to.
class PendingPods {
 public:
  PendingPods() = default;
  PendingPods(std::vector<Pod> pods) {  // NOLINT(google-explicit-constructor): a list of pods is a batch
    pods_.reserve(pods.size());
    for (Pod& pod : pods) push_back(std::move(pod));
  }
  PendingPods(std::initializer_list<Pod> pods) : PendingPods(std::vector<Pod>(pods)) {}

  void push_back(Pod pod) { pods_.push_back(std::make_shared<Pod>(std::move(pod))); }
  void push_back(std::shared_ptr<Pod> pod) { pods_.push_back(std::move(pod)); }
  void reserve(std::size_t n) { pods_.reserve(n); }
  void clear() { pods_.clear(); }
  std::size_t size() const { return pods_.size(); }
  bool empty() const { return pods_.empty(); }
  const Pod& operator[](std::size_t i) const { return *pods_[i]; }
  Pod& operator[](std::size_t i) { return *pods_[i]; }
  const Pod& back() const { return *pods_.back(); }
  Pod& back() { return *pods_.back(); }
  // The pod itself, shared (to place it in a snapshot without a copy).
  std::shared_ptr<const Pod> shared(std::size_t i) const { return pods_[i]; }

  // Iterates the pods themselves, not their pointers.
  template <typename Iterator, typename Reference>
  struct Dereferencing {
    Iterator at;
    Reference operator*() const { return **at; }
    Dereferencing& operator++() {
      ++at;
      return *this;
    }
    bool operator==(const Dereferencing&) const = default;
  };
  using const_iterator = Dereferencing<std::vector<std::shared_ptr<Pod>>::const_iterator, const Pod&>;
  using iterator = Dereferencing<std::vector<std::shared_ptr<Pod>>::iterator, Pod&>;
  const_iterator begin() const { return {pods_.begin()}; }
  const_iterator end() const { return {pods_.end()}; }
  iterator begin() { return {pods_.begin()}; }
  iterator end() { return {pods_.end()}; }

 private:
  std::vector<std::shared_ptr<Pod>> pods_;
};

}  // namespace scalewright::provisioning
