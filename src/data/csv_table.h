#pragma once
// A CSV file read whole through libcsv: a header row naming the columns, then rows of strings. Every error says
// which file, line and column it is about, so a bad data row can be found and fixed by hand.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/result.h"

namespace scalewright::data {

struct CsvRow {
  std::size_t line = 0;  // 1-based line of the file where the row starts
  std::vector<std::string> fields;

  const std::string& operator[](std::size_t column) const { return fields[column]; }
};

class CsvTable {
 public:
  // Reads `path` (RFC 4180 quoting, LF or CRLF line ends, blank lines skipped). Every row must have as many
  // fields as the header.
  static Result<CsvTable> read(const std::filesystem::path& path);
  // The same from text already in memory; `source` names it in errors.
  static Result<CsvTable> parse(std::string_view text, std::string source);

  const std::string& source() const { return source_; }
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<CsvRow>& rows() const { return rows_; }

  std::optional<std::size_t> find_column(std::string_view name) const;
  // The index of column `name`, or an error naming the file and the missing column.
  Result<std::size_t> column(std::string_view name) const;

  // Typed fields. Errors read `<file>:<line>: column <n> "<name>": <why>`.
  Result<std::int64_t> integer(const CsvRow& row, std::size_t column) const;
  // Empty → nullopt.
  Result<std::optional<std::int64_t>> optional_integer(const CsvRow& row, std::size_t column) const;
  Result<double> number(const CsvRow& row, std::size_t column) const;
  // The field must not be empty.
  Result<std::string> text(const CsvRow& row, std::size_t column) const;
  // "true" or "false".
  Result<bool> boolean(const CsvRow& row, std::size_t column) const;

  Error error_at(const CsvRow& row, std::size_t column, std::string_view why) const;

 private:
  std::string source_;
  std::vector<std::string> header_;
  std::vector<CsvRow> rows_;
};

}  // namespace scalewright::data
