#pragma once
// The launches of `scalewright run`: each NodeClaim's create call is made on a worker thread, as Karpenter's
// NodeClaim lifecycle controller launches apart from the provisioner that created the claim, so that a CreateFleet
// taking seconds holds neither the controllers' loop nor the launches queued behind it. Each answer is posted back
// to the loop, which hands it to the controller that asked.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "cloud/cloud_provider.h"
#include "controllers/ports.h"

namespace scalewright::cluster {

class LaunchWorker final : public controllers::Launches {
 public:
  // Hands `answer` to the loop's thread, to be run there.
  using Post = std::function<void(std::function<void()> answer)>;
  // How many create calls may be under way at once (Karpenter reconciles NodeClaims in parallel too).
  static constexpr std::size_t kWorkers = 4;

  // `cloud` is called from the workers' threads: a provider's create must be safe beside the loop's other calls.
  LaunchWorker(cloud::CloudProvider& cloud, Post post, std::size_t workers = kWorkers);
  // Launches not yet started are dropped (their NodeClaims, left without an instance, are given up by the next
  // leader); those under way finish first.
  ~LaunchWorker() override;
  LaunchWorker(const LaunchWorker&) = delete;
  LaunchWorker& operator=(const LaunchWorker&) = delete;

  void launch(cloud::CreateRequest request, Answered answered) override;

 private:
  void work(const std::stop_token& stop);

  cloud::CloudProvider& cloud_;
  Post post_;
  std::mutex mutex_;
  std::condition_variable_any queued_;
  std::deque<std::pair<cloud::CreateRequest, Answered>> queue_;
  std::vector<std::jthread> workers_;  // last: started once the rest is built, joined first
};

}  // namespace scalewright::cluster
