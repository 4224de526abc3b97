#pragma once
// Decoding inline manifests in tests: the set when a test expects success, the one error line when it does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "manifest/manifest.h"
#include "units.h"

namespace scalewright::testing {


inline const std::string kTestData = std::string(SCALEWRIGHT_SOURCE_DIR) + "/tests/manifest/testdata";

// Decodes `yaml` as the file "test.yaml"; fails the test (and returns an empty set) when it does not decode.
inline ManifestSet decode_ok(std::string_view yaml) {
  Result<ManifestSet> decoded = decode_manifests(yaml, "test.yaml");
  EXPECT_TRUE(decoded.ok()) << decoded.error().message;
  return decoded.ok() ? std::move(decoded).value() : ManifestSet{};
}

// The error line for `yaml` decoded as "test.yaml"; fails the test when it decodes.
inline std::string decode_error(std::string_view yaml) {
  Result<ManifestSet> decoded = decode_manifests(yaml, "test.yaml");
  EXPECT_FALSE(decoded.ok()) << "expected an error";
  if (decoded.ok()) return "";
  const std::string& message = decoded.error().message;
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 0) << "one line: " << message;
  return message;
}

// The pod spec of a one-container Pod named `p`, with `extra` appended to its spec (indented by 2).
inline std::string pod_with(std::string_view extra) {
  return std::string(R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - {name: c, image: nginx}
)") + std::string(extra);
}

}  // namespace scalewright::testing
