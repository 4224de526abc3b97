#pragma once
// The narrow ports the controllers act through. A controller reads the observed cluster (state::ClusterState) and
// the time from its Clock, and changes the world only through a ClusterWriter (the Kubernetes API, or the
// simulator playing it) and a cloud::CloudProvider. The simulator implements these ports over its virtual clock
// and simulated cloud; `scalewright run` implements them over the Kubernetes API and a provider.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "api/duration.h"
#include "api/instant.h"
#include "api/node.h"
#include "cloud/cloud_provider.h"
#include "cloud/node_group_provider.h"
#include "state/cluster_state.h"

namespace scalewright::controllers {

// What a controller did, or why it did not: a line of the simulator's timeline, an Event in a real cluster.
struct TimelineEntry {
  Instant at{};
  std::string kind;  // "scale", "pending", "launch", "insufficient-capacity", "ready", "bound", "removed", ...
  std::string message;
};

class EventRecorder {
 public:
  virtual ~EventRecorder() = default;
  virtual void record(TimelineEntry entry) = 0;
};

// An Event recorded on one object, as upstream records it there (TriggeredScaleUp on a pod, DisruptionBlocked on a
// NodePool), for `kubectl describe`; the timeline keeps its own line of what the controller did.
struct ObjectEvent {
  std::string kind;  // "Pod", "Node", "NodePool", "NodeClaim"
  std::string key;   // a pod's "namespace/name"; the name of a cluster-scoped object
  std::string type = "Normal";
  std::string reason;  // "TriggeredScaleUp"
  std::string action;  // what was done or held back: "ScaleUp", "Disrupt"
  std::string message;
};

using TimerId = std::uint64_t;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Instant now() const = 0;
  // Calls `wake` at `at` (or now, when `at` has passed). Timers due at one instant run in the order they were set.
  virtual TimerId wake_at(Instant at, std::function<void()> wake) = 0;
  // The timer does not run (no effect once it ran).
  virtual void cancel(TimerId timer) = 0;
};

class ClusterWriter : public EventRecorder {
 public:
  // Karpenter's nomination: `pod` waits for capacity planned for it on `node` (a NodeClaim in flight, or a node
  // with room); an empty node ends the nomination.
  virtual void nominate(const state::PodRecord& pod, const std::string& node) = 0;
  // Ends every nomination to `node` (Ready without those pods, or going away): its pods need capacity again, and
  // their provisioning verdicts are said anew.
  virtual void release_nominations(const std::string& node) = 0;
  // The eviction API's delete, after its checks passed: the pod is deleted and stops after `grace`.
  virtual void evict(const state::PodRecord& pod, Duration grace) = 0;
  // Adds (or removes) a taint of `node`'s spec.
  virtual void set_taint(const std::string& node, const Taint& taint, bool present) = 0;
  // Karpenter's NodeClaim, created before its instance is launched (`claim`: in flight, no instance yet), allowed
  // the `offerings` its launch may choose from: a controller restarted mid-launch finds it, and launches it or
  // gives it up, never a second instance for it. False when it could not be created: nothing is launched.
  virtual bool nodeclaim_created(state::NodeRecord claim, const std::vector<cloud::LaunchOption>& offerings) = 0;
  // A NodeClaim whose launch failed is deleted, with nothing to terminate.
  virtual void nodeclaim_not_launched(const std::string& name) = 0;
  // A launched instance's node object for the cluster to track until it registers: a NodeClaim created before
  // (which takes the instance's type, zone and capacity), or a node group's instance. `running_already`: an
  // instance running before the autoscaler started (a group's desired nodes at the start), Ready at once and not a
  // launch of this run.
  virtual void node_launched(state::NodeRecord node, bool running_already) = 0;
  // Deletes the node, with the pods still on it (no eviction: a drain evicts them first); its instance is the
  // caller's to terminate.
  virtual void delete_node(const std::string& node) = 0;
  // Removes the termination finalizer of a deleted NodeClaim whose node is gone and whose instance's termination
  // was asked: the NodeClaim goes.
  virtual void release_nodeclaim(const std::string& name) = 0;
  // Sets a workload's replicas through its scale subresource.
  virtual void scale(const std::string& workload, std::int32_t replicas) = 0;
  // Records an Event on the object it is about.
  virtual void object_event(ObjectEvent event) = 0;
};

// Where a NodeClaim's create call to the cloud is made, and how its answer comes back: as Karpenter launches in the
// NodeClaim lifecycle controller, apart from the provisioner that created the claim. The answer is an observation
// delivered on the controllers' thread, which finds the claim as it then is (still there, or deleted meanwhile).
class Launches {
 public:
  using Answered = std::function<void(cloud::CloudResult<cloud::Created>)>;
  virtual ~Launches() = default;
  virtual void launch(cloud::CreateRequest request, Answered answered) = 0;
};

// Calls the cloud on the caller's thread and answers before returning: the simulator's launches (an API call takes
// no time on its virtual clock; an instance's boot is the simulated cloud's latency, until its node registers) and
// the controllers' tests.
class LaunchesAtOnce final : public Launches {
 public:
  explicit LaunchesAtOnce(cloud::CloudProvider& cloud) : cloud_(cloud) {}
  void launch(cloud::CreateRequest request, Answered answered) override { answered(cloud_.create(request)); }

 private:
  cloud::CloudProvider& cloud_;
};

// What every controller is given: the state it reads and the ports it acts through.
struct Ports {
  const state::ClusterState& state;
  Clock& clock;
  ClusterWriter& writer;
  cloud::CloudProvider& cloud;
  cloud::NodeGroupProvider& node_groups;
  Launches& launches;
};

// Terminates an instance whose node is gone, as Karpenter's termination finalizer does: a termination the cloud
// refuses for now (throttled, unreachable, not allowed yet) is tried again, waiting twice as long each time up to
// 5 min, until it goes through or the instance is not found (terminated already: done).
void terminate_instance(cloud::CloudProvider& cloud, Clock& clock, EventRecorder& recorder, std::string instance_id);
// The same for an instance of a node group, deleted through its group (whose target drops with it).
void delete_group_instance(cloud::NodeGroupProvider& groups, Clock& clock, EventRecorder& recorder, std::string group,
                           std::string instance_id);

// The base of the controllers: the state and the ports, and the timeline line (an Event in a real cluster) each
// writes about what it did.
class Controller {
 protected:
  explicit Controller(const Ports& ports)
      : state_(ports.state),
        clock_(ports.clock),
        writer_(ports.writer),
        cloud_(ports.cloud),
        node_groups_(ports.node_groups) {}
  void record(std::string kind, std::string message) {
    writer_.record({clock_.now(), std::move(kind), std::move(message)});
  }
  // Deletes `node` (with the pods still on it: a drain evicted them first) and terminates its instance: a node
  // group's through the group, whose target drops with it, as Cluster Autoscaler deletes a group's nodes.
  void delete_node_and_instance(const std::string& node);

  const state::ClusterState& state_;
  Clock& clock_;
  ClusterWriter& writer_;
  cloud::CloudProvider& cloud_;
  cloud::NodeGroupProvider& node_groups_;
};

}  // namespace scalewright::controllers
