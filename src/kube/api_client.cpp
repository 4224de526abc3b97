#include "kube/api_client.h"

#include <fmt/format.h>

#include "api/percent_encode.h"
#include "api/snippet.h"

namespace scalewright::kube {
namespace {

using nlohmann::json;

std::string_view status_text(int code) {
  switch (code) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return "";
  }
}

std::string string_field(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Fills reason/message/retry from a Status object; false when it is not one.
bool read_status(const json& status, KubeError& error) {
  if (!status.is_object() || string_field(status, "kind") != "Status") return false;
  error.status = status;
  error.reason = string_field(status, "reason");
  error.message = string_field(status, "message");
  if (auto code = status.find("code"); error.code == 0 && code != status.end() && code->is_number_integer()) {
    error.code = code->get<int>();
  }
  if (!error.retry_after_seconds) {
    auto details = status.find("details");
    if (details != status.end() && details->is_object()) {
      auto retry = details->find("retryAfterSeconds");
      if (retry != details->end() && retry->is_number_integer()) error.retry_after_seconds = retry->get<int>();
    }
  }
  return true;
}

// With an answer, the Status the server sent (or its body, when it sent none); without one, the transport's message.
KubeError kube_error(const net::HttpError& failure) {
  KubeError error{failure.method, failure.path, failure.status, {}, {}, failure.retry_after_seconds, nullptr};
  if (!failure.answered()) {
    error.message = failure.message;
    return error;
  }
  json body = json::parse(failure.body, nullptr, /*allow_exceptions=*/false);
  if (!read_status(body, error)) {
    error.reason = std::string(status_text(failure.status));
    error.message = failure.body.empty() ? std::string("(empty body)") : snippet(failure.body);
  }
  if (error.reason.empty()) error.reason = std::string(status_text(failure.status));
  return error;
}

std::string with_param(const std::string& path, std::string_view name, std::string_view value) {
  return fmt::format("{}{}{}={}", path, path.find('?') == std::string::npos ? '?' : '&', name, value);
}

}  // namespace

std::string KubeError::describe() const {
  if (code == 0) return message;  // the transport's message names the method, server and path
  if (reason.empty()) return fmt::format("{} {}: {}: {}", verb, path, code, message);
  return fmt::format("{} {}: {} {}: {}", verb, path, code, reason, message);
}

ApiClient::ApiClient(std::shared_ptr<const net::HttpTransport> transport) : transport_(std::move(transport)) {}

Result<ApiClient> ApiClient::create(const ClusterConfig& config, net::TransportOptions options) {
  auto transport = net::HttpTransport::create(http_endpoint(config), std::move(options));
  if (!transport) return transport.error();
  return ApiClient(std::move(*transport));
}

KubeResult<json> ApiClient::send(std::string_view verb, const std::string& path, std::string_view content_type,
                                 std::string body, std::stop_token stop) const {
  net::HttpRequest request{std::string(verb), path, std::string(content_type), std::move(body)};
  net::HttpResult response = net::successful(request, transport_->request(request, stop));
  if (!response) return kube_error(response.error());
  json object = json::parse(response->body, nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded()) {
    return KubeError{std::string(verb), path, response->status, "InvalidResponse",
                     fmt::format("the response body is not JSON: {}", snippet(response->body)), std::nullopt,
                     nullptr};
  }
  return object;
}

KubeResult<json> ApiClient::get(const std::string& path) const { return send("GET", path, {}, {}); }

KubeResult<ListResult> ApiClient::list(const std::string& path, int limit) const {
  ListResult out;
  auto resource_version = list_pages(path, ListOptions{limit, {}, {}}, [&](ListPage& page) {
    for (json& item : page.items) out.items.push_back(std::move(item));
    out.kind = std::move(page.kind);
    return true;
  });
  if (!resource_version) return resource_version.error();
  out.resource_version = std::move(*resource_version);
  return out;
}

KubeResult<std::string> ApiClient::list_pages(const std::string& path, const ListOptions& options,
                                              const ListPageCallback& on_page, std::stop_token stop) const {
  std::string first = path;
  if (options.limit > 0) first = with_param(first, "limit", std::to_string(options.limit));
  if (!options.label_selector.empty()) {
    first = with_param(first, "labelSelector", percent_encode(options.label_selector));
  }
  if (!options.field_selector.empty()) {
    first = with_param(first, "fieldSelector", percent_encode(options.field_selector));
  }
  std::string next = first;
  while (true) {
    auto answer = send("GET", next, {}, {}, stop);
    if (!answer) return answer.error();
    json& list = *answer;
    auto items = list.find("items");
    if (items == list.end() || !(items->is_array() || items->is_null())) {
      return KubeError{"GET", next, 200, "InvalidResponse", "the response is not a list (no \"items\" array)",
                       std::nullopt, nullptr};
    }
    ListPage page;
    if (items->is_array()) {
      page.items.reserve(items->size());
      for (json& item : *items) page.items.push_back(std::move(item));
    }
    page.kind = string_field(list, "kind");
    std::string token;
    if (auto metadata = list.find("metadata"); metadata != list.end() && metadata->is_object()) {
      page.resource_version = string_field(*metadata, "resourceVersion");
      token = string_field(*metadata, "continue");
    }
    page.last = token.empty();
    std::string resource_version = page.resource_version;
    if (!on_page(page) || token.empty()) return resource_version;
    next = with_param(first, "continue", percent_encode(token));
  }
}

KubeResult<json> ApiClient::create(const std::string& path, const json& object) const {
  return send("POST", path, "application/json", object.dump());
}

KubeResult<json> ApiClient::update(const std::string& path, const json& object) const {
  return send("PUT", path, "application/json", object.dump());
}

KubeResult<json> ApiClient::merge_patch(const std::string& path, const json& patch) const {
  return send("PATCH", path, "application/merge-patch+json", patch.dump());
}

KubeResult<json> ApiClient::json_patch(const std::string& path, const json& operations) const {
  return send("PATCH", path, "application/json-patch+json", operations.dump());
}

KubeResult<json> ApiClient::strategic_merge_patch(const std::string& path, const json& patch) const {
  return send("PATCH", path, "application/strategic-merge-patch+json", patch.dump());
}

KubeResult<json> ApiClient::apply(const std::string& path, const std::string& manifest,
                                  const ApplyOptions& options) const {
  std::string target = with_param(path, "fieldManager", percent_encode(options.field_manager));
  if (options.force) target = with_param(target, "force", "true");
  return send("PATCH", target, "application/apply-patch+yaml", manifest);
}

KubeResult<json> ApiClient::remove(const std::string& path, std::optional<int> grace_period_seconds) const {
  if (!grace_period_seconds) return send("DELETE", path, {}, {});
  json options = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"gracePeriodSeconds", *grace_period_seconds}};
  return send("DELETE", path, "application/json", options.dump());
}

