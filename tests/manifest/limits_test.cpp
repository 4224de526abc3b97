// What a manifest file may be (issue [5]): a size and a nesting depth beyond which it is refused with that
// reason, no stack overflow however deep the nesting, and keys given twice in one mapping refused as the API
// server refuses them. Lines and columns are 1-based, as editors show them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "decode_helpers.h"

namespace scalewright::testing {
namespace {

std::string repeat(std::string_view text, int times) {
  std::string out;
  out.reserve(text.size() * static_cast<std::size_t>(times));
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

std::string decode_error_with(std::string_view yaml, const ManifestLimits& limits) {
  Result<ManifestSet> decoded = decode_manifests(yaml, "test.yaml", limits);
  EXPECT_FALSE(decoded.ok()) << "expected an error";
  return decoded.ok() ? "" : decoded.error().message;
}

// --- nesting depth (default limit: 1,000 levels) -------------------------------------------------------------

TEST(NestingLimit, FlowSequencesTenThousandDeepAreRefusedAtTheFirstLevelOverTheLimit) {
  // The 1,001st "[" is at column 1001.
  EXPECT_EQ(decode_error(repeat("[", 10'000) + repeat("]", 10'000)),
            "test.yaml doc 1: nested deeper than the limit of 1000 levels at line 1, column 1001");
}

TEST(NestingLimit, AMillionUnclosedFlowSequencesCostNoStack) {
  EXPECT_EQ(decode_error(repeat("[", 1'000'000)),
            "test.yaml doc 1: nested deeper than the limit of 1000 levels at line 1, column 1001");
}

TEST(NestingLimit, AMillionFlowMappings) {
  // "a: " opens a block mapping at column 1 (level 1); the k-th "{a: " is level k + 1 and starts at column
  // 4 + 4 (k - 1): level 1,001 is k = 1,000, column 4,000.
  EXPECT_EQ(decode_error("a: " + repeat("{a: ", 1'000'000)),
            "test.yaml doc 1: nested deeper than the limit of 1000 levels at line 1, column 4000");
}

TEST(NestingLimit, AMillionBlockSequencesOnOneLine) {
  // "- - - ... x": the k-th "- " opens level k at column 2k - 1; level 1,001 is at column 2,001.
  EXPECT_EQ(decode_error(repeat("- ", 1'000'000) + "x\n"),
            "test.yaml doc 1: nested deeper than the limit of 1000 levels at line 1, column 2001");
}

TEST(NestingLimit, BlockMappingsIndentedLevelByLevel) {
  // Level k is "a:" on line k indented by 2 (k - 1): level 1,001 starts on line 1,001 at column 2,001.
  std::string yaml;
  for (int level = 0; level < 1'500; ++level) yaml += std::string(2 * static_cast<std::size_t>(level), ' ') + "a:\n";
  EXPECT_EQ(decode_error(yaml),
            "test.yaml doc 1: nested deeper than the limit of 1000 levels at line 1001, column 2001");
}

TEST(NestingLimit, ExactlyTheLimitIsReadAndThenDecoded) {
  // 1,000 levels are valid YAML; the document is then decoded and is not an object.
  EXPECT_EQ(decode_error(repeat("[", 1'000) + repeat("]", 1'000)), "test.yaml doc 1: expected a mapping, got a list");
}

TEST(NestingLimit, ALowerLimitNamesTheDocumentAndLineInAMultiDocumentFile) {
  // With 5 levels allowed, doc 2's root mapping is level 1, spec 2, template 3, template.spec 4, the
  // containers list 5 (from the "-" at column 7 of line 13) and its first item, from "name" at column 9, level 6.
  const std::string yaml = R"(apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    spec:
      containers:
      - name: c
)";
  EXPECT_EQ(decode_error_with(yaml, ManifestLimits{.max_bytes = 1 << 20, .max_depth = 5}),
            "test.yaml doc 2: nested deeper than the limit of 5 levels at line 13, column 9");
}

// --- size (default limit: 256 MiB) ----------------------------------------------------------------------------

TEST(SizeLimit, TextOverTheLimitIsRefusedAndTheLimitItselfIsRead) {
  const std::string node = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n";  // 15 + 11 + 21 bytes
  ASSERT_EQ(node.size(), 47u);
  EXPECT_EQ(decode_error_with(node, ManifestLimits{.max_bytes = 46, .max_depth = 1000}),
            "test.yaml: 47 bytes is over the limit of 46 bytes for a manifest file");
  Result<ManifestSet> at_limit =
      decode_manifests(node, "test.yaml", ManifestLimits{.max_bytes = 47, .max_depth = 1000});
  ASSERT_TRUE(at_limit.ok()) << at_limit.error().message;
  EXPECT_EQ(at_limit->nodes.size(), 1u);
}

class SizeLimitFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("scalewright-limits-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(SizeLimitFile, AFileOverTheDefaultLimitIsRefusedBeforeItIsRead) {
  // A sparse file of 256 MiB + 1 byte: refused from its size, so no 256 MiB is read or written.
  std::filesystem::path path = dir_ / "huge.yaml";
  std::ofstream(path).put('#');
  std::filesystem::resize_file(path, 256u * 1024 * 1024 + 1);
  Result<ManifestSet> loaded = load_manifest_file(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().message,
            path.string() + ": 268435457 bytes is over the limit of 268435456 bytes (256 MiB) for a manifest file");
}

TEST_F(SizeLimitFile, ASmallConfiguredLimit) {
  std::filesystem::path path = dir_ / "nodes.yaml";
  std::ofstream(path) << "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n";  // 47 bytes
  Result<ManifestSet> loaded = load_manifest_file(path, ManifestLimits{.max_bytes = 40, .max_depth = 1000});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().message, path.string() + ": 47 bytes is over the limit of 40 bytes for a manifest file");
}

// --- keys given twice -----------------------------------------------------------------------------------------

const std::string kNamespaceDoc = "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n";  // lines 1-4
const std::string kOtherNamespaceDoc = "apiVersion: v1\nkind: Namespace\nmetadata: {name: ops}\n---\n";  // 4 lines

TEST(DuplicateKeys, ReplicasTwiceNamesTheDocumentObjectPathAndBothLines) {
  EXPECT_EQ(decode_error(kNamespaceDoc + R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  replicas: 7
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c}]}
)"),
            "test.yaml doc 2 Deployment/web: spec.replicas: duplicate field \"replicas\" at line 10 (first at line 9)");
}

