#pragma once
// KEDA's scalingModifiers.formula: an expression over the triggers' values, named by trigger name, that yields one
// number (KEDA compiles it with expr-lang and requires a float result). This is the subset such formulas use:
//   numbers (1, 2.5, 1e3), names ([A-Za-z_][A-Za-z0-9_]*), + - * / %, parentheses, unary - + and !,
//   comparisons < <= > >= == !=, && || (also `and`, `or`, `not`), `true`/`false`, and `cond ? a : b`.
// Precedence, loosest first: ?:, ||, &&, == !=, < <= > >=, + -, * / %, unary. Anything else (functions, strings,
// `??`, member access) is a parse error that quotes the formula and says where.
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/result.h"

namespace scalewright::workloads {

class Formula {
 public:
  static Result<Formula> parse(std::string_view text);

  // Errors: a name without a value, a number where a boolean is needed (or the reverse), division by zero (expr-lang
  // would give ±Inf, which no HPA can use), a boolean result.
  Result<double> evaluate(const std::map<std::string, double>& values) const;

  const std::string& text() const { return text_; }
  // Every name the formula reads, sorted, without duplicates.
  const std::vector<std::string>& names() const { return names_; }

 private:
  enum class Op {
    Number, Bool, Name, Neg, Not, Add, Sub, Mul, Div, Mod, Lt, Le, Gt, Ge, Eq, Ne, And, Or, Cond,
  };
  struct Node {
    Op op = Op::Number;
    double number = 0;
    std::string name;
    int a = -1, b = -1, c = -1;  // children, indices into nodes_
  };
  struct Value;
  class Parser;

  Result<Value> eval(int node, const std::map<std::string, double>& values) const;

  std::string text_;
  std::vector<Node> nodes_;  // children before parents; the root is the last one
  std::vector<std::string> names_;
};

}  // namespace scalewright::workloads
