#include "cluster/node_object_names.h"

#include <algorithm>

namespace scalewright::cluster {

void NodeObjectNames::link(const std::string& record, const std::string& object) {
  unlink(record);
  if (record == object) return;
  object_of_[record] = object;
  record_of_[object] = record;
}

void NodeObjectNames::unlink(const std::string& record) {
  auto found = object_of_.find(record);
  if (found == object_of_.end()) return;
  record_of_.erase(found->second);
  object_of_.erase(found);
}

std::string NodeObjectNames::object_of(const std::string& record) const {
  auto found = object_of_.find(record);
  return found == object_of_.end() ? record : found->second;
}

std::string NodeObjectNames::record_of(const std::string& object) const {
  auto found = record_of_.find(object);
  return found == record_of_.end() ? object : found->second;
}

std::string NodeObjectNames::in_text(std::string text) const {
  if (object_of_.empty()) return text;
  constexpr std::string_view kWord = "node ";
  // A node's name runs to the first character a Kubernetes name cannot hold (DNS subdomain: a-z, 0-9, '-', '.'),
  // less a trailing '.' that ends a sentence.
  const auto in_name = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'; };
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = text.find(kWord); at != std::string::npos; at = text.find(kWord, at)) {
    const std::size_t begin = at + kWord.size();
    std::size_t end = begin;
    while (end < text.size() && in_name(text[end])) ++end;
    while (end > begin && text[end - 1] == '.') --end;
    auto found = object_of_.find(text.substr(begin, end - begin));
    if (found != object_of_.end()) {
      out.append(text, from, begin - from);
      out += found->second;
      from = end;
    }
    at = std::max(end, begin);
  }
  if (from == 0) return text;
  out.append(text, from, std::string::npos);
  return out;
}

}  // namespace scalewright::cluster
