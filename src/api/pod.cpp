#include "api/pod.h"

namespace scalewright {

// The rule of resourcehelper.PodRequests: sidecars (restartable init containers) run beside the app containers
// and beside every init container that starts after them; an ordinary init container runs alone with the
// sidecars started before it. The pod needs the larger of the two peaks.
ResourceList Pod::effective_requests() const {
  ResourceList running;
  for (const Container& c : spec.containers) running += c.requests;
  ResourceList sidecars;
  ResourceList init_peak;
  for (const Container& c : spec.init_containers) {
    if (c.is_sidecar()) {
      running += c.requests;
      sidecars += c.requests;
      init_peak = ResourceList::max(init_peak, sidecars);
    } else {
      init_peak = ResourceList::max(init_peak, sidecars + c.requests);
    }
  }
  ResourceList total = ResourceList::max(running, init_peak);
  total += spec.overhead;
  total.set(resource_names::pods(), 1);
  return total;
}

std::vector<ContainerPort> Pod::host_ports() const {
  std::vector<ContainerPort> out;
  auto collect = [&out](const Container& c) {
    for (const ContainerPort& p : c.ports) {
      if (p.host_port > 0) out.push_back(p);
    }
  };
  for (const Container& c : spec.containers) collect(c);
  // Sidecars hold their ports for the pod's whole life; ordinary init containers have exited before it runs.
  for (const Container& c : spec.init_containers) {
    if (c.is_sidecar()) collect(c);
  }
  return out;
}

bool Pod::is_daemonset_pod() const {
  const OwnerReference* owner = meta.controller();
  return owner != nullptr && owner->kind == "DaemonSet";
}

}  // namespace scalewright