TEST(DuplicateKeys, InAFlowMappingInAListItem) {
  EXPECT_EQ(decode_error(R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
  - name: d
    resources: {requests: {cpu: 1, memory: 1Gi, cpu: 2}}
)"),
            "test.yaml doc 1 Pod/p: spec.containers[1].resources.requests.cpu: duplicate field \"cpu\" at line 8 "
            "(first at line 8)");
}

TEST(DuplicateKeys, BeforeTheNameIsReadTheObjectIsStillNamed) {
  // The repeated key comes before metadata.name: the error waits for the whole document to name the object.
  EXPECT_EQ(decode_error("kind: Node\nkind: Node\napiVersion: v1\nmetadata: {name: n1}\n"),
            "test.yaml doc 1 Node/n1: kind: duplicate field \"kind\" at line 2 (first at line 1)");
}

TEST(DuplicateKeys, InAListItemIsNamedByTheItem) {
  EXPECT_EQ(decode_error(R"(apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}}
- apiVersion: v1
  kind: Node
  metadata:
    name: n2
    labels: {zone: a, zone: b}
)"),
            "test.yaml doc 1 Node/n2: metadata.labels.zone: duplicate field \"zone\" at line 9 (first at line 9)");
}

TEST(DuplicateKeys, AfterANestedMappingHasEnded) {
  EXPECT_EQ(decode_error(R"(apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {name: a, zone: b}
  name: n2
)"),
            "test.yaml doc 1 Node/n1: metadata.name: duplicate field \"name\" at line 6 (first at line 4)");
}

TEST(DuplicateKeys, InAMappingOfManyKeys) {
  // Beyond 16 keys a mapping's keys are hashed rather than scanned: k0..k19 on lines 6..25, then k7 again.
  std::string yaml = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n";
  for (int i = 0; i < 20; ++i) yaml += "    k" + std::to_string(i) + ": v\n";
  yaml += "    k7: w\n";
  EXPECT_EQ(decode_error(yaml),
            "test.yaml doc 1 Node/n1: metadata.labels.k7: duplicate field \"k7\" at line 26 (first at line 13)");
}

TEST(DuplicateKeys, TheSameKeyInDifferentMappingsIsNotADuplicate) {
  ManifestSet set = decode_ok(R"(apiVersion: v1
kind: Pod
metadata: {name: p, labels: {name: p}}
spec:
  containers:
  - {name: a, resources: {requests: {cpu: 1}}}
  - {name: b, resources: {requests: {cpu: 1}}}
)");
  ASSERT_EQ(set.pods.size(), 1u);
  EXPECT_EQ(set.pods[0].spec.containers.size(), 2u);
}

// --- the rest of what the reader checks -----------------------------------------------------------------------

TEST(Aliases, AnAnchoredMappingIsReadWhereItIsNamed) {
  ManifestSet set = decode_ok(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: &labels {app: web}}
  template:
    metadata: {labels: *labels}
    spec: {containers: [{name: c}]}
)");
  ASSERT_EQ(set.workloads.size(), 1u);
}

TEST(Aliases, AnAliasInsideTheNodeItNamesIsRefused) {
  // A cycle: yaml-cpp would build a node that contains itself.
  EXPECT_EQ(decode_error("a: &x [b, *x]\n"),
            "test.yaml doc 1: alias *x inside the node it refers to at line 1, column 11");
}

TEST(SyntaxErrors, AnErrorInTheThirdDocumentNamesItsLineInTheFile) {
  // The flow mapping on line 11 is closed by "]" at column 19: yaml-cpp's message, at the line in the whole file
  // (libyaml finds it, yaml-cpp reads that document again for its wording).
  EXPECT_EQ(decode_error(kNamespaceDoc + kOtherNamespaceDoc + "apiVersion: v1\nkind: Pod\nmetadata: {name: p]\n"),
            "test.yaml: invalid YAML at line 11, column 19: illegal flow end");
}

TEST(MultiDocument, AnInvalidFieldInTheThirdDocumentNamesIt) {
  EXPECT_EQ(decode_error(kNamespaceDoc + kOtherNamespaceDoc + "apiVersion: v1\nkind: Node\nmetadata: {name: [n]}\n"),
            "test.yaml doc 3 Node: metadata.name: expected a string, got a list");
}

}  // namespace
}  // namespace scalewright::testing
