#include "cloud/aws/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "api/ascii.h"

namespace scalewright::cloud::aws {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";

std::string hex(const unsigned char* bytes, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    out.push_back(kDigits[bytes[i] >> 4]);
    out.push_back(kDigits[bytes[i] & 0xF]);
  }
  return out;
}

std::string hmac(std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), out.data(), &size);
  return std::string(reinterpret_cast<const char*>(out.data()), size);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX decoded; anything else as is ('+' too: SigV4 signs a query's '+' as %2B).
std::string percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 && hex_value(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// The path with dot segments removed and repeated slashes merged (RFC 3986 5.2.4), a trailing slash kept.
std::string normalized_path(std::string_view path) {
  std::vector<std::string_view> segments;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    const std::string_view segment = path.substr(start, slash == std::string_view::npos ? path.npos : slash - start);
    if (segment == "..") {
      if (!segments.empty()) segments.pop_back();
    } else if (!segment.empty() && segment != ".") {
      segments.push_back(segment);
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  std::string out;
  for (std::string_view segment : segments) out += "/" + std::string(segment);
  const bool trailing = !path.empty() && (path.back() == '/' || path.ends_with("/.") || path.ends_with("/.."));
  if (out.empty() || trailing) out += "/";
  return out;
}

std::string canonical_query(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::size_t start = 0;
  while (start < query.size()) {
    const std::size_t amp = query.find('&', start);
    const std::string_view item = query.substr(start, amp == std::string_view::npos ? query.npos : amp - start);
    if (!item.empty()) {
      const std::size_t eq = item.find('=');
      const std::string_view key = item.substr(0, eq);
      const std::string_view value = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
      pairs.emplace_back(uri_encode(percent_decode(key), false), uri_encode(percent_decode(value), false));
    }
    if (amp == std::string_view::npos) break;
    start = amp + 1;
  }
  std::sort(pairs.begin(), pairs.end());
  std::string out;
  for (const auto& [key, value] : pairs) out += (out.empty() ? "" : "&") + key + "=" + value;
  return out;
}

// A header's value as signed: leading and trailing blanks gone, each run of blanks (line folds included) one space.
std::string canonical_value(std::string_view value) {
  std::string out;
  bool blank = false;
  for (char c : value) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      blank = !out.empty();
      continue;
    }
    if (blank) out.push_back(' ');
    blank = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest.data());
  return hex(digest.data(), digest.size());
}

std::string uri_encode(std::string_view text, bool keep_slash) {
  std::string out;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out.push_back(ch);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

Signature sign(const SigningRequest& request, const Credentials& credentials, const SigningScope& scope,
               std::chrono::sys_seconds now) {
  Signature signed_request;
  const std::string amz_date = fmt::format("{:%Y%m%dT%H%M%SZ}", now);
  const std::string date = amz_date.substr(0, 8);
  const std::string payload_hash = sha256_hex(request.body);
  signed_request.headers.emplace_back("X-Amz-Date", amz_date);
  if (!credentials.session_token.empty()) {
    signed_request.headers.emplace_back("X-Amz-Security-Token", credentials.session_token);
  }
  if (scope.sign_payload_header) signed_request.headers.emplace_back("x-amz-content-sha256", payload_hash);

  // Headers by lower-case name, the values of a repeated name joined by commas in the order sent.
  std::map<std::string, std::string> headers;
  auto add = [&headers](std::string_view name, std::string_view value) {
    std::string& joined = headers[ascii_lower(name)];
    joined += (joined.empty() ? "" : ",") + canonical_value(value);
  };
  for (const auto& [name, value] : request.headers) add(name, value);
  for (const auto& [name, value] : signed_request.headers) add(name, value);
  std::string canonical_headers;
  std::string signed_headers;
  for (const auto& [name, value] : headers) {
    canonical_headers += name + ":" + value + "\n";
    signed_headers += (signed_headers.empty() ? "" : ";") + name;
  }
  signed_request.canonical_request = fmt::format(
      "{}\n{}\n{}\n{}\n{}\n{}", request.method, uri_encode(normalized_path(request.path), true),
      canonical_query(request.query), canonical_headers, signed_headers, payload_hash);

  const std::string credential_scope = fmt::format("{}/{}/{}/aws4_request", date, scope.region, scope.service);
  signed_request.string_to_sign = fmt::format("{}\n{}\n{}\n{}", kAlgorithm, amz_date, credential_scope,
                                              sha256_hex(signed_request.canonical_request));
  std::string key = hmac("AWS4" + credentials.secret_access_key, date);
  key = hmac(key, scope.region);
  key = hmac(key, scope.service);
  key = hmac(key, "aws4_request");
  const std::string raw = hmac(key, signed_request.string_to_sign);
  signed_request.signature = hex(reinterpret_cast<const unsigned char*>(raw.data()), raw.size());
  signed_request.headers.emplace_back(
      "Authorization", fmt::format("{} Credential={}/{}, SignedHeaders={}, Signature={}", kAlgorithm,
                                   credentials.access_key_id, credential_scope, signed_headers,
                                   signed_request.signature));
  return signed_request;
}

}  // namespace scalewright::cloud::aws
