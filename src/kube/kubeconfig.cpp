#include "kube/kubeconfig.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "api/ascii.h"

namespace scalewright::kube {
namespace {

namespace fs = std::filesystem;

// Why the configuration cannot be used. Thrown inside this file only and returned as an Error by the public
// functions, so the readers below stay straight-line code however deep the field.
struct Failure {
  std::string message;
};

[[noreturn]] void fail(const std::string& file, const std::string& field, const std::string& problem) {
  throw Failure{field.empty() ? fmt::format("{}: {}", file, problem) : fmt::format("{}: {}: {}", file, field, problem)};
}

std::string quote(const std::string& text) { return "\"" + text + "\""; }

// The whole file, or errno's description of why not.
struct FileText {
  std::optional<std::string> text;
  int error = 0;
};

FileText read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {std::nullopt, errno};
  std::string text;
  char buffer[16384];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      int error = errno;
      ::close(fd);
      return {std::nullopt, error};
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return {std::move(text), 0};
}

// Base64 as Go's encoding/json reads a []byte (padded standard alphabet; line breaks allowed), decoded by OpenSSL.
// EVP_DecodeUpdate skips whitespace but stops without a word at '-' (a PEM end line), so anything outside the
// alphabet is refused before it gets there.
std::optional<std::string> decode_base64(const std::string& text, std::string& why) {
  static constexpr char kAllowed[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/= \t\r\n";
  if (std::size_t bad = text.find_first_not_of(kAllowed); bad != std::string::npos) {
    why = fmt::format("illegal base64 data at input byte {}", bad);
    return std::nullopt;
  }
  if (text.size() > INT_MAX / 2) {
    why = "base64 data too long";
    return std::nullopt;
  }
  std::unique_ptr<EVP_ENCODE_CTX, decltype(&EVP_ENCODE_CTX_free)> context(EVP_ENCODE_CTX_new(), EVP_ENCODE_CTX_free);
  if (!context) {
    why = "cannot decode base64 (out of memory)";
    return std::nullopt;
  }
  std::string out(text.size() / 4 * 3 + 80, '\0');
  auto* bytes = reinterpret_cast<unsigned char*>(out.data());
  int updated = 0;
  int finished = 0;
  EVP_DecodeInit(context.get());
  if (EVP_DecodeUpdate(context.get(), bytes, &updated, reinterpret_cast<const unsigned char*>(text.data()),
                       static_cast<int>(text.size())) < 0 ||
      EVP_DecodeFinal(context.get(), bytes + updated, &finished) < 0) {
    why = "not valid base64 (a truncated or misplaced '=' or a length that is not a multiple of 4)";
    return std::nullopt;
  }
  out.resize(static_cast<std::size_t>(updated + finished));
  return out;
}

// One node of a kubeconfig with the file it came from and its field path ("users[admin].user.token"), so every
// problem can say where it is.
struct Node {
  std::string file;
  YAML::Node yaml;
  std::string path;

  bool present() const { return yaml.IsDefined() && !yaml.IsNull(); }
  [[noreturn]] void fail(const std::string& problem) const { kube::fail(file, path, problem); }

  std::string describe() const {
    if (yaml.IsMap()) return "a mapping";
    if (yaml.IsSequence()) return "a list";
    return quote(yaml.Scalar());
  }

  Node child(const std::string& key) const {
    std::string child_path = path.empty() ? key : path + "." + key;
    if (!present()) return {file, YAML::Node(YAML::NodeType::Undefined), std::move(child_path)};
    if (!yaml.IsMap()) fail("expected a mapping, got " + describe());
    // A missing key is yaml-cpp's "zombie" node, which throws when asked anything but IsDefined(): keep a plain
    // undefined node instead (never assign to it: a YAML::Node assignment writes through to the document).
    const YAML::Node& map = yaml;
    YAML::Node value = map[key];
    return {file, value.IsDefined() ? value : YAML::Node(YAML::NodeType::Undefined), std::move(child_path)};
  }

  // The string at `key`; "" when absent or null.
  std::string string_at(const std::string& key) const {
    Node field = child(key);
    if (!field.present()) return "";
    if (!field.yaml.IsScalar()) field.fail("expected a string, got " + field.describe());
    return field.yaml.Scalar();
  }

  // The boolean at `key` (YAML 1.1 spellings, as client-go's YAML reader takes them); false when absent or null.
  bool bool_at(const std::string& key) const {
    Node field = child(key);
    if (!field.present()) return false;
    bool value = false;
    if (!field.yaml.IsScalar() || field.yaml.Tag() == "!" || !YAML::convert<bool>::decode(field.yaml, value)) {
      field.fail("expected a boolean, got " + field.describe());
    }
    return value;
  }

  // A file this node names, relative to the kubeconfig's folder unless absolute, as client-go resolves it.
  std::string resolve(const std::string& name) const {
    fs::path named(name);
    return named.is_relative() ? (fs::path(file).parent_path() / named).string() : name;
  }

  std::string read_referenced(const std::string& name) const {
    std::string resolved = resolve(name);
    FileText read = read_file(resolved);
    if (!read.text) fail(fmt::format("cannot read {}: {}", quote(resolved), std::strerror(read.error)));
    return *read.text;
  }

  void refuse(std::initializer_list<std::pair<const char*, const char*>> unsupported) const {
    for (const auto& [key, why] : unsupported) {
      if (Node field = child(key); field.present()) field.fail(why);
    }
  }
};

// Every kubeconfig file read, merged as client-go merges them: the first file to name a cluster, user or context
// keeps it, and the first to set current-context decides it.
struct Kubeconfig {
  std::vector<std::string> files;
  std::string current_context;
  std::string current_context_file;
  std::map<std::string, Node> clusters;  // name -> its "cluster" mapping, at path clusters[NAME].cluster
  std::map<std::string, Node> users;
  std::map<std::string, Node> contexts;

  std::string file_list() const {
    std::string list;
    for (const std::string& file : files) list += (list.empty() ? "" : ":") + file;
    return list;
  }
};

void add_named(std::map<std::string, Node>& into, const Node& root, const std::string& list, const std::string& body) {
  Node items = root.child(list);
  if (!items.present()) return;
  if (!items.yaml.IsSequence()) items.fail("expected a list, got " + items.describe());
  std::set<std::string> seen;
  std::size_t index = 0;
  for (const YAML::Node& item : items.yaml) {
    Node entry{root.file, item, fmt::format("{}[{}]", list, index++)};
    std::string name = entry.string_at("name");
    if (!seen.insert(name).second) entry.child("name").fail("duplicate name " + quote(name));
    Node named{root.file, item, fmt::format("{}[{}]", list, name)};
    into.emplace(name, named.child(body));  // emplace keeps what an earlier file named so
  }
}

void merge_file(Kubeconfig& config, const std::string& file, const std::string& text) {
  YAML::Node document;
  try {
    document = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(file, "", fmt::format("line {}, column {}: {}", e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  Node root{file, document, ""};
  if (root.present() && !root.yaml.IsMap()) root.fail("expected a mapping, got " + root.describe());
  config.files.push_back(file);
  std::string current = root.string_at("current-context");
  if (config.current_context.empty() && !current.empty()) {
    config.current_context = current;
    config.current_context_file = file;
  }
  add_named(config.clusters, root, "clusters", "cluster");
  add_named(config.users, root, "users", "user");
  add_named(config.contexts, root, "contexts", "context");
}

// KUBECONFIG as filepath.SplitList reads it, without empty entries or repeats.
std::vector<std::string> split_paths(const std::string& value) {
  std::vector<std::string> paths;
  std::size_t start = 0;
  while (start <= value.size()) {
    std::size_t end = value.find(':', start);
    if (end == std::string::npos) end = value.size();
    std::string path = value.substr(start, end - start);
    if (!path.empty() && std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
    start = end + 1;
  }
  return paths;
}

void merge_required(Kubeconfig& config, const std::string& file) {
  FileText read = read_file(file);
  if (!read.text) fail(file, "", fmt::format("cannot read: {}", std::strerror(read.error)));
  merge_file(config, file, *read.text);
}

Kubeconfig load_files(const KubeconfigOptions& options) {
  Kubeconfig config;
  if (!options.kubeconfig.empty()) {
    merge_required(config, options.kubeconfig);
  } else if (!options.kubeconfig_env.empty()) {
    // As in client-go, a file of the list that does not exist is passed over; one that cannot be read is not.
    for (const std::string& file : split_paths(options.kubeconfig_env)) {
      FileText read = read_file(file);
      if (!read.text && read.error == ENOENT) continue;
      if (!read.text) fail(file, "", fmt::format("cannot read: {}", std::strerror(read.error)));
      merge_file(config, file, *read.text);
    }
    if (config.files.empty()) fail("KUBECONFIG=" + options.kubeconfig_env, "", "none of these files exists");
  } else if (!options.home.empty()) {
    merge_required(config, (fs::path(options.home) / ".kube" / "config").string());
  } else {
    throw Failure{"no kubeconfig: --kubeconfig, KUBECONFIG and HOME are all unset"};
  }
  return config;
}

// The PEM text of `field` (a file) or of `field`-data (base64); "" when neither is set, refused when both are.
std::string file_or_data(const Node& parent, const std::string& field) {
  std::string name = parent.string_at(field);
  std::string data = parent.string_at(field + "-data");
  if (!name.empty() && !data.empty()) parent.child(field + "-data").fail("cannot be set together with " + field);
  if (!name.empty()) return parent.child(field).read_referenced(name);
  if (data.empty()) return "";
  std::string why;
  std::optional<std::string> decoded = decode_base64(data, why);
  if (!decoded) parent.child(field + "-data").fail(why);
  return *decoded;
}

void read_cluster(const Node& cluster, ClusterConfig& out) {
  cluster.refuse({{"proxy-url", "proxies are not supported"},
                  {"tls-server-name", "a TLS server name other than the server's host is not supported"}});
  std::string server = cluster.string_at("server");
  if (server.empty()) cluster.child("server").fail("required");
  if (server.rfind("https://", 0) != 0 && server.rfind("http://", 0) != 0) {
    cluster.child("server").fail("expected an https:// or http:// URL, got " + quote(server));
  }
  while (server.back() == '/') server.pop_back();
  out.server = server;
  out.certificate_authority = file_or_data(cluster, "certificate-authority");
  out.insecure_skip_tls_verify = cluster.bool_at("insecure-skip-tls-verify");
  if (out.insecure_skip_tls_verify && !out.certificate_authority.empty()) {
    cluster.child("insecure-skip-tls-verify").fail("cannot be true together with a certificate authority");
  }
}

void read_user(const Node& user, ClusterConfig& out) {
  user.refuse({{"exec", "exec credential plugins are not supported"},
               {"auth-provider", "auth-provider plugins are not supported"},
               {"username", "basic authentication (username/password) is not supported"},
               {"password", "basic authentication (username/password) is not supported"},
               {"as", "impersonation is not supported"},
               {"as-uid", "impersonation is not supported"},
               {"as-groups", "impersonation is not supported"},
               {"as-user-extra", "impersonation is not supported"}});
  out.client_certificate = file_or_data(user, "client-certificate");
  out.client_key = file_or_data(user, "client-key");
  if (!out.client_certificate.empty() && out.client_key.empty()) {
    user.child("client-key").fail("required with client-certificate");
  }
  if (out.client_certificate.empty() && !out.client_key.empty()) {
    user.child("client-certificate").fail("required with client-key");
  }
  // client-go: token wins; tokenFile is read only without one, and kept so a rotated token is re-read.
  std::string token = user.string_at("token");
  std::string token_file = user.string_at("tokenFile");
  if (!token.empty()) {
    out.bearer_token = token;
  } else if (!token_file.empty()) {
    Node field = user.child("tokenFile");
    out.bearer_token = std::string(ascii_trim(field.read_referenced(token_file)));
    if (out.bearer_token.empty()) field.fail(fmt::format("{} is empty", quote(field.resolve(token_file))));
    out.bearer_token_file = field.resolve(token_file);
  }
}

ClusterConfig resolve(const Kubeconfig& config, const KubeconfigOptions& options) {
  const std::string& name = options.context.empty() ? config.current_context : options.context;
  if (name.empty()) fail(config.file_list(), "current-context", "not set, and no --context given");
  auto found = config.contexts.find(name);
  if (found == config.contexts.end()) {
    if (!options.context.empty()) fail(config.file_list(), "--context", "no context named " + quote(name));
    fail(config.current_context_file, "current-context", "no context named " + quote(name));
  }
  const Node& context = found->second;
  if (!context.present()) context.fail("required");

  std::string cluster_name = context.string_at("cluster");
  if (cluster_name.empty()) context.child("cluster").fail("required");
  auto cluster = config.clusters.find(cluster_name);
  if (cluster == config.clusters.end()) context.child("cluster").fail("no cluster named " + quote(cluster_name));
  std::string user_name = context.string_at("user");
  if (user_name.empty()) context.child("user").fail("required");
  auto user = config.users.find(user_name);
  if (user == config.users.end()) context.child("user").fail("no user named " + quote(user_name));

  ClusterConfig out;
  read_cluster(cluster->second, out);
  read_user(user->second, out);
  out.namespace_ = context.string_at("namespace");
  if (out.namespace_.empty()) out.namespace_ = "default";
  out.source = fmt::format("kubeconfig {} (context {})", context.file, name);
  return out;
}

std::string in_cluster_file(const fs::path& path) {
  FileText read = read_file(path.string());
  if (!read.text) fail("in-cluster config", path.string(), fmt::format("cannot read: {}", std::strerror(read.error)));
  return *read.text;
}

}  // namespace

KubeconfigOptions KubeconfigOptions::from_environment() {
  KubeconfigOptions options;
  if (const char* value = std::getenv("KUBECONFIG")) options.kubeconfig_env = value;
  if (const char* value = std::getenv("HOME")) options.home = value;
  return options;
}

Result<ClusterConfig> load_kubeconfig(const KubeconfigOptions& options) {
  try {
    return resolve(load_files(options), options);
  } catch (const Failure& failure) {
    return Error{failure.message};
  } catch (const YAML::Exception& e) {
    return Error{fmt::format("kubeconfig: {}", e.what())};
  }
}

Result<ClusterConfig> in_cluster_config(const std::string& root) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || *host == '\0' || port == nullptr || *port == '\0') {
    return Error{"in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set (is this a pod?)"};
  }
  const fs::path account = fs::path(root) / "var/run/secrets/kubernetes.io/serviceaccount";
  try {
    ClusterConfig out;
    std::string bracketed = std::strchr(host, ':') != nullptr ? fmt::format("[{}]", host) : std::string(host);
    out.server = fmt::format("https://{}:{}", bracketed, port);
    out.bearer_token_file = (account / "token").string();
    out.bearer_token = std::string(ascii_trim(in_cluster_file(out.bearer_token_file)));
    if (out.bearer_token.empty()) fail("in-cluster config", out.bearer_token_file, "empty");
    out.certificate_authority = in_cluster_file(account / "ca.crt");
    FileText ns = read_file((account / "namespace").string());
    out.namespace_ = ns.text ? std::string(ascii_trim(*ns.text)) : "";
    if (out.namespace_.empty()) out.namespace_ = "default";
    out.source = "in-cluster";
    return out;
  } catch (const Failure& failure) {
    return Error{failure.message};
  }
}

}  // namespace scalewright::kube
