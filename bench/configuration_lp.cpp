// Why GLPK (Debian's libglpk-dev) and not COIN-OR CLP: the bound needs an LP solver for the master and an exact
// integer solver for the pricing knapsacks and the integer plan. GLPK is both in one C library of one package
// (simplex with warm starts after added columns, branch and bound with a time limit and a callback to hand it a
// starting plan); CLP is an LP solver only, and its MIP (CBC) would bring Cbc, Cgl and Osi besides. The master
// has one row per pod class (25 for peer workload (a)): small LPs, where GLPK's simplex is not the cost.
#include "configuration_lp.h"

#include <glpk.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <utility>

namespace scalewright::bench {
namespace {

using Clock = std::chrono::steady_clock;

// GLPK proves a knapsack's optimum to its tolerances (tol_obj 1e-7, relative), not exactly: the bound divides by
// knapsack values inflated by this much, so that it stays below the one exact arithmetic would give.
constexpr double kSolverSlack = 1e-6;
// A column prices out when its reduced cost is below -kImproves × its price (noise below that is the simplex's).
constexpr double kImproves = 1e-9;

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  return a > std::numeric_limits<std::int64_t>::max() - b ? std::numeric_limits<std::int64_t>::max() : a + b;
}
std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  return b != 0 && a > std::numeric_limits<std::int64_t>::max() / b ? std::numeric_limits<std::int64_t>::max() : a * b;
}

struct GlpProb {
  struct Free {
    void operator()(glp_prob* p) const { glp_delete_prob(p); }
  };
  std::unique_ptr<glp_prob, Free> p{glp_create_prob()};
  glp_prob* get() const { return p.get(); }
};

// The instance in integers: each resource divided by the gcd of the pods' requests of it, so that the knapsack
// rows are small exact integers (memory in units of 128 MiB rather than bytes) and stay well scaled for GLPK.
// With every request a multiple of g, Σ a_i r_i ≤ C holds exactly when Σ a_i (r_i / g) ≤ floor(C / g).
struct Option {
  std::size_t input = 0;           // index into the caller's options
  std::vector<std::int64_t> room;  // per resource, scaled, clipped at the pods' total (more is never used)
  std::vector<std::int64_t> most;  // per class: the most pods of it one node holds, at most the class's count
  double price = 0;
  std::unique_ptr<GlpProb> knapsack;  // built on first exact pricing
};

struct Pattern {
  std::size_t option = 0;          // index into the kept options
  std::vector<std::int64_t> pods;  // per class
  friend auto operator<=>(const Pattern&, const Pattern&) = default;
};

class Solver {
 public:
  Solver(const std::vector<PodClass>& classes, const std::vector<NodeOption>& options,
         const ConfigurationLpOptions& settings)
      : input_classes_(classes), input_options_(options), settings_(settings) {}

  ConfigurationLpResult solve();

 private:
  void scale();
  void keep_options();
  void add_column(Pattern pattern);
  bool solve_master();
  // The knapsack's upper bound without solving it: for each resource alone, the fractional knapsack (greedy by
  // value per unit), the least of them. Dropping the other resources' rows and integrality only relaxes it.
  double knapsack_upper_bound(const Option& option, const std::vector<double>& pi) const;
  // The knapsack by branch and bound (GLPK's MIP, for at most settings_.knapsack_time_limit_seconds): the best
  // pattern found, its value, and whether GLPK proved it optimal (else the value is no bound on the optimum).
  struct Priced {
    std::vector<std::int64_t> pods;
    double value = 0;
    bool proven = false;
  };
  Priced knapsack_exact(Option& option, const std::vector<double>& pi);
  bool fits(const Option& option, const std::vector<std::int64_t>& pods) const;
  bool out_of_time(Clock::time_point start) const {
    return std::chrono::duration<double>(Clock::now() - start).count() >= settings_.time_limit_seconds;
  }
  void integer_plan(ConfigurationLpResult& result);

  const std::vector<PodClass>& input_classes_;
  const std::vector<NodeOption>& input_options_;
  const ConfigurationLpOptions& settings_;

  std::vector<Symbol> resources_;
  std::vector<std::int64_t> scale_;               // per resource: the gcd the requests were divided by
  std::vector<std::size_t> classes_;              // the placeable classes, as indexes into the input
  std::vector<std::vector<std::int64_t>> need_;   // per placeable class, per resource: scaled request
  std::vector<std::int64_t> count_;               // per placeable class
  std::vector<Option> options_;
  std::vector<Pattern> columns_;
  std::set<Pattern> known_;
  GlpProb master_;
  std::vector<std::size_t> unplaceable_;
};

