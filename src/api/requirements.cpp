#include "api/requirements.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace scalewright {
namespace {

std::string join(const std::set<std::string>& values) {
  std::string out = "{";
  for (const std::string& v : values) out += (out.size() > 1 ? ", " : "") + v;
  return out + "}";
}

}  // namespace

ValueSet ValueSet::any() { return ValueSet{}; }

ValueSet ValueSet::none() {
  ValueSet s;
  s.complement_ = false;
  s.allows_absent_ = true;
  return s;
}

ValueSet ValueSet::of(std::set<std::string> values) {
  ValueSet s;
  s.complement_ = false;
  s.values_ = std::move(values);
  return s;
}

ValueSet ValueSet::all_but(std::set<std::string> values) {
  ValueSet s;
  s.values_ = std::move(values);
  s.allows_absent_ = true;
  return s;
}

ValueSet ValueSet::greater_than(std::int64_t bound) {
  ValueSet s;
  s.greater_than_ = bound;
  return s;
}

ValueSet ValueSet::less_than(std::int64_t bound) {
  ValueSet s;
  s.less_than_ = bound;
  return s;
}

ValueSet ValueSet::from(const LabelRequirement& requirement) {
  std::set<std::string> values;
  for (Symbol v : requirement.values) values.insert(v.string());
  switch (requirement.op) {
    case SelectorOperator::In: return of(std::move(values));
    case SelectorOperator::NotIn: return all_but(std::move(values));
    case SelectorOperator::Exists: return any();
    case SelectorOperator::DoesNotExist: return none();
    case SelectorOperator::Gt:
    case SelectorOperator::Lt: {
      // A bound that is not one integer can match no label value, as upstream's Gt/Lt.
      auto bound = values.size() == 1 ? parse_integer(*values.begin()) : std::nullopt;
      if (!bound) return of({});
      return requirement.op == SelectorOperator::Gt ? greater_than(*bound) : less_than(*bound);
    }
  }
  return any();
}

ValueSet ValueSet::intersect(const ValueSet& other) const {
  ValueSet out;
  if (complement_ && other.complement_) {
    out.complement_ = true;
    out.values_ = values_;
    out.values_.insert(other.values_.begin(), other.values_.end());
  } else {
    out.complement_ = false;
    const ValueSet& finite = complement_ ? other : *this;
    const ValueSet& filter = complement_ ? *this : other;
    for (const std::string& v : finite.values_) {
      if (filter.allows(v)) out.values_.insert(v);
    }
  }
  auto tighter = [](std::optional<std::int64_t> a, std::optional<std::int64_t> b, bool take_max) {
    if (!a) return b;
    if (!b) return a;
    return std::optional<std::int64_t>(take_max ? std::max(*a, *b) : std::min(*a, *b));
  };
  out.greater_than_ = tighter(greater_than_, other.greater_than_, true);
  out.less_than_ = tighter(less_than_, other.less_than_, false);
  if (!out.complement_) {
    std::erase_if(out.values_, [&](const std::string& v) { return !out.within_bounds(v); });
  }
  out.allows_absent_ = allows_absent_ && other.allows_absent_;
  return out;
}

bool ValueSet::within_bounds(const std::string& value) const {
  if (!greater_than_ && !less_than_) return true;
  auto n = parse_integer(value);
  if (!n) return false;
  return (!greater_than_ || *n > *greater_than_) && (!less_than_ || *n < *less_than_);
}

bool ValueSet::allows(const std::string& value) const {
  const bool listed = values_.count(value) > 0;
  return (complement_ ? !listed : listed) && within_bounds(value);
}

bool ValueSet::is_empty() const {
  if (!complement_) return values_.empty();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (greater_than_ && *greater_than_ == kMax) return true;
  if (less_than_ && *less_than_ == kMin) return true;
  if (!greater_than_ || !less_than_) return false;  // unbounded on one side: infinitely many integers left
  const std::int64_t low = *greater_than_;
  const std::int64_t high = *less_than_;
  if (low >= high || low + 1 >= high) return true;  // no integer strictly between (low + 1 cannot overflow here)
  // A short range can be used up by the excluded values (NotIn {5} with Gt 4 and Lt 6).
  if (static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low) - 1 > values_.size()) return false;
  for (std::int64_t v = low + 1; v < high; ++v) {
    if (!values_.count(std::to_string(v))) return false;
  }
  return true;
}

std::string ValueSet::to_string() const {
  std::string out;
  auto append = [&out](const std::string& part) { out += (out.empty() ? "" : " and ") + part; };
  if (!complement_) {
    append(values_.empty() ? "DoesNotExist" : "In " + join(values_));
  } else if (!values_.empty()) {
    append("NotIn " + join(values_));
  } else if (!greater_than_ && !less_than_) {
    append(allows_absent_ ? "any or absent" : "Exists");
  }
  if (complement_ && greater_than_) append("Gt " + std::to_string(*greater_than_));
  if (complement_ && less_than_) append("Lt " + std::to_string(*less_than_));
  return out;
}

RequirementSet RequirementSet::from_labels(const Labels& labels) {
  RequirementSet out;
  for (const auto& [key, value] : labels) out.add(key.string(), ValueSet::of({value.string()}));
  return out;
}

RequirementSet RequirementSet::from_term(const NodeSelectorTerm& term) {
  RequirementSet out;
  for (const LabelRequirement& r : term.match_expressions) out.add(r);
  return out;
}

void RequirementSet::add(const std::string& key, const ValueSet& values) {
  auto [it, inserted] = by_key_.try_emplace(key, values);
  if (!inserted) it->second = it->second.intersect(values);
}

void RequirementSet::add(const LabelRequirement& requirement) {
  add(requirement.key.string(), ValueSet::from(requirement));
}

RequirementSet RequirementSet::intersect(const RequirementSet& other) const {
  RequirementSet out = *this;
  for (const auto& [key, values] : other.by_key_) out.add(key, values);
  return out;
}

std::optional<std::string> RequirementSet::incompatibility(const RequirementSet& other) const {
  for (const auto& [key, mine] : by_key_) {
    const ValueSet* theirs = other.find(key);
    if (theirs == nullptr) continue;
    const ValueSet both = mine.intersect(*theirs);
    if (both.is_empty() && !both.allows_absent()) {
      return "key \"" + key + "\": " + mine.to_string() + " conflicts with " + theirs->to_string();
    }
  }
  return std::nullopt;
}

bool RequirementSet::unsatisfiable() const {
  return std::any_of(by_key_.begin(), by_key_.end(),
                     [](const auto& entry) { return entry.second.is_empty() && !entry.second.allows_absent(); });
}

const ValueSet* RequirementSet::find(const std::string& key) const {
  auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : &it->second;
}

bool RequirementSet::allows(const std::string& key, const std::string& value) const {
  const ValueSet* values = find(key);
  return values == nullptr || values->allows(value);
}

std::string RequirementSet::to_string() const {
  std::string out;
  for (const auto& [key, values] : by_key_) {
    if (!out.empty()) out += ", ";
    out += key + " " + values.to_string();
  }
  return out;
}

}  // namespace scalewright
