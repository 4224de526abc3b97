// `simulate --html` as a user opens it: the page of an example, rendered by Debian's headless Chromium with no
// network. The page checks itself once its scripts ran (how many charts it made, how many drew a pixel, the first
// script error) and says so on <body>; Chromium's DOM dump carries that here. A screenshot of each page is kept
// under the build directory (tests/cli/html-report/) for a person to look at.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

const std::string kSource = SCALEWRIGHT_SOURCE_DIR;
const fs::path kOutput = SCALEWRIGHT_TEST_OUTPUT_DIR;

// Runs `command` through the shell; its standard output, and its exit status in `status`.
std::string run(const std::string& command, int& status) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    status = -1;
    return out;
  }
  std::array<char, 65536> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  status = ::pclose(pipe);
  return out;
}

std::string chromium() {
  int status = 0;
  std::string path = run("command -v chromium-headless-shell || command -v chromium", status);
  while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) path.pop_back();
  return path;
}

struct Rendered {
  std::string body;  // the <body ...> tag after the scripts ran
  std::string dom;
};

// The page in headless Chromium, with a profile of its own and every network request refused; a screenshot next
// to it.
Rendered render(const fs::path& page, const std::string& profile) {
  const std::string browser = chromium();
  EXPECT_FALSE(browser.empty()) << "no chromium-headless-shell: scripts/install-deps.sh installs it";
  const std::string flags = " --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,2200"
                            " --virtual-time-budget=10000 --proxy-server=127.0.0.1:9 --user-data-dir=" +
                            (kOutput / profile).string() + " ";
  int status = 0;
  Rendered r;
  r.dom = run(browser + flags + "--dump-dom file://" + page.string() + " 2>/dev/null", status);
  EXPECT_EQ(status, 0) << page;
  fs::path shot = page;
  shot.replace_extension(".png");
  run(browser + flags + "--screenshot=" + shot.string() + " file://" + page.string() + " >/dev/null 2>&1", status);
  EXPECT_EQ(status, 0) << shot;
  EXPECT_GT(fs::exists(shot) ? fs::file_size(shot) : 0, 10'000u) << shot;
  std::smatch body;
  if (std::regex_search(r.dom, body, std::regex("<body[^>]*>"))) r.body = body.str();
  return r;
}

std::string attribute(const std::string& tag, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(tag, m, std::regex(name + "=\"([^\"]*)\""))) return "";
  return m[1].str();
}

std::string simulate(const std::string& args, const fs::path& page) {
  fs::create_directories(kOutput);
  int status = 0;
  const std::string out = run(std::string(SCALEWRIGHT_BINARY) + " simulate -q " + args + " --html " + page.string() +
                                  " 2>&1",
                              status);
  EXPECT_EQ(status, 0) << out;
  return out;
}

// php-apache: one NodePool and an HPA, so four charts of the cluster and one of the autoscaler.
TEST(HtmlReportInChromium, EveryChartOfARunDrawsWithoutAScriptError) {
  const fs::path page = kOutput / "php-apache.html";
  simulate(kSource + "/examples/php-apache", page);
  // Self-contained: Chart.js inline, nothing to fetch.
  std::ifstream in(page);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("Chart.js v3"), std::string::npos);
  EXPECT_EQ(text.str().find("src=\"http"), std::string::npos);

  const Rendered r = render(page, "profile-run");
  ASSERT_FALSE(r.body.empty()) << r.dom.substr(0, 2000);
  EXPECT_EQ(attribute(r.body, "data-script-error"), "");
  EXPECT_EQ(attribute(r.body, "data-charts"), "5");
  EXPECT_EQ(attribute(r.body, "data-drawn"), "5");
  // The timeline table was filled from the run: its first line is the pod that went pending at t=0s.
  EXPECT_NE(r.dom.find("1 pod pending: no node fits them"), std::string::npos);
  EXPECT_NE(r.dom.find("17 of 17 lines"), std::string::npos);
  // Why, object by object: the run's 11 Events (2 NodeClaims launched, 2 pods nominated, 6 HPA decisions, 1 node
  // disrupted), among them the first rescale with its numbers: 250 % against the 50 % target is a ratio of 5.
  EXPECT_NE(r.dom.find("11 of 11 Events"), std::string::npos);
  EXPECT_NE(r.dom.find("<td>HorizontalPodAutoscaler default/php-apache</td><td>SuccessfulRescale</td><td>New size: 4; "
                       "reason: cpu resource utilization (percentage of request) above target; cpu 250% of 50% "
                       "target: ratio 5.00"),
            std::string::npos);
}

// --compare: the four policies of compare-consolidation overlaid on the same four charts, costs side by side.
TEST(HtmlReportInChromium, ComparedRunsShareTheChartsAndTheirCostsStandSideBySide) {
  const fs::path page = kOutput / "compare-consolidation.html";
  const std::string dir = kSource + "/examples/compare-consolidation/";
  simulate(dir + "workload.yaml --compare " + dir + "when-empty.yaml " + dir + "when-underutilized.yaml " + dir +
               "balanced.yaml " + dir + "cluster-autoscaler.yaml",
           page);
  const Rendered r = render(page, "profile-compare");
  ASSERT_FALSE(r.body.empty());
  EXPECT_EQ(attribute(r.body, "data-script-error"), "");
  EXPECT_EQ(attribute(r.body, "data-charts"), "4");
  EXPECT_EQ(attribute(r.body, "data-drawn"), "4");
  // The costs the terminal's comparison prints, one column per run.
  for (const char* cost : {"$7.62", "$4.33", "$4.15", "$6.79"}) EXPECT_NE(r.dom.find(cost), std::string::npos) << cost;
}

}  // namespace
