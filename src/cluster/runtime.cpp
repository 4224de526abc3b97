#include "cluster/runtime.h"

#include <algorithm>
#include <map>
#include <random>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "nodegroups/status.h"

namespace scalewright::cluster {

using nlohmann::json;

namespace {

// The resources watched before pods, in the order they are started: what a pod refers to (its workload, through
// its ReplicaSet; its node) is known by the time pods are listed. Nodes wait for NodeClaims (started once their
// informer has synced): a Node registered under a name of its own is known as its NodeClaim's by the NodeClaim's
// status, and taken for a node of its own were it seen first.
const Resource* const kFirstResources[] = {&resources::nodepools,   &resources::deployments, &resources::replicasets,
                                           &resources::statefulsets, &resources::daemonsets, &resources::pdbs,
                                           &resources::nodeclaims,  &resources::nodes};

std::uint64_t random_seed() {
  std::random_device device;
  return (std::uint64_t{device()} << 32) | device();
}

}  // namespace

// One resource's reflector, delivering to the loop.
class ClusterRuntime::Informer final : public kube::ReflectorHandler {
 public:
  Informer(ClusterRuntime& runtime, const Resource& resource)
      : runtime_(runtime),
        resource_(resource),
        reflector_(runtime.client_, std::string(resource.path), kube::ReflectorOptions{}, *this) {}

  void relist_started() override { runtime_.deliver({&resource_, Delivery::What::RelistStarted, Change::Listed, {}}); }
  void listed(json object) override {
    runtime_.deliver({&resource_, Delivery::What::Object, Change::Listed, std::move(object)});
  }
  void relist_done(const std::string&) override {
    runtime_.deliver({&resource_, Delivery::What::RelistDone, Change::Listed, {}});
  }
  void watched(std::string_view type, json object) override {
    const Change change = type == "ADDED" ? Change::Added : type == "DELETED" ? Change::Deleted : Change::Modified;
    runtime_.deliver({&resource_, Delivery::What::Object, change, std::move(object)});
  }

  kube::Reflector& reflector() { return reflector_; }
  const Resource& resource() const { return resource_; }
  bool synced = false;  // its first list observed (the loop's thread)

 private:
  ClusterRuntime& runtime_;
  const Resource& resource_;
  kube::Reflector reflector_;
};

ClusterRuntime::ClusterRuntime(const kube::ApiClient& client, cloud::CloudProvider& cloud,
                               cloud::NodeGroupProvider& node_groups, kube::EventSink& events, RuntimeOptions options)
    : client_(client),
      cloud_(cloud),
      cloud_node_groups_(node_groups),
      options_(options),
      observer_(state_, cloud.catalog(), time_, *this),
      writer_(client, state_, *this, time_, events, observer_.node_names(),
              WriterOptions{options.dry_run, options.observe_pod_to_nodeclaim_seconds}),
      names_(random_seed()),
      provisioning_(ports_, names_, lifecycle_, options.batch_window),
      disruption_(ports_, termination_, provisioning_, std::chrono::floor<std::chrono::seconds>(time_.wall(Instant{}))),
      workload_autoscaler_(ports_, autoscaling_metrics_,
                           std::chrono::floor<std::chrono::seconds>(time_.wall(Instant{}))) {}

ClusterRuntime::~ClusterRuntime() {
  if (notice_inbox_ != nullptr) notice_inbox_->deliver_to({});
  if (node_class_inbox_ != nullptr) node_class_inbox_->deliver_to({});
  {
    std::lock_guard lock(inbox_mutex_);
    stopping_ = true;
  }
  inbox_changed_.notify_all();
  for (std::jthread& thread : informer_threads_) thread.request_stop();
  informer_threads_.clear();  // joins
}

void ClusterRuntime::run_node_groups(controllers::ClusterAutoscalerLoop loop) {
  node_groups_ =
      std::make_unique<controllers::ClusterAutoscalerController>(ports_, lifecycle_, termination_, std::move(loop));
  provisioning_.defer_to(node_groups_.get());
  node_groups_->hand_off_to(&provisioning_);
  lifecycle_.set_node_groups(node_groups_.get());
}

void ClusterRuntime::start_informers() {
  for (const Resource* resource : kFirstResources) informers_.push_back(std::make_unique<Informer>(*this, *resource));
  // KEDA's ScaledObjects, where its CRD is installed (HorizontalPodAutoscalers are kube-controller-manager's).
  if (client_.get("/apis/keda.sh/v1alpha1").ok()) {
    informers_.push_back(std::make_unique<Informer>(*this, resources::scaledobjects));
  } else {
    spdlog::info("no keda.sh/v1alpha1 API: ScaledObjects are not watched");
  }
  informers_.push_back(std::make_unique<Informer>(*this, resources::pods));
  unsynced_ = informers_.size();
  for (const std::unique_ptr<Informer>& informer : informers_) {
    const Resource& resource = informer->resource();
    if (&resource != &resources::nodes && &resource != &resources::pods) start_informer(*informer);
  }
}

void ClusterRuntime::start_informer(Informer& informer) {
  Informer* started = &informer;
  informer_threads_.emplace_back([started](std::stop_token stop) { started->reflector().run(stop); });
}

void ClusterRuntime::deliver(Delivery delivery) {
  std::unique_lock lock(inbox_mutex_);
  inbox_changed_.wait(lock, [this] { return stopping_ || inbox_.size() < options_.max_waiting_deliveries; });
  if (stopping_) return;
  inbox_.push_back(std::move(delivery));
  ++counters_.deliveries;
  inbox_changed_.notify_all();
}

void ClusterRuntime::post_answer(std::function<void()> answer) {
  {
    std::lock_guard lock(inbox_mutex_);
    answers_.push_back(std::move(answer));
  }
  inbox_changed_.notify_all();
}

void ClusterRuntime::notice(cloud::InstanceNotice notice) {
  {
    std::lock_guard lock(inbox_mutex_);
    notices_.push_back(std::move(notice));
  }
  inbox_changed_.notify_all();
}

void ClusterRuntime::take_notices_from(InstanceNoticeInbox& inbox) {
  notice_inbox_ = &inbox;
  inbox.deliver_to([this](cloud::InstanceNotice notice) { this->notice(std::move(notice)); });
}

void ClusterRuntime::node_class_changed(std::string node_class) {
  {
    std::lock_guard lock(inbox_mutex_);
    node_class_changes_.push_back(std::move(node_class));
  }
  inbox_changed_.notify_all();
}

void ClusterRuntime::take_node_class_changes_from(NodeClassChangeInbox& inbox) {
  node_class_inbox_ = &inbox;
  inbox.deliver_to([this](std::string node_class) { node_class_changed(std::move(node_class)); });
}

Instant ClusterRuntime::now() const {
  return Instant(std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - started_));
}

