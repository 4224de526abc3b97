#include "api/meta.h"

#include <algorithm>

namespace scalewright {

const OwnerReference* ObjectMeta::controller() const {
  auto it = std::find_if(owner_references.begin(), owner_references.end(),
                         [](const OwnerReference& o) { return o.controller; });
  return it == owner_references.end() ? nullptr : &*it;
}

std::string ObjectMeta::key() const { return namespace_.empty() ? name : namespace_ + "/" + name; }

std::optional<TaintEffect> parse_taint_effect(std::string_view text) {
  if (text == "NoSchedule") return TaintEffect::NoSchedule;
  if (text == "PreferNoSchedule") return TaintEffect::PreferNoSchedule;
  if (text == "NoExecute") return TaintEffect::NoExecute;
  return std::nullopt;
}

bool ObjectMeta::annotated_true(std::string_view key) const {
  auto it = annotations->find(std::string(key));
  return it != annotations->end() && it->second == "true";
}

std::string_view to_string(TaintEffect effect) {
  switch (effect) {
    case TaintEffect::NoSchedule: return "NoSchedule";
    case TaintEffect::PreferNoSchedule: return "PreferNoSchedule";
    case TaintEffect::NoExecute: return "NoExecute";
  }
  return "?";
}

std::string Taint::describe() const { return "{" + key + ": " + value + "}"; }

// As upstream's Toleration.ToleratesTaint: the effect (when given) and the key (when given) must match, then
// Exists tolerates any value and Equal only the same value.
bool Toleration::tolerates(const Taint& taint) const {
  if (effect && *effect != taint.effect) return false;
  if (!key.empty() && key != taint.key) return false;
  return op == TolerationOperator::Exists || value == taint.value;
}

bool tolerates_all(const std::vector<Toleration>& tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(), [&](const Toleration& t) { return t.tolerates(taint); });
}

std::string object_key(std::string_view kind, std::string_view namespace_, std::string_view name) {
  std::string key;
  key.reserve(kind.size() + namespace_.size() + name.size() + 2);
  key.append(kind).append("/").append(namespace_).append("/").append(name);
  return key;
}

std::string object_key(std::string_view kind, const ObjectMeta& meta) {
  return object_key(kind, meta.namespace_, meta.name);
}

}  // namespace scalewright
