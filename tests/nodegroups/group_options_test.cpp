#include "nodegroups/group_options.h"

#include <gtest/gtest.h>

#include "units.h"

namespace scalewright::nodegroups {
namespace {

// Reads one option as Cluster API's provider would (every name it knows), the problem "" when it parses.
std::string read_capi(std::string_view name, std::string_view value, GroupAutoscalingOptions& options) {
  return read_group_option(name, value, kClusterApiGroupOptions, options).value_or("");
}

TEST(GroupOptions, EachNameSetsItsFieldAndOnlyIt) {
  GroupAutoscalingOptions o;
  EXPECT_TRUE(o.empty());
  EXPECT_EQ(read_capi("scaledownutilizationthreshold", "0.3", o), "");
  EXPECT_EQ(read_capi("scaledowngpuutilizationthreshold", "+.25", o), "");  // ParseFloat takes a sign
  EXPECT_EQ(read_capi("scaledownunneededtime", "1m30s", o), "");
  EXPECT_EQ(read_capi("scaledownunreadytime", "0", o), "");
  EXPECT_EQ(read_capi("maxnodeprovisiontime", "20m", o), "");
  EXPECT_EQ(read_capi("maxnodestartuptime", "1h", o), "");
  EXPECT_EQ(o.scale_down_utilization_threshold, 0.3);
  EXPECT_EQ(o.scale_down_gpu_utilization_threshold, 0.25);
  EXPECT_EQ(o.scale_down_unneeded_time, 90 * kSecond);
  EXPECT_EQ(o.scale_down_unready_time, Duration{0});
  EXPECT_EQ(o.max_node_provision_time, 20 * kMinute);
  EXPECT_EQ(o.max_node_startup_time, 60 * kMinute);
  EXPECT_EQ(o.ignore_daemonsets_utilization, std::nullopt);
  EXPECT_FALSE(o.empty());
}

TEST(GroupOptions, BadValuesSayWhatIsWrongAndSetNothing) {
  GroupAutoscalingOptions o;
  EXPECT_EQ(read_capi("scaledownutilizationthreshold", "half", o), "not a number");
  EXPECT_EQ(read_capi("scaledownutilizationthreshold", "0.5.1", o), "not a number");
  EXPECT_EQ(read_capi("scaledownutilizationthreshold", "1.5", o), "not between 0 and 1");
  EXPECT_EQ(read_capi("scaledownutilizationthreshold", "-0.1", o), "not between 0 and 1");
  EXPECT_EQ(read_capi("scaledownutilizationthreshold", "nan", o), "not between 0 and 1");
  EXPECT_EQ(read_capi("scaledownunneededtime", "soon", o), "not a duration (\"10m\", \"1h30m\")");
  EXPECT_EQ(read_capi("scaledownunneededtime", "10", o), "not a duration (\"10m\", \"1h30m\")");  // no unit
  EXPECT_EQ(read_capi("maxnodeprovisiontime", "-5m", o), "negative");
  std::optional<std::string> flag = read_group_option("ignoredaemonsetsutilization", "yes", kAwsGroupOptions, o);
  EXPECT_EQ(flag, "not true or false");
  EXPECT_TRUE(o.empty());
}

TEST(GroupOptions, EachProviderReadsTheNamesItsClusterAutoscalerProviderReads) {
  // CA's AWS provider reads no provision or startup time and its clusterapi provider no DaemonSet switch: those
  // names are passed over, bad values and all, as unknown names and empty values are everywhere.
  GroupAutoscalingOptions aws;
  EXPECT_EQ(read_group_option("maxnodeprovisiontime", "soon", kAwsGroupOptions, aws), std::nullopt);
  EXPECT_EQ(read_group_option("maxnodestartuptime", "5m", kAwsGroupOptions, aws), std::nullopt);
  EXPECT_EQ(read_group_option("scaledownutilizationthreshold", "", kAwsGroupOptions, aws), std::nullopt);
  EXPECT_EQ(read_group_option("ignoredaemonsetsutilization", "True", kAwsGroupOptions, aws), std::nullopt);
  EXPECT_EQ(aws.ignore_daemonsets_utilization, true);
  aws.ignore_daemonsets_utilization.reset();
  EXPECT_TRUE(aws.empty());

  GroupAutoscalingOptions capi;
  EXPECT_EQ(read_capi("ignoredaemonsetsutilization", "true", capi), "");
  EXPECT_EQ(read_capi("scaledownutilisationthreshold", "0.1", capi), "");  // misspelt: not CA's name
  EXPECT_TRUE(capi.empty());
}

TEST(GroupOptions, TheGroupsValueWinsOverTheFlagsWhereItSetsOne) {
  AutoscalerOptions flags;  // CA's defaults: 0.5, 0.5, 10m, 20m, 15m, DaemonSets counted
  GroupAutoscalingOptions none;
  EXPECT_EQ(scale_down_utilization_threshold(none, flags, false), 0.5);
  EXPECT_EQ(scale_down_unneeded_time(none, flags), 10 * kMinute);
  EXPECT_EQ(max_node_provision_time(none, flags), 15 * kMinute);
  GroupAutoscalingOptions own;
  own.scale_down_gpu_utilization_threshold = 0.2;
  own.scale_down_unready_time = 2 * kMinute;
  own.max_node_provision_time = 5 * kMinute;
  own.ignore_daemonsets_utilization = true;
  EXPECT_EQ(scale_down_utilization_threshold(own, flags, false), 0.5);  // not set: the flag's
  EXPECT_EQ(scale_down_utilization_threshold(own, flags, true), 0.2);
  EXPECT_EQ(scale_down_unneeded_time(own, flags), 10 * kMinute);
  EXPECT_EQ(scale_down_unready_time(own, flags), 2 * kMinute);
  EXPECT_EQ(max_node_provision_time(own, flags), 5 * kMinute);
  EXPECT_TRUE(ignore_daemonsets_utilization(own, flags));
}

}  // namespace
}  // namespace scalewright::nodegroups
