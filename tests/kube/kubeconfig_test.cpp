#include "kube/kubeconfig.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace scalewright::kube {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// The PEM texts of the -data fields below, and their base64 (base64 -w0).
constexpr char kCaPem[] = "-----BEGIN CERTIFICATE-----\nMIIBkTCB+wIJAKHBfpegPjMC\n-----END CERTIFICATE-----\n";
constexpr char kCaData[] =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrVENCK3dJSkFLSEJmcGVnUGpNQwotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==";
constexpr char kCertPem[] = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUCA==\n-----END CERTIFICATE-----\n";
constexpr char kCertData[] =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJzekNDQVZtZ0F3SUJBZ0lVQ0E9PQotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==";
constexpr char kKeyPem[] = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEG\n-----END PRIVATE KEY-----\n";
constexpr char kKeyData[] =
    "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JR0hBZ0VBTUJNR0J5cUdTTTQ5QWdFRwotLS0tLUVORCBQUklWQVRFIEtFWS0tLS0tCg==";

// A kubeconfig with one context `NAME` whose cluster serves at SERVER, and a user with a static token.
std::string single(const std::string& name, const std::string& server) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: " + name + "\nclusters:\n- name: " + name +
         "\n  cluster:\n    server: " + server + "\nusers:\n- name: " + name + "\n  user:\n    token: token-" + name +
         "\ncontexts:\n- name: " + name + "\n  context:\n    cluster: " + name + "\n    user: " + name + "\n";
}

// A kubeconfig whose context `kind` uses cluster `kind` and user `kind`, with the given mappings' bodies.
std::string with(const std::string& cluster, const std::string& user, const std::string& context = "") {
  return "current-context: kind\nclusters:\n- name: kind\n  cluster:\n" + cluster + "users:\n- name: kind\n  user:\n" +
         user + "contexts:\n- name: kind\n  context:\n    cluster: kind\n    user: kind\n" + context;
}

constexpr char kServer[] = "    server: https://127.0.0.1:6443\n";
constexpr char kToken[] = "    token: abc\n";

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "scalewright-kube-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

  std::string write(const std::string& name, const std::string& text) const {
    fs::path file = path_ / name;
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
  }

 private:
  fs::path path_;
};

class KubeconfigTest : public ::testing::Test {
 protected:
  TempDir dir_;

  // The error loading `text` as the --kubeconfig file `config`, or "loaded".
  std::string error_of(const std::string& text, const std::string& context = "") {
    KubeconfigOptions options;
    options.kubeconfig = dir_.write("config", text);
    options.context = context;
    Result<ClusterConfig> config = load_kubeconfig(options);
    return config ? "loaded" : config.error().message;
  }
  std::string config_path() const { return (dir_.path() / "config").string(); }

  // What `options` resolve to; a failure is recorded and an empty config returned.
  static ClusterConfig loaded(const KubeconfigOptions& options) {
    Result<ClusterConfig> config = load_kubeconfig(options);
    if (!config) {
      ADD_FAILURE() << config.error().message;
      return {};
    }
    return *config;
  }
  static void expect_test_pems(const ClusterConfig& config) {
    EXPECT_EQ(config.certificate_authority, kCaPem);
    EXPECT_EQ(config.client_certificate, kCertPem);
    EXPECT_EQ(config.client_key, kKeyPem);
  }
};

TEST_F(KubeconfigTest, ExplicitKubeconfigWinsOverEnvironmentAndHome) {
  KubeconfigOptions options;
  options.kubeconfig = dir_.write("flag", single("flag", "https://flag:6443"));
  options.kubeconfig_env = dir_.write("env", single("env", "https://env:6443"));
  options.home = dir_.path().string();
  dir_.write(".kube/config", single("home", "https://home:6443"));
  ClusterConfig config = loaded(options);
  EXPECT_EQ(config.server, "https://flag:6443");
  EXPECT_EQ(config.bearer_token, "token-flag");
  EXPECT_EQ(config.source, "kubeconfig " + options.kubeconfig + " (context flag)");
}

