// The signer against AWS's own SigV4 test suite (../shared/aws/sigv4-test-suite/v4, unmodified): for each case the
// canonical request, the string to sign, the signature and the Authorization header must be AWS's, byte for byte.
// The cases with "normalize": false follow S3's path rules, which no service this signer serves uses: skipped.
#include "cloud/aws/sigv4.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "manifest/meta_decoder.h"

namespace scalewright::cloud::aws {
namespace {

namespace fs = std::filesystem;

const fs::path kSuite = fs::path(SCALEWRIGHT_SOURCE_DIR) / ".." / "shared" / "aws" / "sigv4-test-suite" / "v4";

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// request.txt: "METHOD PATH[?QUERY] HTTP/1.1", headers "Name:value" (a line starting with a space continues the
// previous value), a blank line, the body.
SigningRequest parse_request(const std::string& text) {
  SigningRequest request;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  const std::size_t space = line.find(' ');
  request.method = line.substr(0, space);
  std::string target = line.substr(space + 1, line.rfind(" HTTP/") - space - 1);
  const std::size_t question = target.find('?');
  request.path = target.substr(0, question);
  if (question != std::string::npos) request.query = target.substr(question + 1);
  while (std::getline(in, line) && !line.empty()) {
    if (line[0] == ' ' && !request.headers.empty()) {
      request.headers.back().second += "\n" + line;
      continue;
    }
    const std::size_t colon = line.find(':');
    request.headers.emplace_back(line.substr(0, colon), line.substr(colon + 1));
  }
  std::stringstream body;
  body << in.rdbuf();
  request.body = body.str();
  return request;
}

std::string authorization_of(const std::string& signed_request) {
  const std::size_t at = signed_request.find("\nAuthorization:");
  if (at == std::string::npos) return "";
  const std::size_t start = at + std::string("\nAuthorization:").size();
  return signed_request.substr(start, signed_request.find('\n', start) - start);
}

TEST(SigV4, EveryCaseOfAwsTestSuiteThatANonS3ServiceUsesSignsAsAwsDoes) {
  if (!fs::exists(kSuite)) GTEST_SKIP() << kSuite << " is absent";
  int checked = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(kSuite)) {
    const fs::path dir = entry.path();
    const nlohmann::json context = nlohmann::json::parse(read(dir / "context.json"));
    if (!context.value("normalize", true)) continue;
    SCOPED_TRACE(dir.filename().string());
    Credentials credentials{context["credentials"]["access_key_id"], context["credentials"]["secret_access_key"],
                            context["credentials"].value("token", "")};
    // A token added after signing (post-sts-header-after) is left out of the signature.
    if (context.value("omit_session_token", false)) credentials.session_token.clear();
    const std::chrono::sys_seconds now{
        std::chrono::seconds(*manifest::parse_rfc3339(context["timestamp"].get<std::string>()))};
    const SigningScope scope{context["region"], context["service"], context.value("sign_body", false)};
    const Signature signature = sign(parse_request(read(dir / "request.txt")), credentials, scope, now);
    EXPECT_EQ(signature.canonical_request, read(dir / "header-canonical-request.txt"));
    EXPECT_EQ(signature.string_to_sign, read(dir / "header-string-to-sign.txt"));
    EXPECT_EQ(signature.signature, read(dir / "header-signature.txt"));
    EXPECT_EQ(signature.headers.back().second, authorization_of(read(dir / "header-signed-request.txt")));
    ++checked;
  }
  EXPECT_EQ(checked, 31);  // 38 cases, 7 of them by S3's path rules
}

TEST(SigV4, UriEncodingKeepsOnlyUnreservedCharacters) {
  EXPECT_EQ(uri_encode("a-b_c.d~e/f g+h=é", false), "a-b_c.d~e%2Ff%20g%2Bh%3D%C3%A9");
  EXPECT_EQ(uri_encode("/a b/", true), "/a%20b/");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
}  // namespace scalewright::cloud::aws