void Solver::scale() {
  std::set<Symbol> names;
  for (const PodClass& c : input_classes_) {
    if (c.count <= 0) continue;
    for (const auto& [name, amount] : c.requests.entries()) {
      if (amount > 0) names.insert(name);
    }
  }
  resources_.assign(names.begin(), names.end());
  scale_.assign(resources_.size(), 0);
  for (std::size_t k = 0; k < resources_.size(); ++k) {
    for (const PodClass& c : input_classes_) {
      if (c.count > 0) scale_[k] = std::gcd(scale_[k], c.requests.get(resources_[k]));
    }
  }
}

void Solver::keep_options() {
  // Per class and per option, how many pods one node holds; classes no option holds are left out.
  const std::size_t K = resources_.size();
  auto scaled_need = [&](const PodClass& c) {
    std::vector<std::int64_t> need(K);
    for (std::size_t k = 0; k < K; ++k) need[k] = c.requests.get(resources_[k]) / scale_[k];
    return need;
  };
  auto scaled_room = [&](const NodeOption& o) {
    std::vector<std::int64_t> room(K);
    for (std::size_t k = 0; k < K; ++k) {
      const std::int64_t left = o.allocatable.get(resources_[k]) - o.daemon_overhead.get(resources_[k]);
      room[k] = std::max<std::int64_t>(0, left) / scale_[k];
    }
    return room;
  };
  auto holds = [&](const std::vector<std::int64_t>& room, const std::vector<std::int64_t>& need, std::int64_t cap) {
    std::int64_t most = cap;
    for (std::size_t k = 0; k < K; ++k) {
      if (need[k] > 0) most = std::min(most, room[k] / need[k]);
    }
    return most;
  };
  for (std::size_t i = 0; i < input_classes_.size(); ++i) {
    const PodClass& c = input_classes_[i];
    if (c.count <= 0) continue;
    const std::vector<std::int64_t> need = scaled_need(c);
    const bool somewhere = std::any_of(input_options_.begin(), input_options_.end(), [&](const NodeOption& o) {
      return o.price >= 0 && holds(scaled_room(o), need, 1) > 0;
    });
    if (!somewhere) {
      unplaceable_.push_back(i);
      continue;
    }
    classes_.push_back(i);
    need_.push_back(need);
    count_.push_back(c.count);
  }
  std::vector<std::int64_t> total(K, 0);
  for (std::size_t i = 0; i < classes_.size(); ++i) {
    for (std::size_t k = 0; k < K; ++k) total[k] = saturating_add(total[k], saturating_mul(need_[i][k], count_[i]));
  }
  std::vector<Option> all;
  for (std::size_t t = 0; t < input_options_.size(); ++t) {
    if (input_options_[t].price < 0) continue;
    Option o;
    o.input = t;
    o.price = input_options_[t].price;
    o.room = scaled_room(input_options_[t]);
    for (std::size_t k = 0; k < K; ++k) o.room[k] = std::min(o.room[k], total[k]);
    bool any = false;
    for (std::size_t i = 0; i < classes_.size(); ++i) {
      o.most.push_back(holds(o.room, need_[i], count_[i]));
      any = any || o.most.back() > 0;
    }
    if (any) all.push_back(std::move(o));  // a type that holds no pod is never priced
  }
  // Dominance: a type no cheaper than another and no larger in any resource holds no pattern the other cannot,
  // for no less: it is in no optimum. Of two equal ones the first is kept.
  auto beats = [&](const Option& a, std::size_t ai, const Option& b, std::size_t bi) {
    if (a.price > b.price) return false;
    for (std::size_t k = 0; k < K; ++k) {
      if (a.room[k] < b.room[k]) return false;
    }
    return a.price < b.price || a.room != b.room || ai < bi;
  };
  std::vector<bool> beaten(all.size(), false);
  for (std::size_t b = 0; b < all.size(); ++b) {
    for (std::size_t a = 0; a < all.size() && !beaten[b]; ++a) beaten[b] = a != b && beats(all[a], a, all[b], b);
  }
  for (std::size_t b = 0; b < all.size(); ++b) {
    if (!beaten[b]) options_.push_back(std::move(all[b]));
  }
}