TEST_F(KubeconfigTest, KubeconfigEnvironmentWinsOverHome) {
  KubeconfigOptions options;
  options.kubeconfig_env = dir_.write("env", single("env", "https://env:6443"));
  options.home = dir_.path().string();
  dir_.write(".kube/config", single("home", "https://home:6443"));
  ClusterConfig config = loaded(options);
  EXPECT_EQ(config.server, "https://env:6443");
}

TEST_F(KubeconfigTest, HomeKubeconfigWhenNothingElseIsGiven) {
  KubeconfigOptions options;
  options.home = dir_.path().string();
  std::string home_config = dir_.write(".kube/config", single("home", "https://home:6443/"));
  ClusterConfig config = loaded(options);
  EXPECT_EQ(config.server, "https://home:6443");  // no trailing slash
  EXPECT_EQ(config.namespace_, "default");
  EXPECT_EQ(config.source, "kubeconfig " + home_config + " (context home)");
}

TEST_F(KubeconfigTest, KubeconfigListMergesWithTheFirstFileWinning) {
  std::string first = dir_.write("a/config", R"(current-context: one
clusters:
- name: shared
  cluster: {server: "https://first:6443"}
users:
- name: me
  user: {token: first-token}
contexts:
- name: one
  context: {cluster: shared, user: me, namespace: first-ns}
)");
  std::string second = dir_.write("b/config", R"(current-context: two
clusters:
- name: shared
  cluster: {server: "https://second:6443"}
- name: only-second
  cluster: {server: "https://only-second:6443"}
users:
- name: me
  user: {token: second-token}
contexts:
- name: one
  context: {cluster: only-second, user: me}
- name: two
  context: {cluster: only-second, user: me, namespace: second-ns}
)");
  KubeconfigOptions options;
  options.kubeconfig_env = first + "::" + dir_.path().string() + "/absent:" + second + ":" + first;
  ClusterConfig config = loaded(options);
  EXPECT_EQ(config.server, "https://first:6443");
  EXPECT_EQ(config.bearer_token, "first-token");
  EXPECT_EQ(config.namespace_, "first-ns");
  EXPECT_EQ(config.source, "kubeconfig " + first + " (context one)");

  options.context = "two";  // only the second file has it; its user `me` is still the first file's
  config = loaded(options);
  EXPECT_EQ(config.server, "https://only-second:6443");
  EXPECT_EQ(config.bearer_token, "first-token");
  EXPECT_EQ(config.namespace_, "second-ns");
  EXPECT_EQ(config.source, "kubeconfig " + second + " (context two)");
}

TEST_F(KubeconfigTest, ContextFlagOverridesCurrentContext) {
  std::string text = single("a", "https://a:6443") + R"(- name: b
  context: {cluster: b, user: a, namespace: team-b}
)";
  text.replace(text.find("users:"), 0, "- name: b\n  cluster: {server: \"https://b:6443\"}\n");
  KubeconfigOptions options;
  options.kubeconfig = dir_.write("config", text);
  options.context = "b";
  ClusterConfig config = loaded(options);
  EXPECT_EQ(config.server, "https://b:6443");
  EXPECT_EQ(config.namespace_, "team-b");
  EXPECT_EQ(config.bearer_token, "token-a");
  EXPECT_EQ(config.source, "kubeconfig " + options.kubeconfig + " (context b)");
}

TEST_F(KubeconfigTest, RelativeFilesResolveAgainstTheKubeconfigsFolder) {
  dir_.write("kube/pki/ca.crt", kCaPem);
  dir_.write("kube/pki/client.crt", kCertPem);
  dir_.write("kube/pki/client.key", kKeyPem);
  std::string absolute_token = dir_.write("elsewhere/token", "secret\n");
  KubeconfigOptions options;
  options.kubeconfig = dir_.write("kube/config", with("    server: https://127.0.0.1:6443\n"
                                                     "    certificate-authority: pki/ca.crt\n",
                                                     "    client-certificate: pki/client.crt\n"
                                                     "    client-key: ./pki/client.key\n"
                                                     "    tokenFile: " + absolute_token + "\n"));
  ClusterConfig config = loaded(options);
  expect_test_pems(config);
  EXPECT_EQ(config.bearer_token, "secret");
  EXPECT_EQ(config.bearer_token_file, absolute_token);
  EXPECT_FALSE(config.insecure_skip_tls_verify);
}

