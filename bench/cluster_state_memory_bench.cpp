// Issue [7]: the memory of the observed cluster at 5,000 nodes and 150,000 pods. A ClusterObserver (what
// `scalewright run` feeds from its informers) is given, as a first list delivers them, 1,000 Deployments and their
// ReplicaSets, 5,000 Ready Nodes and 150,000 Pods bound to them, each object the JSON the API server sends (pods of
// 3.5-4.5 kB with managedFields, the service-account volume, status and container statuses; nodes with their images
// and nodeInfo). It reports the process' RSS growth and live heap (counted by this program's operator new), and
// the time the observer took (building the JSON is not counted).
//
//   build/bench/cluster_state_memory_bench [--nodes N] [--pods-per-node N]
//
// Karpenter's issue reports more than 5 GiB for its cluster state at this scale; the goal here is < 300 MiB.
#include <malloc.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cloud/aws/instance_types.h"
#include "cloud/catalog.h"
#include "cluster/observer.h"
#include "process_memory.h"

// --- a counting allocator: the live heap of C++ allocations, whatever the allocator keeps cached ---
namespace {
std::atomic<std::int64_t> g_live_bytes{0};
std::atomic<std::int64_t> g_live_blocks{0};

void* counted(void* p) {
  if (p == nullptr) throw std::bad_alloc();
  g_live_bytes.fetch_add(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  g_live_blocks.fetch_add(1, std::memory_order_relaxed);
  return p;
}
void uncounted(void* p) noexcept {
  if (p == nullptr) return;
  g_live_bytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  g_live_blocks.fetch_sub(1, std::memory_order_relaxed);
  std::free(p);
}
void* aligned(std::size_t size, std::align_val_t align) {
  const std::size_t a = static_cast<std::size_t>(align);
  return counted(std::aligned_alloc(a, (size + a - 1) / a * a));
}
}  // namespace

void* operator new(std::size_t size) { return counted(std::malloc(size == 0 ? 1 : size)); }
void* operator new[](std::size_t size) { return counted(std::malloc(size == 0 ? 1 : size)); }
void* operator new(std::size_t size, std::align_val_t align) { return aligned(size, align); }
void* operator new[](std::size_t size, std::align_val_t align) { return aligned(size, align); }
void operator delete(void* p) noexcept { uncounted(p); }
void operator delete[](void* p) noexcept { uncounted(p); }
void operator delete(void* p, std::size_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::size_t) noexcept { uncounted(p); }
void operator delete(void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { uncounted(p); }

namespace scalewright::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double live_heap_mib() { return static_cast<double>(g_live_bytes.load()) / (1024.0 * 1024.0); }

// A deterministic generator of names and sizes (the same input on every run).
struct Draw {
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  std::uint64_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  std::string suffix(int length) {  // as the API server's generateName draws them
    static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::string out;
    for (int i = 0; i < length; ++i) out += kAlphabet[next() % (sizeof(kAlphabet) - 1)];
    return out;
  }
  std::string uid() {
    return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", next() & 0xffffffff, next() & 0xffff, next() & 0xffff,
                       next() & 0xffff, next() & 0xffffffffffffULL);
  }
};

constexpr const char* kTimestamp = "2026-11-26T08:14:03Z";
constexpr const char* kZones[] = {"us-east-1a", "us-east-1b", "us-east-1c"};
constexpr const char* kZoneIds[] = {"use1-az1", "use1-az2", "use1-az4"};

struct DeploymentShape {
  std::string namespace_;
  std::string name;
  std::string replicaset;
  std::string replicaset_uid;
  std::string hash;
  int replicas = 0;
  std::string cpu;
  std::string memory;
};

json managed_fields(const std::string& manager, const std::string& operation, const json& fields) {
  return {{"manager", manager},
          {"operation", operation},
          {"apiVersion", "v1"},
          {"time", kTimestamp},
          {"fieldsType", "FieldsV1"},
          {"fieldsV1", fields}};
}

json deployment_json(const DeploymentShape& d, Draw& draw) {
  const json labels = {{"app.kubernetes.io/name", d.name}, {"app.kubernetes.io/part-of", d.namespace_}};
  json container = {{"name", "app"},
                    {"image", "registry.example.com/" + d.namespace_ + "/" + d.name + ":1.4.2"},
                    {"resources", {{"requests", {{"cpu", d.cpu}, {"memory", d.memory}}}}}};
  json pod_template = {{"metadata", {{"labels", labels}}}, {"spec", {{"containers", json::array({container})}}}};
  json spec = {{"replicas", d.replicas},
               {"selector", {{"matchLabels", labels}}},
               {"template", pod_template},
               {"strategy", {{"type", "RollingUpdate"},
                             {"rollingUpdate", {{"maxSurge", "25%"}, {"maxUnavailable", "25%"}}}}}};
  json metadata = {{"name", d.name},
                   {"namespace", d.namespace_},
                   {"uid", draw.uid()},
                   {"resourceVersion", "1000"},
                   {"generation", 1},
                   {"creationTimestamp", kTimestamp},
                   {"labels", labels},
                   {"annotations", {{"deployment.kubernetes.io/revision", "1"}}}};
  return {{"metadata", metadata},
          {"spec", spec},
          {"status", {{"replicas", d.replicas}, {"readyReplicas", d.replicas}, {"observedGeneration", 1}}}};
}

json replicaset_json(const DeploymentShape& d, Draw& draw) {
  json rs = deployment_json(d, draw);
  rs["metadata"]["name"] = d.replicaset;
  rs["metadata"]["uid"] = d.replicaset_uid;
  rs["metadata"]["labels"]["pod-template-hash"] = d.hash;
  rs["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"},
                                        {"kind", "Deployment"},
                                        {"name", d.name},
                                        {"uid", draw.uid()},
                                        {"controller", true},
                                        {"blockOwnerDeletion", true}}};
  rs["spec"]["selector"]["matchLabels"]["pod-template-hash"] = d.hash;
  rs["spec"]["template"]["metadata"]["labels"]["pod-template-hash"] = d.hash;
  rs["spec"].erase("strategy");
  return rs;
}