controllers::TimerId ClusterRuntime::wake_at(Instant at, std::function<void()> wake) {
  const controllers::TimerId id = next_timer_++;
  timers_.push({at, id, std::move(wake)});
  return id;
}

void ClusterRuntime::inspect(const std::function<void(const state::ClusterState&)>& look) {
  std::mutex done_mutex;
  std::condition_variable done_changed;
  bool done = false;
  {
    std::lock_guard lock(inbox_mutex_);
    inspections_.push_back([&] {
      look(state_);
      std::lock_guard done_lock(done_mutex);
      done = true;
      done_changed.notify_all();
    });
  }
  inbox_changed_.notify_all();
  std::unique_lock lock(done_mutex);
  done_changed.wait(lock, [&] { return done; });
}

void ClusterRuntime::run(std::stop_token stop, const std::function<bool()>& leading) {
  std::stop_callback wake_on_stop(stop, [this] { inbox_changed_.notify_all(); });
  bool led = false;
  while (!stop.stop_requested()) {
    std::deque<Delivery> batch;
    std::deque<std::function<void()>> inspections;
    std::deque<std::function<void()>> answers;
    std::deque<cloud::InstanceNotice> notices;
    std::deque<std::string> node_classes;
    {
      std::unique_lock lock(inbox_mutex_);
      // Wake for a delivery, an inspection, the next timer, or at least once a second to look at the lease.
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      if (acting_ && !timers_.empty()) {
        deadline = std::min(deadline, started_ + since_start(timers_.top().at));
      }
      inbox_changed_.wait_until(lock, deadline, [&] {
        return stop.stop_requested() || !inbox_.empty() || !inspections_.empty() || !answers_.empty() ||
               (acting_ && (!notices_.empty() || !node_class_changes_.empty()));
      });
      batch.swap(inbox_);
      inspections.swap(inspections_);
      answers.swap(answers_);
      if (acting_) {  // a standby keeps them for when it leads
        notices.swap(notices_);
        node_classes.swap(node_class_changes_);
      }
    }
    inbox_changed_.notify_all();  // room for the informers
    for (Delivery& delivery : batch) apply(delivery);
    const bool lead = synced_ && leading();
    if (led && !leading()) {
      spdlog::warn("leadership lost: stopping");
      return;
    }
    if (lead && !acting_) start_acting();
    led = led || lead;
    if (acting_) {
      const auto pass_started = std::chrono::steady_clock::now();
      for (auto& answer : answers) answer();  // launches answered: observed before the controllers look
      for (const cloud::InstanceNotice& notice : notices) take_notice(notice);
      if (!node_classes.empty()) take_node_class_changes(node_classes);
      run_due_timers();
      settle();
      writer_.write_launched_statuses();
      if (options_.observe_pass_seconds) {
        options_.observe_pass_seconds(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - pass_started).count());
      }
    }
    for (auto& look : inspections) look();
    ++counters_.passes;
    counters_.last_pass_steady_ns = std::chrono::steady_clock::now().time_since_epoch().count();
  }
}

