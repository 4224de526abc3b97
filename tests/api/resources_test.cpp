// ResourceList: the four fixed resources, extended ones, arithmetic, comparison and formatting.
#include "api/resources.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "units.h"

namespace scalewright {

// Readable failure messages: "cpu=500m memory=1Gi" rather than the object's bytes.
static void PrintTo(const ResourceList& r, std::ostream* out) { *out << "{" << r.to_string() << "}"; }

namespace {

const Symbol kCpu("cpu");
const Symbol kMemory("memory");
const Symbol kStorage("ephemeral-storage");
const Symbol kPods("pods");
const Symbol kGpu("nvidia.com/gpu");
const Symbol kHugepages("hugepages-2Mi");

Quantity q(const std::string& text) {
  Result<Quantity> r = Quantity::parse(text);
  EXPECT_TRUE(r.ok()) << text;
  return r.ok() ? r.value() : Quantity{};
}

TEST(ResourceAmount, CpuIsMilliOthersAreWholeUnitsRoundedUp) {
  EXPECT_EQ(resource_amount(kCpu, q("1.5")), 1500);
  EXPECT_EQ(resource_amount(kCpu, q("250m")), 250);
  EXPECT_EQ(resource_amount(kMemory, q("1.5Gi")), 1610612736LL);
  EXPECT_EQ(resource_amount(kMemory, q("100m")), 1);  // 0.1 byte rounds up to 1
  EXPECT_EQ(resource_amount(kStorage, q("10G")), 10000000000LL);
  EXPECT_EQ(resource_amount(kPods, q("110")), 110);
  EXPECT_EQ(resource_amount(kGpu, q("2")), 2);
  EXPECT_EQ(resource_amount(kHugepages, q("4Mi")), 4 * kMi);
}

TEST(ResourceListAccess, NamedNames) {
  EXPECT_EQ(resource_names::cpu(), kCpu);
  EXPECT_EQ(resource_names::memory(), kMemory);
  EXPECT_EQ(resource_names::ephemeral_storage(), kStorage);
  EXPECT_EQ(resource_names::pods(), kPods);
}

TEST(ResourceListAccess, GetAndSetEveryKind) {
  ResourceList r;
  r.set(kCpu, 500);
  r.set(kMemory, kGi);
  r.set(kStorage, 2 * kGi);
  r.set(kPods, 3);
  r.set(kGpu, 1);
  r.set(kHugepages, 4 * kMi);
  EXPECT_EQ(r.get(kCpu), 500);
  EXPECT_EQ(r.get(kMemory), kGi);
  EXPECT_EQ(r.get(kStorage), 2 * kGi);
  EXPECT_EQ(r.get(kPods), 3);
  EXPECT_EQ(r.get(kGpu), 1);
  EXPECT_EQ(r.get(kHugepages), 4 * kMi);
  EXPECT_EQ(r.cpu_milli(), 500);
  EXPECT_EQ(r.memory(), kGi);
  EXPECT_EQ(r.ephemeral_storage(), 2 * kGi);
  EXPECT_EQ(r.pods(), 3);
  EXPECT_EQ(r.extended().size(), 2u);
  EXPECT_EQ(r.get(Symbol("example.com/foo")), 0);  // absent reads as zero
}

TEST(ResourceListAccess, SetOverwritesAndAddAccumulates) {
  ResourceList r;
  r.set(kGpu, 4);
  r.set(kGpu, 2);
  EXPECT_EQ(r.get(kGpu), 2);
  r.add(kGpu, 3);
  EXPECT_EQ(r.get(kGpu), 5);
  r.add(kCpu, 100);
  r.add(kCpu, 150);
  EXPECT_EQ(r.cpu_milli(), 250);
}

TEST(ResourceListAccess, EntriesListNonZeroFixedResourcesThenExtended) {
  ResourceList r;
  r.set(kGpu, 1);
  r.set(kPods, 1);
  r.set(kCpu, 500);
  auto entries = r.entries();
  ASSERT_EQ(entries.size(), 3u);  // memory and ephemeral-storage are zero, so left out
  EXPECT_EQ(entries[0], (std::pair<Symbol, std::int64_t>{kCpu, 500}));
  EXPECT_EQ(entries[1], (std::pair<Symbol, std::int64_t>{kPods, 1}));
  EXPECT_EQ(entries[2], (std::pair<Symbol, std::int64_t>{kGpu, 1}));
}

TEST(ResourceListZeros, ZeroExtendedEntriesAreNotStored) {
  ResourceList r;
  r.set(kGpu, 0);
  EXPECT_TRUE(r.extended().empty());
  r.set(kGpu, 2);
  r.set(kGpu, 0);
  EXPECT_TRUE(r.extended().empty());
  EXPECT_TRUE(r.is_zero());
  EXPECT_EQ(r, ResourceList{});
}

TEST(ResourceListZeros, ListsBuiltDifferentlyCompareEqual) {
  ResourceList a;
  a.set(kCpu, 1000);
  a.set(kGpu, 1);
  a.set(kHugepages, 2 * kMi);
  a.add(kGpu, -1);          // back to zero: erased
  a.set(kHugepages, 0);     // erased

  ResourceList b;
  b.set(kCpu, 400);
  ResourceList c;
  c.set(kCpu, 600);
  c.set(kGpu, 3);
  ResourceList d;
  d.set(kGpu, 3);
  b += c;
  b -= d;  // gpu 3 - 3 = 0: erased

  EXPECT_EQ(a, b);
  EXPECT_TRUE(a.extended().empty());
  EXPECT_TRUE(b.extended().empty());
}

TEST(ResourceListArithmetic, PlusAndMinusPerResource) {
  ResourceList a;
  a.set(kCpu, 500);
  a.set(kMemory, kGi);
  a.set(kGpu, 1);
  ResourceList b;
  b.set(kCpu, 250);
  b.set(kPods, 1);
  b.set(kHugepages, 2 * kMi);
  b.set(kGpu, 2);

  ResourceList sum = a + b;
  EXPECT_EQ(sum.cpu_milli(), 750);
  EXPECT_EQ(sum.memory(), kGi);
  EXPECT_EQ(sum.pods(), 1);
  EXPECT_EQ(sum.get(kGpu), 3);
  EXPECT_EQ(sum.get(kHugepages), 2 * kMi);

  ResourceList diff = a - b;
  EXPECT_EQ(diff.cpu_milli(), 250);
  EXPECT_EQ(diff.pods(), -1);
  EXPECT_EQ(diff.get(kGpu), -1);
  EXPECT_EQ(diff.get(kHugepages), -2 * kMi);

  ResourceList back = sum - b;
  EXPECT_EQ(back, a);
}

TEST(ResourceListArithmetic, MaxTakesTheLargerOfEachResource) {
  ResourceList a;
  a.set(kCpu, 1000);
  a.set(kMemory, kGi);
  a.set(kHugepages, 4 * kMi);
  ResourceList b;
  b.set(kCpu, 500);
  b.set(kMemory, 2 * kGi);
  b.set(kGpu, 1);

  ResourceList m = ResourceList::max(a, b);
  EXPECT_EQ(m.cpu_milli(), 1000);
  EXPECT_EQ(m.memory(), 2 * kGi);
  EXPECT_EQ(m.get(kGpu), 1);
  EXPECT_EQ(m.get(kHugepages), 4 * kMi);
  EXPECT_EQ(ResourceList::max(b, a), m);
}

// "Resource by resource, the larger of the two", with absent reading as zero: max(-100, 0) is 0 whichever
// argument holds the negative amount. Negative lists arise as free capacity (allocatable - requested).
TEST(ResourceListArithmetic, MaxTreatsAbsentResourceAsZeroEvenAgainstNegative) {
  ResourceList negative;
  negative.set(kCpu, -100);
  negative.set(kGpu, -1);
  ResourceList empty;

  ResourceList right = ResourceList::max(empty, negative);
  EXPECT_EQ(right.cpu_milli(), 0);
  EXPECT_EQ(right.get(kGpu), 0);

  ResourceList left = ResourceList::max(negative, empty);
  EXPECT_EQ(left.cpu_milli(), 0);
  EXPECT_EQ(left.get(kGpu), 0);
  EXPECT_EQ(left, right);
}

TEST(ResourceListArithmetic, TimesMultipliesEveryResource) {
  ResourceList r;
  r.set(kCpu, 500);
  r.set(kMemory, 256 * kMi);
  r.set(kPods, 1);
  r.set(kGpu, 1);
  ResourceList three = r.times(3);
  EXPECT_EQ(three.cpu_milli(), 1500);
  EXPECT_EQ(three.memory(), 768 * kMi);
  EXPECT_EQ(three.pods(), 3);
  EXPECT_EQ(three.get(kGpu), 3);
  EXPECT_EQ(r.times(1), r);
  EXPECT_TRUE(r.times(0).is_zero());
  EXPECT_TRUE(r.times(0).extended().empty());
}

constexpr std::int64_t kLowestAmount = std::numeric_limits<std::int64_t>::min();

// Every sum, difference and product of amounts stops at int64's limits: two containers of 5Ei (2^62 + 2^60 each)
// wrapped to -6Ei, which fits any node.
TEST(ResourceListSaturation, SumsDifferencesAndProductsStopAtTheLimits) {
  ResourceList five_ei;
  five_ei.set(kMemory, 5 * kEi);
  five_ei.set(kCpu, kLargestAmount - 1);
  five_ei.set(kGpu, kLargestAmount);
  five_ei.set(kStorage, 1);

  const ResourceList sum = five_ei + five_ei;
  EXPECT_EQ(sum.memory(), kLargestAmount);  // 10Ei
  EXPECT_EQ(sum.cpu_milli(), kLargestAmount);
  EXPECT_EQ(sum.get(kGpu), kLargestAmount);
  EXPECT_EQ(sum.ephemeral_storage(), 2);  // far from the limit: a plain sum

  ResourceList added = five_ei;
  added.add(kMemory, 3 * kEi);  // 8Ei = 2^63, one past
  added.add(kGpu, 1);
  EXPECT_EQ(added.memory(), kLargestAmount);
  EXPECT_EQ(added.get(kGpu), kLargestAmount);

  ResourceList negative;
  negative.set(kCpu, -5 * kEi);
  negative.set(kGpu, -5 * kEi);
  const ResourceList difference = negative - five_ei;
  EXPECT_EQ(difference.cpu_milli(), kLowestAmount);  // -5Ei - (2^63 - 2)
  EXPECT_EQ(difference.get(kGpu), kLowestAmount);
  EXPECT_EQ((five_ei - negative).cpu_milli(), kLargestAmount);
  ResourceList lowest;
  lowest.set(kGpu, kLowestAmount);
  EXPECT_EQ((ResourceList{} - lowest).get(kGpu), kLargestAmount);  // -(-2^63) is 2^63: one past

  // 2^61 x 4 = 2^63 is one past; 2^61 x 3 is not; x -4 is exactly the lowest.
  ResourceList quarter;
  quarter.set(kMemory, std::int64_t{1} << 61);
  quarter.set(kGpu, std::int64_t{1} << 61);
  EXPECT_EQ(quarter.times(3).memory(), 3 * (std::int64_t{1} << 61));
  EXPECT_EQ(quarter.times(4).memory(), kLargestAmount);
  EXPECT_EQ(quarter.times(4).get(kGpu), kLargestAmount);
  EXPECT_EQ(quarter.times(-4).memory(), kLowestAmount);
  EXPECT_EQ(quarter.times(1'000'000).memory(), kLargestAmount);
}

TEST(ResourceListSaturation, FirstOverflowNamesTheResourceAndSaturatedSumsKeepTheLimit) {
  ResourceList a;
  a.set(kCpu, kLargestAmount);
  a.set(kMemory, 5 * kEi);
  ResourceList b;
  b.set(kMemory, 3 * kEi);  // 8Ei: one past
  b.set(kGpu, 1);
  EXPECT_EQ(a.first_overflow(b), kMemory);
  b.set(kCpu, 1);
  EXPECT_EQ(a.first_overflow(b), kCpu);  // cpu comes first
  b.set(kMemory, 3 * kEi - 1);
  b.set(kCpu, 0);
  EXPECT_EQ(a.first_overflow(b), std::nullopt);  // exactly 2^63 - 1 fits

  EXPECT_TRUE(a.any_saturated());  // cpu at 2^63 - 1
  a.set(kCpu, kLargestAmount - 1);
  EXPECT_FALSE(a.any_saturated());
  a.set(kGpu, kLargestAmount);
  EXPECT_TRUE(a.any_saturated());

  // A saturated sum lost what it summed: taking a part away leaves it at the limit, the rest are subtracted.
  ResourceList usage = a + a;  // cpu and gpu saturated; memory 10Ei saturated too
  usage.set(kMemory, 6 * kEi);
  ResourceList part;
  part.set(kCpu, 5);
  part.set(kMemory, kEi);
  part.set(kGpu, 5);
  usage.take_away(part);
  EXPECT_EQ(usage.cpu_milli(), kLargestAmount);
  EXPECT_EQ(usage.get(kGpu), kLargestAmount);
  EXPECT_EQ(usage.memory(), 5 * kEi);
}

TEST(ResourceListFits, FitsWhenEveryResourceAtMostTheLimit) {
  ResourceList limit;
  limit.set(kCpu, 2000);
  limit.set(kMemory, 4 * kGi);
  limit.set(kPods, 110);
  limit.set(kGpu, 1);

  ResourceList request;
  request.set(kCpu, 2000);  // equal fits
  request.set(kMemory, kGi);
  request.set(kPods, 1);
  request.set(kGpu, 1);
  EXPECT_TRUE(request.fits_in(limit));

  ResourceList too_much_cpu = request;
  too_much_cpu.set(kCpu, 2001);
  EXPECT_FALSE(too_much_cpu.fits_in(limit));

  ResourceList too_much_gpu = request;
  too_much_gpu.set(kGpu, 2);
  EXPECT_FALSE(too_much_gpu.fits_in(limit));

  ResourceList storage;
  storage.set(kStorage, 1);  // the limit names no ephemeral-storage: zero
  EXPECT_FALSE(storage.fits_in(limit));
}

TEST(ResourceListFits, ExtendedResourceAbsentFromLimitDoesNotFit) {
  ResourceList limit;
  limit.set(kCpu, 4000);
  ResourceList request;
  request.set(kCpu, 100);
  request.set(kGpu, 1);
  EXPECT_FALSE(request.fits_in(limit));

  request.set(kGpu, 0);  // asking for none fits
  EXPECT_TRUE(request.fits_in(limit));
  EXPECT_TRUE(ResourceList{}.fits_in(limit));
  EXPECT_TRUE(ResourceList{}.fits_in(ResourceList{}));
}

TEST(ResourceListPredicates, IsZeroAndAnyNegative) {
  ResourceList r;
  EXPECT_TRUE(r.is_zero());
  EXPECT_FALSE(r.any_negative());
  r.set(kGpu, 1);
  EXPECT_FALSE(r.is_zero());
  EXPECT_FALSE(r.any_negative());

  ResourceList used;
  used.set(kGpu, 2);
  r -= used;
  EXPECT_TRUE(r.any_negative());

  ResourceList mem;
  mem.set(kMemory, -1);
  EXPECT_TRUE(mem.any_negative());
  EXPECT_FALSE(mem.is_zero());
}

TEST(ResourceListFormat, ToStringUsesHumanUnits) {
  ResourceList r;
  r.set(kCpu, 500);
  r.set(kMemory, kGi);
  r.set(kPods, 1);
  r.set(kGpu, 1);
  EXPECT_EQ(r.to_string(), "cpu=500m memory=1Gi pods=1 nvidia.com/gpu=1");
}

TEST(ResourceListFormat, WholeCpuAndLargestExactBinaryUnit) {
  ResourceList r;
  r.set(kCpu, 2000);
  r.set(kMemory, 1536 * kMi);  // 1.5Gi is not whole Gi; 1536Mi is exact
  r.set(kStorage, 1000);       // not a multiple of 1024: plain bytes
  EXPECT_EQ(r.to_string(), "cpu=2 memory=1536Mi ephemeral-storage=1000");

  ResourceList h;
  h.set(kHugepages, 4 * kMi);
  EXPECT_EQ(h.to_string(), "hugepages-2Mi=4Mi");

  ResourceList k;
  k.set(kMemory, 3 * kKi);
  k.set(kCpu, 1500);
  EXPECT_EQ(k.to_string(), "cpu=1500m memory=3Ki");

  EXPECT_EQ(ResourceList{}.to_string(), "");
}

}  // namespace
}  // namespace scalewright
