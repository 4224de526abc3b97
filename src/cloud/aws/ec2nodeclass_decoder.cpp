// EC2NodeClass as a user writes it, read with the manifest decoder's Field: what its CRD refuses (enums, CEL rules
// on amiSelectorTerms, amiFamily, role and instanceProfile, blockDeviceMappings) and what Karpenter's validation of
// spec.kubelet refuses (a cluster would report it as ValidationSucceeded=False and launch nothing; here the file is
// refused, naming the field).
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <set>
#include <tuple>

#include "api/ascii.h"
#include "api/duration.h"
#include "api/integer.h"
#include "cloud/aws/ec2nodeclass.h"
#include "manifest/field.h"
#include "manifest/meta_decoder.h"

namespace scalewright::cloud::aws {
namespace {

using manifest::Field;
using manifest::quote;

constexpr std::array<std::pair<std::string_view, AmiFamily>, 7> kFamilies{{
    {"AL2", AmiFamily::AL2},
    {"AL2023", AmiFamily::AL2023},
    {"Bottlerocket", AmiFamily::Bottlerocket},
    {"Custom", AmiFamily::Custom},
    {"Windows2019", AmiFamily::Windows2019},
    {"Windows2022", AmiFamily::Windows2022},
    {"Windows2025", AmiFamily::Windows2025},
}};

// The kubelet's eviction signals, the only keys of an eviction map it reads (Karpenter's evictionSignals).
constexpr std::array<std::string_view, 6> kEvictionSignals{"memory.available",  "nodefs.available",
                                                           "nodefs.inodesFree", "imagefs.available",
                                                           "imagefs.inodesFree", "pid.available"};
// What the kubelet can reserve (Karpenter's reservedResources).
constexpr std::array<std::string_view, 4> kReservable{"cpu", "memory", "ephemeral-storage", "pid"};

std::string joined(const auto& names) {
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

// A selector term's tags: no empty key or value (the CRD's "empty tag keys or values aren't supported").
std::vector<std::pair<std::string, std::string>> decode_selector_tags(const Field& term) {
  std::vector<std::pair<std::string, std::string>> tags = term.string_map("tags");
  for (const auto& [key, value] : tags) {
    if (key.empty() || value.empty()) term.fail_at("tags", "empty tag keys or values aren't supported");
  }
  return tags;
}

// amiSelectorTerms[].alias, "family@version", as the CRD's rules read it; the family it names.
std::optional<AmiFamily> alias_family(const Field& term) {
  const std::optional<std::string> alias = term.maybe_string("alias");
  if (!alias) return std::nullopt;
  const std::size_t at = alias->find('@');
  const std::string_view family = std::string_view(*alias).substr(0, at);
  const bool word = !family.empty() && std::all_of(family.begin(), family.end(), [](unsigned char c) {
    return std::isalnum(c) != 0;
  });
  if (at == std::string::npos || !word || at + 1 == alias->size()) {
    term.fail_at("alias", "'alias' is improperly formatted, must match the format 'family@version'");
  }
  const std::string_view version = std::string_view(*alias).substr(at + 1);
  for (const auto& [name, value] : kFamilies) {
    if (name == "Custom" || ascii_lower(name) != family) continue;
    if (name.starts_with("Windows") && version != "latest") {
      term.fail_at("alias", "windows families may only specify version 'latest'");
    }
    return value;
  }
  term.fail_at("alias", "family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', "
                        "'windows2019', 'windows2022', 'windows2025'");
}

// amiFamily, or the family of the alias; amiFamily must agree with an alias or be Custom (the CRD's rules).
AmiFamily decode_ami_family(const Field& spec, std::vector<SelectorTerm>& terms_out) {
  const std::optional<AmiFamily> family = spec.maybe_choice<AmiFamily>(
      "amiFamily", "AMI family",
      {kFamilies[0], kFamilies[1], kFamilies[2], kFamilies[3], kFamilies[4], kFamilies[5], kFamilies[6]});
  Field terms = spec.child("amiSelectorTerms");
  if (!terms.present() || terms.node().size() == 0) spec.fail_at("amiSelectorTerms", "required");
  if (terms.node().size() > 30) terms.fail("must have at most 30 items");
  std::optional<AmiFamily> alias;
  const std::size_t count = terms.node().size();
  terms.items([&](const Field& term) {
    const bool has_alias = term.has("alias");
    if (!has_alias && !term.has("id") && !term.has("tags") && !term.has("name") && !term.has("ssmParameter")) {
      term.fail("expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']");
    }
    if (has_alias && (term.has("id") || term.has("tags") || term.has("name") || term.has("owner"))) {
      term.fail("'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms");
    }
    if (has_alias && count != 1) {
      term.fail("'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms");
    }
    if (term.has("id") && (term.has("tags") || term.has("name") || term.has("owner"))) {
      term.fail("'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms");
    }
    if (has_alias) alias = alias_family(term);
    term.known({"tags", "id", "name", "owner", "ssmParameter"});
    SelectorTerm selector;
    selector.alias = term.optional_string("alias");
    selector.tags = decode_selector_tags(term);
    selector.id = term.optional_string("id");
    selector.name = term.optional_string("name");
    selector.owner = term.optional_string("owner");
    selector.ssm_parameter = term.optional_string("ssmParameter");
    terms_out.push_back(std::move(selector));
  });
  if (alias) {
    if (family && *family != *alias && *family != AmiFamily::Custom) {
      spec.fail_at("amiFamily", "if set, amiFamily must be '" + std::string(to_string(*alias)) +
                                    "' or 'Custom' when using an " + std::string(to_string(*alias)) + " alias");
    }
    return family.value_or(*alias);
  }
  if (!family) spec.fail_at("amiFamily", "must specify amiFamily if amiSelectorTerms does not contain an alias");
  return *family;
}

// subnetSelectorTerms and securityGroupSelectorTerms (1 to 30 terms; each tags, id or, for security groups, name;
// id alone), and role or instanceProfile: where and as whom a node is launched.
void decode_launch_identity(const Field& spec, EC2NodeClassSpec& out) {
  for (auto [key, terms_out, names] :
       {std::tuple{"subnetSelectorTerms", &out.subnet_selector_terms, false},
        std::tuple{"securityGroupSelectorTerms", &out.security_group_selector_terms, true}}) {
    Field terms = spec.child(key);
    if (!terms.present() || terms.node().size() == 0) spec.fail_at(key, "required");
    if (terms.node().size() > 30) terms.fail("must have at most 30 items");
    terms.items([&, names = names, terms_out = terms_out](const Field& term) {
      names ? term.known({"tags", "id", "name"}) : term.known({"tags", "id"});
      SelectorTerm selector;
      selector.tags = decode_selector_tags(term);
      selector.id = term.optional_string("id");
      if (names) selector.name = term.optional_string("name");
      if (selector.tags.empty() && selector.id.empty() && selector.name.empty()) {
        term.fail(names ? "expected at least one, got none, ['tags', 'id', 'name']"
                        : "expected at least one, got none, ['tags', 'id']");
      }
      if (!selector.id.empty() && (!selector.tags.empty() || !selector.name.empty())) {
        term.fail("'id' is mutually exclusive, cannot be set with a combination of other fields in " +
                  std::string(key));
      }
      terms_out->push_back(std::move(selector));
    });
  }
  if (spec.has("role") == spec.has("instanceProfile")) {
    spec.fail("must specify exactly one of ['role', 'instanceProfile']");
  }
  out.role = spec.optional_string("role");
  out.instance_profile = spec.optional_string("instanceProfile");
}

// tags (no empty key, none of the keys Karpenter sets itself), userData, metadataOptions, associatePublicIPAddress
// and detailedMonitoring: what the launch template carries as given.
void decode_launch_settings(const Field& spec, EC2NodeClassSpec& out) {
  out.tags = spec.string_map("tags");
  for (const auto& [key, value] : out.tags) {
    if (key.empty()) spec.fail_at("tags", "empty tag keys aren't supported");
    if (std::optional<std::string_view> pattern = restricted_tag(key)) {
      spec.child("tags").fail_at(key, "tag contains a restricted tag matching " + std::string(*pattern));
    }
  }
  out.user_data = spec.maybe_string("userData");
  if (Field metadata = spec.child("metadataOptions"); metadata.present()) {
    MetadataOptions& m = out.metadata_options;
    m.http_endpoint = metadata.maybe_choice<std::string>("httpEndpoint", "http endpoint",
                                                         {{"enabled", "enabled"}, {"disabled", "disabled"}})
                          .value_or(m.http_endpoint);
    m.http_protocol_ipv6 = metadata.maybe_choice<std::string>("httpProtocolIPv6", "http protocol IPv6",
                                                              {{"enabled", "enabled"}, {"disabled", "disabled"}})
                               .value_or(m.http_protocol_ipv6);
    m.http_tokens = metadata.maybe_choice<std::string>("httpTokens", "http tokens",
                                                       {{"required", "required"}, {"optional", "optional"}})
                        .value_or(m.http_tokens);
    if (std::optional<std::int64_t> hops = metadata.maybe_int64("httpPutResponseHopLimit")) {
      if (*hops < 1 || *hops > 64) metadata.fail_at("httpPutResponseHopLimit", "must be between 1 and 64");
      m.http_put_response_hop_limit = *hops;
    }
  }
  if (spec.has("associatePublicIPAddress")) {
    out.associate_public_ip_address = spec.optional_bool("associatePublicIPAddress", false);
  }
  out.detailed_monitoring = spec.optional_bool("detailedMonitoring", false);
}

// An eviction threshold: a percentage in [0, 100] or a non-negative quantity (Karpenter's
// validateEvictionThreshold); an amount in bytes.
EvictionThreshold decode_threshold(const Field& value, Symbol resource) {
  const std::string text = value.as_string();
  if (!text.empty() && text.back() == '%') {
    const std::string number = text.substr(0, text.size() - 1);
    double percent = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), percent);
    if (number.empty() || error != std::errc() || end != number.data() + number.size() || percent < 0 ||
        percent > 100) {
      value.fail(quote(text) + " must be a percentage or a resource quantity");
    }
    return {percent, 0};
  }
  Result<Quantity> quantity = Quantity::parse(text);
  if (!quantity) value.fail(quote(text) + " must be a percentage or a resource quantity");
  if (quantity->negative()) value.fail(quote(text) + " can't be a negative resource quantity");
  return {std::nullopt, resource_amount(resource, *quantity)};
}

std::map<std::string, EvictionThreshold> decode_eviction(const Field& kubelet, std::string_view key) {
  std::map<std::string, EvictionThreshold> out;
  kubelet.each_entry(key, [&](const std::string& signal, const Field& value) {
    if (std::find(kEvictionSignals.begin(), kEvictionSignals.end(), signal) == kEvictionSignals.end()) {
      value.fail(quote(signal) + " isn't a valid eviction signal, must be one of " + joined(kEvictionSignals));
    }
    const Symbol resource =
        signal == "memory.available" ? resource_names::memory() : resource_names::ephemeral_storage();
    out.emplace(signal, decode_threshold(value, resource));
  });
  return out;
}

// kubeReserved / systemReserved: resources the kubelet reserves, non-negative. A value that is no quantity is a CEL
// expression, honoured only behind Karpenter's NodeClassCEL gate (off by default): left out, with a warning.
std::vector<std::pair<Symbol, std::int64_t>> decode_reserved(const Field& kubelet, std::string_view key,
                                                             std::vector<std::string>& warnings) {
  std::vector<std::pair<Symbol, std::int64_t>> out;
  kubelet.each_entry(key, [&](const std::string& name, const Field& value) {
    if (std::find(kReservable.begin(), kReservable.end(), name) == kReservable.end()) {
      value.fail(quote(name) + " isn't a reservable resource, must be one of " + joined(kReservable));
    }
    const std::string text = value.as_string();
    if (text.starts_with("-")) value.fail(quote(text) + " can't be a negative resource quantity");
    Result<Quantity> quantity = Quantity::parse(text);
    if (!quantity) {
      warnings.push_back(value.path() + ": " + quote(text) +
                         " is a CEL expression (Karpenter's NodeClassCEL feature gate, off by default): not applied");
      return;
    }
    if (name != "pid") out.emplace_back(Symbol(name), resource_amount(Symbol(name), *quantity));  // pid: no resource
  });
  return out;
}

std::optional<std::int64_t> non_negative(const Field& kubelet, std::string_view key) {
  std::optional<std::int64_t> value = kubelet.maybe_int64(key);
  if (value && *value < 0) kubelet.fail_at(key, std::to_string(*value) + " can't be negative");
  return value;
}

// spec.kubelet, as Karpenter's ValidateKubeletConfig checks the fields it reads; the other kubelet fields pass
// through to the node and shape nothing here.
KubeletConfiguration decode_kubelet(const Field& kubelet, std::vector<std::string>& warnings) {
  KubeletConfiguration out;
  if (!kubelet.present()) return out;
  kubelet.known({"clusterDNS", "cpuCFSQuota", "evictionMaxPodGracePeriod"});
  if (kubelet.has("registerWithTaints")) {
    kubelet.fail_at("registerWithTaints", "can't be set, Karpenter sets it from the NodeClaim's taints so the node "
                                          "registers unschedulable until it's ready");
  }
  if (Field max_pods = kubelet.child("maxPods"); max_pods.present() && max_pods.quoted()) {
    warnings.push_back(max_pods.path() + ": " + quote(max_pods.as_string()) +
                       " is a CEL expression (Karpenter's NodeClassCEL feature gate, off by default): not applied");
  } else {
    out.max_pods = non_negative(kubelet, "maxPods");
  }
  out.pods_per_core = non_negative(kubelet, "podsPerCore");
  non_negative(kubelet, "evictionMaxPodGracePeriod");
  out.kube_reserved = decode_reserved(kubelet, "kubeReserved", warnings);
  for (const auto& [resource, amount] : decode_reserved(kubelet, "systemReserved", warnings)) {
    out.system_reserved.set(resource, amount);
  }
  out.eviction_hard = decode_eviction(kubelet, "evictionHard");
  out.eviction_soft = decode_eviction(kubelet, "evictionSoft");
  decode_eviction(kubelet, "evictionMinimumReclaim");
  std::set<std::string> grace;
  kubelet.each_entry("evictionSoftGracePeriod", [&](const std::string& signal, const Field& value) {
    if (std::find(kEvictionSignals.begin(), kEvictionSignals.end(), signal) == kEvictionSignals.end()) {
      value.fail(quote(signal) + " isn't a valid eviction signal, must be one of " + joined(kEvictionSignals));
    }
    Result<Duration> d = parse_duration(value.as_string());
    if (!d) value.fail(quote(value.as_string()) + " must be a duration");
    if (d->count() < 0) value.fail(quote(value.as_string()) + " can't be a negative duration");
    grace.insert(signal);
  });
  // The kubelet ignores a soft threshold without its grace period, and refuses a grace period without one.
  for (const auto& [signal, threshold] : out.eviction_soft) {
    if (!grace.contains(signal)) {
      kubelet.child("evictionSoft").fail_at(signal, "has no matching evictionSoftGracePeriod");
    }
  }
  for (const std::string& signal : grace) {
    if (!out.eviction_soft.contains(signal)) {
      kubelet.child("evictionSoftGracePeriod").fail_at(signal, "has no matching evictionSoft");
    }
  }
  std::optional<std::int64_t> high = kubelet.maybe_int64("imageGCHighThresholdPercent");
  std::optional<std::int64_t> low = kubelet.maybe_int64("imageGCLowThresholdPercent");
  for (auto [key, value] :
       {std::pair{"imageGCHighThresholdPercent", high}, std::pair{"imageGCLowThresholdPercent", low}}) {
    if (value && (*value < 0 || *value > 100)) {
      kubelet.fail_at(key, std::to_string(*value) + " must be between 0 and 100");
    }
  }
  if (high && low && *high <= *low) {
    kubelet.fail("imageGCHighThresholdPercent (" + std::to_string(*high) +
                 ") must be greater than imageGCLowThresholdPercent (" + std::to_string(*low) + ")");
  }
  return out;
}

// ebs.volumeSize as the CRD's pattern allows it: whole Gi (1 to 59000), G (to 64000), Ti (to 58) or T (to 64).
std::int64_t decode_volume_size(const Field& ebs) {
  const std::string text = ebs.required_string("volumeSize");
  struct Unit {
    std::string_view suffix;
    std::int64_t bytes;
    std::int64_t most;
  };
  for (const Unit& unit : {Unit{"Gi", std::int64_t{1} << 30, 59000}, Unit{"Ti", std::int64_t{1} << 40, 58},
                           Unit{"G", 1'000'000'000, 64000}, Unit{"T", 1'000'000'000'000, 64}}) {
    if (!text.ends_with(unit.suffix)) continue;
    const std::string_view digits = std::string_view(text).substr(0, text.size() - unit.suffix.size());
    const bool whole = !digits.empty() && digits[0] != '0' &&
                       std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
    std::optional<std::int64_t> n = whole ? parse_integer(digits) : std::nullopt;
    if (n && *n >= 1 && *n <= unit.most) return *n * unit.bytes;
    break;
  }
  ebs.fail_at("volumeSize", "must be a whole size in Gi, G, Ti or T up to 59000Gi, 64000G, 58Ti or 64T, got " +
                                quote(text));
}

std::vector<BlockDeviceMapping> decode_block_devices(const Field& spec) {
  std::vector<BlockDeviceMapping> out;
  Field mappings = spec.child("blockDeviceMappings");
  if (mappings.present() && mappings.node().size() > 50) mappings.fail("must have at most 50 items");
  mappings.items([&](const Field& m) {
    BlockDeviceMapping mapping;
    mapping.device_name = m.optional_string("deviceName");
    mapping.root_volume = m.optional_bool("rootVolume", false);
    if (Field ebs = m.child("ebs"); ebs.present()) {
      ebs.known({"volumeInitializationRate"});
      if (!ebs.has("snapshotID") && !ebs.has("volumeSize")) ebs.fail("snapshotID or volumeSize must be defined");
      if (ebs.has("volumeSize")) mapping.volume_size_bytes = decode_volume_size(ebs);
      mapping.volume_type = ebs.maybe_choice<std::string>("volumeType", "volume type",
                                                          {{"standard", "standard"}, {"io1", "io1"}, {"io2", "io2"},
                                                           {"gp2", "gp2"}, {"sc1", "sc1"}, {"st1", "st1"},
                                                           {"gp3", "gp3"}})
                                .value_or("");
      if (ebs.has("encrypted")) mapping.encrypted = ebs.optional_bool("encrypted", false);
      if (ebs.has("deleteOnTermination")) mapping.delete_on_termination = ebs.optional_bool("deleteOnTermination", true);
      mapping.iops = ebs.maybe_int64("iops");
      mapping.throughput = ebs.maybe_int64("throughput");
      mapping.kms_key_id = ebs.optional_string("kmsKeyID");
      mapping.snapshot_id = ebs.optional_string("snapshotID");
    }
    out.push_back(std::move(mapping));
  });
  if (std::count_if(out.begin(), out.end(), [](const BlockDeviceMapping& m) { return m.root_volume; }) > 1) {
    mappings.fail("must have only one blockDeviceMappings with rootVolume");
  }
  return out;
}

}  // namespace

std::shared_ptr<const EC2NodeClass> decode_ec2nodeclass(const Field& object, std::vector<std::string>& warnings) {
  ObjectMeta meta = manifest::decode_object_meta(object, manifest::Scope::Cluster);
  Field spec = object.required_child("spec");
  // Upstream's fields the AWS provider does not act on yet (networking details, reservations, placement):
  // accepted, as kubectl's strict validation accepts them.
  spec.known({"capacityReservationSelectorTerms", "connectionTracking", "context", "cpuOptions", "ipPrefixCount",
              "networkInterfaces", "placementGroupSelector"});
  EC2NodeClassSpec out;
  out.ami_family = decode_ami_family(spec, out.ami_selector_terms);
  decode_launch_identity(spec, out);
  decode_launch_settings(spec, out);
  out.kubelet = decode_kubelet(spec.child("kubelet"), warnings);
  out.block_device_mappings = decode_block_devices(spec);
  out.instance_store_raid0 =
      spec.maybe_choice<bool>("instanceStorePolicy", "instance store policy", {{"RAID0", true}}).value_or(false);
  return std::make_shared<const EC2NodeClass>(std::move(meta), std::move(out));
}

}  // namespace scalewright::cloud::aws
