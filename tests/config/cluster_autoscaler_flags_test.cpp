#include "config/cluster_autoscaler_flags.h"

#include <gtest/gtest.h>

#include "units.h"

namespace scalewright::config {
namespace {

AutoscalerOptions parse_ok(const std::vector<std::string>& args) {
  Result<AutoscalerOptions> parsed = parse_autoscaler_flags(args);
  EXPECT_TRUE(parsed.ok()) << parsed.error().message;
  return parsed.ok() ? *parsed : AutoscalerOptions{};
}

std::string parse_error(const std::vector<std::string>& args, std::size_t* at = nullptr) {
  Result<AutoscalerOptions> parsed = parse_autoscaler_flags(args, at);
  EXPECT_FALSE(parsed.ok()) << "expected an error";
  return parsed.ok() ? "" : parsed.error().message;
}


TEST(AutoscalerFlags, NoFlagsKeepsCaDefaults) {
  AutoscalerOptions o = parse_ok({});
  EXPECT_TRUE(o.nodes.empty());
  EXPECT_TRUE(o.auto_discovery.empty());
  EXPECT_EQ(o.expanders, std::vector<std::string>{"least-waste"});
  EXPECT_EQ(o.scan_interval, Duration(10'000));
  EXPECT_EQ(o.max_nodes_total, 0);
  EXPECT_EQ(o.cores_total_min, 0);
  EXPECT_EQ(o.cores_total_max, 320'000);
  EXPECT_EQ(o.memory_total_min_gib, 0);
  EXPECT_EQ(o.memory_total_max_gib, 6'400'000);
  EXPECT_FALSE(o.balance_similar_node_groups);
  EXPECT_EQ(o.new_pod_scale_up_delay, Duration(0));
  EXPECT_EQ(o.max_node_provision_time, 15 * kMinute);
  EXPECT_EQ(o.initial_node_group_backoff, 5 * kMinute);
  EXPECT_EQ(o.max_node_group_backoff, 30 * kMinute);
  EXPECT_EQ(o.node_group_backoff_reset_timeout, 180 * kMinute);
  EXPECT_EQ(o.max_nodes_per_scaleup, 1000);
  EXPECT_TRUE(o.scale_down_enabled);
  EXPECT_TRUE(o.scale_down_unready_enabled);
  EXPECT_DOUBLE_EQ(o.scale_down_utilization_threshold, 0.5);
  EXPECT_DOUBLE_EQ(o.scale_down_gpu_utilization_threshold, 0.5);
  EXPECT_EQ(o.scale_down_unneeded_time, 10 * kMinute);
  EXPECT_EQ(o.scale_down_unready_time, 20 * kMinute);
  EXPECT_EQ(o.scale_down_delay_after_add, 10 * kMinute);
  EXPECT_FALSE(o.scale_down_delay_after_delete.has_value());  // the scan interval
  EXPECT_EQ(o.scale_down_delay_after_failure, 3 * kMinute);
  EXPECT_TRUE(o.skip_nodes_with_local_storage);
  EXPECT_TRUE(o.skip_nodes_with_system_pods);
  EXPECT_TRUE(o.skip_nodes_with_custom_controller_pods);
  EXPECT_FALSE(o.ignore_daemonsets_utilization);
  EXPECT_FALSE(o.ignore_mirror_pods_utilization);
  EXPECT_EQ(o.max_scale_down_parallelism, 10);
  EXPECT_EQ(o.max_drain_parallelism, 1);
  EXPECT_EQ(o.max_graceful_termination, Duration(600'000));
  EXPECT_EQ(o.max_pod_eviction_time, Duration(120'000));
  EXPECT_EQ(o.ok_total_unready_count, 3);
  EXPECT_EQ(o.max_total_unready_percentage, 45);
  EXPECT_EQ(o.max_empty_bulk_delete, 10);
  EXPECT_TRUE(o.ignored_flags.empty());
}

TEST(AutoscalerFlags, EveryFlagWithAValue) {
  AutoscalerOptions o = parse_ok({
      "--nodes=1:10:ng-a",
      "--nodes=0:5:ng-b",
      "--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod",
      "--expander=priority,least-waste",
      "--scan-interval=30s",
      "--max-nodes-total=100",
      "--cores-total=8:640",
      "--memory-total=16:2560",
      "--balance-similar-node-groups",
      "--new-pod-scale-up-delay=5s",
      "--max-node-provision-time=10m",
      "--initial-node-group-backoff-duration=1m",
      "--max-node-group-backoff-duration=10m",
      "--node-group-backoff-reset-timeout=1h",
      "--max-nodes-per-scaleup=50",
      "--scale-down-enabled=false",
      "--scale-down-unready-enabled=false",
      "--scale-down-utilization-threshold=0.65",
      "--scale-down-gpu-utilization-threshold=0.3",
      "--scale-down-unneeded-time=5m",
      "--scale-down-unready-time=15m",
      "--scale-down-delay-after-add=2m",
      "--scale-down-delay-after-delete=30s",
      "--scale-down-delay-after-failure=1m30s",
      "--skip-nodes-with-local-storage=false",
      "--skip-nodes-with-system-pods=false",
      "--skip-nodes-with-custom-controller-pods=false",
      "--ignore-daemonsets-utilization",
      "--ignore-mirror-pods-utilization=true",
      "--max-scale-down-parallelism=4",
      "--max-drain-parallelism=2",
      "--max-graceful-termination-sec=120",
      "--max-empty-bulk-delete=3",
      "--max-pod-eviction-time=30s",
      "--ok-total-unready-count=0",
      "--max-total-unready-percentage=12.5",
  });
  ASSERT_EQ(o.nodes.size(), 2u);
  EXPECT_EQ(o.nodes[0].min_size, 1);
  EXPECT_EQ(o.nodes[0].max_size, 10);
  EXPECT_EQ(o.nodes[0].name, "ng-a");
  EXPECT_EQ(o.nodes[1].name, "ng-b");
  EXPECT_EQ(o.nodes[1].min_size, 0);
  // Kept as given, for the provider to read (cloud/aws reads asg:tag=...).
  EXPECT_EQ(o.auto_discovery,
            (std::vector<std::string>{"asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod"}));
  EXPECT_EQ(o.expanders, (std::vector<std::string>{"priority", "least-waste"}));
  EXPECT_EQ(o.scan_interval, Duration(30'000));
  EXPECT_EQ(o.max_nodes_total, 100);
  EXPECT_EQ(o.cores_total_min, 8);
  EXPECT_EQ(o.cores_total_max, 640);
  EXPECT_EQ(o.memory_total_min_gib, 16);
  EXPECT_EQ(o.memory_total_max_gib, 2560);
  EXPECT_TRUE(o.balance_similar_node_groups);
  EXPECT_EQ(o.new_pod_scale_up_delay, Duration(5'000));
  EXPECT_EQ(o.max_node_provision_time, 10 * kMinute);
  EXPECT_EQ(o.initial_node_group_backoff, kMinute);
  EXPECT_EQ(o.max_node_group_backoff, 10 * kMinute);
  EXPECT_EQ(o.node_group_backoff_reset_timeout, 60 * kMinute);
  EXPECT_EQ(o.max_nodes_per_scaleup, 50);
  EXPECT_FALSE(o.scale_down_enabled);
  EXPECT_FALSE(o.scale_down_unready_enabled);
  EXPECT_DOUBLE_EQ(o.scale_down_utilization_threshold, 0.65);
  EXPECT_DOUBLE_EQ(o.scale_down_gpu_utilization_threshold, 0.3);
  EXPECT_EQ(o.scale_down_unneeded_time, 5 * kMinute);
  EXPECT_EQ(o.scale_down_unready_time, 15 * kMinute);
  EXPECT_EQ(o.scale_down_delay_after_add, 2 * kMinute);
  EXPECT_EQ(o.scale_down_delay_after_delete, Duration(30'000));
  EXPECT_EQ(o.scale_down_delay_after_failure, Duration(90'000));
  EXPECT_FALSE(o.skip_nodes_with_local_storage);
  EXPECT_FALSE(o.skip_nodes_with_system_pods);
  EXPECT_FALSE(o.skip_nodes_with_custom_controller_pods);
  EXPECT_TRUE(o.ignore_daemonsets_utilization);
  EXPECT_TRUE(o.ignore_mirror_pods_utilization);
  EXPECT_EQ(o.max_scale_down_parallelism, 4);
  EXPECT_EQ(o.max_drain_parallelism, 2);
  EXPECT_EQ(o.max_graceful_termination, Duration(120'000));
  EXPECT_EQ(o.max_pod_eviction_time, Duration(30'000));
  EXPECT_EQ(o.ok_total_unready_count, 0);
  EXPECT_EQ(o.max_total_unready_percentage, 12.5);
  EXPECT_EQ(o.max_empty_bulk_delete, 3);
}

TEST(AutoscalerFlags, BooleansAsBareFlagOrWithAValue) {
  EXPECT_TRUE(parse_ok({"--balance-similar-node-groups"}).balance_similar_node_groups);
  EXPECT_TRUE(parse_ok({"--balance-similar-node-groups=true"}).balance_similar_node_groups);
  EXPECT_FALSE(parse_ok({"--balance-similar-node-groups=false"}).balance_similar_node_groups);
  EXPECT_FALSE(parse_ok({"--scale-down-enabled=0"}).scale_down_enabled);
  EXPECT_EQ(parse_error({"--scale-down-enabled=maybe"}),
            "flag --scale-down-enabled: \"maybe\" is not a boolean (expected true or false)");
}

TEST(AutoscalerFlags, ValueInTheNextArgumentAndTheLastOneWins) {
  AutoscalerOptions o = parse_ok({"--scan-interval", "20s", "--nodes", "1:3:ng-a", "--scan-interval=15s"});
  EXPECT_EQ(o.scan_interval, Duration(15'000));
  ASSERT_EQ(o.nodes.size(), 1u);
  EXPECT_EQ(o.nodes[0].name, "ng-a");
}

TEST(AutoscalerFlags, ContainerCommandSkipsTheBinary) {
  AutoscalerOptions o = parse_ok({"./cluster-autoscaler", "--v=4", "--nodes=1:3:ng-a"});
  EXPECT_EQ(o.nodes.size(), 1u);
  EXPECT_EQ(parse_ok({"/usr/local/bin/cluster-autoscaler", "--nodes=1:3:ng-a"}).nodes.size(), 1u);
  EXPECT_EQ(parse_ok({"cluster-autoscaler"}).nodes.size(), 0u);
}

TEST(AutoscalerFlags, FlagsWithoutEffectAreListedInOrderOnce) {
  AutoscalerOptions o = parse_ok({"--cloud-provider=aws", "--v=4", "--logtostderr", "--stderrthreshold=info",
                                  "--aws-use-static-instance-list=false", "--v", "2", "-v=3", "--nodes=1:3:ng-a",
                                  "--ignore-taint=a", "--ignore-taint=b"});
  EXPECT_EQ(o.ignored_flags, (std::vector<std::string>{"--v", "--logtostderr", "--stderrthreshold",
                                                       "--aws-use-static-instance-list", "--ignore-taint"}));
  EXPECT_EQ(o.nodes.size(), 1u);
}

TEST(AutoscalerFlags, CloudProviderIsRecordedForTheSimulator) {
  // The simulator's groups depend on it: Cluster API's objects among the files with clusterapi.
  EXPECT_EQ(parse_ok({"./cluster-autoscaler", "--cloud-provider=clusterapi"}).cloud_provider, "clusterapi");
  EXPECT_EQ(parse_ok({"--cloud-provider", "aws", "--cloud-provider=clusterapi"}).cloud_provider, "clusterapi");
  EXPECT_EQ(parse_ok({"--v=4"}).cloud_provider, "");
  EXPECT_TRUE(parse_ok({"--cloud-provider=clusterapi"}).ignored_flags.empty());
}

TEST(AutoscalerFlags, NodesFlagErrors) {
  std::size_t at = 99;
  EXPECT_EQ(parse_error({"--v=2", "--nodes=1:x:ng"}, &at),
            "flag --nodes: \"1:x:ng\": max size \"x\" is not an integer (expected MIN:MAX:NAME)");
  EXPECT_EQ(at, 1u);
  EXPECT_EQ(parse_error({"--nodes=y:3:ng"}),
            "flag --nodes: \"y:3:ng\": min size \"y\" is not an integer (expected MIN:MAX:NAME)");
  EXPECT_EQ(parse_error({"--nodes=1:3"}), "flag --nodes: \"1:3\": needs three parts (expected MIN:MAX:NAME)");
  EXPECT_EQ(parse_error({"--nodes=5:3:ng"}),
            "flag --nodes: \"5:3:ng\": max size must not be less than min size (expected MIN:MAX:NAME)");
  EXPECT_EQ(parse_error({"--nodes=-1:3:ng"}),
            "flag --nodes: \"-1:3:ng\": min size must not be negative (expected MIN:MAX:NAME)");
  EXPECT_EQ(parse_error({"--nodes=1:3:"}),
            "flag --nodes: \"1:3:\": the group name is empty (expected MIN:MAX:NAME)");
  // The name is everything after the second colon, as CA splits it.
  Result<StaticNodeGroup> g = parse_nodes_flag("0:2:arn:aws:autoscaling:ng");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->name, "arn:aws:autoscaling:ng");
}

TEST(AutoscalerFlags, AutoDiscoverySpecsAndBalancingIgnoreLabelsRepeat) {
  AutoscalerOptions o = parse_ok({"--node-group-auto-discovery=asg:tag=team=web",
                                  "--node-group-auto-discovery=clusterapi:namespace=default",
                                  "--balancing-ignore-label=example.com/pool", "--balancing-ignore-label",
                                  "example.com/rack"});
  EXPECT_EQ(o.auto_discovery, (std::vector<std::string>{"asg:tag=team=web", "clusterapi:namespace=default"}));
  EXPECT_EQ(o.balancing_ignore_labels, (std::vector<std::string>{"example.com/pool", "example.com/rack"}));
  EXPECT_EQ(parse_error({"--node-group-auto-discovery=namePrefix=ng"}),
            "flag --node-group-auto-discovery: \"namePrefix=ng\": expected DISCOVERER:SPEC (asg:tag=KEY[=VALUE],... "
            "on AWS)");
  EXPECT_EQ(parse_error({"--balancing-ignore-label="}), "flag --balancing-ignore-label: needs a value");
}

TEST(AutoscalerFlags, MalformedValuesNameTheFlag) {
  EXPECT_EQ(parse_error({"--scan-interval=10"}), "flag --scan-interval: invalid duration \"10\"");
  EXPECT_EQ(parse_error({"--scan-interval=0s"}), "flag --scan-interval: must be positive");
  EXPECT_EQ(parse_error({"--max-nodes-total=ten"}), "flag --max-nodes-total: \"ten\" is not an integer");
  EXPECT_EQ(parse_error({"--max-nodes-total=-1"}), "flag --max-nodes-total: must not be negative, got -1");
  EXPECT_EQ(parse_error({"--cores-total=8"}), "flag --cores-total: \"8\" is not MIN:MAX");
  EXPECT_EQ(parse_error({"--memory-total=10:5"}), "flag --memory-total: \"10:5\": max must not be less than min");
  EXPECT_EQ(parse_error({"--scale-down-utilization-threshold=1.5"}),
            "flag --scale-down-utilization-threshold: must be between 0 and 1, got 1.5");
  EXPECT_EQ(parse_error({"--expander=cheapest"}),
            "flag --expander: unknown expander \"cheapest\" (expected random, most-pods, least-waste, price, "
            "priority, least-nodes, grpc, least-cost)");
  EXPECT_EQ(parse_error({"--max-total-unready-percentage=145"}),
            "flag --max-total-unready-percentage: must be between 0 and 100, got 145");
  EXPECT_EQ(parse_error({"--max-graceful-termination-sec=10m"}),
            "flag --max-graceful-termination-sec: \"10m\" is not an integer");
}

TEST(AutoscalerFlags, UnknownFlagsAndStrayArgumentsAreErrorsAtTheirIndex) {
  std::size_t at = 99;
  EXPECT_EQ(parse_error({"./cluster-autoscaler", "--v=4", "--scale-down-enable=false"}, &at),
            "unknown flag --scale-down-enable");
  EXPECT_EQ(at, 2u);
  EXPECT_EQ(parse_error({"--nodes=1:2:a", "stray"}, &at), "unexpected argument \"stray\" (flags are --name=value)");
  EXPECT_EQ(at, 1u);
  EXPECT_EQ(parse_error({"--v=1", "--scan-interval"}, &at), "flag --scan-interval: needs a value");
  EXPECT_EQ(at, 1u);
  at = 99;
  EXPECT_EQ(parse_error({"--scan-interval=1m", "--scan-interval", "soon"}, &at),
            "flag --scan-interval: invalid duration \"soon\"");
  EXPECT_EQ(at, 1u);
}

TEST(AutoscalerFlags, IgnoredListHasNoFlagScalewrightReads) {
  const auto& ignored = ignored_autoscaler_flags();
  EXPECT_TRUE(std::is_sorted(ignored.begin(), ignored.end()));
  for (std::string_view read : {"nodes", "expander", "scale-down-enabled", "scale-down-unready-enabled",
                                "max-graceful-termination-sec", "max-pod-eviction-time", "cloud-provider"}) {
    EXPECT_FALSE(std::binary_search(ignored.begin(), ignored.end(), read)) << read;
  }
  EXPECT_TRUE(std::binary_search(ignored.begin(), ignored.end(), "cloud-config"));
}

}  // namespace
}  // namespace scalewright::config
