#include "data/csv_table.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "testdata.h"

namespace scalewright::data {
namespace {

TEST(CsvTable, MapsHeaderNamesToColumnsAndKeepsLineNumbers) {
  // Line 3 is blank, line 4 ends in CRLF, line 5 quotes a comma.
  Result<CsvTable> table = CsvTable::parse("name,price\nm5.large,0.096\n\nc5.large,0.085\r\n\"a,b\",1\n", "inline");
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(table->column("price").value(), 1u);
  ASSERT_EQ(table->rows().size(), 3u);
  EXPECT_EQ(table->rows()[0].line, 2u);
  EXPECT_EQ(table->rows()[1].line, 4u);
  EXPECT_EQ(table->rows()[1][0], "c5.large");
  EXPECT_EQ(table->rows()[2].line, 5u);
  EXPECT_EQ(table->rows()[2][0], "a,b");
  EXPECT_DOUBLE_EQ(table->number(table->rows()[1], 1).value(), 0.085);
}

TEST(CsvTable, TypedFieldErrorsNameFileLineAndColumn) {
  Result<CsvTable> table = CsvTable::parse("name,vcpu\nm5.large,two\n", "types.csv");
  ASSERT_TRUE(table.ok());
  Result<std::int64_t> vcpu = table->integer(table->rows()[0], 1);
  ASSERT_FALSE(vcpu.ok());
  EXPECT_EQ(vcpu.error().message, "types.csv:2: column 2 \"vcpu\": expected an integer, found \"two\"");
}

TEST(CsvTable, MissingColumnIsAnError) {
  Result<CsvTable> table = CsvTable::parse("name,vcpu\n", "types.csv");
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->column("memory_mib").error().message, "types.csv:1: missing column \"memory_mib\" in the header");
}

TEST(CsvTable, RowWithTooFewFieldsIsAnErrorAtItsLine) {
  Result<CsvTable> table = CsvTable::read(kTestdata / "short-row.csv");
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.error().message, (kTestdata / "short-row.csv").string() +
                                       ":3: column 3: expected 3 fields as in the header, found 2");
}

TEST(CsvTable, UnterminatedQuoteIsAnErrorAtTheRowWhereItOpens) {
  Result<CsvTable> table = CsvTable::read(kTestdata / "unterminated-quote.csv");
  ASSERT_FALSE(table.ok());
  const std::string& message = table.error().message;
  EXPECT_EQ(message.rfind((kTestdata / "unterminated-quote.csv").string() + ":3: column 2: malformed CSV", 0), 0u)
      << message;
}

TEST(CsvTable, MissingFileIsAnErrorNamingIt) {
  Result<CsvTable> table = CsvTable::read(kTestdata / "no-such-file.csv");
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.error().message.find("no-such-file.csv: cannot open"), std::string::npos) << table.error().message;
}

}  // namespace
}  // namespace scalewright::data
