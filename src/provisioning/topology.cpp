#include "provisioning/topology.h"

#include <algorithm>
#include <set>

namespace scalewright::provisioning {
namespace {

const Symbol& hostname_key() {
  static const Symbol s(well_known::hostname);
  return s;
}

bool tolerates_taints(const std::vector<Toleration>& tolerations, const std::vector<Taint>& taints) {
  return std::all_of(taints.begin(), taints.end(), [&](const Taint& taint) {
    return taint.effect == TaintEffect::PreferNoSchedule || tolerates_all(tolerations, taint);
  });
}

// The single value a requirement set narrows `key` to, or nullptr.
const std::string* single_value(const RequirementSet& requirements, const std::string& key) {
  const ValueSet* values = requirements.find(key);
  if (values == nullptr || values->is_complement() || values->values().size() != 1) return nullptr;
  return &*values->values().begin();
}

}  // namespace

const Symbol* node_domain(const scheduling::NodeInfo& node, Symbol key) {
  if (const Symbol* value = node.labels().find(key)) return value;
  if (key == hostname_key()) {
    thread_local Symbol name;
    name = Symbol(node.name());
    return &name;
  }
  return nullptr;
}

bool labels_satisfy(const RequirementSet& requirements, const Labels& labels) {
  std::string text;
  for (const auto& [key, values] : requirements.keys()) {
    const Symbol* value = labels.find(Symbol(key));
    if (value == nullptr) {
      if (!values.allows_absent()) return false;
      continue;
    }
    text.assign(value->str());
    if (!values.allows(text)) return false;
  }
  return true;
}

Topology::Topology(const std::vector<NodePoolInfo>& pools, const InstanceTypeIndex& types,
                   const scheduling::ClusterSnapshot& cluster)
    : pools_(pools), types_(types), cluster_(cluster) {}

std::string Topology::identity(const TopologyTerm& term, const PodConstraints& owner) const {
  std::string out = std::to_string(static_cast<int>(term.kind)) + "|" + std::string(term.key.str()) + "|" +
                    std::to_string(term.max_skew) + "|" + std::to_string(term.min_domains.value_or(0)) + "|" +
                    (term.honor_node_affinity ? "H" : "I") + (term.honor_taints ? "H" : "I") + "|" +
                    (term.matcher ? term.matcher->key() : std::string("nil"));
  // Which domains the owner may use and where its own pods count depend on its node constraints.
  out += "|" + owner.static_key;
  return out;
}

void Topology::register_domains(Group& group) const {
  std::set<std::string> values;
  const std::string& key = group.key_text;
  for (const NodePoolInfo& pool : pools_) {
    if (group.kind == Kind::Spread && group.honor_taints &&
        !tolerates_taints(group.owner_tolerations, pool.pool->taints)) {
      continue;
    }
    if (key == offering_keys::zone() || key == offering_keys::zone_id()) {
      const auto& names = key == offering_keys::zone() ? types_.zones() : types_.zone_ids();
      for (std::size_t z = 0; z < names.size(); ++z) {
        if ((pool.zones >> z) & 1U) values.insert(names[z]);
      }
    } else if (key == offering_keys::capacity_type()) {
      if (pool.capacity_types & kOnDemandBit) values.insert(std::string(cloud::to_string(cloud::CapacityType::OnDemand)));
      if (pool.capacity_types & kSpotBit) values.insert(std::string(cloud::to_string(cloud::CapacityType::Spot)));
    } else if (const ValueSet* own = pool.requirements.find(key); own && !own->is_complement()) {
      values.insert(own->values().begin(), own->values().end());
    } else {
      for (std::uint32_t t : pool.types) {
        if (const Symbol* value = types_.label(t, group.key)) values.insert(value->string());
      }
    }
  }
  const auto& nodes = cluster_.nodes();
  for (const scheduling::NodeInfo& node : nodes) {
    if (node.removed || !node_counts(group, node)) continue;
    if (const Symbol* value = node.labels().find(group.key)) values.insert(value->string());
  }
  for (const std::string& value : values) {
    group.domains.emplace_back(value);
    bool allowed = group.owner_strict.empty() ||
                   std::any_of(group.owner_strict.begin(), group.owner_strict.end(),
                               [&](const RequirementSet& r) { return r.allows(key, value); });
    group.pod_domain.push_back(allowed ? 1 : 0);
  }
}

bool Topology::node_counts(const Group& group, const scheduling::NodeInfo& node) const {
  if (group.kind != Kind::Spread) return true;
  if (group.honor_affinity && !group.owner_strict.empty() &&
      std::none_of(group.owner_strict.begin(), group.owner_strict.end(),
                   [&](const RequirementSet& r) { return labels_satisfy(r, node.labels()); })) {
    return false;
  }
  return !group.honor_taints || tolerates_taints(group.owner_tolerations, node.node->taints);
}

bool Topology::claim_counts(const Group& group, const RequirementSet& requirements,
                            const std::vector<Taint>& taints) const {
  if (group.kind != Kind::Spread) return true;
  if (group.honor_affinity && !group.owner_strict.empty() &&
      std::none_of(group.owner_strict.begin(), group.owner_strict.end(),
                   [&](const RequirementSet& r) { return r.compatible(requirements); })) {
    return false;
  }
  return !group.honor_taints || tolerates_taints(group.owner_tolerations, taints);
}

std::vector<GroupId> Topology::register_groups(const PodConstraints& constraints) {
  std::vector<GroupId> out;
  for (const TopologyTerm& term : constraints.terms) {
    // A spread or anti-affinity term whose selector is absent matches nothing and constrains nothing.
    if (!term.matcher && term.kind != TopologyTerm::Kind::Affinity) continue;
    std::string id = identity(term, constraints);
    auto [it, inserted] = by_identity_.try_emplace(std::move(id), static_cast<GroupId>(groups_.size()));
    if (inserted) {
      Group group;
      switch (term.kind) {
        case TopologyTerm::Kind::Spread: group.kind = Kind::Spread; break;
        case TopologyTerm::Kind::Affinity: group.kind = Kind::Affinity; break;
        case TopologyTerm::Kind::AntiAffinity: group.kind = Kind::AntiAffinity; break;
      }
      group.key = term.key;
      group.key_text = term.key.string();
      group.hostname = term.key == hostname_key();
      group.max_skew = term.max_skew;
      group.min_domains = term.min_domains;
      group.matcher = term.matcher;
      group.honor_affinity = term.honor_node_affinity;
      group.honor_taints = term.honor_taints;
      group.owner_strict = constraints.strict;
      group.owner_tolerations = constraints.pod.spec.tolerations;
      group.description = term.describe();
      if (!group.hostname) register_domains(group);
      // Pods already in the cluster.
      if (group.matcher) {
        const scheduling::QueryId query = cluster_.query(*group.matcher);
        const auto& nodes = cluster_.nodes();
        for (scheduling::NodeId id = 0; id < nodes.size(); ++id) {
          if (nodes[id].removed || !node_counts(group, nodes[id])) continue;
          const std::int32_t n = cluster_.count(query, id);
          if (n == 0) continue;
          if (const Symbol* domain = node_domain(nodes[id], group.key)) group.counts[*domain] += n;
        }
      }
      groups_.push_back(std::move(group));
      classified_.clear();
    }
    if (std::find(out.begin(), out.end(), it->second) == out.end()) out.push_back(it->second);
  }
  return out;
}

std::vector<GroupId> Topology::groups_of(const PodConstraints& constraints) const {
  std::vector<GroupId> out;
  for (const TopologyTerm& term : constraints.terms) {
    auto it = by_identity_.find(identity(term, constraints));
    if (it != by_identity_.end() && std::find(out.begin(), out.end(), it->second) == out.end()) {
      out.push_back(it->second);
    }
  }
  return out;
}

void Topology::register_inverse(const Pod& pod) {
  for (const PodAffinityTerm& term : pod.spec.affinity.required_pod_anti_affinity) {
    std::optional<scheduling::PodMatcher> matcher = scheduling::matcher_for_term(term, pod.meta.namespace_);
    if (!matcher) continue;
    std::string id = "inverse|" + std::string(term.topology_key.str()) + "|" + matcher->key();
    auto [it, inserted] = by_identity_.try_emplace(id, static_cast<GroupId>(groups_.size()));
    if (!inserted) continue;
    Group group;
    group.kind = Kind::Inverse;
    group.key = term.topology_key;
    group.key_text = term.topology_key.string();
    group.hostname = term.topology_key == hostname_key();
    group.matcher = std::move(matcher);
    group.description = "pod anti-affinity of other pods on \"" + std::string(term.topology_key.str()) + "\"";
    group.inverse_term = std::move(id);
    if (!group.hostname) register_domains(group);
    groups_.push_back(std::move(group));
    classified_.clear();
  }
}

ClassTopology Topology::classify(const Pod& pod) const {
  ClassTopology out;
  out.exemplar = &pod;
  std::vector<std::string> owned_inverse;
  for (const PodAffinityTerm& term : pod.spec.affinity.required_pod_anti_affinity) {
    if (auto matcher = scheduling::matcher_for_term(term, pod.meta.namespace_)) {
      owned_inverse.push_back("inverse|" + std::string(term.topology_key.str()) + "|" + matcher->key());
    }
  }
  // Everything below reads only these of the pod (PodMatcher::matches: deletion, namespace, labels).
  std::string key;
  key += pod.meta.deletion_timestamp ? 'D' : '-';
  key += pod.meta.namespace_;
  key += '\0';
  auto append_u32 = [&key](std::uint32_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  append_u32(static_cast<std::uint32_t>(pod.meta.labels.size()));
  for (const auto& [label, value] : pod.meta.labels) {
    append_u32(label.id());
    append_u32(value.id());
  }
  for (const std::string& inverse : owned_inverse) {
    append_u32(static_cast<std::uint32_t>(inverse.size()));
    key += inverse;
  }
  auto [cached, inserted] = classified_.try_emplace(std::move(key));
  if (!inserted) {
    out.counted = cached->second.counted;
    out.blocked = cached->second.blocked;
    return out;
  }
  const scheduling::NamespaceLabels& namespaces = cluster_.namespace_labels();
  for (GroupId g = 0; g < groups_.size(); ++g) {
    const Group& group = groups_[g];
    const bool matches = group.matcher && group.matcher->matches(pod, namespaces);
    if (group.kind == Kind::Inverse) {
      if (std::find(owned_inverse.begin(), owned_inverse.end(), group.inverse_term) != owned_inverse.end()) {
        out.counted.push_back(g);
      }
      if (matches) out.blocked.push_back(g);
    } else if (matches) {
      out.counted.push_back(g);
    }
  }
  cached->second.counted = out.counted;
  cached->second.blocked = out.blocked;
  return out;
}

void Topology::refresh(ClassTopology& cls) const {
  // Existing pods' required anti-affinity, including pods this batch placed on existing nodes.
  const auto& terms = cluster_.existing_terms();
  if (cls.exemplar == nullptr) return;
  const scheduling::NamespaceLabels& namespaces = cluster_.namespace_labels();
  for (; cls.snapshot_terms_seen < terms.size(); ++cls.snapshot_terms_seen) {
    const scheduling::ExistingTermGroup& term = terms[cls.snapshot_terms_seen];
    if (term.kind != scheduling::TermKind::RequiredAntiAffinity || !term.matcher) continue;
    if (term.matcher->matches(*cls.exemplar, namespaces)) cls.snapshot_terms.push_back(cls.snapshot_terms_seen);
  }
}

bool Topology::constrains(const std::vector<GroupId>& owned, ClassTopology& cls) const {
  refresh(cls);
  return !owned.empty() || !cls.blocked.empty() || !cls.snapshot_terms.empty();
}

Symbol Topology::find_domain(const Group& group, std::string_view text) const {
  auto at = std::lower_bound(group.domains.begin(), group.domains.end(), text,
                             [](Symbol a, std::string_view b) { return a.str() < b; });
  return at != group.domains.end() && at->str() == text ? *at : Symbol();
}

std::int32_t Topology::count(const Group& group, Symbol domain) const {
  auto it = group.counts.find(domain);
  return it == group.counts.end() ? 0 : it->second;
}

std::int64_t Topology::spread_min(const Group& group) const {
  if (group.hostname) return 0;  // a new NodeClaim is always an empty host
  std::int64_t min = -1;
  std::int32_t eligible = 0;
  for (std::size_t i = 0; i < group.domains.size(); ++i) {
    if (!group.pod_domain[i]) continue;
    ++eligible;
    const std::int64_t n = count(group, group.domains[i]);
    if (min < 0 || n < min) min = n;
  }
  if (min < 0) return 0;
  if (group.min_domains && eligible < *group.min_domains) return 0;
  return min;
}

bool Topology::bootstrap(const Group& group, bool self_match) const {
  // The first pod of a group that matches its own affinity may start it, where no matching pod exists yet.
  if (!self_match) return false;
  if (group.hostname) {
    return std::none_of(group.counts.begin(), group.counts.end(), [](const auto& e) { return e.second > 0; });
  }
  for (std::size_t i = 0; i < group.domains.size(); ++i) {
    if (group.pod_domain[i] && count(group, group.domains[i]) > 0) return false;
  }
  return true;
}

bool Topology::allows_node(const std::vector<GroupId>& owned, const ClassTopology& cls,
                           const scheduling::NodeInfo& node) const {
  for (GroupId g : owned) {
    const Group& group = groups_[g];
    const bool self = std::binary_search(cls.counted.begin(), cls.counted.end(), g);
    const Symbol* domain = node_domain(node, group.key);
    switch (group.kind) {
      case Kind::Spread:
        if (domain == nullptr) return false;
        if (count(group, *domain) + (self ? 1 : 0) - spread_min(group) > group.max_skew) return false;
        break;
      case Kind::Affinity:
        if (domain == nullptr) return false;
        if (count(group, *domain) == 0 && !bootstrap(group, self)) return false;
        break;
      case Kind::AntiAffinity:
        if (domain != nullptr && count(group, *domain) > 0) return false;
        break;
      case Kind::Inverse: break;
    }
  }
  for (GroupId g : cls.blocked) {
    const Group& group = groups_[g];
    const Symbol* domain = node_domain(node, group.key);
    if (domain != nullptr && count(group, *domain) > 0) return false;
  }
  return true;
}

Topology::Narrowing Topology::claim_options(const std::vector<GroupId>& owned, ClassTopology& cls,
                                            const ClaimTopology& claim, const RequirementSet& requirements,
                                            std::vector<RequirementSet>& options, std::string* reason) const {
  options.clear();
  auto explain = [&](const std::string& why) {
    if (reason) *reason = why;
  };
  auto on_claim = [&](GroupId g) {
    for (const auto& [id, n] : claim.counts) {
      if (id == g) return n;
    }
    return std::int32_t{0};
  };
  auto self_of = [&](GroupId g) { return std::binary_search(cls.counted.begin(), cls.counted.end(), g); };

  // Hostname rules judge the claim as a host of its own.
  for (GroupId g : owned) {
    const Group& group = groups_[g];
    if (!group.hostname) continue;
    const std::int32_t here = on_claim(g);
    const bool self = self_of(g);
    bool ok = true;
    switch (group.kind) {
      case Kind::Spread: ok = here + (self ? 1 : 0) <= group.max_skew; break;
      case Kind::Affinity: ok = here > 0 || bootstrap(group, self); break;
      case Kind::AntiAffinity: ok = here == 0; break;
      case Kind::Inverse: break;
    }
    if (!ok) {
      explain(group.description);
      return Narrowing::Rejected;
    }
  }
  for (GroupId g : cls.blocked) {
    if (groups_[g].hostname && on_claim(g) > 0) {
      explain(groups_[g].description);
      return Narrowing::Rejected;
    }
  }

  // Other keys: the domains every owned group allows, minus those blocked by other pods' anti-affinity.
  // Scratch kept between calls (a claim is asked once per pod that tries it).
  std::vector<Symbol>& keys = scratch_keys_;
  keys.clear();
  for (GroupId g : owned) {
    if (!groups_[g].hostname && std::find(keys.begin(), keys.end(), groups_[g].key) == keys.end()) {
      keys.push_back(groups_[g].key);
    }
  }
  refresh(cls);
  auto blocked_in = [&](Symbol key, Symbol domain) {
    for (GroupId g : cls.blocked) {
      if (groups_[g].key == key && count(groups_[g], domain) > 0) return true;
    }
    for (std::size_t t : cls.snapshot_terms) {
      const scheduling::ExistingTermGroup& term = cluster_.existing_terms()[t];
      if (term.topology_key != key) continue;
      auto it = term.pods_per_domain.find(domain);
      if (it != term.pods_per_domain.end() && it->second > 0) return true;
    }
    return false;
  };

  bool changed = false;
  std::string text;
  struct OnKey {
    GroupId id;
    const Group* group;
    bool self;
    std::int64_t min;
  };
  std::vector<OnKey> on_key;
  std::vector<Symbol>& allowed = scratch_allowed_;
  std::vector<Symbol>& open = scratch_open_;
  for (const Symbol key : keys) {
    on_key.clear();
    const Group* spread = nullptr;
    for (GroupId g : owned) {
      const Group& group = groups_[g];
      if (group.key != key) continue;
      on_key.push_back({g, &group, self_of(g), group.kind == Kind::Spread ? spread_min(group) : 0});
      if (spread == nullptr && group.kind == Kind::Spread) spread = &group;
    }
    const Group& first = *on_key.front().group;
    const std::string& key_text = first.key_text;
    auto pod_may_run = [&](const Group& group, Symbol domain) {
      auto at = std::lower_bound(group.domains.begin(), group.domains.end(), domain,
                                 [](Symbol a, Symbol b) { return a.str() < b.str(); });
      return at != group.domains.end() && *at == domain &&
             group.pod_domain[static_cast<std::size_t>(at - group.domains.begin())];
    };
    auto judge = [&](Symbol domain) {
      if (blocked_in(key, domain)) return false;
      for (const OnKey& k : on_key) {
        if (!pod_may_run(*k.group, domain)) return false;
        const std::int32_t n = count(*k.group, domain);
        switch (k.group->kind) {
          case Kind::Spread:
            if (n + (k.self ? 1 : 0) - k.min > k.group->max_skew) return false;
            break;
          case Kind::Affinity:
            if (n == 0) return false;
            break;
          case Kind::AntiAffinity:
            if (n > 0) return false;
            break;
          case Kind::Inverse: break;
        }
      }
      return true;
    };
    // The domains the claim may still be in: its one value, or every known domain its requirements allow.
    const std::string* fixed = single_value(requirements, key_text);
    open.clear();
    if (fixed) {
      const Symbol domain = find_domain(first, *fixed);
      if (!domain.empty()) open.push_back(domain);
    } else {
      for (Symbol domain : first.domains) {
        text.assign(domain.str());
        if (requirements.allows(key_text, text)) open.push_back(domain);
      }
    }
    allowed.clear();
    if (spread) {
      // Spread picks the pod's domain over all eligible ones: the fewest matching pods within the skew, ties by
      // name. A claim takes the pod only where it is, or can narrow to, that domain; the others stay as fallbacks
      // for a claim whose requirements allow the chosen one but whose instance types cannot hold the pod there.
      for (std::size_t i = 0; i < first.domains.size(); ++i) {
        if (first.pod_domain[i] && judge(first.domains[i])) allowed.push_back(first.domains[i]);
      }
      std::stable_sort(allowed.begin(), allowed.end(),
                       [&](Symbol a, Symbol b) { return count(*spread, a) < count(*spread, b); });
      if (!allowed.empty() && std::find(open.begin(), open.end(), allowed.front()) == open.end()) allowed.clear();
      std::erase_if(allowed, [&](Symbol d) { return std::find(open.begin(), open.end(), d) == open.end(); });
    } else {
      for (Symbol domain : open) {
        if (judge(domain)) allowed.push_back(domain);
      }
    }
    if (allowed.empty()) {
      // Affinity with no matching pod anywhere the pod may run: a pod that matches itself starts the group.
      for (const OnKey& k : on_key) {
        if (k.group->kind != Kind::Affinity || !bootstrap(*k.group, k.self)) continue;
        for (Symbol domain : open) {
          if (pod_may_run(*k.group, domain) && !blocked_in(key, domain)) allowed.push_back(domain);
        }
        break;
      }
    }
    if (allowed.empty()) {
      explain(first.description);
      return Narrowing::Rejected;
    }
    if (fixed) continue;  // already in the one allowed domain
    if (!changed) {
      for (Symbol domain : allowed) {
        RequirementSet narrowed = requirements;
        narrowed.add(key_text, ValueSet::of({std::string(domain.str())}));
        options.push_back(std::move(narrowed));
      }
      changed = true;
    } else {
      for (RequirementSet& option : options) option.add(key_text, ValueSet::of({std::string(allowed.front().str())}));
    }
  }

  // Keys only other pods' anti-affinity constrains: keep the claim out of their domains.
  std::vector<std::pair<Symbol, std::set<std::string>>> exclusions;
  auto exclude = [&](Symbol key, Symbol domain) {
    if (std::find(keys.begin(), keys.end(), key) != keys.end() || key == hostname_key()) return;
    auto it = std::find_if(exclusions.begin(), exclusions.end(), [&](const auto& e) { return e.first == key; });
    if (it == exclusions.end()) {
      exclusions.push_back({key, {}});
      it = exclusions.end() - 1;
    }
    it->second.insert(std::string(domain.str()));
  };
  for (GroupId g : cls.blocked) {
    for (const auto& [domain, n] : groups_[g].counts) {
      if (n > 0) exclude(groups_[g].key, domain);
    }
  }
  for (std::size_t t : cls.snapshot_terms) {
    const scheduling::ExistingTermGroup& term = cluster_.existing_terms()[t];
    for (const auto& [domain, n] : term.pods_per_domain) {
      if (n > 0) exclude(term.topology_key, domain);
    }
  }
  if (!exclusions.empty()) {
    if (!changed) options.push_back(requirements);
    for (const auto& [key, domains] : exclusions) {
      for (RequirementSet& option : options) option.add(std::string(key.str()), ValueSet::all_but(domains));
    }
    std::erase_if(options, [](const RequirementSet& r) { return r.unsatisfiable(); });
    if (options.empty()) {
      explain("pod anti-affinity of other pods");
      return Narrowing::Rejected;
    }
    changed = true;
  }
  return changed ? Narrowing::Narrowed : Narrowing::Unchanged;
}

void Topology::record_node(const ClassTopology& cls, const scheduling::NodeInfo& node) {
  for (GroupId g : cls.counted) {
    Group& group = groups_[g];
    if (group.kind == Kind::Inverse || !node_counts(group, node)) continue;
    if (const Symbol* domain = node_domain(node, group.key)) ++group.counts[*domain];
  }
}

void Topology::contribute(const ClaimTopology& claim, const RequirementSet& requirements,
                          const std::vector<Taint>& taints, int sign) {
  std::string text;
  for (const auto& [g, n] : claim.counts) {
    if (n == 0) continue;
    Group& group = groups_[g];
    if (!claim_counts(group, requirements, taints)) continue;
    const std::int32_t delta = sign * n;
    if (group.hostname) {
      group.counts[claim.hostname] += delta;
      continue;
    }
    const std::string& key = group.key_text;
    if (group.kind == Kind::AntiAffinity || group.kind == Kind::Inverse) {
      // Until the claim settles on a domain, it blocks every domain it could still land in.
      for (Symbol domain : group.domains) {
        text.assign(domain.str());
        if (requirements.allows(key, text)) group.counts[domain] += delta;
      }
    } else if (const std::string* value = single_value(requirements, key)) {
      const Symbol known = find_domain(group, *value);
      group.counts[known.empty() ? Symbol(*value) : known] += delta;
    }
  }
}

void Topology::retract(const ClaimTopology& claim, const RequirementSet& requirements,
                       const std::vector<Taint>& taints) {
  contribute(claim, requirements, taints, -1);
}

void Topology::apply(const ClaimTopology& claim, const RequirementSet& requirements,
                     const std::vector<Taint>& taints) {
  contribute(claim, requirements, taints, +1);
}

}  // namespace scalewright::provisioning
