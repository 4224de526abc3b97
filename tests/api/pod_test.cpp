// Pod: effective requests as resourcehelper.PodRequests computes them, host ports, priority, DaemonSet pods.
#include "api/pod.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "units.h"

namespace scalewright {
namespace {

const Symbol kNvidiaGpu("nvidia.com/gpu");

Container container(const std::string& name, std::int64_t cpu_milli, std::int64_t memory = 0) {
  Container c;
  c.name = name;
  if (cpu_milli != 0) c.requests.set(resource_names::cpu(), cpu_milli);
  if (memory != 0) c.requests.set(resource_names::memory(), memory);
  return c;
}

Container sidecar(const std::string& name, std::int64_t cpu_milli, std::int64_t memory = 0) {
  Container c = container(name, cpu_milli, memory);
  c.restart_policy = "Always";
  return c;
}

TEST(PodEffectiveRequests, SumOfAppContainersPlusOnePod) {
  Pod pod;
  pod.spec.containers = {container("a", 300, 256 * kMi), container("b", 200, 512 * kMi)};
  ResourceList r = pod.effective_requests();
  EXPECT_EQ(r.cpu_milli(), 500);
  EXPECT_EQ(r.memory(), 768 * kMi);
  EXPECT_EQ(r.pods(), 1);
}

TEST(PodEffectiveRequests, PodWithNoRequestsStillCountsOnePod) {
  Pod pod;
  pod.spec.containers = {container("a", 0)};
  ResourceList r = pod.effective_requests();
  EXPECT_EQ(r.cpu_milli(), 0);
  EXPECT_EQ(r.pods(), 1);
}

TEST(PodEffectiveRequests, LargestInitContainerWinsPerResource) {
  Pod pod;
  pod.spec.containers = {container("app", 500, kGi)};
  pod.spec.init_containers = {container("migrate", 1000, 256 * kMi), container("warm", 200, 128 * kMi)};
  ResourceList r = pod.effective_requests();
  // cpu: max(500, 1000, 200) = 1000; memory: max(1Gi, 256Mi, 128Mi) = 1Gi
  EXPECT_EQ(r.cpu_milli(), 1000);
  EXPECT_EQ(r.memory(), kGi);
  EXPECT_EQ(r.pods(), 1);
}

TEST(PodEffectiveRequests, SidecarsAddToAppSumAndToLaterInitContainers) {
  Pod pod;
  pod.spec.init_containers = {container("init1", 1000), sidecar("proxy", 200), container("init3", 900)};
  pod.spec.containers = {container("a", 300), container("b", 300)};
  // app side: 300 + 300 + sidecar 200 = 800
  // init side: max(init1 1000, sidecar alone 200, sidecar 200 + init3 900 = 1100) = 1100
  EXPECT_EQ(pod.effective_requests().cpu_milli(), 1100);
}

TEST(PodEffectiveRequests, SidecarDoesNotAddToInitContainersBeforeIt) {
  Pod before;
  before.spec.init_containers = {container("init1", 1000), sidecar("proxy", 300)};
  before.spec.containers = {container("a", 100)};
  // app side 100 + 300 = 400; init side max(1000, 300) = 1000
  EXPECT_EQ(before.effective_requests().cpu_milli(), 1000);

  Pod after;
  after.spec.init_containers = {sidecar("proxy", 300), container("init1", 1000)};
  after.spec.containers = {container("a", 100)};
  // app side 400; init side max(300, 300 + 1000 = 1300) = 1300
  EXPECT_EQ(after.effective_requests().cpu_milli(), 1300);
}

TEST(PodEffectiveRequests, AppSideWithSidecarsCanExceedInitPeak) {
  Pod pod;
  pod.spec.init_containers = {container("init1", 1000), sidecar("proxy", 200, 64 * kMi), container("init3", 900)};
  pod.spec.containers = {container("a", 1000, kGi), container("b", 1000)};
  // cpu: app side 2000 + 200 = 2200 > init side 1100; memory: app 1Gi + 64Mi vs init 64Mi
  ResourceList r = pod.effective_requests();
  EXPECT_EQ(r.cpu_milli(), 2200);
  EXPECT_EQ(r.memory(), kGi + 64 * kMi);
}

TEST(PodEffectiveRequests, SidecarsAccumulate) {
  Pod pod;
  pod.spec.init_containers = {sidecar("s1", 100), sidecar("s2", 150), container("init", 500)};
  pod.spec.containers = {container("app", 50)};
  // app side: 50 + 100 + 150 = 300; init side: max(100, 250, 250 + 500 = 750) = 750
  EXPECT_EQ(pod.effective_requests().cpu_milli(), 750);
}

TEST(PodEffectiveRequests, RestartPolicyOtherThanAlwaysIsOrdinaryInit) {
  Container c = container("init", 400);
  c.restart_policy = "OnFailure";
  EXPECT_FALSE(c.is_sidecar());
  EXPECT_TRUE(sidecar("s", 1).is_sidecar());
  EXPECT_FALSE(container("x", 1).is_sidecar());

  Pod pod;
  pod.spec.init_containers = {c};
  pod.spec.containers = {container("app", 300)};
  EXPECT_EQ(pod.effective_requests().cpu_milli(), 400);  // max(300, 400), not 300 + 400
}

TEST(PodEffectiveRequests, OverheadIsAddedAfterTheMax) {
  Pod pod;
  pod.spec.init_containers = {container("init", 1000)};
  pod.spec.containers = {container("app", 500, 128 * kMi)};
  pod.spec.overhead.set(resource_names::cpu(), 250);
  pod.spec.overhead.set(resource_names::memory(), 120 * kMi);
  ResourceList r = pod.effective_requests();
  EXPECT_EQ(r.cpu_milli(), 1250);  // max(500, 1000) + 250
  EXPECT_EQ(r.memory(), 248 * kMi);  // 128Mi + 120Mi
  EXPECT_EQ(r.pods(), 1);
}

TEST(PodEffectiveRequests, ExtendedResourcesFollowTheSameRule) {
  Pod pod;
  Container init = container("init", 0);
  init.requests.set(kNvidiaGpu, 2);
  Container app = container("app", 100);
  app.requests.set(kNvidiaGpu, 1);
  pod.spec.init_containers = {init};
  pod.spec.containers = {app, app};
  ResourceList r = pod.effective_requests();
  EXPECT_EQ(r.get(kNvidiaGpu), 2);  // max(1 + 1, 2)
  EXPECT_EQ(r.cpu_milli(), 200);
}

// The pods, whose requests sum past int64: which term's addition goes past it (the decoder names that
// field), and what effective_requests() gives instead of a wrapped negative amount.
TEST(PodRequestsOverflow, NamesTheTermThatPassesInt64AndTheSumSaturates) {
  using Part = RequestTerm::Part;
  struct Case {
    const char* name;
    std::vector<Container> containers;
    std::vector<Container> init_containers;
    std::int64_t overhead_memory;
    std::optional<RequestTerm> overflow;  // at memory, or cpu for the cpu case
    std::int64_t memory;                  // effective_requests().memory()
  };
  const Case cases[] = {
      {"two containers of 5Ei", {container("a", 0, 5 * kEi), container("b", 0, 5 * kEi)}, {}, 0,
       RequestTerm{Part::Container, 1}, kLargestAmount},
      {"cpu 2^63 - 1 m plus 1m", {container("a", kLargestAmount), container("b", 1)}, {}, 0,
       RequestTerm{Part::Container, 1}, 0},
      {"4Ei and a huge overhead of 5Ei", {container("a", 0, 4 * kEi)}, {}, 5 * kEi, RequestTerm{Part::Overhead, 0},
       kLargestAmount},
      // max(1Gi, 7Ei) + 1Ei = 8Ei: the init container alone is larger than the app's sum, and fits.
      {"init container larger than the sum, plus overhead", {container("a", 0, kGi)},
       {container("init", 0, 7 * kEi)}, kEi, RequestTerm{Part::Overhead, 0}, kLargestAmount},
      {"init container beside a sidecar", {container("a", 0, kGi)},
       {sidecar("proxy", 0, 4 * kEi), container("init", 0, 5 * kEi)}, 0, RequestTerm{Part::InitContainer, 1},
       kLargestAmount},
      {"sidecar beside the app", {container("a", 0, 5 * kEi)}, {sidecar("proxy", 0, 5 * kEi)}, 0,
       RequestTerm{Part::InitContainer, 0}, kLargestAmount},
      // 4Ei + (4Ei - 1) = 2^63 - 1 exactly: the most a sum holds, not past it.
      {"exactly the limit", {container("a", 0, 4 * kEi), container("b", 0, 4 * kEi - 1)}, {}, 0, std::nullopt,
       kLargestAmount},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Pod pod;
    pod.spec.containers = c.containers;
    pod.spec.init_containers = c.init_containers;
    if (c.overhead_memory != 0) pod.spec.overhead.set(resource_names::memory(), c.overhead_memory);
    const std::optional<RequestOverflow> overflow = requests_overflow(pod.spec);
    ASSERT_EQ(overflow.has_value(), c.overflow.has_value());
    if (overflow) {
      EXPECT_EQ(overflow->term.part, c.overflow->part);
      EXPECT_EQ(overflow->term.index, c.overflow->index);
      EXPECT_EQ(overflow->resource, c.memory == 0 ? resource_names::cpu() : resource_names::memory());
    }
    const ResourceList requests = pod.effective_requests();
    EXPECT_EQ(requests.memory(), c.memory);
    if (c.memory == 0) {
      EXPECT_EQ(requests.cpu_milli(), kLargestAmount);
    }
    EXPECT_EQ(requests.pods(), 1);
  }
}

TEST(PodHostPorts, AppContainersAndSidecarsOnly) {
  Pod pod;
  Container app = container("app", 0);
  app.ports = {ContainerPort{8080, 80, "TCP", ""}, ContainerPort{9000, 0, "TCP", ""}};
  Container init = container("init", 0);
  init.ports = {ContainerPort{7000, 7000, "TCP", ""}};
  Container proxy = sidecar("proxy", 0);
  proxy.ports = {ContainerPort{15001, 15001, "UDP", "10.0.0.1"}};
  pod.spec.containers = {app};
  pod.spec.init_containers = {init, proxy};

  auto ports = pod.host_ports();
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(ports[0], (ContainerPort{8080, 80, "TCP", ""}));
  EXPECT_EQ(ports[1], (ContainerPort{15001, 15001, "UDP", "10.0.0.1"}));
}

TEST(PodHostPorts, NoneWithoutHostPort) {
  Pod pod;
  Container app = container("app", 0);
  app.ports = {ContainerPort{8080, 0, "TCP", ""}};
  pod.spec.containers = {app};
  EXPECT_TRUE(pod.host_ports().empty());
}

TEST(PodPriority, DefaultsToZero) {
  Pod pod;
  EXPECT_EQ(pod.priority(), 0);
  pod.spec.priority = 1000;
  EXPECT_EQ(pod.priority(), 1000);
  pod.spec.priority = -5;
  EXPECT_EQ(pod.priority(), -5);
}

TEST(PodState, BoundAndTerminal) {
  Pod pod;
  EXPECT_FALSE(pod.is_bound());
  pod.spec.node_name = "node-1";
  EXPECT_TRUE(pod.is_bound());
  EXPECT_FALSE(pod.is_terminal());
  pod.status.phase = PodPhase::Succeeded;
  EXPECT_TRUE(pod.is_terminal());
  pod.status.phase = PodPhase::Failed;
  EXPECT_TRUE(pod.is_terminal());
  pod.status.phase = PodPhase::Running;
  EXPECT_FALSE(pod.is_terminal());
}

TEST(PodDaemonSet, OnlyADaemonSetControllerCounts) {
  Pod pod;
  EXPECT_FALSE(pod.is_daemonset_pod());
  pod.meta.owner_references.push_back({"apps/v1", "DaemonSet", "fluentd", "u1", false});
  EXPECT_FALSE(pod.is_daemonset_pod());  // an owner, but not the controller
  pod.meta.owner_references.front().controller = true;
  EXPECT_TRUE(pod.is_daemonset_pod());

  Pod rs_pod;
  rs_pod.meta.owner_references.push_back({"apps/v1", "ReplicaSet", "web-abc", "u2", true});
  EXPECT_FALSE(rs_pod.is_daemonset_pod());
}

}  // namespace
}  // namespace scalewright
