#pragma once
// client-go's Reflector for one resource path: list it page by page, then watch from the list's resourceVersion,
// resuming every watch where the previous one ended; list again when the server no longer has that
// resourceVersion (410 Gone); back off (exponential, jittered, capped) while the server fails. What it sees goes to
// a handler, on the reflector's thread, until it is stopped.
#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <string_view>

#include "kube/api_client.h"
#include "net/backoff.h"

namespace scalewright::kube {

// Receives one resource's state from a Reflector: called on the reflector's thread, in order.
struct ReflectorHandler {
  virtual ~ReflectorHandler() = default;
  // A (re)list begins. It may begin again before relist_done when a list fails part-way: what was listed since the
  // previous relist_started no longer counts.
  virtual void relist_started() = 0;
  // Each listed object, page by page as pages arrive (the whole list is never held).
  virtual void listed(nlohmann::json object) = 0;
  // The list is complete as of resource_version: objects not listed since relist_started are gone.
  virtual void relist_done(const std::string& resource_version) = 0;
  // A watch event: ADDED, MODIFIED or DELETED (bookmarks only move the resourceVersion on).
  virtual void watched(std::string_view type, nlohmann::json object) = 0;
};

// client-go's reflector back-off: after n failures in a row, min(800 ms * 2^(n-1), 30 s) * (1 + U[0, 1)).
inline constexpr net::Backoff kReflectorBackoff{.initial = std::chrono::milliseconds(800),
                                                .max = std::chrono::milliseconds(30'000),
                                                .factor = 2.0,
                                                .jitter_kind = net::Backoff::Jitter::Added,
                                                .jitter = 1.0};

struct ReflectorOptions {
  std::string label_selector;  // unescaped: "app=web"
  std::string field_selector;  // unescaped: "spec.nodeName!="
  int page_size = 500;         // items per list page
  // Each watch asks the server to end it after timeoutSeconds in [min, min * (1 + jitter)), as client-go does, so
  // that many clients' watches do not all end at once; 0 jitter: exactly min.
  std::chrono::seconds min_watch_timeout{300};
  double watch_timeout_jitter = 1.0;
  // The wait after failures in a row, at least the server's Retry-After.
  net::Backoff backoff = kReflectorBackoff;
};

// A watch's timeoutSeconds, for random in [0, 1).
int watch_timeout_seconds(const ReflectorOptions& options, double random);

class Reflector {
 public:
  // path: a collection ("/api/v1/pods", "/apis/karpenter.sh/v1/nodeclaims", "/api/v1/namespaces/ns/configmaps").
  // The handler must outlive run().
  Reflector(const ApiClient& api, std::string path, ReflectorOptions options, ReflectorHandler& handler);

  // Lists and watches until stop is requested; returns within about a second of the request, even while a watch
  // or a list page waits for the server. Call it on one thread at a time.
  void run(std::stop_token stop);

  // Thread-safe: whether a list has completed (relist_done has been called at least once).
  bool has_synced() const { return synced_.load(); }
  // Thread-safe: the resourceVersion a watch would resume from (the last list's, event's or bookmark's).
  std::string last_resource_version() const;
  const std::string& path() const { return path_; }

 private:
  struct WatchEnd;
  // One complete list through the handler; false when stopped. An error ends the list.
  KubeResult<bool> list(std::stop_token stop);
  // One watch from the last resourceVersion until the server ends it, it fails, or stop.
  WatchEnd watch(std::stop_token stop, int timeout_seconds);
  void set_last_resource_version(std::string resource_version);

  ApiClient api_;
  std::string path_;
  ReflectorOptions options_;
  ReflectorHandler& handler_;
  std::atomic<bool> synced_{false};
  mutable std::mutex mutex_;
  std::string last_resource_version_;  // guarded by mutex_
};

}  // namespace scalewright::kube