TEST_F(KubeconfigTest, DataFieldsDecodeToTheExactPemText) {
  KubeconfigOptions options;
  // A line break inside base64 is allowed, as Go's decoder allows it.
  std::string ca_data = std::string(kCaData).insert(40, "\n      ");
  options.kubeconfig = dir_.write("config", with(std::string(kServer) + "    certificate-authority-data: " + ca_data + "\n",
                                                 std::string("    client-certificate-data: ") + kCertData +
                                                     "\n    client-key-data: " + kKeyData + "\n"));
  ClusterConfig config = loaded(options);
  expect_test_pems(config);
  EXPECT_EQ(config.bearer_token, "");
  EXPECT_EQ(config.bearer_token_file, "");
}

TEST_F(KubeconfigTest, TokenWinsOverTokenFileWhichIsReadAndKept) {
  dir_.write("token", "  from-file\n");
  KubeconfigOptions options;
  options.kubeconfig = dir_.write("config", with(kServer, "    token: inline\n    tokenFile: token\n"));
  ClusterConfig config = loaded(options);
  EXPECT_EQ(config.bearer_token, "inline");
  EXPECT_EQ(config.bearer_token_file, "");

  options.kubeconfig = dir_.write("config", with(kServer, "    tokenFile: token\n"));
  config = loaded(options);
  EXPECT_EQ(config.bearer_token, "from-file");
  EXPECT_EQ(config.bearer_token_file, (dir_.path() / "token").string());
}

TEST_F(KubeconfigTest, InsecureSkipTlsVerifyOnlyWhenTheFileSaysTrue) {
  KubeconfigOptions options;
  for (const auto& [line, expected] : std::initializer_list<std::pair<std::string, bool>>{
           {"", false},
           {"    insecure-skip-tls-verify: false\n", false},
           {"    insecure-skip-tls-verify: null\n", false},
           {"    insecure-skip-tls-verify: true\n", true}}) {
    options.kubeconfig = dir_.write("config", with(kServer + line, kToken));
    ClusterConfig config = loaded(options);
    EXPECT_EQ(config.insecure_skip_tls_verify, expected) << line;
  }
}

TEST_F(KubeconfigTest, MissingFilesAreNamed) {
  KubeconfigOptions options;
  options.kubeconfig = (dir_.path() / "nope").string();
  EXPECT_EQ(load_kubeconfig(options).error().message, options.kubeconfig + ": cannot read: No such file or directory");

  options = {};
  options.home = dir_.path().string();
  EXPECT_EQ(load_kubeconfig(options).error().message,
            (dir_.path() / ".kube/config").string() + ": cannot read: No such file or directory");

  options = {};
  options.kubeconfig_env = "/nonexistent/a:/nonexistent/b";
  EXPECT_EQ(load_kubeconfig(options).error().message,
            "KUBECONFIG=/nonexistent/a:/nonexistent/b: none of these files exists");

  EXPECT_EQ(load_kubeconfig(KubeconfigOptions{}).error().message,
            "no kubeconfig: --kubeconfig, KUBECONFIG and HOME are all unset");
}