void ClusterRuntime::apply(Delivery& delivery) {
  const Resource& resource = *delivery.resource;
  const Instant at = now();
  switch (delivery.what) {
    case Delivery::What::RelistStarted:
      observer_.relist_started(resource);
      return;
    case Delivery::What::Object:
      observer_.observe(resource, delivery.change, delivery.object, at);
      return;
    case Delivery::What::RelistDone:
      observer_.relist_done(resource, at);
      break;
  }
  for (std::size_t i = 0; i < informers_.size(); ++i) {
    Informer& informer = *informers_[i];
    if (&informer.resource() != &resource || informer.synced) continue;
    informer.synced = true;
    spdlog::info("informer {} synced", resource.kind);
    if (&resource == &resources::nodeclaims) {
      for (const std::unique_ptr<Informer>& nodes : informers_) {
        if (&nodes->resource() == &resources::nodes) start_informer(*nodes);
      }
    }
    if (--unsynced_ == 1) {  // all but pods: start the pods' informer
      start_informer(*informers_.back());
    } else if (unsynced_ == 0) {
      synced_ = true;
      spdlog::info("cluster state synced: {} nodes, {} pods, {} NodePools", state_.nodes().size(),
                   state_.pods().size(), state_.nodepools().size());
    }
  }
}

void ClusterRuntime::take_notice(const cloud::InstanceNotice& notice) {
  const NoticeTaken taken = take_instance_notice(state_, time_, notice);
  if (taken.node.empty()) {
    // One queue may serve several clusters: another's instances are not ours to act on.
    spdlog::debug("{} for instance {}: no node of this cluster has it", notice.source, notice.instance_id);
    return;
  }
  spdlog::info("{} for instance {} of node {}", notice.source, notice.instance_id,
               observer_.node_names().object_of(taken.node));
  if (taken.event) writer_.object_event(*taken.event);
  if (taken.reclaimed_offering) provisioning_.offering_unavailable(*taken.reclaimed_offering);
}

void ClusterRuntime::take_node_class_changes(const std::deque<std::string>& node_classes) {
  std::set<std::string> named(node_classes.begin(), node_classes.end());
  for (const std::string& name : named) {
    spdlog::info("node class {} resolves to something else: drift and launches are looked at again", name);
  }
  state_.node_class_applied();  // once for them all: the controllers look again at every NodePool
}

void ClusterRuntime::start_acting() {
  acting_ = true;
  spdlog::info("leading: controllers start");
  if (options_.on_start_acting) options_.on_start_acting();
  find_instances();
  // Metrics are read when asked, not scraped: the HPA loop behind the ScaledObjects (KEDA's generated HPAs) syncs
  // every period from one period after the controllers start.
  workload_autoscaler_.metrics_scraped();
  // What happened while another replica led (or none did) and is Karpenter's bookkeeping: nodes registered but
  // not synced, Ready but not marked initialized.
  for (const auto& [name, node] : state_.nodes()) {
    if (node.nodepool.empty()) continue;
    const auto& taints = node.node.taints;
    if (std::any_of(taints.begin(), taints.end(), [](const Taint& t) { return t.key == kUnregisteredTaintKey; })) {
      writer_.node_registered(name);
    }
    if (node.phase == state::NodePhase::Ready && !node.node.meta.labels.has(Symbol(kInitializedLabel))) {
      writer_.node_initialized(name);
    }
  }
  // What an earlier leader launched and did not see register keeps its registration deadline: 15 min from the
  // NodeClaim's creation (the observer's launched_at), not from this leader's start.
  for (const auto& [name, node] : state_.nodes()) {
    if (node.phase == state::NodePhase::Launching && !node.nodepool.empty()) {
      lifecycle_.launched(name, controllers::NodeLifecycleController::kRegistrationTtl, node.launched_at);
    }
  }
  if (node_groups_) node_groups_->resume();
}

