#include "net/http.h"

#include <utility>

namespace scalewright::net {

bool is_transient_status(int status) { return status == 0 || status == 429 || status >= 500; }

HttpResult successful(const HttpRequest& request, HttpResult answer) {
  if (!answer || (answer->status >= 200 && answer->status < 300)) return answer;
  HttpResponse& response = *answer;
  return HttpError{request.method, request.path, response.status, response.retry_after_seconds,
                   std::move(response.body), {}};
}

Authorize bearer_token(std::function<Result<std::string>()> token) {
  return [token = std::move(token)](const HttpRequest&, std::vector<HttpHeader>& headers) -> std::optional<Error> {
    Result<std::string> value = token();
    if (!value) return value.error();
    if (!value->empty()) headers.push_back({"Authorization", "Bearer " + *value});
    return std::nullopt;
  };
}

}  // namespace scalewright::net
