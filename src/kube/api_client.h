#pragma once
// Typed Kubernetes API operations over net::HttpTransport: objects are nlohmann::json, paths are API paths
// ("/api/v1/namespaces/default/pods/x", optionally with a query string), and every non-2xx answer is a KubeError
// that carries the Status object the server sent.
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/result.h"
#include "kube/cluster_config.h"
#include "net/http.h"
#include "net/http_transport.h"

namespace scalewright::kube {

struct KubeError {
  std::string verb;                        // "PUT"
  std::string path;                        // "/api/v1/nodes/sw-node-2"
  int code = 0;                            // HTTP status; 0 when no answer arrived (connection, TLS, bad body)
  std::string reason;                      // Status.reason ("Conflict", "NotFound", ...); empty when none
  std::string message;                     // Status.message; with code 0 the transport's whole message
  std::optional<int> retry_after_seconds;  // Retry-After header, else Status details.retryAfterSeconds
  nlohmann::json status;                   // the whole Status object (details.causes, ...); null when none

  bool is_conflict() const { return code == 409; }
  bool is_gone() const { return code == 410; }
  bool is_not_found() const { return code == 404; }
  bool is_too_many_requests() const { return code == 429; }
  // No answer (a server restarting, a connection dropped), 429 or a 5xx: the same request may pass later.
  bool is_unavailable() const { return net::is_transient_status(code); }

  // "PUT /api/v1/nodes/sw-node-2: 409 Conflict: Operation cannot be fulfilled on ..."; with code 0 the
  // transport's message: "GET https://127.0.0.1:6443/version: TLS verification of the server certificate failed (...)"
  std::string describe() const;
  Error to_error() const { return Error{describe()}; }
};

// A value or a KubeError.
template <typename T>
using KubeResult = Result<T, KubeError>;

struct ListResult {
  std::vector<nlohmann::json> items;  // every page's items, in order
  std::string resource_version;       // the list's metadata.resourceVersion (the last page's)
  std::string kind;                   // "NodeList"
};

struct ListOptions {
  int limit = 0;                 // items per page; 0: the whole list in one answer
  std::string label_selector;    // unescaped: "app=web"
  std::string field_selector;    // unescaped: "spec.nodeName!="
};

// One page of a list, as the server answered it.
struct ListPage {
  std::vector<nlohmann::json> items;
  std::string resource_version;  // the list's metadata.resourceVersion (the same on every page of one list)
  std::string kind;              // "NodeList"
  bool last = false;             // no continue token: the list is complete with this page
};

// Called once per page, in order; may move the items out. Return false to stop before the next page.
using ListPageCallback = std::function<bool(ListPage& page)>;

struct ApplyOptions {
  std::string field_manager = "scalewright";
  bool force = false;  // take over fields other managers own instead of answering 409
};

struct WatchOptions {
  std::string resource_version;  // empty: start from the most recent state ("0": any, with synthetic ADDEDs)
  bool allow_bookmarks = true;
  std::string label_selector;    // unescaped: "kubernetes.io/hostname=sw-node-1"
  std::string field_selector;
  // Server-side timeout; 0: the server's default. The stream's read timeout becomes 30 s longer, so that a quiet
  // watch waits for the server to end it (the transport's read timeout only applies to watches without one).
  int timeout_seconds = 0;
};

// Called once per event: type is ADDED, MODIFIED, DELETED or BOOKMARK; return false to stop watching. The object is
// the callback's to keep (it may move from it).
using WatchCallback = std::function<bool(std::string_view type, nlohmann::json& object)>;

class ApiClient {
 public:
  explicit ApiClient(std::shared_ptr<const net::HttpTransport> transport);
  static Result<ApiClient> create(const ClusterConfig& config, net::TransportOptions options = {});

  KubeResult<nlohmann::json> get(const std::string& path) const;
  // Pages with limit (0: one request, no limit) and follows metadata.continue until the list is complete.
  KubeResult<ListResult> list(const std::string& path, int limit = 0) const;
  // The same paging, handing each page to on_page as it arrives instead of holding the whole list. Returns the
  // list's resourceVersion. A failing page ends the list with its error: 410 Expired on a continue page means the
  // list took longer than the server keeps its snapshot, and only a new list from the start can complete it. A
  // stop request (from any thread) ends a page in flight at once, with an error (code 0, "...: stopped").
  KubeResult<std::string> list_pages(const std::string& path, const ListOptions& options,
                                     const ListPageCallback& on_page, std::stop_token stop = {}) const;
  KubeResult<nlohmann::json> create(const std::string& path, const nlohmann::json& object) const;      // POST
  KubeResult<nlohmann::json> update(const std::string& path, const nlohmann::json& object) const;      // PUT
  KubeResult<nlohmann::json> merge_patch(const std::string& path, const nlohmann::json& patch) const;  // RFC 7386
  KubeResult<nlohmann::json> json_patch(const std::string& path, const nlohmann::json& operations) const;  // 6902
  KubeResult<nlohmann::json> strategic_merge_patch(const std::string& path, const nlohmann::json& patch) const;
  // Server-side apply of a YAML (or JSON) manifest: PATCH ?fieldManager=...[&force=true].
  KubeResult<nlohmann::json> apply(const std::string& path, const std::string& manifest,
                                   const ApplyOptions& options = {}) const;
  // DELETE; with a grace period it sends DeleteOptions{gracePeriodSeconds}. Returns what the server answers
  // (the object for pods, a Status for nodes and custom resources).
  KubeResult<nlohmann::json> remove(const std::string& path, std::optional<int> grace_period_seconds = {}) const;

  // Streams a watch until the server closes it, the callback returns false, or stop is requested (from any
  // thread: the stream's connection is shut down, so this returns at once). An ERROR event ends the watch with its
  // Status as the KubeError (410 Expired: relist). Returns the last resourceVersion seen (events and bookmarks),
  // or options.resource_version when none arrived; a stopped watch returns it too, whatever the connection did.
  KubeResult<std::string> watch(const std::string& path, const WatchOptions& options, const WatchCallback& callback,
                                std::stop_token stop = {}) const;

  const net::HttpTransport& transport() const { return *transport_; }

 private:
  KubeResult<nlohmann::json> send(std::string_view verb, const std::string& path, std::string_view content_type,
                                  std::string body, std::stop_token stop = {}) const;

  std::shared_ptr<const net::HttpTransport> transport_;
};

}  // namespace scalewright::kube
