#pragma once
// What a provider's threads tell the loop (ProviderContext's channels), carried to the loop's thread: the inbox is made
// before the provider, whose context gets its sender(), and keeps what arrives until the loop takes over
// (ClusterRuntime::take_notices_from, take_node_class_changes_from), then hands each item on at once, in the order
// sent.
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <utility>

namespace scalewright::cluster {

template <typename T>
class ProviderInbox {
 public:
  using Sink = std::function<void(T)>;

  // For the provider's context; the inbox must outlive every caller.
  std::function<void(T)> sender() {
    return [this](T item) { post(std::move(item)); };
  }
  // Any thread: to the sink, or kept until there is one.
  void post(T item) {
    std::lock_guard lock(mutex_);
    // Delivered under the lock, so that an item cannot overtake those kept before the sink came.
    if (sink_) {
      sink_(std::move(item));
    } else {
      kept_.push_back(std::move(item));
    }
  }
  // From now on items go to `sink`, those kept first; an empty sink keeps them again.
  void deliver_to(Sink sink) {
    std::lock_guard lock(mutex_);
    sink_ = std::move(sink);
    if (!sink_) return;
    while (!kept_.empty()) {
      sink_(std::move(kept_.front()));
      kept_.pop_front();
    }
  }
  std::size_t kept() const {
    std::lock_guard lock(mutex_);
    return kept_.size();
  }

 private:
  mutable std::mutex mutex_;
  Sink sink_;
  std::deque<T> kept_;
};

// The names of the node classes a provider re-resolved to something else (cloud::ProviderContext::node_class_changes).
using NodeClassChangeInbox = ProviderInbox<std::string>;

}  // namespace scalewright::cluster
