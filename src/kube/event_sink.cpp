#include "kube/event_sink.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "api/timestamp.h"

namespace scalewright::kube {

using nlohmann::json;

// The API server refuses a note over 1 kB: a longer one is cut, at a character's start so that the JSON stays
// valid UTF-8 (explanations say "→").
std::string fit_note(const std::string& note) {
  constexpr std::size_t kMaxNote = 1024;
  if (note.size() <= kMaxNote) return note;
  std::size_t cut = kMaxNote - 3;
  while (cut > 0 && (static_cast<unsigned char>(note[cut]) & 0xC0) == 0x80) --cut;
  return note.substr(0, cut) + "...";
}

json event_object(const EventRecord& event, const std::string& controller, const std::string& instance,
                  std::chrono::system_clock::time_point now) {
  // client-go names an Event "<object>.<hex nanoseconds>": unique per object and instant, readable in a listing.
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  const std::string namespace_ = event.regarding.namespace_.empty() ? "default" : event.regarding.namespace_;
  json regarding = {{"apiVersion", event.regarding.api_version},
                    {"kind", event.regarding.kind},
                    {"name", event.regarding.name}};
  if (!event.regarding.namespace_.empty()) regarding["namespace"] = event.regarding.namespace_;
  if (!event.regarding.uid.empty()) regarding["uid"] = event.regarding.uid;
  return {{"apiVersion", "events.k8s.io/v1"},
          {"kind", "Event"},
          {"metadata", {{"name", fmt::format("{}.{:x}", event.regarding.name, nanos)}, {"namespace", namespace_}}},
          {"eventTime", format_micro_time(now)},
          {"reportingController", controller},
          {"reportingInstance", instance},
          {"action", event.action.empty() ? event.reason : event.action},
          {"reason", event.reason},
          {"type", event.type},
          {"note", fit_note(event.note)},
          {"regarding", regarding}};
}

EventSink::EventSink(const ApiClient& client, std::string controller, std::string instance, std::size_t max_waiting)
    : client_(client),
      controller_(std::move(controller)),
      instance_(std::move(instance)),
      max_waiting_(max_waiting),
      thread_([this] { run(); }) {}

EventSink::~EventSink() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void EventSink::emit(EventRecord event) {
  {
    std::lock_guard lock(mutex_);
    if (waiting_.size() >= max_waiting_) {
      waiting_.pop_front();
      ++dropped_;
    }
    waiting_.push_back(std::move(event));
  }
  wake_.notify_one();
}

void EventSink::flush() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return waiting_.empty() && !busy_; });
}

void EventSink::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !waiting_.empty(); });
    if (waiting_.empty()) return;  // stopping, nothing left
    EventRecord event = std::move(waiting_.front());
    waiting_.pop_front();
    busy_ = true;
    lock.unlock();
    const json object = event_object(event, controller_, instance_, std::chrono::system_clock::now());
    const std::string path =
        "/apis/events.k8s.io/v1/namespaces/" + object["metadata"]["namespace"].get<std::string>() + "/events";
    if (KubeResult<json> created = client_.create(path, object); created) {
      ++written_;
    } else {
      ++failed_;
      spdlog::warn("event {} about {} {} not written: {}", event.reason, event.regarding.kind, event.regarding.name,
                   created.error().describe());
    }
    lock.lock();
    busy_ = false;
    if (waiting_.empty()) idle_.notify_all();
  }
}

}  // namespace scalewright::kube
