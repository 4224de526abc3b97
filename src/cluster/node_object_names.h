#pragma once
// The Node object behind each node the state names otherwise. The state and the engine name a NodeClaim's node
// after its NodeClaim, as the simulator does; on a real cloud the kubelet registers the Node under the instance's
// hostname (EKS: ip-10-0-1-2.us-west-2.compute.internal), and Karpenter links the two by spec.providerID. The
// observer links them as it finds them; it and the writer translate at the edge, one name each way.
#include <string>
#include <string_view>
#include <unordered_map>

namespace scalewright::cluster {

class NodeObjectNames {
 public:
  // The node the state holds as `record` is the Node object `object`.
  void link(const std::string& record, const std::string& object);
  void unlink(const std::string& record);

  // The Node object's name of the state's node `record` (the same name when not linked).
  std::string object_of(const std::string& record) const;
  // The state's name of the Node object `object` (the same name when not linked).
  std::string record_of(const std::string& object) const;
  bool linked(const std::string& record) const { return object_of_.contains(record); }
  bool empty() const { return object_of_.empty(); }

  // `text` with each "node <record>" of a linked record naming its Node object instead: what a user sees in
  // `kubectl get nodes` is what logs and Events name.
  std::string in_text(std::string text) const;

 private:
  std::unordered_map<std::string, std::string> object_of_;  // record -> Node object
  std::unordered_map<std::string, std::string> record_of_;  // Node object -> record
};

}  // namespace scalewright::cluster
