// Cluster Autoscaler's node groups on Auto Scaling groups, over the wire: against the AWS emulator (moto) for what
// it plays (sizes, instances, terminations), and against a small server of the test's own for the scaling
// activities moto never fails (a placeholder that cannot be fulfilled).
#include "cloud/aws/asg_node_groups.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "auto_scaling_fixture.h"

namespace scalewright::cloud::aws {
namespace {

using std::chrono::seconds;
using Clock = std::chrono::system_clock;

class AsgNodeGroupsTest : public AutoScalingFixture {
 protected:
  void SetUp() override {
    AutoScalingFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    create_launch_template("demo-template", "m5.large");
    api_ = std::make_unique<AutoScalingApi>(*autoscaling_, ec2_.get());
  }

  // The groups of the demo cluster's tags, read through a clock the test moves.
  std::unique_ptr<AsgNodeGroups> groups(nodegroups::AutoscalerOptions options = {}) {
    if (options.nodes.empty()) options.auto_discovery = {std::string("asg:tag=") + kEnabledTag + "," + kDemoTag};
    AsgNodeGroupsSettings settings;
    settings.clock = [this] { return now_; };
    settings.catalog = &catalog_;
    auto made = AsgNodeGroups::create(*api_, options, settings);
    EXPECT_TRUE(made.ok()) << (made ? "" : made.error().message);
    return std::move(*made);
  }

  void create_demo_group(std::int32_t min, std::int32_t max, std::int32_t desired) {
    create_group({"demo-a",
                  min,
                  max,
                  desired,
                  {"us-east-1a"},
                  {{kEnabledTag, "true"}, {kDemoTag, "owned"}},
                  "demo-template",
                  {},
                  false});
  }

  std::vector<std::string> instance_ids() {
    auto described = api_->describe_groups({"demo-a"});
    EXPECT_TRUE(described.ok() && described->size() == 1);
    std::vector<std::string> ids;
    for (const AsgInstance& instance : described->front().instances) ids.push_back(instance.id);
    return ids;
  }

  std::int32_t desired_in_aws() {
    auto described = api_->describe_groups({"demo-a"});
    EXPECT_TRUE(described.ok() && described->size() == 1);
    return described->front().desired_capacity;
  }

