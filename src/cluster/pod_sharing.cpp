#include "cluster/pod_sharing.h"

namespace scalewright::cluster {

template <typename T>
void PodPartSharing::Pool<T>::share(CopyOnWrite<T>& part, const std::string& owner) {
  if (part.empty()) return;  // every empty part is one already
  auto [it, added] = by_owner_.try_emplace(owner);
  if (!added) {
    CopyOnWrite<T> candidate;
    if (candidate.adopt(it->second) && candidate == part) {
      part = std::move(candidate);
      return;
    }
  }
  it->second = part.handle();
  // Sweep the candidates no pod holds any more once the pool has doubled since the last sweep: gone controllers go.
  if (by_owner_.size() >= 2 * swept_at_ + 64) {
    std::erase_if(by_owner_, [](const auto& entry) { return entry.second.expired(); });
    swept_at_ = by_owner_.size();
  }
}

void PodPartSharing::share(Pod& pod) {
  const OwnerReference* controller = pod.meta.controller();
  if (controller == nullptr) return;
  const std::string owner = controller->uid.empty()
                                ? pod.meta.namespace_ + "/" + controller->kind + "/" + controller->name
                                : controller->uid;
  containers_.share(pod.spec.containers, owner);
  init_containers_.share(pod.spec.init_containers, owner);
  tolerations_.share(pod.spec.tolerations, owner);
  volumes_.share(pod.spec.volumes, owner);
  annotations_.share(pod.meta.annotations, owner);
  conditions_.share(pod.status.conditions, owner);
  owner_references_.share(pod.meta.owner_references, owner);  // last: `controller` points into it
}

}  // namespace scalewright::cluster
