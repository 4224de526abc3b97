#include "cloud/aws/ec2nodeclass_controller.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cloud/aws/sigv4.h"
#include "kube/model_json.h"
#include "manifest/manifest.h"
#include "net/retry.h"

namespace scalewright::cloud::aws {
namespace {

using nlohmann::json;

std::string rfc3339(std::chrono::system_clock::time_point at) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::floor<std::chrono::seconds>(at));
}

json condition_json(const std::string& type, bool ready, const std::string& reason, const std::string& message,
                    std::int64_t generation, const std::string& now) {
  return {{"type", type},       {"status", ready ? "True" : "False"}, {"reason", ready ? type : reason},
          {"message", message}, {"observedGeneration", generation},   {"lastTransitionTime", now}};
}

}  // namespace

json ec2nodeclass_status(const ResolvedNodeClass& resolved, std::int64_t generation,
                         std::chrono::system_clock::time_point now) {
  const std::string at = rfc3339(now);
  json status = json::object();
  json subnets = json::array();
  for (const Ec2Subnet& s : resolved.subnets)
    subnets.push_back({{"id", s.id}, {"zone", s.zone}, {"zoneID", s.zone_id}});
  status["subnets"] = std::move(subnets);
  json groups = json::array();
  for (const Ec2SecurityGroup& g : resolved.security_groups) groups.push_back({{"id", g.id}, {"name", g.name}});
  status["securityGroups"] = std::move(groups);
  json amis = json::array();
  for (const Ec2Image& image : resolved.amis) {
    const std::string arch = image.architecture == "arm64" ? "arm64" : "amd64";
    json ami = {
        {"id", image.id},
        {"name", image.name},
        {"requirements", json::array({{{"key", "kubernetes.io/arch"}, {"operator", "In"}, {"values", {arch}}}})}};
    if (image.deprecated) ami["deprecated"] = true;
    amis.push_back(std::move(ami));
  }
  status["amis"] = std::move(amis);
  if (!resolved.instance_profile.empty()) status["instanceProfile"] = resolved.instance_profile;
  json conditions = json::array();
  for (const ResolvedNodeClass::Condition& c : resolved.conditions) {
    conditions.push_back(condition_json(c.type, c.ready, c.reason, c.message, generation, at));
  }
  const bool ready = resolved.ready();
  conditions.push_back(
      condition_json("Ready", ready, "NotReady", ready ? "" : resolved.why_not_ready(), generation, at));
  status["conditions"] = std::move(conditions);
  return status;
}

Ec2NodeClassController::Ec2NodeClassController(const kube::ApiClient& client, Ec2Provider& provider,
                                               kube::EventSink& events, std::chrono::seconds resync)
    : client_(client), provider_(provider), events_(events), resync_(resync) {}

Ec2NodeClassController::~Ec2NodeClassController() { stop(); }

void Ec2NodeClassController::start() {
  reflector_ =
      std::make_unique<kube::Reflector>(client_, std::string(kEc2NodeClassesPath), kube::ReflectorOptions{}, *this);
  watcher_ = std::jthread([this](std::stop_token stop) { reflector_->run(stop); });
  resyncer_ = std::jthread([this](std::stop_token stop) { resync_loop(stop); });
}

void Ec2NodeClassController::stop() {
  for (std::jthread* thread : {&watcher_, &resyncer_}) {
    if (thread->joinable()) {
      thread->request_stop();
      thread->join();
    }
  }
}

bool Ec2NodeClassController::synced() const {
  std::lock_guard lock(mutex_);
  return synced_;
}

void Ec2NodeClassController::relist_started() {
  std::lock_guard lock(mutex_);
  listed_.clear();
}

void Ec2NodeClassController::listed(json object) {
  {
    std::lock_guard lock(mutex_);
    listed_.insert(object["metadata"].value("name", ""));
  }
  apply(object);
}

void Ec2NodeClassController::relist_done(const std::string&) {
  std::vector<std::string> gone;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, object] : known_) {
      if (!listed_.contains(name)) gone.push_back(name);
    }
    synced_ = true;
  }
  for (const std::string& name : gone) remove(name);
}

void Ec2NodeClassController::watched(std::string_view type, json object) {
  if (type == "DELETED")
    remove(object["metadata"].value("name", ""));
  else if (type == "ADDED" || type == "MODIFIED")
    apply(object);
}

void Ec2NodeClassController::remove(const std::string& name) {
  {
    std::lock_guard lock(mutex_);
    known_.erase(name);
    generations_.erase(name);
  }
  if (provider_.remove_node_class(name) && changes_) changes_(name);
  if (std::optional<CloudError> failed = provider_.delete_launch_templates(name)) {
    spdlog::warn("EC2NodeClass {} deleted: deleting its launch templates: {}", name, failed->message);
  }
  if (std::optional<CloudError> failed = provider_.delete_instance_profile(name)) {
    spdlog::warn("EC2NodeClass {} deleted: deleting its instance profile: {}", name, failed->message);
  }
}

