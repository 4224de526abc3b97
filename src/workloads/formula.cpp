#include "workloads/formula.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace scalewright::workloads {

struct Formula::Value {
  bool is_bool = false;
  double number = 0;
  bool boolean = false;
};

// Recursive descent over the text; one level per precedence tier.
class Formula::Parser {
 public:
  Parser(std::string_view text, std::vector<Node>& nodes) : text_(text), nodes_(nodes) {}

  Result<int> parse_all() {
    Result<int> root = parse_cond();
    if (!root) return root;
    skip_space();
    if (pos_ < text_.size()) return error("unexpected \"" + std::string(text_.substr(pos_, 1)) + "\"");
    return root;
  }

 private:
  Error error(const std::string& why) const {
    return Error{"invalid formula \"" + std::string(text_) + "\" at column " + std::to_string(pos_ + 1) + ": " + why};
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  // Consumes `token` when it comes next (and, for words, is not the start of a longer name).
  bool accept(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) != token) return false;
    if (std::isalpha(static_cast<unsigned char>(token.back()))) {
      std::size_t after = pos_ + token.size();
      if (after < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[after])) || text_[after] == '_')) {
        return false;
      }
    }
    pos_ += token.size();
    return true;
  }

  int add(Node node) {
    nodes_.push_back(std::move(node));
    return static_cast<int>(nodes_.size()) - 1;
  }
  int binary(Op op, int a, int b) {
    Node n;
    n.op = op;
    n.a = a;
    n.b = b;
    return add(n);
  }

  Result<int> parse_cond() {
    Result<int> cond = parse_or();
    if (!cond) return cond;
    // `??` is expr-lang's nil coalescing; say so instead of reading it as a ternary.
    skip_space();
    if (text_.substr(pos_, 2) == "??") return error("operator \"??\" is not supported");
    if (!accept("?")) return cond;
    Result<int> yes = parse_cond();
    if (!yes) return yes;
    if (!accept(":")) return error("expected \":\" of the conditional");
    Result<int> no = parse_cond();
    if (!no) return no;
    Node n;
    n.op = Op::Cond;
    n.a = *cond;
    n.b = *yes;
    n.c = *no;
    return add(n);
  }

  Result<int> parse_or() {
    Result<int> left = parse_and();
    if (!left) return left;
    int node = *left;
    while (accept("||") || accept("or")) {
      Result<int> right = parse_and();
      if (!right) return right;
      node = binary(Op::Or, node, *right);
    }
    return node;
  }

  Result<int> parse_and() {
    Result<int> left = parse_equality();
    if (!left) return left;
    int node = *left;
    while (accept("&&") || accept("and")) {
      Result<int> right = parse_equality();
      if (!right) return right;
      node = binary(Op::And, node, *right);
    }
    return node;
  }

  Result<int> parse_equality() {
    Result<int> left = parse_relational();
    if (!left) return left;
    int node = *left;
    while (true) {
      Op op;
      if (accept("==")) {
        op = Op::Eq;
      } else if (accept("!=")) {
        op = Op::Ne;
      } else {
        return node;
      }
      Result<int> right = parse_relational();
      if (!right) return right;
      node = binary(op, node, *right);
    }
  }

  Result<int> parse_relational() {
    Result<int> left = parse_additive();
    if (!left) return left;
    int node = *left;
    while (true) {
      Op op;
      if (accept("<=")) {
        op = Op::Le;
      } else if (accept(">=")) {
        op = Op::Ge;
      } else if (accept("<")) {
        op = Op::Lt;
      } else if (accept(">")) {
        op = Op::Gt;
      } else {
        return node;
      }
      Result<int> right = parse_additive();
      if (!right) return right;
      node = binary(op, node, *right);
    }
  }

  Result<int> parse_additive() {
    Result<int> left = parse_multiplicative();
    if (!left) return left;
    int node = *left;
    while (true) {
      Op op;
      if (accept("+")) {
        op = Op::Add;
      } else if (accept("-")) {
        op = Op::Sub;
      } else {
        return node;
      }
      Result<int> right = parse_multiplicative();
      if (!right) return right;
      node = binary(op, node, *right);
    }
  }

  Result<int> parse_multiplicative() {
    Result<int> left = parse_unary();
    if (!left) return left;
    int node = *left;
    while (true) {
      skip_space();
      if (text_.substr(pos_, 2) == "**") return error("operator \"**\" is not supported");
      Op op;
      if (accept("*")) {
        op = Op::Mul;
      } else if (accept("/")) {
        op = Op::Div;
      } else if (accept("%")) {
        op = Op::Mod;
      } else {
        return node;
      }
      Result<int> right = parse_unary();
      if (!right) return right;
      node = binary(op, node, *right);
    }
  }

  Result<int> parse_unary() {
    Op op;
    if (accept("-")) {
      op = Op::Neg;
    } else if (accept("+")) {
      return parse_unary();
    } else if (accept("!") || accept("not")) {
      op = Op::Not;
    } else {
      return parse_primary();
    }
    Result<int> operand = parse_unary();
    if (!operand) return operand;
    Node n;
    n.op = op;
    n.a = *operand;
    return add(n);
  }

  Result<int> parse_primary() {
    skip_space();
    if (pos_ >= text_.size()) return error("unexpected end of formula");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      Result<int> inner = parse_cond();
      if (!inner) return inner;
      if (!accept(")")) return error("expected \")\"");
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      std::size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' || text_[pos_] == '_')) {
        ++pos_;
      }
      if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
        ++pos_;
        if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      }
      std::string literal;
      for (char ch : text_.substr(start, pos_ - start)) {
        if (ch != '_') literal += ch;  // expr-lang allows 1_000
      }
      char* end = nullptr;
      double value = std::strtod(literal.c_str(), &end);
      if (literal.empty() || end != literal.c_str() + literal.size()) {
        pos_ = start;
        return error("invalid number \"" + literal + "\"");
      }
      Node n;
      n.op = Op::Number;
      n.number = value;
      return add(n);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t start = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        ++pos_;
      }
      std::string name(text_.substr(start, pos_ - start));
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == '(') {
        pos_ = start;
        return error("function calls (\"" + name + "(\") are not supported");
      }
      if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == '[')) {
        return error("member access is not supported");
      }
      Node n;
      if (name == "true" || name == "false") {
        n.op = Op::Bool;
        n.number = name == "true" ? 1 : 0;
      } else if (name == "and" || name == "or" || name == "not") {
        pos_ = start;
        return error("expected a value before \"" + name + "\"");
      } else {
        n.op = Op::Name;
        n.name = std::move(name);
      }
      return add(n);
    }
    if (c == '"' || c == '\'') return error("strings are not supported");
    return error("unexpected \"" + std::string(1, c) + "\"");
  }

  std::string_view text_;
  std::vector<Node>& nodes_;
  std::size_t pos_ = 0;
};

