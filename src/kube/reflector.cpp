#include "kube/reflector.h"

#include <spdlog/spdlog.h>

#include <optional>
#include <random>
#include <utility>

#include "kube/retry.h"

namespace scalewright::kube {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {

// A watch the server ends this soon without sending anything made no progress: it counts as a failure, so that a
// server or proxy that closes every watch at once is not asked again and again without a pause (client-go does
// the same).
constexpr milliseconds kShortestUsefulWatch{1000};

std::string resource_version_of(const json& object) {
  auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return {};
  auto version = metadata->find("resourceVersion");
  return version != metadata->end() && version->is_string() ? version->get<std::string>() : std::string();
}

}  // namespace

int watch_timeout_seconds(const ReflectorOptions& options, double random) {
  return static_cast<int>(static_cast<double>(options.min_watch_timeout.count()) *
                          (1.0 + options.watch_timeout_jitter * random));
}

struct Reflector::WatchEnd {
  std::optional<KubeError> error;  // none: the server ended the watch, or stop
  int received = 0;                // events and bookmarks
  steady_clock::duration lasted{};
};

Reflector::Reflector(const ApiClient& api, std::string path, ReflectorOptions options, ReflectorHandler& handler)
    : api_(api), path_(std::move(path)), options_(std::move(options)), handler_(handler) {}

std::string Reflector::last_resource_version() const {
  std::lock_guard lock(mutex_);
  return last_resource_version_;
}

void Reflector::set_last_resource_version(std::string resource_version) {
  std::lock_guard lock(mutex_);
  last_resource_version_ = std::move(resource_version);
}

KubeResult<bool> Reflector::list(std::stop_token stop) {
  handler_.relist_started();
  // No resourceVersion: a consistent read from etcd, the only list the API server pages (its watch cache ignores
  // limit), so no more than a page is held at once. The watch then starts from the list's resourceVersion.
  ListOptions options{options_.page_size, options_.label_selector, options_.field_selector};
  bool stopped = false;
  auto resource_version = api_.list_pages(path_, options, [&](ListPage& page) {
    for (json& item : page.items) handler_.listed(std::move(item));
    stopped = stop.stop_requested();
    return !stopped;
  }, stop);
  if (stopped || stop.stop_requested()) return false;
  if (!resource_version) return resource_version.error();
  set_last_resource_version(*resource_version);
  handler_.relist_done(*resource_version);
  synced_ = true;
  spdlog::debug("kube reflector: listed path={} resource_version={}", path_, *resource_version);
  return true;
}

Reflector::WatchEnd Reflector::watch(std::stop_token stop, int timeout_seconds) {
  WatchOptions options;
  options.resource_version = last_resource_version();
  options.allow_bookmarks = true;
  options.label_selector = options_.label_selector;
  options.field_selector = options_.field_selector;
  options.timeout_seconds = timeout_seconds;
  WatchEnd end;
  auto started = steady_clock::now();
  auto last = api_.watch(
      path_, options,
      [&](std::string_view type, json& object) {
        if (stop.stop_requested()) return false;
        ++end.received;
        std::string resource_version = resource_version_of(object);
        if (type != "BOOKMARK") handler_.watched(type, std::move(object));
        if (!resource_version.empty()) set_last_resource_version(std::move(resource_version));
        return true;
      },
      stop);
  end.lasted = steady_clock::now() - started;
  if (!last) end.error = last.error();
  return end;
}

void Reflector::run(std::stop_token stop) {
  std::mt19937_64 random{std::random_device{}()};
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int failures = 0;               // in a row since the last watch that made progress: the backoff's exponent
  bool relisted_at_once = false;  // a 410 has had its immediate relist since the last progress
  bool relist = true;

  auto back_off = [&](std::string_view what, const KubeError* error) {
    ++failures;
    const milliseconds wait = retry_delay(options_.backoff, failures, error, unit(random));
    spdlog::warn("kube reflector: {} failed path={} failures={} retry_in_ms={} error={}", what, path_, failures,
                 wait.count(), error != nullptr ? error->describe() : "the server ended it at once, sending nothing");
    net::sleep_unless_stopped(wait, stop);
  };
  // 410 Gone: the server no longer has what was asked for (a compacted resourceVersion, an expired continue token),
  // and only a new list can cure that, at once. A 410 again before any progress is a failure like the others.
  auto relist_after_gone = [&](std::string_view what, const KubeError& error) {
    relist = true;
    if (relisted_at_once) return back_off(what, &error);
    relisted_at_once = true;
    spdlog::debug("kube reflector: {} gone, listing again path={} error={}", what, path_, error.describe());
  };

  spdlog::debug("kube reflector: starting path={}", path_);
  while (!stop.stop_requested()) {
    if (relist) {
      auto listed = list(stop);
      if (stop.stop_requested()) break;
      if (!listed) {
        if (listed.error().is_gone()) {
          relist_after_gone("list", listed.error());
        } else {
          back_off("list", &listed.error());
        }
        continue;
      }
      relist = false;
    }
    WatchEnd end = watch(stop, watch_timeout_seconds(options_, unit(random)));
    if (stop.stop_requested()) break;
    bool made_progress = end.received > 0 || (!end.error && end.lasted >= kShortestUsefulWatch);
    if (made_progress) {
      failures = 0;
      relisted_at_once = false;
    }
    if (!end.error) {
      // The server ended the watch (its timeoutSeconds): the next resumes from the last resourceVersion.
      if (!made_progress) back_off("watch", nullptr);
      continue;
    }
    if (end.error->is_gone()) {
      relist_after_gone("watch", *end.error);
    } else {
      // Connection refused, 5xx, 429, ...: the API server is likely to come back, and the watch can resume where
      // it ended without listing everything again (which would only add to its load).
      back_off("watch", &*end.error);
    }
  }
  spdlog::debug("kube reflector: stopped path={}", path_);
}

}  // namespace scalewright::kube
