// An exchange's values: which statuses may pass later, a non-2xx answer as an error, and the bearer-token hook.
#include "net/http.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace scalewright::net {
namespace {

TEST(HttpStatus, NoAnswerTooManyRequestsAndServerErrorsMayPassLater) {
  for (int status : {0, 429, 500, 502, 503, 504}) EXPECT_TRUE(is_transient_status(status)) << status;
  for (int status : {200, 201, 400, 401, 403, 404, 409, 410, 422}) EXPECT_FALSE(is_transient_status(status)) << status;
}

TEST(HttpError, ANon2xxAnswerBecomesAnErrorWithItsStatusBodyAndRetryAfter) {
  const HttpRequest request{"PUT", "/api/v1/nodes/n1", "application/json", "{}"};
  HttpResult ok = successful(request, HttpResponse{204, "", std::nullopt, ""});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->status, 204);

  HttpResult overloaded = successful(request, HttpResponse{503, "application/json", 7, R"({"kind":"Status"})"});
  ASSERT_FALSE(overloaded.ok());
  const HttpError& error = overloaded.error();
  EXPECT_EQ(error.method, "PUT");
  EXPECT_EQ(error.path, "/api/v1/nodes/n1");
  EXPECT_EQ(error.status, 503);
  EXPECT_EQ(error.retry_after_seconds, 7);
  EXPECT_EQ(error.body, R"({"kind":"Status"})");
  EXPECT_TRUE(error.answered());
  EXPECT_TRUE(error.is_transient());

  HttpResult missing = successful(request, HttpResponse{404, "", std::nullopt, "not here"});
  ASSERT_FALSE(missing.ok());
  EXPECT_FALSE(missing.error().is_transient());

  // No answer stays the error it was.
  HttpResult unanswered =
      successful(request, HttpError{"PUT", "/x", 0, std::nullopt, {}, "PUT http://h/x: cannot connect"});
  ASSERT_FALSE(unanswered.ok());
  EXPECT_FALSE(unanswered.error().answered());
  EXPECT_EQ(unanswered.error().message, "PUT http://h/x: cannot connect");
}

TEST(HttpAuthorize, ABearerTokenIsAskedForEveryRequestAndAnEmptyOneSendsNothing) {
  std::vector<std::string> tokens{"first", "", "second"};
  std::size_t asked = 0;
  Authorize authorize = bearer_token([&]() -> Result<std::string> { return tokens[asked++]; });
  const HttpRequest request{"GET", "/version", "", ""};
  std::vector<HttpHeader> headers;
  EXPECT_FALSE(authorize(request, headers).has_value());
  ASSERT_EQ(headers.size(), 1u);
  EXPECT_EQ(headers[0].name, "Authorization");
  EXPECT_EQ(headers[0].value, "Bearer first");
  headers.clear();
  EXPECT_FALSE(authorize(request, headers).has_value());
  EXPECT_TRUE(headers.empty());
  EXPECT_FALSE(authorize(request, headers).has_value());
  ASSERT_EQ(headers.size(), 1u);
  EXPECT_EQ(headers[0].value, "Bearer second");
  EXPECT_EQ(asked, 3u);

  Authorize refusing = bearer_token([]() -> Result<std::string> { return Error{"token file is empty"}; });
  headers.clear();
  std::optional<Error> refused = refusing(request, headers);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->message, "token file is empty");
  EXPECT_TRUE(headers.empty());
}

}  // namespace
}  // namespace scalewright::net