std::string ec2nodeclass_hash(const json& spec) {
  json hashed = spec;
  for (const char* selector : {"subnetSelectorTerms", "securityGroupSelectorTerms", "amiSelectorTerms",
                               "capacityReservationSelectorTerms"}) {
    hashed.erase(selector);
  }
  // nlohmann's objects keep their keys sorted: one spec, one text, however it was written.
  return sha256_hex(hashed.dump()).substr(0, 16);
}

void Ec2NodeClassController::apply(const json& object) {
  const std::string name = object["metadata"].value("name", "");
  const std::int64_t generation = object["metadata"].value("generation", std::int64_t{0});
  {
    std::lock_guard lock(mutex_);
    auto known = known_.find(name);
    // A status write of our own comes back as a change: only a new spec (generation) is resolved again here.
    if (known != known_.end() && known->second["metadata"].value("generation", std::int64_t{0}) == generation &&
        object.contains("status")) {
      known->second = object;
      return;
    }
    known_[name] = object;
  }
  // A new spec may shape the catalog differently, whatever it resolves to.
  bool new_spec = false;
  {
    std::lock_guard lock(mutex_);
    auto [at, added] = generations_.try_emplace(name, generation);
    new_spec = added || at->second != generation;
    at->second = generation;
  }
  const std::string path = std::string(kEc2NodeClassesPath) + "/" + name;
  Result<ManifestSet> decoded = decode_manifests(kube::as_written(object).dump(), "EC2NodeClass " + name);
  ResolvedNodeClass resolved;
  if (!decoded || decoded->node_classes.empty()) {
    // Refused as a file of it would be: nothing launches from it, and the condition says why.
    const std::string why = decoded ? "not an EC2NodeClass" : decoded.error().message;
    if (provider_.remove_node_class(name) && changes_) changes_(name);
    json status = {{"conditions", json::array({condition_json("ValidationSucceeded", false, "ValidationFailed", why,
                                                              generation, rfc3339(std::chrono::system_clock::now())),
                                               condition_json("Ready", false, "NotReady", why, generation,
                                                              rfc3339(std::chrono::system_clock::now()))})}};
    if (auto patched = client_.merge_patch(path + "/status", {{"status", status}}); !patched) {
      spdlog::warn("EC2NodeClass {}: writing its status: {}", name, patched.error().describe());
    }
    events_.emit({{"karpenter.k8s.aws/v1", "EC2NodeClass", "", name, object["metadata"].value("uid", "")},
                  "Warning",
                  "FailedValidation",
                  "Validate",
                  why});
    return;
  }
  resolved = provider_.resolve(std::dynamic_pointer_cast<const EC2NodeClass>(decoded->node_classes.front()));
  resolved.spec_hash = ec2nodeclass_hash(object.value("spec", json::object()));
  const bool ready = resolved.ready();
  const std::string why = resolved.why_not_ready();
  json status = ec2nodeclass_status(resolved, generation, std::chrono::system_clock::now());
  if (provider_.set_node_class(std::move(resolved)) || new_spec) {
    if (changes_) changes_(name);
  }
  if (auto patched = client_.merge_patch(path + "/status", {{"status", status}}); !patched) {
    spdlog::warn("EC2NodeClass {}: writing its status: {}", name, patched.error().describe());
  }
  if (!ready) {
    spdlog::warn("EC2NodeClass {} is not ready: {}", name, why);
    events_.emit({{"karpenter.k8s.aws/v1", "EC2NodeClass", "", name, object["metadata"].value("uid", "")},
                  "Warning",
                  "NotReady",
                  "Resolve",
                  why});
  } else {
    spdlog::info("EC2NodeClass {} is ready: {} subnets, {} security groups, {} AMIs", name, status["subnets"].size(),
                 status["securityGroups"].size(), status["amis"].size());
  }
}

void Ec2NodeClassController::resync_loop(const std::stop_token& stop) {
  for (;;) {
    net::sleep_unless_stopped(std::chrono::duration_cast<std::chrono::milliseconds>(resync_), stop);
    if (stop.stop_requested()) return;
    std::vector<json> objects;
    {
      std::lock_guard lock(mutex_);
      for (auto& [name, object] : known_) {
        json again = object;
        again.erase("status");  // resolved again, whatever its generation
        objects.push_back(std::move(again));
      }
    }
    for (const json& object : objects) {
      {
        std::lock_guard lock(mutex_);
        known_.erase(object["metadata"].value("name", ""));
      }
      apply(object);
    }
  }
}

}  // namespace scalewright::cloud::aws