bool Solver::fits(const Option& option, const std::vector<std::int64_t>& pods) const {
  for (std::size_t k = 0; k < resources_.size(); ++k) {
    std::int64_t used = 0;
    for (std::size_t i = 0; i < pods.size(); ++i) used = saturating_add(used, saturating_mul(pods[i], need_[i][k]));
    if (used > option.room[k]) return false;
  }
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (pods[i] < 0 || pods[i] > option.most[i]) return false;
  }
  return true;
}

void Solver::add_column(Pattern pattern) {
  if (!known_.insert(pattern).second) return;  // already a column: could only repeat itself
  glp_prob* p = master_.get();
  const int j = glp_add_cols(p, 1);
  glp_set_col_bnds(p, j, GLP_LO, 0, 0);
  glp_set_obj_coef(p, j, options_[pattern.option].price);
  std::vector<int> index{0};
  std::vector<double> value{0};
  for (std::size_t i = 0; i < pattern.pods.size(); ++i) {
    if (pattern.pods[i] > 0) {
      index.push_back(static_cast<int>(i) + 1);
      value.push_back(static_cast<double>(pattern.pods[i]));
    }
  }
  glp_set_mat_col(p, j, static_cast<int>(index.size()) - 1, index.data(), value.data());
  columns_.push_back(std::move(pattern));
}

bool Solver::solve_master() {
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.meth = GLP_PRIMAL;  // added columns keep the last basis primal feasible: primal simplex resumes from it
  return glp_simplex(master_.get(), &parm) == 0 && glp_get_status(master_.get()) == GLP_OPT;
}

double Solver::knapsack_upper_bound(const Option& option, const std::vector<double>& pi) const {
  double all = 0;
  for (std::size_t i = 0; i < pi.size(); ++i) all += pi[i] * static_cast<double>(option.most[i]);
  double best = all;
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < resources_.size(); ++k) {
    double value = 0;
    order.clear();
    for (std::size_t i = 0; i < pi.size(); ++i) {
      if (pi[i] <= 0 || option.most[i] == 0) continue;
      if (need_[i][k] == 0) {
        value += pi[i] * static_cast<double>(option.most[i]);
      } else {
        order.push_back(i);
      }
    }
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return pi[a] * static_cast<double>(need_[b][k]) > pi[b] * static_cast<double>(need_[a][k]);
    });
    double room = static_cast<double>(option.room[k]);
    for (std::size_t i : order) {
      const double size = static_cast<double>(need_[i][k]);
      const double take = std::min(static_cast<double>(option.most[i]), room / size);
      value += take * pi[i];
      room -= take * size;
      if (room <= 0) break;
    }
    best = std::min(best, value);
  }
  return best;
}

Solver::Priced Solver::knapsack_exact(Option& option, const std::vector<double>& pi) {
  const std::size_t m = classes_.size();
  if (!option.knapsack) {
    option.knapsack = std::make_unique<GlpProb>();
    glp_prob* p = option.knapsack->get();
    glp_set_obj_dir(p, GLP_MAX);
    glp_add_cols(p, static_cast<int>(m));
    for (std::size_t i = 0; i < m; ++i) {
      const int j = static_cast<int>(i) + 1;
      glp_set_col_kind(p, j, GLP_IV);
      if (option.most[i] == 0) {
        glp_set_col_bnds(p, j, GLP_FX, 0, 0);
      } else {
        glp_set_col_bnds(p, j, GLP_DB, 0, static_cast<double>(option.most[i]));
      }
    }
    for (std::size_t k = 0; k < resources_.size(); ++k) {
      std::vector<int> index{0};
      std::vector<double> value{0};
      std::int64_t most_used = 0;
      for (std::size_t i = 0; i < m; ++i) {
        if (need_[i][k] > 0 && option.most[i] > 0) {
          index.push_back(static_cast<int>(i) + 1);
          value.push_back(static_cast<double>(need_[i][k]));
          most_used = saturating_add(most_used, saturating_mul(need_[i][k], option.most[i]));
        }
      }
      if (most_used <= option.room[k]) continue;  // every pattern the bounds allow fits: no row needed
      const int row = glp_add_rows(p, 1);
      glp_set_row_bnds(p, row, GLP_UP, 0, static_cast<double>(option.room[k]));
      glp_set_mat_row(p, row, static_cast<int>(index.size()) - 1, index.data(), value.data());
    }
  }
  glp_prob* p = option.knapsack->get();
  std::vector<std::int64_t> pods(m, 0);
  if (glp_get_num_rows(p) == 0) {  // every pattern within the counts fits: take them all
    double value = 0;
    for (std::size_t i = 0; i < m; ++i) {
      pods[i] = option.most[i];
      value += pi[i] * static_cast<double>(pods[i]);
    }
    return {pods, value, true};
  }
  for (std::size_t i = 0; i < m; ++i) glp_set_obj_coef(p, static_cast<int>(i) + 1, pi[i]);
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;
  // A knapsack of a large type (hundreds of pods of each of many classes) can keep branch and bound busy for
  // minutes among patterns of equal value; past the limit its best pattern is still a column, unproven.
  parm.tm_lim = std::max(1, static_cast<int>(settings_.knapsack_time_limit_seconds * 1000));
  const int status = glp_intopt(p, &parm);
  if ((status != 0 && status != GLP_ETMLIM) || (glp_mip_status(p) != GLP_OPT && glp_mip_status(p) != GLP_FEAS)) {
    return {pods, 0, false};  // no pattern: the knapsack's fractional bound stands in for its value
  }
  double value = 0;
  for (std::size_t i = 0; i < m; ++i) {
    pods[i] = std::llround(glp_mip_col_val(p, static_cast<int>(i) + 1));
    value += pi[i] * static_cast<double>(pods[i]);
  }
  const bool proven = status == 0 && glp_mip_status(p) == GLP_OPT;
  return {pods, proven ? std::max(value, glp_mip_obj_val(p)) : value, proven};
}

