#include "data/csv_table.h"

#include <csv.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

namespace scalewright::data {
namespace {

// What libcsv's callbacks fill in. libcsv knows nothing of lines, so the text is fed one line at a time and the
// line a row starts on is noted before its first byte is parsed.
struct ParseState {
  std::vector<std::string> fields;
  std::vector<CsvRow> rows;
  std::size_t width = 0;           // fields in the first row, to size the next rows up front
  std::size_t line = 0;            // the line being fed
  std::size_t row_start_line = 0;  // where the row being collected began
  bool between_rows = true;
};

void on_field(void* text, std::size_t length, void* data) {
  auto* state = static_cast<ParseState*>(data);
  state->fields.emplace_back(static_cast<const char*>(text), length);
}

void on_row_end(int /*terminator*/, void* data) {
  auto* state = static_cast<ParseState*>(data);
  if (state->rows.empty()) state->width = state->fields.size();
  state->rows.push_back(CsvRow{state->row_start_line, std::move(state->fields)});
  state->fields.clear();
  state->fields.reserve(state->width);
  state->between_rows = true;
}

bool is_blank_line(std::string_view line) {
  return line.find_first_not_of("\r\n") == std::string_view::npos;
}

// RAII for the C parser.
class Parser {
 public:
  Parser() { ok_ = csv_init(&parser_, CSV_STRICT | CSV_STRICT_FINI) == 0; }
  ~Parser() {
    if (ok_) csv_free(&parser_);
  }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;
  bool ok() const { return ok_; }
  csv_parser* get() { return &parser_; }

 private:
  csv_parser parser_{};
  bool ok_ = false;
};

}  // namespace

Result<CsvTable> CsvTable::read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno))};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Error{fmt::format("{}: read failed", path.string())};
  return parse(buffer.str(), path.string());
}

Result<CsvTable> CsvTable::parse(std::string_view text, std::string source) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte-order mark is not data
  Parser parser;
  if (!parser.ok()) return Error{fmt::format("{}: cannot initialise the CSV parser", source)};

  ParseState state;
  state.rows.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  std::size_t offset = 0;
  while (offset < text.size()) {
    std::size_t end = text.find('\n', offset);
    end = end == std::string_view::npos ? text.size() : end + 1;
    std::string_view line = text.substr(offset, end - offset);
    ++state.line;
    if (state.between_rows && !is_blank_line(line)) {
      state.row_start_line = state.line;
      state.between_rows = false;
    }
    if (csv_parse(parser.get(), line.data(), line.size(), on_field, on_row_end, &state) != line.size()) {
      return Error{fmt::format("{}:{}: column {}: malformed CSV ({})", source, state.line, state.fields.size() + 1,
                               csv_strerror(csv_error(parser.get())))};
    }
    offset = end;
  }
  if (csv_fini(parser.get(), on_field, on_row_end, &state) != 0) {
    return Error{fmt::format("{}:{}: column {}: malformed CSV ({}; a quoted field is not closed)", source,
                             state.row_start_line, state.fields.size() + 1,
                             csv_strerror(csv_error(parser.get())))};
  }

  if (state.rows.empty()) return Error{fmt::format("{}:1: empty file, expected a header row", source)};
  CsvTable table;
  table.source_ = std::move(source);
  table.header_ = std::move(state.rows.front().fields);
  std::unordered_set<std::string_view> seen;
  for (std::size_t i = 0; i < table.header_.size(); ++i) {
    if (table.header_[i].empty()) {
      return Error{fmt::format("{}:{}: column {}: empty column name in the header", table.source_,
                               state.rows.front().line, i + 1)};
    }
    if (!seen.insert(table.header_[i]).second) {
      return Error{fmt::format("{}:{}: column {}: duplicate column name \"{}\"", table.source_,
                               state.rows.front().line, i + 1, table.header_[i])};
    }
  }
  table.rows_.reserve(state.rows.size() - 1);
  for (std::size_t i = 1; i < state.rows.size(); ++i) {
    CsvRow& row = state.rows[i];
    if (row.fields.size() != table.header_.size()) {
      return Error{fmt::format("{}:{}: column {}: expected {} fields as in the header, found {}", table.source_,
                               row.line, std::min(row.fields.size(), table.header_.size()) + 1,
                               table.header_.size(), row.fields.size())};
    }
    table.rows_.push_back(std::move(row));
  }
  return table;
}

std::optional<std::size_t> CsvTable::find_column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return std::nullopt;
}

Result<std::size_t> CsvTable::column(std::string_view name) const {
  if (auto index = find_column(name)) return *index;
  return Error{fmt::format("{}:1: missing column \"{}\" in the header", source_, name)};
}

Error CsvTable::error_at(const CsvRow& row, std::size_t column, std::string_view why) const {
  std::string_view name = column < header_.size() ? std::string_view(header_[column]) : std::string_view("?");
  return Error{fmt::format("{}:{}: column {} \"{}\": {}", source_, row.line, column + 1, name, why)};
}

Result<std::int64_t> CsvTable::integer(const CsvRow& row, std::size_t column) const {
  const std::string& field = row[column];
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (field.empty() || error != std::errc() || end != field.data() + field.size()) {
    return error_at(row, column, fmt::format("expected an integer, found \"{}\"", field));
  }
  return value;
}

Result<std::optional<std::int64_t>> CsvTable::optional_integer(const CsvRow& row, std::size_t column) const {
  if (row[column].empty()) return std::optional<std::int64_t>();
  Result<std::int64_t> value = integer(row, column);
  if (!value) return value.error();
  return std::optional<std::int64_t>(*value);
}

Result<double> CsvTable::number(const CsvRow& row, std::size_t column) const {
  const std::string& field = row[column];
  double value = 0;
  auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (field.empty() || error != std::errc() || end != field.data() + field.size() || !std::isfinite(value)) {
    return error_at(row, column, fmt::format("expected a number, found \"{}\"", field));
  }
  return value;
}

Result<std::string> CsvTable::text(const CsvRow& row, std::size_t column) const {
  if (row[column].empty()) return error_at(row, column, "must not be empty");
  return row[column];
}

Result<bool> CsvTable::boolean(const CsvRow& row, std::size_t column) const {
  if (row[column] == "true") return true;
  if (row[column] == "false") return false;
  return error_at(row, column, fmt::format("expected true or false, found \"{}\"", row[column]));
}

}  // namespace scalewright::data
