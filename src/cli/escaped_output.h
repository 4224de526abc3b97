#pragma once
// Whatever a command prints reaches the terminal with its control characters escaped (escape_control): a name, a
// label value or a file holding "\x1b[2J" or a carriage return can neither drive the terminal nor fake a line of
// output, whichever line prints it (timeline, summary, errors and warnings, explain, check's placements, CLI11's
// messages). main puts one in front of stdout and stderr; only the progress line, which returns to the start of its
// line on purpose, is written past it, its own text escaped.
#include <ostream>
#include <streambuf>
#include <string>

namespace scalewright::cli {

// A stream buffer that writes each line to `out` through escape_control; "\n" ends a line and is kept.
class EscapingBuffer : public std::streambuf {
 public:
  explicit EscapingBuffer(std::streambuf* out) : out_(out) {}
  ~EscapingBuffer() override { emit(/*line_end=*/true); }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* text, std::streamsize size) override;
  int sync() override;

 private:
  // Writes what is held, escaped, but for a lead byte that may start a C1 control with what comes next (unless
  // `line_end`).
  void emit(bool line_end);

  std::streambuf* out_;
  std::string held_;
};

// An EscapingBuffer in front of `stream` while it lives; raw() is the buffer behind it.
class EscapedOutput {
 public:
  explicit EscapedOutput(std::ostream& stream) : stream_(stream), raw_(stream.rdbuf()), escaping_(raw_) {
    stream_.rdbuf(&escaping_);
  }
  ~EscapedOutput() {
    stream_.flush();
    stream_.rdbuf(raw_);
  }
  EscapedOutput(const EscapedOutput&) = delete;
  EscapedOutput& operator=(const EscapedOutput&) = delete;

  std::streambuf* raw() const { return raw_; }

 private:
  std::ostream& stream_;
  std::streambuf* raw_;
  EscapingBuffer escaping_;
};

}  // namespace scalewright::cli