  Clock::time_point now_ = Clock::now();
  Catalog catalog_ = catalog();
  std::unique_ptr<AutoScalingApi> api_;
};

TEST_F(AsgNodeGroupsTest, IncreaseSizeRaisesDesiredCapacityAndTheInstancesAppearRunning) {
  create_demo_group(1, 3, 1);
  auto provider = groups();
  ASSERT_EQ(provider->target_size("demo-a").value(), 1);

  auto raised = provider->increase_size("demo-a", 1);
  ASSERT_TRUE(raised.ok()) << raised.error().message;
  EXPECT_EQ(answers("SetDesiredCapacity"), 1);
  EXPECT_EQ(desired_in_aws(), 2);
  EXPECT_EQ(provider->target_size("demo-a").value(), 2);

  // Until the cache is read again, the new capacity is a placeholder in the group's first zone.
  auto before = provider->nodes("demo-a");
  ASSERT_TRUE(before.ok()) << before.error().message;
  ASSERT_EQ(before->size(), 2u);
  EXPECT_EQ((*before)[0].state, InstanceState::Running);
  EXPECT_EQ((*before)[1].instance.id, "i-placeholder-demo-a-1");
  EXPECT_EQ((*before)[1].instance.provider_id, "aws:///us-east-1a/i-placeholder-demo-a-1");
  EXPECT_EQ((*before)[1].state, InstanceState::Creating);
  EXPECT_FALSE((*before)[1].error.has_value());
  const int reads = answers("DescribeAutoScalingGroups");

  // A minute later (CA's refresh interval) the group is read again: moto launched the instance at once.
  now_ += seconds(60);
  auto after = provider->nodes("demo-a");
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(answers("DescribeAutoScalingGroups"), reads + 1);
  const std::vector<std::string> ids = instance_ids();
  ASSERT_EQ(after->size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const GroupInstance& instance = (*after)[i];
    EXPECT_EQ(instance.instance.id, ids[i]);
    EXPECT_EQ(instance.state, InstanceState::Running);
    EXPECT_EQ(instance.instance.provider_id, "aws:///us-east-1a/" + ids[i]);
    ASSERT_NE(instance.instance.instance_type, nullptr);
    EXPECT_EQ(instance.instance.instance_type->name, "m5.large");
    EXPECT_DOUBLE_EQ(instance.instance.offering.price_per_hour, 0.096);
  }
}

TEST_F(AsgNodeGroupsTest, ASizeAboveTheMaximumIsRefusedWithoutACall) {
  create_demo_group(1, 3, 1);
  // The group's own maximum (3), or the --nodes flag's (2) for a group it names.
  nodegroups::AutoscalerOptions by_flag;
  by_flag.nodes = {{1, 2, "demo-a"}};
  struct Case {
    nodegroups::AutoscalerOptions options;
    std::int32_t delta;
    std::string message;
  } cases[] = {
      {{}, 3, "node group demo-a: size increase too large: 1 + 3 is above its maximum 3"},
      {by_flag, 2, "node group demo-a: size increase too large: 1 + 2 is above its maximum 2"},
  };
  for (const Case& c : cases) {
    auto raised = groups(c.options)->increase_size("demo-a", c.delta);
    ASSERT_FALSE(raised.ok());
    EXPECT_EQ(raised.error().error_class, ErrorClass::Other);
    EXPECT_EQ(raised.error().message, c.message);
  }
  EXPECT_EQ(answers("SetDesiredCapacity"), 0);
  EXPECT_EQ(desired_in_aws(), 1);
}

TEST_F(AsgNodeGroupsTest, DeleteNodesTerminatesExactlyTheChosenInstanceAndLowersDesiredByOne) {
  create_demo_group(1, 5, 3);
  const std::vector<std::string> ids = instance_ids();
  ASSERT_EQ(ids.size(), 3u);
  auto provider = groups();

  auto deleted = provider->delete_nodes("demo-a", {ids[1]});
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  EXPECT_EQ(answers("TerminateInstanceInAutoScalingGroup"), 1);
  EXPECT_EQ(answers("SetDesiredCapacity"), 0);
  EXPECT_EQ(provider->target_size("demo-a").value(), 2);
  auto going = provider->nodes("demo-a");
  ASSERT_TRUE(going.ok());
  ASSERT_EQ(going->size(), 3u);
  EXPECT_EQ((*going)[1].state, InstanceState::Deleting);
  // Asked again while it terminates: nothing more is sent.
  ASSERT_TRUE(provider->delete_nodes("demo-a", {ids[1]}).ok());
  EXPECT_EQ(answers("TerminateInstanceInAutoScalingGroup"), 1);

  EXPECT_EQ(instance_ids(), (std::vector<std::string>{ids[0], ids[2]}));
  EXPECT_EQ(desired_in_aws(), 2);
}

TEST_F(AsgNodeGroupsTest, DeleteNodesBelowTheMinimumIsRefusedWithoutACall) {
  create_demo_group(2, 5, 2);
  const std::vector<std::string> ids = instance_ids();
  auto provider = groups();
  auto deleted = provider->delete_nodes("demo-a", {ids[0]});
  ASSERT_FALSE(deleted.ok());
  EXPECT_EQ(deleted.error().message,
            "node group demo-a: deleting " + ids[0] + " would take its size from 2 to 1, below its minimum 2");
  EXPECT_EQ(answers("TerminateInstanceInAutoScalingGroup"), 0);
  EXPECT_EQ(instance_ids().size(), 2u);
}

TEST_F(AsgNodeGroupsTest, DecreaseTargetSizeLowersOnlyCapacityNoInstanceStandsFor) {
  create_demo_group(0, 5, 1);
  auto provider = groups();
  ASSERT_TRUE(provider->increase_size("demo-a", 2).ok());  // target 3: 1 instance + 2 placeholders

  auto too_far = provider->decrease_target_size("demo-a", 3);
  ASSERT_FALSE(too_far.ok());
  EXPECT_EQ(too_far.error().message, "node group demo-a: target 3 cannot drop by 3 below its 1 instances");
  EXPECT_EQ(answers("SetDesiredCapacity"), 1);

  ASSERT_TRUE(provider->decrease_target_size("demo-a", 1).ok());
  EXPECT_EQ(answers("SetDesiredCapacity"), 2);
  EXPECT_EQ(provider->target_size("demo-a").value(), 2);
  auto nodes = provider->nodes("demo-a");
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[1].instance.id, "i-placeholder-demo-a-1");

