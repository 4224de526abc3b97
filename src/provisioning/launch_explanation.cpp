#include "provisioning/launch_explanation.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "api/wording.h"
#include "provisioning/nodeclaim_builder.h"

namespace scalewright::provisioning {
namespace {

std::string why_excluded(OfferingExclusion exclusion, const cloud::InstanceType& type, const cloud::Offering& offering,
                         const UnavailableOfferings& unavailable) {
  switch (exclusion) {
    case OfferingExclusion::NotOffered:
      return "not offered now";
    case OfferingExclusion::CapacityType:
      return fmt::format("capacity type {} not allowed", cloud::to_string(offering.capacity_type));
    case OfferingExclusion::Zone:
      return fmt::format("zone {} not allowed", offering.zone);
    case OfferingExclusion::ZoneId:
      return fmt::format("zone id {} not allowed", offering.zone_id);
    case OfferingExclusion::InsufficientCapacity: {
      const std::optional<Instant> until = unavailable.until({type.name, offering.zone, offering.capacity_type});
      return fmt::format("insufficient capacity, not tried again before {}", format_time(until.value_or(Instant{})));
    }
    case OfferingExclusion::None:
      break;
  }
  return "allowed";
}

std::string offering_name(const cloud::InstanceType& type, const cloud::Offering& offering) {
  return fmt::format("{} {} {} ${:.4f}/h", type.name, offering.zone, cloud::to_string(offering.capacity_type),
                     offering.price_per_hour);
}


// What the claim is for: its pods, their requests, its NodePool.
std::string explain_purpose(const NewNodeClaim& claim, const std::string& purpose) {
  std::string out = fmt::format("for {}, requesting {}", purpose, describe_requests(claim.pod_requests));
  if (!claim.daemon_requests.is_zero()) {
    out += fmt::format(" plus DaemonSets {}", describe_requests(claim.daemon_requests));
  }
  out += fmt::format("; NodePool {}", claim.nodepool);
  if (!claim.passed_over.empty()) out += fmt::format(" (passed over: {})", claim.passed_over);
  return out;
}

// What it could launch and what it did: the types that hold the pods, the offering taken, the cheaper ones not.
std::string explain_offerings(const NewNodeClaim& claim, const LaunchChoice& choice,
                              const UnavailableOfferings& unavailable, Instant now) {
  std::string out;
  // One look at every offering of the types that can hold the pods: an allowed one prices its type (at its
  // cheapest allowed offering); one cheaper than the offering taken but excluded joins the group of what excluded
  // it, which keeps its cheapest offering. (An allowed on-demand offering below the spot price taken loses to spot
  // by Karpenter's rule.)
  struct Excluded {
    std::size_t count = 0;
    double cheapest = std::numeric_limits<double>::infinity();
    std::string example;
  };
  std::vector<std::pair<double, std::string>> types;
  std::map<std::string, Excluded> cheaper;
  for (const cloud::InstanceType* type : claim.instance_types) {
    std::optional<double> type_price;
    for (const cloud::Offering& offering : type->offerings) {
      const OfferingExclusion exclusion = offering_exclusion(*type, offering, claim.requirements, unavailable, now);
      if (exclusion == OfferingExclusion::None) {
        type_price = std::min(type_price.value_or(offering.price_per_hour), offering.price_per_hour);
        continue;
      }
      if (offering.price_per_hour >= choice.offering->price_per_hour) continue;
      Excluded& group = cheaper[why_excluded(exclusion, *type, offering, unavailable)];
      ++group.count;
      if (offering.price_per_hour < group.cheapest) {
        group.cheapest = offering.price_per_hour;
        group.example = offering_name(*type, offering);
      }
    }
    if (type_price) types.emplace_back(*type_price, type->name);
  }

  std::stable_sort(types.begin(), types.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> named;
  for (const auto& [price, name] : types) named.push_back(fmt::format("{} ${:.4f}", name, price));
  out += fmt::format("; {} can hold them, cheapest first: {}", plural(claim.instance_types.size(), "instance type"),
                     first_few(named));
  out += fmt::format("; launched {}, the cheapest allowed offering",
                     offering_name(*choice.instance_type, *choice.offering));
  std::vector<std::pair<double, std::string>> groups;
  for (const auto& [why, group] : cheaper) {
    groups.emplace_back(group.cheapest, group.count == 1 ? fmt::format("{}: {}", group.example, why)
                                                         : fmt::format("{} ({}, the cheapest {})", why,
                                                                       plural(group.count, "offering"), group.example));
  }
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (!groups.empty()) {
    std::vector<std::string> lines;
    for (auto& [price, line] : groups) lines.push_back(std::move(line));
    out += fmt::format("; cheaper offerings not taken: {}", first_few(lines));
  }
  return out;
}

}  // namespace

std::string explain_launch(const NewNodeClaim& claim, const LaunchChoice& choice, const std::string& purpose,
                           const UnavailableOfferings& unavailable, Instant now) {
  return explain_purpose(claim, purpose) + explain_offerings(claim, choice, unavailable, now);
}

std::string LaunchExplainer::explain(const NewNodeClaim& claim, const LaunchChoice& choice, const std::string& purpose,
                                     const UnavailableOfferings& unavailable, Instant now) {
  Scan scan{claim.nodepool,          claim.requirements.to_string(), claim.instance_types, choice.offering,
            unavailable.changes(), now};
  if (!last_ || last_->first != scan) {
    std::string offerings = explain_offerings(claim, choice, unavailable, now);
    last_.emplace(std::move(scan), std::move(offerings));
  }
  return explain_purpose(claim, purpose) + last_->second;
}

}  // namespace scalewright::provisioning
