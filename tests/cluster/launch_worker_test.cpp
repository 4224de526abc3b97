// The launch worker of `scalewright run`: a NodeClaim's create call is made on a thread of its own, the caller goes
// on at once, and the cloud's answer comes back only through the loop's post.
#include "cluster/launch_worker.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include "../controllers/fake_ports.h"

namespace scalewright::cluster {
namespace {

// A cloud whose create calls wait until the test opens the gate, and say on which thread they ran.
class GatedCloud final : public cloud::CloudProvider {
 public:
  const cloud::Catalog& catalog() const override { return inner_.catalog(); }
  cloud::CloudResult<cloud::Created> create(const cloud::CreateRequest& request) override {
    std::unique_lock lock(mutex_);
    create_thread_ = std::this_thread::get_id();
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
    return inner_.create(request);
  }
  cloud::CloudResult<cloud::Deleted> terminate(const std::string& id) override { return inner_.terminate(id); }
  cloud::CloudResult<cloud::Instance> get(const std::string& id) const override { return inner_.get(id); }
  cloud::CloudResult<std::vector<cloud::Instance>> list() const override { return inner_.list(); }

  std::thread::id wait_for_a_create_call() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return create_thread_.has_value(); });
    return *create_thread_;
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  controllers::fakes::FakeCloud inner_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<std::thread::id> create_thread_;
  bool open_ = false;
};

// What the worker posts, as the runtime's inbox holds it for the loop.
class Inbox {
 public:
  void post(std::function<void()> answer) {
    std::lock_guard lock(mutex_);
    posted_.push_back(std::move(answer));
    changed_.notify_all();
  }
  std::size_t size() {
    std::lock_guard lock(mutex_);
    return posted_.size();
  }
  std::function<void()> take() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !posted_.empty(); });
    std::function<void()> next = std::move(posted_.front());
    posted_.pop_front();
    return next;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> posted_;
};

TEST(LaunchWorker, CreateCallRunsOffTheCallersThreadAndItsAnswerComesBackThroughThePost) {
  GatedCloud cloud;
  Inbox inbox;
  LaunchWorker worker(cloud, [&](std::function<void()> answer) { inbox.post(std::move(answer)); }, 1);
  const cloud::InstanceType* type = cloud.catalog().find("c.large");
  std::optional<cloud::CloudResult<cloud::Created>> answered;
  worker.launch({"n1", {{type, type->offering("zone-a", cloud::CapacityType::Spot)}}, {}, {}},
                [&](cloud::CloudResult<cloud::Created> created) { answered = std::move(created); });

  // The call is under way on the worker's thread, held by the cloud; the caller got control back without it.
  EXPECT_NE(cloud.wait_for_a_create_call(), std::this_thread::get_id());
  EXPECT_EQ(inbox.size(), 0u);
  EXPECT_FALSE(answered.has_value());

  cloud.open();
  std::function<void()> answer = inbox.take();
  EXPECT_FALSE(answered.has_value());  // not before the loop runs what was posted
  answer();
  ASSERT_TRUE(answered.has_value());
  ASSERT_TRUE(answered->ok());
  EXPECT_EQ((*answered)->instance.node_name, "n1");
  EXPECT_EQ((*answered)->instance.instance_type, type);
}

}  // namespace
}  // namespace scalewright::cluster