Result<Formula> Formula::parse(std::string_view text) {
  Formula formula;
  formula.text_ = std::string(text);
  Parser parser(text, formula.nodes_);
  Result<int> root = parser.parse_all();
  if (!root) return root.error();
  for (const Node& n : formula.nodes_) {
    if (n.op == Op::Name) formula.names_.push_back(n.name);
  }
  std::sort(formula.names_.begin(), formula.names_.end());
  formula.names_.erase(std::unique(formula.names_.begin(), formula.names_.end()), formula.names_.end());
  return formula;
}

Result<double> Formula::evaluate(const std::map<std::string, double>& values) const {
  // expr-lang compiles against the trigger names, so an unknown name fails even in a branch not taken.
  for (const std::string& name : names_) {
    if (!values.contains(name)) {
      return Error{"formula \"" + text_ + "\": no value for \"" + name + "\" (formulas name triggers by their name)"};
    }
  }
  Result<Value> result = eval(static_cast<int>(nodes_.size()) - 1, values);
  if (!result) return result.error();
  if (result->is_bool) return Error{"formula \"" + text_ + "\" yields a boolean, not a number"};
  return result->number;
}

Result<Formula::Value> Formula::eval(int index, const std::map<std::string, double>& values) const {
  const Node& n = nodes_[static_cast<std::size_t>(index)];
  auto number = [](double v) { return Value{false, v, false}; };
  auto boolean = [](bool v) { return Value{true, 0, v}; };
  auto need_number = [&](const Value& v) -> Result<double> {
    if (v.is_bool) return Error{"formula \"" + text_ + "\": a boolean where a number is needed"};
    return v.number;
  };
  auto need_bool = [&](const Value& v) -> Result<bool> {
    if (!v.is_bool) return Error{"formula \"" + text_ + "\": a number where a boolean is needed"};
    return v.boolean;
  };
  switch (n.op) {
    case Op::Number:
      return number(n.number);
    case Op::Bool:
      return boolean(n.number != 0);
    case Op::Name:
      return number(values.at(n.name));
    case Op::Neg:
    case Op::Not: {
      Result<Value> a = eval(n.a, values);
      if (!a) return a;
      if (n.op == Op::Neg) {
        Result<double> x = need_number(*a);
        if (!x) return x.error();
        return number(-*x);
      }
      Result<bool> x = need_bool(*a);
      if (!x) return x.error();
      return boolean(!*x);
    }
    case Op::And:
    case Op::Or: {
      Result<Value> a = eval(n.a, values);
      if (!a) return a;
      Result<bool> x = need_bool(*a);
      if (!x) return x.error();
      if (n.op == Op::And && !*x) return boolean(false);
      if (n.op == Op::Or && *x) return boolean(true);
      Result<Value> b = eval(n.b, values);
      if (!b) return b;
      Result<bool> y = need_bool(*b);
      if (!y) return y.error();
      return boolean(*y);
    }
    case Op::Cond: {
      Result<Value> c = eval(n.a, values);
      if (!c) return c;
      Result<bool> x = need_bool(*c);
      if (!x) return x.error();
      return eval(*x ? n.b : n.c, values);
    }
    case Op::Eq:
    case Op::Ne: {
      Result<Value> a = eval(n.a, values);
      if (!a) return a;
      Result<Value> b = eval(n.b, values);
      if (!b) return b;
      if (a->is_bool != b->is_bool) return Error{"formula \"" + text_ + "\": comparing a boolean with a number"};
      bool equal = a->is_bool ? a->boolean == b->boolean : a->number == b->number;
      return boolean(n.op == Op::Eq ? equal : !equal);
    }
    default:
      break;
  }
  // The arithmetic and ordering operators: both sides numbers.
  Result<Value> a = eval(n.a, values);
  if (!a) return a;
  Result<Value> b = eval(n.b, values);
  if (!b) return b;
  Result<double> x = need_number(*a);
  if (!x) return x.error();
  Result<double> y = need_number(*b);
  if (!y) return y.error();
  switch (n.op) {
    case Op::Add:
      return number(*x + *y);
    case Op::Sub:
      return number(*x - *y);
    case Op::Mul:
      return number(*x * *y);
    case Op::Div:
    case Op::Mod:
      if (*y == 0) return Error{"formula \"" + text_ + "\": division by zero"};
      return number(n.op == Op::Div ? *x / *y : std::fmod(*x, *y));
    case Op::Lt:
      return boolean(*x < *y);
    case Op::Le:
      return boolean(*x <= *y);
    case Op::Gt:
      return boolean(*x > *y);
    case Op::Ge:
      return boolean(*x >= *y);
    default:
      return Error{"formula \"" + text_ + "\": internal error, unknown operator"};
  }
}

}  // namespace scalewright::workloads
