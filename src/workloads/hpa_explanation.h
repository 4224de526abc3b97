#pragma once
// Why one sync of an HPA ended where it did, in words and numbers, for `scalewright explain` and the HPA's Events
// in `scalewright run`: each metric against its target, the usage ratio against the tolerance and the count it
// asked for, then what stabilization and the limits made of the recommendation.
#include <string>

#include "workloads/hpa.h"

namespace scalewright::workloads {

// "cpu 188% of 50% target: ratio 3.76, outside the tolerance 0.90–1.10, asks for 12; ScaleUpLimit (the desired
// replica count is increasing faster than the maximum scale rate): 7; scaled 3 → 7".
std::string explain_hpa_decision(const HpaDecision& decision);

}  // namespace scalewright::workloads
