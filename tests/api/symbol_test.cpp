// Interned strings.
#include "api/symbol.h"

#include <sstream>
#include <string>
#include <unordered_set>

#include <gtest/gtest.h>

namespace scalewright {
namespace {

TEST(Symbol, SameTextSameSymbol) {
  Symbol a("topology.kubernetes.io/zone");
  Symbol b(std::string("topology.kubernetes.io/") + "zone");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.id(), b.id());
  EXPECT_NE(a, Symbol("kubernetes.io/hostname"));
}

TEST(Symbol, TextRoundTrips) {
  Symbol s("nvidia.com/gpu");
  EXPECT_EQ(s.str(), "nvidia.com/gpu");
  EXPECT_EQ(s.string(), "nvidia.com/gpu");
  std::ostringstream out;
  out << s;
  EXPECT_EQ(out.str(), "nvidia.com/gpu");
}

TEST(Symbol, EmptyTextIsTheDefaultSymbol) {
  EXPECT_TRUE(Symbol().empty());
  EXPECT_EQ(Symbol(""), Symbol());
  EXPECT_EQ(Symbol().id(), 0u);
  EXPECT_EQ(Symbol().str(), "");
  EXPECT_FALSE(Symbol("x").empty());
}

TEST(Symbol, HashesById) {
  std::unordered_set<Symbol> set{Symbol("a"), Symbol("b"), Symbol("a")};
  EXPECT_EQ(set.size(), 2u);
  EXPECT_EQ(set.count(Symbol("b")), 1u);
}

}  // namespace
}  // namespace scalewright
