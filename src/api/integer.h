#pragma once
// Base-10 integers as Kubernetes reads them in label values (Gt/Lt, like Go's strconv.ParseInt(v, 10, 64)) and as
// YAML writes plain integers: an optional sign, then digits, nothing else; nullopt on overflow.
#include <cstdint>
#include <optional>
#include <string_view>

namespace scalewright {

std::optional<std::int64_t> parse_integer(std::string_view text);

// Booleans as Go's strconv.ParseBool reads them (1 t T TRUE true True, 0 f F FALSE false False), which is how KEDA's
// scalers read boolean metadata; nullopt for anything else.
std::optional<bool> parse_go_bool(std::string_view text);

}  // namespace scalewright
