#include "cluster/launch_worker.h"

#include <memory>

namespace scalewright::cluster {

LaunchWorker::LaunchWorker(cloud::CloudProvider& cloud, Post post, std::size_t workers)
    : cloud_(cloud), post_(std::move(post)) {
  for (std::size_t i = 0; i < workers; ++i) {
    workers_.emplace_back([this](const std::stop_token& stop) { work(stop); });
  }
}

LaunchWorker::~LaunchWorker() {
  for (std::jthread& worker : workers_) worker.request_stop();
  workers_.clear();  // joins: a create call under way finishes first
}

void LaunchWorker::launch(cloud::CreateRequest request, Answered answered) {
  {
    std::lock_guard lock(mutex_);
    queue_.emplace_back(std::move(request), std::move(answered));
  }
  queued_.notify_one();
}

void LaunchWorker::work(const std::stop_token& stop) {
  while (true) {
    std::pair<cloud::CreateRequest, Answered> next;
    {
      std::unique_lock lock(mutex_);
      if (!queued_.wait(lock, stop, [this] { return !queue_.empty(); })) return;
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    // Shared, as the result is copied into a std::function (which must be copyable).
    auto created = std::make_shared<cloud::CloudResult<cloud::Created>>(cloud_.create(next.first));
    post_([answered = std::move(next.second), created] { answered(std::move(*created)); });
  }
}

}  // namespace scalewright::cluster
