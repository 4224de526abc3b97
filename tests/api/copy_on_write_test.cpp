// CopyOnWrite: copies share a value until one of them changes it, and reading never copies.
#include "api/copy_on_write.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace scalewright {
namespace {

using Strings = CopyOnWrite<std::vector<std::string>>;

TEST(CopyOnWrite, CopiesShareUntilOneChangesAndTheOtherKeepsItsValue) {
  Strings a = std::vector<std::string>{"x", "y"};
  Strings b = a;
  EXPECT_TRUE(b.shares_with(a));
  b.push_back("z");
  EXPECT_FALSE(b.shares_with(a));
  EXPECT_EQ(a.get(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(b.get(), (std::vector<std::string>{"x", "y", "z"}));
}

TEST(CopyOnWrite, ReadingThroughANonConstObjectDoesNotCopy) {
  Strings a = std::vector<std::string>{"x", "y"};
  Strings b = a;
  std::string joined;
  for (const std::string& s : b) joined += s;  // begin()/end() of a non-const b
  joined += b[1];
  joined += b.front() + b.back();
  EXPECT_EQ(joined, "xyyxy");
  EXPECT_EQ(b.size(), 2u);
  EXPECT_TRUE(b.shares_with(a));
}

TEST(CopyOnWrite, EveryEmptyValueIsTheSameAndChangingOneCopiesIt) {
  Strings a;
  Strings b = std::vector<std::string>{};
  EXPECT_TRUE(a.shares_with(b));
  a.push_back("x");
  EXPECT_FALSE(a.shares_with(b));
  EXPECT_TRUE(b.empty());
  a.clear();
  EXPECT_TRUE(a.shares_with(b));
}

TEST(CopyOnWrite, ErasingByPositionFromASharedValueErasesFromTheCopy) {
  Strings a = std::vector<std::string>{"x", "y", "z"};
  Strings b = a;
  b.erase(b.begin() + 1);  // an iterator into the value b shared with a
  EXPECT_EQ(b.get(), (std::vector<std::string>{"x", "z"}));
  EXPECT_EQ(a.get(), (std::vector<std::string>{"x", "y", "z"}));
}

TEST(CopyOnWrite, AMapsSubscriptChangesOnlyTheCopyItIsCalledOn) {
  CopyOnWrite<std::map<std::string, std::string>> a = std::map<std::string, std::string>{{"team", "web"}};
  auto b = a;
  b["team"] = "db";
  EXPECT_EQ(a.at("team"), "web");
  EXPECT_EQ(b.at("team"), "db");
  EXPECT_TRUE(a.contains("team"));
  EXPECT_EQ(a.find("owner"), a.end());
}

TEST(CopyOnWrite, EqualValuesCompareEqualWhetherSharedOrNot) {
  Strings a = std::vector<std::string>{"x"};
  Strings b = std::vector<std::string>{"x"};
  EXPECT_FALSE(a.shares_with(b));
  EXPECT_EQ(a, b);
  b.push_back("y");
  EXPECT_FALSE(a == b);
}

TEST(CopyOnWrite, AdoptsTheValueOfALiveHandleOnly) {
  Strings held = std::vector<std::string>{"x"};
  std::weak_ptr<std::vector<std::string>> handle = held.handle();
  Strings other = std::vector<std::string>{"x"};
  EXPECT_TRUE(other.adopt(handle));
  EXPECT_TRUE(other.shares_with(held));
  held = std::vector<std::string>{"y"};
  other = std::vector<std::string>{"x"};  // the last holder of the first value lets it go
  EXPECT_FALSE(other.adopt(handle));
}

}  // namespace
}  // namespace scalewright