// Column generation. Each master solve gives duals π ≥ 0 and the restricted optimum z = Σ π_i n_i. Farley's bound:
// with λ ≥ max over types t of (max_a π·a) / c_t (the pricing knapsack's optimum per dollar), π/λ is a feasible
// dual of the full master (π/λ · a ≤ c for every pattern of every type), so by weak duality
//     LB = Σ_i π_i n_i / λ  ≤  the full LP's optimum  ≤  any integer plan's cost.
// λ comes from exact pricing (GLPK's proven optimum, inflated by kSolverSlack) or, for a type not solved, from its
// fractional upper bound; it is taken at least 1 (which only lowers LB). When no column prices out, λ ≈ 1 and LB
// is the LP optimum. The best LB over the iterations is reported: each one is valid.
ConfigurationLpResult Solver::solve() {
  const Clock::time_point start = Clock::now();
  glp_term_out(GLP_OFF);
  ConfigurationLpResult result;
  scale();
  keep_options();
  result.unplaceable = unplaceable_;
  result.options_priced = options_.size();
  const std::size_t m = classes_.size();
  if (m == 0) {
    result.converged = true;
    return result;
  }
  glp_prob* p = master_.get();
  glp_set_obj_dir(p, GLP_MIN);
  glp_add_rows(p, static_cast<int>(m));
  for (std::size_t i = 0; i < m; ++i) {
    glp_set_row_bnds(p, static_cast<int>(i) + 1, GLP_LO, static_cast<double>(count_[i]), 0);
  }
  // A feasible start: each class on its own, on the type that holds it most cheaply per pod.
  for (std::size_t i = 0; i < m; ++i) {
    std::size_t best = options_.size();
    for (std::size_t t = 0; t < options_.size(); ++t) {
      if (options_[t].most[i] == 0) continue;
      if (best == options_.size() || options_[t].price * static_cast<double>(options_[best].most[i]) <
                                         options_[best].price * static_cast<double>(options_[t].most[i])) {
        best = t;
      }
    }
    Pattern alone{best, std::vector<std::int64_t>(m, 0)};
    alone.pods[i] = options_[best].most[i];
    add_column(std::move(alone));
  }
  std::vector<double> pi(m);
  std::vector<std::pair<double, std::size_t>> order;  // (upper bound per dollar, type), most promising first
  double best_bound = 0;
  while (true) {
    if (!solve_master()) return result;  // cannot happen with a feasible start: no bound, no plan
    ++result.iterations;
    result.master_cost = glp_get_obj_val(p);
    double dual_objective = 0;
    for (std::size_t i = 0; i < m; ++i) {
      pi[i] = std::max(0.0, glp_get_row_dual(p, static_cast<int>(i) + 1));
      dual_objective += pi[i] * static_cast<double>(count_[i]);
    }
    order.clear();
    for (std::size_t t = 0; t < options_.size(); ++t) {
      const double upper = knapsack_upper_bound(options_[t], pi);
      order.emplace_back(options_[t].price > 0 ? upper / options_[t].price
                                               : (upper > 0 ? std::numeric_limits<double>::infinity() : 0),
                         t);
    }
    std::sort(order.begin(), order.end(), std::greater<>());
    double lambda = 1;
    bool improving = false;
    std::vector<Pattern> found;
    for (const auto& [upper_per_dollar, t] : order) {
      if (upper_per_dollar <= 1 + kImproves) {
        // Sorted: no type from here on prices out, and none is worth more per dollar than this one.
        lambda = std::max(lambda, upper_per_dollar * (1 + kSolverSlack));
        break;
      }
      // Partial pricing: with enough columns found, or out of time, the types left count at their fractional
      // bounds (sorted: this one's is the largest of them). Farley's bound stays valid; the next master resumes.
      if (found.size() >= settings_.columns_per_iteration || out_of_time(start)) {
        lambda = std::max(lambda, upper_per_dollar * (1 + kSolverSlack));
        improving = true;
        break;
      }
      Priced priced = knapsack_exact(options_[t], pi);
      lambda = std::max(lambda, (priced.proven ? priced.value : upper_per_dollar * options_[t].price) *
                                    (1 + kSolverSlack) / options_[t].price);
      if (!priced.proven) improving = true;
      if (priced.value > options_[t].price * (1 + kImproves)) {
        improving = true;
        Pattern pattern{t, std::move(priced.pods)};
        if (fits(options_[t], pattern.pods) && !known_.contains(pattern)) found.push_back(std::move(pattern));
      }
    }
    best_bound = std::max(best_bound, dual_objective / lambda);
    if (!improving) result.converged = true;
    // Stopped before the new columns go in, so that the master's solution and basis stay its optimum.
    if (found.empty() || result.iterations >= settings_.max_iterations || out_of_time(start)) {
      break;
    }
    for (Pattern& pattern : found) add_column(std::move(pattern));
  }
  result.lower_bound = best_bound;
  result.columns = columns_.size();
  std::map<std::size_t, double> by_option;
  for (std::size_t j = 0; j < columns_.size(); ++j) {
    const double x = glp_get_col_prim(p, static_cast<int>(j) + 1);
    if (x > 1e-9) by_option[columns_[j].option] += x;
  }
  for (const auto& [t, count] : by_option) result.mix.emplace_back(input_options_[options_[t].input].name, count);
  std::stable_sort(result.mix.begin(), result.mix.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  integer_plan(result);
  return result;
}

struct Heuristic {
  const std::vector<double>* start = nullptr;
  bool given = false;
};

void offer_start(glp_tree* tree, void* info) {
  auto* heuristic = static_cast<Heuristic*>(info);
  if (glp_ios_reason(tree) == GLP_IHEUR && !heuristic->given) {
    heuristic->given = true;
    glp_ios_heur_sol(tree, heuristic->start->data());
  }
}

// The best integer plan over the generated columns: the LP's counts rounded down, the pods they leave covered by
// a small MIP over the same columns; then branch and bound on the whole restricted master, started from that plan,
// until the time limit.
void Solver::integer_plan(ConfigurationLpResult& result) {
  const std::size_t m = classes_.size();
  const std::size_t n = columns_.size();
  glp_prob* p = master_.get();
  std::vector<double> x(n + 1, 0);  // GLPK's arrays count from 1
  std::vector<std::int64_t> left = count_;
  for (std::size_t j = 0; j < n; ++j) {
    x[j + 1] = std::floor(glp_get_col_prim(p, static_cast<int>(j) + 1) + 1e-9);
    for (std::size_t i = 0; i < m; ++i) {
      left[i] -= static_cast<std::int64_t>(x[j + 1]) * columns_[j].pods[i];
    }
  }
  auto cost_of = [&](const std::vector<double>& counts) {
    double cost = 0;
    for (std::size_t j = 0; j < n; ++j) cost += counts[j + 1] * options_[columns_[j].option].price;
    return cost;
  };
  {
    GlpProb rest;
    glp_prob* r = rest.get();
    glp_set_obj_dir(r, GLP_MIN);
    std::vector<int> row_of(m, 0);
    for (std::size_t i = 0; i < m; ++i) {
      if (left[i] <= 0) continue;
      row_of[i] = glp_add_rows(r, 1);
      glp_set_row_bnds(r, row_of[i], GLP_LO, static_cast<double>(left[i]), 0);
    }
    glp_add_cols(r, static_cast<int>(n));
    for (std::size_t j = 0; j < n; ++j) {
      const int col = static_cast<int>(j) + 1;
      glp_set_col_kind(r, col, GLP_IV);
      glp_set_col_bnds(r, col, GLP_LO, 0, 0);
      glp_set_obj_coef(r, col, options_[columns_[j].option].price);
      std::vector<int> index{0};
      std::vector<double> value{0};
      for (std::size_t i = 0; i < m; ++i) {
        if (row_of[i] > 0 && columns_[j].pods[i] > 0) {
          index.push_back(row_of[i]);
          value.push_back(static_cast<double>(std::min(columns_[j].pods[i], left[i])));
        }
      }
      glp_set_mat_col(r, col, static_cast<int>(index.size()) - 1, index.data(), value.data());
    }
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    parm.tm_lim = static_cast<int>(settings_.integer_time_limit_seconds * 500);  // half the time
    if (glp_get_num_rows(r) > 0 && glp_intopt(r, &parm) == 0 &&
        (glp_mip_status(r) == GLP_OPT || glp_mip_status(r) == GLP_FEAS)) {
      for (std::size_t j = 0; j < n; ++j) x[j + 1] += std::round(glp_mip_col_val(r, static_cast<int>(j) + 1));
    } else if (glp_get_num_rows(r) > 0) {
      // No plan for the rest in time: round every count up instead (it covers every class).
      for (std::size_t j = 0; j < n; ++j) x[j + 1] = std::ceil(glp_get_col_prim(p, static_cast<int>(j) + 1) - 1e-9);
    }
  }
  double best = cost_of(x);
  std::vector<double> plan = x;
  {
    for (std::size_t j = 0; j < n; ++j) glp_set_col_kind(p, static_cast<int>(j) + 1, GLP_IV);
    Heuristic heuristic{&x, false};
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_OFF;  // so that the callback's columns are the master's own; its basis is optimal
    parm.cb_func = offer_start;
    parm.cb_info = &heuristic;
    parm.mip_gap = 1e-6;
    parm.tm_lim = static_cast<int>(settings_.integer_time_limit_seconds * 500);
    const int status = glp_intopt(p, &parm);
    if ((status == 0 || status == GLP_ETMLIM || status == GLP_EMIPGAP) &&
        (glp_mip_status(p) == GLP_OPT || glp_mip_status(p) == GLP_FEAS)) {
      std::vector<double> found(n + 1, 0);
      for (std::size_t j = 0; j < n; ++j) found[j + 1] = std::round(glp_mip_col_val(p, static_cast<int>(j) + 1));
      if (cost_of(found) < best) {
        best = cost_of(found);
        plan = found;
      }
      result.integer_proven = status == 0 && glp_mip_status(p) == GLP_OPT;
    }
  }
  result.integer_cost = best;
  std::map<std::size_t, std::int64_t> by_option;
  for (std::size_t j = 0; j < n; ++j) {
    if (plan[j + 1] > 0) by_option[columns_[j].option] += static_cast<std::int64_t>(plan[j + 1]);
  }
  for (const auto& [t, count] : by_option) {
    result.integer_plan.emplace_back(input_options_[options_[t].input].name, count);
  }
  std::stable_sort(result.integer_plan.begin(), result.integer_plan.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
}

}  // namespace

std::string ConfigurationLpResult::mix_text() const {
  std::string text;
  for (const auto& [name, count] : mix) {
    char number[32];
    std::snprintf(number, sizeof number, "%.1f ", count);
    text += (text.empty() ? "" : " + ") + std::string(number) + name;
  }
  return text;
}

std::string ConfigurationLpResult::integer_plan_text() const {
  std::string text;
  for (const auto& [name, count] : integer_plan) {
    text += (text.empty() ? "" : " + ") + std::to_string(count) + " " + name;
  }
  return text;
}

ConfigurationLpResult solve_configuration_lp(const std::vector<PodClass>& classes,
                                             const std::vector<NodeOption>& options,
                                             const ConfigurationLpOptions& settings) {
  return Solver(classes, options, settings).solve();
}

}  // namespace scalewright::bench