KubeResult<std::string> ApiClient::watch(const std::string& path, const WatchOptions& options,
                                         const WatchCallback& callback, std::stop_token stop) const {
  std::string target = with_param(path, "watch", "1");
  if (options.allow_bookmarks) target = with_param(target, "allowWatchBookmarks", "true");
  if (!options.resource_version.empty()) {
    target = with_param(target, "resourceVersion", percent_encode(options.resource_version));
  }
  if (!options.label_selector.empty()) {
    target = with_param(target, "labelSelector", percent_encode(options.label_selector));
  }
  if (!options.field_selector.empty()) {
    target = with_param(target, "fieldSelector", percent_encode(options.field_selector));
  }
  if (options.timeout_seconds > 0) target = with_param(target, "timeoutSeconds", std::to_string(options.timeout_seconds));

  std::string last_resource_version = options.resource_version;
  std::optional<KubeError> failure;
  auto on_line = [&](std::string_view line) {
    if (line.empty() || line == "\r") return true;
    json event = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!event.is_object() || !event.contains("type") || !event["type"].is_string() || !event.contains("object")) {
      failure = KubeError{"GET", target, 200, "InvalidResponse",
                          fmt::format("watch event is not {{\"type\", \"object\"}}: {}", snippet(line)),
                          std::nullopt, nullptr};
      return false;
    }
    const std::string& type = event["type"].get_ref<const std::string&>();
    json& object = event["object"];
    if (type == "ERROR") {
      KubeError error{"GET", target, 0, {}, {}, std::nullopt, nullptr};
      if (!read_status(object, error)) {
        error.code = 500;
        error.reason = "InternalError";
        error.message = fmt::format("watch ERROR event without a Status: {}", snippet(line));
      }
      failure = std::move(error);
      return false;
    }
    if (auto metadata = object.find("metadata"); metadata != object.end() && metadata->is_object()) {
      std::string rv = string_field(*metadata, "resourceVersion");
      if (!rv.empty()) last_resource_version = std::move(rv);
    }
    return callback(type, object);
  };
  net::StreamOptions stream{stop, {}};
  if (options.timeout_seconds > 0) stream.read_timeout = std::chrono::seconds(options.timeout_seconds + 30);
  net::HttpResult response = transport_->stream_lines(target, on_line, stream);
  if (stop.stop_requested()) return last_resource_version;
  response = net::successful(net::HttpRequest{"GET", target, {}, {}}, std::move(response));
  if (!response) return kube_error(response.error());
  if (failure) return std::move(*failure);
  return last_resource_version;
}

}  // namespace scalewright::kube