void ClusterRuntime::find_instances() {
  const cloud::CloudResult<std::vector<cloud::Instance>> instances = cloud_.list();
  if (!instances) {
    // Not "no instances": the nodes keep what they know, and the next start of acting asks again. A NodeClaim
    // left without an instance waits for its registration TTL.
    spdlog::warn("listing the cloud's instances: {}: {}", cloud::to_string(instances.error().error_class),
                 instances.error().message);
    return;
  }
  std::map<std::string, const cloud::Instance*> instance_of_node;
  std::map<std::string, const cloud::Instance*> instance_of_provider_id;
  // By the state's name of each instance's Node (its NodeClaim's, when it registered under a name of its own).
  for (const cloud::Instance& instance : *instances) {
    instance_of_node[observer_.node_names().record_of(instance.node_name)] = &instance;
    if (!instance.provider_id.empty()) instance_of_provider_id[instance.provider_id] = &instance;
  }
  std::vector<state::NodeRecord> adopted;
  std::vector<std::string> given_up;
  for (auto& [name, node] : state_.nodes()) {
    if (!node.instance_id.empty()) {
      // A NodeClaim of an earlier run knows its instance by its status.providerID: the cloud's id is what terminates it.
      if (auto found = instance_of_provider_id.find(node.instance_id); found != instance_of_provider_id.end()) {
        node.instance_id = found->second->id;
      }
      continue;
    }
    auto found = instance_of_node.find(name);
    const bool unlaunched_claim = !node.nodepool.empty() && node.phase == state::NodePhase::Launching;
    if (found == instance_of_node.end()) {
      // A NodeClaim that an earlier leader created and did not see launched: its create call may never have been
      // made, or failed. Launching it again could make a second instance for it, so it is given up, and its pods
      // are provisioned anew.
      if (unlaunched_claim) given_up.push_back(name);
      continue;
    }
    if (unlaunched_claim && found->second->instance_type != nullptr) {
      // Launched by an earlier leader that stopped before it wrote what: the NodeClaim takes its instance now.
      adopted.push_back(controllers::launched_nodeclaim(node, *found->second));
    } else {
      node.instance_id = found->second->id;
    }
  }
  for (state::NodeRecord& node : adopted) {
    spdlog::info("NodeClaim {} has instance {} (launched before this leader)", node.name(), node.instance_id);
    writer_.node_launched(std::move(node), /*running_already=*/false);
  }
  for (const std::string& name : given_up) {
    spdlog::info("NodeClaim {} was created but not launched before this leader: given up", name);
    writer_.release_nominations(name);
    writer_.nodeclaim_not_launched(name);
  }
}

void ClusterRuntime::publish_node_group_status() {
  const std::optional<Instant> scanned = node_groups_->loop().last_scan();
  if (!scanned || scanned == status_published_) return;
  status_published_ = scanned;
  const auto wall_start = std::chrono::floor<std::chrono::seconds>(time_.wall(Instant{}));
  writer_.publish_cluster_autoscaler_status(node_groups_->loop().status(*scanned, wall_start),
                                            nodegroups::format_last_updated(wall_start, *scanned));
}

void ClusterRuntime::run_due_timers() {
  while (!timers_.empty() && timers_.top().at <= now()) {
    Timer timer = timers_.top();
    timers_.pop();
    if (cancelled_.erase(timer.id) > 0) continue;
    timer.wake();
  }
}

void ClusterRuntime::settle() {
  state_.retire_terminated(/*keep=*/false);
  provisioning_.reconcile();
  static_capacity_.reconcile();
  lifecycle_.reconcile();
  disruption_.reconcile();
  workload_autoscaler_.reconcile();
  node_repair_.reconcile();
  termination_.reconcile();
  if (node_groups_) publish_node_group_status();
  counters_.nodes = state_.live_nodes();
  counters_.pending_pods = static_cast<std::int64_t>(state_.unbound().size());
}

// --- ObserverListener ---

void ClusterRuntime::node_registered(const std::string& node) {
  if (acting_) writer_.node_registered(node);
}

void ClusterRuntime::node_ready(const std::string& node) {
  if (!acting_) return;
  lifecycle_.registered(node);
  writer_.node_initialized(node);
}

void ClusterRuntime::pod_left(const std::string& node) {
  if (acting_) termination_.pod_terminated(node);
}

void ClusterRuntime::object_unreadable(const std::string& message) {
  ++counters_.unreadable_objects;
  spdlog::warn("left out: {}", message);
}

}  // namespace scalewright::cluster
