#pragma once
// AWS Signature Version 4, as every AWS API Scalewright calls (EC2, Auto Scaling, SQS, SSM, STS) checks a request:
// the canonical request (method, normalised and URI-encoded path, sorted query, the signed headers lower-cased and
// trimmed, the payload's SHA-256), the string to sign over the date and the credential scope, and the signature by a
// key derived from the secret for that date, region and service (HMAC-SHA256, OpenSSL's). Header signing only: the
// clients send `Authorization`, never presigned URLs. Paths are normalised as every service but S3 wants.
#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scalewright::cloud::aws {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty for long-term keys; signed as X-Amz-Security-Token
};

// A request to sign: its path (URI-encoded here for the canonical request: a path percent-encoded on the wire, as
// rest-json's are, is so encoded twice, as every service but S3 checks it), its query (as sent, encoded or not), its
// headers (Host among them) and its body.
struct SigningRequest {
  std::string method;
  std::string path = "/";
  std::string query;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// What signing adds to the request's headers, and the steps that led to it (for the tests and for a 403's log).
struct Signature {
  std::vector<std::pair<std::string, std::string>> headers;  // X-Amz-Date, X-Amz-Security-Token?, Authorization
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;  // 64 hex digits
};

struct SigningScope {
  std::string region;   // "us-east-1"
  std::string service;  // the signing name: "ec2", "autoscaling", "sqs", "ssm", "sts"
  // Also sign x-amz-content-sha256 (the payload's hash as a header), as some callers ask.
  bool sign_payload_header = false;
};

Signature sign(const SigningRequest& request, const Credentials& credentials, const SigningScope& scope,
               std::chrono::sys_seconds now);

// Lower-case hex of SHA-256 of `data`.
std::string sha256_hex(std::string_view data);
// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters (A-Z a-z 0-9 - _ . ~) kept, every other byte
// %XX with upper-case hex; '/' kept when `keep_slash`.
std::string uri_encode(std::string_view text, bool keep_slash);

}  // namespace scalewright::cloud::aws