  // Read again, the group has launched its 2 (moto launches at once): none may go by lowering the target.
  now_ += seconds(60);
  auto none = provider->decrease_target_size("demo-a", 1);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "node group demo-a: target 2 cannot drop by 1 below its 2 instances");
  EXPECT_EQ(desired_in_aws(), 2);
}

TEST_F(AsgNodeGroupsTest, AGroupThatIsGoneIsNotFound) {
  create_demo_group(0, 5, 0);
  auto provider = groups();
  auto size = provider->target_size("no-such-group");
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.error().error_class, ErrorClass::NotFound);
  EXPECT_EQ(size.error().message,
            "node group no-such-group not found: no Auto Scaling group of that name among those managed");
}

TEST_F(AsgNodeGroupsTest, AThrottledSetDesiredCapacityIsThrottledNamingTheGroup) {
  create_demo_group(0, 5, 1);
  // Every attempt of the client's three throttled.
  const std::string refused = emulator_->add_rule({{"kind", "error"},
                                                   {"service", "autoscaling"},
                                                   {"action", "SetDesiredCapacity"},
                                                   {"times", 3},
                                                   {"status", 400},
                                                   {"code", "Throttling"},
                                                   {"message", "Rate exceeded"}});
  ASSERT_EQ(refused, "");
  auto provider = groups();
  auto raised = provider->increase_size("demo-a", 1);
  ASSERT_FALSE(raised.ok());
  EXPECT_EQ(raised.error().error_class, ErrorClass::Throttled);
  EXPECT_TRUE(
      raised.error().message.starts_with("node group demo-a: setting its desired capacity to 2: autoscaling "
                                         "SetDesiredCapacity: Throttling: Rate exceeded"))
      << raised.error().message;
  EXPECT_EQ(answers("SetDesiredCapacity"), 3);
  EXPECT_EQ(provider->target_size("demo-a").value(), 1);
  EXPECT_EQ(desired_in_aws(), 1);
}