TEST_F(KubeconfigTest, ContextErrorsNameTheFileAndField) {
  const std::string f = config_path();
  std::string no_current = with(kServer, kToken);
  no_current.erase(0, no_current.find('\n') + 1);
  EXPECT_EQ(error_of(no_current), f + ": current-context: not set, and no --context given");
  EXPECT_EQ(error_of("current-context: gone\n"), f + ": current-context: no context named \"gone\"");
  EXPECT_EQ(error_of(with(kServer, kToken), "other"), f + ": --context: no context named \"other\"");
  EXPECT_EQ(error_of("current-context: kind\ncontexts:\n- name: kind\n  context: {cluster: kind-x, user: kind}\n"),
            f + ": contexts[kind].context.cluster: no cluster named \"kind-x\"");
  EXPECT_EQ(error_of(with(kServer, kToken) + "- name: other\n  context: {cluster: kind, user: nobody}\n", "other"),
            f + ": contexts[other].context.user: no user named \"nobody\"");
  EXPECT_EQ(error_of("current-context: kind\ncontexts:\n- name: kind\n  context: {user: kind}\n"),
            f + ": contexts[kind].context.cluster: required");
  EXPECT_EQ(error_of("current-context: kind\ncontexts:\n- name: kind\n"), f + ": contexts[kind].context: required");
  EXPECT_EQ(error_of("contexts:\n- name: a\n- name: a\n"), f + ": contexts[1].name: duplicate name \"a\"");
  EXPECT_EQ(error_of("- just\n- a list\n"), f + ": expected a mapping, got a list");
  EXPECT_EQ(error_of("clusters: {}\n"), f + ": clusters: expected a list, got a mapping");
  EXPECT_THAT(error_of("clusters: [\n"), StartsWith(f + ": line 2, column 1: "));
}

TEST_F(KubeconfigTest, ClusterErrorsNameTheFileAndField) {
  const std::string f = config_path();
  EXPECT_EQ(error_of(with("    insecure-skip-tls-verify: true\n", kToken)), f + ": clusters[kind].cluster.server: required");
  EXPECT_EQ(error_of(with("    server: 127.0.0.1:6443\n", kToken)),
            f + ": clusters[kind].cluster.server: expected an https:// or http:// URL, got \"127.0.0.1:6443\"");
  EXPECT_EQ(error_of(with(std::string(kServer) + "    certificate-authority: missing-ca.crt\n", kToken)),
            f + ": clusters[kind].cluster.certificate-authority: cannot read \"" + (dir_.path() / "missing-ca.crt").string() +
                "\": No such file or directory");
  EXPECT_EQ(error_of(with(std::string(kServer) + "    certificate-authority-data: LS0t-LS1C\n", kToken)),
            f + ": clusters[kind].cluster.certificate-authority-data: illegal base64 data at input byte 4");
  EXPECT_EQ(error_of(with(std::string(kServer) + "    certificate-authority-data: LS0tLS1\n", kToken)),
            f + ": clusters[kind].cluster.certificate-authority-data: not valid base64 (a truncated or misplaced '=' or "
                "a length that is not a multiple of 4)");
  dir_.write("ca.crt", kCaPem);
  EXPECT_EQ(error_of(with(std::string(kServer) + "    certificate-authority: ca.crt\n    certificate-authority-data: " +
                              kCaData + "\n",
                          kToken)),
            f + ": clusters[kind].cluster.certificate-authority-data: cannot be set together with certificate-authority");
  EXPECT_EQ(error_of(with(std::string(kServer) + "    certificate-authority: ca.crt\n    insecure-skip-tls-verify: true\n",
                          kToken)),
            f + ": clusters[kind].cluster.insecure-skip-tls-verify: cannot be true together with a certificate authority");
  EXPECT_EQ(error_of(with(std::string(kServer) + "    insecure-skip-tls-verify: \"yes\"\n", kToken)),
            f + ": clusters[kind].cluster.insecure-skip-tls-verify: expected a boolean, got \"yes\"");
  EXPECT_EQ(error_of(with(std::string(kServer) + "    proxy-url: http://proxy:3128\n", kToken)),
            f + ": clusters[kind].cluster.proxy-url: proxies are not supported");
}

