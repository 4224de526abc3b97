#include "replay_server.h"

#include <algorithm>
#include <chrono>
#include <memory>

namespace scalewright::kube::testing {

using nlohmann::json;

ReplayServer::ReplayServer() {
  auto handler = [this](const httplib::Request& req, httplib::Response& res) { handle(req, res); };
  server_.Get(".*", handler);
  server_.Post(".*", handler);
  server_.Put(".*", handler);
  server_.Patch(".*", handler);
  server_.Delete(".*", handler);
  // httplib writes an answer's headers and body separately: without TCP_NODELAY every answer after the first on a
  // kept-alive connection waits for the client's delayed ACK (40 ms).
  server_.set_tcp_nodelay(true);
  port_ = server_.bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

ReplayServer::~ReplayServer() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  server_.stop();
  thread_.join();
}

void ReplayServer::expect(json exchange, httplib::Headers extra_headers, StreamEnd end) {
  std::lock_guard lock(mutex_);
  queue_.push_back(Expected{std::move(exchange), std::move(extra_headers), end});
}

bool ReplayServer::wait_until_served(int count, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return static_cast<int>(arrivals_.size()) >= count; });
}

std::vector<std::chrono::steady_clock::time_point> ReplayServer::arrivals() const {
  std::lock_guard lock(mutex_);
  return arrivals_;
}

std::vector<std::string> ReplayServer::problems() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out = problems_;
  for (const Expected& expected : queue_) {
    out.push_back("not requested: " + expected.exchange["request"]["method"].get<std::string>() + " " +
                  expected.exchange["request"]["path"].get<std::string>());
  }
  return out;
}

int ReplayServer::served() const {
  std::lock_guard lock(mutex_);
  return served_;
}

void ReplayServer::handle(const httplib::Request& req, httplib::Response& res) {
  std::unique_lock lock(mutex_);
  arrivals_.push_back(std::chrono::steady_clock::now());
  changed_.notify_all();
  std::string seen = req.method + " " + req.target;
  if (queue_.empty()) {
    problems_.push_back("unexpected request " + seen);
    res.status = 500;
    return;
  }
  auto [exchange, extra_headers, end] = std::move(queue_.front());
  queue_.pop_front();
  ++served_;
  const json& expected = exchange["request"];
  auto problem = [&](const std::string& what) { problems_.push_back(seen + ": " + what); };

  std::string want = expected["method"].get<std::string>() + " " + expected["path"].get<std::string>();
  if (seen != want) problem("expected " + want);
  if (req.get_header_value("Accept") != "application/json") problem("Accept is \"" + req.get_header_value("Accept") + "\"");
  if (req.get_header_value("User-Agent").rfind("scalewright/", 0) != 0) {
    problem("User-Agent is \"" + req.get_header_value("User-Agent") + "\"");
  }
  std::string content_type = expected["headers"].value("Content-Type", "");
  if (req.get_header_value("Content-Type") != content_type) {
    problem("Content-Type \"" + req.get_header_value("Content-Type") + "\", recorded \"" + content_type + "\"");
  }
  const json& body = expected["body"];
  if (body == ReplayServer::kAnyBody) {
    // A body the test cannot know to the byte (a time stamp in it): any is taken.
  } else if (body.is_null()) {
    if (!req.body.empty()) problem("sent a body, recorded none: " + req.body);
  } else if (body.is_string()) {
    if (req.body != body.get<std::string>()) problem("body differs: " + req.body);
  } else {
    json sent = json::parse(req.body, nullptr, false);
    if (sent != body) problem("JSON body differs: " + req.body);
  }

  const json& response = exchange["response"];
  res.status = response["status"].get<int>();
  for (const auto& [name, value] : extra_headers) res.set_header(name, value);
  std::string response_type = response["headers"].value("Content-Type", "application/json");
  lock.unlock();
  if (req.target.find("watch=1") != std::string::npos && response["body"].is_array()) {
    // The recorded lines, newline-delimited, cut into 1000-byte chunks: lines split across chunks and several
    // short lines in one chunk, which the server never did but a client must handle.
    auto stream = std::make_shared<std::string>();
    for (const json& line : response["body"]) *stream += line.dump() + "\n";
    bool hold_open = end == StreamEnd::HoldOpen;
    res.set_chunked_content_provider(response_type, [this, stream, hold_open](size_t offset,
                                                                              httplib::DataSink& sink) {
      if (offset >= stream->size() && hold_open) {
        std::unique_lock wait_lock(mutex_);
        changed_.wait_for(wait_lock, std::chrono::milliseconds(50), [&] { return closing_; });
        return !closing_ && sink.is_writable();
      }
      if (offset >= stream->size()) {
        sink.done();
        return true;
      }
      std::size_t n = std::min<std::size_t>(1000, stream->size() - offset);
      return sink.write(stream->data() + offset, n);
    });
    return;
  }
  res.set_content(response["body"].dump(), response_type);
}

}  // namespace scalewright::kube::testing
