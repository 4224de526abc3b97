#pragma once
// A value that copies share until one of them changes it. The pods of one ReplicaSet carry the same containers,
// tolerations, volumes, affinity, owner reference and annotations: kept once per template instead of once per pod,
// they stop being most of a large cluster's state (150,000 pods). Reading never copies. Changing goes through
// mutate() or a mutator named as std::vector's and std::map's (push_back, insert, operator[] of a map, ...), which
// copy first when the value is shared; a non-const reader does not, so reading through a non-const object never
// breaks the sharing. An empty value allocates nothing: every empty one is the same.
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <type_traits>
#include <utility>

namespace scalewright {

template <typename T>
class CopyOnWrite {
 public:
  using value_type = typename T::value_type;
  using const_iterator = typename T::const_iterator;
  using size_type = typename T::size_type;

  CopyOnWrite() : value_(none()) {}
  CopyOnWrite(T value)  // NOLINT(google-explicit-constructor): a T is one
      : value_(value.empty() ? none() : std::make_shared<T>(std::move(value))) {}
  CopyOnWrite(std::initializer_list<value_type> values) : CopyOnWrite(T(values)) {}
  CopyOnWrite& operator=(T value) {
    value_ = value.empty() ? none() : std::make_shared<T>(std::move(value));
    return *this;
  }
  CopyOnWrite& operator=(std::initializer_list<value_type> values) { return *this = T(values); }

  const T& get() const { return *value_; }
  operator const T&() const { return *value_; }  // NOLINT(google-explicit-constructor)
  const T* operator->() const { return value_.get(); }
  const T& operator*() const { return *value_; }
  // The value to change: this object's own from here on (copied first when shared).
  T& mutate() {
    if (value_.use_count() > 1 || value_ == none()) value_ = std::make_shared<T>(*value_);
    return *value_;
  }
  // Whether two objects hold the very same value (shared), not merely an equal one.
  bool shares_with(const CopyOnWrite& other) const { return value_ == other.value_; }
  // For a pool that keeps one value per distinct content without keeping it alive: a weak handle on this value,
  // and taking on the value of a handle while it lives (false when it is gone).
  std::weak_ptr<T> handle() const { return value_; }
  bool adopt(const std::weak_ptr<T>& handle) {
    std::shared_ptr<T> alive = handle.lock();
    if (!alive) return false;
    value_ = std::move(alive);
    return true;
  }

  // --- reading, as the container's const members ---
  const_iterator begin() const { return value_->cbegin(); }
  const_iterator end() const { return value_->cend(); }
  size_type size() const { return value_->size(); }
  bool empty() const { return value_->empty(); }
  decltype(auto) operator[](size_type i) const { return (*value_)[i]; }
  decltype(auto) front() const { return value_->front(); }
  decltype(auto) back() const { return value_->back(); }
  template <typename K>
  auto find(const K& key) const { return value_->find(key); }
  template <typename K>
  auto count(const K& key) const { return value_->count(key); }
  template <typename K>
  bool contains(const K& key) const { return value_->find(key) != value_->end(); }
  template <typename K>
  decltype(auto) at(const K& key) const { return value_->at(key); }

  // --- changing, as the container's members ---
  void push_back(const value_type& v) { mutate().push_back(v); }
  void push_back(value_type&& v) { mutate().push_back(std::move(v)); }
  template <typename... A>
  decltype(auto) emplace_back(A&&... a) { return mutate().emplace_back(std::forward<A>(a)...); }
  template <typename... A>
  decltype(auto) emplace(A&&... a) { return mutate().emplace(std::forward<A>(a)...); }
  template <typename... A>
  decltype(auto) insert(A&&... a) { return mutate().insert(std::forward<A>(a)...); }
  template <typename... A>
  decltype(auto) insert_or_assign(A&&... a) { return mutate().insert_or_assign(std::forward<A>(a)...); }
  // By key or by position (an iterator of this value's, which stays valid: the value is copied only when shared,
  // and a shared value's iterators are turned into its copy's).
  template <typename K>
  auto erase(const K& key) -> decltype(std::declval<T&>().erase(key)) {
    if constexpr (std::is_convertible_v<const K&, const_iterator>) {
      const auto offset = std::distance(value_->cbegin(), const_iterator(key));
      T& own = mutate();
      return own.erase(std::next(own.cbegin(), offset));
    } else {
      return mutate().erase(key);
    }
  }
  void clear() { value_ = none(); }
  void reserve(size_type n) { mutate().reserve(n); }
  template <typename... A>
  void resize(A&&... a) { mutate().resize(std::forward<A>(a)...); }
  // A map's operator[] creates what it does not find: it changes the value.
  template <typename K>
  decltype(auto) operator[](K&& key) requires(!std::is_integral_v<std::remove_cvref_t<K>>) {
    return mutate()[std::forward<K>(key)];
  }

  friend bool operator==(const CopyOnWrite& a, const CopyOnWrite& b) {
    return a.value_ == b.value_ || *a.value_ == *b.value_;
  }
  friend bool operator==(const CopyOnWrite& a, const T& b) { return *a.value_ == b; }

 private:
  static const std::shared_ptr<T>& none() {
    static const std::shared_ptr<T> none = std::make_shared<T>();
    return none;
  }

  std::shared_ptr<T> value_;
};

}  // namespace scalewright
