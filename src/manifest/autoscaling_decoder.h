#pragma once
// Workload autoscalers as users already apply them: HorizontalPodAutoscaler (autoscaling/v2 and v2beta2, and v1
// converted to one cpu Utilization metric) and KEDA's ScaledObject (keda.sh/v1alpha1). Each is validated as the
// API server (HPA) or KEDA's admission webhook and scalers (ScaledObject) would, so a file that loads here is one
// the cluster would accept.
#include <string>
#include <vector>

#include "api/autoscaling.h"
#include "manifest/field.h"

namespace scalewright::manifest {

HorizontalPodAutoscaler decode_horizontal_pod_autoscaler(const Field& object);

// `warnings` receives one line per trigger whose type has no scaler here: it is decoded and kept, but not
// validated or simulated ("spec.triggers[1]: trigger type kafka is not simulated"); the manifest decoder prefixes
// the file, document and object.
ScaledObject decode_scaled_object(const Field& object, std::vector<std::string>& warnings);

// behavior.scaleUp / behavior.scaleDown, shared by the HPA and a ScaledObject's
// advanced.horizontalPodAutoscalerConfig.behavior (KEDA copies it into the HPA it creates).
HpaBehavior decode_hpa_behavior(const Field& behavior);

}  // namespace scalewright::manifest
