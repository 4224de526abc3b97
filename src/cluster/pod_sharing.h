#pragma once
// The pods of one ReplicaSet (or Job, StatefulSet, ...) decode to equal containers, tolerations, volumes, owner
// references, annotations and, while they run, conditions. The observer keeps each such part once, shared by the
// pods that have it (api/copy_on_write.h): a new pod's part is compared with the one its controller's last pod had,
// and takes it on when equal. One candidate per controller and part, held weakly: what no pod holds is not kept.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/pod.h"

namespace scalewright::cluster {

class PodPartSharing {
 public:
  // Makes the pod's parts its controller's last pod's where they are equal, or the candidates for its next pods.
  // A pod without a controller keeps its own.
  void share(Pod& pod);

 private:
  template <typename T>
  class Pool {
   public:
    void share(CopyOnWrite<T>& part, const std::string& owner);

   private:
    std::unordered_map<std::string, std::weak_ptr<T>> by_owner_;
    std::size_t swept_at_ = 0;  // the pool's size after the last sweep of parts nobody holds
  };

  Pool<std::vector<Container>> containers_;
  Pool<std::vector<Container>> init_containers_;
  Pool<std::vector<Toleration>> tolerations_;
  Pool<std::vector<Volume>> volumes_;
  Pool<std::vector<OwnerReference>> owner_references_;
  Pool<std::map<std::string, std::string>> annotations_;
  Pool<std::vector<PodCondition>> conditions_;
};

}  // namespace scalewright::cluster