TEST_F(KubeconfigTest, UserErrorsNameTheFileAndField) {
  const std::string f = config_path();
  EXPECT_EQ(error_of(with(kServer, "    exec:\n      command: aws\n")),
            f + ": users[kind].user.exec: exec credential plugins are not supported");
  EXPECT_EQ(error_of(with(kServer, "    auth-provider: {name: gcp}\n")),
            f + ": users[kind].user.auth-provider: auth-provider plugins are not supported");
  EXPECT_EQ(error_of(with(kServer, "    username: admin\n    password: secret\n")),
            f + ": users[kind].user.username: basic authentication (username/password) is not supported");
  EXPECT_EQ(error_of(with(kServer, "    as: someone\n")), f + ": users[kind].user.as: impersonation is not supported");
  EXPECT_EQ(error_of(with(kServer, std::string("    client-certificate-data: ") + kCertData + "\n")),
            f + ": users[kind].user.client-key: required with client-certificate");
  EXPECT_EQ(error_of(with(kServer, "    client-key-data: \"%%%\"\n")),
            f + ": users[kind].user.client-key-data: illegal base64 data at input byte 0");
  EXPECT_EQ(error_of(with(kServer, "    tokenFile: absent-token\n")),
            f + ": users[kind].user.tokenFile: cannot read \"" + (dir_.path() / "absent-token").string() +
                "\": No such file or directory");
  dir_.write("empty-token", "\n");
  EXPECT_EQ(error_of(with(kServer, "    tokenFile: empty-token\n")),
            f + ": users[kind].user.tokenFile: \"" + (dir_.path() / "empty-token").string() + "\" is empty");
  EXPECT_EQ(error_of(with(kServer, "    token: [a]\n")), f + ": users[kind].user.token: expected a string, got a list");
}

// Sets an environment variable for one test and puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class InClusterTest : public ::testing::Test {
 protected:
  TempDir root_;
  const std::string account_ = "var/run/secrets/kubernetes.io/serviceaccount/";
};

TEST_F(InClusterTest, ServiceAccountFilesUnderRoot) {
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  std::string token = root_.write(account_ + "token", "eyJhbGciOi.projected\n");
  root_.write(account_ + "ca.crt", kCaPem);
  root_.write(account_ + "namespace", "autoscaling");
  Result<ClusterConfig> config = in_cluster_config(root_.path().string());
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->server, "https://10.96.0.1:443");
  EXPECT_EQ(config->bearer_token, "eyJhbGciOi.projected");
  EXPECT_EQ(config->bearer_token_file, token);
  EXPECT_EQ(config->certificate_authority, kCaPem);
  EXPECT_EQ(config->namespace_, "autoscaling");
  EXPECT_EQ(config->source, "in-cluster");
  EXPECT_FALSE(config->insecure_skip_tls_verify);
  EXPECT_EQ(config->client_certificate, "");
}

TEST_F(InClusterTest, Ipv6HostIsBracketedAndNamespaceDefaults) {
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "fd00:10:96::1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "6443");
  root_.write(account_ + "token", "t");
  root_.write(account_ + "ca.crt", kCaPem);
  Result<ClusterConfig> config = in_cluster_config(root_.path().string());
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->server, "https://[fd00:10:96::1]:6443");
  EXPECT_EQ(config->namespace_, "default");
}

TEST_F(InClusterTest, ErrorsNameWhatIsMissing) {
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  {
    ScopedEnv host("KUBERNETES_SERVICE_HOST", nullptr);
    EXPECT_EQ(in_cluster_config(root_.path().string()).error().message,
              "in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set (is this a pod?)");
  }
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  const std::string dir = (root_.path() / account_).string();
  EXPECT_EQ(in_cluster_config(root_.path().string()).error().message,
            "in-cluster config: " + dir + "token: cannot read: No such file or directory");
  root_.write(account_ + "token", "\n");
  EXPECT_EQ(in_cluster_config(root_.path().string()).error().message, "in-cluster config: " + dir + "token: empty");
  root_.write(account_ + "token", "t");
  EXPECT_EQ(in_cluster_config(root_.path().string()).error().message,
            "in-cluster config: " + dir + "ca.crt: cannot read: No such file or directory");
}

}  // namespace
}  // namespace scalewright::kube
