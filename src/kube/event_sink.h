#pragma once
// Events (events.k8s.io/v1) about the objects Scalewright acts on, with upstream's reasons (Nominated,
// Launched, DisruptionBlocked, ...). Written by a thread of their own: an Event is for people reading `kubectl
// describe`, and a slow or failing API server must never hold a decision back. When the API server cannot keep up,
// the oldest waiting Events are dropped and counted, as client-go's broadcaster drops them.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "kube/api_client.h"

namespace scalewright::kube {

struct ObjectReference {
  std::string api_version;  // "v1", "karpenter.sh/v1"
  std::string kind;         // "Pod"
  std::string namespace_;   // empty for cluster-scoped objects
  std::string name;
  std::string uid;  // may be empty
};

struct EventRecord {
  ObjectReference regarding;
  std::string type = "Normal";  // or "Warning"
  std::string reason;           // "Nominated"
  std::string action;           // what was done: "Launch", "Evict", "Delete", ...
  std::string note;             // the message
};

// The events.k8s.io/v1 Event for `event`, named after its object as client-go names them.
nlohmann::json event_object(const EventRecord& event, const std::string& controller, const std::string& instance,
                            std::chrono::system_clock::time_point now);

class EventSink {
 public:
  // `controller`: reportingController ("scalewright.dev/controller"); `instance`: reportingInstance (the pod).
  EventSink(const ApiClient& client, std::string controller, std::string instance, std::size_t max_waiting = 1000);
  ~EventSink();
  EventSink(const EventSink&) = delete;
  EventSink& operator=(const EventSink&) = delete;

  void emit(EventRecord event);
  // Waits until every Event emitted so far was written or dropped (at shutdown, and for tests).
  void flush();

  std::uint64_t written() const { return written_; }
  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t failed() const { return failed_; }

 private:
  void run();

  const ApiClient& client_;
  std::string controller_;
  std::string instance_;
  std::size_t max_waiting_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<EventRecord> waiting_;
  bool busy_ = false;
  bool stopping_ = false;
  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> failed_{0};
  std::thread thread_;
};

}  // namespace scalewright::kube
