#include "cli/escaped_output.h"

#include "api/escape.h"

namespace scalewright::cli {

EscapingBuffer::int_type EscapingBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  xsputn(&ch, 1);
  return c;
}

std::streamsize EscapingBuffer::xsputn(const char* text, std::streamsize size) {
  for (std::streamsize i = 0; i < size; ++i) {
    if (text[i] != '\n') {
      held_ += text[i];
      continue;
    }
    emit(/*line_end=*/true);
    out_->sputc('\n');
  }
  return size;
}

void EscapingBuffer::emit(bool line_end) {
  // 0xC2 may begin a C1 control (U+0080-U+009F) with the next byte: kept until it comes, unless the line ends.
  const bool lead = !line_end && !held_.empty() && static_cast<unsigned char>(held_.back()) == 0xc2;
  const std::string line = escape_control(std::string_view(held_).substr(0, held_.size() - (lead ? 1 : 0)));
  out_->sputn(line.data(), static_cast<std::streamsize>(line.size()));
  held_ = lead ? std::string(1, '\xc2') : std::string();
}

int EscapingBuffer::sync() {
  emit(/*line_end=*/false);
  return out_->pubsync();
}

}  // namespace scalewright::cli