// Auto Scaling as the test plays it: one group of desired capacity 2 with one instance, and the scaling activities
// the test gives, newest first.
class FakeAutoScaling {
 public:
  explicit FakeAutoScaling(std::string activities) : activities_(std::move(activities)) {
    server_.Post("/", [this](const httplib::Request& request, httplib::Response& response) {
      const std::string action = request.get_param_value("Action");
      std::string result;
      if (action == "DescribeAutoScalingGroups") {
        result =
            "<AutoScalingGroups><member><AutoScalingGroupName>ng-1</AutoScalingGroupName><MinSize>0</MinSize>"
            "<MaxSize>5</MaxSize><DesiredCapacity>2</DesiredCapacity><AvailabilityZones><member>us-east-1b</member>"
            "</AvailabilityZones><Instances><member><InstanceId>i-0aaa</InstanceId><InstanceType>m5.large"
            "</InstanceType><AvailabilityZone>us-east-1b</AvailabilityZone><LifecycleState>InService"
            "</LifecycleState><HealthStatus>Healthy</HealthStatus></member></Instances>"
            "<Tags><member><Key>k8s.io/cluster-autoscaler/enabled</Key><Value>true</Value></member></Tags>"
            "</member></AutoScalingGroups>";
      } else if (action == "DescribeScalingActivities") {
        result = "<Activities>" + activities_ + "</Activities>";
      }
      response.set_content("<" + action + "Response xmlns=\"http://autoscaling.amazonaws.com/doc/2011-01-01/\"><" +
                               action + "Result>" + result + "</" + action +
                               "Result><ResponseMetadata><RequestId>"
                               "req-1</RequestId></ResponseMetadata></" +
                               action + "Response>",
                           "text/xml");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeAutoScaling() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  std::string activities_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

std::string activity(const std::string& id, const std::string& status, const std::string& start,
                     const std::string& message) {
  return "<member><ActivityId>" + id +
         "</ActivityId><AutoScalingGroupName>ng-1</AutoScalingGroupName>"
         "<Description>Launching a new EC2 instance.  Status Reason: " +
         message +
         "</Description><Cause>x</Cause>"
         "<StartTime>" +
         start + "</StartTime><StatusCode>" + status + "</StatusCode><StatusMessage>" + message +
         "</StatusMessage><Progress>100</Progress></member>";
}

// The groups tagged k8s.io/cluster-autoscaler/enabled of `service`.
struct FakeGroups {
  FakeGroups(const FakeAutoScaling& service, AsgNodeGroupsSettings settings) {
    auto made = AwsClient::create(kAutoScalingProtocol, "us-east-1", service.url(), [] {
      return Result<Credentials>(Credentials{"AKID", "secret", ""});
    });
    EXPECT_TRUE(made.ok());
    client = std::move(*made);
    api = std::make_unique<AutoScalingApi>(*client, nullptr);
    nodegroups::AutoscalerOptions options;
    options.auto_discovery = {"asg:tag=k8s.io/cluster-autoscaler/enabled"};
    provider = std::move(AsgNodeGroups::create(*api, options, std::move(settings))).value();
  }
  std::unique_ptr<AwsClient> client;
  std::unique_ptr<AutoScalingApi> api;
  std::unique_ptr<AsgNodeGroups> provider;
};

TEST(AsgNodeGroups, APlaceholderCarriesTheErrorOfAFailedLaunchSinceTheLastSizeChange) {
  const std::string capacity =
      "We currently do not have sufficient m5.large capacity in the Availability Zone you "
      "requested (us-east-1b). Launching EC2 instance failed.";
  const std::string quota =
      "You have requested more vCPU capacity than your current vCPU limit of 32 allows for "
      "the instance bucket. Launching EC2 instance failed.";
  struct Case {
    std::string activities;
    std::optional<ErrorClass> error;
  } cases[] = {
      {activity("a-2", "Failed", "2024-03-01T12:05:00.250Z", capacity), ErrorClass::InsufficientCapacity},
      {activity("a-2", "Failed", "2024-03-01T12:05:00Z", quota), ErrorClass::Quota},
      // Newest first: one that succeeded after a failure does not clear it...
      {activity("a-3", "Successful", "2024-03-01T12:06:00Z", "") +
           activity("a-2", "Failed", "2024-03-01T12:05:00Z", capacity),
       ErrorClass::InsufficientCapacity},
      // ...and no failure: the placeholder just waits.
      {activity("a-2", "Successful", "2024-03-01T12:05:00Z", ""), std::nullopt},
  };
  for (const Case& c : cases) {
    FakeAutoScaling service(c.activities);
    FakeGroups fake(service, {});
    auto nodes = fake.provider->nodes("ng-1");
    ASSERT_TRUE(nodes.ok()) << nodes.error().message;
    ASSERT_EQ(nodes->size(), 2u);
    EXPECT_EQ((*nodes)[0].instance.provider_id, "aws:///us-east-1b/i-0aaa");
    EXPECT_FALSE((*nodes)[0].error.has_value());
    const GroupInstance& placeholder = (*nodes)[1];
    EXPECT_EQ(placeholder.instance.id, "i-placeholder-ng-1-1");
    EXPECT_EQ(placeholder.instance.provider_id, "aws:///us-east-1b/i-placeholder-ng-1-1");
    EXPECT_EQ(placeholder.state, InstanceState::Creating);
    ASSERT_EQ(placeholder.error.has_value(), c.error.has_value()) << c.activities;
    if (c.error) {
      EXPECT_EQ(placeholder.error->error_class, *c.error);
      EXPECT_TRUE(placeholder.error->message.starts_with(
          "node group ng-1: placeholder-cannot-be-fulfilled: AWS cannot launch more instances for it: scaling "
          "activity a-2 failed: "))
          << placeholder.error->message;
    }
  }

  // A failure older than our own size change is old news: CA's lastUpdateTime.
  FakeAutoScaling service(activity("a-2", "Failed", "2024-03-01T12:05:00Z", capacity));
  Clock::time_point now = Clock::time_point(seconds(1709294700));  // 2024-03-01T12:05:00Z
  AsgNodeGroupsSettings settings;
  settings.clock = [&now] { return now; };
  FakeGroups fake(service, settings);
  now += seconds(10);
  ASSERT_TRUE(fake.provider->decrease_target_size("ng-1", 1).ok());  // 2 -> 1 at 12:05:10; the fake keeps 2
  now += seconds(60);
  auto nodes = fake.provider->nodes("ng-1");
  ASSERT_TRUE(nodes.ok()) << nodes.error().message;
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_FALSE((*nodes)[1].error.has_value());
}

}  // namespace
}  // namespace scalewright::cloud::aws