std::string node_name(int i) { return fmt::format("ip-10-{}-{}-{}.ec2.internal", 16 + i / 65536, i / 256 % 256, i % 256); }

// A Node as a kubelet and Karpenter leave it: Ready, initialized, its labels, images and nodeInfo.
json node_json(int i, const std::string& type, Draw& draw) {
  const std::string name = node_name(i);
  const int zone = i % 3;
  const json labels = {{"beta.kubernetes.io/arch", "amd64"},
                       {"beta.kubernetes.io/instance-type", type},
                       {"beta.kubernetes.io/os", "linux"},
                       {"failure-domain.beta.kubernetes.io/region", "us-east-1"},
                       {"failure-domain.beta.kubernetes.io/zone", kZones[zone]},
                       {"k8s.io/cloud-provider-aws", "4c3e2b1a0f9d8e7c6b5a4f3e2d1c0b9a"},
                       {"karpenter.k8s.aws/instance-category", type.substr(0, 1)},
                       {"karpenter.k8s.aws/instance-family", type.substr(0, type.find('.'))},
                       {"karpenter.k8s.aws/instance-generation", type.substr(1, 1)},
                       {"karpenter.k8s.aws/instance-size", type.substr(type.find('.') + 1)},
                       {"karpenter.sh/capacity-type", i % 4 == 0 ? "on-demand" : "spot"},
                       {"karpenter.sh/initialized", "true"},
                       {"karpenter.sh/nodepool", "default"},
                       {"karpenter.sh/registered", "true"},
                       {"kubernetes.io/arch", "amd64"},
                       {"kubernetes.io/hostname", name},
                       {"kubernetes.io/os", "linux"},
                       {"node.kubernetes.io/instance-type", type},
                       {"topology.k8s.aws/zone-id", kZoneIds[zone]},
                       {"topology.kubernetes.io/region", "us-east-1"},
                       {"topology.kubernetes.io/zone", kZones[zone]}};
  json images = json::array();
  for (int k = 0; k < 12; ++k) {
    images.push_back({{"names",
                       {fmt::format("registry.example.com/team-{:02}/image-{}@sha256:{:016x}{:016x}{:016x}{:016x}", k,
                                    k, draw.next(), draw.next(), draw.next(), draw.next()),
                        fmt::format("registry.example.com/team-{:02}/image-{}:1.{}.0", k, k, k)}},
                      {"sizeBytes", 10'000'000 + k * 7'654'321}});
  }
  json conditions = json::array();
  for (const auto& [type_name, reason, status] :
       {std::tuple{"MemoryPressure", "KubeletHasSufficientMemory", "False"},
        std::tuple{"DiskPressure", "KubeletHasNoDiskPressure", "False"},
        std::tuple{"PIDPressure", "KubeletHasSufficientPID", "False"},
        std::tuple{"Ready", "KubeletReady", "True"}}) {
    conditions.push_back({{"type", type_name},
                          {"status", status},
                          {"lastHeartbeatTime", kTimestamp},
                          {"lastTransitionTime", kTimestamp},
                          {"reason", reason},
                          {"message", std::string("kubelet ") + reason}});
  }
  return {{"metadata",
           {{"name", name},
            {"uid", draw.uid()},
            {"resourceVersion", std::to_string(20'000 + i)},
            {"creationTimestamp", kTimestamp},
            {"labels", labels},
            {"annotations",
             {{"alpha.kubernetes.io/provided-node-ip", fmt::format("10.{}.{}.{}", 16 + i / 65536, i / 256 % 256, i % 256)},
              {"karpenter.k8s.aws/ec2nodeclass-hash", "1234567890123456789"},
              {"karpenter.sh/nodepool-hash", "9876543210987654321"},
              {"node.alpha.kubernetes.io/ttl", "0"},
              {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}}},
            {"finalizers", {"karpenter.sh/termination"}},
            {"ownerReferences",
             {{{"apiVersion", "karpenter.sh/v1"}, {"kind", "NodeClaim"}, {"name", "default-" + draw.suffix(5)},
               {"uid", draw.uid()}, {"blockOwnerDeletion", true}}}}}},
          {"spec", {{"providerID", fmt::format("aws:///{}/i-{:017x}", kZones[zone], draw.next() & 0xfffffffffffffULL)}}},
          {"status",
           {{"capacity",
             {{"cpu", "32"}, {"ephemeral-storage", "20959212Ki"}, {"hugepages-1Gi", "0"}, {"hugepages-2Mi", "0"},
              {"memory", type[0] == 'r' ? "259000000Ki" : "129000000Ki"}, {"pods", "234"}}},
            {"allocatable",
             {{"cpu", "31850m"}, {"ephemeral-storage", "18242267924"}, {"hugepages-1Gi", "0"}, {"hugepages-2Mi", "0"},
              {"memory", type[0] == 'r' ? "250000000Ki" : "124000000Ki"}, {"pods", "234"}}},
            {"conditions", conditions},
            {"addresses",
             {{{"type", "InternalIP"}, {"address", fmt::format("10.{}.{}.{}", 16 + i / 65536, i / 256 % 256, i % 256)}},
              {{"type", "InternalDNS"}, {"address", name}},
              {{"type", "Hostname"}, {"address", name}}}},
            {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
            {"nodeInfo",
             {{"machineID", fmt::format("{:016x}{:016x}", draw.next(), draw.next())},
              {"systemUUID", draw.uid()},
              {"bootID", draw.uid()},
              {"kernelVersion", "6.1.112-124.190.amzn2023.x86_64"},
              {"osImage", "Amazon Linux 2023.6.20241031"},
              {"containerRuntimeVersion", "containerd://1.7.22"},
              {"kubeletVersion", "v1.31.2-eks-94953ac"},
              {"kubeProxyVersion", "v1.31.2-eks-94953ac"},
              {"operatingSystem", "linux"},
              {"architecture", "amd64"}}},
            {"images", images}}}};
}

// A Running pod of Deployment `d` bound to `node`, as the API server lists it.
json pod_json(const DeploymentShape& d, int replica, const std::string& node, int node_index, Draw& draw) {
  // Five characters as generateName draws them, two of which number the replica: no two pods of a ReplicaSet share
  // a name.
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  constexpr int kBase = sizeof(kAlphabet) - 1;
  const std::string name = d.replicaset + "-" + draw.suffix(3) + kAlphabet[replica / kBase % kBase] +
                           kAlphabet[replica % kBase];
  const std::string token_volume = "kube-api-access-" + draw.suffix(5);
  const std::string ip = fmt::format("10.{}.{}.{}", 100 + node_index / 65536, node_index / 256 % 256,
                                     static_cast<int>(draw.next() % 250) + 2);
  const json labels = {{"app.kubernetes.io/name", d.name},
                       {"app.kubernetes.io/part-of", d.namespace_},
                       {"pod-template-hash", d.hash}};
  const json container_fields = {
      {"f:image", json::object()},
      {"f:imagePullPolicy", json::object()},
      {"f:name", json::object()},
      {"f:ports", {{".", json::object()}, {"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}", json::object()}}},
      {"f:resources", {{".", json::object()}, {"f:requests", {{".", json::object()}, {"f:cpu", json::object()},
                                                               {"f:memory", json::object()}}}}},
      {"f:terminationMessagePath", json::object()},
      {"f:terminationMessagePolicy", json::object()}};
  json managed = json::array();
  managed.push_back(managed_fields(
      "kube-controller-manager", "Update",
      {{"f:metadata",
        {{"f:generateName", json::object()},
         {"f:labels", {{".", json::object()}, {"f:app.kubernetes.io/name", json::object()},
                       {"f:app.kubernetes.io/part-of", json::object()}, {"f:pod-template-hash", json::object()}}},
         {"f:ownerReferences", {{".", json::object()}, {"k:{\"uid\":\"" + d.replicaset_uid + "\"}", json::object()}}}}},
       {"f:spec",
        {{"f:containers", {{"k:{\"name\":\"app\"}", container_fields}}},
         {"f:dnsPolicy", json::object()},
         {"f:enableServiceLinks", json::object()},
         {"f:restartPolicy", json::object()},
         {"f:schedulerName", json::object()},
         {"f:securityContext", json::object()},
         {"f:terminationGracePeriodSeconds", json::object()}}}}));
  managed.push_back(managed_fields(
      "kubelet", "Update",
      {{"f:status",
        {{"f:conditions",
          {{"k:{\"type\":\"ContainersReady\"}", {{".", json::object()}, {"f:status", json::object()}}},
           {"k:{\"type\":\"Initialized\"}", {{".", json::object()}, {"f:status", json::object()}}},
           {"k:{\"type\":\"Ready\"}", {{".", json::object()}, {"f:status", json::object()}}}}},
         {"f:containerStatuses", json::object()},
         {"f:hostIP", json::object()},
         {"f:phase", json::object()},
         {"f:podIP", json::object()},
         {"f:podIPs", {{".", json::object()}, {"k:{\"ip\":\"" + ip + "\"}", {{".", json::object()}}}}},
         {"f:startTime", json::object()}}}}));
  managed.back()["subresource"] = "status";
  json conditions = json::array();
  for (const char* type : {"Initialized", "Ready", "ContainersReady", "PodScheduled"}) {
    conditions.push_back(
        {{"type", type}, {"status", "True"}, {"lastProbeTime", nullptr}, {"lastTransitionTime", kTimestamp}});
  }
  return {
      {"metadata",
       {{"name", name},
        {"generateName", d.replicaset + "-"},
        {"namespace", d.namespace_},
        {"uid", draw.uid()},
        {"resourceVersion", std::to_string(100'000 + draw.next() % 1'000'000)},
        {"creationTimestamp", kTimestamp},
        {"labels", labels},
        {"annotations", {{"prometheus.io/scrape", "true"}, {"prometheus.io/port", "8080"}}},
        {"ownerReferences",
         {{{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}, {"name", d.replicaset}, {"uid", d.replicaset_uid},
           {"controller", true}, {"blockOwnerDeletion", true}}}},
        {"managedFields", managed}}},
      {"spec",
       {{"volumes",
         {{{"name", token_volume},
           {"projected",
            {{"sources",
              {{{"serviceAccountToken", {{"expirationSeconds", 3607}, {"path", "token"}}}},
               {{"configMap", {{"name", "kube-root-ca.crt"}, {"items", {{{"key", "ca.crt"}, {"path", "ca.crt"}}}}}}},
               {{"downwardAPI",
                 {{"items",
                   {{{"path", "namespace"},
                     {"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}}}}}}}}}},
             {"defaultMode", 420}}}}}},
        {"containers",
         {{{"name", "app"},
           {"image", "registry.example.com/" + d.namespace_ + "/" + d.name + ":1.4.2"},
           {"ports", {{{"containerPort", 8080}, {"protocol", "TCP"}}}},
           {"env", {{{"name", "LOG_LEVEL"}, {"value", "info"}}, {{"name", "GOMAXPROCS"}, {"value", "2"}}}},
           {"resources", {{"requests", {{"cpu", d.cpu}, {"memory", d.memory}}}}},
           {"volumeMounts",
            {{{"name", token_volume}, {"readOnly", true},
              {"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"}}}},
           {"terminationMessagePath", "/dev/termination-log"},
           {"terminationMessagePolicy", "File"},
           {"imagePullPolicy", "IfNotPresent"}}}},
        {"restartPolicy", "Always"},
        {"terminationGracePeriodSeconds", 30},
        {"dnsPolicy", "ClusterFirst"},
        {"serviceAccountName", "default"},
        {"serviceAccount", "default"},
        {"nodeName", node},
        {"securityContext", json::object()},
        {"schedulerName", "default-scheduler"},
        {"tolerations",
         {{{"key", "node.kubernetes.io/not-ready"}, {"operator", "Exists"}, {"effect", "NoExecute"},
           {"tolerationSeconds", 300}},
          {{"key", "node.kubernetes.io/unreachable"}, {"operator", "Exists"}, {"effect", "NoExecute"},
           {"tolerationSeconds", 300}}}},
        {"priority", 0},
        {"enableServiceLinks", true},
        {"preemptionPolicy", "PreemptLowerPriority"}}},
      {"status",
       {{"phase", "Running"},
        {"conditions", conditions},
        {"hostIP", fmt::format("10.{}.{}.{}", 16 + node_index / 65536, node_index / 256 % 256, node_index % 256)},
        {"podIP", ip},
        {"podIPs", {{{"ip", ip}}}},
        {"startTime", kTimestamp},
        {"containerStatuses",
         {{{"name", "app"},
           {"state", {{"running", {{"startedAt", kTimestamp}}}}},
           {"lastState", json::object()},
           {"ready", true},
           {"restartCount", 0},
           {"image", "registry.example.com/" + d.namespace_ + "/" + d.name + ":1.4.2"},
           {"imageID", fmt::format("registry.example.com/{}/{}@sha256:{:016x}{:016x}{:016x}{:016x}", d.namespace_,
                                   d.name, draw.next(), draw.next(), draw.next(), draw.next())},
           {"containerID", fmt::format("containerd://{:016x}{:016x}{:016x}{:016x}", draw.next(), draw.next(),
                                       draw.next(), draw.next())},
           {"started", true}}}},
        {"qosClass", "Burstable"}}}};
}

struct Quiet : cluster::ObserverListener {
  std::size_t unreadable = 0;
  std::string first_unreadable;
  void node_registered(const std::string&) override {}
  void node_ready(const std::string&) override {}
  void pod_left(const std::string&) override {}
  void object_unreadable(const std::string& message) override {
    if (unreadable++ == 0) first_unreadable = message;
  }
};

// The heap a deep copy of `value` takes beyond sizeof(T) (its strings, vectors and maps).
template <typename T>
std::int64_t heap_of(const T& value) {
  const std::int64_t before = g_live_bytes.load();
  const auto copy = std::make_unique<T>(value);
  return g_live_bytes.load() - before - static_cast<std::int64_t>(sizeof(T));
}

// Where a pod's heap goes: the Pod object itself (deep copies of every 100th pod, part by part, counted) and the
// state's indexes around it (the rest of the growth the pods caused).
void report_where_it_goes(const state::ClusterState& state, double pods_heap_mib, int pod_count) {
  struct Part {
    const char* name;
    double bytes = 0;
  };
  Part parts[] = {{"Pod (sizeof)"},         {"metadata strings"}, {"labels"},       {"annotations"},
                  {"ownerReferences"},      {"containers"},       {"volumes"},      {"tolerations"},
                  {"status.conditions"},    {"other spec"}};
  int sampled = 0;
  int i = 0;
  for (const auto& [key, record] : state.pods()) {
    if (i++ % 100 != 0) continue;
    const Pod& pod = *record.pod;
    ++sampled;
    parts[0].bytes += sizeof(Pod);
    ObjectMeta strings_only;
    strings_only.name = pod.meta.name;
    strings_only.namespace_ = pod.meta.namespace_;
    strings_only.uid = pod.meta.uid;
    parts[1].bytes += static_cast<double>(heap_of(strings_only));
    parts[2].bytes += static_cast<double>(heap_of(pod.meta.labels));
    parts[3].bytes += static_cast<double>(heap_of(pod.meta.annotations));
    parts[4].bytes += static_cast<double>(heap_of(pod.meta.owner_references));
    parts[5].bytes += static_cast<double>(heap_of(pod.spec.containers) + heap_of(pod.spec.init_containers));
    parts[6].bytes += static_cast<double>(heap_of(pod.spec.volumes));
    parts[7].bytes += static_cast<double>(heap_of(pod.spec.tolerations));
    parts[8].bytes += static_cast<double>(heap_of(pod.status.conditions));
    const std::int64_t spec = heap_of(pod.spec);
    parts[9].bytes += static_cast<double>(spec - heap_of(pod.spec.containers) - heap_of(pod.spec.init_containers) -
                                          heap_of(pod.spec.volumes) - heap_of(pod.spec.tolerations));
  }
  double pod_total = 0;
  std::string line;
  for (Part& part : parts) {
    part.bytes /= sampled;
    pod_total += part.bytes;
    line += fmt::format("{}{} {:.0f}", line.empty() ? "" : ", ", part.name, part.bytes);
  }
  const double per_pod = pods_heap_mib * 1024 * 1024 / pod_count;
  std::cout << fmt::format("where a pod's {:.0f} bytes go: the Pod object {:.0f} ({}); the state's records and "
                           "indexes and the snapshot's {:.0f}\n",
                           per_pod, pod_total, line, per_pod - pod_total);
}

struct Point {
  double rss = 0;
  double heap = 0;
};
Point measure() {
  malloc_trim(0);
  return {current_rss_mib(), live_heap_mib()};
}

int run(int argc, char** argv) {
  int node_count = 5000;
  int pods_per_node = 30;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--nodes") node_count = std::atoi(argv[i + 1]);
    else if (flag == "--pods-per-node") pods_per_node = std::atoi(argv[i + 1]);
  }
  const int deployments_count = 1000;
  const int pod_count = node_count * pods_per_node;

  Result<cloud::Catalog> catalog = cloud::aws::load_catalog(SCALEWRIGHT_SOURCE_DIR "/data/aws");
  if (!catalog) {
    std::cerr << catalog.error().message << "\n";
    return 1;
  }
  state::ClusterState state;
  cluster::TimeBase time;
  Quiet quiet;
  cluster::ClusterObserver observer(state, *catalog, time, quiet);
  Draw draw;

  // Deployments of 30, 90, 150, 210 or 270 replicas (150 on average), 20 in each of 50 namespaces.
  std::vector<DeploymentShape> deployments;
  const char* cpus[] = {"100m", "250m", "500m", "750m", "1"};
  const char* memories[] = {"128Mi", "512Mi", "1Gi", "2Gi", "3Gi"};
  for (int i = 0; i < deployments_count; ++i) {
    DeploymentShape d;
    d.namespace_ = fmt::format("team-{:02}", i % 50);
    d.name = fmt::format("service-{:04}", i);
    d.hash = draw.suffix(10);
    d.replicaset = d.name + "-" + d.hash;
    d.replicaset_uid = draw.uid();
    d.replicas = 30 + 60 * (i % 5);
    d.cpu = cpus[(i / 5) % 5];
    d.memory = memories[(i / 25) % 5];
    deployments.push_back(std::move(d));
  }
  const char* types[] = {"m5.8xlarge", "m6i.8xlarge", "r5.8xlarge", "m7i.8xlarge"};

  bench::reset_peak_rss();
  const Point start = measure();
  const double peak_start = peak_rss_since_reset_mib();
  Clock::duration observing{0};
  std::size_t node_json_bytes = 0;
  std::size_t pod_json_bytes = 0;
  int node_sampled = 0;
  int pod_sampled = 0;
  auto observe = [&](const cluster::Resource& resource, const json& object) {
    const auto t = Clock::now();
    observer.observe(resource, cluster::Change::Listed, object, Instant{});
    observing += Clock::now() - t;
  };
  auto relist = [&](const cluster::Resource& resource, bool done) {
    const auto t = Clock::now();
    if (done) {
      observer.relist_done(resource, Instant{});
    } else {
      observer.relist_started(resource);
    }
    observing += Clock::now() - t;
  };

  relist(cluster::resources::deployments, false);
  for (const DeploymentShape& d : deployments) observe(cluster::resources::deployments, deployment_json(d, draw));
  relist(cluster::resources::deployments, true);
  relist(cluster::resources::replicasets, false);
  for (const DeploymentShape& d : deployments) observe(cluster::resources::replicasets, replicaset_json(d, draw));
  relist(cluster::resources::replicasets, true);
  const Clock::duration workloads_time = observing;

  relist(cluster::resources::nodes, false);
  for (int i = 0; i < node_count; ++i) {
    const json node = node_json(i, types[i % 4], draw);
    if (i % 50 == 0) {
      node_json_bytes += node.dump().size();
      ++node_sampled;
    }
    observe(cluster::resources::nodes, node);
  }
  relist(cluster::resources::nodes, true);
  const Clock::duration nodes_time = observing - workloads_time;
  const Point after_nodes = measure();

  // Pods by Deployment, each Deployment's pods spread over consecutive nodes, 30 to a node.
  relist(cluster::resources::pods, false);
  int placed = 0;
  for (std::size_t k = 0; placed < pod_count; ++k) {
    const DeploymentShape& d = deployments[k % deployments.size()];
    for (int r = 0; r < d.replicas && placed < pod_count; ++r, ++placed) {
      const int node = placed / pods_per_node;
      const json pod = pod_json(d, r, node_name(node), node, draw);
      if (placed % 500 == 0) {
        pod_json_bytes += pod.dump().size();
        ++pod_sampled;
      }
      observe(cluster::resources::pods, pod);
    }
  }
  relist(cluster::resources::pods, true);
  const Clock::duration pods_time = observing - workloads_time - nodes_time;
  const Point after_pods = measure();
  const double peak = peak_rss_since_reset_mib();

  std::size_t bound = 0;
  for (const auto& [key, record] : state.pods()) bound += record.bound_at ? 1 : 0;
  std::cout << fmt::format("observed {} Deployments (+ReplicaSets), {} Nodes ({} Ready in the snapshot), {} Pods "
                           "({} in the state, {} bound, {} held); {} objects unreadable{}\n",
                           deployments_count, node_count, state.snapshot().live_node_count(), pod_count,
                           state.pods().size(), bound, observer.held_pods(), quiet.unreadable,
                           quiet.unreadable ? ": " + quiet.first_unreadable : "");
  std::cout << fmt::format("JSON as the API server sends it: {:.0f} bytes per Node, {:.0f} bytes per Pod on average "
                           "({:.0f} MiB for all pods)\n",
                           static_cast<double>(node_json_bytes) / node_sampled,
                           static_cast<double>(pod_json_bytes) / pod_sampled,
                           static_cast<double>(pod_json_bytes) / pod_sampled * pod_count / (1024.0 * 1024.0));
  std::cout << fmt::format("time to observe: workloads {:.2f} s, nodes {:.2f} s, pods {:.2f} s ({:.1f} µs per pod)\n",
                           std::chrono::duration<double>(workloads_time).count(),
                           std::chrono::duration<double>(nodes_time).count(),
                           std::chrono::duration<double>(pods_time).count(),
                           std::chrono::duration<double, std::micro>(pods_time).count() / pod_count);
  std::cout << fmt::format("RSS growth: {:.1f} MiB after the nodes and workloads, {:.1f} MiB after the pods "
                           "(goal < 300 MiB); peak growth {:.1f} MiB\n",
                           after_nodes.rss - start.rss, after_pods.rss - start.rss, peak - peak_start);
  std::cout << fmt::format("live heap growth: {:.1f} MiB after nodes and workloads ({:.1f} KiB per node), {:.1f} MiB "
                           "after the pods ({:.0f} bytes per pod)\n",
                           after_nodes.heap - start.heap,
                           (after_nodes.heap - start.heap) * 1024.0 / node_count, after_pods.heap - start.heap,
                           (after_pods.heap - after_nodes.heap) * 1024.0 * 1024.0 / pod_count);
  report_where_it_goes(state, after_pods.heap - after_nodes.heap, pod_count);
  return 0;
}

}  // namespace
}  // namespace scalewright::bench

int main(int argc, char** argv) { return scalewright::bench::run(argc, argv); }
