#include "api/pod.h"

namespace scalewright {

namespace {

// The rule of resourcehelper.PodRequests: sidecars (restartable init containers) run beside the app containers
// and beside every init container that starts after them; an ordinary init container runs alone with the
// sidecars started before it. The pod needs the larger of the two peaks. `plus(sum, term, where)` adds each term;
// only sums can pass int64's limit (the peaks are maxima of them).
template <typename Plus>
ResourceList sum_requests(const PodSpec& spec, Plus&& plus) {
  using Part = RequestTerm::Part;
  ResourceList running;
  for (std::size_t i = 0; i < spec.containers->size(); ++i) {
    plus(running, (*spec.containers)[i].requests, RequestTerm{Part::Container, i});
  }
  ResourceList sidecars;
  ResourceList init_peak;
  for (std::size_t i = 0; i < spec.init_containers->size(); ++i) {
    const Container& c = (*spec.init_containers)[i];
    const RequestTerm where{Part::InitContainer, i};
    if (c.is_sidecar()) {
      plus(running, c.requests, where);
      plus(sidecars, c.requests, where);
      init_peak = ResourceList::max(init_peak, sidecars);
    } else {
      ResourceList alongside = sidecars;
      plus(alongside, c.requests, where);
      init_peak = ResourceList::max(init_peak, alongside);
    }
  }
  ResourceList total = ResourceList::max(running, init_peak);
  plus(total, spec.overhead, RequestTerm{Part::Overhead, 0});
  total.set(resource_names::pods(), 1);
  return total;
}

}  // namespace

ResourceList Pod::effective_requests() const {
  return sum_requests(spec, [](ResourceList& sum, const ResourceList& term, RequestTerm) { sum += term; });
}

std::optional<RequestOverflow> requests_overflow(const PodSpec& spec) {
  std::optional<RequestOverflow> first;
  sum_requests(spec, [&first](ResourceList& sum, const ResourceList& term, RequestTerm where) {
    if (!first) {
      if (std::optional<Symbol> resource = sum.first_overflow(term)) first = RequestOverflow{where, *resource};
    }
    sum += term;
  });
  return first;
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
